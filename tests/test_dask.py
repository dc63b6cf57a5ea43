"""Dask: lazy transforms, chunk-wise ridge fits on any scheduler, a real LocalCluster (issue 12)."""
import subprocess
import sys
import textwrap
import tracemalloc

import dask
import dask.array as da
import numpy as np
import pytest

import qmc_orff
from qmc_orff import ORFF, FourierFeatures, ORFFRidge

A3 = np.array([[2.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]])


def _boom():
    raise AssertionError("computed at call time")


def lazy_never_computed(shape, dtype=np.float64):
    """A Dask array whose computation fails: proves that a call does not compute."""
    return da.from_delayed(dask.delayed(_boom)(), shape=shape, dtype=dtype)


# --------------------------------------------------------------------------- transforms
@pytest.mark.parametrize("dtype, out_dtype", [(np.float64, np.float64), (np.float32, np.float32),
                                              (np.int64, np.float64)])
def test_fourier_features_transform_is_lazy_and_equal(dtype, out_dtype):
    rng = np.random.default_rng(0)
    X = (rng.normal(size=(103, 4)) * 3).astype(dtype)
    ff = FourierFeatures(n_components=16, sigma=2.0).fit(X)
    Xd = da.from_array(X, chunks=(25, 2))  # two column chunks: merged by the transform
    Z = ff.transform(Xd)
    assert isinstance(Z, da.Array)
    assert Z.shape == (103, 32) and Z.dtype == out_dtype
    assert Z.chunks == ((25, 25, 25, 25, 3), (32,))
    np.testing.assert_array_equal(Z.compute(scheduler="sync"), ff.transform(X))
    ff.transform(lazy_never_computed((10**9, 4)))  # a billion rows, nothing computed


def test_orff_transform_is_lazy_and_equal():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (57, 3))
    for orff in (ORFF("div_free", n_components=8, seed=0).fit(X),
                 ORFF(A=A3, n_components=8, seed=0).fit(X)):
        P = orff.transform(da.from_array(X, chunks=20))
        ref = orff.transform(X)
        assert isinstance(P, da.Array) and P.dtype == np.float64
        assert P.shape == ref.shape and P.chunks == ((20, 20, 17), (ref.shape[1],), (3,))
        np.testing.assert_array_equal(P.compute(), ref)
        orff.transform(lazy_never_computed((10**9, 3)))


def test_transform_errors_at_call_time():
    X = np.zeros((5, 3))
    ff = FourierFeatures(n_components=4).fit(X)
    with pytest.raises(ValueError, match="X has 2 features, but FourierFeatures is expecting 3"):
        ff.transform(da.zeros((5, 2)))
    with pytest.raises(ValueError, match="'X' must be 2-D"):
        ff.transform(da.zeros((5, 3, 1)))
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        ORFF().transform(da.zeros((5, 3)))


def test_predict_is_lazy_and_equal():
    rng = np.random.default_rng(2)
    X, Y = rng.uniform(-1, 1, (80, 2)), rng.normal(size=(80, 2))
    for y in (Y, Y[:, 0]):
        m = ORFFRidge(ORFF(n_components=10, seed=0)).fit(X, y)
        pred = m.predict(da.from_array(X, chunks=30))
        assert isinstance(pred, da.Array) and pred.shape == y.shape
        np.testing.assert_allclose(pred.compute(), m.predict(X), rtol=1e-13)
        m.predict(lazy_never_computed((10**9, 2)))


# --------------------------------------------------------------------------- fits
@pytest.mark.parametrize("kernel, solver", [("decomposable", "stein"), ("curl_free", "direct"),
                                            ("div_free", "cg")])
@pytest.mark.parametrize("scheduler", ["sync", "threads"])
def test_dask_fit_equals_in_memory(kernel, solver, scheduler):
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (1000, 3))
    Y = np.sin(X @ rng.normal(size=(3, 3))) + 4.0
    w = rng.uniform(0, 2, 1000)
    kw = dict(alpha=1e-2, solver=solver, tol=1e-14)
    orff = ORFF(kernel, sigma=0.8, A=A3, n_components=20, seed=1)
    ref = ORFFRidge(orff, **kw).fit(X, Y, sample_weight=w)
    Xd = da.from_array(X, chunks=(137, 3))
    Yd = da.from_array(Y, chunks=(250, 1))  # other chunks: aligned by the fit
    with dask.config.set(scheduler=scheduler):
        m = ORFFRidge(orff, **kw).fit(Xd, Yd, sample_weight=da.from_array(w, chunks=300))
    assert m.n_samples_seen_ == 1000 and m.n_features_in_ == 3 and m.solver_ == solver
    np.testing.assert_allclose(m.coef_, ref.coef_, rtol=0, atol=1e-8 * np.abs(ref.coef_).max())
    np.testing.assert_allclose(m.intercept_, ref.intercept_, rtol=1e-10)


