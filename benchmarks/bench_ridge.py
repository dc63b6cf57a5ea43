"""Benchmark of ORFFRidge's everyday paths (issue 13, item 5).

1. ``predict`` on 10^6 rows (d = 8, s = 256 frequencies, scalar Gaussian kernel,
   p = 1): peak extra memory (tracemalloc; numpy reports its buffers) and time,
   batched (the default: ``min(64, working_memory)`` MiB of features per batch)
   against one batch (``batch_size=n``, what ``predict`` did before: the whole
   ``(n, 2 s)`` feature matrix).  The one-batch reference runs at 10^5 rows
   (410 MB of features; 10^6 rows would take 4 GB) and the comparison is per row.
   Floor: peak extra memory under 500 MB at 10^6 rows.
2. ``fit`` on 10^6 rows: the statistics are accumulated in batches, so the
   peak is ``O(batch s + s^2)``, not the feature matrix.
3. ``fit_intercept``: held-out R^2 with an offset of 100 on the target.
   Floor: R^2 >= 0.99 with the intercept.

Run: ``python benchmarks/bench_ridge.py [--quick]``.  Timings are wall-clock on
a shared machine: compare the ratios printed in one run.
"""
from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np

from qmc_orff import ORFF, ORFFRidge


def measure(fn):
    """(seconds, peak traced bytes, result)."""
    tracemalloc.start()
    t0 = time.perf_counter()
    out = fn()
    t = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return t, peak, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^5 rows instead of 10^6")
    args = parser.parse_args()
    n = 10**5 if args.quick else 10**6
    n_ref = min(n, 10**5)
    d, s = 8, 256
    print(f"load: {os.getloadavg()}")
    rng = np.random.default_rng(0)
    Xtr = rng.uniform(-1, 1, (2000, d))
    ytr = np.sin(Xtr.sum(axis=1))
    model = ORFFRidge(ORFF(sigma=2.0, n_components=s, seed=0), alpha=1e-3).fit(Xtr, ytr)
    model.predict(Xtr[:10])  # warm up
    X = rng.uniform(-1, 1, (n, d))
    x_bytes = X.nbytes  # the validated float64 copy predict may make

    print(f"== predict: {n} rows, d={d}, s={s} (features {n * 2 * s * 8 / 2**20:.0f} MiB) ==")
    t_b, peak_b, pred = measure(lambda: model.predict(X))
    model_one = ORFFRidge(ORFF(sigma=2.0, n_components=s, seed=0), alpha=1e-3,
                          batch_size=n_ref).fit(Xtr, ytr)
    t_1, peak_1, pred_1 = measure(lambda: model_one.predict(X[:n_ref]))
    assert np.allclose(pred[:n_ref], pred_1, rtol=1e-12, atol=1e-12)
    print(f"batched   : {n} rows  {t_b:7.3f} s  {n / t_b:12.0f} rows/s  "
          f"peak {peak_b / 2**20:8.1f} MiB  (input copy {x_bytes / 2**20:.0f} MiB)")
    print(f"one batch : {n_ref} rows  {t_1:7.3f} s  {n_ref / t_1:12.0f} rows/s  "
          f"peak {peak_1 / 2**20:8.1f} MiB")
    print(f"ratio rows/s batched / one batch: {(n / t_b) / (n_ref / t_1):.2f};  "
          f"peak at {n} rows: {peak_b / 2**20:.0f} MiB (floor < 500 MB: "
          f"{'ok' if peak_b < 500e6 else 'FAIL'})")

    print(f"== fit: {n} rows ==")
    y = np.sin(X.sum(axis=1))
    t_f, peak_f, _ = measure(lambda: ORFFRidge(ORFF(sigma=2.0, n_components=s, seed=0),
                                               alpha=1e-3).fit(X, y))
    print(f"fit       : {t_f:7.3f} s  {n / t_f:12.0f} rows/s  peak {peak_f / 2**20:8.1f} MiB "
          f"(features would be {n * 2 * s * 8 / 2**20:.0f} MiB)")

    print("== fit_intercept: target offset by 100, held-out R^2 ==")
    Xa, Xb = rng.uniform(-1, 1, (500, 2)), rng.uniform(-1, 1, (5000, 2))

    def f(Z):
        return np.sin(2 * Z[:, 0]) * np.cos(Z[:, 1]) + 100.0

    for fi in (True, False):
        r2 = ORFFRidge(ORFF(sigma=1.0, n_components=64, seed=0), alpha=1e-3,
                       fit_intercept=fi).fit(Xa, f(Xa)).score(Xb, f(Xb))
        print(f"fit_intercept={fi!s:5}: R^2 = {r2:.4f}")


if __name__ == "__main__":
    main()
