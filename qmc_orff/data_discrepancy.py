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

:class:`OperatorDataDiscrepancy` is the operator-valued analogue for the
Gaussian decomposable, curl-free and divergence-free kernels: the squared
Frobenius error of the ``(m p) x (m p)`` block Gram matrix,
``K~(x, z) = sum_l xi_l cos(w_l . (x - z)) A~(w_l)``.

Units
-----
``normalize=True`` divides every term by ``||K||_F^2 / m^2``: the normalised
value is the squared *relative* Frobenius Gram error on the training points,
``||K - Z Z^T||_F^2 / ||K||_F^2`` (its square root is what
:func:`qmc_orff.gram_error` reports on the same points), independent of the
kernel's scale and of ``m``.
"""
from __future__ import annotations

import numpy as np

from ._features_kernels import cos_sin_features
from ._validation import (
    as_float_array,
    as_points,
    as_positive,
    as_weights,
    check_choice,
    check_int,
    check_positive_real,
)

__all__ = ["DataDiscrepancy", "OperatorDataDiscrepancy", "KERNELS", "OPERATOR_KERNELS"]

#: Scalar kernels :class:`DataDiscrepancy` measures (their spectral densities).
KERNELS = ("gaussian", "laplacian", "matern")
#: Operator-valued kernels :class:`OperatorDataDiscrepancy` measures.
OPERATOR_KERNELS = ("decomposable", "curl_free", "div_free")
_OPERATOR_MEASURES = ("spectral", "trace")


def _check_data(X, name="X"):
    X = as_float_array(X, name, ndim=2)
    if X.shape[0] < 2:
        raise ValueError(f"'{name}' must have at least 2 rows (points); got shape {X.shape}.")
    if X.shape[1] < 1:
        raise ValueError(f"'{name}' must have at least one column; got shape {X.shape}.")
    return np.ascontiguousarray(X)


def scalar_kernel(kernel, sigma, nu=1.5):
    """The exact :mod:`qmc_orff.kernels` kernel for a name of :data:`KERNELS`."""
    from .kernels import Gaussian, Laplacian, Matern

    kernel = check_choice(kernel, "kernel", KERNELS)
    if kernel == "gaussian":
        return Gaussian(sigma)
    if kernel == "laplacian":
        return Laplacian(sigma)
    return Matern(check_positive_real(nu, "nu"), sigma)


class DataDiscrepancy:
    """Squared Gram error ``||K - Z Z^T||_F^2 / m^2`` of Fourier features on data, with gradients.

    Parameters
    ----------
    X : array_like of shape (m, d)
        Training points (finite, ``m >= 2``).  The cost of every evaluation is
        ``O(m s d + m^2 s)``: pass a subsample of a few hundred to a thousand
        points, not a large data set.
    kernel : {"gaussian", "laplacian", "matern"}, default="gaussian"
        The scalar kernel (see :mod:`qmc_orff.kernels`); its exact Gram matrix
        on ``X`` is computed once.
    sigma : float or array_like of shape (d,), default=1.0
        Bandwidth (length scale for Matern), per coordinate allowed.
    nu : float, default=1.5
        Matern smoothness.

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

    Notes
    -----
    With ``P = X W^T``, ``C = cos P``, ``S = sin P``, ``E = C Xi C^T + S Xi S^T - K``::

        L          = ||E||_F^2 / m^2
        dL/dxi_l   = (2/m^2) (c_l^T E c_l + s_l^T E s_l)
        dL/dP      = (4/m^2) ((E S) * C - (E C) * S) Xi       (* elementwise)
        dL/dW      = (dL/dP)^T X

    computed through one product ``X W^T`` (with the sines and cosines in one
    pass, :func:`qmc_orff._features_kernels.cos_sin_features`), ``E = Z Z^T - K``
    (a symmetric rank-k update) and ``E [C, S]``: ``O(m s d + m^2 s)`` work,
    ``O(m^2 + m s)`` memory, never an ``O(m^2 s)`` temporary.  As a QP in the
    weights, ``L = constant - 2 v^T xi + xi^T H xi`` with
    ``H_lm = <M_l, M_m> / m^2``, ``v_l = <K, M_l> / m^2``,
    ``constant = ||K||_F^2 / m^2``, ``M_l = c_l c_l^T + s_l s_l^T``;
    ``<M_l, M_m> = (c_l.c_m)^2 + (s_l.s_m)^2 + (c_l.s_m)^2 + (s_l.c_m)^2``.
    The diagonal ``i = j`` is in the sum: ``E_ii = sum(xi) - k(0)``.

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

    def __init__(self, X, *, kernel="gaussian", sigma=1.0, nu=1.5):
        X = _check_data(X)
        self.X = X
        self.X.setflags(write=False)
        self.m, self.d = X.shape
        sig = as_positive(sigma, "sigma", d=self.d)
        self.sigma = float(sig) if sig.ndim == 0 else sig
        self.kernel = scalar_kernel(kernel, sig, nu)
        self.density_name = self.kernel.name
        self.nu = getattr(self.kernel, "nu", None)
        K = np.asarray(self.kernel(X), dtype=np.float64)
        self.K = K
        self.K.setflags(write=False)
        self._norm2 = float(np.vdot(K, K)) / self.m ** 2  # ||K||_F^2 / m^2 > 0 (diagonal 1)

    def __repr__(self):
        return f"DataDiscrepancy(m={self.m}, d={self.d}, kernel={self.kernel!r})"

    # ------------------------------------------------------------------ helpers
    def _points(self, W):
        return as_points(W, "W", d=self.d)

    def _weights(self, weights, s):
        if weights is None:
            return np.full(s, 1.0 / s)
        return as_weights(weights, s, "weights")

    def _scale(self, normalize):
        if not isinstance(normalize, (bool, np.bool_)):
            raise TypeError(f"'normalize' must be a bool; got {type(normalize).__name__}.")
        return 1.0 / self._norm2 if normalize else 1.0

    def features(self, W):
        """``[C, S] = [cos(X W^T), sin(X W^T)]`` of shape ``(m, 2 s)`` (unweighted)."""
        W = self._points(W)
        return cos_sin_features(self.X, W, np.ones(W.shape[0]))

    def _error(self, CS, xi):
        """``E = C Xi C^T + S Xi S^T - K`` (m, m)."""
        root = np.sqrt(xi)
        Z = CS * np.concatenate([root, root])
        E = Z @ Z.T
        E -= self.K
        return E

    # ------------------------------------------------------------------ public API
    def __call__(self, W, weights=None, *, normalize=False):
        """``L(W, xi) = ||K - Z Z^T||_F^2 / m^2``.

        Parameters
        ----------
        W : array_like of shape (s, d)
            Frequencies at the kernel's bandwidth.
        weights : array_like of shape (s,), default=None
            Nonnegative weights ``xi``; None means ``1/s`` each.
        normalize : bool, default=False
            Divide by ``||K||_F^2 / m^2``: the squared relative Gram error.

        Returns
        -------
        float
        """
        scale = self._scale(normalize)
        W = self._points(W)
        xi = self._weights(weights, W.shape[0])
        E = self._error(self.features(W), xi)
        return float(np.vdot(E, E)) / self.m ** 2 * scale

    def value_and_grad(self, W, weights=None, *, normalize=False):
        """``L`` and its gradients in ``W`` (and in the weights when given).

        Parameters
        ----------
        W : array_like of shape (s, d)
        weights : array_like of shape (s,), default=None
        normalize : bool, default=False

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
        CS = self.features(W)
        E = self._error(CS, xi)
        m2 = float(self.m) ** 2
        value = float(np.vdot(E, E)) / m2 * scale
        G = E @ CS  # [E C, E S]  (m, 2 s)
        C, S = CS[:, :s], CS[:, s:]
        EC, ES = G[:, :s], G[:, s:]
        dP = ES * C
        dP -= EC * S
        dP *= (4.0 * scale / m2) * xi
        grad_W = (self.X.T @ dP).T  # X^T dP: 4x faster than dP^T X in OpenBLAS for s << m
        if weights is None:
            return value, grad_W
        grad_xi = (2.0 * scale / m2) * (np.einsum("il,il->l", C, EC) + np.einsum("il,il->l", S, ES))
        return value, grad_W, grad_xi

    def pair_matrix(self, W, *, normalize=False):
        """``H[l, m] = <M_l, M_m> / m^2`` (PSD), the quadratic term in the weights.

        Returns
        -------
        ndarray of shape (s, s)
            ``L(W, xi) = constant() - 2 v.xi + xi^T H xi`` with ``v = linear_term(W)``.
        """
        scale = self._scale(normalize)
        CS = self.features(W)
        s = CS.shape[1] // 2
        G = CS.T @ CS  # (2 s, 2 s): [[C^T C, C^T S], [S^T C, S^T S]]
        Gcc, Gcs, Gss = G[:s, :s], G[:s, s:], G[s:, s:]
        H = Gcc * Gcc
        H += Gss * Gss
        H += Gcs * Gcs
        H += Gcs.T * Gcs.T
        H *= scale / float(self.m) ** 2
        return H

    def linear_term(self, W, *, normalize=False):
        """``v_l = <K, M_l> / m^2 = (c_l^T K c_l + s_l^T K s_l) / m^2``.

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
        """``||K||_F^2 / m^2`` (1 with ``normalize=True``); ``d`` must be None or ``self.d``."""
        if d is not None and d != self.d:
            raise ValueError(f"'d' must equal the discrepancy's dimension {self.d}; got {d}.")
        return 1.0 if normalize else self._norm2

    def expected_mc(self, s, *, d=None, normalize=False):
        """``E[L]`` for ``s`` i.i.d. frequencies from the kernel's spectral density, weights ``1/s``.

        ``E[L] = (1 / (s m^2)) sum_ij ((1 + k(2 delta_ij)) / 2 - k(delta_ij)^2)``: each
        ``cos(w . delta)`` has mean ``k(delta)`` and variance
        ``(1 + k(2 delta)) / 2 - k(delta)^2``.
        """
        s = check_int(s, "s", minimum=1)
        self.constant(d)
        if not hasattr(self, "_mc"):
            K2 = np.asarray(self.kernel(2.0 * self.X), dtype=np.float64)  # k(2 (x_i - x_j))
            self._mc = float(np.sum(0.5 * (1.0 + K2) - self.K * self.K)) / self.m ** 2
        return self._mc / s * self._scale(normalize)


