"""The data discrepancy ||K - Z Z^T||_F^2 / m^2 (scalar) and its block form (operator-valued).

References here are written independently of the package: dense pairwise sums over the
differences x_i - x_j, exact kernels from their formulas (Matern from scikit-learn), and
central finite differences for every gradient.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import Matern as SkMatern

from qmc_orff import ORFF, DataDiscrepancy, FourierFeatures, OperatorDataDiscrepancy, gram_error
from _finite_differences import central

SIGMA = np.array([1.3, 0.7, 2.0])


def _data(m=17, s=9, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    W = rng.normal(size=(s, d))
    xi = rng.uniform(0.2, 1.0, size=s) / s
    return X, W, xi


def ref_kernel(kernel, X, sigma, nu=1.5):
    D = (X[:, None, :] - X[None, :, :]) / sigma
    if kernel == "gaussian":
        return np.exp(-0.5 * np.sum(D * D, -1))
    if kernel == "laplacian":
        return np.exp(-np.sum(np.abs(D), -1))
    return SkMatern(length_scale=np.broadcast_to(sigma, X.shape[1]), nu=nu)(X)


def ref_value(kernel, X, W, xi, sigma, nu=1.5):
    """(1/m^2) sum_ij (k(x_i - x_j) - sum_l xi_l cos(w_l . (x_i - x_j)))^2, pair by pair."""
    K = ref_kernel(kernel, X, sigma, nu)
    D = X[:, None, :] - X[None, :, :]
    Kt = np.cos(D @ W.T) @ xi
    return float(np.sum((K - Kt) ** 2)) / X.shape[0] ** 2


KERNELS = [("gaussian", SIGMA), ("laplacian", SIGMA), ("matern", 1.4)]


@pytest.mark.parametrize("kernel, sigma", KERNELS)
@pytest.mark.parametrize("weighted", [False, True])
def test_feature_form_equals_dense_pair_sum(kernel, sigma, weighted):
    X, W, xi = _data()
    obj = DataDiscrepancy(X, kernel=kernel, sigma=sigma, nu=1.5)
    w = xi if weighted else None
    ref = ref_value(kernel, X, W, xi if weighted else np.full(W.shape[0], 1 / W.shape[0]), sigma)
    assert obj(W, w) == pytest.approx(ref, rel=1e-12, abs=0)
    assert obj.value_and_grad(W, w)[0] == pytest.approx(ref, rel=1e-12, abs=0)
    np.testing.assert_allclose(obj.K, ref_kernel(kernel, X, sigma), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("kernel, sigma", KERNELS)
def test_gradients_match_central_differences(kernel, sigma):
    X, W, xi = _data(seed=1)
    obj = DataDiscrepancy(X, kernel=kernel, sigma=sigma)
    val, gW, gxi = obj.value_and_grad(W, xi)
    np.testing.assert_allclose(gW, central(lambda V: obj(V, xi), W), rtol=1e-6, atol=1e-9 * val)
    np.testing.assert_allclose(gxi, central(lambda v: obj(W, v), xi), rtol=1e-6, atol=1e-9 * val)
    # uniform weights: gradient in W only, the same as with xi = 1/s given explicitly
    _, gW_u = obj.value_and_grad(W)
    np.testing.assert_allclose(gW_u, obj.value_and_grad(W, np.full(9, 1 / 9))[1], rtol=1e-13)
    np.testing.assert_allclose(gW_u, central(lambda V: obj(V), W), rtol=1e-6, atol=1e-9 * val)


@pytest.mark.parametrize("kernel, sigma", KERNELS)
def test_quadratic_form_in_the_weights(kernel, sigma):
    """L = constant - 2 v.xi + xi^T H xi with H_lm = <M_l, M_m> / m^2 (M_l dense here)."""
    X, W, xi = _data(seed=2)
    m = X.shape[0]
    obj = DataDiscrepancy(X, kernel=kernel, sigma=sigma)
    D = X[:, None, :] - X[None, :, :]
    M = np.cos(D @ W.T)  # (m, m, s): M_l[i, j] = cos(w_l . (x_i - x_j))
    K = ref_kernel(kernel, X, sigma)
    H_ref = np.einsum("ijl,ijk->lk", M, M) / m**2
    v_ref = np.einsum("ij,ijl->l", K, M) / m**2
    np.testing.assert_allclose(obj.pair_matrix(W), H_ref, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(obj.linear_term(W), v_ref, rtol=1e-12, atol=1e-15)
    assert obj.constant() == pytest.approx(np.sum(K * K) / m**2, rel=1e-13)
    q = obj.constant() - 2 * obj.linear_term(W) @ xi + xi @ obj.pair_matrix(W) @ xi
    assert q == pytest.approx(obj(W, xi), rel=1e-10)
    assert np.min(np.linalg.eigvalsh(obj.pair_matrix(W))) > -1e-13


def test_normalized_value_is_the_squared_relative_gram_error():
    """sqrt(L / constant) is gram_error of the map with these frequencies on the same points."""
    X, W, _ = _data(m=40, s=12, seed=3)
    sigma = 1.7
    obj = DataDiscrepancy(X, sigma=sigma)
    ff = FourierFeatures(sigma=sigma, n_components=None, sequence=W * sigma).fit(X)
    assert math.sqrt(obj(W, normalize=True)) == pytest.approx(gram_error(ff, X), rel=1e-10)
    assert obj(W, normalize=True) == pytest.approx(obj(W) / obj.constant(), rel=1e-14)
    assert obj.constant(normalize=True) == 1.0
    v, g = obj.value_and_grad(W, normalize=True)
    np.testing.assert_allclose(g, obj.value_and_grad(W)[1] / obj.constant(), rtol=1e-13)


@pytest.mark.parametrize("kernel, sigma", [("gaussian", 1.1), ("laplacian", 0.9)])
def test_expected_mc_matches_monte_carlo(kernel, sigma):
    """E[L] over i.i.d. draws from the spectral density (uniform weights)."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(12, 2))
    obj = DataDiscrepancy(X, kernel=kernel, sigma=sigma)
    s, reps = 5, 3000
    draws = (rng.standard_normal((reps, s, 2)) if kernel == "gaussian"
             else rng.standard_cauchy((reps, s, 2))) / sigma
    D = X[:, None, :] - X[None, :, :]
    Kt = np.mean(np.cos(np.einsum("ijk,rlk->rijl", D, draws)), axis=-1)  # (reps, m, m)
    vals = np.sum((Kt - obj.K) ** 2, axis=(1, 2)) / X.shape[0] ** 2
    assert vals[0] == pytest.approx(obj(draws[0]), rel=1e-12)
    se = vals.std() / math.sqrt(reps)
    assert abs(vals.mean() - obj.expected_mc(s)) < 4 * se
    assert obj.expected_mc(2 * s) == pytest.approx(obj.expected_mc(s) / 2, rel=1e-14)


