"""scikit-learn's conventions for the estimators (issue 22, item 3)."""
import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from qmc_orff import ORFF, FourierFeatures, ORFFRidge

X = np.random.default_rng(0).normal(size=(20, 3))
Y = X[:, :2] ** 2


# ------------------------------------------------------------------ parameter validation
@pytest.mark.parametrize("make", [
    lambda **kw: FourierFeatures(**kw).fit(X),
    lambda **kw: ORFF(**kw).fit(X),
    lambda **kw: ORFFRidge(ORFF(**kw)).fit(X, Y),
])
def test_wrong_type_is_scikit_learns_invalid_parameter_error(make):
    with pytest.raises(InvalidParameterError, match="The 'n_components' parameter of "
                                                    "(FourierFeatures|ORFF) must be"):
        make(n_components="a")
    # a ValueError and a TypeError, as scikit-learn's own
    with pytest.raises(ValueError, match="'sequence' parameter"):
        make(sequence="sobolev")
    with pytest.raises(TypeError, match="'check' parameter"):
        make(check=1)


@pytest.mark.parametrize("params, match", [
    ({"alpha": "big"}, "The 'alpha' parameter of ORFFRidge must be"),
    ({"solver": "lsqr"}, "The 'solver' parameter of ORFFRidge must be a str among"),
    ({"orff": FourierFeatures()}, "The 'orff' parameter of ORFFRidge must be"),
    ({"max_iter": 1.5}, "The 'max_iter' parameter of ORFFRidge must be"),
])
def test_ridge_parameters_are_validated(params, match):
    with pytest.raises(InvalidParameterError, match=match):
        ORFFRidge(**params).fit(X, Y)


@pytest.mark.parametrize("est, params, match", [
    (FourierFeatures, {"n_components": 0}, "'n_components' must be >= 1; got 0."),
    (FourierFeatures, {"sigma": -1.0}, "'sigma' must be positive"),
    (ORFF, {"sigma": -1.0}, "'sigma' must be positive; got -1.0."),
])
def test_limits_keep_the_librarys_messages(est, params, match):
    with pytest.raises(ValueError, match=match):
        est(**params).fit(X)


# ------------------------------------------------------------------ gamma="scale", ORFF's gamma
def test_gamma_scale_is_rbf_samplers():
    from sklearn.kernel_approximation import RBFSampler

    X3 = 3.0 * X + 1.0
    gamma = RBFSampler(gamma="scale").fit(X3)._gamma
    assert gamma == pytest.approx(1.0 / (X3.shape[1] * X3.var()), rel=1e-15)
    ff = FourierFeatures(gamma="scale", seed=0).fit(X3)
    assert 1.0 / (2.0 * ff.sigma_ ** 2) == pytest.approx(gamma, rel=1e-14)
    # the same bandwidth as sigma= gives the same map
    ref = FourierFeatures(sigma=ff.sigma_, seed=0).fit(X3)
    np.testing.assert_array_equal(ff.frequencies_, ref.frequencies_)
    orff = ORFF(gamma="scale", seed=0).fit(X3)
    assert orff.sigma_ == pytest.approx(ff.sigma_, rel=1e-15)


@pytest.mark.parametrize("sparse", [False, True])
def test_gamma_scale_counts_sample_weights_as_repeated_rows(sparse):
    import scipy.sparse as sp

    X3 = 3.0 * X + 1.0
    sw = np.random.default_rng(1).integers(0, 4, size=len(X3))
    sw[0] = 2
    rows = X3.repeat(sw, axis=0)
    weighted = ORFF(gamma="scale", seed=0).fit(sp.csr_matrix(X3) if sparse else X3,
                                               sample_weight=sw)
    repeated = ORFF(gamma="scale", seed=0).fit(sp.csr_matrix(rows) if sparse else rows)
    assert weighted.sigma_ == pytest.approx(repeated.sigma_, rel=1e-14)
    assert weighted.sigma_ == pytest.approx(np.sqrt(rows.shape[1] * rows.var() / 2.0), rel=1e-14)
    # unit weights are no weights
    ones = ORFF(gamma="scale", seed=0).fit(X3, sample_weight=np.ones(len(X3)))
    assert ones.sigma_ == pytest.approx(ORFF(gamma="scale", seed=0).fit(X3).sigma_, rel=1e-14)


# ------------------------------------------------------------------ the default bandwidth
def _pair_median(rows, metric="euclidean"):
    """Reference: the median over the distinct pairs of rows (scipy's pdist)."""
    from scipy.spatial.distance import pdist
    return float(np.median(pdist(rows, metric)))


