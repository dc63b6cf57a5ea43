"""ORFFRidge: solvers against a dense reference, structure of the learned fields, API."""
import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.base import clone
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from qmc_orff import ORFF, FourierFeatures, OperatorNystroem, ORFFRidge

A3 = np.array([[2.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]])  # rank 2


def dense_ridge(orff, X, Y, alpha):
    """Reference: materialise Phi(X) and solve (Phi^T Phi + alpha I) theta = Phi^T y."""
    Phi = orff.transform(X)
    n, q, p = Phi.shape
    P = Phi.transpose(0, 2, 1).reshape(n * p, q)
    return np.linalg.solve(P.T @ P + alpha * np.eye(q), P.T @ Y.ravel())


@pytest.mark.parametrize("kernel, solvers", [("decomposable", ["stein", "direct", "cg"]),
                                             ("curl_free", ["direct", "cg"]),
                                             ("div_free", ["direct", "cg"])])
@pytest.mark.parametrize("measure", ["spectral", "bounded", "trace"])
def test_solvers_equal_dense_reference(kernel, solvers, measure):
    rng = np.random.default_rng(0)
    X, Y = rng.uniform(-1, 1, (120, 3)), rng.normal(size=(120, 3))
    orff = ORFF(kernel, sigma=0.7, A=A3, n_components=30, measure=measure, seed=1)
    ref = dense_ridge(clone_fit(orff, X), X, Y, 0.1)
    for solver in solvers:
        model = ORFFRidge(orff, alpha=0.1, solver=solver, tol=1e-14,
                          fit_intercept=False).fit(X, Y)
        assert model.solver_ == solver
        np.testing.assert_allclose(model.coef_, ref, rtol=0, atol=1e-8 * np.abs(ref).max())
        pred = model.predict(X)
        np.testing.assert_allclose(pred, model.orff_.operator(X).matvec(ref).reshape(120, 3),
                                   atol=1e-8 * np.abs(pred).max())


@pytest.mark.parametrize("kernel", ["decomposable", "curl_free", "div_free"])
def test_matrix_free_cg_equals_dense_reference(kernel, monkeypatch):
    """CG through the operator and its adjoint (the path taken when F^T F is too big)."""
    import qmc_orff.learning.ridge as learning
    monkeypatch.setattr(learning, "GRAM_MAX_BYTES", 0)
    rng = np.random.default_rng(7)
    X, Y = rng.uniform(-1, 1, (90, 3)), rng.normal(size=(90, 3))
    orff = ORFF(kernel, sigma=0.7, A=A3, n_components=20, measure="bounded", seed=3)
    ref = dense_ridge(clone_fit(orff, X), X, Y, 0.1)
    model = ORFFRidge(orff, alpha=0.1, solver="cg", tol=1e-14, fit_intercept=False).fit(X, Y)
    np.testing.assert_allclose(model.coef_, ref, rtol=0, atol=1e-8 * np.abs(ref).max())


def clone_fit(orff, X):
    from sklearn.base import clone
    return clone(orff).fit(X)


def test_auto_solver_choice():
    rng = np.random.default_rng(1)
    X, Y = rng.uniform(-1, 1, (50, 2)), rng.normal(size=(50, 2))
    assert ORFFRidge(ORFF("decomposable", n_components=8, seed=0)).fit(X, Y).solver_ == "stein"
    assert ORFFRidge(ORFF("curl_free", n_components=8, seed=0)).fit(X, Y).solver_ == "direct"
    m = ORFFRidge(ORFF("curl_free", n_components=2100, seed=0), alpha=10.0, tol=1e-6).fit(X, Y)
    assert m.solver_ == "cg" and m.n_iter_ > 0


def test_decomposable_identity_default_and_1d_target():
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, (60, 2))
    Y = rng.normal(size=(60, 4))
    m = ORFFRidge(ORFF(n_components=10, seed=0), fit_intercept=False).fit(X, Y)
    np.testing.assert_array_equal(m.orff_.kernel_.A, np.eye(4))
    assert m.predict(X).shape == (60, 4)
    # A = I: four independent scalar ridge problems on the same features
    F = m.orff_.scalar_features(X)
    np.testing.assert_allclose(m.predict(X), F @ np.linalg.solve(F.T @ F + np.eye(20), F.T @ Y),
                               atol=1e-10)
    m1 = ORFFRidge(ORFF(n_components=10, seed=0), fit_intercept=False).fit(X, Y[:, 0])
    assert m1.predict(X).shape == (60,)
    np.testing.assert_allclose(m1.predict(X), m.predict(X)[:, 0], atol=1e-10)


