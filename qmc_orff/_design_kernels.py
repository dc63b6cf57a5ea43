"""Numba kernels for the greedy design (no input checks: callers validate).

The greedy step (Avron et al. 2016, eq. 15) needs, for a candidate frequency
``w`` and the ``t`` points already chosen, the row sum of the *normalised* pair
term

    S(w) = sum_l prod_j sinc(b_j (w_j - W_lj)),    sinc(y) = sin(y) / y   (= 1 at 0)

and its gradient in ``w``: the pair term of ``D^2`` divided by ``prod_j b_j / pi``
(the units of Theorem 12).  Every factor lies in ``[-1, 1]``, so nothing
underflows in high dimension the way ``prod_j b_j / pi`` does.  That is O(t d)
per evaluation; the running pair and linear sums of the points already chosen
are kept by the caller.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._discrepancy_kernels import _dsinc_poly, _sinc_poly

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
        prefix[0] = 1.0
        for j in range(d):
            prefix[j + 1] = prefix[j] * f[j]
        total += prefix[d]
        # gradient: df_j * prod_{q != j} f_q, with suffix products (no division by f_j,
        # which can be zero)
        suffix = 1.0
        for j in range(d - 1, -1, -1):
            grad[j] += df[j] * prefix[j] * suffix
            suffix *= f[j]
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


# ---------------------------------------------------------------- tabulated (angle-addition) form
# sinc(y) and sinc'(y) = (y cos y - sin y) / y^2 from the tabulated sin/cos of b_j w_j and
# b_j W_lj (sin(u - v) = sin u cos v - cos u sin v): no transcendental call in the O(t d) loop.
# Below |y| < _TAB_TAYLOR the Taylor polynomials of the pair kernel are used instead (the
# angle-addition form loses relative accuracy to cancellation there); above it the relative
# error is at most about eps (1 + |b_j w_j| + |b_j W_lj|) / _TAB_TAYLOR.
_TAB_TAYLOR = 0.5


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
        prefix[0] = 1.0
        for j in range(d):
            prefix[j + 1] = prefix[j] * f[j]
        total += prefix[d]
        suffix = 1.0
        for j in range(d - 1, -1, -1):
            grad[j] += df[j] * prefix[j] * suffix
            suffix *= f[j]
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


@njit(cache=True, fastmath=False)
def product_and_grad(g, dg, grad):
    """Return ``prod_j g_j``; ``grad[j] = dg_j prod_{q != j} g_q`` (prefix/suffix products,
    in the order of ``numpy.cumprod``: bit-identical to the former numpy code)."""
    d = g.shape[0]
    prefix = np.empty(d + 1)
    prefix[0] = 1.0
    for j in range(d):
        prefix[j + 1] = prefix[j] * g[j]
    suffix = 1.0
    for j in range(d - 1, -1, -1):
        grad[j] = dg[j] * prefix[j] * suffix
        suffix = g[j] if j == d - 1 else suffix * g[j]
    return prefix[d]


@njit(cache=True, fastmath=False)
def tabulate_row(w, b, s_row, c_row):
    """``s_row = sin(b w)``, ``c_row = cos(b w)`` (the same calls as in the kernels above)."""
    for j in range(w.shape[0]):
        s_row[j] = np.sin(b[j] * w[j])
        c_row[j] = np.cos(b[j] * w[j])
