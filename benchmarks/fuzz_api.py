"""API fuzz campaign: extreme values, wrong types and absurd sizes on the public API.

Every case calls one public function with one hostile argument (the others
ordinary) in a worker process with a memory cap, and is classified as

- ``ok``: returned, every float in the result finite;
- ``error``: raised ``ValueError`` or ``TypeError`` (the contract);
- ``SILENT-NONFINITE``: returned a NaN or inf without raising;
- ``OTHER-EXCEPTION``: raised anything else (MemoryError, AttributeError, ...);
- ``HANG``: did not finish within ``--timeout`` seconds (the worker is killed
  and restarted);
- ``CRASH``: the worker died (segfault, killed by the memory cap).

The floor (issue 11): 0 SILENT-NONFINITE, 0 HANG, 0 CRASH, 0 OTHER-EXCEPTION.

Issue 21 adds one case per API finding (``--issue21`` runs only those), each
with the behaviour the issue asks for, and classifies further:

- ``ALLOC-ABOVE-LIMIT``: a ``MemoryError``, or a peak (``tracemalloc``: numpy's
  allocations) above the documented 2**28 float64 entries (2 GiB); these cases
  run with an address-space cap of the worker's size after import + 3 GiB, so
  an unbounded allocation fails at once instead of filling the machine;
- ``REFUSED-VALID``: ``ValueError``/``TypeError`` where the call must work;
- ``ACCEPTED-INVALID``: returned where a ``ValueError``/``TypeError`` is due;
- ``WRONG-MESSAGE``: the error does not name the parameter at fault;
- ``WARNED``: a ``RuntimeWarning`` before the error (or the result);
- ``pass``: the behaviour asked for.

They print as a table (case, finding, expected, verdict, detail) and a summary.

Usage::

    python benchmarks/fuzz_api.py [--timeout 60] [--mem-gb 6] [--only PREFIX] [--list]
                                  [--issue21]

Prints one line per case that breaks the floor and a summary; exit status 1
if any case breaks it.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
import traceback
import warnings

import numpy as np

# --------------------------------------------------------------------------- values
HUGE_INTS = [2 ** 31 + 1, 2 ** 40, 2 ** 63, 2 ** 64, 10 ** 30]
BAD_INTS = [-1, 0, True, 2.5, "3", None, 1 + 0j, np.float64(3.0), [3]]
BAD_REALS = [0.0, -1.0, float("inf"), float("nan"), True, 1 + 1j, np.complex128(1 + 0j), "1",
             None, [1.0, float("nan")], np.array([[1.0]])]
EXTREME_REALS = [1e-320, 1e-300, 1e-150, 1e150, 1e200, 1e300, 1.7e308]
W_GOOD = [[0.1, -0.3], [0.7, 0.2], [-0.5, 0.9], [1.1, -1.2]]
X_GOOD = [[0.1, 0.2], [0.3, -0.1], [1.0, 0.5], [-0.4, 0.8], [0.0, 0.3], [0.6, -0.7]]


def _arrays(shape):
    """Hostile arrays of a given shape: extreme, non-finite, complex, bool, str, wrong rank."""
    base = np.full(shape, 0.5)
    out = []
    for v in [1e300, 1.7e308, -1.7e308, 1e-320, np.inf, np.nan]:
        out.append(np.full(shape, v))
    out += [base + 1j, base.astype(bool), base.astype(str), base.astype(object),
            base.ravel(), base[None], np.zeros((0,) + shape[1:]), [[1, 2], [3]], "abc", None]
    return out


# --------------------------------------------------------------------------- cases
def build_cases():
    import qmc_orff as q
    from qmc_orff.generators import Halton, Lattice, Sobol, cbc_lattice, worst_case_error
    from qmc_orff.objectives.weights import solve_weights_qp as _qp

    cases = []

    def add(label, fn):
        cases.append((label, fn))

    # engines: constructors, sizes, keywords
    for E in (Halton, Sobol, Lattice):
        name = E.__name__
        for d in BAD_INTS + HUGE_INTS:
            add(f"{name}(d={d!r})", lambda E=E, d=d: E(d).random(2))
        for n in BAD_INTS + HUGE_INTS:
            add(f"{name}.random({n!r})", lambda E=E, n=n: E(2).random(n))
            add(f"{name}.fast_forward({n!r})", lambda E=E, n=n: E(2).fast_forward(n).random(1))
            add(f"{name}.integers(n={n!r})", lambda E=E, n=n: E(2).integers(4, n=n))
        for r in [-1, 1.5, "x", True, np.random.RandomState(0), object(), 2 ** 200]:
            add(f"{name}(rng={r!r})", lambda E=E, r=r: E(2, rng=r).random(2))
            add(f"{name}(seed={r!r})", lambda E=E, r=r: E(2, seed=r).random(2))
        add(f"{name} fast_forward 2**64-2", lambda E=E: E(2).fast_forward(2 ** 64 - 2).random(1))
        add(f"{name} fast_forward 2**63-1", lambda E=E: E(2).fast_forward(2 ** 63 - 1).random(1))
    for opt in ["toto", 1, None, "lloyd", "random-cd"]:
        add(f"Sobol(optimization={opt!r})", lambda o=opt: Sobol(2, optimization=o).random(8))
        add(f"Halton(optimization={opt!r})", lambda o=opt: Halton(2, optimization=o).random(8))
    for m in BAD_INTS + [31, 64, 65, 10 ** 12]:
        add(f"Sobol.random_base2({m!r})", lambda m=m: Sobol(2, scramble=False).random_base2(m))
        add(f"Sobol(bits=64).random_base2({m!r})",
            lambda m=m: Sobol(1, bits=64, scramble=False).random_base2(m))
    for b in BAD_INTS + [65, 2 ** 40]:
        add(f"Sobol(bits={b!r})", lambda b=b: Sobol(2, bits=b).random(2))
    for s in ["x", 1.5, True, [0.1], [0.1, 2.0], [0.1, np.nan], [0.1 + 1j, 0.2]]:
        add(f"Lattice(shift={s!r})", lambda s=s: Lattice(2, shift=s).random(2))
    for nm in BAD_INTS + HUGE_INTS:
        add(f"Lattice(n_max={nm!r})", lambda nm=nm: Lattice(2, n_max=nm).random(2))

    # CBC
    for n in BAD_INTS + HUGE_INTS:
        add(f"cbc_lattice(n={n!r})", lambda n=n: cbc_lattice(n, 3))
    for d in BAD_INTS + [10 ** 9]:
        add(f"cbc_lattice(d={d!r})", lambda d=d: cbc_lattice(64, d))
    for w in BAD_REALS + EXTREME_REALS + [[1e300] * 3, [1e-320] * 3]:
        add(f"cbc_lattice(weights={w!r})", lambda w=w: cbc_lattice(64, 3, weights=w,
                                                                    return_error=True))
        add(f"worst_case_error(weights={w!r})", lambda w=w: worst_case_error([1, 3, 5], 64,
                                                                             weights=w))
    for a in BAD_INTS + [3, 14, 2 ** 40]:
        add(f"cbc_lattice(alpha={a!r})", lambda a=a: cbc_lattice(64, 3, alpha=a,
                                                                  return_error=True))

    # box discrepancy
    for b in BAD_REALS + EXTREME_REALS:
        add(f"BoxDiscrepancy(b={b!r})", lambda b=b: q.BoxDiscrepancy(b, d=2).value_and_grad(W_GOOD))
        add(f"BoxDiscrepancy(sigma={b!r})",
            lambda b=b: q.BoxDiscrepancy(1.0, sigma=b, d=2).value_and_grad(W_GOOD))
        add(f"BoxDiscrepancy(sigma={b!r}) value",
            lambda b=b: q.BoxDiscrepancy(1.0, sigma=b, d=2)(W_GOOD))
    for sig in [1e200, 1e-200]:
        add(f"BoxDiscrepancy(1.0, sigma={sig}, d=3).value_and_grad",
            lambda sig=sig: q.BoxDiscrepancy(1.0, sigma=sig, d=3).value_and_grad(
                np.random.default_rng(0).normal(size=(8, 3))))
    for kern in ["laplacian", "cauchy", "nope", 3, None]:
        add(f"BoxDiscrepancy(kernel={kern!r})",
            lambda k=kern: q.BoxDiscrepancy(2.0, kernel=k, d=2).value_and_grad(W_GOOD))
    for d in BAD_INTS + [2 ** 40]:
        add(f"BoxDiscrepancy(d={d!r})", lambda d=d: q.BoxDiscrepancy(1.0, d=d).constant())
    for W in _arrays((4, 2)):
        add(f"BoxDiscrepancy()(W={np.asarray(W, dtype=object).ravel()[:1]!r}..)",
            lambda W=W: q.BoxDiscrepancy(1.0, d=2).value_and_grad(W))
        add(f"BoxDiscrepancy.pair_matrix(W=..{type(W).__name__})",
            lambda W=W: q.BoxDiscrepancy(1.0, d=2).pair_matrix(W))
    for w in [np.full(4, 1e300), np.full(4, 1e160), np.full(4, 1e-320), np.full(4, np.inf),
              np.array([1.0, -1.0, 1.0, 1.0]), np.full(4, True), np.full(4, 1 + 1j), "abc",
              np.ones(3)]:
        add(f"BoxDiscrepancy(weights={np.asarray(w).ravel()[:1]!r})",
            lambda w=w: q.BoxDiscrepancy(1.0, d=2).value_and_grad(W_GOOD, w))
        add(f"BoxDiscrepancy value(weights={np.asarray(w).ravel()[:1]!r})",
            lambda w=w: q.BoxDiscrepancy(1.0, d=2)(W_GOOD, w))
    for s in BAD_INTS + HUGE_INTS:
        add(f"BoxDiscrepancy.expected_mc(s={s!r})",
            lambda s=s: q.BoxDiscrepancy(1.0, d=2).expected_mc(s))
    for X in _arrays((6, 2)):
        add(f"box_from_data(X={type(X).__name__})", lambda X=X: q.box_from_data(X))
    for f in BAD_REALS + [2.0, 1e-320]:
        add(f"box_from_data(fraction={f!r})", lambda f=f: q.box_from_data(X_GOOD, fraction=f))

    # weights
    obj = q.BoxDiscrepancy(1.0, d=2)
    for o in ["x", None, 3, obj]:
        add(f"optimal_weights(objective={o!r})", lambda o=o: q.optimal_weights(o, W_GOOD,
                                                                                solver="nnls"))
    for W in _arrays((4, 2)):
        add(f"optimal_weights(W=..{type(W).__name__})",
            lambda W=W: q.optimal_weights(obj, W, solver="nnls"))
    for sv in ["x", None, 1]:
        add(f"optimal_weights(solver={sv!r})", lambda sv=sv: q.optimal_weights(obj, W_GOOD,
                                                                                solver=sv))

    # design
    for fn_name in ["global_sequence", "greedy_sequence", "weighted_sequence", "lattice_sequence"]:
        fn = getattr(q, fn_name)
        kw = {"maxiter": 2} if fn_name in ("global_sequence", "greedy_sequence") else {}
        for s in BAD_INTS + HUGE_INTS:
            add(f"{fn_name}(s={s!r})", lambda fn=fn, s=s, kw=kw: fn(obj, s, **kw))
        for o in ["x", None, 3]:
            add(f"{fn_name}(objective={o!r})", lambda fn=fn, o=o, kw=kw: fn(o, 8, **kw))
        for d in [True, 2.5, -1, 3, 2 ** 40]:
            add(f"{fn_name}(d={d!r})", lambda fn=fn, d=d, kw=kw: fn(obj, 8, d=d, **kw))
    for c in BAD_INTS + HUGE_INTS:
        add(f"lattice_sequence(candidates={c!r})",
            lambda c=c: q.lattice_sequence(obj, 16, candidates=c))
    for sh in [[0.0, 0.0], [np.nan, 0.1], [1e308, 1e308], "x", [0.1 + 1j, 0.2], [True, False]]:
        add(f"lattice_sequence(shift={sh!r})", lambda sh=sh: q.lattice_sequence(obj, 16, shift=sh))

    # frequencies and feature maps
    for n in BAD_INTS + HUGE_INTS:
        add(f"make_frequencies(n_components={n!r})", lambda n=n: q.make_frequencies("gaussian", n, 2))
    for d in BAD_INTS + HUGE_INTS:
        add(f"make_frequencies(d={d!r})", lambda d=d: q.make_frequencies("gaussian", 8, d))
    for sig in BAD_REALS + EXTREME_REALS:
        add(f"make_frequencies(sigma={sig!r})",
            lambda sig=sig: q.make_frequencies("gaussian", 8, 2, sigma=sig))
        for seq in ["halton", "sobol", "lattice", "orf", "mc"]:
            add(f"FourierFeatures(sigma={sig!r}, sequence={seq})",
                lambda sig=sig, seq=seq: q.FourierFeatures(sigma=sig, n_components=8,
                                                           sequence=seq, seed=0)
                .fit(X_GOOD).transform(X_GOOD))
        add(f"ORFF(sigma={sig!r})", lambda sig=sig: q.ORFF("curl_free", sigma=sig, n_components=4,
                                                          seed=0).fit(X_GOOD).transform(X_GOOD))
    for kern in ["laplacian", "matern", "skewed_chi2"]:
        for X in _arrays((6, 2)):
            add(f"FourierFeatures({kern}).transform(X=..{np.asarray(X, dtype=object).ravel()[:1]!r})",
                lambda kern=kern, X=X: q.FourierFeatures(kern, n_components=8, seed=0)
                .fit(np.abs(np.asarray(X_GOOD))).transform(X))
    for X in _arrays((6, 2)):
        add(f"FourierFeatures.fit(X=..{np.asarray(X, dtype=object).ravel()[:1]!r})",
            lambda X=X: q.FourierFeatures(n_components=8, seed=0).fit(X).transform(X))
        add(f"ORFF.transform(X=..{np.asarray(X, dtype=object).ravel()[:1]!r})",
            lambda X=X: q.ORFF("curl_free", n_components=4, seed=0).fit(X_GOOD).transform(X))
        add(f"ORFF.fit(X=..{np.asarray(X, dtype=object).ravel()[:1]!r})",
            lambda X=X: q.ORFF("div_free", n_components=4, seed=0).fit(X).transform(X_GOOD))
    for nc in BAD_INTS + HUGE_INTS:
        add(f"FourierFeatures(n_components={nc!r})",
            lambda nc=nc: q.FourierFeatures(n_components=nc, seed=0).fit(X_GOOD).transform(X_GOOD))
        add(f"ORFF(n_components={nc!r})",
            lambda nc=nc: q.ORFF(n_components=nc, seed=0).fit(X_GOOD).transform(X_GOOD))
    for nu in BAD_REALS + EXTREME_REALS:
        add(f"FourierFeatures(matern, nu={nu!r})",
            lambda nu=nu: q.FourierFeatures("matern", nu=nu, n_components=8, seed=0)
            .fit(X_GOOD).transform(X_GOOD))
    for c in BAD_REALS + EXTREME_REALS:
        add(f"FourierFeatures(skewed_chi2, c={c!r})",
            lambda c=c: q.FourierFeatures("skewed_chi2", c=c, n_components=8, seed=0)
            .fit(np.abs(np.asarray(X_GOOD))).transform(np.abs(np.asarray(X_GOOD))))
    for A in [np.full((2, 2), 1e300), np.full((2, 2), np.nan), np.eye(2) + 1j, "x", np.eye(3),
              np.eye(2) * 1e-320]:
        add(f"ORFF(A=..{np.asarray(A).ravel()[:1]!r})",
            lambda A=A: q.ORFF("decomposable", A=A, n_components=4, seed=0)
            .fit(X_GOOD).transform(X_GOOD))

    # learning
    y_good = np.arange(12.0).reshape(6, 2)
    for y in _arrays((6, 2)):
        add(f"ORFFRidge(y=..{np.asarray(y, dtype=object).ravel()[:1]!r})",
            lambda y=y: q.ORFFRidge(q.ORFF("curl_free", n_components=4, seed=0))
            .fit(X_GOOD, y).predict(X_GOOD))
    for a in BAD_REALS + EXTREME_REALS:
        add(f"ORFFRidge(alpha={a!r})",
            lambda a=a: q.ORFFRidge(q.ORFF("curl_free", n_components=4, seed=0), alpha=a)
            .fit(X_GOOD, y_good).predict(X_GOOD))
    for X in _arrays((6, 2)):
        add(f"ORFFRidge.predict(X=..{np.asarray(X, dtype=object).ravel()[:1]!r})",
            lambda X=X: q.ORFFRidge(q.ORFF("curl_free", n_components=4, seed=0))
            .fit(X_GOOD, y_good).predict(X))
    for mi in BAD_INTS + HUGE_INTS:
        add(f"ORFFRidge(max_iter={mi!r})",
            lambda mi=mi: q.ORFFRidge(q.ORFF("curl_free", n_components=4, seed=0),
                                      solver="cg", max_iter=mi).fit(X_GOOD, y_good).predict(X_GOOD))

    # kernels (exact Gram matrices)
    from qmc_orff import kernels as K
    for sig in BAD_REALS + EXTREME_REALS:
        for kc in (K.Gaussian, K.Laplacian, K.CurlFree, K.DivFree):
            add(f"kernels.{kc.__name__}(sigma={sig!r})", lambda kc=kc, sig=sig: kc(sig)(X_GOOD))
        add(f"kernels.Matern(nu={sig!r})", lambda sig=sig: K.Matern(sig, 1.0)(X_GOOD))
    for X in _arrays((6, 2)):
        for kc in (K.Gaussian, K.Laplacian, K.CurlFree):
            add(f"kernels.{kc.__name__}()(X=..{np.asarray(X, dtype=object).ravel()[:1]!r})",
                lambda kc=kc, X=X: kc(1.0)(X))

    # weights QP on raw matrices
    for H in _arrays((4, 4)):
        add(f"solve_weights_qp(H=..{np.asarray(H, dtype=object).ravel()[:1]!r})",
            lambda H=H: _qp(H, np.ones(4)))
    for c in BAD_REALS + EXTREME_REALS:
        add(f"solve_weights_qp(constant={c!r})",
            lambda c=c: _qp(np.eye(4), np.ones(4), constant=c))

    # designs on extreme boxes
    for b in [1e-300, 1e-150, 1e150, 1e300]:
        for fn_name in ["global_sequence", "greedy_sequence", "weighted_sequence",
                        "lattice_sequence"]:
            fn = getattr(q, fn_name)
            kw = {"maxiter": 2} if fn_name in ("global_sequence", "greedy_sequence") else {}
            add(f"{fn_name}(BoxDiscrepancy(b={b}))",
                lambda fn=fn, b=b, kw=kw: fn(q.BoxDiscrepancy(b, d=2), 8, **kw).points)

    # metrics
    ff = q.FourierFeatures(n_components=8, seed=0)
    for ns in BAD_INTS + HUGE_INTS:
        add(f"gram_error(n_samples={ns!r})",
            lambda ns=ns: q.gram_error(ff.fit(X_GOOD), X_GOOD, n_samples=ns))
    for X in _arrays((6, 2)):
        add(f"gram_error(X=..{np.asarray(X, dtype=object).ravel()[:1]!r})",
            lambda X=X: q.gram_error(ff.fit(X_GOOD), X, n_samples=4))
    return cases


# --------------------------------------------------------------------------- issue 21
#: One allocation above this many bytes breaks the documented size policy (2**28 float64).
ALLOC_LIMIT_BYTES = 2 ** 28 * 8


def build_issue21_cases():
    """``(label, finding, expect, fn)`` for every API finding of issue 21.

    ``expect``: ``"ok"`` (must return, finite), ``"refuse"`` (ValueError/TypeError),
    ``"refuse:NAME"`` (... whose message names ``'NAME'``), ``"any"`` (either, but within
    the size policy).  Every case is also held to: no RuntimeWarning, no allocation above
    2**28 entries, no exception other than ValueError/TypeError, no NaN/inf.
    """
    import qmc_orff as q

    rng = np.random.default_rng(0)
    normal_1000 = rng.normal(size=(100, 1000))
    cases = []

    def add(label, finding, expect, fn):
        cases.append((label, finding, expect, fn))

    # High: the seedless default map on raw or high-dimensional data (sigma = 1)
    add("FourierFeatures().fit(normal 100 x 1000)", "H default map", "ok",
        lambda: q.FourierFeatures().fit(normal_1000).transform(normal_1000[:5]))
    add("FourierFeatures('matern').fit(normal 100 x 1000)", "H default map", "ok",
        lambda: q.FourierFeatures("matern").fit(normal_1000).transform(normal_1000[:5]))
    pixels = rng.integers(0, 256, size=(100, 784)).astype(np.float64)
    add("FourierFeatures().fit(pixels 0..255, d=784)", "H default map", "ok",
        lambda: q.FourierFeatures().fit(pixels).transform(pixels[:5]))
    unif = 40.0 * rng.uniform(size=(100, 20))
    add("FourierFeatures().fit(40 * uniform, d=20)", "H default map", "ok",
        lambda: q.FourierFeatures().fit(unif).transform(unif[:5]))
    for f in (1e-6, 1e6):
        Xf = f * rng.normal(size=(100, 8))
        add(f"FourierFeatures().fit({f:g} * normal, d=8)", "H default map", "ok",
            lambda Xf=Xf: q.FourierFeatures().fit(Xf).transform(Xf[:5]))
    X20 = 100.0 * rng.normal(size=(60, 20))
    add("ORFF().fit(100 * normal 60 x 20)", "H default map", "ok",
        lambda: q.ORFF().fit(X20).transform(X20[:3]))
    add("ORFFRidge().fit(100 * normal 60 x 20, y)", "H default map", "ok",
        lambda: q.ORFFRidge().fit(X20, X20 / 100.0).predict(X20[:3]))

    def pipeline():
        from sklearn.linear_model import Ridge
        from sklearn.pipeline import make_pipeline
        return make_pipeline(q.FourierFeatures(), Ridge()).fit(
            normal_1000, normal_1000[:, 0]).predict(normal_1000[:5])
    add("make_pipeline(FourierFeatures(), Ridge()), d=1000", "H default map", "ok", pipeline)

    # Medium: sizes of the adaptive designs and the operator objective
    X3 = rng.normal(size=(50, 3))
    add("adaptive_sequence(X, 2**40, sigma=2.0)", "M sizes", "refuse:s",
        lambda: q.adaptive_sequence(X3, 2 ** 40, sigma=2.0, maxiter=1))
    X40k = rng.normal(size=(40_100, 3))
    add("adaptive_sequence(X 40100 x 3, 8, n_train=40000)", "M sizes", "refuse:n_train",
        lambda: q.adaptive_sequence(X40k, 8, sigma=2.0, n_train=40_000, maxiter=1))
    X64 = rng.normal(size=(700, 64))
    add("adaptive_operator_sequence(X 700 x 64, 8) default sizes", "M sizes", "any",
        lambda: q.adaptive_operator_sequence(X64, 8, sigma=8.0, maxiter=1).points)
    X8k = rng.normal(size=(8000, 5))
    add("OperatorDataDiscrepancy(X 8000 x 5)(W)", "M sizes", "any",
        lambda: q.OperatorDataDiscrepancy(X8k)(rng.normal(size=(8, 5))))
    X200 = rng.normal(size=(200, 3))
    add("FourierFeatures(n_components=10**7).fit(200 x 3)", "M sizes", "any",
        lambda: q.FourierFeatures(n_components=10 ** 7).fit(X200).frequencies_[:2])

    # Medium: a failing checkpoint must not lose the run
    def failing_checkpoint():
        def checkpoint(seq):
            raise OSError(28, "No space left on device")
        return q.adaptive_sequence(X3, 8, sigma=2.0, maxiter=6, checkpoint=checkpoint,
                                   checkpoint_every=2).points
    add("adaptive_sequence(checkpoint raises OSError)", "M checkpoint", "ok", failing_checkpoint)

    # Medium: the data objective in optimal_weights
    W8 = rng.normal(size=(8, 3))
    add("optimal_weights(DataDiscrepancy(X), W)", "M data weights", "ok",
        lambda: q.optimal_weights(q.DataDiscrepancy(X3), W8, solver="nnls").weights)

    # Low: silent NaN/inf of the data objectives
    for what, make in [("DataDiscrepancy", lambda X: q.DataDiscrepancy(X)),
                       ("OperatorDataDiscrepancy", lambda X: q.OperatorDataDiscrepancy(X))]:
        add(f"{what}(1e300 * X)(W)", "L data NaN", "refuse",
            lambda make=make: make(1e300 * X3)(W8))
        add(f"{what}(X)(1e300 * W)", "L data NaN", "refuse",
            lambda make=make: make(X3)(1e300 * W8))
        add(f"{what}(X)(W, weights=1e300)", "L data NaN", "refuse",
            lambda make=make: make(X3)(W8, np.full(8, 1e300)))
        add(f"{what}(X).value_and_grad(W, weights=1e200)", "L data NaN", "refuse",
            lambda make=make: make(X3).value_and_grad(W8, np.full(8, 1e200)))

    # Low: warnings before the error, messages naming the wrong thing, complex init
    add("FourierFeatures(8).fit_transform(full((2, 3), 1e308))", "L warnings", "refuse:X",
        lambda: q.FourierFeatures(n_components=8).fit_transform(np.full((2, 3), 1e308)))
    add("adaptive_sequence(X, 8, sigma=1e-300)", "L message", "refuse:sigma",
        lambda: q.adaptive_sequence(X3, 8, sigma=1e-300, maxiter=1))
    add("adaptive_sequence(init=complex array)", "L complex init", "refuse:init",
        lambda: q.adaptive_sequence(X3, 8, sigma=2.0, init=W8 + 1j, maxiter=1))

    # Low: partial_fit with a batch of zero weights after good batches
    def zero_weight_batch():
        Xb, yb = rng.normal(size=(30, 3)), rng.normal(size=(30, 3))
        r = q.ORFFRidge(q.ORFF(n_components=16, seed=0))
        r.partial_fit(Xb, yb)
        r.partial_fit(Xb, yb, sample_weight=np.zeros(30))
        return r.predict(Xb[:3])
    add("ORFFRidge.partial_fit(zero weights after a good batch)", "L partial_fit", "ok",
        zero_weight_batch)

    # Low: cbc_lattice beyond its memory, thread counts above the pool
    add("cbc_lattice(2**31, 1)", "L cbc size", "refuse:n", lambda: q.cbc_lattice(2 ** 31, 1))
    add("worst_case_error([1], 2**31)", "L cbc size", "refuse:n",
        lambda: q.worst_case_error([1], 2 ** 31))

    def many_threads():
        import numba
        n = 4 * numba.config.NUMBA_NUM_THREADS
        try:
            q.set_num_threads(n)
            return q.get_num_threads()
        finally:
            q.set_num_threads(None)
    add("set_num_threads(4 * NUMBA_NUM_THREADS)", "L threads", "ok", many_threads)
    return cases


def _vm_bytes():
    """Address space of this process (VmSize), or 0 where /proc is missing."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _issue21_verdict(expect, res, exc, warned, peak):
    """The verdict of one issue-21 case (see the module docstring)."""
    if isinstance(exc, MemoryError) or peak > ALLOC_LIMIT_BYTES:
        return "ALLOC-ABOVE-LIMIT"
    if exc is not None and not isinstance(exc, (ValueError, TypeError)):
        return "OTHER-EXCEPTION"
    if warned:
        return "WARNED"
    if exc is None:
        if _nonfinite(res):
            return "SILENT-NONFINITE"
        return "ACCEPTED-INVALID" if expect.startswith("refuse") else "pass"
    if expect == "ok":
        return "REFUSED-VALID"
    if expect.startswith("refuse:") and f"'{expect[7:]}'" not in str(exc):
        return "WRONG-MESSAGE"
    return "pass"


