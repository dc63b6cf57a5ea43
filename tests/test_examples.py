"""Tests of the example scripts (examples/) and their shared helpers.

The helpers (Gram errors, spectral norms, data loading, CSV round trip, the
RESULTS.md generator) are tested directly and fast.  Each example script is run
end to end with ``--quick`` in a subprocess writing into a temporary folder
(marked ``examples``; about 50 s together on two cores, so they stay in the
default run: ``pytest -m "not examples"`` leaves them out).
"""
from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(EXAMPLES))

import _common as C  # noqa: E402
import make_results  # noqa: E402


# --------------------------------------------------------------------------- helpers
def test_sym_spectral_norm_dense_and_eigsh_agree():
    rng = np.random.default_rng(11)
    n = C.DENSE_EIG_MAX_N + 1  # just above the dense/ARPACK switch
    B = rng.standard_normal((n, 40))
    A = B @ B.T / 40 - np.diag(rng.random(n))  # indefinite, largest |eig| positive
    A[0, 0] -= 200.0  # now the largest |eigenvalue| is negative
    dense = C.sym_spectral_norm(A, method="dense")
    arpack = C.sym_spectral_norm(A, method="eigsh")
    assert dense > 199.0
    assert arpack == pytest.approx(dense, rel=1e-9)
    assert C.sym_spectral_norm(A) == pytest.approx(dense, rel=1e-9)  # auto -> eigsh for n > 1000


def test_sym_spectral_norm_rejects_unknown_method():
    with pytest.raises(ValueError, match="'method' must be one of 'auto', 'dense', 'eigsh'; got 'svd'"):
        C.sym_spectral_norm(np.eye(3), method="svd")


def test_gaussian_gram_matches_scikit_learn():
    from sklearn.metrics.pairwise import rbf_kernel

    X = np.random.default_rng(3).standard_normal((50, 7)) * 3
    sigma = 2.5
    np.testing.assert_allclose(C.gaussian_gram(X, sigma), rbf_kernel(X, gamma=1 / (2 * sigma ** 2)),
                               rtol=1e-12, atol=1e-14)
    assert np.all(np.diag(C.gaussian_gram(X, sigma)) == 1.0)


def test_gram_reference_errors_against_direct_computation():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((80, 3))
    ref = C.GramReference(X, 1.3)
    Z = rng.standard_normal((80, 10)) * 0.3
    spec, fro = ref.errors(Z)
    K = C.gaussian_gram(X, 1.3)
    E = Z @ Z.T - K
    assert fro == pytest.approx(np.linalg.norm(E) / np.linalg.norm(K), rel=1e-12)
    assert spec == pytest.approx(np.linalg.norm(E, 2) / np.linalg.norm(K, 2), rel=1e-10)
    spec2, fro2 = ref.errors(Z, spectral=False)
    assert np.isnan(spec2) and fro2 == fro
    # exact features of a rank-revealing factorisation give zero error
    w, V = np.linalg.eigh(K)
    spec0, fro0 = ref.errors(V * np.sqrt(np.clip(w, 0, None)))
    assert fro0 < 1e-12 and spec0 < 1e-12
    with pytest.raises(ValueError, match="'Z' must have 80 rows"):
        ref.errors(Z[:5])


def test_median_heuristic_brute_force():
    X = np.random.default_rng(1).standard_normal((31, 4))
    dists = [np.linalg.norm(X[i] - X[j]) for i in range(31) for j in range(i + 1, 31)]
    assert C.median_heuristic(X) == pytest.approx(np.median(dists), rel=1e-14)