def test_cg_convergence_warning():
    rng = np.random.default_rng(3)
    X, Y = rng.uniform(-1, 1, (40, 2)), rng.normal(size=(40, 2))
    with pytest.warns(ConvergenceWarning, match="conjugate gradient did not reach"):
        ORFFRidge(ORFF("curl_free", n_components=20, seed=0), solver="cg", alpha=1e-6,
                  max_iter=2).fit(X, Y)


# --------------------------------------------------------------------------- the 2-D field of Brault et al.
CENTRES = np.array([[0.0, 0.0], [0.0, 1.0], [0.0, -1.0], [-1.0, 0.0], [1.0, 0.0]])
SIGNS = np.array([1.0, 1.0, 1.0, -1.0, -1.0])
H = 0.3


def curl_free_field(X):
    """Gradient of five Gaussians (positive at [0,0], [0,+-1], negative at [+-1,0]); section 4.2."""
    D = X[:, None, :] - CENTRES[None]
    g = np.exp(-np.sum(D**2, -1) / (2 * H * H)) * SIGNS
    return np.einsum("ij,ijk->ik", g, -D / H**2)


def div_free_field(X):
    """The curl-free field rotated by 90 degrees."""
    F = curl_free_field(X)
    return np.stack([-F[:, 1], F[:, 0]], axis=1)


def test_orff_ridge_beats_independent_scalar_ridge():
    """Brault et al. section 4.2: at equal D, the curl-free ORFF model beats independent scalar ridge.

    Both models get the best (sigma, alpha) of the same small grid (an oracle choice, the same
    for both), on five data sets.  Measured test-MSE ratios ours / scalar for data seeds 0..4
    (both on deterministic RR2 Halton, the same source, named explicitly since the default
    changed: the scalar default now picks the best of 8 draws on the training inputs, which
    would compare two different point sources): 0.39, 0.33, 0.31, 0.42, 0.77.  Our model has
    no intercept (as when these were measured; the scalar Ridge has one).  With an intercept on
    both, seed 4 is a tie (1.015).
    """
    D = 100
    grid = [(sig, a) for sig in (0.2, H, 0.5) for a in (1e-3, 1e-2, 1e-1)]
    ours, scalar = [], []
    for data_seed in range(5):
        rng = np.random.default_rng(data_seed)
        Xtr, Xte = rng.uniform(-2, 2, (400, 2)), rng.uniform(-2, 2, (2000, 2))
        Ytr = curl_free_field(Xtr) + 0.05 * rng.normal(size=(400, 2))
        Yte = curl_free_field(Xte)
        ours.append(min(np.mean((ORFFRidge(ORFF("curl_free", sigma=sig, n_components=D,
                                                measure="trace", sequence="halton"), alpha=a,
                                           fit_intercept=False)
                                 .fit(Xtr, Ytr).predict(Xte) - Yte) ** 2) for sig, a in grid))
        scalar.append(min(np.mean((make_pipeline(FourierFeatures(sigma=sig, n_components=D,
                                                                         sequence="halton"),
                                                 Ridge(alpha=a)).fit(Xtr, Ytr).predict(Xte)
                                   - Yte) ** 2) for sig, a in grid))
    ours, scalar = np.array(ours), np.array(scalar)
    assert np.all(ours < scalar), ours / scalar
    assert ours.sum() < 0.6 * scalar.sum(), ours / scalar


def _jacobian(model, G, h=1e-5):
    J = np.empty((G.shape[0], 2, 2))
    for b in range(2):
        e = np.zeros(2)
        e[b] = h
        J[:, :, b] = (model.predict(G + e) - model.predict(G - e)) / (2 * h)
    return J


