"""Numba kernels of the feature maps (no input checks: the callers validate).

The sine and cosine of one argument are computed together, branch-free, so
that the compiler vectorises the loop: fdlibm's argument reduction by
``pi / 2`` (three-part Cody-Waite constants, exact for ``|x| < 2^19 pi/2``)
and fdlibm's kernel polynomials ``__kernel_sin``/``__kernel_cos`` on
``[-pi/4, pi/4]`` with the reduction's tail -- the algorithm of the C library's
``sin``/``cos``, so the results agree with them to about one ulp.  Larger
arguments fall back to ``math.sin``/``math.cos``.

Each kernel has a plain numpy reference in ``tests/test_features.py``.
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

from .threads import get_num_threads

__all__ = ["cos_sin_inplace", "cos_sin_inplace_serial", "cos_sin_features"]

# fdlibm e_rem_pio2.c: 2/pi and pi/2 split into 33-bit pieces plus tails.
_INVPIO2 = 6.36619772367581382433e-01
_PIO2_1 = 1.57079632673412561417e+00
_PIO2_2 = 6.07710050630396597660e-11
_PIO2_2T = 2.02226624879595063154e-21
_PIO2_3 = 2.02226624871116645580e-21
_PIO2_3T = 8.47842766036889956997e-32
_TOINT = 6755399441055744.0  # 1.5 * 2^52: x + TOINT - TOINT rounds to nearest
#: Arguments with ``|x| > _REDUCE_MAX`` use math.sin/math.cos (2^19 pi / 2).
_REDUCE_MAX = 823549.6
# fdlibm k_sin.c / k_cos.c
_S1 = -1.66666666666666324348e-01
_S2 = 8.33333333332248946124e-03
_S3 = -1.98412698298579493134e-04
_S4 = 2.75573137070700676789e-06
_S5 = -2.50507602534068634195e-08
_S6 = 1.58969099521155010221e-10
_C1 = 4.16666666666666019037e-02
_C2 = -1.38888888888741095749e-03
_C3 = 2.48015872894767294178e-05
_C4 = -2.75573143513906633035e-07
_C5 = 2.08757232129817482790e-09
_C6 = -1.13596475577881948265e-11


@nb.njit(inline="always", fastmath=False)
def _sincos(x):  # pragma: no cover - compiled
    """``(sin x, cos x)`` for ``|x| <= _REDUCE_MAX``, branch-free."""
    fn = (x * _INVPIO2 + _TOINT) - _TOINT
    n = np.int64(fn)
    # three rounds of Cody-Waite reduction (fdlibm __ieee754_rem_pio2, medium case)
    r = x - fn * _PIO2_1
    t = r
    w = fn * _PIO2_2
    r = t - w
    w = fn * _PIO2_2T - ((t - r) - w)
    # round 3 restarts from the round-2 head r, as fdlibm does
    t = r
    w3 = fn * _PIO2_3
    r = t - w3
    w = fn * _PIO2_3T - ((t - r) - w3)
    y0 = r - w
    y1 = (r - y0) - w
    # fdlibm __kernel_sin(y0, y1, 1) and __kernel_cos(y0, y1)
    z = y0 * y0
    v = z * y0
    ws = z * z
    rs = _S2 + z * (_S3 + z * _S4) + z * ws * (_S5 + z * _S6)
    ks = y0 - ((z * (0.5 * y1 - v * rs) - y1) - v * _S1)
    rc = z * (_C1 + z * (_C2 + z * _C3)) + ws * ws * (_C4 + z * (_C5 + z * _C6))
    hz = 0.5 * z
    wc = 1.0 - hz
    kc = wc + (((1.0 - wc) - hz) + (z * rc - y0 * y1))
    odd = (n & 1) != 0
    sn = kc if odd else ks
    cs = ks if odd else kc
    if (n & 2) != 0:
        sn = -sn
    if ((n + 1) & 2) != 0:
        cs = -cs
    return sn, cs


def _cos_sin_inplace_body(out, scale):  # pragma: no cover - compiled
    n, s2 = out.shape
    s = s2 // 2
    for i in nb.prange(n):
        cos_part = out[i, :s]
        arg_part = out[i, s:]
        n_big = 0
        for j in range(s):
            n_big += abs(np.float64(arg_part[j])) > _REDUCE_MAX
        if n_big == 0:  # the common case: a branch-free, vectorised loop
            for j in range(s):
                sn, cs = _sincos(np.float64(arg_part[j]))
                c = scale[j]
                cos_part[j] = c * cs
                arg_part[j] = c * sn
        else:  # a row with a large argument: the C library's reduction for those
            for j in range(s):
                a = np.float64(arg_part[j])
                if abs(a) > _REDUCE_MAX:
                    sn, cs = math.sin(a), math.cos(a)
                else:
                    sn, cs = _sincos(a)
                c = scale[j]
                cos_part[j] = c * cs
                arg_part[j] = c * sn


# fastmath=False: the reduction relies on exact IEEE rounding (Cody-Waite and
# the 1.5 * 2^52 rounding trick are destroyed by reassociation).  Compiled lazily,
# once per dtype (float32, float64), on first use.

#: In place: ``out`` (n, 2 s) holds the arguments ``a_ij`` in its second half;
#: afterwards ``out[i, j] = scale[j] cos(a_ij)`` and ``out[i, s + j] = scale[j] sin(a_ij)``.
#: C-contiguous arrays of one floating dtype (float32 arguments are evaluated in
#: float64 and rounded once).  Parallel over rows: each row writes its own slots.
#: Rows with an argument ``|a| > _REDUCE_MAX`` take a scalar loop.
cos_sin_inplace = nb.njit(parallel=True, cache=True, nogil=True)(_cos_sin_inplace_body)
#: The same, serial (for the parallel-vs-serial test).
cos_sin_inplace_serial = nb.njit(parallel=False, cache=True, nogil=True)(_cos_sin_inplace_body)


def cos_sin_features(X, W, scale):
    """``[scale * cos(X W^T), scale * sin(X W^T)]`` of shape ``(n, 2 s)``.

    ``X`` (n, d), ``W`` (s, d), ``scale`` (s,), one floating dtype, C-contiguous.
    One BLAS product writes the arguments ``X W^T`` straight into the second
    half of the output (a strided view, ``ldc = 2 s``); :data:`cos_sin_inplace`
    then replaces each argument by its scaled cosine and sine in one pass.
    Peak memory: the output.
    """
    n = X.shape[0]
    s = W.shape[0]
    out = np.empty((n, 2 * s), dtype=X.dtype)
    if n == 0 or s == 0:
        return out
    # a private C-contiguous copy in the output's dtype (one compiled specialisation
    # per dtype, whatever the caller holds: read-only memory maps, broadcast views)
    scale = np.array(scale, dtype=X.dtype, order="C", copy=True)
    np.matmul(X, W.T, out=out[:, s:])
    n_threads = get_num_threads()  # qmc_orff.set_num_threads / num_threads
    if n_threads == 1:  # no numba thread pool at all (safe under any threading layer)
        cos_sin_inplace_serial(out, scale)
    else:
        previous = nb.get_num_threads()
        nb.set_num_threads(n_threads)
        try:
            cos_sin_inplace(out, scale)
        finally:
            nb.set_num_threads(previous)
    return out
