"""Benchmark of the feature maps (issue 5).

1. ``FourierFeatures(sequence="mc", n_components=2048).fit_transform`` against
   ``sklearn.kernel_approximation.RBFSampler(n_components=4096)`` at equal output
   width (4096 columns) on X of shape (100000, 64), float64 and float32 (both
   keep the input dtype).  Floor: no slower than RBFSampler in either dtype;
   aim: 2x in float64.  Also the largest deviation of our features from a
   float64 numpy evaluation of the same formula.
2. ORFF curl-free (d = 2, D = 1000 frequencies, trace measure): ``transform``
   (materialised ``(N, 2000, 2)``), the scalar features ``F(X)`` behind the
   linear operator, and ``ORFFRidge.fit`` (solver "auto" = "direct": ``F^T F``,
   the Hadamard-structured normal matrix, Cholesky) for N in {1e3, 1e4, 1e5}.
   Floor: time linear in N (the printed ``t / N`` column stays flat).

3. Floor (issue 14): float32 FourierFeatures at least 2x RBFSampler float32 on
   X (100000, 64) -> 4096 columns (section 1, ``--scalar-only`` runs just that).
   First calls with and without the numba cache: ``benchmarks/bench_coldstart.py``.

4. ``--small-batches``: ``transform`` of 64..2000 rows against ``RBFSampler.transform``
   (medians of interleaved runs): the feature kernels run on Python threads with
   single-threaded BLAS, so small batches pay no thread-pool start-up.

Run: ``python benchmarks/bench_features.py [--quick] [--repeat R] [--scalar-only]
[--small-batches]``.  Timings are
wall-clock minima over ``R`` runs; on a shared machine they are noisy.
"""
from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np
from sklearn.kernel_approximation import RBFSampler

from qmc_orff import ORFF, FourierFeatures, ORFFRidge