def test_bad_input_names_the_parameter():
    X, W, _ = _data()
    with pytest.raises(ValueError, match="'X' must contain only finite"):
        DataDiscrepancy(np.where(np.eye(17, 3) > 0, np.nan, X))
    with pytest.raises(ValueError, match="'X' must contain only finite"):
        DataDiscrepancy(np.where(np.eye(17, 3) > 0, np.inf, X))
    with pytest.raises(ValueError, match="'X' must have at least 2 rows"):
        DataDiscrepancy(X[:1])
    with pytest.raises(ValueError, match="'sigma' must be positive"):
        DataDiscrepancy(X, sigma=0.0)
    with pytest.raises(ValueError, match="'kernel' must be one of"):
        DataDiscrepancy(X, kernel="cauchy")
    obj = DataDiscrepancy(X)
    with pytest.raises(ValueError, match="'W' must have 3 columns"):
        obj(W[:, :2])
    with pytest.raises(ValueError, match="'weights' must be nonnegative"):
        obj(W, -np.ones(9))
    with pytest.raises(TypeError, match="'normalize' must be a bool"):
        obj(W, normalize="yes")


# --------------------------------------------------------------------------- operator-valued
def ref_A_tilde(kernel, measure, W, sigma):
    s, d = W.shape
    sq = np.sum(W * W, axis=1)
    if measure == "trace":
        U = W / np.sqrt(sq)[:, None]
        P = U[:, :, None] * U[:, None, :]
        return (d / sigma**2) * (P if kernel == "curl_free" else np.eye(d) - P)
    P = W[:, :, None] * W[:, None, :]
    return P if kernel == "curl_free" else sq[:, None, None] * np.eye(d) - P


def ref_block_value(kernel, X, W, xi, sigma, A=None, measure="spectral"):
    """(1/m^2) sum_ij ||K(x_i, x_j) - sum_l xi_l cos(w_l . delta) A~(w_l)||_F^2 from the formulas."""
    m, d = X.shape
    D = (X[:, None, :] - X[None, :, :])
    Dn = D / sigma
    k0 = np.exp(-0.5 * np.sum(Dn * Dn, -1))
    sq = np.sum(Dn * Dn, -1)
    outer = Dn[..., :, None] * Dn[..., None, :]
    if kernel == "decomposable":
        K = k0[..., None, None] * A
        At = np.broadcast_to(A, (W.shape[0],) + A.shape)
    elif kernel == "curl_free":
        K = (np.eye(d) - outer) * (k0 / sigma**2)[..., None, None]
        At = ref_A_tilde(kernel, measure, W, sigma)
    else:
        K = (outer + ((d - 1) - sq)[..., None, None] * np.eye(d)) * (k0 / sigma**2)[..., None, None]
        At = ref_A_tilde(kernel, measure, W, sigma)
    Kt = np.einsum("ijl,lab->ijab", np.cos(D @ W.T) * xi, At)
    return float(np.sum((K - Kt) ** 2)) / m**2


