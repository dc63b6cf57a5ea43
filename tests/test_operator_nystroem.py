"""OperatorNystroem (issue 27): the operator-valued Nystroem map and its use in ORFFRidge."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

from qmc_orff import OperatorNystroem, ORFFRidge, gram_error
from qmc_orff.kernels import CurlFree, Decomposable, DivFree
from qmc_orff.maps._pairs import inv_sqrt_psd, rp_cholesky_pairs

KERNELS = ("decomposable", "curl_free", "div_free")
A3 = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 0.5]])


def _rows(n, d, seed):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, (n, d))


def _map(kernel, **kw):
    kw.setdefault("random_state", 0)
    if kernel == "decomposable":
        kw.setdefault("A", A3)
    return OperatorNystroem(kernel, **kw)


def _reference_features(ny, X):
    """Plain numpy ``Phi(x) = W^{-1/2} K_J(x)`` from the kernel's formulas, pair by pair."""
    sigma = ny.sigma_
    d = X.shape[1]

    def K0(delta):  # the block K(z, x) = K_0(z - x), from the formulas of the docstrings
        u = delta / sigma
        k = np.exp(-0.5 * u @ u)
        if ny.kernel == "decomposable":
            return k * A3
        if ny.kernel == "curl_free":
            return (np.eye(d) - np.outer(u, u)) * k / sigma**2
        return (np.outer(u, u) + ((d - 1) - u @ u) * np.eye(d)) * k / sigma**2

    Z, out = ny.components_, ny.component_outputs_
    D = Z.shape[0]
    W = np.array([[K0(Z[k] - Z[m])[out[k], out[m]] for m in range(D)] for k in range(D)])
    lam, V = np.linalg.eigh(W)
    R = (V / np.sqrt(lam)) @ V.T        # W full rank here
    KJ = np.array([[K0(Z[k] - x)[out[k]] for x in X] for k in range(D)])   # (D, n, p)
    return np.einsum("kl,lnb->nkb", R, KJ)


# ----------------------------------------------------------------------------- the map
@pytest.mark.parametrize("kernel", KERNELS)
def test_all_pairs_reproduce_the_training_block_gram(kernel):
    X = _rows(12, 3, 1)
    ny = _map(kernel, n_components=36, sigma=0.8).fit(X)
    assert ny.n_components_ == 36
    assert sorted(ny.component_indices_ * 3 + ny.component_outputs_) == list(range(36))
    exact = ny.kernel_.block(X)
    np.testing.assert_allclose(ny.approximate_kernel(X, block=True), exact, rtol=0,
                               atol=1e-10 * np.abs(exact).max())


def test_bandwidth_parameters_as_orff():
    X = _rows(10, 2, 30)
    per_coord = _map("decomposable", n_components=30, sigma=[0.5, 2.0]).fit(X)
    np.testing.assert_array_equal(per_coord.sigma_, [0.5, 2.0])
    exact = per_coord.kernel_.block(X)
    np.testing.assert_allclose(per_coord.approximate_kernel(X, block=True), exact, rtol=0,
                               atol=1e-10 * np.abs(exact).max())
    by_gamma = _map("curl_free", n_components=7, gamma=0.125).fit(X)
    by_sigma = _map("curl_free", n_components=7, sigma=2.0).fit(X)
    assert by_gamma.sigma_ == 2.0
    np.testing.assert_array_equal(by_gamma.transform(X), by_sigma.transform(X))
    scale = _map("curl_free", n_components=7, gamma="scale").fit(X)
    assert scale.sigma_ == pytest.approx(np.sqrt(X.shape[1] * X.var() / 2.0), rel=1e-12)


def test_default_bandwidth_is_orffs_median_heuristic():
    from scipy.spatial.distance import pdist

    from qmc_orff import ORFF
    X = 40.0 * _rows(60, 3, 11)  # far from the unit scale, so that 1.0 would be wrong
    w = np.arange(1.0, 61.0) % 3  # integer weights, zeros included
    ny = _map("curl_free", n_components=9).fit(X)
    assert ny.sigma_ == np.median(pdist(X))  # 60 rows: every pair (the sample is all rows)
    orff = ORFF("curl_free", n_components=4).fit(X)
    assert ny.sigma_ == orff.sigma_
    weighted = _map("div_free", n_components=9).fit(X, sample_weight=w)
    assert weighted.sigma_ == ORFF("div_free", n_components=4).fit(X, sample_weight=w).sigma_
    assert weighted.sigma_ != ny.sigma_