def test_learned_fields_are_curl_free_and_divergence_free():
    rng = np.random.default_rng(5)
    X = rng.uniform(-2, 2, (300, 2))
    g = np.linspace(-1.5, 1.5, 15)
    G = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2)
    curl = ORFFRidge(ORFF("curl_free", sigma=H, n_components=200, seed=0), alpha=1e-3).fit(
        X, curl_free_field(X))
    J = _jacobian(curl, G)
    scale = np.abs(J).max()
    assert np.abs(J[:, 1, 0] - J[:, 0, 1]).max() < 1e-6 * scale  # curl f = 0
    div = ORFFRidge(ORFF("div_free", sigma=H, n_components=200, seed=0), alpha=1e-3).fit(
        X, div_free_field(X))
    J = _jacobian(div, G)
    assert np.abs(J[:, 0, 0] + J[:, 1, 1]).max() < 1e-6 * np.abs(J).max()  # div f = 0
    # a decomposable model of the same data has neither property (the test can fail)
    dec = ORFFRidge(ORFF("decomposable", sigma=H, n_components=200, seed=0), alpha=1e-3).fit(
        X, curl_free_field(X))
    J = _jacobian(dec, G)
    assert np.abs(J[:, 1, 0] - J[:, 0, 1]).max() > 1e-3 * np.abs(J).max()


# --------------------------------------------------------------------------- errors and API
def test_errors():
    rng = np.random.default_rng(6)
    X, Y = rng.uniform(-1, 1, (20, 2)), rng.normal(size=(20, 2))
    with pytest.raises(ValueError, match="'alpha' must be a non-negative finite number"):
        ORFFRidge(alpha=-1e-3).fit(X, Y)
    with pytest.raises(ValueError, match="The 'solver' parameter of ORFFRidge must be a str among"):
        ORFFRidge(solver="lsqr").fit(X, Y)
    with pytest.raises(ValueError, match="'solver'='stein' needs kernel='decomposable'"):
        ORFFRidge(ORFF("curl_free", n_components=4), solver="stein").fit(X, Y)
    with pytest.raises(ValueError, match="'y' must have p=2 columns for kernel='curl_free'"):
        ORFFRidge(ORFF("curl_free", n_components=4)).fit(X, np.zeros((20, 3)))
    with pytest.raises(ValueError, match="'y' must have p=3 columns for kernel='decomposable'"):
        ORFFRidge(ORFF(A=A3, n_components=4)).fit(X, Y)
    with pytest.raises(TypeError, match="The 'orff' parameter of ORFFRidge must be an instance of 'qmc_orff.maps.orff.ORFF'"):
        ORFFRidge(FourierFeatures()).fit(X, Y)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        ORFFRidge().fit(np.where(X > 0.5, np.nan, X), Y)
    m = ORFFRidge(ORFF(n_components=4, seed=0)).fit(X, Y)
    with pytest.raises(ValueError, match="X has 3 features, but ORFFRidge is expecting 2"):
        m.predict(np.zeros((2, 3)))


@pytest.mark.parametrize("kwargs, exc, match", [
    # these used to return theta = 0 (a zero predictor) without an error
    (dict(max_iter=0), ValueError, "'max_iter' must be >= 1; got 0"),
    (dict(max_iter=-1), ValueError, "'max_iter' must be >= 1; got -1"),
    (dict(max_iter=2.5), TypeError, "The 'max_iter' parameter of ORFFRidge must be"),
    (dict(tol=np.inf), ValueError, "'tol' must be a positive finite number"),
    (dict(tol=0.0), ValueError, "'tol' must be a positive finite number"),
    (dict(alpha="1"), TypeError, "The 'alpha' parameter of ORFFRidge must be"),
    (dict(alpha=np.nan), ValueError, "'alpha' must be a non-negative finite number; got nan"),
])
def test_cg_settings_are_validated(kwargs, exc, match):
    rng = np.random.default_rng(6)
    X, Y = rng.uniform(-1, 1, (20, 2)), rng.normal(size=(20, 2))
    with pytest.raises(exc, match=match):
        ORFFRidge(ORFF("curl_free", n_components=4, seed=0), solver="cg", **kwargs).fit(X, Y)


def test_orff_param_not_modified():
    orff = ORFF("decomposable", n_components=4, seed=0)
    ORFFRidge(orff).fit(np.zeros((5, 2)), np.ones((5, 3)))
    assert orff.A is None and not hasattr(orff, "frequencies_")


