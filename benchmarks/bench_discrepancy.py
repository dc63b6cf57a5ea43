"""Benchmark: box discrepancy value + gradient, numba kernels vs a chunked numpy reference.

Run from the repository root::

    .venv/bin/python benchmarks/bench_discrepancy.py            # full: (2000,119), (1000,21), (4096,8)
    .venv/bin/python benchmarks/bench_discrepancy.py --quick    # smaller sizes, for a smoke test

For each (s, d) it prints the best-of-``repeat`` wall time of
``BoxDiscrepancy.value_and_grad`` (compilation excluded: one warm-up call first),
one run of a chunked, vectorised numpy implementation of the same formulas
(written here, visiting every ordered pair as numpy naturally does), their
ratio, the nanoseconds per pair-dimension of the numba pair term
(``s (s - 1) / 2 * d`` unordered pair-dimensions), and the largest relative
difference between the two results (a sanity check, not a test).

Timings on a shared machine are noisy: take the ratios as indicative.
"""
from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np

import numba

from qmc_orff.discrepancy import BoxDiscrepancy

SIZES = [(2000, 119), (1000, 21), (4096, 8)]
QUICK_SIZES = [(500, 119), (300, 21), (1024, 8)]
FLOOR = 20.0  # required speed-up at (2000, 119)


def numpy_value_grad(W, b, sigma, density, *, chunk_bytes=64 << 20):
    """Chunked, vectorised numpy D^2 and dD^2/dW (uniform weights), same formulas."""
    s, d = W.shape
    xi = np.full(s, 1.0 / s)
    a = b / sigma
    chunk = max(1, int(chunk_bytes // (8 * s * d)))
    pair = 0.0
    grad = np.zeros((s, d))
    for start in range(0, s, chunk):
        stop = min(start + chunk, s)
        Z = b * (W[start:stop, None, :] - W[None, :, :])          # (c, s, d)
        small = np.abs(Z) < 0.1  # Taylor series there (accurate to ~1e-17)
        Zs = np.where(small, 1.0, Z)
        Z2 = Z * Z
        F = np.where(small, 1 - Z2 / 6 + Z2 ** 2 / 120 - Z2 ** 3 / 5040 + Z2 ** 4 / 362880,
                     np.sin(Zs) / Zs)
        dF = np.where(small, Z * (-1 / 3 + Z2 / 30 - Z2 ** 2 / 840 + Z2 ** 3 / 45360),
                      (np.cos(Zs) - F) / Zs)
        pre = np.ones_like(F)
        suf = np.ones_like(F)
        np.cumprod(F[:, :, :-1], axis=2, out=pre[:, :, 1:])
        np.cumprod(F[:, :, :0:-1], axis=2, out=suf[:, :, -2::-1])
        K = pre[:, :, -1] * F[:, :, -1]
        pair += xi[start:stop] @ K @ xi
        G = b * dF * pre * suf
        grad[start:stop] += 2.0 * xi[start:stop, None] * np.einsum("m,lmd->ld", xi, G)
    g, dg = density.g_and_derivative(W * sigma, a)
    g = g * (math.pi / a)
    dg = dg * (math.pi * sigma / a)
    v = np.prod(g, axis=1)
    pre = np.ones((s, d))
    suf = np.ones((s, d))
    np.cumprod(g[:, :-1], axis=1, out=pre[:, 1:])
    np.cumprod(g[:, :0:-1], axis=1, out=suf[:, -2::-1])
    grad -= 2.0 * xi[:, None] * dg * pre * suf
    const = np.prod(math.pi * density.C(a) / a)
    scale = np.prod(b / math.pi)
    return scale * (pair - 2.0 * xi @ v + const), scale * grad


def best_time(fn, repeat):
    best = math.inf
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke test)")
    parser.add_argument("--repeat", type=int, default=3, help="timings per case (best is kept)")
    args = parser.parse_args()
    sizes = QUICK_SIZES if args.quick else SIZES
    rng = np.random.default_rng(20160101)
    print(f"numba {numba.__version__}, threads={numba.get_num_threads()}, "
          f"cpu_count={os.cpu_count()}, numpy {np.__version__}")
    print(f"{'s':>6} {'d':>5} {'numba [s]':>10} {'numpy [s]':>10} {'ratio':>7} "
          f"{'ns/pair-dim':>12} {'max rel diff':>13}")
    ratios = {}
    for s, d in sizes:
        W = rng.standard_normal((s, d))
        b = np.full(d, 2.0)
        sigma = np.ones(d)
        obj = BoxDiscrepancy(b, sigma=sigma)
        t0 = time.perf_counter()
        obj.value_and_grad(W[:40])  # compile / load the cache
        t_first = time.perf_counter() - t0
        t_nb, (v_nb, g_nb) = best_time(lambda: obj.value_and_grad(W), args.repeat)
        t_np, (v_np, g_np) = best_time(lambda: numpy_value_grad(W, b, sigma, obj.density), 1)
        rel = max(abs(v_nb - v_np) / abs(v_np), np.max(np.abs(g_nb - g_np)) / np.max(np.abs(g_np)))
        ns = t_nb / (s * (s - 1) / 2 * d) * 1e9
        ratios[(s, d)] = t_np / t_nb
        print(f"{s:>6} {d:>5} {t_nb:>10.4f} {t_np:>10.4f} {t_np / t_nb:>7.1f} {ns:>12.2f} "
              f"{rel:>13.2e}   (first call {t_first:.2f} s)")
    if (2000, 119) in ratios:
        r = ratios[(2000, 119)]
        print(f"floor: ratio at (2000, 119) = {r:.1f} (required >= {FLOOR:.0f}): "
              f"{'OK' if r >= FLOOR else 'BELOW FLOOR'}")


if __name__ == "__main__":
    main()
