"""Array API support (issue 26; float32 of issue 29 item 5): under scikit-learn's
``array_api_dispatch``, FourierFeatures, ORFF, ORFFRidge and gram_error take arrays of any
array-API namespace and return arrays of the input's namespace, device and dtype, equal to the
NumPy path (float64: 1e-10 on the features, 1e-8 on the predictions).

Namespaces: array-api-strict always (the test extra installs it; it also puts arrays on a
second, non-default device), torch where it is installed (CPU, and CUDA where available).
SCIPY_ARRAY_API=1 is set by tests/conftest.py before SciPy is imported.
"""
import importlib.util

import numpy as np
import pytest
import sklearn
from sklearn.base import clone

from qmc_orff import ORFF, FourierFeatures, OperatorNystroem, ORFFRidge, gram_error
from qmc_orff.kernels import CurlFree, Decomposable, DivFree, Gaussian, Laplacian

xp_api = pytest.importorskip("sklearn.utils._array_api")
if not hasattr(xp_api, "get_namespace_and_device"):  # pragma: no cover
    pytest.skip("this scikit-learn has no array API dispatch", allow_module_level=True)


def _namespaces():
    out = [pytest.param(("array_api_strict", None), id="strict"),
           pytest.param(("array_api_strict", "device1"), id="strict-device1")]
    torch_marks = [] if importlib.util.find_spec("torch") else [
        pytest.mark.skip(reason="torch not installed (optional: pip install torch)")]
    out.append(pytest.param(("torch", "cpu"), id="torch-cpu", marks=torch_marks))
    cuda = False
    if not torch_marks:
        import torch

        cuda = torch.cuda.is_available()
    out.append(pytest.param(("torch", "cuda"), id="torch-cuda", marks=[] if cuda else [
        pytest.mark.skip(reason="no CUDA device (or torch not installed)")]))
    return out


@pytest.fixture(params=_namespaces())
def space(request):
    """``(xp, device, to_xp)``: the namespace, its device and a NumPy -> xp converter."""
    name, dev = request.param
    if name == "array_api_strict":
        import array_api_strict as xp

        device = xp.Device(dev) if dev else xp.Device("CPU_DEVICE")
    else:
        import torch

        device = torch.zeros(1, device=dev).device  # "cuda" -> cuda:0, as the arrays report it
        with sklearn.config_context(array_api_dispatch=True):  # array_api_compat's torch
            xp = xp_api.get_namespace(torch.zeros(1))[0]
    return xp, device, lambda a: xp.asarray(a, device=device)


@pytest.fixture(autouse=True)
def dispatch():
    with sklearn.config_context(array_api_dispatch=True):
        yield


def _host(a):
    from qmc_orff._array_api import to_numpy

    return to_numpy(a)


def _assert_like(out, ref, X, xp, device, atol):
    """``out`` is of ``xp``, on ``device``, in ``X``'s dtype, and equals ``ref`` to ``atol``."""
    assert xp_api.get_namespace(out)[0].__name__.endswith(xp.__name__)
    assert xp_api.device(out) == device
    assert out.dtype == X.dtype
    host = _host(out)
    assert host.shape == ref.shape
    err = float(np.max(np.abs(host - ref)))
    assert err <= atol, err
    return err


_SOURCES = [("auto", None), ("auto", 0), ("orf-qmc", 0), ("halton", None), ("sobol", 0),
            ("lattice", 0), ("mc", 3), ("orf", 3), ("adaptive", 0)]