# Curl- and div-free models need p = d outputs, which the generic checks' targets are
# not; the decomposable kernel (any p) is checked: the default estimator, and each solver.
@parametrize_with_checks([
    ORFFRidge(),
    ORFFRidge(ORFF(sigma=3.0, n_components=64, seed=0), solver="direct"),
    ORFFRidge(ORFF(sigma=3.0, n_components=64, seed=0), solver="cg", tol=1e-8),
])
def test_sklearn_compatible(estimator, check):
    check(estimator)


# --------------------------------------------------------------------------- intercept, weights
def dense_ridge_intercept(orff, X, Y, alpha, w):
    """Reference: the augmented normal equations of
    min |W^1/2 (P theta + E b - y)|^2 + alpha |theta|^2.

    ``E = 1_n (x) I_p`` puts the intercept on every output; no centring involved.
    """
    Phi = orff.transform(X)
    n, q, p = Phi.shape
    P = Phi.transpose(0, 2, 1).reshape(n * p, q)
    E = np.kron(np.ones((n, 1)), np.eye(p))
    A = np.hstack([P, E])
    wr = np.repeat(w, p)
    M = A.T @ (wr[:, None] * A)
    M[:q, :q] += alpha * np.eye(q)
    sol = np.linalg.solve(M, A.T @ (wr * Y.ravel()))
    return sol[:q], sol[q:]


@pytest.mark.parametrize("kernel, solvers", [("decomposable", ["stein", "direct", "cg"]),
                                             ("curl_free", ["direct", "cg"]),
                                             ("div_free", ["direct", "cg"])])
def test_intercept_and_weights_equal_dense_reference(kernel, solvers):
    rng = np.random.default_rng(11)
    X = rng.uniform(-1, 1, (150, 3))
    Y = rng.normal(size=(150, 3)) + np.array([100.0, -3.0, 7.0])
    w = rng.uniform(0, 2, 150)
    w[:10] = 0.0
    orff = ORFF(kernel, sigma=0.7, A=A3, n_components=30, measure="bounded", seed=1)
    theta, b = dense_ridge_intercept(clone_fit(orff, X), X, Y, 0.1, w)
    for solver in solvers:
        m = ORFFRidge(orff, alpha=0.1, solver=solver, tol=1e-14).fit(X, Y, sample_weight=w)
        np.testing.assert_allclose(m.coef_, theta, rtol=0, atol=1e-8 * np.abs(theta).max())
        np.testing.assert_allclose(m.intercept_, b, rtol=1e-10)
        Xt = rng.uniform(-1, 1, (20, 3))
        np.testing.assert_allclose(
            m.predict(Xt), m.orff_.operator(Xt).matvec(theta).reshape(20, 3) + b, rtol=1e-9)


@pytest.mark.parametrize("kernel", ["decomposable", "curl_free"])
def test_matrix_free_cg_with_intercept_and_weights(kernel, monkeypatch):
    import qmc_orff.learning.ridge as learning
    monkeypatch.setattr(learning, "GRAM_MAX_BYTES", 0)
    rng = np.random.default_rng(12)
    X, Y = rng.uniform(-1, 1, (90, 3)), rng.normal(size=(90, 3)) + 50.0
    w = rng.uniform(0, 3, 90)
    orff = ORFF(kernel, sigma=0.7, A=A3, n_components=20, seed=3)
    theta, b = dense_ridge_intercept(clone_fit(orff, X), X, Y, 0.1, w)
    m = ORFFRidge(orff, alpha=0.1, solver="cg", tol=1e-14).fit(X, Y, sample_weight=w)
    np.testing.assert_allclose(m.coef_, theta, rtol=0, atol=1e-8 * np.abs(theta).max())
    np.testing.assert_allclose(m.intercept_, b, rtol=1e-10)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_scalar_kernel_p1_equals_sklearn_ridge(fit_intercept):
    """p = 1, A = [[1]]: scalar Gaussian kernel ridge = sklearn's Ridge on the same features."""
    rng = np.random.default_rng(13)
    X = rng.normal(size=(300, 4))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 + 20.0
    w = rng.integers(0, 4, 300).astype(float)
    m = ORFFRidge(ORFF(sigma=1.5, n_components=40, seed=0), alpha=0.3,
                  fit_intercept=fit_intercept).fit(X, y, sample_weight=w)
    F = m.orff_.scalar_features(X)
    ref = Ridge(alpha=0.3, fit_intercept=fit_intercept, solver="cholesky", tol=1e-12).fit(
        F, y, sample_weight=w)
    np.testing.assert_allclose(m.coef_, ref.coef_, rtol=0, atol=1e-8 * np.abs(ref.coef_).max())
    np.testing.assert_allclose(m.intercept_, ref.intercept_, rtol=1e-10, atol=1e-12)
    assert isinstance(m.intercept_, float)
    Xt = rng.normal(size=(50, 4))
    np.testing.assert_allclose(m.predict(Xt), ref.predict(m.orff_.scalar_features(Xt)),
                               rtol=1e-10)


