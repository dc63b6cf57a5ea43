"""The discrepancy over a data set's pairwise differences: the adaptive designs' objective.

For training points ``X`` (m x d), frequencies ``W`` (s x d) and nonnegative
weights ``xi``, the data discrepancy is the squared Gram error of the real
Fourier feature map on ``X``::

    L(W, xi) = (1/m^2) sum_{i,j} (k(x_i - x_j) - sum_l xi_l cos(w_l . (x_i - x_j)))^2
             = ||K - Z Z^T||_F^2 / m^2,         Z = [C Xi^1/2, S Xi^1/2]

with ``C = cos(X W^T)``, ``S = sin(X W^T)`` (m x s) and ``K`` the exact Gram
matrix.  It is the box discrepancy of Avron et al. (2016) with the uniform
measure on the box replaced by the empirical measure of the differences
``x_i - x_j``, in cosine form (the error of the real map itself; see
``formulas.md``, last section).  :class:`DataDiscrepancy` follows the protocol of
:class:`~qmc_orff.BoxDiscrepancy` (``__call__``, ``value_and_grad``,
``pair_matrix``, ``linear_term``, ``constant``, ``expected_mc``, each with
``normalize``), so the global, greedy and weighted designs take either.

:class:`~qmc_orff.objectives.operator_data.OperatorDataDiscrepancy` is the
operator-valued analogue.

Units
-----
``normalize=True`` divides every term by ``||K||_F^2 / m^2``: the normalised
value is the squared *relative* Frobenius Gram error on the training points,
``||K - Z Z^T||_F^2 / ||K||_F^2`` (its square root is what
:func:`qmc_orff.gram_error` reports on the same points), independent of the
kernel's scale and of ``m``.
"""
from __future__ import annotations

import hashlib
import math

import numpy as np

from .._cos_sin import cos_sin_features
from .._validation import (MAX_ELEMENTS, MAX_PHASE, as_points, as_positive, as_weights,
                           check_choice, check_int, check_phases, check_positive_real, shape_of)
from ..kernels import scalar_kernel
from ..threads import _blas_limited
from ._data_common import (GRAM_ARRAYS, _check_data, _check_dtype, check_rows, check_scaled_rows,
                           cos_product_sums, finite_result, normalization)
from ._data_greedy import DataGreedyState
from .protocol import UnitBandwidth

__all__ = ["DataDiscrepancy", "KERNELS", "data_sha256"]

#: Scalar kernels :class:`DataDiscrepancy` measures (their spectral densities): those of
#: :data:`qmc_orff.kernels.SCALAR_KERNELS` that are shift invariant on ``X`` itself (the skewed
#: chi-squared kernel is so on ``log(X + c)`` only).
KERNELS = ("gaussian", "laplacian", "matern")


#: ``dtype="float32"`` evaluations run in float64 where a phase may exceed this (2**10: a
#: float32 phase there is within 6e-5 rad)
MAX_PHASE_F32 = 2.0 ** 10
#: Weights summing beyond this are refused: ``||K - Z Z^T||_F^2`` would overflow.
MAX_WEIGHT_SUM = 1e100




