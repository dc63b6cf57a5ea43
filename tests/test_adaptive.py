"""Data-adaptive designs: adaptive_sequence, FourierFeatures/ORFF(sequence="adaptive")."""
from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest
from sklearn.base import clone

from qmc_orff import (ORFF, DataDiscrepancy, FourierFeatures, Sequence, adaptive_operator_sequence,
                      adaptive_sequence, gram_error, load_sequence)


def clusters(n=240, d=6, seed=0):
    """Anisotropic Gaussian clusters: differences far from a box's uniform measure."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=3.0, size=(4, d))
    scales = np.linspace(0.3, 2.0, d)
    return centres[rng.integers(0, 4, n)] + rng.normal(size=(n, d)) * scales


def test_beats_orf_on_held_out_points():
    X = clusters(400, seed=1)
    train, test = X[:250], X[250:]
    sigma = 3.0
    orf = np.mean([gram_error(FourierFeatures(sigma=sigma, n_components=16, sequence="orf",
                                              seed=k).fit(train), test) for k in range(5)])
    seq = adaptive_sequence(train, 16, sigma=sigma, n_train=150, n_validation=100, maxiter=30,
                            seed=0)
    ff = FourierFeatures(sigma=sigma, n_components=None, sequence=seq).fit(test)
    held = gram_error(ff, test)
    assert held < 0.7 * orf, (held, orf)  # measured 0.45
    meta = seq.meta
    assert meta["validation_error"] < meta["start_validation_error"]
    # the history holds the optimiser's float32 scores: the chosen iterate has the least, and
    # its float64 error (meta) agrees with it to float32 rounding of a relative Gram error
    history = meta["validation_history"]
    assert history[meta["best_iteration"]] == min(history)
    assert meta["validation_error"] == pytest.approx(min(history), rel=1e-5)
    assert meta["validation_error"] != min(history)  # re-scored, not the float32 score
    assert meta["train_error"] < meta["start_train_error"]


def test_rescore_keeps_the_start_when_float64_ranks_it_first():
    """The optimiser picks its iterate by float32 scores; re-scored in float64, an iterate
    above the start gives way to the start (never worse than the start on validation)."""
    from qmc_orff.designs._adaptive_driver import _rescore

    class Data:
        def __init__(self, value):
            self.value = value

        def val_error(self, U):
            return self.value

    U0, U1 = np.zeros((2, 3)), np.ones((2, 3))
    state = {"best_U": U1, "best_it": 7, "best_val": 0.49}
    _rescore(state, Data(0.5000001), U0, start_val=0.5)
    assert state["best_it"] == 0 and state["best_val"] == 0.5
    np.testing.assert_array_equal(state["best_U"], U0)
    state = {"best_U": U1, "best_it": 7, "best_val": 0.49}
    _rescore(state, Data(0.4900001), U0, start_val=0.5)
    assert state["best_it"] == 7 and state["best_val"] == 0.4900001
    np.testing.assert_array_equal(state["best_U"], U1)


def test_never_worse_than_start_on_validation():
    X = clusters(200, seed=2)
    # maxiter = 0: the start itself, bit for bit
    U0 = np.random.default_rng(5).normal(size=(10, 6))
    seq0 = adaptive_sequence(X, 10, sigma=2.0, init=U0, maxiter=0, seed=0)
    np.testing.assert_array_equal(seq0.points, U0)
    assert seq0.meta["validation_error"] == seq0.meta["start_validation_error"]
    assert seq0.meta["iterations"] == 0
    # a start that is already very good (a long run's result): the result is no worse on validation
    best = adaptive_sequence(X, 10, sigma=2.0, maxiter=40, seed=0)
    again = adaptive_sequence(X, 10, sigma=2.0, init=best, maxiter=5, seed=0)
    assert again.meta["validation_error"] <= again.meta["start_validation_error"]
    assert again.meta["start_validation_error"] == pytest.approx(best.meta["validation_error"],
                                                                  rel=1e-12)


def test_validation_error_is_the_gram_error_of_the_result():
    """meta['validation_error'] is gram_error of the map on the validation rows (found by replaying
    the split: with n_train + n_validation = n, the validation rows are the rest)."""
    X = clusters(90, seed=3)
    seq = adaptive_sequence(X, 8, sigma=2.5, n_train=80, n_validation=30, maxiter=10, seed=4)
    assert seq.meta["n_train"] == 72 and seq.meta["n_validation"] == 18
    W = seq.frequencies(2.5)
    errs = []
    rng = np.random.default_rng(4)
    split_rng = rng.spawn(4)[0]
    idx = split_rng.choice(90, size=90, replace=False)
    val = X[np.sort(idx[72:])]
    ff = FourierFeatures(sigma=2.5, n_components=None, sequence=W * 2.5).fit(val)
    errs.append(gram_error(ff, val))
    assert seq.meta["validation_error"] == pytest.approx(errs[0], rel=1e-10)


def test_same_seed_same_bits_and_meta():
    X = clusters(150, seed=4)
    a = adaptive_sequence(X, 12, sigma="median", maxiter=15, seed=7)
    b = adaptive_sequence(X, 12, sigma="median", maxiter=15, seed=7)
    c = adaptive_sequence(X, 12, sigma="median", maxiter=15, seed=8)
    np.testing.assert_array_equal(a.points, b.points)
    assert not np.array_equal(a.points, c.points)
    m = a.meta
    for key in ("kernel", "sigma", "n", "n_train", "n_validation", "data_sha256",
                "start_validation_error", "validation_error", "orf_validation_error",
                "iterations", "stop_reason", "seconds", "train_error"):
        assert key in m, key
    assert m["method"] == "adaptive" and m["density"] == "gaussian" and m["kernel"] == "gaussian"
    assert m["n"] == 150 and m["n_train"] + m["n_validation"] <= 150
    assert m["sigma_rule"] == "median" and m["sigma"] > 0
    assert m["orf_validation_error"] == m["start_validation_error"]  # the start is the ORF draw
    h = hashlib.sha256(str(X.shape).encode())
    h.update(np.ascontiguousarray(X, dtype="<f8").tobytes())
    assert m["data_sha256"] == h.hexdigest()


def test_cost_does_not_grow_with_n():
    """Only n_train + n_validation rows enter the objective, whatever n."""
    X = clusters(3000, seed=5)
    seq = adaptive_sequence(X, 8, sigma=2.0, n_train=50, n_validation=20, maxiter=3, seed=0)
    assert seq.meta["n_train"] == 50 and seq.meta["n_validation"] == 20 and seq.meta["n"] == 3000


@pytest.mark.parametrize("kernel, init", [("laplacian", "mc"), ("matern", "orf"),
                                          ("gaussian", "halton")])
def test_other_kernels_and_starts(kernel, init):
    X = clusters(150, seed=6)
    seq = adaptive_sequence(X, 10, kernel=kernel, sigma=2.0, init=init, maxiter=10, seed=1)
    assert seq.meta["density"] == kernel
    assert seq.meta["validation_error"] <= seq.meta["start_validation_error"]
    ff = FourierFeatures(kernel, sigma=2.0, n_components=None, sequence=seq).fit(X)
    assert np.all(np.isfinite(ff.transform(X)))
    assert (seq.meta["orf_validation_error"] is None) == (kernel == "laplacian")


def test_weights_are_nonnegative_and_validated():
    X = clusters(200, seed=7)
    seq = adaptive_sequence(X, 16, sigma=2.0, weights=True, maxiter=5, seed=0)
    status = seq.meta["weights_status"]
    assert status == "fitted" or status.startswith("rejected")
    if seq.weights is not None:
        assert np.all(seq.weights >= 0)
    assert seq.meta["validation_error"] <= seq.meta["start_validation_error"]


def test_callback_checkpoint_and_interrupt():
    X = clusters(150, seed=8)
    calls = []

    def stop_at_three(it, U, train, val):
        calls.append((it, train, val))
        return it >= 3

    seq = adaptive_sequence(X, 8, sigma=2.0, maxiter=50, seed=0, callback=stop_at_three)
    assert seq.meta["stop_reason"] == "callback requested stop" and seq.meta["iterations"] == 3
    assert [c[0] for c in calls] == [1, 2, 3]
    saved = []
    adaptive_sequence(X, 8, sigma=2.0, maxiter=4, patience=None, seed=0, checkpoint=saved.append,
                      checkpoint_every=2)
    assert len(saved) == 2 and all(isinstance(s, Sequence) for s in saved)
    assert saved[-1].meta["stop_reason"] == "checkpoint"

    def interrupt(it, U, train, val):
        if it == 2:
            raise KeyboardInterrupt
        return False

    seq = adaptive_sequence(X, 8, sigma=2.0, maxiter=50, seed=0, callback=interrupt)
    assert seq.meta["stop_reason"] == "interrupted"
    assert seq.meta["validation_error"] <= seq.meta["start_validation_error"]


def test_round_trip_through_a_file(tmp_path):
    X = clusters(120, seed=9)
    seq = adaptive_sequence(X, 6, sigma=2.0, maxiter=5, seed=0)
    seq.save(tmp_path / "a.npz")
    back = load_sequence(tmp_path / "a.npz")
    np.testing.assert_array_equal(back.points, seq.points)
    ff = FourierFeatures(sigma=2.0, n_components=None, sequence=back).fit(X)
    np.testing.assert_array_equal(ff.frequencies_, seq.frequencies(2.0))


def test_bad_input_names_the_parameter():
    X = clusters(60, seed=10)
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="'X' must contain only finite"):
        adaptive_sequence(bad, 4, sigma=1.0)
    bad[3, 2] = np.inf
    with pytest.raises(ValueError, match="'X' must contain only finite"):
        adaptive_sequence(bad, 4, sigma=1.0)
    with pytest.raises(ValueError, match="'X' must have at least 2 rows"):
        adaptive_sequence(X[:1], 4, sigma=1.0)
    with pytest.raises(ValueError, match="'sigma' must be positive"):
        adaptive_sequence(X, 4, sigma=0.0)
    with pytest.raises(ValueError, match="'sigma' must be positive"):
        adaptive_sequence(X, 4, sigma=-2.0)
    with pytest.raises(ValueError, match="'sigma' must be a positive number"):
        adaptive_sequence(X, 4, sigma="mean")
    with pytest.raises(ValueError, match="'s' must be"):
        adaptive_sequence(X, 0, sigma=1.0)
    with pytest.raises(ValueError, match=r"'init' must have shape \(4, 6\)"):
        adaptive_sequence(X, 4, sigma=1.0, init=np.ones((4, 5)))
    with pytest.raises(ValueError, match="'init' sequence has shape"):
        adaptive_sequence(X, 4, sigma=1.0, init=Sequence(np.ones((4, 5))))
    with pytest.raises(ValueError, match="'init' must be one of"):
        adaptive_sequence(X, 4, sigma=1.0, init="sobel")
    with pytest.raises(ValueError, match="'init'='orf' needs a radial"):
        adaptive_sequence(X, 4, kernel="laplacian", sigma=1.0)
    with pytest.raises(ValueError, match="'kernel' must be one of"):
        adaptive_sequence(X, 4, kernel="skewed_chi2", sigma=1.0)
    with pytest.raises(TypeError, match="sigma"):
        adaptive_sequence(X, 4)  # sigma is required


# --------------------------------------------------------------------------- feature maps
def test_fourier_features_adaptive_fits_on_X():
    X = clusters(200, seed=11)
    opts = {"maxiter": 10, "n_train": 100, "n_validation": 50}
    ff = FourierFeatures(sigma=2.0, n_components=12, sequence="adaptive", seed=3,
                         design_options=opts)
    a = ff.fit(X).transform(X)
    assert a.shape == (200, 24)
    assert ff.design_.meta["n"] == 200
    b = clone(ff).fit(X).transform(X)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ff.frequencies_, ff.design_.frequencies(2.0))
    with pytest.raises(ValueError, match="'design_options' must not set 'sigma'"):
        FourierFeatures(sequence="adaptive", design_options={"sigma": 1.0}).fit(X)
    with pytest.raises(TypeError, match="The 'design_options' parameter of FourierFeatures must be an instance of 'dict'"):
        FourierFeatures(sequence="adaptive", design_options=[1]).fit(X)
    with pytest.raises(ValueError, match="sequence='adaptive' needs kernel"):
        FourierFeatures("skewed_chi2", sequence="adaptive").fit(np.abs(X))


def test_orff_adaptive_reduces_the_block_gram_error():
    rng = np.random.default_rng(12)
    Xtr, Xte = rng.uniform(-1, 1, (120, 2)), rng.uniform(-1, 1, (100, 2))
    opts = {"maxiter": 25, "n_train": 80, "n_validation": 40}
    base = gram_error(ORFF("curl_free", sigma=0.5, n_components=30, sequence="halton",
                           measure="trace").fit(Xtr), Xte)
    o = ORFF("curl_free", sigma=0.5, n_components=30, sequence="adaptive", measure="trace",
             seed=0, design_options=dict(opts, init="halton")).fit(Xtr)
    assert gram_error(o, Xte) < 0.7 * base
    np.testing.assert_array_equal(
        o.frequencies_, clone(o).fit(Xtr).frequencies_)  # same seed, same bits
    with pytest.raises(ValueError, match="sequence='adaptive' needs measure='spectral' or 'trace'"):
        ORFF("curl_free", sigma=0.5, sequence="adaptive", measure="bounded").fit(Xtr)


@pytest.mark.parametrize("kernel, measure", [("div_free", "spectral"), ("decomposable", "spectral")])
def test_operator_sequence_other_kernels(kernel, measure):
    rng = np.random.default_rng(13)
    X = rng.uniform(-1, 1, (90, 2))
    seq = adaptive_operator_sequence(X, 10, kernel=kernel, sigma=0.6, measure=measure, maxiter=8,
                                     n_train=50, n_validation=30, seed=0)
    assert seq.meta["validation_error"] <= seq.meta["start_validation_error"]
    assert seq.meta["operator_kernel"] == kernel
    with pytest.raises(ValueError, match="'kernel' must be one of"):
        adaptive_operator_sequence(X, 10, kernel="gaussian", sigma=1.0)


def test_data_discrepancy_value_drives_the_design():
    """The training error in meta is sqrt of the normalised DataDiscrepancy of the result."""
    X = clusters(80, seed=14)
    seq = adaptive_sequence(X, 6, sigma=2.0, n_train=80, n_validation=0, maxiter=5, seed=0)
    assert seq.meta["validation_on_training_points"] and seq.meta["n_validation"] == 0
    obj = DataDiscrepancy(X / 2.0, sigma=1.0)
    assert seq.meta["train_error"] == pytest.approx(math.sqrt(obj(seq.points, normalize=True)),
                                                    rel=1e-12)


def _spy_on_maxcor(monkeypatch):
    """The ``maxcor`` each run of the designs' optimiser (whichever ``OPTIMIZER`` is) receives."""
    from qmc_orff.designs import _early_stopping

    seen, run = [], _early_stopping.OPTIMIZERS[_early_stopping.OPTIMIZER]
    monkeypatch.setitem(_early_stopping.OPTIMIZERS, _early_stopping.OPTIMIZER,
                        lambda *a, **k: (seen.append(k["maxcor"]), run(*a, **k))[1])
    return seen