def test_default_bandwidth_is_the_median_heuristic():
    rng = np.random.default_rng(2)
    X3 = 50.0 * rng.standard_normal((300, 4)) + 7.0   # raw scale: the old sigma=1 was 0.01 of it
    ff = FourierFeatures(n_components=16).fit(X3)
    assert ff.sigma_ == pytest.approx(_pair_median(X3), rel=1e-14)
    lap = FourierFeatures("laplacian", n_components=16).fit(X3)
    assert lap.sigma_ == pytest.approx(_pair_median(X3, "cityblock"), rel=1e-14)
    orff = ORFF("curl_free", n_components=16).fit(X3)
    assert orff.sigma_ == pytest.approx(_pair_median(X3), rel=1e-14)
    # the same bandwidth given explicitly gives the same map
    np.testing.assert_array_equal(
        FourierFeatures(n_components=16, sigma=ff.sigma_).fit(X3).frequencies_, ff.frequencies_)
    # a fixed sample of 512 rows beyond that: the same bandwidth on every fit, of that sample
    from qmc_orff.maps.default_source import _sample_indices
    big = rng.standard_normal((2000, 3))
    sig = FourierFeatures(n_components=8).fit(big).sigma_
    assert sig == FourierFeatures(n_components=8).fit(big).sigma_
    assert sig == pytest.approx(_pair_median(big[_sample_indices(2000, 512)]), rel=1e-14)
    # all rows equal: 1.0; mostly equal rows: the median of the positive distances
    assert FourierFeatures(n_components=8).fit(np.ones((5, 2))).sigma_ == 1.0
    few = np.zeros((6, 2))
    few[0] = [3.0, 4.0]
    assert FourierFeatures(n_components=8).fit(few).sigma_ == pytest.approx(5.0)


@pytest.mark.parametrize("sparse", [False, True])
def test_default_bandwidth_counts_sample_weights_as_repeated_rows(sparse):
    import scipy.sparse as sp

    X3 = 3.0 * X + 1.0
    sw = np.random.default_rng(1).integers(0, 4, size=len(X3))
    sw[0] = 2
    rows = X3.repeat(sw, axis=0)
    weighted = ORFF(seed=0).fit(sp.csr_matrix(X3) if sparse else X3, sample_weight=sw)
    repeated = ORFF(seed=0).fit(sp.csr_matrix(rows) if sparse else rows)
    assert weighted.sigma_ == repeated.sigma_
    assert weighted.sigma_ == pytest.approx(_pair_median(rows), rel=1e-14)
    ones = ORFF(seed=0).fit(X3, sample_weight=np.ones(len(X3)))
    assert ones.sigma_ == ORFF(seed=0).fit(X3).sigma_
    assert ones.sigma_ == pytest.approx(_pair_median(X3), rel=1e-14)


def test_default_bandwidth_fits_raw_data():
    """The issue's case: a model at its defaults on data of scale 100 (sigma=1 learnt nothing)."""
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(3)
    Xr = 100.0 * rng.standard_normal((400, 3))
    y = np.sin(Xr[:, 0] / 100.0) + 0.05 * rng.standard_normal(400)
    good = make_pipeline(FourierFeatures(n_components=64), Ridge(1e-3)).fit(Xr[:300], y[:300])
    old = make_pipeline(FourierFeatures(n_components=64, sigma=1.0), Ridge(1e-3)).fit(
        Xr[:300], y[:300])
    assert good.score(Xr[300:], y[300:]) > 0.8 > old.score(Xr[300:], y[300:])


def test_orff_gamma_is_one_over_two_sigma_squared():
    a = ORFF("curl_free", gamma=0.125, n_components=16, seed=0).fit(X)
    b = ORFF("curl_free", sigma=2.0, n_components=16, seed=0).fit(X)
    np.testing.assert_allclose(a.transform(X), b.transform(X), rtol=1e-14, atol=1e-15)
    with pytest.raises(ValueError, match="give 'sigma' or 'gamma'"):
        ORFF(sigma=1.0, gamma=1.0).fit(X)


# ------------------------------------------------------------------ verbose
@pytest.mark.parametrize("make", [
    lambda v: FourierFeatures(n_components=16, verbose=v).fit(X),
    lambda v: ORFF(n_components=16, verbose=v).fit(X),
    lambda v: ORFFRidge(ORFF(n_components=16), verbose=v).fit(X, Y),
])
def test_verbose_reports_the_default_selection_on_stderr(make, capsys):
    make(0)
    assert capsys.readouterr().err == ""
    make(1)
    err = capsys.readouterr().err
    assert "default map: candidate 8/8, Gram error" in err


