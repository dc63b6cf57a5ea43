"""The box discrepancy of Avron, Sindhwani, Yang and Mahoney (JMLR 2016).

For a point set ``S = {w_1, ..., w_s}`` of frequencies, weights ``xi`` and a
product spectral density ``p``, the squared box discrepancy (Theorem 9,
Corollary 13; the weighted form is their equations 16-17) is::

    D^2(S, xi) = sum_l sum_m xi_l xi_m sinc_b(w_l, w_m)      (pair term)
               - 2 sum_l xi_l prod_j g_j(w_lj)                (linear term)
               + prod_j C_j                                   (constant)

    sinc_b(u, v) = pi^-d prod_j sin(b_j (u_j - v_j)) / (u_j - v_j)
    g_j(x) = (2 pi)^-1 int_{-b_j}^{b_j} phi_j(beta) exp(i x beta) d beta
    C_j    = pi^-1 int_0^{b_j} phi_j(beta)^2 d beta

By Theorem 12, ``pi^d / prod(b) * D^2`` is the mean squared error of the
weighted rule ``sum_l xi_l exp(-i u.w_l)`` for ``int exp(-i u.w) p(w) dw``,
averaged over ``u`` uniform in the box ``[-b, b]``.

Internally every term is computed in these normalised units (all factors in
[-1, 1], so nothing underflows in high dimension) and multiplied by
``prod_j (b_j / pi)`` at the end.
"""
from __future__ import annotations

import math

import numpy as np

from . import _box_kernels as _kernels
from .._validation import as_points, as_positive, as_weights, check_dimension, check_int
from ..densities import get_density
from ._box_width import box_from_data
from .protocol import UnitBandwidth

__all__ = ["BoxDiscrepancy", "box_from_data"]

_TINY = float(np.finfo(np.float64).tiny)
#: the factors pi C_1(a) / a and pi g / a overflow for a subnormal ratio a = b / sigma
_RATIO_RANGE = f" of at least {_TINY!r} (a normal float64)"


def _ratio_ok(a):
    """Where the ratio ``a = b / sigma`` is finite and a normal float64."""
    return np.isfinite(a) & (a >= _TINY)


#: Largest sum of the quadrature weights (D^2 is quadratic in them).
_MAX_WEIGHT_SUM = 1e150


def _check_gradient_scale(p):
    """The W-gradient of the linear term carries ``pi sigma_j / a_j = pi sigma_j^2 / b_j``."""
    with np.errstate(over="ignore"):
        factor = math.pi * p["sigma"] / p["a"]
    bad = ~np.isfinite(factor)
    if np.any(bad):
        j = int(np.flatnonzero(bad)[0])
        raise ValueError(f"'sigma' is too large relative to 'b' for gradients: pi sigma^2 / b "
                         f"overflows float64 in coordinate {j} (sigma={float(p['sigma'][j])!r}, "
                         f"b={float(p['b'][j])!r}).")


def _check_finite_result(*values):
    """Never a silent NaN/inf: raise where D^2 or a gradient is not representable."""
    for v in values:
        if not np.all(np.isfinite(v)):
            raise ValueError("D^2 or its gradient is not finite for these inputs: 'W', "
                             "'weights', 'b' or 'sigma' are too extreme (e.g. weights summing "
                             "to a huge value, or a box far outside float64's range); use "
                             "normalize=True or rescale.")


