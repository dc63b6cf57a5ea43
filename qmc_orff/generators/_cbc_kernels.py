"""Numba kernels of the fast CBC construction (private; no input checks).

They replace numpy steps of :func:`qmc_orff.generators.cbc.cbc_lattice` whose
cost grew faster than ``n`` above ``n = 2^18``: random gathers from the
``n``-long products ``p`` and the table ``omega(k / n)`` (8 MiB each at
``n = 2^20``, beyond the 2 MiB L2 cache), an ``int64`` modulo per element, and
one pass over the ``n/4``-long sum per level.

The products ``p`` are kept in *generator order* (see `update_pow2` and
`update_prime`), so the vectors that enter the FFTs are contiguous sums or
slices, and the update walks the index ``k z mod n`` along the same order by a
multiplication with the generator (``n = 2^m``) or a cyclic shift of the
table of powers (prime ``n``).  Every kernel performs the same floating-point
operations per element as the numpy code it replaces (``omega`` from the same
integer ``k z mod n``, the level sums in level order), so the products ``p``,
and hence the returned error, are bit-identical.  (The correlations themselves
now use real FFTs and round differently: see ``cbc._Correlation``.)  Compiled lazily.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import _jit  # noqa: F401  (numba's cache location, before the CBC kernels)

_TWO_PI2 = 2.0 * math.pi ** 2
_SIXTH = 1.0 / 6.0
#: Block of the level sum (float64 entries): 16 KiB, stays in the L1 cache.
_BLOCK = 2048


@njit(cache=True)
def _omega_x(x, coef, factor, alpha2):
    """``omega(x)`` exactly as ``cbc._omega`` (Horner from ``y = 0`` as ``np.polyval``)."""
    if alpha2:
        return _TWO_PI2 * (x * x - x + _SIXTH)
    y = 0.0
    for c in coef:
        y = y * x + c
    return factor * y


@njit(cache=True)
def _omega_at(idx, nf, coef, factor, alpha2):
    """``omega(idx / n)`` exactly as ``cbc._omega``."""
    return _omega_x(idx / nf, coef, factor, alpha2)


@njit(cache=True)
def update_p(p, z, n, gamma_s, coef, factor, alpha2):
    """``p[k] *= 1 + gamma_s omega(((k z) mod n) / n)``, ``k = 0 .. n-1`` (natural order).

    ``omega`` is evaluated in place of a table look-up, as ``_omega`` does:
    ``2 pi^2 (x^2 - x + 1/6)`` for alpha = 2 (``alpha2``), else ``factor * polyval(coef, x)``
    (Horner from ``y = 0``, as :func:`numpy.polyval`).  The index ``k z mod n`` is
    advanced by one addition per ``k`` (``0 <= z < n``).
    """
    idx = 0
    nf = float(n)
    for k in range(n):
        p[k] *= 1.0 + gamma_s * _omega_at(idx, nf, coef, factor, alpha2)
        idx += z
        if idx >= n:
            idx -= n


@njit(cache=True)
def _omega_pow2(idx, inv_n, coef, factor, alpha2):
    """`_omega_at` for ``n = 2^m``: ``idx * (1/n)`` equals ``idx / n`` exactly (no division)."""
    return _omega_x(idx * inv_n, coef, factor, alpha2)


@njit(cache=True)
def update_pow2(pp, x, sizes, z, n, gamma_s, coef, factor, alpha2):
    """Update the products in the ``n = 2^m`` layout and form the next FFT inputs.

    Level ``lev`` (``L = sizes[lev] = n / 2^(lev + 2)``) holds ``p[k1_b]`` at
    ``pp[2 o + b]`` and ``p[n - k1_b]`` at ``pp[2 o + L + b]``, ``k1_b = 2^lev (5^b mod
    2^(m - lev))``, ``b < L``, ``o`` the sum of the earlier sizes; the last four
    entries are ``p[0], p[n/4], p[n/2], p[3n/4]``.  With ``idx = k1_b z mod n``
    (advanced by ``idx <- 5 idx mod n``) the update is
    ``pp[2 o + b] *= 1 + gamma_s omega(idx / n)``,
    ``pp[2 o + L + b] *= 1 + gamma_s omega((n - idx) / n)``, and
    ``x[o + b] = pp[2 o + b] + pp[2 o + L + b]`` (the vector correlated at that level).
    ``z = 0`` skips the update (forms ``x`` only).
    """
    inv_n = 1.0 / n
    mask = n - 1
    o = 0
    for lev in range(sizes.shape[0]):
        L = sizes[lev]
        a = 2 * o
        if z != 0:
            idx = (z << lev) & mask
            for b in range(L):
                pp[a + b] *= 1.0 + gamma_s * _omega_pow2(idx, inv_n, coef, factor, alpha2)
                pp[a + L + b] *= 1.0 + gamma_s * _omega_pow2(n - idx, inv_n, coef, factor, alpha2)
                x[o + b] = pp[a + b] + pp[a + L + b]
                idx = (5 * idx) & mask
        else:
            ua, ub, uo = np.uint64(a), np.uint64(a + L), np.uint64(o)
            for b in range(L):
                x[uo + np.uint64(b)] = pp[ua + np.uint64(b)] + pp[ub + np.uint64(b)]
        o += L
    if z != 0:
        t = pp.shape[0] - 4
        for j in range(4):          # k = j n / 4
            idx = (j * (n >> 2) * z) & mask
            pp[t + j] *= 1.0 + gamma_s * _omega_pow2(idx, inv_n, coef, factor, alpha2)


@njit(cache=True)
def powers(g, count, modulus):
    """``g^c mod modulus``, ``c = 0 .. count-1`` (``modulus <= 2^31``: products fit int64)."""
    out = np.empty(count, dtype=np.int64)
    v = 1
    for i in range(count):
        out[i] = v
        v = v * g % modulus
    return out


@njit(cache=True)
def update_prime(pp, gp, cz, n, gamma_s, coef, factor, alpha2):
    """Update the products in the prime-``n`` layout.

    ``pp[c] = p[g^c mod n]`` (``c < n - 1``, ``gp[c] = g^c mod n``) and ``pp[n - 1] = p[0]``;
    for ``z = g^cz mod n`` the index ``g^c z mod n = gp[(c + cz) mod (n - 1)]``, so
    ``pp[c] *= 1 + gamma_s omega(gp[(c + cz) mod (n - 1)] / n)``; ``p[0]`` gets ``omega(0)``.
    """
    nf = float(n)
    q = n - 1
    for c in range(q - cz):
        pp[c] *= 1.0 + gamma_s * _omega_at(gp[c + cz], nf, coef, factor, alpha2)
    for c in range(q - cz, q):
        pp[c] *= 1.0 + gamma_s * _omega_at(gp[c + cz - q], nf, coef, factor, alpha2)
    pp[q] *= 1.0 + gamma_s * _omega_at(0, nf, coef, factor, alpha2)


@njit(cache=True)
def abs_into(x, out):
    """``out[:] = |x|`` (then ``out.sum()`` equals ``np.abs(x).sum()`` bit for bit)."""
    for i in range(x.shape[0]):
        out[i] = abs(x[i])


@njit(cache=True)
def sum_levels(c, sizes, y):
    """``y = 0 + c_0 + tile(c_1) + tile(c_2) + ...`` (added in that order), return ``y.min()``.

    ``c`` holds the levels one after another, ``c_lev`` of length ``sizes[lev] =
    y.size / 2^lev`` (powers of 2, largest first), each repeated to the length of
    ``y``.  One pass over ``y`` in blocks that stay in the L1 cache; levels shorter
    than a block are tiled to a block once.
    """
    n_y = y.shape[0]
    n_lev = sizes.shape[0]
    blk = min(n_y, _BLOCK)
    starts = np.zeros(n_lev, dtype=np.int64)
    for lev in range(1, n_lev):
        starts[lev] = starts[lev - 1] + sizes[lev - 1]
    tiled = np.empty((n_lev, blk))
    for lev in range(n_lev):
        L = sizes[lev]
        if L < blk:
            for j in range(blk):
                tiled[lev, j] = c[starts[lev] + (j & (L - 1))]
    acc = np.empty(blk)
    ymin = np.inf
    for i0 in range(0, n_y, blk):
        u0 = np.uint64(i0)  # unsigned offsets: numba wraps signed ones, and the loads gather
        for j in range(blk):
            acc[j] = 0.0 + c[u0 + np.uint64(j)]
        for lev in range(1, n_lev):
            L = sizes[lev]
            if L >= blk:
                base = np.uint64(starts[lev] + (i0 & (L - 1)))
                for j in range(blk):
                    acc[j] += c[base + np.uint64(j)]
            else:
                for j in range(blk):
                    acc[j] += tiled[lev, j]
        for j in range(blk):
            y[u0 + np.uint64(j)] = acc[j]
        for j in range(blk):
            ymin = min(ymin, acc[j])
    return ymin


@njit(cache=True)
def select(values, candidates, threshold):
    """Index of the smallest ``candidates[i]`` with ``values[i] <= threshold`` (first such i)."""
    best = -1
    for i in range(values.shape[0]):
        if values[i] <= threshold and (best < 0 or candidates[i] < candidates[best]):
            best = i
    return best