def test_load_dataset_shapes_and_standardisation():
    X, y, info = C.load_dataset("diabetes")
    assert X.shape == (442, 10) and y.shape == (442,)
    np.testing.assert_allclose(X.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(X.std(axis=0), 1, rtol=1e-12)
    X2, _, info2 = C.load_dataset("digits", n_max=100, pca=5, seed=2)
    assert X2.shape == (100, 5) and info2["d"] == 5 and "PCA to 5" in info2["description"]
    with pytest.raises(ValueError, match="'name' must be one of 'mnist', 'mnist_raw', 'digits'"):
        C.load_dataset("cifar")


def test_csv_round_trip_and_summarize(tmp_path):
    rows = [{"method": "mc", "s": 4, "err": 0.25}, {"method": "mc", "s": 4, "err": 0.75},
            {"method": "halton", "s": 4, "err": 0.125}]
    path = C.write_csv(tmp_path / "x.csv", rows)
    back = C.read_csv(path)
    assert back == rows
    summ = {r["method"]: r for r in C.summarize(back, ["method", "s"], ["err"])}
    assert summ["mc"]["err_mean"] == 0.5 and summ["mc"]["reps"] == 2
    assert summ["mc"]["err_std"] == pytest.approx(np.std([0.25, 0.75], ddof=1))
    assert summ["halton"]["err_std"] == 0.0


def test_centred_kernel_ridge_is_the_limit_of_ridge_on_features():
    """regression.py's exact reference is the limit of Ridge(fit_intercept=True) on features."""
    import regression
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.linear_model import Ridge

    import qmc_orff

    rng = np.random.default_rng(7)
    X = rng.standard_normal((160, 3))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 + 5.0 + 0.1 * rng.standard_normal(160)
    Xtr, Xte, ytr = X[:120], X[120:], y[:120]
    exact = regression.exact_centred_krr_predict(Xtr, ytr, Xte, 1.5, 0.1)
    scale = np.linalg.norm(exact - ytr.mean())

    def gap(s):
        ff = qmc_orff.FourierFeatures(sigma=1.5, n_components=s, sequence="halton",
                                      scramble="deterministic")
        pred = Ridge(alpha=0.1).fit(ff.fit_transform(Xtr), ytr).predict(ff.transform(Xte))
        return np.linalg.norm(pred - exact) / scale

    assert gap(4096) < 0.01
    assert gap(4096) < gap(64) / 5  # converges as features are added
    # and it is not the uncentred kernel ridge (the intercept matters here)
    plain = KernelRidge(alpha=0.1, kernel="rbf", gamma=1 / (2 * 1.5 ** 2)).fit(Xtr, ytr)
    assert np.linalg.norm(plain.predict(Xte) - exact) / scale > 0.1


def test_data_box_kinds():
    X = np.array([[0.0, 1.0], [2.0, 1.5], [4.0, 3.0]])
    np.testing.assert_allclose(C.data_box(X), [4.0, 2.0])
    np.testing.assert_allclose(C.data_box(X, 0.25), [1.0, 0.5])
    np.testing.assert_allclose(C.data_box(X, kind="moment"), np.sqrt(6 * X.var(axis=0)))
    with pytest.raises(ValueError, match="'kind' must be one of 'range', 'moment'; got 'iqr'"):
        C.data_box(X, kind="iqr")


def test_catalogue_helpers():
    assert C.catalogue_dimension(10) == 16
    assert C.catalogue_dimension(16) == 16
    assert C.catalogue_dimension(17) is None
    assert C.catalogue_dimension(64) is None
    assert C.log_nearest(0.7, C.CATALOGUE_BOXES) == 0.5
    assert C.log_nearest(0.74, C.CATALOGUE_BOXES) == 1.0  # log-nearest, not nearest
    assert C.log_nearest(100.0, C.CATALOGUE_BOXES) == 1.0


def test_make_results_uses_only_files(tmp_path):
    """RESULTS.md is assembled from the CSV/JSON files; a missing script is listed as not run."""
    rows = [{"dataset": "digits", "n": 10, "d": 2, "sigma": 1.0, "method": m, "s": 64,
             "columns": 128, "rep": r, "rel_spectral": v / 2, "rel_frobenius": v,
             "features_s": 0.0}
            for m, r, v in [("rbf_sampler", 0, 0.1234), ("rbf_sampler", 1, 0.1434),
                            ("mc", 0, 0.2), ("halton", 0, 0.05)]]
    C.write_csv(tmp_path / "gram_approximation.csv", rows)
    meta = {"name": "gram_approximation", "command": "python examples/gram_approximation.py --x",
            "quick": True, "started_utc": "now", "wall_s": 1.0, "notes": ["a note"],
            "params": {"datasets": {"digits": {"description": "desc", "n": 10, "d": 2,
                                               "sigma": 1.0, "catalogue_box_over_sigma": 1.0}}},
            "environment": {"python": "3"}}
    (tmp_path / "gram_approximation.json").write_text(json.dumps(meta))
    out = make_results.build(tmp_path, tmp_path / "RESULTS.md")
    text = out.read_text()
    assert "python examples/gram_approximation.py --x" in text
    assert "0.1334 ± 0.014" in text  # mean ± std of the two RBFSampler rows
    assert "128 columns: here 0.133, reference 0.110" in text
    assert "| Halton | 4.00 |" in text  # MC / Halton error ratio at s=64
    assert "a note" in text and "--quick" in text
    assert "`regression`" in text  # listed under "Not run"


def test_split_train_eval_is_a_seeded_partition():
    X = np.arange(60.0).reshape(30, 2)
    tr, ev = C.split_train_eval(X, 8, seed=3)
    assert ev.shape == (8, 2) and tr.shape == (22, 2)
    rows = sorted(map(tuple, np.vstack([tr, ev])))
    assert rows == sorted(map(tuple, X))  # disjoint and complete
    assert not set(map(tuple, tr)) & set(map(tuple, ev))
    assert np.all(np.diff(tr[:, 0]) > 0) and np.all(np.diff(ev[:, 0]) > 0)  # row order kept
    tr2, ev2 = C.split_train_eval(X, 8, seed=3)
    np.testing.assert_array_equal(ev, ev2)
    assert not np.array_equal(ev, C.split_train_eval(X, 8, seed=4)[1])
    assert C.split_train_eval(X, 100)[1].shape == (10, 2)  # at most a third
    with pytest.raises(ValueError, match="at least 6 rows"):
        C.split_train_eval(X[:5], 2)


def test_load_mnist_raw_pixels():
    X, y, info = C.load_dataset("mnist_raw", n_max=300, seed=1)
    assert X.shape[0] == 300 and y.shape == (300,)
    assert 300 < X.shape[1] < 784 and info["d"] == X.shape[1]
    assert X.min() >= 0.0 and X.max() <= 1.0  # raw pixels / 255: no standardisation, no PCA
    assert np.all(np.ptp(X, axis=0) > 0)  # constant pixels dropped
    assert "no PCA" in info["description"]
    Xall, _, _ = C.load_dataset("mnist_raw")
    assert Xall.shape == (5000, 663)


def test_gram_reference_agrees_with_qmc_orff_gram_error():
    """The examples' cached Gram reference gives qmc_orff.gram_error's numbers (both norms)."""
    import qmc_orff

    rng = np.random.default_rng(4)
    Xtr, Xev = rng.standard_normal((50, 5)), rng.standard_normal((40, 5))
    ff = qmc_orff.FourierFeatures(sigma=1.7, n_components=32, sequence="orf", seed=0).fit(Xtr)
    spec, fro = C.GramReference(Xev, 1.7).errors(ff.transform(Xev))
    assert fro == pytest.approx(qmc_orff.gram_error(ff, Xev), rel=1e-12)
    assert spec == pytest.approx(qmc_orff.gram_error(ff, Xev, norm="spectral"), rel=1e-10)


def test_nystroem_method_uses_2s_landmarks_from_training_rows():
    fac = C.FrequencyFactory(d=3, sigma=1.5, b=np.ones(3), n_train=50)
    X = np.random.default_rng(0).standard_normal((50, 3))
    tr = fac.transformer("nystroem", 8, seed=0).fit(X)
    assert tr.transform(X[:4]).shape == (4, 16) and tr.gamma == pytest.approx(1 / (2 * 1.5 ** 2))
    assert tr.components_.shape == (16, 3)
    assert all(any(np.array_equal(c, x) for x in X) for c in tr.components_)  # landmarks: rows
    assert fac.transformer("nystroem", 40, seed=0).n_components == 50  # capped at n_train
    assert "nystroem" in C.RANDOMIZED and "nystroem" in C.DATA_DEPENDENT


def test_make_results_ratios_to_orf_and_carry_over(tmp_path):
    rows = [{"dataset": "digits", "n": 30, "d": 2, "sigma": 1.0, "n_train": 20, "n_eval": 10,
             "method": m, "s": 256, "columns": 512, "rep": 0, "rel_spectral": v / 2,
             "rel_frobenius": v, "fit_s": 0.0}
            for m, v in [("orf", 0.02), ("halton", 0.05), ("nystroem", 0.004),
                         ("rbf_sampler", 0.06), ("mc", 0.04)]]
    C.write_csv(tmp_path / "gram_approximation.csv", rows)
    meta = {"name": "gram_approximation", "command": "python examples/gram_approximation.py",
            "quick": False, "started_utc": "now", "wall_s": 1.0, "notes": [],
            "params": {"datasets": {"digits": {"description": "desc", "n": 30, "d": 2,
                                               "n_train": 20, "n_eval": 10, "sigma": 1.0,
                                               "catalogue_box_over_sigma": 1.0}}},
            "environment": {"python": "3"}}
    (tmp_path / "gram_approximation.json").write_text(json.dumps(meta))
    old = tmp_path / "RESULTS.md"
    old.write_text("# Results\n\n## At a glance\n\n- Vector fields (x): old line 1.5.\n"
                   "- Gram error at s = 256 (512 columns), digits: stale.\n\n"
                   f"## {make_results.TITLES['vector_fields']}\n\nCommand: `old`\n\n| a |\n\n"
                   f"## {make_results.TITLES['gram_approximation']}\n\nstale numbers 9.99\n")
    text = make_results.build(tmp_path, old, carry_over=True).read_text()
    assert "(20 training rows, 10 held-out evaluation rows" in text
    assert "divided by ORF's" in text and "| Halton | 2.5 |" in text
    assert "| sklearn Nystroem (2s landmarks) | 0.2 |" in text
    assert "digits (held-out rows): ORF 0.02" in text and "Nystroem 0.004 (0.2x ORF)" in text
    # the rerun section is regenerated, the one not rerun is carried over with its glance line
    assert "stale" not in text and "9.99" not in text
    assert "- Vector fields (x): old line 1.5." in text
    assert make_results.CARRIED in text and "Command: `old`" in text
    assert "`regression`" in text  # absent from both: listed as not run
    # without carry_over, scripts with no output are listed as not run
    assert make_results.CARRIED not in make_results.build(tmp_path, tmp_path / "new.md").read_text()


# --------------------------------------------------------------------------- scripts
def run_script(name, tmp_path, *extra, timeout=600):
    proc = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py"), "--quick",
                           "--out", str(tmp_path), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def check_outputs(tmp_path, name, columns, *, script=None):
    csv_path, png_path, json_path = (tmp_path / f"{name}.{ext}" for ext in ("csv", "png", "json"))
    assert csv_path.stat().st_size > 0 and png_path.stat().st_size > 1000
    assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with csv_path.open() as fh:
        rows = list(csv.DictReader(fh))
    assert rows, f"{name}.csv has no rows"
    assert set(columns) <= set(rows[0]), f"{name}.csv lacks {set(columns) - set(rows[0])}"
    meta = json.loads(json_path.read_text())
    assert meta["quick"] is True and meta["command"].startswith(f"python examples/{script or name}.py")
    return rows


def test_demo_quick_smoke(tmp_path):
    out = run_script("demo", tmp_path)
    assert "L2-star" in out and "rel_frobenius" in out and str(tmp_path) in out
    rows = check_outputs(tmp_path, "demo", ["s", "method", "rep", "rel_frobenius"])
    methods = {r["method"] for r in rows}
    assert {"default", "mc", "orf", "halton", "adaptive", "nystroem"} <= methods
    errs = [float(r["rel_frobenius"]) for r in rows]
    assert all(0 < e < 1 for e in errs)
    assert "ratio_to_orf" in out and "held-out" in out
    for ds in ("digits:pca8", "digits"):  # ratios to ORF's mean, per data set and s
        sub = [r for r in rows if r["dataset"] == ds]
        for s in {r["s"] for r in sub}:
            orf = np.mean([float(r["rel_frobenius"]) for r in sub
                           if r["s"] == s and r["method"] == "orf"])
            for r in sub:
                if r["s"] == s:
                    assert float(r["ratio_to_orf"]) == pytest.approx(float(r["rel_frobenius"]) / orf)
    high = C.read_csv(tmp_path / "demo_high_dim.csv")
    assert {r["method"] for r in high} >= {"default", "orf", "halton", "adaptive", "nystroem"}
    meta = json.loads((tmp_path / "demo.json").read_text())
    assert meta["params"]["n_eval"] + meta["params"]["n_train"] == 1797


SCRIPTS = {
    "gram_approximation": ["dataset", "method", "s", "rep", "rel_spectral", "rel_frobenius"],
    "discrepancy_vs_error": ["dataset", "method", "design_box", "s", "D2_b", "D2_b/2", "D2_b/4",
                             "rel_frobenius"],
    "regression": ["dataset", "method", "design_box", "s", "rep", "test_rel_error"],
    "integration_error": ["method", "mse_quadrature_b", "normalized_D2_b"],
    "vector_fields": ["experiment", "field", "model", "D", "test_mse", "fit_seconds"],
    "operator_kernel_error": ["setting", "kernel", "measure", "sequence", "D", "rel_frobenius",
                              "max_pair_spectral"],
    "scrambling_ratio": ["dataset", "sequence", "s", "rep", "plain_error", "scrambled_error",
                         "ratio"],
    "orff_variance": ["kernel", "D", "series", "empirical_variance", "bound"],
    "curl_free_reconstruction": ["model", "D", "rep", "rmse"],
    "adaptive_iterations": ["dataset", "design_box", "iteration", "D2", "rel_frobenius",
                            "rel_spectral", "mean_sq_error", "max_sq_error"],
    "decomposable_rmse": ["N", "model", "noise", "rep", "lambda", "rmse"],
    "mnist_orff": ["experiment", "model", "D", "N", "test_error_pct", "fit_seconds"],
    "fig2_protocol": ["n", "protocol", "sigma_label", "method", "s", "rep", "rel_spectral",
                      "rel_frobenius"],
    "fig4_sweep": ["noise", "N", "tuning", "model", "sigma", "D", "rep", "sigma_value", "alpha",
                   "test_mse"],
    "classification": ["dataset", "method", "s", "rep", "test_error_pct"],
    "generation_time": ["what", "method", "rep", "seconds"],
}
#: Output name of a script whose outputs are named otherwise under --quick.
OUTPUT_OF = {"adaptive_iterations": "adaptive_iterations_global"}


@pytest.mark.examples
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_example_quick_run(name, tmp_path):
    run_script(name, tmp_path)
    rows = check_outputs(tmp_path, OUTPUT_OF.get(name, name), SCRIPTS[name], script=name)
    if name == "integration_error":
        # Theorem 12: the quadrature MSE over the box equals normalized(D^2) for every point set
        checked = 0
        for r in C.read_csv(tmp_path / "integration_error.csv"):
            if r["method"] != "mc-expected":
                assert r["mse_quadrature_b"] == pytest.approx(r["normalized_D2_b"], rel=1e-6)
                assert r["mse_quadrature_b/2"] == pytest.approx(r["normalized_D2_b/2"], rel=1e-6)
                checked += 1
        assert checked >= 4
    if name == "scrambling_ratio":
        for r in rows:
            assert float(r["ratio"]) == pytest.approx(float(r["scrambled_error"])
                                                      / float(r["plain_error"]))
        assert {r["sequence"] for r in rows} == {"halton RR2", "halton random", "sobol", "lattice"}
    if name == "orff_variance":
        # decomposable kernel: V[A] = 0 and the bound of Prop. C.1 is the exact variance,
        # (1/D)((1 + k(2 delta))/2 - k(delta)^2) ||A^2||_2, so it falls exactly like 1/D
        dec = {int(r["D"]): float(r["bound"]) for r in rows if r["kernel"] == "decomposable"}
        for D, b in dec.items():
            assert b * D == pytest.approx(dec[1] * 1, rel=1e-12)
    if name == "adaptive_iterations":  # the global design never ends above its start
        for box in ("b", "b/2"):
            d2 = [float(r["D2"]) for r in rows if r["design_box"] == box]
            assert len(d2) > 2 and min(d2[1:]) < d2[0] and d2[-1] <= d2[0]
    if name == "decomposable_rmse":
        assert {(r["model"], r["noise"]) for r in rows} == {
            (m, n) for m in ("ORFF", "OVK") for n in ("0", "1")}
        assert "sqrt(V[y_i])" in json.loads((tmp_path / f"{name}.json").read_text())["params"][
            "noise"]
    if name == "fig2_protocol":  # both protocols, one CV choice each, ours and the authors'
        for protocol in ("in-sample", "held-out"):
            for n in {r["n"] for r in rows if r["protocol"] == protocol}:
                sub = [r for r in rows if r["protocol"] == protocol and r["n"] == n]
                assert len({r["sigma_label"] for r in sub if "CV choice" in r["sigma_label"]}) == 1
                assert {r["method"] for r in sub} == {
                    "mc", "orf", "halton", "halton-random", "sobol", "lattice",
                    "halton-authors", "sobol-authors", "lattice-ckn"}
    if name == "fig4_sweep":  # the exact curl-free OVK is the floor of its approximations
        exact = min(float(r["test_mse"]) for r in rows if r["model"] == "exact curl-free OVK")
        assert all(float(r["test_mse"]) > 0.5 * exact for r in rows if "ORFF" in r["model"])
        # both tunings, every map of each model tuned at its D with one (sigma, lambda)
        assert {r["tuning"] for r in rows} == {"at D", "exact kernel"}
        at_d = [r for r in rows if r["tuning"] == "at D"]
        assert {r["model"] for r in at_d} == {"ORFF spectral", "indep. RFF",
                                              "indep. RFF, equal parameters"}
        for key in {(r["model"], r["D"]) for r in at_d}:
            sub = [r for r in at_d if (r["model"], r["D"]) == key]
            assert len(sub) == 2 and len({(r["sigma_value"], r["alpha"]) for r in sub}) == 1
    if name == "mnist_orff":  # simplex-coded digits: far better than chance (90 % error)
        assert all(float(r["test_error_pct"]) < 60 for r in rows if r["model"] == "OVK")
        assert {r["experiment"] for r in rows} == {"error_vs_D", "time_vs_N"}
        orff = [r for r in rows if r["experiment"] == "error_vs_D" and r["model"] == "ORFF"]
        for D in {r["D"] for r in orff}:  # --maps maps per D (2 under --quick)
            assert sorted(str(r["rep"]) for r in orff if r["D"] == D) == ["0", "1"]
    if name == "regression":  # per-test-point squared errors of every deterministic predictor
        points = C.read_csv(tmp_path / "regression_points.csv")
        seqs = {(r["method"], r["design_box"]) for r in points}
        assert {("exact-krr", ""), ("halton", ""), ("global", "b")} <= seqs
        assert not {m for m, _ in seqs} & C.RANDOMIZED
    if name == "classification":
        assert {r["method"] for r in rows} == {"mc", "orf", "halton", "sobol", "lattice"}
        assert all(0 <= float(r["test_error_pct"]) < 50 for r in rows)
    if name == "curl_free_reconstruction":
        exact = {float(r["rmse"]) for r in rows if r["model"] == "exact"}
        assert all(0 < e < 0.05 for e in exact)
    if name == "gram_approximation":
        errs = np.array([float(r["rel_frobenius"]) for r in rows])
        assert np.all((errs > 0) & (errs < 2))
        rows = C.read_csv(tmp_path / "gram_approximation.csv")
        assert {r["dataset"] for r in rows} == {"digits", "diabetes:pca4"}
        for ds in {r["dataset"] for r in rows}:
            sub = [r for r in rows if r["dataset"] == ds]
            assert {"orf", "adaptive", "nystroem"} <= {r["method"] for r in sub}
            assert all(r["n_eval"] == 80 and r["n_train"] == 160 for r in sub)  # held out
            assert all(r["columns"] == 2 * r["s"] for r in sub)  # equal output width
            s = max(r["s"] for r in sub)
            err = {m: np.mean([r["rel_frobenius"] for r in sub if r["method"] == m and r["s"] == s])
                   for m in ("orf", "adaptive")}
            assert err["adaptive"] < err["orf"], (ds, err)
        meta = json.loads((tmp_path / "gram_approximation.json").read_text())
        assert meta["params"]["datasets"]["digits"]["n_eval"] == 80
        assert meta["params"]["completed_s"]["digits"] == [16, 64]


def test_run_all_fresh_clears_only_script_outputs_and_results_quote_the_run(tmp_path):
    """``run_all --fresh`` removes every script's files (and nothing else); RESULTS.md says
    whether its outputs come from one whole rebuild and how long it took."""
    import run_all

    for name in ("demo.json", "demo_table.csv", "gram_approximation_mnist.csv",
                 "adaptive_iterations_global.png", "run_all.json", "keep_me.txt", "demography.csv"):
        (tmp_path / name).write_text("x")
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "digits-train1_global_s8.npz").write_text("x")
    assert run_all.clear_outputs(tmp_path) == 6
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "demography.csv", "keep_me.txt"]
    assert not any((tmp_path / "cache").iterdir())
    assert run_all.clear_outputs(tmp_path / "absent") == 0

    record = {"command": "python examples/run_all.py --fresh", "started_utc": "2026-01-01 UTC",
              "wall_s": 4321.0, "budget_s": run_all.BUDGET_S, "fresh": True, "quick": False,
              "scripts": {"demo": 60.0}, "failed": [], "complete": True}
    (tmp_path / run_all.RUN_RECORD).write_text(json.dumps(record))
    text = make_results.build(tmp_path, tmp_path / "R.md").read_text()
    assert "Rebuilt whole by `make results`" in text and "in 4321 s of wall time" in text
    assert "Per script: demo 60 s." in text
    record.update(complete=False, failed=["demo"])
    (tmp_path / run_all.RUN_RECORD).write_text(json.dumps(record))
    text = make_results.build(tmp_path, tmp_path / "R.md").read_text()
    assert "Rebuilt whole" not in text and "not a whole rebuild" in text and "Failed: `demo`" in text
