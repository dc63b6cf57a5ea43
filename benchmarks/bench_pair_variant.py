"""Speed bound of an algorithm change of the pair kernel (issue 14; not adopted).

The library's pair kernel keeps the bits of the former pair-by-pair loops.  Issue 14 asks
for 3x of a division-plus-fma floor at (s, d) = (2000, 119) on one thread; the library
runs at about 5.5x.  This script measures how close a kernel that gives up those bits
gets, to inform that floor.  The variant (``_variant_task``, one thread, one block):

- fastmath ``contract`` (FMA);
- Taylor polynomials below ``TAU = 0.25`` of 5 and 6 terms (the library: 8 and 9 below 0.5;
  the angle-addition form's relative error bound doubles);
- the gradient as ``p * (sinc' / sinc)``, with one division ``1 / (z sin z)`` giving both
  ``1 / z`` and ``1 / sin z``: no prefix or suffix products.  (Wrong where ``sin z`` is
  exactly 0 with ``|z| >= TAU``: a real kernel would need a fallback there.)

It prints the times per pair-dimension of the floor, the library's serial kernel and the
variant (with and without FMA), their ratios to the floor, and the variant's largest
deviation from the library (relative to the largest gradient entry).

Run: ``python benchmarks/bench_pair_variant.py [--s S] [--d D]``.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from bench_discrepancy import _div_fma_floor
from qmc_orff.objectives import _box_kernels as K

TILE = 64
TAU = 0.25
# sinc(z) to z^10, and (cot z - 1/z) / z = -1/3 - z^2/45 - 2 z^4/945 - z^6/4725 - 2 z^8/93555
# - 1382 z^10/638512875, both exact to rounding below |z| = 0.25
_S = (-1 / 6, 1 / 120, -1 / 5040, 1 / 362880, -1 / 39916800)
_R = (-1 / 3, -1 / 45, -2 / 945, -1 / 4725, -2 / 93555, -1382 / 638512875)


def _variant_body(W, b, S, Co, xi, WT, ST, CT):  # pragma: no cover
    s, d = W.shape
    r = xi.copy()
    gradT = np.zeros((d, s))
    G = np.empty((d, TILE))
    vec = np.empty((2, TILE))
    S1, S2, S3, S4, S5 = _S
    R0, R1, R2, R3, R4, R5 = _R
    for l in range(s):
        for mt in range(l + 1, s, TILE):
            n = min(TILE, s - mt)
            mu = np.uint64(mt)
            for k in range(n):
                vec[0, k] = 1.0
            for j in range(d):
                bj = b[j]
                wl = W[l, j]
                sl = S[l, j]
                cl = Co[l, j]
                for k in range(n):
                    m = mu + np.uint64(k)
                    z = bj * (wl - WT[j, m])
                    sz = sl * CT[j, m] - cl * ST[j, m]
                    cz = cl * CT[j, m] + sl * ST[j, m]
                    q = 1.0 / (z * sz)
                    z2 = z * z
                    small = abs(z) < TAU
                    f = (1.0 + z2 * (S1 + z2 * (S2 + z2 * (S3 + z2 * (S4 + z2 * S5))))
                         if small else sz * sz * q)
                    G[j, k] = (bj * z * (R0 + z2 * (R1 + z2 * (R2 + z2 * (R3 + z2 * (R4 + z2 * R5)))))
                               if small else bj * ((cz * z - sz) * q))
                    vec[0, k] *= f
            xl = xi[l]
            rl = r[l]
            for k in range(n):
                m = mu + np.uint64(k)
                p = vec[0, k]
                rl += xi[m] * p
                r[m] += xl * p
                vec[1, k] = 2.0 * xl * xi[m] * p
            r[l] = rl
            for j in range(d):
                acc = gradT[j, l]
                for k in range(n):
                    t = vec[1, k] * G[j, k]
                    gradT[j, mu + np.uint64(k)] -= t
                    acc += t
                gradT[j, l] = acc
    return r, np.ascontiguousarray(gradT.T)


_variant_fma = njit(error_model="numpy", fastmath={"contract"})(_variant_body)
_variant_plain = njit(error_model="numpy")(_variant_body)


def best(fn, repeat=3):
    out, t = None, np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        t = min(t, time.perf_counter() - t0)
    return t, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--s", type=int, default=2000)
    parser.add_argument("--d", type=int, default=119)
    args = parser.parse_args()
    s, d = args.s, args.d
    rng = np.random.default_rng(20160101)
    W = rng.standard_normal((s, d))
    b = np.full(d, 2.0)
    S, Co = np.sin(b * W), np.cos(b * W)
    xi = np.full(s, 1.0 / s)
    WT, ST, CT = (np.ascontiguousarray(A.T) for A in (W, S, Co))
    sched = K.schedule(s, d)
    for f in (_variant_fma, _variant_plain):  # compile outside the timing
        f(W[:40], b, S[:40], Co[:40], xi[:40], WT[:, :40].copy(), ST[:, :40].copy(),
          CT[:, :40].copy())
    _div_fma_floor(W[:20], b)
    K._run_schedule_serial(W[:40], b, S[:40], Co[:40], xi[:40], *K.schedule(40, d), True)
    npd = s * (s - 1) / 2 * d * 1e-9
    t_floor, _ = best(lambda: _div_fma_floor(W, b))
    t_lib, (r0, g0) = best(lambda: K._run_schedule_serial(W, b, S, Co, xi, *sched, True))
    print(f"pair kernel, value + gradient, one thread, (s, d) = ({s}, {d}); ns per pair-dimension "
          f"(ratio to the floor):")
    print(f"  division + fma floor   {t_floor / npd:5.2f}")
    print(f"  library (serial)       {t_lib / npd:5.2f} ({t_lib / t_floor:.2f}x)")
    for name, f in (("variant, FMA", _variant_fma), ("variant, no FMA", _variant_plain)):
        t, (r, g) = best(lambda: f(W, b, S, Co, xi, WT, ST, CT))
        dev = np.max(np.abs(g - g0)) / np.max(np.abs(g0))
        print(f"  {name:22s} {t / npd:5.2f} ({t / t_floor:.2f}x); gradient deviation from the "
              f"library {dev:.1e} (relative to its largest entry)")


if __name__ == "__main__":
    main()