def test_lbfgs_memory_shrinks_only_on_large_problems(monkeypatch):
    """maxcor: 20 pairs up to 2**20 / 20 variables, then fewer (at least 5), and it is what
    L-BFGS-B receives and meta reports (issue 28: its update cost ~ maxcor * s * d)."""
    from qmc_orff.designs._early_stopping import MAXCOR_ENTRIES, lbfgs_memory

    assert lbfgs_memory(1) == 20 and lbfgs_memory(MAXCOR_ENTRIES // 20) == 20
    assert lbfgs_memory(MAXCOR_ENTRIES // 20 + 1) == 19
    assert MAXCOR_ENTRIES == 2 ** 20
    assert lbfgs_memory(128 * 655) == MAXCOR_ENTRIES // (128 * 655) == 12  # raw MNIST, s = 128
    assert lbfgs_memory(10 ** 9) == 5
    seen = _spy_on_maxcor(monkeypatch)
    monkeypatch.setattr("qmc_orff.designs._early_stopping.MAXCOR_ENTRIES", 8 * 10 * 3)
    X = clusters(80, d=3, seed=1)
    seq = adaptive_sequence(X, 10, sigma=2.0, maxiter=3, seed=0)
    assert seen == [8] and seq.meta["maxcor"] == 8


def test_patience_ends_no_design_before_min_iterations(monkeypatch):
    """The validation stop waits ``patience`` iterations after the best one, and never ends a
    design before ``min_iterations`` (default 100): early noisy validation curves stopped
    designs at 20-40 iterations on breast cancer (issue 28)."""
    from qmc_orff.designs import _early_stopping
    from qmc_orff.designs.adaptive import MIN_ITERATIONS

    monkeypatch.setattr(_early_stopping, "TRAIN_STILL_FALLING", None)  # the next test's rule

    X = np.random.default_rng(3).normal(size=(100, 2))
    # uniform training rows: a run whose validation error stops improving early
    kw = dict(sigma=1.0, n_train=40, n_validation=20, maxiter=300, patience=5, seed=0,
              coverage=0.0)
    meta = adaptive_sequence(X, 32, **kw).meta
    assert MIN_ITERATIONS == 100 and meta["min_iterations"] == 100
    assert meta["best_iteration"] < 95 and meta["iterations"] == 100
    assert meta["stop_reason"] == "validation error not improved for 5 iterations"
    early = adaptive_sequence(X, 32, min_iterations=0, **kw).meta
    assert early["best_iteration"] == meta["best_iteration"]  # the same trajectory
    assert early["iterations"] == early["best_iteration"] + 5
    assert adaptive_sequence(X, 32, **{**kw, "maxiter": 40}).meta["iterations"] == 40  # cap
    for bad in (-1, 1.5, "10"):
        with pytest.raises((ValueError, TypeError), match="min_iterations"):
            adaptive_sequence(X, 4, min_iterations=bad, **kw)


def test_patience_waits_while_the_training_error_falls_fast():
    """The validation stop is deferred while the training error falls by more than
    ``TRAIN_STILL_FALLING`` (10%) over the patience window, and taken once the fall slows."""
    from qmc_orff.designs._early_stopping import TRAIN_STILL_FALLING, still_falling

    assert TRAIN_STILL_FALLING == 0.1
    X = np.random.default_rng(3).normal(size=(100, 2))
    meta = adaptive_sequence(X, 32, sigma=1.0, n_train=40, n_validation=20, maxiter=300,
                             patience=5, seed=0, coverage=0.0, min_iterations=0).meta
    hist, it, best = meta["train_history"], meta["iterations"], meta["best_iteration"]
    assert meta["stop_reason"] == "validation error not improved for 5 iterations"
    assert it > best + 5  # the plain patience stop (at best + 5) was deferred ...
    for k in range(best + 5, it):
        assert still_falling(hist[:k + 1], 5) and hist[k] < 0.9 * hist[k - 5]
    assert not still_falling(hist[:it + 1], 5)  # ... until the fall slowed
    assert not still_falling([1.0, 0.5], 5) and still_falling([1.0] + [0.5] * 5, 5)
    assert not still_falling([1.0] + [0.5] * 5, 5, 0.6) and not still_falling([1.0, 0.95], 1)


def test_lbfgs_memory_grows_where_the_pairs_are_cheap(monkeypatch):
    """A scalar data design keeps up to 100 pairs where their update is cheap against the
    objective (900 / d pairs at 500 training rows, scaled by the rows squared), never fewer
    than 20 and within the entry budget; L-BFGS-B receives it and meta reports it."""
    from qmc_orff.designs._early_stopping import MAXCOR_ENTRIES, lbfgs_memory

    assert lbfgs_memory(9 * 512, d=9, n_train=500) == 100  # diamonds
    assert lbfgs_memory(30 * 256, d=30, n_train=500) == 30
    assert lbfgs_memory(61 * 256, d=61, n_train=500) == 20  # digits: as without d
    assert lbfgs_memory(9 * 512, d=9, n_train=250) == 25  # a quarter of the objective's cost
    assert lbfgs_memory(MAXCOR_ENTRIES // 50, d=1, n_train=500) == 50  # the entry budget
    assert lbfgs_memory(10 ** 9, d=1, n_train=500) == 5
    seen = _spy_on_maxcor(monkeypatch)
    X = clusters(600, d=3, seed=1)  # 480 training rows: 900 * 480**2 / 500**2 / 3 = 276 pairs
    seq = adaptive_sequence(X, 4, sigma=2.0, maxiter=2, seed=0)
    assert seq.meta["n_train"] == 480
    assert seen == [100] and seq.meta["maxcor"] == 100
    seen.clear()
    op = adaptive_operator_sequence(X[:200], 4, kernel="curl_free", sigma=2.0, maxiter=2, seed=0)
    assert seen == [20] and op.meta["maxcor"] == 20  # the operator design: unchanged


def test_auto_n_train_grows_with_the_width_within_the_budget():
    """n_train="auto": 2 s rows (the map's columns) or the rows an iteration of CHEAP_ITERATION
    multiply-adds, m s (m + d), affords, whichever is more; clipped to [500, 1000] and to the
    rows an iteration of ITERATION_BUDGET affords; never under 500."""
    from qmc_orff.designs import adaptive as A

    assert [A.auto_n_train(s, 9) for s in (1, 32, 250, 256, 400, 512, 4096)] == [
        1000, 1000, 543, 536, 800, 1000, 500]
    for s, d in [(250, 9), (256, 9), (64, 655), (128, 80)]:  # the cheap iteration binds
        m = A.auto_n_train(s, d)
        assert m * s * (m + d) <= A.CHEAP_ITERATION < (m + 1) * s * (m + 1 + d)
    assert A.auto_n_train(256, 64) == 512  # the fit-time floor's cell keeps 2 s rows
    assert A.auto_n_train(512, 61) == 1000  # digits
    for s, d in [(512, 655), (1024, 655), (700, 40), (1500, 3)]:
        m = A.auto_n_train(s, d)
        assert m * s * (m + d) <= A.ITERATION_BUDGET < (m + 1) * s * (m + 1 + d)  # the most
    assert A.auto_n_train(512, 655) == 803  # raw MNIST: the budget binds
    assert A.auto_n_train(2048, 655) == A.N_TRAIN  # the floor, above the budget
    assert A.auto_n_train(10 ** 9, 10 ** 6) == A.N_TRAIN


def test_n_train_auto_is_the_default_and_bad_values_are_refused():
    """The default training subsample is auto_n_train(s, d), capped by the rows there are;
    a string other than 'auto' is refused with the parameter's name."""
    from qmc_orff.designs.adaptive import auto_n_train

    X = clusters(1500, d=3, seed=2)  # 250 validation rows, 1250 to train on
    seq = adaptive_sequence(X, 300, sigma=2.0, maxiter=0, seed=0)
    assert auto_n_train(300, 3) == 600 and seq.meta["n_train"] == 600
    same = adaptive_sequence(X, 300, sigma=2.0, maxiter=0, seed=0, n_train=600)
    np.testing.assert_array_equal(seq.points, same.points)
    assert adaptive_sequence(X[:700], 300, sigma=2.0, maxiter=0, seed=0).meta["n_train"] == 560
    with pytest.raises(ValueError, match="'n_train' must be an integer >= 2 or 'auto'"):
        adaptive_sequence(X, 8, sigma=2.0, n_train="many")
    with pytest.raises(ValueError, match="'s'"):
        adaptive_sequence(X, 0, sigma=2.0)


def test_training_evaluations_in_float32_validation_in_float64(monkeypatch):
    """The optimiser sees the float32 twin of the training objective; the validation errors
    (which pick the result) and meta's errors are float64; TRAIN_DTYPE="float64" gives the
    float64 design back, a close but not identical trajectory."""
    from qmc_orff.designs import adaptive as mod
    from qmc_orff.objectives.data import DataDiscrepancy as DD

    seen = []
    vg = DD.value_and_grad
    monkeypatch.setattr(DD, "value_and_grad",
                        lambda self, *a, **k: (seen.append(self.dtype), vg(self, *a, **k))[1])
    X = clusters(200, seed=6)
    kw = dict(sigma=2.0, n_train=120, n_validation=40, maxiter=8, patience=None, seed=2)
    a = adaptive_sequence(X, 16, **kw)
    assert a.meta["train_dtype"] == "float32" and set(seen) == {np.dtype("float32")}
    seen.clear()
    monkeypatch.setattr(mod, "TRAIN_DTYPE", "float64")
    b = adaptive_sequence(X, 16, **kw)
    assert b.meta["train_dtype"] == "float64" and set(seen) == {np.dtype("float64")}
    assert a.meta["start_validation_error"] == b.meta["start_validation_error"]
    assert not np.array_equal(a.points, b.points)
    assert a.meta["validation_error"] == pytest.approx(b.meta["validation_error"], rel=1e-3)
    assert a.meta["validation_error"] < a.meta["start_validation_error"]


def test_both_faces_take_the_shared_options_with_the_table_s_defaults():
    """adaptive_sequence and adaptive_operator_sequence: one driver, the same options, and
    their defaults read from one table (DEFAULTS: scalar, operator)."""
    import inspect

    from qmc_orff.designs.adaptive import DEFAULTS

    faces = (adaptive_sequence, adaptive_operator_sequence)
    shared = set(DEFAULTS)
    for i, face in enumerate(faces):
        params = inspect.signature(face).parameters
        assert shared <= set(params), shared - set(params)
        for option in shared:
            assert params[option].default == DEFAULTS[option][i], (face.__name__, option)
    assert {p for p in inspect.signature(faces[0]).parameters} - {
        p for p in inspect.signature(faces[1]).parameters} == {"nu"}  # scalar kernels only


def test_operator_face_checkpoints_covers_and_floors_like_the_scalar_one():
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (160, 2))
    seen = []
    common = dict(sigma=0.6, n_train=60, n_validation=40, maxiter=9, seed=0)
    seq = adaptive_operator_sequence(X, 6, **common, checkpoint=seen.append, checkpoint_every=3,
                                     coverage=0.5, min_iterations=9, patience=1)
    assert [s.meta["iterations"] for s in seen] == [3, 6, 9]
    assert all(s.meta["stop_reason"] == "checkpoint" for s in seen)
    assert seq.meta["iterations"] == 9  # patience 1 waits for the floor of 9
    assert seq.meta["coverage"] == 0.5 and seq.meta["n_cover"] == 30
    np.testing.assert_array_equal(seen[-1].points, seq.points)
    plain = adaptive_operator_sequence(X, 6, **common)
    assert plain.meta["coverage"] == 0.0 and plain.meta["min_iterations"] == 0
    with pytest.raises(ValueError, match="'weights'=True is not available for operator-valued"):
        adaptive_operator_sequence(X, 6, sigma=0.6, weights=True)
    with pytest.raises(TypeError, match="'weights' must be a bool; got str"):
        adaptive_operator_sequence(X, 6, sigma=0.6, weights="no")
    with pytest.raises(ValueError, match="'checkpoint_every' must be"):
        adaptive_operator_sequence(X, 6, sigma=0.6, checkpoint=seen.append, checkpoint_every=0)


def test_resume_continues_the_whole_run_on_the_same_subsamples():
    X = clusters(300, d=4, seed=5)
    common = dict(sigma=3.0, n_train=80, n_validation=40, patience=None, seed=2)
    ckpts = []
    first = adaptive_sequence(X, 8, maxiter=6, checkpoint=ckpts.append, checkpoint_every=3,
                              **common)
    rest = adaptive_sequence(X, 8, maxiter=10, resume=first, **common)
    m, m1 = rest.meta, first.meta
    assert m["iterations"] == 10 and m["stop_reason"] == "maxiter (10) reached"
    assert m["resumed_iterations"] == 6 and m["maxiter"] == 10
    assert m["validation_history"][:7] == m1["validation_history"]
    assert len(m["validation_history"]) == len(m["train_history"]) == 11
    assert m["resume_validation_error"] == m1["validation_error"]
    assert m["start_validation_error"] == m1["start_validation_error"]
    assert m["orf_validation_error"] == m1["orf_validation_error"] and m["init"] == "orf"
    assert m["validation_error"] <= m1["validation_error"]
    # the same subsamples: the resumed iterate's validation error is the first run's best
    direct = adaptive_sequence(X, 8, maxiter=4, init=first, **common)
    np.testing.assert_array_equal(rest.points, direct.points)
    # a complete file: nothing left, the stop still names the whole run's cap
    again = adaptive_sequence(X, 8, maxiter=6, resume=first, **common)
    assert again.meta["stop_reason"] == "maxiter (6) reached" and again.meta["iterations"] == 6
    np.testing.assert_array_equal(again.points, first.points)
    # checkpoints count the whole run
    seen = []
    adaptive_sequence(X, 8, maxiter=9, resume=ckpts[0], checkpoint=seen.append,
                      checkpoint_every=3, **common)
    assert [s.meta["iterations"] for s in seen] == [6, 9]
    for bad, match in [(dict(resume=first, n_train=70), "'resume' was designed with n_train=80"),
                       (dict(resume="a.npz"), "'resume' must be a Sequence"),
                       (dict(resume=Sequence(first.points, None, {"method": "global"})),
                        "'resume' must hold an 'adaptive' design")]:
        with pytest.raises((ValueError, TypeError), match=match):
            adaptive_sequence(X, 8, maxiter=2, **{**common, **bad})
    with pytest.raises(ValueError, match="'resume' was designed on other data"):
        adaptive_sequence(X[1:], 8, maxiter=2, resume=first, **common)