def _run_issue21_case(fn, expect):
    import tracemalloc

    exc = res = None
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        tracemalloc.start()
        try:
            res = fn()
        except BaseException as e:  # noqa: BLE001 - classified, not swallowed
            exc = e
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    warned = [w for w in record if issubclass(w.category, RuntimeWarning)]
    kind = _issue21_verdict(expect, res, exc, warned, peak)
    if exc is not None:
        detail = f"{type(exc).__name__}: {exc}".splitlines()[0]
    else:
        detail = "returned"
    if warned:
        detail = f"{len(warned)} RuntimeWarning ({warned[0].message}); " + detail
    if peak > 2 ** 27:
        detail += f"; peak {peak / 2 ** 30:.2f} GiB"
    return kind, detail


# --------------------------------------------------------------------------- running
def _nonfinite(obj, depth=0):
    """True if a float anywhere in ``obj`` (arrays, numbers, tuples, results) is NaN/inf."""
    if depth > 4:
        return False
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in "fc":
            return not bool(np.all(np.isfinite(obj)))
        if obj.dtype.kind == "O":
            return any(_nonfinite(v, depth + 1) for v in obj.flat)
        return False
    if isinstance(obj, (float, np.floating, complex, np.complexfloating)):
        return not np.isfinite(obj)
    if isinstance(obj, (tuple, list)):
        return any(_nonfinite(v, depth + 1) for v in obj)
    if isinstance(obj, dict):
        return any(_nonfinite(v, depth + 1) for v in obj.values())
    for attr in ("weights", "objective", "d2", "points", "W"):
        if hasattr(obj, attr) and not callable(getattr(obj, attr)):
            try:
                if _nonfinite(getattr(obj, attr), depth + 1):
                    return True
            except Exception:  # noqa: BLE001 - a property that raises is not NaN
                pass
    return False


