"""ORFFRidge: solvers against a dense reference, structure of the learned fields, API."""
import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from qmc_orff import ORFF, FourierFeatures, ORFFRidge

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
        model = ORFFRidge(orff, alpha=0.1, solver=solver, tol=1e-14).fit(X, Y)
        assert model.solver_ == solver
        np.testing.assert_allclose(model.coef_, ref, rtol=0, atol=1e-8 * np.abs(ref).max())
        pred = model.predict(X)
        np.testing.assert_allclose(pred, model.orff_.operator(X).matvec(ref).reshape(120, 3),
                                   atol=1e-8 * np.abs(pred).max())


@pytest.mark.parametrize("kernel", ["decomposable", "curl_free", "div_free"])
def test_matrix_free_cg_equals_dense_reference(kernel, monkeypatch):
    """CG through the operator and its adjoint (the path taken when F^T F is too big)."""
    import qmc_orff.learning as learning
    monkeypatch.setattr(learning, "GRAM_MAX_BYTES", 0)
    rng = np.random.default_rng(7)
    X, Y = rng.uniform(-1, 1, (90, 3)), rng.normal(size=(90, 3))
    orff = ORFF(kernel, sigma=0.7, A=A3, n_components=20, measure="bounded", seed=3)
    ref = dense_ridge(clone_fit(orff, X), X, Y, 0.1)
    model = ORFFRidge(orff, alpha=0.1, solver="cg", tol=1e-14).fit(X, Y)
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
    m = ORFFRidge(ORFF(n_components=10, seed=0)).fit(X, Y)
    np.testing.assert_array_equal(m.orff_.kernel_.A, np.eye(4))
    assert m.predict(X).shape == (60, 4)
    # A = I: four independent scalar ridge problems on the same features
    F = m.orff_.scalar_features(X)
    np.testing.assert_allclose(m.predict(X), F @ np.linalg.solve(F.T @ F + np.eye(20), F.T @ Y),
                               atol=1e-10)
    m1 = ORFFRidge(ORFF(n_components=10, seed=0)).fit(X, Y[:, 0])
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
    would compare two different point sources): 0.39, 0.33, 0.31, 0.42, 0.77.
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
                                                measure="trace", sequence="halton"), alpha=a)
                                 .fit(Xtr, Ytr).predict(Xte) - Yte) ** 2) for sig, a in grid))
        scalar.append(min(np.mean((make_pipeline(FourierFeatures(sigma=sig, n_components=D, sequence="halton"),
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
    with pytest.raises(ValueError, match="'alpha' must be a positive finite number"):
        ORFFRidge(alpha=0.0).fit(X, Y)
    with pytest.raises(ValueError, match="'solver' must be one of 'auto', 'stein', 'direct', 'cg'"):
        ORFFRidge(solver="lsqr").fit(X, Y)
    with pytest.raises(ValueError, match="'solver'='stein' needs kernel='decomposable'"):
        ORFFRidge(ORFF("curl_free", n_components=4), solver="stein").fit(X, Y)
    with pytest.raises(ValueError, match="'y' must have p=2 columns for kernel='curl_free'"):
        ORFFRidge(ORFF("curl_free", n_components=4)).fit(X, np.zeros((20, 3)))
    with pytest.raises(ValueError, match="'y' must have p=3 columns for kernel='decomposable'"):
        ORFFRidge(ORFF(A=A3, n_components=4)).fit(X, Y)
    with pytest.raises(TypeError, match="'orff' must be an ORFF instance"):
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
    (dict(max_iter=2.5), TypeError, "'max_iter' must be an integer"),
    (dict(tol=np.inf), ValueError, "'tol' must be a positive finite number"),
    (dict(tol=0.0), ValueError, "'tol' must be a positive finite number"),
    (dict(alpha="1"), TypeError, "'alpha' must be a positive finite number; got '1'"),
    (dict(alpha=np.nan), ValueError, "'alpha' must be a positive finite number; got nan"),
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
# not; the decomposable kernel (any p) is checked, with each direct/iterative solver.
@parametrize_with_checks([
    ORFFRidge(ORFF(sigma=3.0, n_components=64, seed=0)),
    ORFFRidge(ORFF(sigma=3.0, n_components=64, seed=0), solver="direct"),
    ORFFRidge(ORFF(sigma=3.0, n_components=64, seed=0), solver="cg", tol=1e-8),
], expected_failed_checks=lambda est: {} if est.solver == "cg" else {
    "check_non_transformer_estimators_n_iter":
        "direct solvers run no iterations; n_iter_ is set only by solver='cg' (as Ridge)"})
def test_sklearn_compatible(estimator, check):
    check(estimator)
