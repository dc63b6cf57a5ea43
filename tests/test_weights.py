"""Optimal nonnegative weights (eq. 17 of Avron et al. 2016): cvxpy vs the fast NNLS path."""
import itertools

import numpy as np
import pytest
from scipy.special import erf, wofz
from scipy.stats import norm, qmc

import qmc_orff
from qmc_orff import BoxDiscrepancy
from qmc_orff.objectives.weights import JITTER, WeightsResult, optimal_weights, solve_weights_qp

# The tests of the paper's unconstrained problem (sum_to_one=False) expect its warning about
# weights that do not sum to 1; test_unconstrained_warns checks the warning itself.
pytestmark = pytest.mark.filterwarnings("ignore:the unconstrained optimal weights sum to")


# ----------------------------------------------------------- plain numpy reference (Gaussian)
def ref_H(W, b):
    diff = W[:, None, :] - W[None, :, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.where(diff == 0, b, np.sin(b * diff) / np.where(diff == 0, 1, diff))
    return np.prod(f / np.pi, axis=2)


def ref_v(W, b):
    A, y = b / np.sqrt(2), W / np.sqrt(2)
    g = np.exp(-y ** 2) - np.exp(-A ** 2) * np.real(np.exp(2j * A * y) * wofz(y + 1j * A))
    return np.prod(g / np.sqrt(2 * np.pi), axis=1)


def ref_C(b, d):
    return (erf(b) / (2 * np.sqrt(np.pi))) ** d


def halton_w(s, d):
    return norm.ppf(qmc.Halton(d, scramble=False).random(s + 1)[1:])


def box(b, d):
    return BoxDiscrepancy(np.full(d, float(b)), sigma=np.ones(d))


def brute_force_qp_sum_to_one(H, v):
    """Exact minimiser with sum(xi) = 1 by enumerating supports (KKT system per support)."""
    s = len(v)
    best = (np.inf, None)
    for k in range(1, s + 1):
        for free in itertools.combinations(range(s), k):
            idx = list(free)
            A = np.zeros((k + 1, k + 1))
            A[:k, :k] = H[np.ix_(idx, idx)]
            A[:k, k] = A[k, :k] = 1.0
            try:
                sol = np.linalg.solve(A, np.append(v[idx], 1.0))
            except np.linalg.LinAlgError:
                continue
            if np.all(sol[:k] >= 0):
                xi = np.zeros(s)
                xi[idx] = sol[:k]
                val = xi @ H @ xi - 2 * v @ xi
                if val < best[0]:
                    best = (val, xi)
    return best


def brute_force_qp(H, v):
    """Exact minimiser of xi^T H xi - 2 v^T xi, xi >= 0, by enumerating active sets (tiny s)."""
    s = len(v)
    best = (0.0, np.zeros(s))
    for k in range(1, s + 1):
        for free in itertools.combinations(range(s), k):
            idx = list(free)
            try:
                x = np.linalg.solve(H[np.ix_(idx, idx)], v[idx])
            except np.linalg.LinAlgError:
                continue
            if np.all(x >= 0):
                xi = np.zeros(s)
                xi[idx] = x
                val = xi @ H @ xi - 2 * v @ xi
                if val < best[0]:
                    best = (val, xi)
    return best


# --------------------------------------------------------------------------- tests
def test_public_name():
    assert qmc_orff.optimal_weights is optimal_weights


@pytest.mark.parametrize("solver", ["nnls", "cvxpy"])
def test_matches_brute_force(solver):
    rng = np.random.default_rng(3)
    W = rng.standard_normal((5, 2)) * 1.5
    b = 2.0
    H, v = ref_H(W, b), ref_v(W, b)
    val, xi = brute_force_qp(H, v)
    res = solve_weights_qp(H, v, solver=solver, sum_to_one=False)
    assert res.objective == pytest.approx(val, rel=1e-9)
    np.testing.assert_allclose(res.weights, xi, atol=1e-7 * xi.max())
    # the default constrains sum(xi) = 1: compare with the enumeration of supports
    val1, xi1 = brute_force_qp_sum_to_one(H, v)
    res1 = solve_weights_qp(H, v, solver=solver)
    assert res1.sum_to_one and abs(np.sum(res1.weights) - 1.0) <= 1e-12
    assert res1.objective == pytest.approx(val1, rel=1e-7)
    np.testing.assert_allclose(res1.weights, xi1, atol=1e-6)
    assert res1.objective >= res.objective - 1e-12  # the constraint cannot help


@pytest.mark.parametrize("sum_to_one", [True, False])
@pytest.mark.parametrize("d, s, b", [(2, 64, 1.0), (4, 64, 2.0), (8, 128, 4.0), (3, 100, 2.0)])
def test_nnls_and_cvxpy_agree(d, s, b, sum_to_one):
    W = halton_w(s, d)
    obj = box(b, d)
    fast = optimal_weights(obj, W, solver="nnls", sum_to_one=sum_to_one)
    slow = optimal_weights(obj, W, solver="cvxpy", sum_to_one=sum_to_one)
    if sum_to_one:
        assert abs(np.sum(fast.weights) - 1.0) <= 1e-12
        assert abs(np.sum(slow.weights) - 1.0) <= 1e-12
    C = ref_C(b, d)
    # objective values agree to 1e-8 on the scale of the problem (D^2 = C + objective >= 0)
    assert abs(fast.objective - slow.objective) <= 1e-8 * C
    # the fast path is at least as good (it is exact up to rounding)
    assert fast.objective <= slow.objective + 1e-12 * C
    assert fast.solver == "nnls" and slow.solver in ("clarabel", "osqp")
    assert np.all(fast.weights >= 0) and np.all(slow.weights >= 0)
    assert fast.kkt_residual < 1e-8
    # d2 is the weighted discrepancy, checked with the independent numpy reference
    xi = fast.weights
    ref = C - 2 * ref_v(W, b) @ xi + xi @ ref_H(W, b) @ xi
    assert fast.d2 == pytest.approx(ref, rel=1e-9, abs=1e-14 * C)
    assert fast.d2 == pytest.approx(obj(W, xi), rel=1e-9, abs=1e-14 * C)
    # optimal weights never do worse than uniform ones
    assert fast.d2 <= obj(W) * (1 + 1e-12)


def test_issue_reference_values():
    # Issue 4's prototype: d=8, s=128, b/sigma=4, Halton from index 1: D^2 5.4e-2 -> weighted 4.0e-5
    W = halton_w(128, 8)
    res = optimal_weights(box(4.0, 8), W, solver="nnls", sum_to_one=False)
    assert res.d2 == pytest.approx(4.0e-5, rel=0.01)


def test_singular_H_duplicate_points():
    # Duplicated points make H exactly singular; both paths still solve the QP.
    W = halton_w(40, 3)
    W = np.vstack([W, W[:10]])
    H, v = ref_H(W, 2.0), ref_v(W, 2.0)
    assert np.linalg.matrix_rank(H) < H.shape[0]
    fast = solve_weights_qp(H, v, solver="nnls", constant=ref_C(2.0, 3), sum_to_one=False)
    slow = solve_weights_qp(H, v, solver="cvxpy", constant=ref_C(2.0, 3), sum_to_one=False)
    assert abs(fast.objective - slow.objective) <= 1e-8 * ref_C(2.0, 3)
    assert fast.kkt_residual < 1e-8
    assert fast.d2 >= -1e-15


def test_kkt_residual_detects_non_optimal():
    W = halton_w(20, 2)
    H, v = ref_H(W, 1.0), ref_v(W, 1.0)
    res = solve_weights_qp(H, v, solver="nnls", sum_to_one=False)
    from qmc_orff.objectives.weights import _kkt
    assert _kkt(H, v, res.weights) == res.kkt_residual
    assert _kkt(H, v, np.full(20, 1 / 20)) > 1e-3


def test_result_fields():
    W = halton_w(10, 2)
    res = solve_weights_qp(ref_H(W, 1.0), ref_v(W, 1.0))
    assert isinstance(res, WeightsResult)
    assert res.d2 is None and res.status == "optimal" and res.solver == "nnls"
    assert res.n_active == int(np.count_nonzero(res.weights == 0))
    assert 0 < JITTER < 1e-10


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(solver="lbfgs"), ValueError, "'solver' must be one of 'cvxpy', 'nnls'"),
    (dict(H=np.eye(3), v=np.ones(2)), ValueError, r"'H' must have shape \(2, 2\)"),
    (dict(H=np.eye(2)[0], v=np.ones(2)), ValueError, "'H' must be a 2-D array"),
    (dict(H=np.eye(2), v=[np.nan, 1.0]), ValueError, "'v' must contain only finite"),
    (dict(H=np.zeros((2, 2)), v=np.ones(2)), ValueError, "'H' must have a positive diagonal"),
    (dict(H=np.array([[1.0, 3.0], [3.0, 1.0]]), v=np.ones(2)), ValueError,
     "not positive semidefinite"),
])
def test_bad_input(kwargs, exc, match):
    args = dict(H=np.eye(2), v=np.ones(2))
    args.update(kwargs)
    solver = args.pop("solver", "nnls")
    with pytest.raises(exc, match=match):
        solve_weights_qp(args["H"], args["v"], solver=solver)