def test_offset_target_keeps_r2():
    """Issue 13: an offset of 100 on the target; R^2 on held-out points."""
    rng = np.random.default_rng(14)
    Xtr, Xte = rng.uniform(-1, 1, (500, 2)), rng.uniform(-1, 1, (2000, 2))

    def f(X):
        return np.sin(2 * X[:, 0]) * np.cos(X[:, 1]) + 100.0

    orff = ORFF(sigma=1.0, n_components=64, sequence="halton")  # the map of the report
    with_b = ORFFRidge(orff, alpha=1e-3).fit(Xtr, f(Xtr)).score(Xte, f(Xte))
    without = ORFFRidge(orff, alpha=1e-3, fit_intercept=False).fit(Xtr, f(Xtr)).score(Xte, f(Xte))
    assert with_b >= 0.99, with_b
    assert without < 0.99, without  # the test can fail: the offset is what costs accuracy


def test_integer_weights_equal_repeated_rows():
    rng = np.random.default_rng(15)
    X, Y = rng.uniform(-1, 1, (80, 2)), rng.normal(size=(80, 2)) + 5.0
    k = rng.integers(0, 4, 80)
    orff = ORFF("curl_free", sigma=0.8, n_components=25, seed=0)
    for solver in ("direct", "cg"):
        a = ORFFRidge(orff, alpha=0.05, solver=solver, tol=1e-14).fit(X, Y, sample_weight=k)
        b = ORFFRidge(orff, alpha=0.05, solver=solver, tol=1e-14).fit(np.repeat(X, k, 0),
                                                                      np.repeat(Y, k, 0))
        np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=1e-9 * np.abs(b.coef_).max())
        np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-10)


def test_sample_weight_errors():
    rng = np.random.default_rng(16)
    X, Y = rng.uniform(-1, 1, (20, 2)), rng.normal(size=(20, 2))
    with pytest.raises(ValueError, match="'sample_weight' must be finite, non-negative and not "
                                         "all zero; got min -1.0"):
        ORFFRidge(ORFF(n_components=4)).fit(X, Y, sample_weight=np.full(20, -1.0))
    with pytest.raises(ValueError, match="sample_weight"):
        ORFFRidge(ORFF(n_components=4)).fit(X, Y, sample_weight=np.ones(19))
    with pytest.raises(TypeError, match="The 'fit_intercept' parameter of ORFFRidge must be an instance of 'bool'"):
        ORFFRidge(fit_intercept="yes").fit(X, Y)
    with pytest.raises(ValueError, match="'batch_size' must be >= 1"):
        ORFFRidge(batch_size=0).fit(X, Y)


RULE = r"'sample_weight' must be finite, non-negative and not all zero; got min "


@pytest.mark.parametrize("make", [
    lambda: ORFF(n_components=4, seed=0),
    lambda: OperatorNystroem(n_components=4, random_state=0),
    lambda: ORFFRidge(ORFF(n_components=4, seed=0)),
    lambda: ORFFRidge(OperatorNystroem(n_components=4, random_state=0)),
])
@pytest.mark.parametrize("weights", [[-1.0] + [1.0] * 19, [0.0] * 20])
def test_one_weight_rule_and_message(make, weights):
    """Every estimator that takes sample_weight refuses negative and all-zero weights in the
    same words (OperatorNystroem accepted negative weights: they moved its bandwidth)."""
    rng = np.random.default_rng(16)
    X, Y = rng.uniform(-1, 1, (20, 2)), rng.normal(size=(20, 2))
    est = make()
    args = (X, Y) if isinstance(est, ORFFRidge) else (X,)
    with pytest.raises(ValueError, match=RULE):
        est.fit(*args, sample_weight=np.asarray(weights))