@pytest.mark.parametrize("kernel", KERNELS)
def test_against_numpy_reference(kernel):
    X, T = _rows(40, 3, 2), _rows(7, 3, 3)
    ny = _map(kernel, n_components=20, sigma=0.9).fit(X)
    np.testing.assert_allclose(ny.transform(T), _reference_features(ny, T), rtol=1e-9,
                               atol=1e-11)


@pytest.mark.parametrize("kernel", KERNELS)
def test_approximate_kernel_layouts_agree(kernel):
    X, T, U = _rows(30, 2, 4), _rows(5, 2, 5), _rows(4, 2, 6)
    ny = _map(kernel, n_components=17).fit(X)
    P, Q = ny.transform(T), ny.transform(U)
    K4 = ny.approximate_kernel(T, U)
    np.testing.assert_allclose(K4, np.einsum("ika,jkb->ijab", P, Q), rtol=1e-12, atol=1e-14)
    Kb = ny.approximate_kernel(T, U, block=True)
    p = ny.n_outputs_
    np.testing.assert_allclose(Kb, K4.transpose(0, 2, 1, 3).reshape(5 * p, 4 * p), rtol=0, atol=0)


@pytest.mark.parametrize("kernel", ("curl_free", "div_free"))
def test_held_out_error_against_exact_kernel_falls_with_D(kernel):
    X, T = _rows(400, 2, 7), _rows(200, 2, 8)
    errs = [gram_error(_map(kernel, n_components=D, sigma=1.0).fit(X), T)
            for D in (8, 32, 128)]
    assert errs[0] > errs[1] > errs[2]
    assert errs[2] < 1e-3   # smooth kernel on [-1, 1]^2: Nystroem converges fast


def test_rp_cholesky_beats_uniform_here():
    X, T = _rows(800, 3, 9), _rows(300, 3, 10)
    err = {sel: np.mean([gram_error(_map("curl_free", n_components=96, selection=sel,
                                         sigma=0.5, random_state=k).fit(X), T)
                         for k in range(3)]) for sel in ("rp_cholesky", "uniform")}
    assert err["rp_cholesky"] < 0.95 * err["uniform"]   # 0.875x measured (seeds 0-2)


def test_shapes_dtypes_and_names():
    X = _rows(50, 3, 11)
    ny = _map("div_free", n_components=10).fit(X)
    assert ny.transform(X[:4]).shape == (4, 10, 3)
    assert ny.transform(X[:4]).dtype == np.float64
    assert ny.transform(X[:4].astype(np.float32)).dtype == np.float32
    flat = _map("div_free", n_components=10, flatten=True).fit(X)
    np.testing.assert_array_equal(flat.transform(X[:4]), ny.transform(X[:4]).reshape(4, 30))
    names = flat.get_feature_names_out()
    assert names.shape == (30,) and names[4] == "operatornystroem_k1_y1"
    with pytest.raises(ValueError, match="flatten=True"):
        ny.get_feature_names_out()
    assert ny.components_.shape == (10, 3) and ny.normalization_.shape == (10, 10)
    assert ny.n_features_in_ == 3 and ny.n_outputs_ == 3
    np.testing.assert_array_equal(ny.components_, X[ny.component_indices_])


def test_batched_kernel_evaluation_is_the_same(monkeypatch):
    import qmc_orff.maps.operator_nystroem as mod

    X, T = _rows(60, 3, 27), _rows(9, 3, 28)
    whole = _map("div_free", n_components=25).fit(X)
    monkeypatch.setattr(mod, "BATCH_FLOATS", 50)   # a few rows (or pairs) per batch
    parts = _map("div_free", n_components=25).fit(X)
    np.testing.assert_array_equal(parts.component_indices_, whole.component_indices_)
    np.testing.assert_allclose(parts.normalization_, whole.normalization_, rtol=1e-12,
                               atol=1e-12 * np.abs(whole.normalization_).max())
    np.testing.assert_allclose(parts.transform(T), whole.transform(T), rtol=1e-10, atol=1e-13)


