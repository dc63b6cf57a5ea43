"""Reports point the right way (issue 10, item 5): where data exist, errors are set against ORF."""
import numpy as np
import pytest

import qmc_orff
from qmc_orff.cli import main


def test_adaptive_meta_reports_the_ratio_to_orf():
    X = np.random.default_rng(0).normal(size=(200, 4))
    seq = qmc_orff.adaptive_sequence(X, 8, sigma=2.0, maxiter=5, seed=0)
    m = seq.meta
    assert m["ratio_to_orf"] == pytest.approx(m["validation_error"] / m["orf_validation_error"],
                                              rel=1e-15)
    assert m["ratio_to_orf"] <= 1.0  # ORF is the start: never worse on validation
    ff = qmc_orff.FourierFeatures(sigma=2.0, n_components=8, sequence="adaptive", seed=0,
                                  design_options={"maxiter": 5}).fit(X)
    assert ff.design_.meta["ratio_to_orf"] == m["ratio_to_orf"]  # same seed, same design
    op = qmc_orff.adaptive_operator_sequence(X[:, :2], 8, sigma=1.0, maxiter=3, seed=0,
                                             n_train=50, n_validation=20)
    assert op.meta["ratio_to_orf"] == pytest.approx(
        op.meta["validation_error"] / op.meta["orf_validation_error"], rel=1e-15)
    # no ORF for the Laplacian kernel (no radial density): no ratio, not a made-up one
    lap = qmc_orff.adaptive_sequence(X, 8, sigma=2.0, kernel="laplacian", init="mc", maxiter=2,
                                     seed=0)
    assert lap.meta["orf_validation_error"] is None and lap.meta["ratio_to_orf"] is None


def test_box_design_report_is_not_only_the_ratio_to_halton(tmp_path, capsys):
    out = tmp_path / "w.npz"
    assert main(["design", "weighted", "--d", "2", "--s", "8", "--box-over-sigma", "1",
                 "-o", str(out)]) == 0
    text = capsys.readouterr().out
    m = qmc_orff.load_sequence(out).meta
    ratio_mc = m["normalized_d2"] / m["normalized_expected_mc"]
    assert f"ratio {m['ratio_to_halton']:.3g}" in text
    assert f"Monte Carlo expectation ratio {ratio_mc:.3g}" in text
    assert "gram_error" in text  # says how to measure on data
    assert m["ratio_to_mc"] == pytest.approx(ratio_mc, rel=1e-15)  # in the file's meta too