OPS = [("curl_free", "spectral"), ("curl_free", "trace"), ("div_free", "spectral"),
       ("div_free", "trace"), ("decomposable", "spectral")]
A3 = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 0.5]])


@pytest.mark.parametrize("kernel, measure", OPS)
def test_operator_objective_equals_dense_block_form(kernel, measure):
    X, W, xi = _data(m=11, s=6, seed=5)
    obj = OperatorDataDiscrepancy(X, kernel=kernel, sigma=0.9, A=A3, measure=measure)
    ref = ref_block_value(kernel, X, W, xi, 0.9, A3, measure)
    assert obj(W, xi) == pytest.approx(ref, rel=1e-12)
    assert obj.value_and_grad(W, xi)[0] == pytest.approx(ref, rel=1e-12)
    # uniform weights, against the ORFF map's own block Gram matrix (its factors B(w))
    o = ORFF(kernel, sigma=0.9, A=A3, n_components=None, sequence=W * 0.9, measure=measure).fit(X)
    Kb = o.kernel_.block(X)
    dense = np.sum((Kb - o.approximate_kernel(X, block=True)) ** 2) / X.shape[0] ** 2
    assert obj(W) == pytest.approx(dense, rel=1e-11)
    assert math.sqrt(obj(W, normalize=True)) == pytest.approx(gram_error(o, X), rel=1e-10)


@pytest.mark.parametrize("kernel, measure", OPS)
def test_operator_gradients_match_central_differences(kernel, measure):
    X, W, xi = _data(m=10, s=5, seed=6)
    obj = OperatorDataDiscrepancy(X, kernel=kernel, sigma=1.2, A=A3, measure=measure)
    val, gW, gxi = obj.value_and_grad(W, xi)
    np.testing.assert_allclose(gW, central(lambda V: obj(V, xi), W), rtol=1e-6, atol=1e-9 * val)
    np.testing.assert_allclose(gxi, central(lambda v: obj(W, v), xi), rtol=1e-6, atol=1e-9 * val)
    _, gW_u = obj.value_and_grad(W, normalize=True)
    np.testing.assert_allclose(gW_u, central(lambda V: obj(V, normalize=True), W), rtol=1e-6,
                               atol=1e-9)


def test_operator_bad_input():
    X, W, _ = _data(m=8, s=4, seed=7)
    with pytest.raises(ValueError, match="'kernel' must be one of"):
        OperatorDataDiscrepancy(X, kernel="gaussian")
    with pytest.raises(ValueError, match="'measure' must be one of"):
        OperatorDataDiscrepancy(X, measure="bounded")
    with pytest.raises(ValueError, match="'sigma' must be a positive scalar"):
        OperatorDataDiscrepancy(X, sigma=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="d >= 2"):
        OperatorDataDiscrepancy(X[:, :1], kernel="div_free")
    obj = OperatorDataDiscrepancy(X, measure="trace")
    with pytest.raises(ValueError, match="zero frequency"):
        obj(np.zeros((2, 3)))


# --------------------------------------------------------------------------- the designs take it
def test_designs_accept_the_data_objective():
    from qmc_orff import global_sequence, greedy_sequence, weighted_sequence

    rng = np.random.default_rng(8)
    X = rng.normal(size=(40, 3)) * np.array([1.0, 0.5, 2.0])
    sigma = np.array([1.5, 1.0, 2.5])
    obj = DataDiscrepancy(X, sigma=sigma)
    g = global_sequence(obj, 8, init="halton", method="l-bfgs-b", maxiter=30)
    W = g.frequencies(sigma)
    assert g.meta["d2"] == pytest.approx(obj(W), rel=1e-10)
    assert g.meta["normalized_d2"] == pytest.approx(obj(W, normalize=True), rel=1e-10)
    assert g.meta["normalized_d2"] < g.meta["normalized_initial_d2"]
    assert g.meta["objective"] == "data" and g.meta["box_over_sigma"] is None
    gr = greedy_sequence(obj, 6, init="halton", maxiter=20)
    hist = gr.meta["normalized_history"]
    Wg = gr.frequencies(sigma)
    for t in (1, 3, 6):  # every prefix's value is the objective of that prefix (full recompute)
        assert hist[t - 1] == pytest.approx(obj(Wg[:t], normalize=True), rel=1e-10)
    assert hist[-1] < hist[0]
    wt = weighted_sequence(obj, 8, init="halton")
    xi = wt.weights
    assert np.all(xi >= 0)
    assert wt.meta["normalized_d2"] == pytest.approx(obj(wt.frequencies(sigma), xi, normalize=True),
                                                     rel=1e-10)
    assert wt.meta["normalized_d2"] <= wt.meta["normalized_uniform_d2"]
    with pytest.raises(TypeError, match="lattice_sequence needs a BoxDiscrepancy"):
        from qmc_orff import lattice_sequence
        lattice_sequence(obj, 8)