def test_sparse_input_matches_dense():
    X = _rows(40, 3, 12)
    X[X < 0] = 0.0
    dense = _map("curl_free", n_components=15).fit(X)
    sparse = _map("curl_free", n_components=15).fit(sp.csr_matrix(X))
    np.testing.assert_array_equal(dense.component_indices_, sparse.component_indices_)
    np.testing.assert_allclose(sparse.transform(sp.csc_matrix(X[:5])), dense.transform(X[:5]),
                               rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("selection", ("rp_cholesky", "uniform"))
def test_deterministic_with_random_state(selection):
    X = _rows(200, 2, 13)
    a = _map("curl_free", n_components=40, selection=selection, random_state=3).fit(X)
    b = _map("curl_free", n_components=40, selection=selection, random_state=3).fit(X)
    c = _map("curl_free", n_components=40, selection=selection, random_state=4).fit(X)
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    assert not np.array_equal(a.component_indices_, c.component_indices_)
    pairs = a.component_indices_ * 2 + a.component_outputs_
    assert np.unique(pairs).size == 40


def test_same_map_whatever_the_blas_threads():
    from threadpoolctl import threadpool_limits

    X = _rows(300, 3, 29)
    maps = []
    for threads in (1, 2):
        with threadpool_limits(threads, user_api="blas"):
            ny = _map("div_free", n_components=120).fit(X)
            maps.append((ny.component_indices_, ny.normalization_, ny.transform(X[:40])))
    for a, b in zip(*maps):
        np.testing.assert_array_equal(a, b)


def test_more_components_than_pairs_warns_and_uses_all():
    X = _rows(5, 2, 14)
    with pytest.warns(UserWarning, match="all 10 are used"):
        ny = _map("curl_free", n_components=50).fit(X)
    assert ny.n_components_ == 10


def test_rank_deficient_data_still_gives_D_distinct_pairs():
    X = np.repeat(_rows(4, 2, 15), 5, axis=0)       # 20 rows, 4 distinct: rank <= 8
    ny = _map("curl_free", n_components=12, sigma=1.0).fit(X)
    pairs = ny.component_indices_ * 2 + ny.component_outputs_
    assert np.unique(pairs).size == 12
    exact = ny.kernel_.block(X)
    np.testing.assert_allclose(ny.approximate_kernel(X, block=True), exact, rtol=0,
                               atol=1e-8 * np.abs(exact).max())


# ----------------------------------------------------------------------------- the selection
def test_rp_cholesky_pivots_span_a_low_rank_matrix():
    rng = np.random.default_rng(16)
    G = rng.standard_normal((60, 5))
    K = G @ G.T                               # rank 5
    for seed in range(5):
        J = rp_cholesky_pairs(lambda idx: K[:, idx], np.diag(K).copy(), 5,
                              np.random.default_rng(seed))
        assert np.unique(J).size == 5
        approx = K[:, J] @ np.linalg.pinv(K[np.ix_(J, J)]) @ K[J]
        np.testing.assert_allclose(approx, K, atol=1e-8 * np.abs(K).max())


def test_rp_cholesky_never_picks_an_explained_pivot():
    K = np.diag([4.0, 1.0, 0.0, 0.0, 2.0])    # zero diagonal: never drawn before the others
    J = rp_cholesky_pairs(lambda idx: K[:, idx], np.diag(K).copy(), 3,
                          np.random.default_rng(0))
    assert sorted(J.tolist()) == [0, 1, 4]


def test_inv_sqrt_psd_is_the_pseudo_inverse_square_root():
    G = np.random.default_rng(17).standard_normal((6, 3))
    W = G @ G.T
    R = inv_sqrt_psd(W)
    np.testing.assert_allclose(R @ W @ R, np.linalg.pinv(W) @ W, atol=1e-10)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("params, error, match", [
    ({"n_components": 0}, ValueError, "n_components"),
    ({"n_components": 2.5}, ValueError, "n_components"),
    ({"selection": "leverage"}, ValueError, "selection"),
    ({"kernel": "gaussian"}, ValueError, "kernel"),
    ({"sigma": -1.0}, ValueError, "'sigma' must be positive"),
    ({"sigma": 1.0, "gamma": 1.0}, ValueError, "not both"),
    ({"A": [[1.0, 2.0], [3.0, 1.0]]}, ValueError, "A"),
])
def test_bad_parameters(params, error, match):
    with pytest.raises(error, match=match):
        OperatorNystroem(**params).fit(_rows(10, 2, 18))


def test_bad_data():
    with pytest.raises(ValueError, match="d >= 2"):
        OperatorNystroem("div_free").fit(_rows(10, 1, 19))
    with pytest.raises(NotFittedError):
        OperatorNystroem().transform(_rows(3, 2, 19))
    ny = OperatorNystroem("curl_free", n_components=4).fit(_rows(10, 2, 19))
    with pytest.raises(ValueError, match="features"):
        ny.transform(_rows(3, 3, 19))
    with pytest.raises(ValueError, match="NaN"):
        ny.transform(np.array([[np.nan, 0.0]]))


def test_size_checks_before_allocation(monkeypatch):
    import qmc_orff.maps.operator_nystroem as mod

    X = _rows(50, 2, 31)
    monkeypatch.setattr(mod, "MAX_BYTES", 16 * 30 * 30)
    with pytest.raises(ValueError, match="'n_components'=31 needs .* GiB for the D x D"):
        OperatorNystroem("curl_free", n_components=31).fit(X)
    monkeypatch.setattr(mod, "MAX_BYTES", 8 * 100 * 20 - 1)
    with pytest.raises(ValueError, match="selection='rp_cholesky' needs .* selection='uniform'"):
        OperatorNystroem("curl_free", n_components=20).fit(X)
    assert OperatorNystroem("curl_free", n_components=20, selection="uniform",
                            random_state=0).fit(X).n_components_ == 20


# ----------------------------------------------------------------------------- in ORFFRidge
def _field(n, seed):
    X = _rows(n, 2, seed)
    return X, np.stack([np.cos(2.0 * X[:, 0]) * X[:, 1], np.sin(X[:, 1]) + X[:, 0]], axis=1)


def _ridge_reference(ny, X, Y, alpha, w=None):
    """Plain least squares with an unpenalised per-output intercept."""
    n, p = Y.shape
    P = ny.transform(X).transpose(0, 2, 1).reshape(n * p, -1)
    M = np.hstack([P, np.tile(np.eye(p), (n, 1))])
    r = np.ones(n * p) if w is None else np.repeat(w, p)
    pen = np.diag(np.r_[np.full(P.shape[1], alpha), np.zeros(p)])
    sol = np.linalg.solve(M.T @ (M * r[:, None]) + pen, M.T @ (r * Y.ravel()))
    return sol[:-p], sol[-p:]


@pytest.mark.parametrize("kernel", KERNELS)
def test_ridge_matches_numpy_reference(kernel):
    X, Y = _field(150, 20)
    w = np.random.default_rng(21).uniform(0.5, 2.0, 150)
    params = {"A": np.eye(2)} if kernel == "decomposable" else {}
    model = ORFFRidge(OperatorNystroem(kernel, n_components=30, random_state=0, **params),
                      alpha=1e-2).fit(X, Y, sample_weight=w)
    assert model.solver_ == "direct"
    coef, b = _ridge_reference(model.orff_, X, Y, 1e-2, w)
    np.testing.assert_allclose(model.coef_, coef, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(model.intercept_, b, rtol=1e-7, atol=1e-9)
    pred = np.einsum("nkp,k->np", model.orff_.transform(X[:9]), coef) + b
    np.testing.assert_allclose(model.predict(X[:9]), pred, rtol=1e-7, atol=1e-9)


def test_ridge_cg_and_no_intercept():
    X, Y = _field(120, 22)
    ny = OperatorNystroem("curl_free", n_components=25, random_state=0)
    direct = ORFFRidge(ny, alpha=1e-2, fit_intercept=False).fit(X, Y)
    it = ORFFRidge(ny, alpha=1e-2, fit_intercept=False, solver="cg").fit(X, Y)
    assert it.solver_ == "cg" and it.n_iter_ > 1
    np.testing.assert_allclose(it.coef_, direct.coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(direct.intercept_, np.zeros(2))
    P = direct.orff_.transform(X).transpose(0, 2, 1).reshape(240, -1)
    ref = np.linalg.solve(P.T @ P + 1e-2 * np.eye(25), P.T @ Y.ravel())
    np.testing.assert_allclose(direct.coef_, ref, rtol=1e-8, atol=1e-10)


def test_ridge_partial_fit_uses_the_first_batch_map():
    X, Y = _field(200, 23)
    ny = OperatorNystroem("div_free", n_components=30, random_state=1)
    model = ORFFRidge(ny, alpha=1e-3, batch_size=17)
    for start in range(0, 200, 50):
        model.partial_fit(X[start:start + 50], Y[start:start + 50])
    first = OperatorNystroem("div_free", n_components=30, random_state=1).fit(X[:50])
    np.testing.assert_array_equal(model.orff_.component_indices_, first.component_indices_)
    coef, b = _ridge_reference(first, X, Y, 1e-3)
    np.testing.assert_allclose(model.coef_, coef, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(model.intercept_, b, rtol=1e-7, atol=1e-9)
    assert model.n_samples_seen_ == 200


def test_ridge_scalar_target_and_sparse_rows():
    X, Y = _field(100, 32)
    X[X < -0.5] = 0.0
    ny = OperatorNystroem(n_components=40, random_state=0)
    scalar = ORFFRidge(ny, alpha=1e-3).fit(X, Y[:, 0])       # A=None: the identity of size 1
    assert scalar.orff_.n_outputs_ == 1 and isinstance(scalar.intercept_, float)
    assert scalar.predict(X[:6]).shape == (6,)
    coef, b = _ridge_reference(scalar.orff_, X, Y[:, :1], 1e-3)
    np.testing.assert_allclose(scalar.coef_, coef, rtol=1e-7, atol=1e-9)
    sparse = ORFFRidge(ny, alpha=1e-3).fit(sp.csr_matrix(X), Y[:, 0])
    np.testing.assert_allclose(sparse.predict(sp.csr_matrix(X[:6])), scalar.predict(X[:6]),
                               rtol=1e-10, atol=1e-12)


def test_ridge_keeps_a_fitted_map():
    X, Y = _field(200, 33)
    prefit = OperatorNystroem("curl_free", n_components=30, random_state=0).fit(X[150:])
    before = prefit.normalization_.copy()
    model = ORFFRidge(prefit, alpha=1e-3)
    for start in range(0, 150, 50):
        model.partial_fit(X[start:start + 50], Y[start:start + 50])
    assert model.orff_ is not prefit
    np.testing.assert_array_equal(model.orff_.component_indices_, prefit.component_indices_)
    np.testing.assert_array_equal(prefit.normalization_, before)
    coef, b = _ridge_reference(prefit, X[:150], Y[:150], 1e-3)
    np.testing.assert_allclose(model.coef_, coef, rtol=1e-7, atol=1e-9)
    whole = ORFFRidge(prefit, alpha=1e-3).fit(X[:150], Y[:150])
    np.testing.assert_allclose(whole.coef_, coef, rtol=1e-7, atol=1e-9)
    with pytest.raises(ValueError, match="'X' must have 2 columns, as the rows"):
        ORFFRidge(prefit).fit(np.hstack([X, X[:, :1]]), Y)


def test_ridge_refuses_what_needs_orff():
    X, Y = _field(30, 24)
    with pytest.raises(ValueError, match="'solver'='stein' needs an ORFF"):
        ORFFRidge(OperatorNystroem(n_components=8), solver="stein").fit(X, Y)
    with pytest.raises(ValueError, match="'alpha' per target"):
        ORFFRidge(OperatorNystroem(n_components=8), alpha=[1.0, 2.0]).fit(X, Y)
    with pytest.raises(ValueError, match="p=2 columns"):
        ORFFRidge(OperatorNystroem("curl_free", n_components=8)).fit(X, Y[:, :1])


def test_ridge_on_dask_matches_in_memory():
    da = pytest.importorskip("dask.array")
    X, Y = _field(160, 25)
    ny = OperatorNystroem("curl_free", n_components=20, random_state=0)
    mem = ORFFRidge(ny, alpha=1e-2).fit(X, Y)
    lazy = ORFFRidge(ny, alpha=1e-2).fit(da.from_array(X, chunks=40), da.from_array(Y, chunks=40))
    np.testing.assert_allclose(lazy.coef_, mem.coef_, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(lazy.predict(da.from_array(X, chunks=40)).compute(),
                               mem.predict(X), rtol=1e-9, atol=1e-11)


def test_gram_error_reads_the_map():
    X = _rows(100, 2, 26)
    ny = _map("curl_free", n_components=200).fit(X)
    assert gram_error(ny, X) < 1e-8
    K = CurlFree(ny.sigma_)
    assert gram_error(ny, X, kernel=K) == gram_error(ny, X)
    assert isinstance(_map("decomposable", n_components=4).fit(X[:, :2]).kernel_, Decomposable)
    assert isinstance(_map("div_free", n_components=4).fit(X).kernel_, DivFree)


# ----------------------------------------------------------------------------- scikit-learn's checks
def _expected_failures(estimator):
    """Known, not hidden: the pairs come from the training rows, so repeated rows are more
    candidates than one weighted row (the selection ignores weights, as Nystroem's does;
    ``sample_weight`` only weights ``gamma="scale"``)."""
    if isinstance(estimator, OperatorNystroem):
        return {name: "the pairs are drawn from the rows: repeats are not weights"
                for name in ("check_sample_weight_equivalence_on_dense_data",
                             "check_sample_weight_equivalence_on_sparse_data")}
    return {}


@parametrize_with_checks([
    OperatorNystroem(n_components=20, random_state=0),
    OperatorNystroem(n_components=20, random_state=0, flatten=True),
    OperatorNystroem("curl_free", n_components=30, selection="uniform", random_state=0),
    ORFFRidge(OperatorNystroem(n_components=40, gamma="scale", random_state=0), alpha=1e-3),
], expected_failed_checks=_expected_failures)
def test_check_estimator(estimator, check):
    check(estimator)
