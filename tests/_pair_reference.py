"""The former pair-by-pair kernel of the box discrepancy's pair term (tests only).

Until issue 14 the library ran, for ``d >= 32``, these loops over the coordinates ``j`` of
one pair at a time (and, for ``d < 32``, a first version of the loops over the rows ``m`` of
a tile).  :mod:`qmc_orff.objectives._box_kernels` now runs the loops over ``m`` for every ``d``,
with the same operations per pair and the same order per accumulator; the tests check it
bitwise against this kernel, and both against the numpy reference.  The code is the former
library code (the driver serial only), without numba's ``inline="always"`` (the same
bits; numba 0.58 took about 40 s to compile the inlined kernels).
"""
import numpy as np
from numba import njit

from qmc_orff.objectives._box_kernels import TAU, _dsinc_poly, _sinc_poly

TILE = 32


@njit(cache=True, error_model="numpy")
def _factors(W, b, S, Co, l, m, fbuf, dbuf, zbuf):
    """``fbuf[j] = sinc(z_j)``, ``dbuf[j] = b_j sinc'(z_j)``, ``z_j = b_j (W[l, j] - W[m, j])``.

    Two passes: the angle-addition form for every ``j`` (a branch-free loop the
    compiler vectorises; ``1 / z`` is inf at ``z = 0``), then the Taylor
    polynomials only where ``|z_j| < TAU``.  Each factor is the same expression of
    the same operands as in the former branch-free select, so the values agree bitwise.
    """
    d = W.shape[1]
    for j in range(d):
        bj = b[j]
        z = bj * (W[l, j] - W[m, j])
        sz = S[l, j] * Co[m, j] - Co[l, j] * S[m, j]
        cz = Co[l, j] * Co[m, j] + S[l, j] * S[m, j]
        inv = 1.0 / z
        f_far = sz * inv
        fbuf[j] = f_far
        dbuf[j] = bj * ((cz - f_far) * inv)
        zbuf[j] = z
    for j in range(d):
        z = zbuf[j]
        if abs(z) < TAU:
            z2 = z * z
            fbuf[j] = _sinc_poly(z2)
            dbuf[j] = b[j] * (z * _dsinc_poly(z2))


@njit(cache=True)
def _prod2(fbuf, d):
    """Product of fbuf[:d] as two interleaved chains (first half, second half)."""
    h = d >> 1
    pa = 1.0
    pb = 1.0
    for k in range(h):
        pa *= fbuf[k]
        pb *= fbuf[h + k]
    if d & 1:
        pb *= fbuf[d - 1]
    return pa, pb


@njit(cache=True)
def _prefix_suffix(fbuf, pre, suf, d):
    """Exclusive prefix / suffix products within each half of fbuf[:d].

    On return ``pre[j] = prod_{q<j} f_q`` and ``suf[j] = prod_{q>j} f_q`` where
    both products run over the half that holds ``j`` (``[0, h)`` or ``[h, d)``,
    ``h = d // 2``); four independent multiplication chains run side by side.
    Returns the two half products of :func:`_prod2` (the same multiplications in
    the same order), so that the value-and-gradient path needs one pass only.
    """
    h = d >> 1
    pa = 1.0
    pb = 1.0
    sa = 1.0
    sb = 1.0
    odd = d & 1
    if odd:
        suf[d - 1] = 1.0
        sb = fbuf[d - 1]
    for k in range(h):
        pre[k] = pa
        pa *= fbuf[k]
        pre[h + k] = pb
        pb *= fbuf[h + k]
        ka = h - 1 - k
        suf[ka] = sa
        sa *= fbuf[ka]
        kb = h + ka
        suf[kb] = sb
        sb *= fbuf[kb]
    if odd:
        pre[d - 1] = pb
        pb *= fbuf[d - 1]
    return pa, pb