def best_time(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        out = None
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def peak_memory(fn):
    """Peak traced allocation (numpy reports its buffers to tracemalloc), bytes."""
    tracemalloc.start()
    out = fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del out
    return peak


def bench_scalar(n, d, width, repeat):
    print(f"== FourierFeatures vs RBFSampler: X ({n}, {d}), {width} output columns ==")
    rng = np.random.default_rng(0)
    X64 = rng.normal(size=(n, d)) * 0.3
    sigma = 1.0
    for dtype in (np.float64, np.float32):
        X = X64.astype(dtype)
        ours = FourierFeatures(sigma=sigma, n_components=width // 2, sequence="mc", seed=0)
        ref = RBFSampler(gamma=1.0 / (2 * sigma**2), n_components=width, random_state=0)
        ours.fit_transform(X[:100])  # compile / warm up
        t_ours, F = best_time(lambda: ours.fit_transform(X), repeat)
        t_ref, G = best_time(lambda: ref.fit_transform(X), repeat)
        assert F.dtype == dtype and G.dtype == dtype and F.shape == G.shape
        # accuracy: against the same formula in float64 numpy, on 2000 rows
        sub = X[:2000].astype(np.float64)
        P = sub @ ours.frequencies_.T
        exact = np.hstack([np.cos(P), np.sin(P)]) * np.sqrt(1.0 / ours.frequencies_.shape[0])
        dev = np.max(np.abs(F[:2000].astype(np.float64) - exact))
        del F, G
        print(f"{np.dtype(dtype).name:8s} ours {t_ours:7.3f} s   RBFSampler {t_ref:7.3f} s   "
              f"speed-up x{t_ref / t_ours:5.2f}   max |ours - numpy(float64)| = {dev:.1e}")
    X = X64
    ours = FourierFeatures(sigma=sigma, n_components=width // 2, sequence="mc", seed=0)
    ref = RBFSampler(gamma=1.0 / (2 * sigma**2), n_components=width, random_state=0)
    m_ours = peak_memory(lambda: ours.fit_transform(X))
    m_ref = peak_memory(lambda: ref.fit_transform(X))
    print(f"float64  peak traced memory: ours {m_ours / 2**30:.2f} GiB, "
          f"RBFSampler {m_ref / 2**30:.2f} GiB")


def curl_field(X):
    centres = np.array([[0.0, 0.0], [0.0, 1.0], [0.0, -1.0], [-1.0, 0.0], [1.0, 0.0]])
    signs = np.array([1.0, 1.0, 1.0, -1.0, -1.0])
    D = X[:, None, :] - centres[None]
    g = np.exp(-np.sum(D**2, -1) / (2 * 0.09)) * signs
    return np.einsum("ij,ijk->ik", g, -D / 0.09)


def bench_orff(sizes, D, repeat):
    print(f"\n== ORFF curl-free, d = 2, D = {D} frequencies (2 s r = {2 * D} features) ==")
    print(f"{'N':>8s} {'transform':>10s} {'t/N (us)':>9s} {'F(X)':>8s} {'ridge fit':>13s} "
          f"{'t/N (us)':>9s}")
    rng = np.random.default_rng(1)
    base = ORFF("curl_free", sigma=0.3, n_components=D, measure="trace", seed=0)
    for N in sizes:
        X = rng.uniform(-2, 2, size=(N, 2))
        Y = curl_field(X) + 0.05 * rng.normal(size=(N, 2))
        orff = ORFF(**base.get_params()).fit(X)
        t_tr, Phi = best_time(lambda: orff.transform(X), repeat)
        del Phi
        t_f, _ = best_time(lambda: orff.scalar_features(X), repeat)
        t_fit, m = best_time(lambda: ORFFRidge(base, alpha=1e-3).fit(X, Y), repeat)
        assert m.solver_ == "direct"
        print(f"{N:8d} {t_tr:9.3f}s {1e6 * t_tr / N:9.2f} {t_f:7.3f}s {t_fit:12.3f}s "
              f"{1e6 * t_fit / N:9.2f}")


def bench_small_batches(repeat=31):
    """Section 4: transform of small batches (a prediction service, the fit-time check),
    where thread start-up, not arithmetic, used to dominate: median times against
    RBFSampler on the same rows, interleaved."""
    print("== small batches: FourierFeatures.transform vs RBFSampler.transform (median) ==")
    rng = np.random.default_rng(0)
    for n, d, s in ((64, 64, 256), (256, 64, 256), (2000, 64, 256), (2000, 16, 1024)):
        X = rng.normal(size=(n, d)) * 0.3
        ours = FourierFeatures(sigma=1.0, n_components=s, sequence="mc", seed=0).fit(X)
        ref = RBFSampler(gamma=0.5, n_components=2 * s, random_state=0).fit(X)
        ours.transform(X)
        t = {"ours": [], "ref": []}
        for _ in range(repeat):
            for name, fn in (("ours", ours.transform), ("ref", ref.transform)):
                t0 = time.perf_counter()
                fn(X)
                t[name].append(time.perf_counter() - t0)
        a, b = np.median(t["ours"]), np.median(t["ref"])
        print(f"n={n:5d} d={d:3d} 2s={2 * s:5d}: ours {a * 1e3:7.3f} ms   RBFSampler "
              f"{b * 1e3:7.3f} ms   speed-up x{b / a:5.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scalar-only", action="store_true", help="section 1 only")
    parser.add_argument("--small-batches", action="store_true", help="section 4 only")
    args = parser.parse_args()
    import numba
    print(f"cores: {os.cpu_count()}, numba threads {numba.get_num_threads()}, numpy "
          f"{np.__version__}, numba {numba.__version__}")
    if args.small_batches:
        bench_small_batches()
    elif args.scalar_only:
        bench_scalar(10_000 if args.quick else 100_000, 64, 4096, args.repeat)
    elif args.quick:
        bench_scalar(10_000, 64, 4096, args.repeat)
        bench_orff([1_000, 10_000], 1000, args.repeat)
    else:
        bench_scalar(100_000, 64, 4096, args.repeat)
        bench_orff([1_000, 10_000, 100_000], 1000, args.repeat)


if __name__ == "__main__":
    main()