def test_optimal_weights_checks_points():
    with pytest.raises(ValueError, match="'solver' must be one of"):
        optimal_weights(box(1.0, 2), np.zeros((3, 2)), solver="x")
    with pytest.raises(ValueError, match="'W' must have 2 columns"):
        optimal_weights(box(1.0, 2), np.zeros((3, 3)))


# --------------------------------------------------------------------------- units, high d
@pytest.mark.parametrize("solver", ["nnls", "cvxpy"])
def test_normalize_gives_same_weights_and_scaled_values(solver):
    d, b = 3, 2.0
    obj = box(b, d)
    W = halton_w(40, d)
    raw = optimal_weights(obj, W, solver=solver, sum_to_one=False)
    nrm = optimal_weights(obj, W, solver=solver, normalize=True, sum_to_one=False)
    np.testing.assert_allclose(nrm.weights, raw.weights, rtol=1e-8, atol=1e-10 * raw.weights.max())
    scale = (b / np.pi) ** d
    assert raw.d2 == pytest.approx(scale * nrm.d2, rel=1e-9)
    assert raw.objective == pytest.approx(scale * nrm.objective, rel=1e-9)
    assert nrm.d2 == pytest.approx(obj(W, nrm.weights, normalize=True), rel=1e-9)
    # and the raw result against the plain references
    H, v = ref_H(W, b), ref_v(W, b)
    assert raw.d2 == pytest.approx(ref_C(b, d) - 2 * v @ raw.weights
                                   + raw.weights @ H @ raw.weights, rel=1e-9)


