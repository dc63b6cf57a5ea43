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

5. ``--grid`` (issue 31): ``FourierFeatures.transform`` for d in {8, 64, 655, 3000},
   s in {256, 2048}, float32 and float64, 1 and 2 threads, against the GEMM ``X @ W.T``
   alone, numpy's ``P = X @ W.T; cos(P); sin(P)`` and ``RBFSampler.transform`` (2 s
   columns), all with the same BLAS thread count: medians of interleaved runs, printed as
   ratios (ours / GEMM, ours / numpy, RBFSampler / ours); ``checks``: the share of the
   transform spent outside the feature kernels' pass (input validation and the check of the
   phases, which the kernels count as they evaluate them: ``1 - core / ours``, ``core`` the
   same features without validation or check; noise can make it negative); and the CPU and
   vector width the kernels were compiled for.  Floors (Intel, idle): d = 655, s = 256,
   float64: ours / GEMM <= 1.2 at one thread, <= 1.3 at two; the row check <= 5% of the
   transform.

6. ``--float32-floor`` (issue 31): float32 ``FourierFeatures(n_components=2048).transform``
   of X (50000, 64) against ``RBFSampler(n_components=4096).transform``, 2 threads (numba's
   and BLAS's), interleaved runs: the ratio of median wall times and of the summed CPU times
   (both write a fresh 819 MB output and pay its page faults).  Floors (Intel, AVX-512):
   >= 2.2x in median wall time, >= 2.5x in CPU time; on AMD no slower than before.

Run: ``python benchmarks/bench_features.py [--quick] [--repeat R] [--scalar-only]
[--small-batches] [--grid] [--float32-floor]``.  Timings of sections 1-2 are wall-clock
minima over ``R`` runs; on a shared machine they are noisy (sections 5-6 print ratios of
interleaved medians and the machine's load).
"""
from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np
from sklearn.kernel_approximation import RBFSampler

import qmc_orff
from qmc_orff import ORFF, FourierFeatures, ORFFRidge

from _machine import uptime


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


def kernel_target():
    """The CPU numba compiles the kernels for and the vector width they use there."""
    import llvmlite.binding as llvm
    import numba

    from qmc_orff._jit import target_features, wide_vector_bits

    cpu = numba.config.CPU_NAME or llvm.get_host_cpu_name()
    features = target_features()
    if wide_vector_bits(features):
        width = "512-bit (AVX-512; the kernels' prefer-vector-width=512)"
    elif "avx2" in features or "avx" in features:
        width = "256-bit (AVX/AVX2, no AVX-512)"
    else:
        width = "128-bit (SSE)"
    return f"kernels compiled for {cpu}, vectors {width}"


def _interleaved(fns, repeat, cpu=None):
    """Median wall time of each of ``fns`` (name -> callable), run in turn ``repeat`` times;
    with a dict ``cpu``, also each one's mean process CPU time (all threads) put into it."""
    times = {name: [] for name in fns}
    cpu_sums = dict.fromkeys(fns, 0.0)
    for _ in range(repeat):
        for name, fn in fns.items():
            c0, t0 = time.process_time(), time.perf_counter()
            out = fn()
            times[name].append(time.perf_counter() - t0)
            cpu_sums[name] += time.process_time() - c0
            del out  # a large output freed before the next call allocates its own
    if cpu is not None:
        cpu.update({name: total / repeat for name, total in cpu_sums.items()})
    return {name: float(np.median(t)) for name, t in times.items()}


def bench_grid(quick, repeat):
    """Section 5: the transform against the GEMM, numpy and RBFSampler (ratios)."""
    from threadpoolctl import threadpool_limits

    from qmc_orff._cos_sin import cos_sin_features

    print("== transform vs GEMM alone, numpy GEMM+cos+sin, RBFSampler (medians of interleaved "
          "runs, same BLAS threads) ==")
    print(kernel_target())
    print(f"load: {uptime()}")
    print(f"{'dtype':7s} {'d':>5s} {'s':>5s} {'n':>6s} {'thr':>3s} {'ours ms':>9s} "
          f"{'ours/GEMM':>9s} {'ours/numpy':>10s} {'RBF/ours':>8s} {'checks':>10s}")
    rng = np.random.default_rng(0)
    for dtype in (np.float64, np.float32):
        for s in (256, 2048):
            for d in (8, 64, 655, 3000):
                n = min(20_000, 2**22 // s, 2**24 // d) // (8 if quick else 1)
                X = (rng.normal(size=(n, d)) / np.sqrt(d)).astype(dtype)
                ours = FourierFeatures(sigma=1.0, n_components=s, sequence="mc", seed=0).fit(X)
                W = ours.frequencies_.astype(dtype)
                scale = np.sqrt(ours.weights_).astype(dtype)
                ref = RBFSampler(gamma=0.5, n_components=2 * s, random_state=0).fit(X)

                def numpy_map():
                    P = X @ W.T
                    return np.cos(P), np.sin(P)

                for threads in (1, 2):
                    with qmc_orff.num_threads(threads), threadpool_limits(threads, "blas"):
                        ours.transform(X[:10])
                        fns = {"ours": lambda: ours.transform(X), "gemm": lambda: X @ W.T,
                               "numpy": numpy_map, "rbf": lambda: ref.transform(X),
                               "core": lambda: cos_sin_features(X, W, scale)}
                        t = _interleaved(fns, repeat)
                    print(f"{np.dtype(dtype).name:7s} {d:5d} {s:5d} {n:6d} {threads:3d} "
                          f"{1e3 * t['ours']:9.2f} {t['ours'] / t['gemm']:9.2f} "
                          f"{t['ours'] / t['numpy']:10.2f} {t['rbf'] / t['ours']:8.2f} "
                          f"{1 - t['core'] / t['ours']:10.3f}", flush=True)


def bench_float32_floor(repeat):
    """Section 6: float32, 50000 x 64 -> 4096 columns, 2 threads, wall and CPU time ratios."""
    from threadpoolctl import threadpool_limits

    print("== float32 X (50000, 64) -> 4096 columns, 2 threads: RBFSampler / ours (interleaved) ==")
    print(kernel_target())
    print(f"load: {uptime()}")
    X = np.random.default_rng(0).normal(size=(50_000, 64)).astype(np.float32)
    ours = FourierFeatures(sigma=8.0, n_components=2048, sequence="mc", seed=0).fit(X)
    ref = RBFSampler(gamma=1.0 / 128, n_components=4096, random_state=0).fit(X)
    fns = {"ours": lambda: ours.transform(X), "rbf": lambda: ref.transform(X)}
    cpu = {}
    with qmc_orff.num_threads(2), threadpool_limits(2, "blas"):
        for fn in fns.values():
            fn()  # warm-up: kernels compiled, BLAS threads started
        med = _interleaved(fns, repeat, cpu)
    print(f"ours: median wall {1e3 * med['ours']:8.1f} ms, CPU {1e3 * cpu['ours']:8.1f} ms per "
          f"call; RBFSampler: {1e3 * med['rbf']:8.1f} ms, {1e3 * cpu['rbf']:8.1f} ms")
    print(f"RBFSampler / ours: wall {med['rbf'] / med['ours']:.2f}x (floor on Intel >= 2.2x), "
          f"CPU time {cpu['rbf'] / cpu['ours']:.2f}x (floor on Intel >= 2.5x)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scalar-only", action="store_true", help="section 1 only")
    parser.add_argument("--small-batches", action="store_true", help="section 4 only")
    parser.add_argument("--grid", action="store_true", help="section 5 only")
    parser.add_argument("--float32-floor", action="store_true", help="section 6 only")
    args = parser.parse_args()
    import numba
    print(f"cores: {os.cpu_count()}, numba threads {numba.get_num_threads()}, numpy "
          f"{np.__version__}, numba {numba.__version__}")
    if args.small_batches:
        bench_small_batches()
    elif args.grid:
        bench_grid(args.quick, max(args.repeat, 5))
    elif args.float32_floor:
        bench_float32_floor(max(args.repeat, 11))
    elif args.scalar_only:
        bench_scalar(10_000 if args.quick else 100_000, 64, 4096, args.repeat)
    elif args.quick:
        bench_scalar(10_000, 64, 4096, args.repeat)
        bench_orff([1_000, 10_000], 1000, args.repeat)
        bench_grid(True, max(args.repeat, 5))
    else:
        bench_scalar(100_000, 64, 4096, args.repeat)
        bench_orff([1_000, 10_000, 100_000], 1000, args.repeat)
        bench_grid(False, max(args.repeat, 5))


if __name__ == "__main__":
    main()