def _worker(conn, mem_gb, only, issue21=False):
    import resource
    if issue21:
        cases = [c for c in build_issue21_cases() if only is None or c[0].startswith(only)]
        base = _vm_bytes()  # after importing the library and building the cases' data
        if base:
            lim = base + 3 * 2 ** 30
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
        conn.send(len(cases))
        while True:
            i = conn.recv()
            if i is None:
                return
            label, finding, expect, fn = cases[i]
            conn.send(label)
            t0 = time.perf_counter()
            kind, detail = _run_issue21_case(fn, expect)
            conn.send((label, kind, detail[:300], time.perf_counter() - t0))
    if mem_gb:
        lim = int(mem_gb * 2 ** 30)
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    cases = [c for c in build_cases() if only is None or c[0].startswith(only)]
    conn.send(len(cases))
    while True:
        i = conn.recv()
        if i is None:
            return
        label, fn = cases[i]
        conn.send(label)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                res = fn()
                kind = "SILENT-NONFINITE" if _nonfinite(res) else "ok"
                detail = ""
            except (ValueError, TypeError) as exc:
                kind, detail = "error", f"{type(exc).__name__}: {exc}"
            except BaseException as exc:  # noqa: BLE001 - classified, not swallowed
                kind = "OTHER-EXCEPTION"
                detail = f"{type(exc).__name__}: {exc} | " + traceback.format_exc(limit=-2)[-400:]
        conn.send((label, kind, detail[:600], time.perf_counter() - t0))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per case (a hang)")
    ap.add_argument("--mem-gb", type=float, default=6.0, help="address-space cap of the worker")
    ap.add_argument("--only", default=None, help="run the cases whose label starts with this")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case")
    ap.add_argument("--issue21", action="store_true", help="run the issue-21 cases only")
    args = ap.parse_args(argv)
    if args.list:
        for label, _ in build_cases():
            print(label)
        for label, finding, expect, _ in build_issue21_cases():
            print(f"[issue 21, {finding}, expect {expect}] {label}")
        return 0
    bad21 = _run_issue21(args)
    if args.issue21:
        return 1 if bad21 else 0
    bad = _run_general(args)
    return 1 if bad or bad21 else 0