class BoxDiscrepancy:
    r"""Squared box discrepancy :math:`D^2` of frequency sets, with analytic gradients.

    For frequencies :math:`w_1, \dots, w_s` with weights :math:`\xi_l` and the box
    :math:`\square_b = [-b_1, b_1] \times \dots \times [-b_d, b_d]` (Avron et al. 2016,
    Theorem 9),

    .. math::

        D^2 = (2\pi)^{-d} \int_{\square_b}
        \Bigl| \int e^{-i\langle u, w\rangle} p(w)\, dw
        - \sum_{l=1}^{s} \xi_l\, e^{-i\langle u, w_l\rangle} \Bigr|^2 du,

    :math:`p` the kernel's spectral density; ``normalize=True`` returns
    :math:`\pi^d / \prod_j b_j \cdot D^2`, the mean squared error of the quadrature over
    the box of differences :math:`u = x - z` (Theorem 12).

    Parameters
    ----------
    b : float or array_like of shape (d,)
        Box half-widths :math:`b_j > 0`: the integrands are :math:`e^{-i\langle u, w\rangle}`
        for :math:`u \in [-b, b]` (for data, :math:`b_j = \max \lvert x_j - z_j\rvert`; see
        :func:`box_from_data`).
    kernel : {"gaussian", "laplacian"} or ProductDensity, default="gaussian"
        The kernel, i.e. the spectral density: ``"gaussian"`` (normal),
        ``"laplacian"`` (product Cauchy) or any ``ProductDensity`` (such as
        :class:`~qmc_orff.CharacteristicDensity`).
    sigma : float or array_like of shape (d,), default=1.0
        Kernel bandwidth per coordinate, :math:`\sigma_j > 0`.  Frequencies ``W`` are
        those of the kernel at this bandwidth (:math:`w_j = u_j / \sigma_j`, :math:`u_j \sim p_1`).
    d : int, default=None
        The dimension.  Taken from `b` or `sigma` when either is an array; when
        all three leave it open, scalars broadcast to the points' dimension.

    Attributes
    ----------
    density : ProductDensity
    b, sigma : float or ndarray of shape (d,)
        As given (validated).
    d : int or None

    See Also
    --------
    box_from_data : the box of a data set's differences.
    DataDiscrepancy : the Gram error on data, instead of a box.
    global_sequence, greedy_sequence, weighted_sequence : designs that minimise it.

    Notes
    -----
    The pair term costs :math:`O(s^2 d)` and runs in a numba kernel (parallel over
    blocks of rows, each unordered pair once, bit-identical for any thread
    count); the rest costs :math:`O(s d)`.  Memory is :math:`O(s d)` except for
    :meth:`pair_matrix`.  Every method that returns a term of :math:`D^2` takes
    ``normalize=True`` to return it multiplied by :math:`\pi^d / \prod_j b_j` (the units
    of Theorem 12); use it in high dimension, where :math:`\prod_j b_j / \pi` under- or
    overflows float64 (the unnormalised methods then raise ``ValueError``).
    The constant of equation (11) of the paper is a
    misprint (:math:`\int_{-b}^{b}`); the derivation (appendix A.3) and equation (21)
    give :math:`\pi^{-1} \int_0^b`, used here.

    References
    ----------
    H. Avron, V. Sindhwani, J. Yang, M. W. Mahoney, "Quasi-Monte Carlo Feature
    Maps for Shift-Invariant Kernels", JMLR 17(120), 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from qmc_orff import BoxDiscrepancy
    >>> disc = BoxDiscrepancy(2.0, d=3)
    >>> W = np.random.default_rng(0).standard_normal((64, 3))
    >>> D2 = disc(W)
    >>> bool(0.0 < D2 < 3 * disc.expected_mc(64))
    True
    """

    def __init__(self, b, *, kernel="gaussian", sigma=1.0, d=None):
        self.density = get_density(kernel)
        if d is not None:
            d = check_dimension(d)
        b_arr = as_positive(b, "b", d=d)
        if b_arr.ndim == 1:
            d = b_arr.shape[0]
        s_arr = as_positive(sigma, "sigma", d=d)
        if s_arr.ndim == 1:
            d = s_arr.shape[0]
        with np.errstate(over="ignore", under="ignore"):
            a = b_arr / s_arr
        if not np.all(_ratio_ok(a)):
            raise ValueError(f"'b' / 'sigma' must be a positive finite float{_RATIO_RANGE}; "
                             f"got b={b!r}, sigma={sigma!r}.")
        self.b = _freeze(b_arr)
        self.sigma = _freeze(s_arr)
        self.d = d
        self._cache = {}
        if d is not None:
            self._setup(d)

    def __repr__(self):
        kern = self.density.name
        return f"BoxDiscrepancy(b={self.b!r}, kernel={kern!r}, sigma={self.sigma!r}, d={self.d!r})"

    # ------------------------------------------------------------------ set-up
    def _resolve_d(self, d):
        if d is not None:
            d = check_dimension(d)
        if self.d is None:
            if d is None:
                raise ValueError("'d' must be given: this BoxDiscrepancy has scalar 'b' and 'sigma' "
                                 "and no 'd'.")
            return d
        if d is not None and d != self.d:
            raise ValueError(f"'d' must equal the discrepancy's dimension {self.d}; got {d}.")
        return self.d

    def box_and_sigma(self, d=None):
        """Return ``(b, sigma)`` as float64 arrays of shape ``(d,)``.

        Parameters
        ----------
        d : int, default=None
            Needed when ``self.d`` is None; must equal ``self.d`` otherwise.
        """
        p = self._setup(self._resolve_d(d))
        return p["b"].copy(), p["sigma"].copy()

    def _setup(self, d):
        p = self._cache.get(d)
        if p is not None:
            return p
        b = np.ascontiguousarray(np.broadcast_to(np.asarray(self.b, dtype=np.float64), (d,)))
        sigma = np.ascontiguousarray(np.broadcast_to(np.asarray(self.sigma, dtype=np.float64), (d,)))
        with np.errstate(over="ignore", under="ignore"):
            a = b / sigma
        if not np.all(_ratio_ok(a)):
            j = int(np.flatnonzero(~_ratio_ok(a))[0])
            raise ValueError(f"'b' / 'sigma' must be a positive finite float{_RATIO_RANGE}; "
                             f"got {b[j]!r} / {sigma[j]!r} in coordinate {j}.")
        # normalised constant factors pi C_j / b_j = pi C_1(a_j) / a_j (in (0, 1])
        c_hat = math.pi * np.asarray(self.density.C(a), dtype=np.float64) / a
        with np.errstate(over="ignore", under="ignore"):
            scale = float(np.prod(b / math.pi))
        p = {
            "b": b,
            "sigma": sigma,
            "a": a,
            "scale": scale,
            "const_hat": float(np.prod(c_hat)),
        }
        self._cache[d] = p
        return p

    def _prepare(self, W):
        W = as_points(W, "W", d=self.d)
        p = self._setup(W.shape[1])
        with np.errstate(over="ignore"):
            bw = W * p["b"]
            sw = W * p["sigma"]
        if not (np.all(np.isfinite(bw)) and np.all(np.isfinite(sw))):
            raise ValueError("'W' is too large for 'b' and 'sigma': b_j * W[l, j] or "
                             "sigma_j * W[l, j] overflows.")
        return W, p, bw, sw

    def _weights(self, weights, s):
        if weights is None:
            return np.full(s, 1.0 / s)
        # D^2 is quadratic in the weights (|H| <= 1 normalised): bounded sums keep it finite
        return as_weights(weights, s, "weights", max_sum=_MAX_WEIGHT_SUM)

    def _linear_hat(self, sw, p, derivative):
        """Normalised g factors ``pi g_j(w) / b_j`` (and their W-derivatives)."""
        a = p["a"]
        if derivative:
            g, dg = self.density.g_and_derivative(sw, a)
            g = np.asarray(g, dtype=np.float64) * (math.pi / a)
            dg = np.asarray(dg, dtype=np.float64) * (math.pi * p["sigma"] / a)
            return g, dg
        return np.asarray(self.density.g(sw, a), dtype=np.float64) * (math.pi / a), None

    @staticmethod
    def _scale(p, normalize):
        if normalize:
            return 1.0
        scale = p["scale"]
        if not _TINY <= scale < math.inf:
            raise ValueError(f"D^2 carries the factor prod(b / pi) = {scale!r}, which under- or "
                             f"overflows float64 for this box in d={p['b'].size}; call with "
                             f"normalize=True (values divided by that factor).")
        return scale

    # ------------------------------------------------------------------ public API
    def __call__(self, W, weights=None, *, normalize=False):
        r"""Squared box discrepancy :math:`D^2` of the points `W`.

        Parameters
        ----------
        W : array_like of shape (s, d)
            Frequencies (finite).
        weights : array_like of shape (s,), default=None
            Nonnegative quadrature weights :math:`\xi`; None means :math:`1/s` each.
        normalize : bool, default=False
            Return :math:`\pi^d / \prod_j b_j \cdot D^2` (the mean squared integration error
            over the box, Theorem 12) instead of :math:`D^2`.  Use it in high
            dimension, where :math:`\prod_j b_j / \pi` under- or overflows float64.

        Returns
        -------
        float
        """
        W, p, bw, sw = self._prepare(W)
        xi = self._weights(weights, W.shape[0])
        S, Co = np.sin(bw), np.cos(bw)
        r = _kernels.pair_values(W, p["b"], S, Co, xi)
        g_hat, _ = self._linear_hat(sw, p, derivative=False)
        v_hat = np.prod(g_hat, axis=1)
        value = np.sum(xi * r) - 2.0 * np.sum(xi * v_hat) + p["const_hat"]
        value = float(self._scale(p, normalize) * value)
        _check_finite_result(value)
        return value

    def value_and_grad(self, W, weights=None, *, normalize=False):
        r"""The value :math:`D^2` and its gradient (Proposition 16 of Avron et al.).

        Parameters
        ----------
        W : array_like of shape (s, d)
        weights : array_like of shape (s,), default=None
        normalize : bool, default=False
            Value and gradients of :math:`\pi^d / \prod_j b_j \cdot D^2` instead (see :meth:`__call__`).

        Returns
        -------
        D2 : float
        grad_W : ndarray of shape (s, d)
            :math:`\partial D^2 / \partial W`.
        grad_weights : ndarray of shape (s,)
            :math:`\partial D^2 / \partial \xi`; returned only when `weights` is given.

        Notes
        -----
        .. math::

           \frac{\partial D^2}{\partial w_{lj}} &= 2 \xi_l \sum_{m \ne l} \xi_m
           \frac{\partial\, \mathrm{sinc}_b(w_l, w_m)}{\partial w_{lj}}
           - 2 \xi_l\, g_j'(w_{lj}) \prod_{q \ne j} g_q(w_{lq}), \\
           \frac{\partial D^2}{\partial \xi_l} &= 2 \sum_m \xi_m\, \mathrm{sinc}_b(w_l, w_m)
           - 2 \prod_j g_j(w_{lj}).

        Products over :math:`q \ne j` use prefix and suffix products (no division).
        """
        W, p, bw, sw = self._prepare(W)
        xi = self._weights(weights, W.shape[0])
        _check_gradient_scale(p)
        S, Co = np.sin(bw), np.cos(bw)
        r, grad = _kernels.pair_value_grad(W, p["b"], S, Co, xi)
        g_hat, dg_hat = self._linear_hat(sw, p, derivative=True)
        v_hat = np.prod(g_hat, axis=1)
        grad -= (2.0 * xi)[:, None] * dg_hat * _products_but_one(g_hat)
        value = np.sum(xi * r) - 2.0 * np.sum(xi * v_hat) + p["const_hat"]
        scale = self._scale(p, normalize)
        grad *= scale
        D2 = float(scale * value)
        _check_finite_result(D2, grad)
        if weights is None:
            return D2, grad
        grad_w = scale * (2.0 * r - 2.0 * v_hat)
        _check_finite_result(grad_w)
        return D2, grad, grad_w

    def pair_matrix(self, W, *, normalize=False):
        r"""The matrix :math:`H_{lm} = \mathrm{sinc}_b(w_l, w_m)`, PSD, of the weighted QP (equation 17).

        Parameters
        ----------
        W : array_like of shape (s, d)
        normalize : bool, default=False
            Return :math:`\pi^d / \prod_j b_j \cdot H` (:math:`H_{ll} = 1`), better scaled for a solver.

        Returns
        -------
        ndarray of shape (s, s)
            :math:`D^2(W, \xi) = c - 2 v^T \xi + \xi^T H \xi` with :math:`c` = ``constant()``, :math:`v` = ``linear_term(W)``
            (all three with the same `normalize`).
        """
        W, p, bw, _ = self._prepare(W)
        H = _kernels.pair_matrix(W, p["b"], np.sin(bw), np.cos(bw))
        H *= self._scale(p, normalize)
        return H

    def linear_term(self, W, *, normalize=False):
        r"""The vector :math:`v_l = \prod_j g_j(w_{lj})`, the linear term of the weighted QP.

        Parameters
        ----------
        W : array_like of shape (s, d)
            Frequencies (finite).
        normalize : bool, default=False
            Return :math:`\pi^d / \prod_j b_j \cdot v` (as in :meth:`pair_matrix`).

        Returns
        -------
        ndarray of shape (s,)
        """
        W, p, _, sw = self._prepare(W)
        g_hat, _ = self._linear_hat(sw, p, derivative=False)
        return self._scale(p, normalize) * np.prod(g_hat, axis=1)

    def constant(self, d=None, *, normalize=False):
        r"""The product :math:`\prod_j C_j`, the constant term of :math:`D^2`.

        Parameters
        ----------
        d : int, default=None
            As in :meth:`box_and_sigma`.
        normalize : bool, default=False
            Return :math:`\pi^d / \prod_j b_j \cdot \prod_j C_j` (in :math:`(0, 1]`).

        Returns
        -------
        float
        """
        p = self._setup(self._resolve_d(d))
        return self._scale(p, normalize) * p["const_hat"]

    def expected_mc(self, s, *, d=None, normalize=False):
        r"""The expectation :math:`E[D^2]` for :math:`s` i.i.d. points from the density, uniform weights.

        Parameters
        ----------
        s : int
            Number of points, :math:`s \ge 1`.
        d : int, default=None
            As in :meth:`box_and_sigma`.
        normalize : bool, default=False
            Return the normalised expectation (:math:`\pi^d / \prod_j b_j` times it).

        Returns
        -------
        float
            :math:`(\pi^{-d} \prod_j b_j - \prod_j C_j) / s` (Corollaries 14-15 of Avron
            et al.; with ``normalize=True``, :math:`(1 - \prod_j \pi C_j / b_j) / s`).
        """
        s = check_int(s, "s", minimum=1)
        p = self._setup(self._resolve_d(d))
        return self._scale(p, normalize) * (1.0 - p["const_hat"]) / s

    def normalized(self, value, *, d=None):
        r"""The value times :math:`\pi^d / \prod_j b_j`: the mean squared integration error over the box (Theorem 12).

        Parameters
        ----------
        value : float or array_like
            Raw :math:`D^2` value(s), e.g. from ``disc(W)``.
        d : int, default=None
            As in :meth:`box_and_sigma`.

        Returns
        -------
        float or ndarray
            Of the shape of ``value``.

        Raises
        ------
        ValueError
            Where :math:`\prod_j b_j / \pi` under- or overflows float64 (compute with
            ``normalize=True`` instead).
        """
        p = self._setup(self._resolve_d(d))
        scale = self._scale(p, False)
        value = np.asarray(value, dtype=np.float64)
        out = value / scale
        return float(out) if out.ndim == 0 else out

    # ------------------------------------------------------------------ the design protocol
    def normalizer(self, d=None):
        r"""The factor :math:`\prod_j b_j / \pi`: raw :math:`D^2` = normalised :math:`D^2` times this (Theorem 12).

        Parameters
        ----------
        d : int, default=None
            As in :meth:`box_and_sigma`.

        Returns
        -------
        float

        Raises
        ------
        ValueError
            Where the product under- or overflows float64.
        """
        return self._scale(self._setup(self._resolve_d(d)), False)

    def unit_bandwidth(self, d):
        r"""The design problem at unit bandwidth (a ``UnitBandwidth``, used by the designs).

        Parameters
        ----------
        d : int
            Dimension.

        Notes
        -----
        With :math:`u = \sigma w` and :math:`a = b / \sigma` the normalised discrepancy is
        invariant under the change of bandwidth:
        :math:`\bar D^2_{b, \sigma}(W) = \bar D^2_{a, 1}(U)` (:math:`\bar D^2` the normalised
        value; every factor
        of the pair, linear and constant terms depends on :math:`b_j w_j` and :math:`a_j`
        only).
        """
        b, sigma = self.box_and_sigma(d)
        a = b / sigma
        return UnitBandwidth(
            objective=BoxDiscrepancy(a, kernel=self.density, sigma=np.ones(d), d=d),
            sigma=sigma,
            log_normalizer=float(np.sum(np.log(b / math.pi))),
            meta={"density": self.density.name, "box_over_sigma": [float(x) for x in a]},
            density=self.density,
            box_over_sigma=a,
        )

    def greedy_state(self, s, d):
        """Running sums for the greedy design (used by :func:`qmc_orff.greedy_sequence`).

        Parameters
        ----------
        s : int
            Number of points the design will choose.
        d : int
            Dimension.
        """
        from ._box_greedy import BoxGreedyState

        return BoxGreedyState(self, s, d)


def _products_but_one(F):
    """``out[l, j] = prod_{q != j} F[l, q]`` by exclusive prefix and suffix products."""
    s, d = F.shape
    pre = np.ones((s, d))
    suf = np.ones((s, d))
    if d > 1:
        np.cumprod(F[:, :-1], axis=1, out=pre[:, 1:])
        np.cumprod(F[:, :0:-1], axis=1, out=suf[:, -2::-1])
    return pre * suf


def _freeze(arr):
    if arr.ndim == 0:
        return float(arr)
    arr = np.array(arr, dtype=np.float64)
    arr.setflags(write=False)
    return arr
