"""Numba kernels for the Halton sequence (no input checks: see ``halton.py``).

Each point is computed exactly as SciPy's ``_cy_van_der_corput`` computes it
(the digits of the index, least significant first, accumulated as
``v += digit * w_k`` with ``w_0 = 1 / b`` and ``w_k = w_{k-1} / b``), so the
results are bit-for-bit those of `scipy.stats.qmc.Halton`.  Speed comes from
two things that do not change the arithmetic: the digits of consecutive
indices are updated like an odometer instead of recomputed with integer
divisions, and the weights ``w_k`` are tabulated once (by the same recurrence).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .._jit import renamed

# Width of the digit table: enough for any int64 index in base 2.
MAX_DIGITS = 64


@njit(cache=True)
def _first_digits(q, bases, ndig):
    """The digits of the index ``q`` in every base, least significant first: a
    ``(d, MAX_DIGITS)`` table; ``ndig[j]`` gets the count in base ``bases[j]``."""
    digits = np.zeros((bases.shape[0], MAX_DIGITS), dtype=np.int64)
    for j in range(bases.shape[0]):
        b = bases[j]
        r = q
        k = 0
        while r > 0:
            digits[j, k] = r % b
            r //= b
            k += 1
        ndig[j] = k
    return digits


@njit(cache=True)
def _chunk_bounds(c, chunk, n):
    """Rows ``lo .. hi - 1`` of chunk ``c`` of ``n`` rows in chunks of ``chunk``."""
    lo = c * chunk
    return lo, min(lo + chunk, n)


@njit(cache=True, parallel=True)
def halton_plain(start, n, bases, weights, chunk, out):
    """Unscrambled Halton points ``start .. start + n - 1`` into ``out`` (n, d).

    ``weights[j, k] = b_j^-(k+1)`` computed by repeated division (float64),
    shape (d, MAX_DIGITS).  Parallel over chunks of ``chunk`` points; each chunk
    starts from the directly computed digits of its first index.
    """
    d = bases.shape[0]
    n_chunks = (n + chunk - 1) // chunk
    for c in prange(n_chunks):
        lo, hi = _chunk_bounds(c, chunk, n)
        ndig = np.zeros(d, dtype=np.int64)
        digits = _first_digits(start + lo, bases, ndig)
        for i in range(lo, hi):
            for j in range(d):
                v = 0.0
                for k in range(ndig[j]):
                    v += digits[j, k] * weights[j, k]
                out[i, j] = v
                # odometer increment of the base-b digits
                b = bases[j]
                k = 0
                while True:
                    t = digits[j, k] + 1
                    if t < b:
                        digits[j, k] = t
                        if k >= ndig[j]:
                            ndig[j] = k + 1
                        break
                    digits[j, k] = 0
                    k += 1


#: :func:`halton_plain` on the calling thread (the same points; compiles faster).
halton_plain_serial = njit(cache=True)(renamed(halton_plain.py_func, "halton_plain_serial"))


@njit(cache=True, parallel=True)
def halton_permuted(start, n, bases, weights, counts, offsets, strides, perms, chunk, out):
    """Digit-permuted Halton points ``start .. start + n - 1`` into ``out``.

    Dimension ``j`` uses ``counts[j]`` digit positions; position ``k`` maps a
    digit ``r`` to ``perms[offsets[j] + k * strides[j] + r]`` (``strides[j]``
    is ``b_j`` for one permutation per position, 0 for one per dimension).  All ``counts[j]``
    positions are summed (leading zero digits included, as they are permuted),
    in SciPy's order: ``v += perm_k(digit_k) * w_k`` for k = 0, 1, ...
    """
    d = bases.shape[0]
    n_chunks = (n + chunk - 1) // chunk
    for c in prange(n_chunks):
        lo, hi = _chunk_bounds(c, chunk, n)
        digits = _first_digits(start + lo, bases, np.empty(d, dtype=np.int64))
        for i in range(lo, hi):
            for j in range(d):
                b = bases[j]
                off = offsets[j]
                st = strides[j]
                v = 0.0
                for k in range(counts[j]):
                    v += perms[off + k * st + digits[j, k]] * weights[j, k]
                out[i, j] = v
                k = 0
                while True:
                    t = digits[j, k] + 1
                    if t < b:
                        digits[j, k] = t
                        break
                    digits[j, k] = 0
                    k += 1


#: :func:`halton_permuted` on the calling thread (the same points; compiles faster).
halton_permuted_serial = njit(cache=True)(
    renamed(halton_permuted.py_func, "halton_permuted_serial"))
