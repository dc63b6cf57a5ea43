"""Numba kernels for rank-1 lattice rules (no input checks: see ``lattice.py``).

All arithmetic on the numerators is exact (uint64): ``z`` is reduced modulo the
lattice size ``N <= 2^32`` so products stay below 2^64; the float64 point is
``numerator / N`` (correctly rounded, < 1) or ``numerator * 2^-m`` (exact).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .._jit import renamed


@njit(cache=True, parallel=True)
def lattice_radical_inverse(start, n, z, m, shift, use_shift, chunk, out):
    """Points ``frac(phi_2(k) z_j)`` for k = start .. start + n - 1.

    ``phi_2(k) = rev_m(k) / 2^m`` is the base-2 radical inverse of k (its m
    bits reversed), so x_kj = ((rev_m(k) * z_j) mod 2^m) * 2^-m, plus
    ``shift`` modulo 1 when ``use_shift``.  ``z`` uint64 (d,) < 2^m, m <= 32.
    """
    d = z.shape[0]
    mask = (np.uint64(1) << np.uint64(m)) - np.uint64(1)
    scale = 1.0 / (2.0 ** m)
    n_chunks = (n + chunk - 1) // chunk
    for c in prange(n_chunks):
        lo = c * chunk
        hi = min(lo + chunk, n)
        for i in range(lo, hi):
            k = np.uint64(start + i)
            r = np.uint64(0)
            for _ in range(m):
                r = (r << np.uint64(1)) | (k & np.uint64(1))
                k >>= np.uint64(1)
            if use_shift:
                for j in range(d):
                    v = ((r * z[j]) & mask) * scale + shift[j]
                    if v >= 1.0:
                        v -= 1.0
                    out[i, j] = v
            else:
                for j in range(d):
                    out[i, j] = ((r * z[j]) & mask) * scale


#: :func:`lattice_radical_inverse` on the calling thread (the same points; compiles faster).
lattice_radical_inverse_serial = njit(cache=True)(
    renamed(lattice_radical_inverse.py_func, "lattice_radical_inverse_serial"))


@njit(cache=True, parallel=True)
def lattice_natural(start, n, z, big_n, shift, use_shift, chunk, out):
    """Points ``frac(k z_j / N)`` for k = start .. start + n - 1 (natural order).

    Numerators ``(k z_j) mod N`` are updated by exact modular addition; each
    chunk starts from ``(k0 z_j) mod N`` computed directly (``k0, z_j < N <=
    2^32``, so the product fits in uint64).
    """
    d = z.shape[0]
    nn = np.uint64(big_n)
    fn = float(big_n)
    n_chunks = (n + chunk - 1) // chunk
    for c in prange(n_chunks):
        lo = c * chunk
        hi = min(lo + chunk, n)
        num = np.empty(d, dtype=np.uint64)
        k0 = np.uint64(start + lo)
        for j in range(d):
            num[j] = (k0 * z[j]) % nn
        for i in range(lo, hi):
            for j in range(d):
                v = num[j] / fn
                if use_shift:
                    v += shift[j]
                    if v >= 1.0:
                        v -= 1.0
                out[i, j] = v
                t = num[j] + z[j]
                if t >= nn:
                    t -= nn
                num[j] = t


#: :func:`lattice_natural` on the calling thread (the same points; compiles faster).
lattice_natural_serial = njit(cache=True)(
    renamed(lattice_natural.py_func, "lattice_natural_serial"))
