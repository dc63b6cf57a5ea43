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