def test_dask_fit_scalar_kernel_p1_numpy_target():
    """p = 1: scalar Gaussian kernel ridge; ``y`` in memory, ``X`` a Dask array."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(500, 5))
    y = np.cos(X[:, 0]) * X[:, 1] - 30.0
    ref = ORFFRidge(ORFF(sigma=2.0, n_components=32), alpha=0.1).fit(X, y)
    m = ORFFRidge(ORFF(sigma=2.0, n_components=32), alpha=0.1).fit(
        da.from_array(X, chunks=(64, 5)), y)
    assert isinstance(m.intercept_, float)
    np.testing.assert_allclose(m.coef_, ref.coef_, rtol=0, atol=1e-8 * np.abs(ref.coef_).max())
    np.testing.assert_allclose(m.predict(X), ref.predict(X), rtol=1e-9)


def test_dask_fit_map_reads_the_rows_an_in_memory_fit_reads():
    """The seedless default's selection and the fit-time check see the same rows of a Dask
    array as of the array in memory: the same map, the same verdict."""
    from qmc_orff.sources.frequencies import make_frequencies

    rng = np.random.default_rng(6)
    X = rng.uniform(-1, 1, size=(700, 2))
    Y = np.stack([np.cos(X[:, 0]), np.sin(X[:, 1])], axis=1)
    Xd = da.from_array(X, chunks=(100, 2))
    ref = ORFFRidge(ORFF("curl_free", sigma=0.5, n_components=24), alpha=0.1).fit(X, Y)
    m = ORFFRidge(ORFF("curl_free", sigma=0.5, n_components=24), alpha=0.1).fit(Xd, Y)
    np.testing.assert_array_equal(m.orff_.frequencies_, ref.orff_.frequencies_)
    wrong = make_frequencies("gaussian", 64, 2, sequence="orf", seed=0)[0] * 6.0  # 6x too wide
    bad = ORFF("curl_free", sigma=0.5, n_components=None, sequence=wrong, check="raise")
    with pytest.raises(ValueError, match="worse than 'orf' frequencies"):
        ORFFRidge(bad, alpha=0.1).fit(Xd, Y)


def test_dask_fit_default_bandwidth_reads_the_rows_an_in_memory_fit_reads():
    """The default bandwidth (median heuristic on a fixed 512-row sample): a Dask fit of 700
    rows computes that sample only and gives the in-memory fit's bandwidth, map and check."""
    from qmc_orff.sources.frequencies import make_frequencies

    rng = np.random.default_rng(7)
    X = 40.0 * rng.uniform(-1, 1, size=(700, 2))
    Y = np.stack([np.cos(X[:, 0] / 40.0), np.sin(X[:, 1] / 40.0)], axis=1)
    w = rng.integers(0, 3, size=700).astype(float)
    Xd, wd = da.from_array(X, chunks=(100, 2)), da.from_array(w, chunks=100)
    seq = make_frequencies("gaussian", 24, 2, sequence="orf", seed=0)[0]
    for orff in (ORFF("curl_free", n_components=24),
                 ORFF("curl_free", n_components=None, sequence=seq, check="warn")):
        for weights, dweights in ((None, None), (w, wd)):
            ref = ORFFRidge(orff, alpha=0.1).fit(X, Y, sample_weight=weights)
            m = ORFFRidge(orff, alpha=0.1).fit(Xd, Y, sample_weight=dweights)
            assert m.orff_.sigma_ == ref.orff_.sigma_ > 10.0
            np.testing.assert_array_equal(m.orff_.frequencies_, ref.orff_.frequencies_)
            assert m.orff_.check_ == ref.orff_.check_
            np.testing.assert_allclose(m.predict(X), ref.predict(X), rtol=1e-8, atol=1e-10)