@pytest.mark.parametrize("sequence, seed", _SOURCES)
@pytest.mark.parametrize("dtype, atol", [("float64", 1e-10), ("float32", 1e-5)])
def test_fourier_features_every_sequence(space, rng, sequence, seed, dtype, atol):
    xp, device, to_xp = space
    X = rng.normal(size=(60, 3)).astype(dtype)
    kw = {"design_options": {"maxiter": 3, "n_train": 40}} if sequence == "adaptive" else {}
    ff = FourierFeatures(n_components=32, sequence=sequence, seed=seed, **kw)
    with sklearn.config_context(array_api_dispatch=False):
        ref = clone(ff).fit(X).transform(X)
    Xx = to_xp(X)
    fitted = ff.fit(Xx)
    assert xp_api.device(fitted.frequencies_) == device  # fitted arrays moved once, at fit
    _assert_like(fitted.transform(Xx), ref, Xx, xp, device, atol)


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian", "matern", "skewed_chi2"])
def test_fourier_features_kernels_and_a_supplied_array(space, rng, kernel):
    xp, device, to_xp = space
    X = rng.uniform(0.1, 2.0, size=(40, 2))
    W = rng.normal(size=(16, 2))
    for ff in (FourierFeatures(kernel, n_components=16, seed=1),
               FourierFeatures(kernel, n_components=None, sequence=W, check="off")):
        with sklearn.config_context(array_api_dispatch=False):
            ref = clone(ff).fit(X).transform(X)
        _assert_like(ff.fit(to_xp(X)).transform(to_xp(X)), ref, to_xp(X), xp, device, 1e-10)


@pytest.mark.parametrize("kernel", ["decomposable", "curl_free", "div_free"])
@pytest.mark.parametrize("flatten", [False, True])
@pytest.mark.parametrize("dtype, atol", [("float64", 1e-10), ("float32", 1e-5)])
def test_orff_transform_and_kernel(space, rng, kernel, flatten, dtype, atol):
    xp, device, to_xp = space
    X = rng.normal(size=(30, 3)).astype(dtype)
    A = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 0.0]])  # rank 2
    orff = ORFF(kernel, n_components=12, flatten=flatten,
                A=A if kernel == "decomposable" else None)
    with sklearn.config_context(array_api_dispatch=False):
        ref_map = clone(orff).fit(X)
        refs = (ref_map.transform(X), ref_map.scalar_features(X),
                ref_map.approximate_kernel(X[:7], X[3:12]),
                ref_map.approximate_kernel(X[:9], block=True))
    Xx = to_xp(X)
    orff.fit(Xx)
    outs = (orff.transform(Xx), orff.scalar_features(Xx),
            orff.approximate_kernel(Xx[:7, ...], Xx[3:12, ...]),
            orff.approximate_kernel(Xx[:9, ...], block=True))
    for out, ref in zip(outs, refs):
        _assert_like(out, ref, Xx, xp, device, atol)
    with pytest.raises(TypeError, match="NumPy-only"):
        orff.operator(Xx)


def test_float32_kept_without_dispatch(rng):
    """Issue 29 item 5: ORFF and ORFFRidge keep float32 on the NumPy path too."""
    X = rng.normal(size=(50, 2))
    Y = np.stack([np.sin(X[:, 0]), np.cos(X[:, 1])], axis=1)
    with sklearn.config_context(array_api_dispatch=False):
        orff = ORFF("curl_free", n_components=16, seed=0).fit(X)
        assert ORFF().__sklearn_tags__().transformer_tags.preserves_dtype == ["float64", "float32"]
        for method in (orff.transform, orff.scalar_features):
            out32, out64 = method(X.astype(np.float32)), method(X)
            assert out32.dtype == np.float32 and out64.dtype == np.float64
            np.testing.assert_allclose(out32, out64, atol=1e-6)
        model = ORFFRidge(ORFF(n_components=16, seed=0), alpha=1e-3).fit(X, Y)
        pred32, pred64 = model.predict(X.astype(np.float32)), model.predict(X)
        assert pred32.dtype == np.float32 and pred64.dtype == np.float64
        np.testing.assert_allclose(pred32, pred64, atol=1e-5)


_RIDGES = [("decomposable", 2, "auto"), ("decomposable", 2, "direct"), ("decomposable", 1, "stein"),
           ("curl_free", 3, "auto"), ("div_free", 3, "direct")]


