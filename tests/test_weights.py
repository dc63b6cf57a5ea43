"""Optimal nonnegative weights (eq. 17 of Avron et al. 2016): cvxpy vs the fast NNLS path."""
import itertools

import numpy as np
import pytest
from scipy.special import erf, wofz
from scipy.stats import norm, qmc

import qmc_orff
from qmc_orff import BoxDiscrepancy
from qmc_orff.weights import JITTER, WeightsResult, optimal_weights, solve_weights_qp


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
    res = solve_weights_qp(H, v, solver=solver)
    assert res.objective == pytest.approx(val, rel=1e-9)
    np.testing.assert_allclose(res.weights, xi, atol=1e-7 * xi.max())


@pytest.mark.parametrize("d, s, b", [(2, 64, 1.0), (4, 64, 2.0), (8, 128, 4.0), (3, 100, 2.0)])
def test_nnls_and_cvxpy_agree(d, s, b):
    W = halton_w(s, d)
    obj = box(b, d)
    fast = optimal_weights(obj, W, solver="nnls")
    slow = optimal_weights(obj, W, solver="cvxpy")
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
    res = optimal_weights(box(4.0, 8), W, solver="nnls")
    assert res.d2 == pytest.approx(4.0e-5, rel=0.01)


def test_singular_H_duplicate_points():
    # Duplicated points make H exactly singular; both paths still solve the QP.
    W = halton_w(40, 3)
    W = np.vstack([W, W[:10]])
    H, v = ref_H(W, 2.0), ref_v(W, 2.0)
    assert np.linalg.matrix_rank(H) < H.shape[0]
    fast = solve_weights_qp(H, v, solver="nnls", constant=ref_C(2.0, 3))
    slow = solve_weights_qp(H, v, solver="cvxpy", constant=ref_C(2.0, 3))
    assert abs(fast.objective - slow.objective) <= 1e-8 * ref_C(2.0, 3)
    assert fast.kkt_residual < 1e-8
    assert fast.d2 >= -1e-15


def test_kkt_residual_detects_non_optimal():
    W = halton_w(20, 2)
    H, v = ref_H(W, 1.0), ref_v(W, 1.0)
    res = solve_weights_qp(H, v, solver="nnls")
    from qmc_orff.weights import _kkt
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