def test_dask_fit_errors():
    X = da.zeros((20, 2), chunks=5)
    with pytest.raises(ValueError, match="'y' must have 20 rows"):
        ORFFRidge().fit(X, np.zeros(19))
    with pytest.raises(ValueError, match="'y' must have 20 rows"):
        ORFFRidge().fit(X, da.zeros(19))
    with pytest.raises(ValueError, match="'X' must be 2-D"):
        ORFFRidge().fit(da.zeros((20,)), np.zeros(20))
    bad = da.from_array(np.where(np.arange(20) == 13, np.nan, 0.0), chunks=5)
    with pytest.raises(ValueError, match="y contains NaN"):
        ORFFRidge().fit(X, bad)
    with pytest.raises(ValueError, match="'sample_weight' must be finite, non-negative"):
        ORFFRidge().fit(X, np.zeros(20), sample_weight=-da.ones(20, chunks=5))


# --------------------------------------------------------------------------- threads
class _ThreadProbe:
    """A stand-in estimator whose output is the thread limits seen inside the task."""
    n_features_in_ = 1

    def transform(self, X):
        import numba
        return np.tile([qmc_orff.get_num_threads(), numba.get_num_threads()], (X.shape[0], 1))


def test_dask_tasks_run_single_threaded_by_default():
    from qmc_orff import _dask, threads
    X = da.zeros((40, 1), chunks=10)
    with dask.config.set(scheduler="threads"):
        seen = _dask.map_rows(_ThreadProbe(), "transform", X).compute()
    assert np.all(seen == 1)
    threads.set_dask_task_threads(2)
    try:
        seen = _dask.map_rows(_ThreadProbe(), "transform", X).compute(scheduler="sync")
    finally:
        threads.set_dask_task_threads(1)
    assert np.all(seen == min(2, threads.numba.config.NUMBA_NUM_THREADS))


# --------------------------------------------------------------------------- a real cluster
@pytest.mark.parametrize("n, chunk", [
    (300_000, 50_000),  # the default suite (and CI) runs a real cluster at this size
    pytest.param(3_000_000, 250_000, marks=pytest.mark.slow),  # 1.5 GB of features
])
def test_local_cluster_fit_matches_in_memory_with_small_client_memory(n, chunk):
    """Issue 12, item 5: 2 worker processes on loopback; rows generated chunk by chunk."""
    import distributed  # installed by the `test` extra
    s = 32
    feature_bytes = n * 2 * s * 8  # the (n, 2 s) feature matrix
    X = da.random.default_rng(5).uniform(-2, 2, size=(n, 3), chunks=(chunk, 3))
    y = da.sin(2 * X[:, 0]) * da.cos(X[:, 1]) + 0.5 * X[:, 2] + 100.0
    orff = ORFF(sigma=1.0, n_components=s, seed=0)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None,
                                  worker_dashboard_address=None, silence_logs=40) as cluster, \
            distributed.Client(cluster, timeout="60s") as client:
        client.run(lambda: None)  # workers up
        ORFFRidge(orff).fit(X[:1000], y[:1000])  # one-time imports and compilation, not data
        tracemalloc.start()
        try:
            model = ORFFRidge(orff, alpha=1e-3).fit(X, y)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        Xm, ym = dask.compute(X, y)
    ref = ORFFRidge(orff, alpha=1e-3).fit(Xm, ym)
    assert model.n_samples_seen_ == n
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=0,
                               atol=1e-8 * np.abs(ref.coef_).max())
    np.testing.assert_allclose(model.intercept_, ref.intercept_, rtol=1e-10)
    assert peak < feature_bytes / 20, (peak, feature_bytes)


# --------------------------------------------------------------------------- without dask
def test_library_works_without_dask():
    code = textwrap.dedent("""
        import sys
        for name in ("dask", "dask.array", "distributed"):
            sys.modules[name] = None  # import dask -> ImportError
        import numpy as np
        import qmc_orff
        X = np.random.default_rng(0).uniform(-1, 1, (50, 2))
        qmc_orff.FourierFeatures(n_components=4).fit(X).transform(X)
        m = qmc_orff.ORFFRidge(qmc_orff.ORFF(n_components=4)).fit(X, X)
        m.partial_fit(X, X).predict(X)
        assert not any(k.startswith("dask") and sys.modules[k] is not None
                       for k in sys.modules), "dask imported"
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
