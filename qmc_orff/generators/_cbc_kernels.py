"""Numba kernels of the fast CBC construction (private; no input checks).

They replace numpy steps of :func:`qmc_orff.generators.cbc.cbc_lattice` whose
cost grew faster than ``n`` above ``n = 2^18``: random gathers from the
``n``-long table ``omega(k / n)`` (8 MiB at ``n = 2^20``, beyond the caches),
an ``int64`` modulo per element, and one ``np.tile`` temporary per level.  Every
kernel performs the same floating-point operations in the same order as the
numpy code it replaces, so the results are bit-identical.  Compiled lazily.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

_TWO_PI2 = 2.0 * math.pi ** 2
_SIXTH = 1.0 / 6.0


@njit(cache=True)
def update_p(p, z, n, gamma_s, coef, factor, alpha2):
    """``p[k] *= 1 + gamma_s omega(((k z) mod n) / n)``, ``k = 0 .. n-1``.

    ``omega`` is evaluated in place of a table look-up, as ``_omega`` does:
    ``2 pi^2 (x^2 - x + 1/6)`` for alpha = 2 (``alpha2``), else ``factor * polyval(coef, x)``
    (Horner from ``y = 0``, as :func:`numpy.polyval`).  The index ``k z mod n`` is
    advanced by one addition per ``k`` (``0 <= z < n``).
    """
    idx = 0
    nf = float(n)
    for k in range(n):
        x = idx / nf
        if alpha2:
            om = _TWO_PI2 * (x * x - x + _SIXTH)
        else:
            y = 0.0
            for c in coef:
                y = y * x + c
            om = factor * y
        p[k] *= 1.0 + gamma_s * om
        idx += z
        if idx >= n:
            idx -= n


@njit(cache=True)
def gather_pair(p, i1, i2, out):
    """``out[b] = p[i1[b]] + p[i2[b]]``."""
    for b in range(out.shape[0]):
        out[b] = p[i1[b]] + p[i2[b]]


@njit(cache=True)
def add_tiled(y, c):
    """``y += np.tile(c, y.size // c.size)`` without the temporary (same additions)."""
    m = c.shape[0]
    for r in range(y.shape[0] // m):
        base = r * m
        for i in range(m):
            y[base + i] += c[i]
