"""Numba kernels for the Sobol' sequence (no input checks: see ``sobol.py``)."""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .._jit import renamed


@njit(cache=True)
def direction_matrix(poly, vinit, d, bits):
    """Direction numbers ``v[j, k]`` (uint64, shape (d, bits)), MSB-aligned.

    Bratley & Fox (1988), Section 2, recurrence on the primitive polynomial
    ``poly[j]`` (degree ``m = bit_length(poly[j]) - 1``) started from the
    ``m`` initial numbers ``vinit[j, :m]``; column ``k`` is then scaled by
    ``2^(bits - 1 - k)``.  Row 0 is all ones (the van der Corput sequence).
    Same algorithm and layout as SciPy's ``_initialize_v``.
    """
    v = np.zeros((d, bits), dtype=np.uint64)
    for k in range(bits):
        v[0, k] = np.uint64(1)
    for j in range(1, d):
        p = np.int64(poly[j])
        m = 0
        t = p
        while t != 0:
            t >>= 1
            m += 1
        m -= 1
        for k in range(min(m, bits)):
            v[j, k] = np.uint64(vinit[j, k])
        for k in range(m, bits):
            newv = v[j, k - m]
            pow2 = np.uint64(1)
            for q in range(m):
                pow2 = pow2 << np.uint64(1)
                if (p >> (m - 1 - q)) & 1:
                    newv = newv ^ (pow2 * v[j, k - q - 1])
            v[j, k] = newv
    for k in range(bits):
        shift = np.uint64(bits - 1 - k)
        for j in range(d):
            v[j, k] = v[j, k] << shift
    return v


@njit(cache=True, inline="always")
def _xor_gray_bits(q, svt, g):
    """``q ^= svt[b]`` for every set bit ``b`` of ``g`` (uint64)."""
    d = svt.shape[1]
    b = 0
    while g != np.uint64(0):
        if g & np.uint64(1):
            for j in range(d):
                q[j] ^= svt[b, j]
        g >>= np.uint64(1)
        b += 1


@njit(cache=True, parallel=True)
def sobol_draw(start, n, skip, step, svt, shift, scale, chunk, out):
    """Sobol' points ``start .. start + n - 1`` of the set into ``out`` (n, d).

    Point ``i`` of the set is index ``k = skip + i * step`` of the sequence
    (``start``, ``skip``, ``step`` uint64; ``step = leap + 1``).  ``svt`` is the
    (bits, d) transposed direction matrix (uint64), ``shift`` the (d,) digital
    shift (zeros when unscrambled).  Point ``k`` is ``shift XOR (XOR of svt[b]
    over the set bits b of gray(k))`` times ``scale = 2^-bits``, gray(k) = k ^
    (k >> 1): the Antonov-Saleev order that SciPy uses.  Parallel over chunks of
    ``chunk`` points; each chunk starts from its directly computed state, then
    XORs the direction numbers of the bits in which consecutive Gray codes differ
    (one bit, one XOR per coordinate, when ``step = 1``).
    """
    d = svt.shape[1]
    n_chunks = (n + chunk - 1) // chunk
    one = np.uint64(1)
    for c in prange(n_chunks):
        lo = c * chunk
        hi = min(lo + chunk, n)
        q = shift.copy()
        k = skip + (start + np.uint64(lo)) * step
        g = k ^ (k >> one)
        _xor_gray_bits(q, svt, g)
        for j in range(d):
            out[lo, j] = q[j] * scale
        for i in range(lo + 1, hi):
            k += step
            g_next = k ^ (k >> one)
            _xor_gray_bits(q, svt, g ^ g_next)
            g = g_next
            for j in range(d):
                out[i, j] = q[j] * scale


#: :func:`sobol_draw` on the calling thread (the same points; compiles faster).
sobol_draw_serial = njit(cache=True)(renamed(sobol_draw.py_func, "sobol_draw_serial"))
