"""Row-by-row greedy kernels: the references of the library's transposed ones (tests only).

``greedy_pair_sum`` (direct sinc, Taylor series below ``|b x| < _TAYLOR``) and
``greedy_pair_sum_tab`` (tabulated sin/cos, angle-addition form) were the greedy design's
kernels before :func:`qmc_orff.objectives._greedy_kernels.greedy_pair_sum_t`; the tests check the
transposed kernels bitwise against the tabulated row kernels, and those against the
direct form and finite differences.
"""
import numpy as np
from numba import njit

from qmc_orff.objectives._greedy_kernels import _TAB_TAYLOR
from qmc_orff.objectives._box_kernels import _dsinc_poly, _sinc_poly

# Below |b x| < _TAYLOR the sinc factor and its derivative use their Taylor
# series (truncation error < 3e-18 and < 3e-16 relative): the direct forms lose
# accuracy to cancellation there and divide by zero at x = 0.
_TAYLOR = 0.1


@njit(cache=True, fastmath=False)
def _sinc_and_derivative(x, b):
    """``(sin(b x) / (b x), d/dx sin(b x) / (b x))`` with the right limits at 0."""
    y = b * x
    if abs(y) < _TAYLOR:
        y2 = y * y
        f = 1.0 - y2 / 6.0 * (1.0 - y2 / 20.0 * (1.0 - y2 / 42.0 * (1.0 - y2 / 72.0)))
        # sinc'(y) = -y/3 + y^3/30 - y^5/840 + y^7/45360
        df = b * y * (-1.0 / 3.0 + y2 * (1.0 / 30.0 + y2 * (-1.0 / 840.0 + y2 / 45360.0)))
    else:
        sy = np.sin(y)
        cy = np.cos(y)
        f = sy / y
        df = b * (y * cy - sy) / (y * y)
    return f, df


@njit(cache=True, fastmath=False)
def _add_products(f, df, prefix, grad):
    """Return ``prod_j f_j``; add ``df_j prod_{q != j} f_q`` to ``grad[j]``.

    Prefix products into ``prefix`` (d + 1,), then suffix products: no division by
    ``f_j``, which can be zero.
    """
    d = f.shape[0]
    prefix[0] = 1.0
    for j in range(d):
        prefix[j + 1] = prefix[j] * f[j]
    suffix = 1.0
    for j in range(d - 1, -1, -1):
        grad[j] += df[j] * prefix[j] * suffix
        suffix *= f[j]
    return prefix[d]


@njit(cache=True, fastmath=False)
def greedy_pair_sum(w, W, t, b, grad):
    """Return ``S(w) = sum_{l<t} prod_j sinc(b_j (w_j - W_lj))``; write ``dS/dw`` into ``grad``.

    Parameters
    ----------
    w : float64 (d,)
    W : float64 (s, d), only the first ``t`` rows are used
    t : int
    b : float64 (d,)
    grad : float64 (d,), overwritten
    """
    d = w.shape[0]
    f = np.empty(d)
    df = np.empty(d)
    prefix = np.empty(d + 1)
    total = 0.0
    for j in range(d):
        grad[j] = 0.0
    for l in range(t):
        for j in range(d):
            f[j], df[j] = _sinc_and_derivative(w[j] - W[l, j], b[j])
        total += _add_products(f, df, prefix, grad)
    return total


@njit(cache=True, fastmath=False)
def greedy_pair_sum_value(w, W, t, b):
    """``S(w)`` only (used to update the running pair sum after a point is accepted)."""
    d = w.shape[0]
    total = 0.0
    for l in range(t):
        p = 1.0
        for j in range(d):
            p *= _sinc_and_derivative(w[j] - W[l, j], b[j])[0]
        total += p
    return total


@njit(cache=True, fastmath=False)
def _tab_factor(y, sy, cy):
    if abs(y) < _TAB_TAYLOR:
        y2 = y * y
        return _sinc_poly(y2), y * _dsinc_poly(y2)
    inv = 1.0 / y
    f = sy * inv
    return f, (cy - f) * inv


@njit(cache=True, fastmath=False)
def greedy_pair_sum_tab(w, W, S, Co, t, b, grad):
    """:func:`greedy_pair_sum` with ``S = sin(b W)``, ``Co = cos(b W)`` tabulated (rows < t)."""
    d = w.shape[0]
    f = np.empty(d)
    df = np.empty(d)
    sw = np.empty(d)
    cw = np.empty(d)
    prefix = np.empty(d + 1)
    for j in range(d):
        grad[j] = 0.0
        sw[j] = np.sin(b[j] * w[j])
        cw[j] = np.cos(b[j] * w[j])
    total = 0.0
    for l in range(t):
        for j in range(d):
            y = b[j] * (w[j] - W[l, j])
            sy = sw[j] * Co[l, j] - cw[j] * S[l, j]
            cy = cw[j] * Co[l, j] + sw[j] * S[l, j]
            fj, dfj = _tab_factor(y, sy, cy)
            f[j] = fj
            df[j] = b[j] * dfj
        total += _add_products(f, df, prefix, grad)
    return total


@njit(cache=True, fastmath=False)
def greedy_pair_sum_tab_value(w, W, S, Co, t, b):
    """``S(w)`` of :func:`greedy_pair_sum_tab` (the same factors and products)."""
    d = w.shape[0]
    sw = np.empty(d)
    cw = np.empty(d)
    for j in range(d):
        sw[j] = np.sin(b[j] * w[j])
        cw[j] = np.cos(b[j] * w[j])
    total = 0.0
    for l in range(t):
        p = 1.0
        for j in range(d):
            y = b[j] * (w[j] - W[l, j])
            sy = sw[j] * Co[l, j] - cw[j] * S[l, j]
            p *= _tab_factor(y, sy, 0.0)[0]
        total += p
    return total
