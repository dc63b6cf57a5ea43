"""Benchmark of the Dask ridge fit on a ``distributed.LocalCluster`` (issue 12, item 5).

``ORFFRidge(ORFF(n_components=s)).fit`` on a Dask array of 10^7 x 32 rows
(generated chunk by chunk on the workers: the data, 2.4 GiB, never exists in
one place, nor the ``(n, 2 s)`` feature matrix) with a target of ``p = 1``
output: scalar Gaussian kernel ridge.  Two worker processes with one thread
each, on loopback.  Printed: rows per second, the client's peak traced
allocation (tracemalloc) and its peak resident set (``ru_maxrss``, whole
process, imports included), and as a reference from the same run the
in-memory fit's rows per second on the first 10^6 rows.
Floor: the client's peak under 1 GiB.

Run: ``python benchmarks/bench_dask.py [--rows N] [--d D] [--s S] [--chunk C]``.
Timings are wall-clock on a shared machine: compare the ratio printed in one run.
"""
from __future__ import annotations

import argparse
import os
import resource
import time
import tracemalloc

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**7)
    parser.add_argument("--d", type=int, default=32)
    parser.add_argument("--s", type=int, default=64, help="frequencies (2 s features)")
    parser.add_argument("--chunk", type=int, default=250_000)
    parser.add_argument("--ref-rows", type=int, default=10**6)
    args = parser.parse_args()
    import dask
    import dask.array as da
    import distributed

    from qmc_orff import ORFF, ORFFRidge

    n, d, s = args.rows, args.d, args.s
    print(f"load: {os.getloadavg()}")
    X = da.random.default_rng(0).uniform(-1, 1, size=(n, d), chunks=(args.chunk, d))
    y = da.sin(X[:, :4].sum(axis=1)) + 0.1 * X[:, 4] + 10.0
    orff = ORFF(sigma=2.0, n_components=s, seed=0)
    print(f"== fit on {n} x {d} rows, s={s} ({2 * s} features; the feature matrix would be "
          f"{n * 2 * s * 8 / 2**30:.1f} GiB, the data {n * d * 8 / 2**30:.1f} GiB), "
          f"chunks of {args.chunk} rows ==")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None,
                                  silence_logs=40) as cluster, \
            distributed.Client(cluster) as client:
        client.run(lambda: None)
        ORFFRidge(orff).fit(X[:1000], y[:1000])  # imports, compilation on the workers
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        tracemalloc.start()
        t0 = time.perf_counter()
        model = ORFFRidge(orff, alpha=1e-3).fit(X, y)
        t = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        Xr, yr = dask.compute(X[:args.ref_rows], y[:args.ref_rows])
    print(f"dask (2 worker processes): {t:8.2f} s  {n / t:12.0f} rows/s")
    print(f"client peak traced {peak / 2**20:.1f} MiB; client peak RSS {rss / 2**20:.0f} MiB "
          f"(before the fit {rss0 / 2**20:.0f} MiB); floor < 1 GiB: "
          f"{'ok' if max(peak, rss) < 2**30 else 'FAIL'}")
    t0 = time.perf_counter()
    ref = ORFFRidge(orff, alpha=1e-3).fit(Xr, yr)
    t_ref = time.perf_counter() - t0
    print(f"in memory ({args.ref_rows} rows, this process): {t_ref:8.2f} s  "
          f"{args.ref_rows / t_ref:12.0f} rows/s")
    print(f"ratio rows/s dask / in memory: {(n / t) / (args.ref_rows / t_ref):.2f}")
    print(f"held-out check: |prediction difference| on the reference rows "
          f"{np.abs(model.predict(Xr[:1000]) - ref.predict(Xr[:1000])).max():.2e} "
          f"(different data sizes, so not 0)")


if __name__ == "__main__":
    main()