@pytest.mark.parametrize("kernel, p, solver", _RIDGES)
@pytest.mark.parametrize("alpha", [1e-3, 0.0])
@pytest.mark.parametrize("weighted", [False, True])
def test_ridge_fit_partial_fit_predict_score(space, rng, kernel, p, solver, alpha, weighted):
    xp, device, to_xp = space
    X = rng.uniform(-1, 1, size=(90, 3))
    Y = np.stack([np.cos(2 * X[:, 0] + k) * X[:, 1] for k in range(p)], axis=1)
    y = Y[:, 0] if p == 1 else Y
    w = rng.uniform(0.5, 2.0, size=90) if weighted else None
    model = ORFFRidge(ORFF(kernel, n_components=12, seed=0), alpha=alpha, solver=solver)
    batches = [(a, min(a + 40, 90)) for a in range(0, 90, 40)]
    with sklearn.config_context(array_api_dispatch=False):
        ref = clone(model).fit(X, y, sample_weight=w)
        ref_pred, ref_score = ref.predict(X), ref.score(X, y)
        ref_streamed = clone(model)  # its map is fitted on the first batch
        for a, b in batches:
            ref_streamed.partial_fit(X[a:b], y[a:b], sample_weight=None if w is None else w[a:b])
    Xx, yx = to_xp(X), to_xp(y)
    wx = None if w is None else to_xp(w)
    fitted = clone(model).fit(Xx, yx, sample_weight=wx)
    assert fitted.solver_ == ref.solver_
    _assert_like(fitted.predict(Xx), ref_pred, Xx, xp, device, 1e-8)
    score = fitted.score(Xx, yx)
    assert isinstance(score, float) and abs(score - ref_score) < 1e-8
    streamed = clone(model)
    for a, b in batches:
        streamed.partial_fit(Xx[a:b, ...], yx[a:b, ...],
                             sample_weight=None if w is None else wx[a:b])
    assert streamed.n_samples_seen_ == 90
    with sklearn.config_context(array_api_dispatch=False):
        ref_streamed_pred = ref_streamed.predict(X)
    _assert_like(streamed.predict(Xx), ref_streamed_pred, Xx, xp, device, 1e-8)
    pred32 = fitted.predict(xp.astype(Xx, xp.float32))
    assert pred32.dtype == xp.float32
    np.testing.assert_allclose(_host(pred32), ref_pred, atol=1e-4)


@pytest.mark.parametrize("kernel, p, solver", _RIDGES)
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_ridge_least_squares_matches_numpy(space, rng, kernel, p, solver, fit_intercept):
    """``alpha=0`` on an ill-conditioned system (``cond(G)`` about 1e10, full rank): the
    minimum-norm solution by the same algorithm and cutoff as the NumPy path (SVD, ``lstsq``'s
    ``eps``; an explicit ``pinv(H) @ b`` was 4e-8 off here), predictions within 1e-8."""
    xp, device, to_xp = space
    X = rng.uniform(-1, 1, size=(90, 3))
    Y = np.stack([np.cos(2 * X[:, 0] + k) * X[:, 1] for k in range(p)], axis=1)
    y = Y[:, 0] if p == 1 else Y
    model = ORFFRidge(ORFF(kernel, n_components=24, seed=0), alpha=0.0, solver=solver,
                      fit_intercept=fit_intercept)
    with sklearn.config_context(array_api_dispatch=False):
        ref = clone(model).fit(X, y)
        ref_pred = ref.predict(X)
    lam = np.linalg.eigvalsh(ref._stats[4])
    assert 1e9 < lam[-1] / lam[0] < 1e11  # the regime this test is about
    fitted = clone(model).fit(to_xp(X), to_xp(y))
    assert fitted.solver_ == ref.solver_
    _assert_like(fitted.predict(to_xp(X)), ref_pred, to_xp(X), xp, device, 1e-8)