# --------------------------------------------------------------------------- operator-valued
class OperatorDataDiscrepancy:
    """Squared block Gram error of operator-valued Fourier features on data, with gradients.

    ``L(W, xi) = (1/m^2) sum_{i,j} ||K(x_i, x_j) - sum_l xi_l cos(w_l . (x_i - x_j)) A~(w_l)||_F^2``,
    the squared Frobenius norm of the ``(m p) x (m p)`` block error, over ``m^2``.

    Parameters
    ----------
    X : array_like of shape (m, d)
        Training points.
    kernel : {"decomposable", "curl_free", "div_free"}, default="curl_free"
        The Gaussian operator-valued kernel (:mod:`qmc_orff.kernels`).
    sigma : float, default=1.0
        Bandwidth of the scalar Gaussian ``k_0``.
    A : array_like of shape (p, p) or None, default=None
        Output matrix of the decomposable kernel (identity of size ``d`` when None).
    measure : {"spectral", "trace"}, default="spectral"
        Which ``A~(w)`` the map uses (as :class:`qmc_orff.ORFF`): ``"spectral"``:
        ``A``, ``w w^T`` (curl), ``|w|^2 I - w w^T`` (div); ``"trace"``: the
        trace-normalised ``(d / sigma^2) w^ w^T`` (curl), ``(d / sigma^2)(I - w^ w^T)``
        (div), ``w^ = w / |w|`` (for the decomposable kernel both are ``A``).

    Notes
    -----
    Decomposable: the blocks factor, ``L = ||A||_F^2 L_scalar`` (one
    :class:`DataDiscrepancy`).  Curl- and div-free: for each of the ``p (p + 1) / 2``
    entries ``(a, b)``, ``E^ab = C diag(xi A~^ab) C^T + S diag(xi A~^ab) S^T - K^ab``
    and, with ``M = 1`` on the diagonal and 2 off it,
    ``dL/dP = (4/m^2) sum_ab M_ab ((E^ab S) * C - (E^ab C) * S) diag(xi A~^ab)``,
    ``dL/dA~_l^ab = (2/m^2) M_ab xi_l (c_l^T E^ab c_l + s_l^T E^ab s_l)``,
    ``dL/dw_l = (dL/dP)^T x + sum_ab dL/dA~_l^ab dA~^ab/dw_l`` (``dA/dw_k = e_k w^T + w e_k^T``
    for ``w w^T``).  Cost ``O(p^2 (m^2 s) + m s d)``: meant for the small ``p`` of
    vector fields (``p = d`` = 2 or 3).
    """

    def __init__(self, X, *, kernel="curl_free", sigma=1.0, A=None, measure="spectral"):
        from .kernels import CurlFree, Decomposable, DivFree, Gaussian, check_psd_matrix

        X = _check_data(X)
        self.kernel_name = check_choice(kernel, "kernel", OPERATOR_KERNELS)
        self.measure = check_choice(measure, "measure", _OPERATOR_MEASURES)
        self.X = X
        self.m, self.d = X.shape
        sig = as_positive(sigma, "sigma")
        if sig.ndim != 0:
            raise ValueError(f"'sigma' must be a positive scalar; got shape {sig.shape}.")
        self.sigma = float(sig)
        if self.kernel_name == "decomposable":
            self.A = np.eye(self.d) if A is None else check_psd_matrix(A, "A")
            self.kernel = Decomposable(Gaussian(self.sigma), self.A)
            self._scalar = DataDiscrepancy(X, kernel="gaussian", sigma=self.sigma)
            self._a2 = float(np.sum(self.A * self.A))
            self.p = self.A.shape[0]
            self._norm2 = self._a2 * self._scalar._norm2
            return
        if self.kernel_name == "div_free" and self.d < 2:
            raise ValueError(f"'X' must have d >= 2 columns for kernel='div_free'; got d={self.d}.")
        self.kernel = CurlFree(self.sigma) if self.kernel_name == "curl_free" else DivFree(self.sigma)
        self.p = self.d
        K = np.asarray(self.kernel(X), dtype=np.float64)  # (m, m, p, p)
        self._pairs = [(a, b) for a in range(self.p) for b in range(a, self.p)]
        self._K = {(a, b): np.ascontiguousarray(K[:, :, a, b]) for a, b in self._pairs}
        self._norm2 = float(np.vdot(K, K)) / self.m ** 2

    def __repr__(self):
        return (f"OperatorDataDiscrepancy(m={self.m}, d={self.d}, kernel={self.kernel_name!r}, "
                f"sigma={self.sigma!r}, measure={self.measure!r})")

    def _scale(self, normalize):
        if not isinstance(normalize, (bool, np.bool_)):
            raise TypeError(f"'normalize' must be a bool; got {type(normalize).__name__}.")
        return 1.0 / self._norm2 if normalize else 1.0

    def A_tilde(self, W):
        """``A~(w_l)`` (s, p, p) and ``dA~(w_l)/dw_lk`` (s, p, p, d) for the curl/div kernels."""
        W = as_points(W, "W", d=self.d)
        s, d = W.shape
        eye = np.eye(d)
        if self.measure == "spectral":
            V = W
        else:
            norm = np.sqrt(np.sum(W * W, axis=1))
            if np.any(norm == 0):
                raise ValueError("'W' must not contain a zero frequency for measure='trace'.")
            V = W / norm[:, None]
        outer = V[:, :, None] * V[:, None, :]  # v v^T
        # d(v v^T)/dv_k = e_k v^T + v e_k^T
        dvv = eye[None, :, None, :] * V[:, None, :, None] + V[:, :, None, None] * eye[None, None, :, :]
        if self.kernel_name == "curl_free":
            base, dbase = outer, dvv
        else:  # |v|^2 I - v v^T
            sq = np.sum(V * V, axis=1)
            base = sq[:, None, None] * eye[None] - outer
            dbase = 2.0 * V[:, None, None, :] * eye[None, :, :, None] - dvv
        if self.measure == "spectral":
            return base, dbase
        # trace: A~ = (d / sigma^2) base(w^), w^ = w / |w|; dw^/dw = (I - w^ w^T) / |w|
        c = d / self.sigma ** 2
        J = (eye[None] - outer) / norm[:, None, None]  # (s, d, d): dv_q / dw_k = J[q, k]
        dA = np.einsum("labq,lqk->labk", dbase, J)
        return c * base, c * dA

    def _terms(self, W, xi, grad):
        """Value (over m^2, unnormalised) and, if ``grad``, ``(dL/dW, dL/dxi)``."""
        s = W.shape[0]
        m2 = float(self.m) ** 2
        CS = cos_sin_features(self.X, W, np.ones(s))
        C, S = CS[:, :s], CS[:, s:]
        At, dAt = self.A_tilde(W)
        value = 0.0
        dP = np.zeros((self.m, s))
        grad_xi = np.zeros(s)
        grad_W = np.zeros((s, self.d))
        for a, b in self._pairs:
            mult = 1.0 if a == b else 2.0  # (a, b) and (b, a) together
            coef = xi * At[:, a, b]
            E = (CS * np.concatenate([coef, coef])) @ CS.T
            E -= self._K[(a, b)]
            value += mult * float(np.vdot(E, E))
            if grad:
                G = E @ CS  # [E C, E S]
                EC, ES = G[:, :s], G[:, s:]
                dP += (4.0 * mult / m2) * (ES * C - EC * S) * coef
                # dL / d coef_l = (2 mult / m^2) (c_l^T E c_l + s_l^T E s_l)
                u = (2.0 * mult / m2) * (np.einsum("il,il->l", C, EC) + np.einsum("il,il->l", S, ES))
                grad_xi += u * At[:, a, b]
                grad_W += (u * xi)[:, None] * dAt[:, a, b, :]
        value /= m2
        if not grad:
            return value, None, None
        grad_W += (self.X.T @ dP).T
        return value, grad_W, grad_xi

    def __call__(self, W, weights=None, *, normalize=False):
        """``L(W, xi)``; see :class:`DataDiscrepancy` for the parameters."""
        scale = self._scale(normalize)
        if self.kernel_name == "decomposable":
            return self._a2 * self._scalar(W, weights) * scale
        W = as_points(W, "W", d=self.d)
        xi = np.full(W.shape[0], 1.0 / W.shape[0]) if weights is None else \
            as_weights(weights, W.shape[0], "weights")
        return self._terms(W, xi, grad=False)[0] * scale

    def value_and_grad(self, W, weights=None, *, normalize=False):
        """``L``, ``dL/dW`` (s, d) and, when `weights` is given, ``dL/dweights`` (s,)."""
        scale = self._scale(normalize)
        if self.kernel_name == "decomposable":
            out = self._scalar.value_and_grad(W, weights)
            return tuple([out[0] * self._a2 * scale] + [g * (self._a2 * scale) for g in out[1:]])
        W = as_points(W, "W", d=self.d)
        xi = np.full(W.shape[0], 1.0 / W.shape[0]) if weights is None else \
            as_weights(weights, W.shape[0], "weights")
        value, gW, gxi = self._terms(W, xi, grad=True)
        if weights is None:
            return value * scale, gW * scale
        return value * scale, gW * scale, gxi * scale

    def constant(self, d=None, *, normalize=False):
        """``sum_ij ||K(x_i, x_j)||_F^2 / m^2`` (1 with ``normalize=True``)."""
        if d is not None and d != self.d:
            raise ValueError(f"'d' must equal the discrepancy's dimension {self.d}; got {d}.")
        return 1.0 if normalize else self._norm2