class DataDiscrepancy:
    r"""Squared Gram error :math:`\lVert K - Z Z^\top\rVert_F^2 / m^2` of Fourier features on
    data, with gradients.

    :math:`K` is the exact kernel's Gram matrix of the :math:`m` rows of ``X`` and :math:`Z`
    the features of frequencies :math:`w_l` with weights :math:`\xi_l`, so that
    :math:`(Z Z^\top)_{ik} = \sum_{l} \xi_l \cos\langle x_i - x_k, w_l\rangle`.

    Parameters
    ----------
    X : array_like of shape (m, d)
        Training points (finite, :math:`m \ge 2`).  The cost of every evaluation is
        :math:`O(m s d + m^2 s)`: pass a subsample of a few hundred to a thousand
        points, not a large data set.
    kernel : {"gaussian", "laplacian", "matern"}, default="gaussian"
        The scalar kernel (as in :class:`qmc_orff.FourierFeatures`); its exact Gram matrix
        on ``X`` is computed once.
    sigma : float or array_like of shape (d,), default=1.0
        Bandwidth (length scale for Matern), per coordinate allowed.
    nu : float, default=1.5
        Matern smoothness.
    dtype : {"float64", "float32"}, default="float64"
        Precision of :meth:`__call__` and :meth:`value_and_grad` (phases, features, the
        error matrix and the products; the value is summed in float64 and the results are
        float64).  ``"float32"`` runs the products about twice as fast for a relative error
        near ``1e-6`` of the value (the adaptive design's training objective;
        frequencies whose phases ``|x . w|`` may exceed ``2**10``, and rows beyond float32's
        range, are evaluated in float64);
        :meth:`features`, :meth:`pair_matrix` and :meth:`linear_term` stay float64.

    Attributes
    ----------
    d : int
        Dimension.
    m : int
        Number of training points.
    kernel : qmc_orff.kernels.Kernel
        The exact kernel.
    density_name : str
        The kernel's name (``Sequence.meta["density"]`` of its frequencies).
    sigma : float or ndarray of shape (d,)

    See Also
    --------
    BoxDiscrepancy : the data-free objective over a box of differences.
    adaptive_sequence : the design that minimises it (``FourierFeatures(sequence="adaptive")``).
    gram_error : the (unsquared) Gram error of a fitted map on held-out rows.

    Notes
    -----
    With :math:`P = X W^\top`, :math:`C = \cos P`, :math:`S = \sin P`,
    :math:`\Xi = \operatorname{diag}(\xi)` and :math:`E = C \Xi C^\top + S \Xi S^\top - K`,

    .. math::

       L &= \lVert E\rVert_F^2 / m^2, \\
       \partial L / \partial \xi_l &= (2/m^2)\, (c_l^\top E c_l + s_l^\top E s_l), \\
       \partial L / \partial P &= (4/m^2)\, \bigl((E S) \odot C - (E C) \odot S\bigr)\, \Xi, \\
       \partial L / \partial W &= (\partial L / \partial P)^\top X,

    (:math:`\odot` elementwise) computed through one product :math:`X W^\top` (with the sines and cosines in one
    pass, as the feature maps compute them), :math:`E = Z Z^\top - K`
    (a symmetric rank-k update) and :math:`E\, [C, S]`: :math:`O(m s d + m^2 s)` work,
    :math:`O(m^2 + m s)` memory, never an :math:`O(m^2 s)` temporary.  As a QP in the
    weights, :math:`L = c - 2 v^\top \xi + \xi^\top H \xi` with
    :math:`H_{lm} = \langle M_l, M_m\rangle / m^2`, :math:`v_l = \langle K, M_l\rangle / m^2`,
    :math:`c = \lVert K\rVert_F^2 / m^2`, :math:`M_l = c_l c_l^\top + s_l s_l^\top`;
    :math:`\langle M_l, M_m\rangle = (c_l^\top c_m)^2 + (s_l^\top s_m)^2 + (c_l^\top s_m)^2 + (s_l^\top c_m)^2`.
    The diagonal :math:`i = j` is in the sum: :math:`E_{ii} = \sum_l \xi_l - k(0)`.

    References
    ----------
    H. Avron, V. Sindhwani, J. Yang, M. W. Mahoney, "Quasi-Monte Carlo Feature
    Maps for Shift-Invariant Kernels", JMLR 17(120), 2016 (the box discrepancy,
    Theorem 9, of which this is the data-measure analogue).

    Examples
    --------
    >>> import numpy as np
    >>> from qmc_orff import DataDiscrepancy
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> obj = DataDiscrepancy(X, sigma=2.0)
    >>> W = np.random.default_rng(1).normal(size=(64, 3)) / 2.0
    >>> bool(0.0 < obj(W, normalize=True) < 0.1)
    True
    """

    def __init__(self, X, *, kernel="gaussian", sigma=1.0, nu=1.5, dtype="float64"):
        dtype = _check_dtype(dtype)
        X = _check_data(X, arrays=GRAM_ARRAYS)
        check_rows(X.shape[0])
        self.X = X
        self.X.setflags(write=False)
        self.m, self.d = X.shape
        sig = as_positive(sigma, "sigma", d=self.d)
        with np.errstate(over="ignore"):  # an overflow is refused by name just below
            check_scaled_rows(X / sig)
        self.sigma = float(sig) if sig.ndim == 0 else sig
        kernel = check_choice(kernel, "kernel", KERNELS)
        if kernel == "matern":  # nu is Matern's alone
            nu = check_positive_real(nu, "nu")
        self.kernel = scalar_kernel(kernel, sig, nu=nu)
        self.density_name = self.kernel.name
        self.nu = getattr(self.kernel, "nu", None)
        K = np.asarray(self.kernel(X), dtype=np.float64)
        self.K = K
        self.K.setflags(write=False)
        self._norm2 = float(np.vdot(K, K)) / self.m ** 2  # ||K||_F^2 / m^2 > 0 (diagonal 1)
        self._l1 = float(np.max(np.sum(np.abs(X), axis=1)))  # the phases' bound over max|w|
        if not self._l1 <= float(np.finfo(dtype).max):  # rows beyond float32: in float64
            dtype = _check_dtype("float64")
        self.dtype = dtype
        # the evaluations' copies (the same arrays in float64)
        self._Xc = X if dtype == np.float64 else X.astype(dtype)
        self._Kc = K if dtype == np.float64 else K.astype(dtype)

    def __repr__(self):
        return f"DataDiscrepancy(m={self.m}, d={self.d}, kernel={self.kernel!r})"

    # ------------------------------------------------------------------ helpers
    def _points(self, W):
        shape = shape_of(W)  # the (m, 2 s) features within the size policy, before conversion
        if shape is not None and len(shape) == 2 and 2 * self.m * shape[0] > MAX_ELEMENTS:
            raise ValueError(f"'W' must have at most {MAX_ELEMENTS // (2 * self.m)} rows for "
                             f"m={self.m} rows of X (the (m, 2 s) features: at most 2**28 "
                             f"entries, 2 GiB); got {shape[0]}.")
        W = as_points(W, "W", d=self.d)
        check_phases(self.X, W, "W", max_row_l1=self._l1, limit=MAX_PHASE)
        return W

    def _weights(self, weights, s):
        if weights is None:
            return np.full(s, 1.0 / s)
        return as_weights(weights, s, "weights", max_sum=MAX_WEIGHT_SUM)

    def _scale(self, normalize):
        return normalization(normalize, self._norm2)

    def features(self, W):
        r"""The features :math:`[C, S] = [\cos(X W^\top), \sin(X W^\top)]` of shape ``(m, 2 s)`` (unweighted).

        Parameters
        ----------
        W : array_like of shape (s, d)
            Frequencies at the kernel's bandwidth.

        Returns
        -------
        ndarray of shape (m, 2 s)
        """
        W = self._points(W)
        return cos_sin_features(self.X, W, np.ones(W.shape[0]))

    def _features_c(self, W):
        """:meth:`features` of checked ``W`` in the evaluations' dtype (float64 where a phase
        may exceed :data:`MAX_PHASE_F32`)."""
        if self.dtype == np.float64 or not self._l1 * float(np.max(np.abs(W))) <= MAX_PHASE_F32:
            return cos_sin_features(self.X, W, np.ones(W.shape[0]))
        return cos_sin_features(self._Xc, W.astype(self.dtype), np.ones(W.shape[0], self.dtype))

    def _error(self, CS, xi):
        """``E = C Xi C^T + S Xi S^T - K`` (m, m), in the dtype of ``CS``."""
        root = np.sqrt(xi).astype(CS.dtype, copy=False)
        Z = CS * np.concatenate([root, root])
        E = Z @ Z.T
        E -= self._Kc if CS.dtype == self._Kc.dtype else self.K
        return E

    @staticmethod
    def _sum_squares(E):
        """``||E||_F^2`` summed in float64."""
        if E.dtype != np.float64:
            E = E.astype(np.float64)
        return float(np.vdot(E, E))

    # ------------------------------------------------------------------ public API
    def __call__(self, W, weights=None, *, normalize=False):
        r"""The squared Gram error :math:`L(W, \xi) = \lVert K - Z Z^\top\rVert_F^2 / m^2`.

        Parameters
        ----------
        W : array_like of shape (s, d)
            Frequencies at the kernel's bandwidth.
        weights : array_like of shape (s,), default=None
            Nonnegative weights :math:`\xi`; None means :math:`1/s` each.
        normalize : bool, default=False
            Divide by :math:`\lVert K\rVert_F^2 / m^2`: the squared relative Gram error.

        Returns
        -------
        float
        """
        scale = self._scale(normalize)
        W = self._points(W)
        xi = self._weights(weights, W.shape[0])
        with np.errstate(over="ignore", invalid="ignore"), _blas_limited(1):  # thread-free bits
            E = self._error(self._features_c(W), xi)
            return finite_result(self._sum_squares(E) / self.m ** 2 * scale)

    def value_and_grad(self, W, weights=None, *, normalize=False):
        r"""The value :math:`L` and its gradients in ``W`` (and in the weights when given).

        Parameters
        ----------
        W : array_like of shape (s, d)
            The frequencies (as in :meth:`__call__`).
        weights : array_like of shape (s,), default=None
            The weights :math:`\xi` (:math:`1/s` each when None); given, ``grad_weights`` is returned.
        normalize : bool, default=False
            Value and gradients of the normalised :math:`L` (see :meth:`__call__`).

        Returns
        -------
        L : float
        grad_W : ndarray of shape (s, d)
        grad_weights : ndarray of shape (s,)
            Returned only when `weights` is given.
        """
        scale = self._scale(normalize)
        W = self._points(W)
        s = W.shape[0]
        xi = self._weights(weights, s)
        # checked on the result; one BLAS thread: the same bits whatever the thread count
        with np.errstate(over="ignore", invalid="ignore"), _blas_limited(1):
            return finite_result(self._value_and_grad(W, xi, scale, weights is not None))

    def _value_and_grad(self, W, xi, scale, with_weights):
        s = W.shape[0]
        CS = self._features_c(W)
        E = self._error(CS, xi)
        m2 = float(self.m) ** 2
        value = self._sum_squares(E) / m2 * scale
        G = E @ CS  # [E C, E S]  (m, 2 s)
        C, S = CS[:, :s], CS[:, s:]
        EC, ES = G[:, :s], G[:, s:]
        dP = ES * C
        dP -= EC * S
        dP *= ((4.0 * scale / m2) * xi).astype(CS.dtype, copy=False)
        X = self.X if CS.dtype == np.float64 else self._Xc
        grad_W = (X.T @ dP).T  # X^T dP: 4x faster than dP^T X in OpenBLAS for s << m
        if CS.dtype != np.float64:  # C order: the optimiser's ravel is then a view
            grad_W = grad_W.astype(np.float64, order="C")
        if not with_weights:
            return value, grad_W
        wide = {} if CS.dtype == np.float64 else {"dtype": np.float64}  # sums in float64
        grad_xi = (2.0 * scale / m2) * (np.einsum("il,il->l", C, EC, **wide)
                                        + np.einsum("il,il->l", S, ES, **wide))
        return value, grad_W, grad_xi

    def pair_matrix(self, W, *, normalize=False):
        r"""The matrix :math:`H_{lm} = \langle M_l, M_m\rangle / m^2` (PSD), the quadratic term in the weights.

        Parameters
        ----------
        W : array_like of shape (s, d)
            The points of the QP, at the kernel's bandwidth.
        normalize : bool, default=False
            Return :math:`H` divided by :math:`\lVert K\rVert_F^2 / m^2`.

        Returns
        -------
        ndarray of shape (s, s)
            :math:`L(W, \xi) = c - 2 v^\top \xi + \xi^\top H \xi` with :math:`c` = ``constant()``
            and :math:`v` = ``linear_term(W)``.
        """
        scale = self._scale(normalize)
        CS = self.features(W)
        s = CS.shape[1] // 2
        G = CS.T @ CS  # (2 s, 2 s): [[C^T C, C^T S], [S^T C, S^T S]]
        H = cos_product_sums(G[:s, :s], G[:s, s:], G[s:, s:])
        H *= scale / float(self.m) ** 2
        return H

    def linear_term(self, W, *, normalize=False):
        r"""The vector :math:`v_l = \langle K, M_l\rangle / m^2 = (c_l^\top K c_l + s_l^\top K s_l) / m^2`.

        Parameters
        ----------
        W : array_like of shape (s, d)
            The points of the QP, at the kernel's bandwidth.
        normalize : bool, default=False
            Return :math:`v` divided by :math:`\lVert K\rVert_F^2 / m^2`.

        Returns
        -------
        ndarray of shape (s,)
        """
        scale = self._scale(normalize)
        CS = self.features(W)
        KCS = self.K @ CS
        v = np.einsum("il,il->l", CS, KCS)
        s = CS.shape[1] // 2
        return (v[:s] + v[s:]) * (scale / float(self.m) ** 2)

    def constant(self, d=None, *, normalize=False):
        r"""The constant term :math:`\lVert K\rVert_F^2 / m^2` of :math:`L`.

        Parameters
        ----------
        d : int or None, default=None
            Must be None or ``self.d`` (the protocol's signature).
        normalize : bool, default=False
            Return 1 (the normalised constant).

        Returns
        -------
        float
        """
        if d is not None and d != self.d:
            raise ValueError(f"'d' must equal the discrepancy's dimension {self.d}; got {d}.")
        return 1.0 if normalize else self._norm2

    def expected_mc(self, s, *, d=None, normalize=False):
        r"""The expectation :math:`E[L]` for :math:`s` i.i.d. frequencies from the kernel's spectral density, weights :math:`1/s`.

        Parameters
        ----------
        s : int
            Number of frequencies, :math:`s \ge 1`.
        d : int or None, default=None
            Must be None or ``self.d`` (the protocol's signature).
        normalize : bool, default=False
            Divide by :math:`\lVert K\rVert_F^2 / m^2` (as in :meth:`__call__`).

        Returns
        -------
        float
            :math:`E[L] = \frac{1}{s m^2} \sum_{ij} \bigl(\tfrac{1 + k(2 \delta_{ij})}{2} - k(\delta_{ij})^2\bigr)`:
            each :math:`\cos\langle w, \delta\rangle` has mean :math:`k(\delta)` and variance
            :math:`(1 + k(2 \delta)) / 2 - k(\delta)^2`.
        """
        s = check_int(s, "s", minimum=1)
        self.constant(d)
        if not hasattr(self, "_mc"):
            K2 = np.asarray(self.kernel(2.0 * self.X), dtype=np.float64)  # k(2 (x_i - x_j))
            self._mc = float(np.sum(0.5 * (1.0 + K2) - self.K * self.K)) / self.m ** 2
        return self._mc / s * self._scale(normalize)

    # ------------------------------------------------------------------ the design protocol
    def normalizer(self, d=None):
        r"""The factor :math:`\lVert K\rVert_F^2 / m^2`: raw values = normalised values times this.

        Parameters
        ----------
        d : int or None, default=None
            Must be None or ``self.d`` (the protocol's signature).

        Returns
        -------
        float
        """
        return self.constant(d)

    def unit_bandwidth(self, d):
        r"""The design problem at unit bandwidth (a ``UnitBandwidth``, used by the designs).

        Parameters
        ----------
        d : int
            Dimension (``self.d``).

        Notes
        -----
        The objective rebuilt on :math:`X / \sigma` at :math:`\sigma = 1` has the same values:
        :math:`L_{X, \sigma}(W) = L_{X / \sigma, 1}(\sigma W)`.
        """
        from ..densities import get_density

        sigma = np.ascontiguousarray(np.broadcast_to(np.asarray(self.sigma, float), (d,)))
        kernel = self.density_name
        nu = 1.5 if self.nu is None else self.nu
        return UnitBandwidth(
            objective=DataDiscrepancy(self.X / sigma, kernel=kernel, sigma=1.0, nu=nu),
            sigma=sigma,
            log_normalizer=math.log(self.constant()),
            meta={"objective": "data", "density": kernel, "box_over_sigma": None,
                  "sigma": [float(x) for x in sigma], "n_train": int(self.m),
                  "data_sha256": data_sha256(self.X)},
            density=get_density(kernel) if kernel in ("gaussian", "laplacian") else None,
            kernel=kernel,
            nu=nu,
            sources=("orf", "mc", "lattice"),
        )

    def greedy_state(self, s, d):
        """Running state of the greedy design (used by :func:`qmc_orff.greedy_sequence`).

        Parameters
        ----------
        s : int
            Number of points to choose.
        d : int
            Dimension (``self.d``).
        """
        return DataGreedyState(self, s, d)


def data_sha256(X):
    """SHA-256 (hex) of ``X`` as little-endian float64 in C order, prefixed by its shape."""
    X = np.ascontiguousarray(X, dtype="<f8")
    h = hashlib.sha256(f"{X.shape}".encode())
    h.update(X.tobytes())
    return h.hexdigest()