def test_greedy_candidate_gradient_matches_central_differences():
    from qmc_orff.designs._optimizer import UnitProblem

    rng = np.random.default_rng(9)
    X = rng.normal(size=(25, 3))
    P = UnitProblem(DataDiscrepancy(X, kernel="laplacian", sigma=1.3), 3)
    state = P.greedy_state(5)
    for w in rng.normal(size=(2, 3)):
        state.add(w)
    w = rng.normal(size=3)
    val, grad = state.candidate(w)
    np.testing.assert_allclose(grad, central(lambda v: state.candidate(v)[0], w), rtol=1e-6,
                               atol=1e-10)
    full = np.vstack([state.W[:2], w])
    assert val == pytest.approx(P.obj(full, normalize=True), rel=1e-12)


@pytest.mark.parametrize("kernel, sigma", KERNELS)
def test_float32_evaluations_match_the_float64_references(kernel, sigma):
    """dtype="float32" (the adaptive design's training evaluations): the value against the
    dense pair sum, the gradients against central differences of the float64 objective, to
    float32's precision; the results are float64, and really computed in float32."""
    X, W, xi = _data(m=40, s=12, seed=5)
    obj = DataDiscrepancy(X, kernel=kernel, sigma=sigma)
    obj32 = DataDiscrepancy(X, kernel=kernel, sigma=sigma, dtype="float32")
    assert obj32.dtype == np.float32 and obj.dtype == np.float64
    ref = ref_value(kernel, X, W, xi, sigma)
    val, gW, gxi = obj32.value_and_grad(W, xi)
    assert isinstance(val, float) and gW.dtype == gxi.dtype == np.float64
    assert val == pytest.approx(ref, rel=1e-5, abs=0) and val != obj(W, xi)
    assert obj32(W, xi) == val  # the value alone is the same float32 evaluation
    assert obj32(W, xi, normalize=True) == pytest.approx(obj(W, xi, normalize=True), rel=1e-5)
    scale = np.max(np.abs(obj.value_and_grad(W, xi)[1]))
    np.testing.assert_allclose(gW, central(lambda V: obj(V, xi), W), rtol=1e-3, atol=1e-4 * scale)
    np.testing.assert_allclose(gxi, central(lambda v: obj(W, v), xi), rtol=1e-3,
                               atol=1e-4 * np.max(np.abs(gxi)))
    # same input, same bits
    again = obj32.value_and_grad(W, xi)
    assert again[0] == val and again[1].tobytes() == gW.tobytes()


def test_dtype_is_checked():
    X, _, _ = _data()
    for bad in ("float16", "int64", np.complex128, "nope"):
        with pytest.raises(ValueError, match="'dtype'"):
            DataDiscrepancy(X, dtype=bad)
    assert DataDiscrepancy(X, dtype=np.float32).dtype == np.float32


def test_float32_evaluations_fall_back_to_float64_at_large_phases():
    """Phases that may exceed 2**10 (float32's spacing there: 6e-5 rad) run in float64: the
    same bits as the float64 objective; just below, float32."""
    from qmc_orff.objectives.data import MAX_PHASE_F32

    X, W, xi = _data(seed=7)
    obj, obj32 = DataDiscrepancy(X), DataDiscrepancy(X, dtype="float32")
    bound = np.max(np.sum(np.abs(X), axis=1)) * np.max(np.abs(W))
    big = W * (1.01 * MAX_PHASE_F32 / bound)
    a, b = obj.value_and_grad(big, xi), obj32.value_and_grad(big, xi)
    assert a[0] == b[0] and all(x.tobytes() == y.tobytes() for x, y in zip(a[1:], b[1:]))
    assert obj32(big) == obj(big)
    small = W * (0.99 * MAX_PHASE_F32 / bound)
    assert obj32(small) != obj(small)
    assert obj32(small) == pytest.approx(obj(small), rel=1e-3)