@pytest.mark.parametrize("solver", ["nnls", "cvxpy"])
def test_high_dimension_normalised_weights(solver):
    # d = 250, b/sigma = 0.5, sigma = 0.05: prod(b / pi) = (0.025/pi)^250 ~ 1e-525 underflows;
    # the QP in normalised units has H[l, l] = 1 and tiny v, rescaled inside the solvers
    d, s = 250, 24
    obj = BoxDiscrepancy(np.full(d, 0.025), sigma=np.full(d, 0.05))
    W = halton_w(s, d) / 0.05
    res = optimal_weights(obj, W, solver=solver, normalize=True, sum_to_one=False)
    assert np.all(np.isfinite(res.weights)) and np.all(res.weights >= 0)
    assert res.weights.max() > 0
    # interior-point (cvxpy) weights are accurate to its tolerances only
    assert res.kkt_residual < (1e-10 if solver == "nnls" else 1e-5)
    if solver == "cvxpy":
        fast = optimal_weights(obj, W, solver="nnls", normalize=True, sum_to_one=False)
        assert res.d2 == pytest.approx(fast.d2, rel=1e-9)
    H = obj.pair_matrix(W, normalize=True)
    v = obj.linear_term(W, normalize=True)
    np.testing.assert_allclose(H.diagonal(), 1.0, rtol=1e-15)
    # the optimum: no better point along random feasible directions (brute-force check)
    f0 = res.weights @ H @ res.weights - 2 * v @ res.weights
    rng = np.random.default_rng(3)
    for _ in range(20):
        trial = np.maximum(res.weights * (1 + 1e-3 * rng.standard_normal(s)), 0.0)
        assert trial @ H @ trial - 2 * v @ trial >= f0 - 1e-12 * abs(f0)
    assert res.d2 == pytest.approx(obj(W, res.weights, normalize=True), rel=1e-9, abs=1e-300)
    assert res.d2 <= obj(W, normalize=True)
    with pytest.raises(ValueError, match="normalize=True"):
        optimal_weights(obj, W, solver=solver)


def test_normalize_must_be_bool():
    with pytest.raises(TypeError, match="'normalize' must be a bool; got str"):
        optimal_weights(box(1.0, 2), np.zeros((3, 2)), normalize="yes")