@njit(cache=True, error_model="numpy")
def _product(W, b, S, Co, l, m, fbuf, zbuf):
    """``prod_j sinc(b_j (W[l, j] - W[m, j]))``.

    The factors are computed by the same operations as in :func:`_factors`, so
    the value-only and value-and-gradient paths agree bitwise.
    """
    d = W.shape[1]
    for j in range(d):
        z = b[j] * (W[l, j] - W[m, j])
        sz = S[l, j] * Co[m, j] - Co[l, j] * S[m, j]
        inv = 1.0 / z
        fbuf[j] = sz * inv
        zbuf[j] = z
    for j in range(d):
        z = zbuf[j]
        if abs(z) < TAU:
            fbuf[j] = _sinc_poly(z * z)
    pa, pb = _prod2(fbuf, d)
    return pa * pb


@njit(cache=True)
def _pair_grad(W, b, S, Co, xi, grad, r, l, m, fbuf, dbuf, pre, suf, zbuf):
    """Add the contribution of the unordered pair (l, m), l != m, to r and grad."""
    d = W.shape[1]
    h = d >> 1
    xl = xi[l]
    xm = xi[m]
    _factors(W, b, S, Co, l, m, fbuf, dbuf, zbuf)
    pa, pb = _prefix_suffix(fbuf, pre, suf, d)
    p = pa * pb
    r[l] += xm * p
    r[m] += xl * p
    c = 2.0 * xl * xm
    if c == 0.0:
        return
    cb = c * pb  # first half: the suffix also spans the whole second half
    for j in range(h):
        t = (cb * suf[j]) * (dbuf[j] * pre[j])
        grad[l, j] += t
        grad[m, j] -= t
    ca = c * pa  # second half: the prefix also spans the whole first half
    for j in range(h, d):
        t = (ca * pre[j]) * (dbuf[j] * suf[j])
        grad[l, j] += t
        grad[m, j] -= t


@njit(cache=True, error_model="numpy")
def _task(W, b, S, Co, xi, grad, r, I, J, block, with_grad):
    """All unordered pairs (l in block I, m in block J), l < m when I == J.

    The loops run over tiles of TILE rows so that the rows of block J in use
    stay in cache; the order of the pairs is fixed by (I, J, block) alone.
    """
    s, d = W.shape
    buf = np.empty((5, d))
    fbuf = buf[0]
    dbuf = buf[1]
    pre = buf[2]
    suf = buf[3]
    zbuf = buf[4]
    l0 = I * block
    l1 = min(l0 + block, s)
    m0 = J * block
    m1 = min(m0 + block, s)
    for lt in range(l0, l1, TILE):
        for mt in range(m0, m1, TILE):
            if I == J and mt + TILE <= lt:
                continue
            for l in range(lt, min(lt + TILE, l1)):
                for m in range(max(mt, l + 1) if I == J else mt, min(mt + TILE, m1)):
                    if with_grad:
                        _pair_grad(W, b, S, Co, xi, grad, r, l, m, fbuf, dbuf, pre, suf, zbuf)
                    else:
                        p = _product(W, b, S, Co, l, m, fbuf, zbuf)
                        r[l] += xi[m] * p
                        r[m] += xi[l] * p


@njit(cache=True, error_model="numpy")
def run_pairwise(W, b, S, Co, xi, block, pairs, offsets, with_grad):
    s, d = W.shape
    r = xi.copy()
    grad = np.zeros((s, d)) if with_grad else np.zeros((0, d))
    for rnd in range(offsets.shape[0] - 1):
        lo = offsets[rnd]
        for t in range(offsets[rnd + 1] - lo):
            _task(W, b, S, Co, xi, grad, r, pairs[lo + t, 0], pairs[lo + t, 1], block, with_grad)
    return r, grad


@njit(cache=True, error_model="numpy")
def pair_matrix(W, b, S, Co):
    """``H[l, m] = prod_j sinc(b_j (W[l, j] - W[m, j]))`` pair by pair (``H[l, l] = 1``)."""
    s, d = W.shape
    H = np.empty((s, s))
    fbuf = np.empty(d)
    zbuf = np.empty(d)
    for l in range(s):
        H[l, l] = 1.0
        for m in range(l + 1, s):
            p = _product(W, b, S, Co, l, m, fbuf, zbuf)
            H[l, m] = p
            H[m, l] = p
    return H