def test_ridge_mixed_inputs_and_numpy_only_solver(space, rng):
    xp, device, to_xp = space
    X = rng.uniform(-1, 1, size=(40, 2))
    y = np.sin(X[:, 0])
    model = ORFFRidge(ORFF(n_components=8, seed=0), alpha=1e-2)
    with sklearn.config_context(array_api_dispatch=False):
        ref = clone(model).fit(X, y).predict(X)
    # y and sample_weight as NumPy arrays follow X to its namespace and device
    out = clone(model).fit(to_xp(X), y, sample_weight=np.ones(40)).predict(to_xp(X))
    _assert_like(out, ref, to_xp(X), xp, device, 1e-8)
    with pytest.raises(ValueError, match="NumPy-only"):
        ORFFRidge(ORFF("curl_free", n_components=8, seed=0), solver="cg").fit(
            to_xp(X), to_xp(np.stack([y, y], axis=1)))
    assert ORFFRidge(solver="cg").__sklearn_tags__().array_api_support is False
    # the NumPy path's messages: 'stein' on a curl-free map, 'cg' on OperatorNystroem
    Y2 = to_xp(np.stack([y, y], axis=1))
    with pytest.raises(ValueError, match="'stein' needs kernel='decomposable'"):
        ORFFRidge(ORFF("curl_free", n_components=8, seed=0), solver="stein").fit(to_xp(X), Y2)
    with pytest.raises(ValueError, match="'solver'='stein' needs an ORFF feature map"):
        ORFFRidge(OperatorNystroem(n_components=8, random_state=0), solver="stein").fit(
            to_xp(X), Y2)
    # NumPy X with y of the namespace: the NumPy path (no IndexError from the namespace)
    with sklearn.config_context(array_api_dispatch=False):
        ref2 = clone(model).fit(X, y).predict(X)
    np.testing.assert_allclose(clone(model).fit(X, to_xp(y)).predict(X), ref2, atol=1e-12)
    fitted = clone(model).fit(to_xp(X), to_xp(y))
    with pytest.raises(ValueError, match="must use the same namespace"):
        fitted.predict(X)  # NumPy X after a fit on another namespace


@pytest.mark.parametrize("weights", [np.ones(39), -np.ones(40), np.zeros(40)])
@pytest.mark.parametrize("make", [
    lambda: ORFFRidge(ORFF(n_components=8, seed=0)),
    lambda: ORFFRidge(OperatorNystroem(n_components=8, random_state=0)),
    lambda: ORFF(n_components=8, seed=0),
    lambda: OperatorNystroem(n_components=8, random_state=0),
])
def test_weight_errors_say_what_numpy_says(space, rng, make, weights):
    xp, device, to_xp = space
    X = rng.uniform(-1, 1, size=(40, 2))
    args = (X, np.sin(X)) if isinstance(make(), ORFFRidge) else (X,)
    with sklearn.config_context(array_api_dispatch=False):
        with pytest.raises(ValueError) as numpy_error:
            make().fit(*args, sample_weight=weights)
    with pytest.raises(ValueError) as xp_error:
        make().fit(*(to_xp(a) for a in args), sample_weight=to_xp(weights))
    assert str(xp_error.value) == str(numpy_error.value)


@pytest.mark.parametrize("kernel", ["decomposable", "curl_free", "div_free"])
@pytest.mark.parametrize("dtype, atol", [("float64", 1e-10), ("float32", 1e-5)])
def test_operator_nystroem_and_its_ridge(space, rng, kernel, dtype, atol):
    """OperatorNystroem (fit, transform, approximate_kernel) and ORFFRidge(OperatorNystroem)
    answer in the input's namespace, device and dtype, equal to NumPy."""
    xp, device, to_xp = space
    X = rng.uniform(-1, 1, size=(50, 3)).astype(dtype)
    Y = np.stack([np.sin(X[:, 0]), np.cos(X[:, 1]), X[:, 2]], axis=1)
    ny = OperatorNystroem(kernel, n_components=30, random_state=0)
    model = ORFFRidge(ny, alpha=1e-3)
    with sklearn.config_context(array_api_dispatch=False):
        ref_map = clone(ny).fit(X)
        refs = (ref_map.transform(X), ref_map.approximate_kernel(X[:7], X[3:12]),
                ref_map.approximate_kernel(X[:9], block=True))
        ref_pred = clone(model).fit(X, Y).predict(X)
    Xx = to_xp(X)
    fitted = clone(ny).fit(Xx)
    outs = (fitted.transform(Xx), fitted.approximate_kernel(Xx[:7, ...], Xx[3:12, ...]),
            fitted.approximate_kernel(Xx[:9, ...], block=True))
    for out, ref in zip(outs, refs):
        _assert_like(out, ref, Xx, xp, device, atol)
    pred = clone(model).fit(Xx, to_xp(Y)).predict(Xx)
    _assert_like(pred, ref_pred, Xx, xp, device, 1e-8 if dtype == "float64" else 1e-4)
    with pytest.raises(ValueError, match="must use the same namespace"):
        clone(model).fit(Xx, to_xp(Y)).predict(X)


