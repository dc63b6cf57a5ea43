"""scikit-learn conventions of the feature maps (issue 12 items 6-9): gamma, kernel="rbf",
random_state, sparse input, ORFF's flattened output with feature names and set_output."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from qmc_orff import ORFF, FourierFeatures, OperatorNystroem
from qmc_orff.kernels import Gaussian


# --------------------------------------------------------------------------- gamma and "rbf"
def test_gamma_is_rbfsamplers_parameter(rng):
    X = rng.normal(size=(40, 3))
    for sigma in (0.5, 2.0):
        gamma = 1.0 / (2.0 * sigma ** 2)
        a = FourierFeatures(sigma=sigma, n_components=32).fit(X)
        b = FourierFeatures(gamma=gamma, n_components=32).fit(X)
        np.testing.assert_allclose(b.frequencies_, a.frequencies_, rtol=1e-15)
        np.testing.assert_allclose(b.transform(X), a.transform(X), rtol=1e-13, atol=1e-15)
        assert b.sigma_ == pytest.approx(sigma, rel=1e-15)
    # the kernel it approximates is exp(-gamma |x - z|^2), computed here independently
    gamma = 0.3
    ff = FourierFeatures(gamma=gamma, n_components=2048).fit(X)
    Z = ff.transform(X)
    sq = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    err = np.max(np.abs(Z @ Z.T - np.exp(-gamma * sq)))
    wrong = np.max(np.abs(Z @ Z.T - np.exp(-gamma * sq / 2.0)))  # gamma read as 1 / sigma^2
    assert err < 0.02 and wrong > 5 * err
    np.testing.assert_allclose(ff.kernel_(X), np.exp(-gamma * sq), rtol=1e-12)


def test_gamma_per_coordinate(rng):
    X = rng.normal(size=(10, 2))
    gamma = np.array([0.5, 2.0])
    a = FourierFeatures(gamma=gamma, n_components=16).fit(X)
    b = FourierFeatures(sigma=1.0 / np.sqrt(2.0 * gamma), n_components=16).fit(X)
    np.testing.assert_allclose(a.transform(X), b.transform(X), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("kwargs, match", [
    ({"sigma": 1.0, "gamma": 0.5}, "give 'sigma' or 'gamma'"),
    ({"gamma": -1.0}, "'gamma' must be positive and finite"),
    ({"gamma": np.inf}, "'gamma' must be positive and finite"),
    ({"gamma": "big"}, "The 'gamma' parameter of FourierFeatures must be"),
    ({"gamma": True}, "'gamma' must be a positive real number"),
    ({"kernel": "laplacian", "gamma": 0.5}, "'gamma' applies to the Gaussian kernel"),
])
def test_gamma_errors(rng, kwargs, match):
    with pytest.raises(ValueError, match=match):
        FourierFeatures(n_components=4, **kwargs).fit(rng.normal(size=(5, 2)))


def test_rbf_is_the_gaussian(rng):
    X = rng.normal(size=(20, 3))
    a = FourierFeatures("rbf", sigma=1.5, n_components=16).fit(X)
    b = FourierFeatures("gaussian", sigma=1.5, n_components=16).fit(X)
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    assert isinstance(a.kernel_, Gaussian)
    with pytest.raises(ValueError, match="The 'kernel' parameter of FourierFeatures must be a str among .*'rbf'"):
        FourierFeatures("rbff").fit(X)


def test_docstring_says_columns_are_twice_n_components(rng):
    doc = FourierFeatures.__doc__
    assert "2 n_components columns" in doc and "RBFSampler" in doc
    assert FourierFeatures(n_components=8).fit_transform(rng.normal(size=(3, 2))).shape == (3, 16)


# --------------------------------------------------------------------------- random_state
@pytest.mark.parametrize("cls, kwargs", [(FourierFeatures, {"sequence": "mc"}),
                                         (FourierFeatures, {"sequence": "orf"}),
                                         (ORFF, {"sequence": "mc"})])
def test_random_state_is_seed(rng, cls, kwargs):
    X = rng.normal(size=(6, 3))
    a = cls(n_components=8, random_state=7, **kwargs).fit(X)
    b = cls(n_components=8, seed=7, **kwargs).fit(X)
    c = cls(n_components=8, random_state=8, **kwargs).fit(X)
    np.testing.assert_array_equal(a.frequencies_, b.frequencies_)
    assert not np.array_equal(a.frequencies_, c.frequencies_)
    # random_state, when given, is used instead of seed (scikit-learn's checks set it)
    d = cls(n_components=8, seed=1, random_state=7, **kwargs).fit(X)
    np.testing.assert_array_equal(d.frequencies_, b.frequencies_)


def test_random_state_instance(rng):
    X = rng.normal(size=(6, 3))
    a = FourierFeatures(sequence="mc", n_components=8,
                        random_state=np.random.RandomState(3)).fit(X)
    b = FourierFeatures(sequence="mc", n_components=8,
                        random_state=np.random.RandomState(3)).fit(X)
    np.testing.assert_array_equal(a.frequencies_, b.frequencies_)  # same state, same map
    rs = np.random.RandomState(3)
    ff = FourierFeatures(sequence="mc", n_components=8, random_state=rs)
    first = ff.fit(X).frequencies_.copy()
    second = ff.fit(X).frequencies_  # the RandomState advances, as in scikit-learn
    assert not np.array_equal(first, second)
    # scrambled QMC points take it too
    q = FourierFeatures(sequence="sobol", scramble=True, n_components=8,
                        random_state=np.random.RandomState(3)).fit(X)
    assert np.all(np.isfinite(q.frequencies_))


# --------------------------------------------------------------------------- sparse input
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sparse_input_equals_dense(rng, fmt, dtype):
    dense = rng.normal(size=(30, 6)) * (rng.random((30, 6)) < 0.3)
    dense = dense.astype(dtype)
    X = getattr(sp, f"{fmt}_matrix")(dense)
    ff = FourierFeatures(sigma=1.3, n_components=24).fit(X)
    ref = FourierFeatures(sigma=1.3, n_components=24).fit(dense)
    Zs, Zd = ff.transform(X), ref.transform(dense)
    assert isinstance(Zs, np.ndarray) and Zs.dtype == dtype and Zs.shape == (30, 48)
    tol = 1e-13 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(Zs, Zd, rtol=tol, atol=tol)
    # sparse arrays (not only matrices) too
    Za = ff.transform(sp.csr_array(dense))
    np.testing.assert_allclose(Za, Zd, rtol=tol, atol=tol)


def test_sparse_overflowing_phases_are_an_error(rng):
    ff = FourierFeatures(n_components=4).fit(np.ones((3, 2)))
    with pytest.raises(ValueError, match="'X' is too large for these frequencies"):
        ff.transform(sp.csr_matrix(np.full((3, 2), 1e308)))


def test_sparse_skewed_chi2_is_an_error(rng):
    X = sp.csr_matrix(np.abs(rng.normal(size=(4, 3))))
    with pytest.raises(ValueError, match="sparse 'X' is not supported for kernel='skewed_chi2'"):
        FourierFeatures("skewed_chi2", n_components=4).fit(X)


# --------------------------------------------------------------------------- ORFF, flattened
@pytest.mark.parametrize("kernel, measure", [("decomposable", "spectral"),
                                             ("curl_free", "spectral"),
                                             ("div_free", "trace")])
def test_orff_flatten_is_the_3d_map_flattened(rng, kernel, measure):
    X = rng.normal(size=(7, 3))
    a = ORFF(kernel, n_components=5, measure=measure, flatten=True).fit(X)
    b = ORFF(kernel, n_components=5, measure=measure).fit(X)
    Phi3 = b.transform(X)
    Phi2 = a.transform(X)
    n, m, p = Phi3.shape
    assert Phi2.shape == (n, m * p)
    np.testing.assert_array_equal(Phi2, Phi3.reshape(n, m * p))
    # the flattened rows carry the kernel: <Phi(x)[:, a], Phi(z)[:, b]> = K~(x, z)[a, b]
    K = b.approximate_kernel(X)
    np.testing.assert_allclose(np.einsum("ika,lkb->ilab", Phi2.reshape(n, m, p),
                                         Phi2.reshape(n, m, p)), K, rtol=1e-12, atol=1e-13)


def test_orff_feature_names(rng):
    X = rng.normal(size=(4, 2))
    orff = ORFF("div_free", n_components=3, flatten=True).fit(X)  # s=3, r=1, p=2
    names = orff.get_feature_names_out()
    assert names.shape == (orff.transform(X).shape[1],) == (12,)
    assert names[0] == "orff_cos_w0_b0_y0" and names[1] == "orff_cos_w0_b0_y1"
    assert names[2] == "orff_cos_w1_b0_y0" and names[6] == "orff_sin_w0_b0_y0"
    assert len(set(names)) == names.size
    # the name's cos/sin and frequency index match the column's values
    F = orff.scalar_features(X)  # (n, 2 s): cos then sin of frequency j
    B = orff._factor_stack()      # (s, p, r)
    Phi = orff.transform(X)
    for col, name in enumerate(names):
        part, w, b, y = name.split("_")[1:]
        c = 0 if part == "cos" else 1
        j, k, a = int(w[1:]), int(b[1:]), int(y[1:])
        np.testing.assert_allclose(Phi[:, col], F[:, c * 3 + j] * B[j, a, k], rtol=1e-14)
    with pytest.raises(ValueError, match="feature names need flatten=True"):
        ORFF("div_free", n_components=3).fit(X).get_feature_names_out()
    with pytest.raises(TypeError, match="The 'flatten' parameter of ORFF must be an instance of 'bool'"):
        ORFF(n_components=3, flatten="yes").fit(X)


def test_orff_in_a_pipeline_with_set_output(rng):
    pd = pytest.importorskip("pandas")  # in the test extra: a skip fails in CI (conftest)
    X = rng.normal(size=(60, 2))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2
    orff = ORFF("decomposable", A=np.eye(1), n_components=32, flatten=True).fit(X)
    model = make_pipeline(ORFF("decomposable", A=np.eye(1), n_components=32, flatten=True),
                          Ridge(alpha=1e-6)).fit(X, y)
    assert model.score(X, y) > 0.99
    frame = ORFF("decomposable", A=np.eye(1), n_components=32, flatten=True) \
        .set_output(transform="pandas").fit(X).transform(X)
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == list(orff.get_feature_names_out())
    np.testing.assert_array_equal(frame.to_numpy(), orff.transform(X))


@parametrize_with_checks([
    FourierFeatures("rbf", gamma=0.5, n_components=16, random_state=0, sequence="mc"),
    ORFF("curl_free", n_components=8, random_state=0, flatten=True),
])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("make", [lambda: ORFF("curl_free", n_components=8, seed=0),
                                  lambda: OperatorNystroem(n_components=10, random_state=0)],
                         ids=["ORFF", "OperatorNystroem"])
def test_approximate_kernel_names_the_second_rows(make):
    """A bad ``Z`` of ``approximate_kernel(X, Z)`` is refused naming 'Z', not 'X' (scikit-learn's
    validate_data calls every array X)."""
    X = np.random.default_rng(0).normal(size=(20, 3))
    est = make().fit(X)
    name = type(est).__name__
    with pytest.raises(ValueError, match=f"^Z has 4 features, but {name} is expecting 3"):
        est.approximate_kernel(X, np.ones((2, 4)))
    with pytest.raises(ValueError, match="Input Z contains NaN"):
        est.approximate_kernel(X, np.full((2, 3), np.nan))
    with pytest.raises(ValueError, match="^X has 4 features"):
        est.approximate_kernel(np.ones((2, 4)), X)
    K = est.approximate_kernel(X[:4], X[:5])
    np.testing.assert_allclose(K, est.approximate_kernel(X)[:4, :5], rtol=1e-12, atol=1e-14)
