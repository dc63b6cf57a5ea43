"""Numba kernels of the box discrepancy's greedy running sums (no input checks: callers validate).

:class:`~qmc_orff.objectives._box_greedy.BoxGreedyState` calls them.

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

from .. import _jit  # noqa: F401  (numba's cache location, before any cache=True)
from ..densities._kernels import gauss_near_row
from ._box_kernels import _dsinc_poly, _sinc_poly

# ---------------------------------------------------------------- tabulated (angle-addition) form
# sinc(y) and sinc'(y) = (y cos y - sin y) / y^2 from the tabulated sin/cos of b_j w_j and
# b_j W_lj (sin(u - v) = sin u cos v - cos u sin v): no transcendental call in the O(t d) loop.
# Below |y| < _TAB_TAYLOR the Taylor polynomials of the pair kernel are used instead (the
# angle-addition form loses relative accuracy to cancellation there); above it the relative
# error is at most about eps (1 + |b_j w_j| + |b_j W_lj|) / _TAB_TAYLOR.
_TAB_TAYLOR = 0.5


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


# ---------------------------------------------------------------- transposed (vectorised) form
# The same factors, products and sums as the row kernels of tests/_greedy_reference.py, in
# the same order for every output, with the loops turned so that the O(t d) work runs over
# contiguous rows of transposed tables (``tab[0] = W.T``, ``tab[1] = sin(b W).T``,
# ``tab[2] = cos(b W).T``, each (d, s)): the loop over the points l is branch-free and
# vectorises (the Taylor polynomials are selected where |y| < _TAB_TAYLOR).
# ``work`` is a (2 d + 2, s) scratch array (factors, derivatives, prefix products, suffix).

@njit(cache=True, error_model="numpy")
def _tab_factors_t(w, tab, t, b, work, with_grad):
    """Factors ``work[j, l]`` and derivatives ``work[d + j, l]`` of the pairs ``(w, W_l)``.

    The angle-addition form, or the Taylor polynomials where ``|y| < _TAB_TAYLOR``,
    chosen per element by a select: both are computed, so the loop over ``l`` has no
    branch and vectorises (a branch mispredicts on about one element in seven).  The same
    operations per element as the row kernels, hence the same bits.  (Not numba-inlined:
    that made numba 0.58 compile for half a minute; LLVM inlines the call and folds a
    constant ``with_grad``.)
    """
    d = w.shape[0]
    for j in range(d):
        bj = b[j]
        wj = w[j]
        sw = np.sin(bj * wj)
        cw = np.cos(bj * wj)
        Wj = tab[0, j]
        Sj = tab[1, j]
        Cj = tab[2, j]
        Fj = work[j]
        Dj = work[d + j]
        for l in range(t):
            y = bj * (wj - Wj[l])
            sy = sw * Cj[l] - cw * Sj[l]
            inv = 1.0 / y
            f = sy * inv
            y2 = y * y
            small = abs(y) < _TAB_TAYLOR
            Fj[l] = _sinc_poly(y2) if small else f
            if with_grad:
                cy = cw * Cj[l] + sw * Sj[l]
                Dj[l] = bj * (y * _dsinc_poly(y2)) if small else bj * ((cy - f) * inv)


@njit(cache=True, error_model="numpy")
def greedy_pair_sum_t(w, tab, t, b, work, grad):
    """``S(w)`` and its gradient in ``w`` from tabulated ``sin``/``cos`` on transposed tables.

    Bit-identical to the row-by-row kernel ``greedy_pair_sum_tab`` of
    ``tests/_greedy_reference.py`` (value and ``grad``).

    ``work`` is a (3 d + 1, s) scratch array: rows ``[0, d)`` the factors ``f_j``,
    ``[d, 2d)`` their derivatives, then the contributions ``df_j prefix_j suffix_j``,
    ``[2d, 3d)`` the prefix products ``prod_{q<j} f_q``, row ``3d`` the suffix products.
    """
    d = w.shape[0]
    _tab_factors_t(w, tab, t, b, work, True)
    suf = work[3 * d]
    pre0 = work[2 * d]
    for l in range(t):
        pre0[l] = 1.0
        suf[l] = 1.0
    for j in range(1, d):
        prev = work[2 * d + j - 1]
        cur = work[2 * d + j]
        Fq = work[j - 1]
        for l in range(t):
            cur[l] = prev[l] * Fq[l]
    for j in range(d - 1, -1, -1):
        Fj = work[j]
        Dj = work[d + j]
        Pj = work[2 * d + j]
        for l in range(t):
            Dj[l] = (Dj[l] * Pj[l]) * suf[l]
            suf[l] *= Fj[l]
    total = 0.0
    last = work[3 * d - 1]
    Fl = work[d - 1]
    for l in range(t):
        total += last[l] * Fl[l]
    for j in range(d):  # each grad[j] summed over l ascending, as in the row kernels
        Dj = work[d + j]
        acc = 0.0
        for l in range(t):
            acc += Dj[l]
        grad[j] = acc
    return total


@njit(cache=True, error_model="numpy")
def greedy_pair_sum_t_value(w, tab, t, b, work):
    """``S(w)`` of :func:`greedy_pair_sum_t` (bit-identical to ``greedy_pair_sum_tab_value``
    of ``tests/_greedy_reference.py``)."""
    d = w.shape[0]
    _tab_factors_t(w, tab, t, b, work, False)
    p = work[3 * d]
    for l in range(t):
        p[l] = 1.0
    for j in range(d):
        Fj = work[j]
        for l in range(t):
            p[l] *= Fj[l]
    total = 0.0
    for l in range(t):
        total += p[l]
    return total


@njit(cache=True, error_model="numpy")
def greedy_candidate(w, tab, t, b, work, g, dg, coef, sums, n, scale, out):
    """The greedy step's scaled objective ``scale * D^2(S_t + {w})`` (normalised) and its
    gradient (into ``out``), by the operations of ``_GreedyState.candidate`` in their order.

    ``g, dg``: the density's ``g_1, g_1'`` at ``sigma w``; ``coef = [pi / a, pi sigma / a]``
    (2, d); ``sums = [pair, lin, diag, C]``; ``n = t + 1``.
    """
    d = w.shape[0]
    gp = np.empty(d)
    S = greedy_pair_sum_t(w, tab, t, b, work, gp)
    gg = np.empty(d)
    dgg = np.empty(d)
    for j in range(d):
        gg[j] = g[j] * coef[0, j]
        dgg[j] = dg[j] * coef[1, j]
    gv = np.empty(d)
    v = product_and_grad(gg, dgg, gv)
    nn = float(n * n)
    val = (sums[0] + 2.0 * S + sums[2]) / nn - 2.0 * (sums[1] + v) / n + sums[3]
    for j in range(d):
        out[j] = (2.0 * gp[j] / nn - 2.0 * gv[j] / n) * scale
    return val * scale


@njit(cache=True, error_model="numpy")
def greedy_candidate_gauss(w, sigma, a, nodes_t, nodes_wphi, tab, t, b, work, coef, sums, n,
                           scale, out):
    """:func:`greedy_candidate` for the Gaussian density, with its ``g, g'`` computed in the
    same call (quadrature branch, tables of :func:`~qmc_orff.densities._kernels.gauss_nodes`).

    Returns ``(value, True)``, bit-identical to the two-step path, or ``(nan, False)``
    when some ``sigma_j w_j`` is outside the quadrature branch or not finite: the caller
    then takes the general path.
    """
    d = w.shape[0]
    x = np.empty(d)
    for j in range(d):
        x[j] = sigma[j] * w[j]
    g = np.empty(d)
    dg = np.empty(d)
    if not gauss_near_row(x, a, nodes_t, nodes_wphi, g, dg):
        return np.nan, False
    return greedy_candidate(w, tab, t, b, work, g, dg, coef, sums, n, scale, out), True