# ------------------------------------------------------------------ sparse input
@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("kernel", ["decomposable", "curl_free", "div_free"])
def test_orff_and_ridge_take_sparse_input(fmt, kernel):
    import scipy.sparse as sp

    rng = np.random.default_rng(1)
    Xd = rng.normal(size=(30, 3)) * (rng.random((30, 3)) < 0.5)
    Xs = sp.csr_matrix(Xd) if fmt == "csr" else sp.csc_matrix(Xd)
    Yd = np.stack([np.sin(Xd[:, 0]), np.cos(Xd[:, 1]), Xd[:, 2]], axis=1)
    dense = ORFF(kernel, n_components=16, flatten=True).fit(Xd)
    sparse = ORFF(kernel, n_components=16, flatten=True).fit(Xs)
    np.testing.assert_array_equal(sparse.frequencies_, dense.frequencies_)
    np.testing.assert_allclose(sparse.transform(Xs), dense.transform(Xd), rtol=1e-12, atol=1e-14)
    rd = ORFFRidge(ORFF(kernel, n_components=16), alpha=1e-2).fit(Xd, Yd)
    rs = ORFFRidge(ORFF(kernel, n_components=16), alpha=1e-2).fit(Xs, Yd)
    np.testing.assert_allclose(rs.predict(Xs), rd.predict(Xd), rtol=1e-9, atol=1e-10)
    # (seeded and a given bandwidth: the seedless default map and the default bandwidth are
    # chosen on the rows the first fit sees, here the first batch)
    rd = ORFFRidge(ORFF(kernel, n_components=16, seed=0, sigma=1.0), alpha=1e-2).fit(Xd, Yd)
    rp = ORFFRidge(ORFF(kernel, n_components=16, seed=0, sigma=1.0), alpha=1e-2)
    rp.partial_fit(Xs[:15], Yd[:15]).partial_fit(Xs[15:], Yd[15:])
    np.testing.assert_allclose(rp.predict(Xs), rd.predict(Xd), rtol=1e-8, atol=1e-9)


# ------------------------------------------------------------------ alpha=0, per-target alpha
def _flat_features(ridge, X):
    return ridge.orff_.transform(X).reshape(X.shape[0], -1, ridge.orff_.n_outputs_)