_OPERATOR_MAPS = [("decomposable", {}),
                  ("decomposable", {"sigma": [0.5, 1.0, 2.0], "A": [[2.0, 0.5], [0.5, 1.0]]}),
                  ("curl_free", {}), ("div_free", {"selection": "uniform"})]


@pytest.mark.parametrize("kernel, params", _OPERATOR_MAPS)
@pytest.mark.parametrize("flatten", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_operator_nystroem_features_equal_numpy(space, rng, kernel, params, flatten, dtype):
    """OperatorNystroem.transform and approximate_kernel (both layouts) in the input's namespace,
    device and dtype equal the NumPy path: 1e-10 in float64; float32 input is computed in float64
    on both paths, so its answers differ by at most one float32 rounding."""
    xp, device, to_xp = space
    X = rng.uniform(-1, 1, size=(40, 3)).astype(dtype)
    ny = OperatorNystroem(kernel, n_components=25, random_state=0, flatten=flatten, **params)
    with sklearn.config_context(array_api_dispatch=False):
        ref_map = clone(ny).fit(X)
        refs = (ref_map.transform(X), ref_map.approximate_kernel(X[:7], X[3:12]),
                ref_map.approximate_kernel(X[:9], block=True))
    Xx = to_xp(X)
    fitted = clone(ny).fit(Xx)
    outs = (fitted.transform(Xx), fitted.approximate_kernel(Xx[:7, ...], Xx[3:12, ...]),
            fitted.approximate_kernel(Xx[:9, ...], block=True))
    atol = 1e-10 if dtype == "float64" else 1e-6
    for out, ref in zip(outs, refs):
        _assert_like(out, ref, Xx, xp, device, atol)


@pytest.mark.parametrize("kernel", ["decomposable", "curl_free", "div_free"])
def test_operator_nystroem_computes_in_the_namespace(space, rng, monkeypatch, kernel):
    """Under dispatch, transform and approximate_kernel never copy the rows to the host: with
    the host copies and the NumPy distance kernels refused, they still answer (on the device)."""
    from qmc_orff import _array_api, _distances

    xp, device, to_xp = space
    X = rng.uniform(-1, 1, size=(30, 3))
    fitted = OperatorNystroem(kernel, n_components=20, random_state=0).fit(to_xp(X))

    def refuse(*args, **kwargs):
        raise AssertionError("a host (NumPy) copy or a NumPy kernel under dispatch")

    with monkeypatch.context() as patch:
        for module, name in [(_array_api, "host"), (_array_api, "to_numpy"),
                             (_distances, "sq_dists"), (_distances, "sq_dists_serial")]:
            patch.setattr(module, name, refuse)
        outs = (fitted.transform(to_xp(X)), fitted.approximate_kernel(to_xp(X[:5])))
    for out in outs:
        assert xp_api.get_namespace(out)[0].__name__.endswith(xp.__name__)
        assert xp_api.device(out) == device
    with sklearn.config_context(array_api_dispatch=False):
        ref_map = OperatorNystroem(kernel, n_components=20, random_state=0).fit(X)
        refs = (ref_map.transform(X), ref_map.approximate_kernel(X[:5]))
    for out, ref in zip(outs, refs):
        np.testing.assert_allclose(_host(out), ref, rtol=0, atol=1e-10)


@pytest.mark.parametrize("make", [
    lambda: Gaussian([0.7, 1.3, 2.0]),
    lambda: Laplacian(0.9),
    lambda: Decomposable(Gaussian(0.8), [[1.0, 0.3], [0.3, 2.0]]),
    lambda: CurlFree(1.1),
    lambda: DivFree(0.6) + CurlFree(1.5),
])
def test_kernel_values_in_the_namespace(space, rng, make):
    """The exact kernels written over the namespace (the NumPy path keeps the numba distances):
    values computed in ``xp`` equal ``kernel(X, Z)`` to 1e-12."""
    xp, device, to_xp = space
    X, Z = rng.normal(size=(11, 3)), rng.normal(size=(7, 3))
    kernel = make()
    out = kernel._values_in(to_xp(X), to_xp(Z), xp)
    assert xp_api.device(out) == device
    np.testing.assert_allclose(_host(out), kernel(X, Z), rtol=0, atol=1e-12)


@pytest.mark.parametrize("make", [
    lambda: ORFF(n_components=8, seed=0),
    lambda: FourierFeatures(n_components=8, seed=0),
    lambda: OperatorNystroem(n_components=8, random_state=0),
])
def test_float32_array_api_input_kept_without_dispatch(make):
    """As RBFSampler and Nystroem: a float32 array of another namespace, dispatch off, gives
    float32 features (NumPy arrays)."""
    import array_api_strict as strict

    X = np.random.default_rng(0).normal(size=(20, 3)).astype(np.float32)
    with sklearn.config_context(array_api_dispatch=False):
        est = make().fit(strict.asarray(X, device=strict.Device("device1")))
        out = est.transform(strict.asarray(X, device=strict.Device("device1")))
        ref = make().fit(X).transform(X)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), ref, atol=1e-6)


