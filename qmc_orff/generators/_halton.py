"""Numba kernels for the Halton sequence (no input checks: see ``halton.py``).

Each point is computed exactly as SciPy's ``_cy_van_der_corput`` computes it
(the digits of the index, least significant first, accumulated as
``v += digit * w_k`` with ``w_0 = 1 / b`` and ``w_k = w_{k-1} / b``), so the
results are bit-for-bit those of `scipy.stats.qmc.Halton`.  Speed comes from
two things that do not change the arithmetic: the digits of consecutive
indices are updated by adding the digits of the step (``leap + 1``; an odometer
for consecutive indices) instead of recomputed with integer divisions, and the
weights ``w_k`` are tabulated once (by the same recurrence).
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


@njit(cache=True)
def _chunk_start(c, chunk, n, start, skip, step, bases, ndig):
    """Rows ``lo .. hi - 1`` of chunk ``c`` and the digits of the index of row ``lo``,
    ``skip + (start + lo) * step`` (``ndig`` gets their counts)."""
    lo, hi = _chunk_bounds(c, chunk, n)
    return lo, hi, _first_digits(skip + (start + lo) * step, bases, ndig)


@njit(cache=True, inline="always")
def _add_digits(digits, j, step, step_digits, n_step, b):
    """Add ``step`` (its ``n_step`` base-``b`` digits ``step_digits[j]``) to the index
    whose digits are ``digits[j]``, with carries; return one past the highest digit
    written (that digit is nonzero, so the index has at least that many digits)."""
    # the odometer: 2.5x faster than the general sum for step 1 (Halton(32).random(2**18),
    # one thread, 38 ms against 95 ms)
    if step == 1:
        k = 0
        while digits[j, k] == b - 1:
            digits[j, k] = 0
            k += 1
        digits[j, k] += 1
        return k + 1
    carry = 0
    k = 0
    while k < n_step or carry:
        t = digits[j, k] + step_digits[j, k] + carry
        if t >= b:
            t -= b
            carry = 1
        else:
            carry = 0
        digits[j, k] = t
        k += 1
    return k


@njit(cache=True, parallel=True)
def halton_plain(start, n, skip, step, bases, weights, chunk, out):
    """Unscrambled Halton points ``start .. start + n - 1`` of the set into ``out`` (n, d).

    Point ``i`` of the set is index ``skip + i * step`` of the sequence
    (``step = leap + 1``).  ``weights[j, k] = b_j^-(k+1)`` computed by repeated
    division (float64), shape (d, MAX_DIGITS).  Parallel over chunks of ``chunk``
    points; each chunk starts from the directly computed digits of its first
    index, then adds the digits of ``step`` (an odometer when ``step = 1``).
    """
    d = bases.shape[0]
    n_step = np.zeros(d, dtype=np.int64)
    step_digits = _first_digits(step, bases, n_step)
    for c in prange((n + chunk - 1) // chunk):
        ndig = np.zeros(d, dtype=np.int64)
        lo, hi, digits = _chunk_start(c, chunk, n, start, skip, step, bases, ndig)
        for i in range(lo, hi):
            for j in range(d):
                v = 0.0
                for k in range(ndig[j]):
                    v += digits[j, k] * weights[j, k]
                out[i, j] = v
                top = _add_digits(digits, j, step, step_digits, n_step[j], bases[j])
                if top > ndig[j]:
                    ndig[j] = top


#: :func:`halton_plain` on the calling thread (the same points; compiles faster).
halton_plain_serial = njit(cache=True)(renamed(halton_plain.py_func, "halton_plain_serial"))


@njit(cache=True, parallel=True)
def halton_permuted(start, n, skip, step, bases, weights, counts, offsets, strides, perms, chunk,
                    out):
    """Digit-permuted Halton points ``start .. start + n - 1`` of the set into ``out``.

    Point ``i`` of the set is index ``skip + i * step`` of the sequence.
    Dimension ``j`` uses ``counts[j]`` digit positions; position ``k`` maps a
    digit ``r`` to ``perms[offsets[j] + k * strides[j] + r]`` (``strides[j]``
    is ``b_j`` for one permutation per position, 0 for one per dimension).  All ``counts[j]``
    positions are summed (leading zero digits included, as they are permuted),
    in SciPy's order: ``v += perm_k(digit_k) * w_k`` for k = 0, 1, ...
    """
    d = bases.shape[0]
    n_step = np.zeros(d, dtype=np.int64)
    step_digits = _first_digits(step, bases, n_step)
    for c in prange((n + chunk - 1) // chunk):
        lo, hi, digits = _chunk_start(c, chunk, n, start, skip, step, bases,
                                      np.empty(d, dtype=np.int64))
        for i in range(lo, hi):
            for j in range(d):
                off = offsets[j]
                st = strides[j]
                v = 0.0
                for k in range(counts[j]):
                    v += perms[off + k * st + digits[j, k]] * weights[j, k]
                out[i, j] = v
                _add_digits(digits, j, step, step_digits, n_step[j], bases[j])


#: :func:`halton_permuted` on the calling thread (the same points; compiles faster).
halton_permuted_serial = njit(cache=True)(
    renamed(halton_permuted.py_func, "halton_permuted_serial"))