def test_partial_fit_skips_a_later_batch_of_zero_weights_only():
    rng = np.random.default_rng(3)
    X, Y = rng.uniform(-1, 1, (30, 2)), rng.normal(size=(30, 2))
    model = ORFFRidge(ORFF(n_components=4, seed=0))
    with pytest.raises(ValueError, match=RULE):
        model.partial_fit(X[:10], Y[:10], sample_weight=np.zeros(10))
    model.partial_fit(X[:10], Y[:10])
    coef = model.coef_.copy()
    model.partial_fit(X[10:], Y[10:], sample_weight=np.zeros(20))
    np.testing.assert_array_equal(model.coef_, coef)
    assert model.n_samples_seen_ == 10
    with pytest.raises(ValueError, match=RULE):
        model.partial_fit(X[10:], Y[10:], sample_weight=-np.ones(20))


def test_one_column_target_predicts_as_ridge():
    """scikit-learn's Ridge fitted on y of shape (n, 1) predicts shape (n, 1) (checked below on
    the installed version); ORFFRidge does what Ridge does, and (n,) for a 1-D y."""
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(4)
    X, y = rng.uniform(-1, 1, (25, 2)), rng.normal(size=25)
    ridge_shape = Ridge().fit(X, y[:, None]).predict(X).shape
    model = ORFFRidge(ORFF(n_components=4, seed=0)).fit(X, y[:, None])
    assert model.predict(X).shape == ridge_shape
    assert np.shape(model.intercept_) == np.shape(Ridge().fit(X, y[:, None]).intercept_)
    assert ORFFRidge(ORFF(n_components=4, seed=0)).fit(X, y).predict(X).shape == (25,)


def test_operator_nystroem_ridge_predicts_in_the_dtype_of_x():
    rng = np.random.default_rng(6)
    X, Y = rng.uniform(-1, 1, (40, 2)), rng.normal(size=(40, 2))
    model = ORFFRidge(OperatorNystroem(n_components=10, random_state=0)).fit(X, Y)
    pred32, pred64 = model.predict(X.astype(np.float32)), model.predict(X)
    assert pred32.dtype == np.float32 and pred64.dtype == np.float64
    np.testing.assert_allclose(pred32, pred64, rtol=1e-4, atol=1e-5)