@pytest.mark.parametrize("solver", ["stein", "direct", "cg"])
@pytest.mark.parametrize("n", [60, 6])  # full rank and singular (n < 2 s)
def test_alpha_zero_is_minimum_norm_least_squares(solver, n):
    rng = np.random.default_rng(2)
    Xn = rng.normal(size=(n, 2))
    Yn = np.stack([np.sin(Xn[:, 0]), np.cos(Xn[:, 1])], axis=1)
    model = ORFFRidge(ORFF(n_components=8, seed=0), alpha=0, solver=solver, tol=1e-13,
                      fit_intercept=False).fit(Xn, Yn)
    # reference: lstsq on the explicit design matrix Phi (n p, 2 s r)
    Phi = np.swapaxes(_flat_features(model, Xn), 1, 2).reshape(n * 2, -1)
    theta = np.linalg.lstsq(Phi, Yn.ravel(), rcond=None)[0]
    np.testing.assert_allclose(model.predict(Xn), (Phi @ theta).reshape(n, 2), atol=1e-7)
    if solver != "cg":  # CG from zero also reaches the minimum norm, to its tolerance
        np.testing.assert_allclose(model.coef_, theta, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("solver", ["stein", "direct", "cg"])
def test_per_target_alpha_is_ridges(solver):
    from sklearn.linear_model import Ridge

    alpha = np.array([1e-3, 10.0])
    model = ORFFRidge(ORFF(n_components=8, seed=0), alpha=alpha, solver=solver,
                      tol=1e-14).fit(X, Y)
    F = model.orff_.scalar_features(X)  # the decomposable map with A = I: F per output
    ref = Ridge(alpha=alpha, solver="svd").fit(F, Y)
    np.testing.assert_allclose(model.predict(X), ref.predict(F), rtol=1e-8, atol=1e-10)
    # a diagonal A other than I: output a is sqrt(A_aa) F theta_a
    A = np.diag([4.0, 0.25])
    model = ORFFRidge(ORFF(A=A, n_components=8, seed=0), alpha=alpha, solver=solver,
                      tol=1e-14).fit(X, Y)
    for a in range(2):
        ref = Ridge(alpha=alpha[a], solver="svd").fit(np.sqrt(A[a, a]) * F, Y[:, a])
        np.testing.assert_allclose(model.predict(X)[:, a], ref.predict(np.sqrt(A[a, a]) * F),
                                   rtol=1e-7, atol=1e-9)


def test_per_target_alpha_errors():
    with pytest.raises(ValueError, match=r"'alpha' must have one value per target, shape \(2,\)"):
        ORFFRidge(ORFF(n_components=8), alpha=[1.0, 2.0, 3.0]).fit(X, Y)
    with pytest.raises(ValueError, match="'alpha' per target needs independent outputs"):
        ORFFRidge(ORFF("curl_free", n_components=8), alpha=[1.0, 2.0, 3.0]).fit(X, X)
    with pytest.raises(ValueError, match="'alpha' per target needs independent outputs"):
        ORFFRidge(ORFF(A=[[2.0, 1.0], [1.0, 2.0]], n_components=8), alpha=[1.0, 2.0]).fit(X, Y)
    with pytest.raises(ValueError, match="'alpha' must be a non-negative finite number; got -1.0."):
        ORFFRidge(alpha=-1.0).fit(X, Y)
    with pytest.raises(ValueError, match="'alpha' must be non-negative and finite"):
        ORFFRidge(alpha=[1.0, -1.0]).fit(X, Y)


# ------------------------------------------------------------------ ORFF(flatten=True), A=None
def test_bare_flatten_says_how_wide_it_is():
    X6 = np.random.default_rng(3).normal(size=(10, 6))
    with pytest.warns(UserWarning, match="gives 4608 columns, d\\^2 = 36 times") as record:
        Z = ORFF(n_components=64, flatten=True).fit(X6).transform(X6)
    assert Z.shape == (10, 4608)
    assert record[0].filename == __file__  # points at the caller of fit
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # the advertised fixes, and small widths, are silent
        assert ORFF(n_components=64, flatten=True, A=[[1.0]]).fit_transform(X6).shape == (10, 128)
        ORFF(n_components=64, flatten=True, A=np.eye(6)).fit(X6)
        ORFF(n_components=32, flatten=True).fit(X)


# ------------------------------------------------------------------ a QMCEngine as sequence
def test_a_qmc_engine_is_a_sequence():
    import qmc_orff
    from scipy.stats import norm, qmc

    eng = qmc.Sobol(3, seed=0)
    ff = FourierFeatures(n_components=16, sequence=eng, sigma=2.0, check="off").fit(X)
    t = qmc.Sobol(3, seed=0).random(16)
    np.testing.assert_allclose(ff.frequencies_, norm.ppf(t) / 2.0, rtol=1e-13)
    # the engine advanced: the next fit draws the next 16 points
    ff2 = FourierFeatures(n_components=16, sequence=eng, sigma=2.0, check="off").fit(X)
    ref = qmc.Sobol(3, seed=0)
    ref.fast_forward(16)
    np.testing.assert_allclose(ff2.frequencies_, norm.ppf(ref.random(16)) / 2.0, rtol=1e-13)
    # ours, and ORFF; the Matern kernel needs d + 1
    ORFF("curl_free", n_components=16, sequence=qmc_orff.Sobol(3, scramble=True, rng=0),
         check="off").fit(X)
    FourierFeatures("matern", n_components=8, sequence=qmc.Halton(4, seed=0)).fit(X)
    with pytest.raises(ValueError, match="'sequence' is a QMCEngine of dimension 2, but this "
                                         "map needs 3"):
        FourierFeatures(n_components=8, sequence=qmc.Sobol(2, seed=0)).fit(X)


# ------------------------------------------------------------------ check_estimator
# the configurations the README and the docs show (scalar outputs: scikit-learn's checks fit
# 1-column targets, which the curl- and div-free kernels refuse, as they need d columns), and
# the defaults (seedless: the default map's selection, which must see sample weights as
# weights, not repeated rows; the median-heuristic bandwidth, likewise), and the adaptive
# designs. The expected failures are declared in _expected_failures.
# ORFFRidge(ORFF(n_components=32)) failed check_regressors_train at the former default sigma=1 (training R^2 0.37 < 0.5,
# benchmarks/bench_default_bandwidth.py) and passes at the median heuristic (0.79)
def _expected_failures(estimator):
    """Known, not hidden: the adaptive ORFF design draws its training rows from the rows of
    ``X`` and ignores ``sample_weight`` (the docstring of ``ORFF.fit``), so repeated rows are
    not weighted rows; every other check passes."""
    if isinstance(estimator, ORFF) and estimator.sequence == "adaptive":
        return {name: "the adaptive design subsamples the rows: repeats are not weights"
                for name in ("check_sample_weight_equivalence_on_dense_data",
                             "check_sample_weight_equivalence_on_sparse_data")}
    return {}


@parametrize_with_checks([
    FourierFeatures(),
    FourierFeatures(n_components=32),
    FourierFeatures("rbf", gamma=0.125, n_components=256, random_state=0),  # README
    FourierFeatures(sigma=2.0, n_components=256),                            # README
    ORFF(),
    ORFF(n_components=32, flatten=True),
    ORFF("curl_free", sigma=0.5, n_components=500, measure="trace"),        # README
    ORFFRidge(),
    ORFFRidge(ORFF(n_components=32)),
    ORFFRidge(ORFF(n_components=32, gamma="scale")),
    ORFFRidge(ORFF(sigma=1.0, n_components=128), alpha=1e-3),                # README, Dask
    ORFFRidge(ORFF(sigma=1.0, n_components=64), alpha=1e-3),                 # docs, Dask
    # the designed maps (a short design: the checks fit many times)
    FourierFeatures(sequence="adaptive", n_components=8, design_options={"maxiter": 3}),
    ORFF(sequence="adaptive", n_components=8, design_options={"maxiter": 3}),
], expected_failed_checks=_expected_failures)
def test_check_estimator(estimator, check):
    check(estimator)


def test_the_seedless_orff_default_sees_weights_not_repeated_rows():
    rng = np.random.default_rng(4)
    X15 = rng.random((15, 30))
    sw = rng.integers(0, 5, size=15)
    order = rng.permutation(15)
    # (one output: the selection samples 512 rows, all of them here)
    weighted = ORFF(A=[[1.0]], n_components=32).fit(X15[order], sample_weight=sw[order])
    repeated = ORFF(A=[[1.0]], n_components=32).fit(X15.repeat(sw, axis=0))
    np.testing.assert_array_equal(weighted.frequencies_, repeated.frequencies_)
    # and the weights matter: uniform weights select another draw on these rows
    other = [ORFF(A=[[1.0]], n_components=32).fit(X15[order],
                                                  sample_weight=np.eye(15)[k] * 100 + 1)
             for k in range(15)]
    assert any(not np.array_equal(o.frequencies_, weighted.frequencies_) for o in other)


# ------------------------------------------------------------------ Dask DataFrames, set_output
def _no_compute(*args, **kwargs):
    raise AssertionError("computed")


@pytest.mark.parametrize("est", [FourierFeatures(n_components=8, seed=0),
                                 ORFF(n_components=8, seed=0, flatten=True)])
def test_dask_dataframes_stay_lazy(est):
    import warnings

    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    ddf = dd.from_pandas(df, npartitions=2)
    est.fit(df)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no false feature-names warning
        with dask.config.set(scheduler=_no_compute):  # nothing computed
            out = est.transform(ddf)
            est.set_output(transform="pandas")
            framed = est.transform(ddf)
            est.set_output(transform="default")
    np.testing.assert_array_equal(out.compute(), est.transform(df))
    assert isinstance(framed, dd.DataFrame)
    assert list(framed.columns) == list(est.get_feature_names_out())
    np.testing.assert_array_equal(framed.compute().to_numpy(), est.transform(df))
    with pytest.raises(ValueError, match="feature names should match"):
        est.transform(ddf.rename(columns={"a": "z"}))


def test_set_output_pandas_on_a_dask_array():
    da = pytest.importorskip("dask.array")
    pytest.importorskip("dask.dataframe")
    ff = FourierFeatures(n_components=8, seed=0).fit(X).set_output(transform="pandas")
    out = ff.transform(da.from_array(X, chunks=7))  # used to raise AttributeError
    np.testing.assert_array_equal(out.compute().to_numpy(), ff.transform(X).to_numpy())
    with pytest.raises(ValueError, match="needs a 2-D output; pass flatten=True"):
        ORFF(n_components=8, seed=0).fit(X).set_output(transform="pandas").transform(
            da.from_array(X, chunks=7))


def test_verbose_shows_the_adaptive_designs_progress(capsys):
    FourierFeatures(n_components=8, sequence="adaptive", seed=0,
                    design_options={"maxiter": 2}).fit(X)
    assert capsys.readouterr().err == ""
    FourierFeatures(n_components=8, sequence="adaptive", seed=0, verbose=1,
                    design_options={"maxiter": 2}).fit(X)
    assert capsys.readouterr().err != ""