def _drive(args, issue21):
    """Run the cases in worker processes (restarted after a hang or a crash).

    Yields ``(label, kind, detail, seconds)`` per case.
    """
    ctx = mp.get_context("spawn")
    i, n_cases = 0, None
    while n_cases is None or i < n_cases:
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_worker, args=(child, args.mem_gb, args.only, issue21),
                           daemon=True)
        proc.start()
        if not parent.poll(300):
            raise RuntimeError("worker did not start")
        n_cases = parent.recv()
        while i < n_cases:
            parent.send(i)
            label = parent.recv()
            if parent.poll(args.timeout):
                try:
                    label, kind, detail, secs = parent.recv()
                except EOFError:
                    kind, detail, secs = "CRASH", "", 0.0
            else:
                kind, detail, secs = "HANG", f"> {args.timeout} s", args.timeout
            if not proc.is_alive() and kind not in ("HANG",):
                kind = "CRASH" if kind in ("ok", "pass") else kind
            yield label, kind, detail, secs
            i += 1
            if kind in ("HANG", "CRASH"):
                proc.kill()
                proc.join()
                break
        else:
            parent.send(None)
            proc.join(10)


def _run_issue21(args):
    """The issue-21 cases as a table and a summary; returns the labels that fail."""
    meta = {label: (finding, expect) for label, finding, expect, _ in build_issue21_cases()}
    t_start = time.perf_counter()
    rows = []
    print(f"{'issue 21 case':56s} {'finding':15s} {'expected':15s} {'verdict':18s} detail")
    for label, kind, detail, secs in _drive(args, True):
        finding, expect = meta[label]
        rows.append((label, finding, kind))
        print(f"{label[:56]:56s} {finding:15s} {expect:15s} {kind:18s} {detail[:140]} "
              f"({secs:.1f} s)", flush=True)
    counts = {}
    for _, _, kind in rows:
        counts[kind] = counts.get(kind, 0) + 1
    bad = [label for label, _, kind in rows if kind != "pass"]
    print(f"\nissue 21: {len(rows)} cases in {time.perf_counter() - t_start:.0f} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    by_finding = {}
    for _, finding, kind in rows:
        ok, n = by_finding.get(finding, (0, 0))
        by_finding[finding] = (ok + (kind == "pass"), n + 1)
    print("  by finding: " + "; ".join(f"{f} {ok}/{n}" for f, (ok, n) in by_finding.items()))
    print("ISSUE 21 FLOOR " + ("MET" if not bad else f"BROKEN by {len(bad)} cases") + "\n")
    return bad


def _run_general(args):
    """The general campaign (issue 11): one line per case that breaks the floor, a summary."""
    counts = {}
    bad = []
    slowest = (0.0, "")
    t_start = time.perf_counter()
    for label, kind, detail, secs in _drive(args, False):
        counts[kind] = counts.get(kind, 0) + 1
        slowest = max(slowest, (secs, label))
        if kind not in ("ok", "error") or args.verbose:
            print(f"[{kind}] {label} ({secs:.1f} s) {detail}", flush=True)
            if kind not in ("ok", "error"):
                bad.append(label)
    total = sum(counts.values())
    print(f"\n{total} cases in {time.perf_counter() - t_start:.0f} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print(f"slowest case: {slowest[1]} ({slowest[0]:.1f} s)")
    print("FLOOR " + ("MET" if not bad else f"BROKEN by {len(bad)} cases"))
    return bad


if __name__ == "__main__":
    sys.exit(main())