def test_operator_nystroem_ridge_bits_independent_of_blas_threads():
    """ORFFRidge(OperatorNystroem).predict has the same bits with 1 and 2 BLAS threads (its
    statistics, solve and predictions run with one BLAS thread)."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(5)
    X, Y = rng.uniform(-1, 1, (600, 3)), rng.normal(size=(600, 3))
    model = ORFFRidge(OperatorNystroem("curl_free", n_components=200, random_state=0),
                      alpha=1e-3)
    preds = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads, user_api="blas"):
            preds.append(clone(model).fit(X, Y).predict(X))
    np.testing.assert_array_equal(preds[0], preds[1])


# --------------------------------------------------------------------------- batches and partial_fit
@pytest.mark.parametrize("kernel, solver", [("decomposable", "stein"), ("decomposable", "cg"),
                                            ("curl_free", "direct"), ("div_free", "cg")])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_partial_fit_equals_fit(kernel, solver, fit_intercept):
    rng = np.random.default_rng(17)
    X, Y = rng.uniform(-1, 1, (400, 3)), rng.normal(size=(400, 3)) + 10.0
    w = rng.uniform(0, 2, 400)
    kw = dict(alpha=0.01, solver=solver, tol=1e-14, fit_intercept=fit_intercept)
    orff = ORFF(kernel, sigma=0.6, A=A3, n_components=24, seed=2)
    full = ORFFRidge(orff, **kw).fit(X, Y, sample_weight=w)
    inc = ORFFRidge(orff, **kw)
    for lo, hi in [(0, 1), (1, 90), (90, 91), (91, 400)]:  # uneven batches, single rows
        inc.partial_fit(X[lo:hi], Y[lo:hi], sample_weight=w[lo:hi])
    assert inc.n_samples_seen_ == 400
    np.testing.assert_allclose(inc.coef_, full.coef_, rtol=0,
                               atol=1e-8 * np.abs(full.coef_).max())
    np.testing.assert_allclose(inc.intercept_, full.intercept_, rtol=1e-9, atol=1e-12)
    # fitting in batches of 7 rows gives the unbatched statistics
    small = ORFFRidge(orff, batch_size=7, **kw).fit(X, Y, sample_weight=w)
    np.testing.assert_allclose(small.coef_, full.coef_, rtol=0,
                               atol=1e-9 * np.abs(full.coef_).max())


def test_partial_fit_continues_fit_and_checks_shapes():
    rng = np.random.default_rng(18)
    X, Y = rng.uniform(-1, 1, (100, 2)), rng.normal(size=(100, 2))
    # (a given sigma: the default bandwidth is chosen on the rows of the first fit)
    a = ORFFRidge(ORFF(n_components=8, seed=0, sigma=1.0)).fit(X[:60], Y[:60]).partial_fit(
        X[60:], Y[60:])
    b = ORFFRidge(ORFF(n_components=8, seed=0, sigma=1.0)).fit(X, Y)
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-10)
    with pytest.raises(ValueError, match="'y' must have p=2 columns, as in the earlier batches"):
        a.partial_fit(X, Y[:, :1])
    with pytest.raises(ValueError, match="X has 3 features, but ORFFRidge is expecting 2"):
        a.partial_fit(np.zeros((4, 3)), np.zeros((4, 2)))
    # fit starts afresh
    c = ORFFRidge(ORFF(n_components=8, seed=0, sigma=1.0)).partial_fit(X[:10], Y[:10]).fit(X, Y)
    np.testing.assert_allclose(c.coef_, b.coef_, atol=1e-10)


def test_n_iter_set_by_every_solver():
    rng = np.random.default_rng(19)
    X, Y = rng.uniform(-1, 1, (50, 2)), rng.normal(size=(50, 2))
    for solver in ("stein", "direct"):
        assert ORFFRidge(ORFF(n_components=8), solver=solver).fit(X, Y).n_iter_ == 1
    assert ORFFRidge(ORFF(n_components=8), solver="cg").fit(X, Y).n_iter_ > 1


def test_predict_in_batches_equals_one_batch():
    rng = np.random.default_rng(20)
    X, Y = rng.uniform(-1, 1, (100, 3)), rng.normal(size=(100, 3))
    m = ORFFRidge(ORFF("div_free", n_components=16, seed=0)).fit(X, Y)
    Xt = rng.uniform(-1, 1, (53, 3))
    one = m.set_params(batch_size=1000).predict(Xt)
    np.testing.assert_allclose(m.set_params(batch_size=5).predict(Xt), one, rtol=1e-12)
    np.testing.assert_allclose(m.set_params(batch_size=1).predict(Xt), one, rtol=1e-12)


def test_predict_memory_is_bounded():
    """Issue 13: predict must not form the (m, 2 s) feature matrix (here 410 MB)."""
    import tracemalloc

    import sklearn
    rng = np.random.default_rng(21)
    X = rng.uniform(-1, 1, (400, 2))
    m = ORFFRidge(ORFF(n_components=256, seed=0)).fit(X, X[:, 0])
    Xt = rng.uniform(-1, 1, (100_000, 2))
    feature_bytes = Xt.shape[0] * 512 * 8
    m.predict(Xt[:10])
    with sklearn.config_context(working_memory=8):
        tracemalloc.start()
        try:
            pred = m.predict(Xt)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    # 8 MiB batches + the output (0.8 MB) + temporaries of one batch's matvec
    assert peak < 20 * 2**20 < feature_bytes / 10, peak
    np.testing.assert_allclose(pred[:1000], m.set_params(batch_size=1000).predict(Xt[:1000]),
                               rtol=1e-12)