def test_nnls_polish_not_decided_by_rounding():
    # d=16, s=512, b=2 (the benchmark's case): NNLS alone stops at KKT ~4e-11; the
    # polished free-set solution ties in objective to rounding and has KKT ~5e-16: it must
    # be kept whichever way the rounding of the two objective values falls
    d = 16
    obj = box(2.0, d)
    W = halton_w(512, d)
    res = optimal_weights(obj, W, solver="nnls", normalize=True, sum_to_one=False)
    assert res.kkt_residual < 1e-13
    H = obj.pair_matrix(W, normalize=True)
    v = obj.linear_term(W, normalize=True)
    raw = solve_weights_qp(H, v, solver="nnls", sum_to_one=False)
    assert raw.kkt_residual < 1e-13
    assert raw.objective == pytest.approx(res.objective, rel=1e-12)


# --------------------------------------------------------------------------- sum(xi) = 1
def test_unconstrained_warns_and_default_keeps_k0():
    # high dimension, large box: the paper's weights collapse (sum far below 1)
    d, s = 16, 128
    obj = box(2.0, d)
    W = halton_w(s, d)
    with pytest.warns(UserWarning, match=r"unconstrained optimal weights sum to 0\.\d+, not 1"):
        free = optimal_weights(obj, W, solver="nnls", normalize=True, sum_to_one=False)
    assert np.sum(free.weights) < 0.95
    import warnings as _w
    with _w.catch_warnings():
        _w.simplefilter("error")
        res = optimal_weights(obj, W, solver="nnls", normalize=True)
    assert abs(np.sum(res.weights) - 1.0) <= 1e-12 and np.all(res.weights >= 0)
    assert res.kkt_residual < 1e-10
    # no better feasible point along random feasible directions (brute-force optimality check)
    H = obj.pair_matrix(W, normalize=True)
    v = obj.linear_term(W, normalize=True)
    f0 = res.weights @ H @ res.weights - 2 * v @ res.weights
    rng = np.random.default_rng(5)
    for _ in range(20):
        trial = np.maximum(res.weights + 1e-3 * rng.random(s) * (res.weights > 0), 0.0)
        trial /= trial.sum()
        assert trial @ H @ trial - 2 * v @ trial >= f0 - 1e-12 * abs(f0)
    # uniform weights are feasible, so the optimum is at most their discrepancy
    assert res.d2 <= obj(W, normalize=True) * (1 + 1e-12)


@pytest.mark.parametrize("d, s, b", [(8, 512, 0.5), (2, 256, 1.0)])
def test_sum_to_one_nnls_matches_cvxpy_larger(d, s, b):
    W = halton_w(s, d)
    obj = box(b, d)
    fast = optimal_weights(obj, W, solver="nnls", normalize=True)
    slow = optimal_weights(obj, W, solver="cvxpy", normalize=True)
    assert abs(np.sum(fast.weights) - 1.0) <= 1e-12 and abs(np.sum(slow.weights) - 1.0) <= 1e-12
    assert fast.objective == pytest.approx(slow.objective, rel=1e-8)
    assert fast.objective <= slow.objective + 1e-12 * abs(slow.objective)
    assert fast.kkt_residual < 1e-10


def test_sum_to_one_must_be_bool():
    W = halton_w(10, 2)
    with pytest.raises(TypeError, match="'sum_to_one' must be a bool; got str"):
        solve_weights_qp(ref_H(W, 1.0), ref_v(W, 1.0), sum_to_one="yes")


@pytest.mark.parametrize("solver", ["nnls", "cvxpy"])
def test_data_objective_unnormalised(solver):
    # the QP over any objective of the protocol: the raw values of a DataDiscrepancy are the
    # normalised ones times its normaliser ||K||_F^2 / m^2 (this raised AttributeError
    # 'box_and_sigma' before the objective protocol)
    rng = np.random.default_rng(11)
    X = rng.normal(size=(40, 3))
    W = rng.normal(size=(12, 3))
    obj = qmc_orff.DataDiscrepancy(X, sigma=1.5)
    raw = optimal_weights(obj, W, solver=solver, normalize=False)
    nrm = optimal_weights(obj, W, solver=solver, normalize=True)
    np.testing.assert_array_equal(raw.weights, nrm.weights)
    scale = obj.constant()
    assert scale == obj.normalizer() and scale != 1.0
    assert raw.d2 == scale * nrm.d2
    assert raw.objective == scale * nrm.objective
    # d2 is the data discrepancy of the weighted points, in its own units
    assert raw.d2 == pytest.approx(obj(W, raw.weights), rel=1e-9, abs=1e-14)