@pytest.mark.parametrize("make", [
    lambda: FourierFeatures(n_components=32),
    lambda: ORFF("curl_free", n_components=16, seed=0),
    lambda: ORFF(n_components=16, flatten=True, A=np.eye(1)),
])
def test_gram_error_end_to_end(space, rng, make):
    xp, device, to_xp = space
    X = rng.normal(size=(150, 3))
    with sklearn.config_context(array_api_dispatch=False):
        ref = gram_error(make().fit(X), X, n_samples=80, seed=1)
    on_device = gram_error(make().fit(to_xp(X)), to_xp(X), n_samples=80, seed=1)
    host_fitted = gram_error(make().fit(X), to_xp(X), n_samples=80, seed=1)
    assert type(on_device) is float and type(host_fitted) is float
    assert abs(on_device - ref) <= 1e-10 and abs(host_fitted - ref) <= 1e-10


def test_gram_error_of_nystroem(space, rng):
    """scikit-learn's Nystroem, fitted and measured under dispatch, as a reference map."""
    from sklearn.kernel_approximation import Nystroem

    xp, device, to_xp = space
    X = rng.normal(size=(120, 3))
    ny = Nystroem(gamma=0.5, n_components=40, random_state=0)
    with sklearn.config_context(array_api_dispatch=False):
        ref = gram_error(clone(ny).fit(X), X, kernel=Gaussian(1.0), seed=1)
    try:
        fitted = clone(ny).fit(to_xp(X))
    except Exception as exc:  # pragma: no cover - scikit-learn versions without it
        pytest.skip(f"this scikit-learn's Nystroem has no array API support: {exc}")
    got = gram_error(fitted, to_xp(X), kernel=Gaussian(1.0), seed=1)
    assert type(got) is float and abs(got - ref) <= 1e-8


def test_numpy_inputs_under_dispatch_take_the_numpy_path(rng):
    X = rng.normal(size=(20, 2))
    ff = FourierFeatures(n_components=8, seed=0)
    with sklearn.config_context(array_api_dispatch=False):
        ref = clone(ff).fit(X).transform(X)
    out = ff.fit(X).transform(X)
    assert isinstance(out, np.ndarray) and isinstance(ff.frequencies_, np.ndarray)
    np.testing.assert_array_equal(out, ref)


def test_tags_declare_array_api_support():
    for est in (FourierFeatures(), ORFF(), ORFFRidge()):
        assert est.__sklearn_tags__().array_api_support is True


def test_bench_gpu_quick_runs_on_the_cpu():
    """benchmarks/bench_gpu.py --quick runs without a GPU (array-api-strict on the CPU)."""
    import os
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, "benchmarks/bench_gpu.py", "--quick", "--namespace",
                          "strict", "--repeat", "1"], cwd=root, capture_output=True, text=True,
                         timeout=600, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    assert run.returncode == 0, run.stderr
    assert "bare GEMM + cos + sin" in run.stdout and "speed-up" in run.stdout
    assert "GPU floors: not measured (no GPU in this run)" in run.stdout
