"""Benchmark of the array API path on a GPU (issue 26, item 4).

1. float32 ``FourierFeatures.transform`` of ``n x 128`` rows at ``s = 1024`` frequencies
   (default ``n = 10^6``) on the device, against the bare floor in the same namespace
   (one GEMM ``X W^T``, ``cos``, ``sin``, the concatenation; the map adds only the
   ``sqrt(xi)`` scaling and the input checks) and against scikit-learn's ``Nystroem(2048)``
   under array API dispatch on the same device.  Floor (GPU): within 1.5x of the bare floor.
2. ``ORFFRidge`` (scalar Gaussian kernel, ``p = 1``) fitted by ``partial_fit`` on ``10^7`` rows
   streamed in chunks generated on the device, against the same ``partial_fit`` on NumPy
   arrays on the CPU, timed on ``--cpu-rows`` rows and scaled linearly to the same row count
   (the statistics cost ``O(n s^2)``; the per-call solve is the same on both).  Floor (GPU):
   at least 10x faster than the CPU.

The namespace is torch on CUDA when torch and a GPU are there, torch on the CPU with torch
alone, else array-api-strict (CPU; a correctness run, not a timing of any GPU).  ``--quick``
shrinks every size so that the script runs in seconds on a laptop CPU (and in the tests).

Run: ``SCIPY_ARRAY_API=1 python benchmarks/bench_gpu.py [--quick] [--namespace torch|strict]``.
Timings are wall-clock, median of ``--repeat`` runs after one warm-up; on a shared machine
compare the ratios printed in one run, not absolute times.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # before SciPy is imported (scikit-learn needs it)

import numpy as np  # noqa: E402


def _namespace(choice):
    """``(xp, device, name, sync)`` for ``choice`` in {"auto", "torch", "strict"}."""
    if choice in ("auto", "torch"):
        try:
            import torch
        except ImportError:
            if choice == "torch":
                raise
        else:
            import sklearn
            from sklearn.utils._array_api import get_namespace

            dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
            with sklearn.config_context(array_api_dispatch=True):  # array_api_compat's torch
                xp = get_namespace(torch.zeros(1))[0]
            return xp, dev, f"torch {torch.__version__} on {dev}", sync
    import array_api_strict as xp

    return xp, xp.Device("CPU_DEVICE"), "array-api-strict on the CPU", lambda: None


def _time(fn, sync, repeat):
    fn()  # warm-up (kernels compiled, caches filled)
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bench_transform(xp, device, sync, n, d, s, n_nystroem, repeat):
    import sklearn
    from sklearn.kernel_approximation import Nystroem

    from qmc_orff import FourierFeatures

    rng = np.random.default_rng(0)
    X = xp.asarray(rng.normal(size=(n, d)).astype(np.float32), device=device)
    with sklearn.config_context(array_api_dispatch=True):
        ff = FourierFeatures(sigma=float(np.sqrt(d)), n_components=s, seed=0).fit(X[:2, ...])
        W = xp.astype(ff.frequencies_, xp.float32)

        def bare():
            P = X @ xp.permute_dims(W, (1, 0))
            return xp.concat([xp.cos(P), xp.sin(P)], axis=1)

        t_ff = _time(lambda: ff.transform(X), sync, repeat)
        t_bare = _time(bare, sync, repeat)
        try:
            ny = Nystroem(gamma=0.5 / d, n_components=n_nystroem, random_state=0).fit(
                X[:max(n_nystroem, 2 * n_nystroem), ...])
            t_ny = _time(lambda: ny.transform(X), sync, repeat)
        except Exception as exc:  # scikit-learn without Nystroem's array API support
            print(f"  Nystroem({n_nystroem}) under array API: unavailable ({exc})")
            t_ny = float("nan")
    print(f"== float32 transform, {n} x {d} rows, s = {s} ({2 * s} columns) ==")
    print(f"  FourierFeatures.transform  {t_ff * 1e3:9.2f} ms")
    print(f"  bare GEMM + cos + sin      {t_bare * 1e3:9.2f} ms   ratio {t_ff / t_bare:.2f}x "
          f"(floor on a GPU: <= 1.5x)")
    print(f"  Nystroem({n_nystroem}).transform   {t_ny * 1e3:9.2f} ms   "
          f"FourierFeatures is {t_ny / t_ff:.2f}x faster")
    return t_ff / t_bare


def _chunk(xp, device, rows, d, seed):
    """A chunk of rows and targets, made on ``device`` (NumPy's generator, then one copy)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(rows, d))
    y = np.sin(X[:, :4].sum(axis=1)) + 0.1 * rng.normal(size=rows)
    if xp is np:
        return X, y
    return xp.asarray(X, device=device), xp.asarray(y, device=device)


def _stream(xp, device, rows, chunk, d, s, sync):
    """Seconds for ``partial_fit`` over ``rows`` rows in chunks (data made outside the clock)."""
    import sklearn

    from qmc_orff import ORFF, ORFFRidge

    model = ORFFRidge(ORFF(sigma=2.0, n_components=s, seed=0), alpha=1e-3)
    chunks = [_chunk(xp, device, min(chunk, rows - a), d, a) for a in range(0, rows, chunk)]
    sync()
    with sklearn.config_context(array_api_dispatch=xp is not np):
        t0 = time.perf_counter()
        for X, y in chunks:
            model.partial_fit(X, y)
        sync()
    return time.perf_counter() - t0, model


def bench_ridge(xp, device, sync, rows, cpu_rows, chunk, d, s):
    # the data are made chunk by chunk and kept: rows x d on the device at once
    t_dev, model = _stream(xp, device, rows, chunk, d, s, sync)
    t_cpu, ref = _stream(np, None, cpu_rows, min(chunk, cpu_rows), d, s, lambda: None)
    t_cpu_scaled = t_cpu * rows / cpu_rows
    print(f"== ORFFRidge.partial_fit streamed, d = {d}, s = {s}, chunks of {chunk} rows ==")
    print(f"  device: {rows} rows in {t_dev:8.2f} s ({rows / t_dev:,.0f} rows/s)")
    print(f"  NumPy CPU: {cpu_rows} rows in {t_cpu:8.2f} s, scaled to {rows} rows: "
          f"{t_cpu_scaled:8.2f} s   speed-up {t_cpu_scaled / t_dev:.1f}x (floor on a GPU: >= 10x)")
    return t_cpu_scaled / t_dev


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (seconds on a CPU)")
    parser.add_argument("--namespace", choices=("auto", "torch", "strict"), default="auto")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from _machine import uptime

    xp, device, name, sync = _namespace(args.namespace)
    print(f"namespace: {name}; machine: {uptime()}")
    if args.quick:
        sizes = dict(n=4000, d=128, s=128, n_nystroem=256), dict(rows=40_000, cpu_rows=20_000,
                                                                 chunk=10_000, d=16, s=64)
    else:
        sizes = dict(n=10**6, d=128, s=1024, n_nystroem=2048), dict(rows=10**7, cpu_rows=10**6,
                                                                    chunk=500_000, d=16, s=256)
    ratio = bench_transform(xp, device, sync, repeat=args.repeat, **sizes[0])
    speedup = bench_ridge(xp, device, sync, **sizes[1])
    on_gpu = "cuda" in str(device)
    if on_gpu:
        print(f"GPU floors: transform {ratio:.2f}x the bare floor (<= 1.5x: "
              f"{'met' if ratio <= 1.5 else 'NOT met'}); ridge {speedup:.1f}x the CPU "
              f"(>= 10x: {'met' if speedup >= 10 else 'NOT met'})")
    else:
        print("GPU floors: not measured (no GPU in this run)")


if __name__ == "__main__":
    main()
