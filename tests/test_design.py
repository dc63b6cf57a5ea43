"""Adaptive designs: global, greedy (incremental running sums), weighted, lattice (CBC)."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.special import erf, wofz
from scipy.stats import norm, qmc

import qmc_orff
from qmc_orff import BoxDiscrepancy
from qmc_orff import designs as design
from qmc_orff.designs import greedy as greedy_design
from qmc_orff.designs import is_interrupt
from qmc_orff.designs._optimizer import UnitProblem
from qmc_orff.designs.start_points import initial_points
from qmc_orff.objectives import _box_greedy as box_greedy
from qmc_orff.objectives._box_greedy import BoxGreedyState
from qmc_orff.objectives._greedy_kernels import (greedy_candidate, greedy_candidate_gauss,
                                                 greedy_pair_sum_t, greedy_pair_sum_t_value,
                                                 product_and_grad)
from qmc_orff.sequence import Sequence

sys.path.insert(0, str(Path(__file__).parent))
from _greedy_reference import (greedy_pair_sum, greedy_pair_sum_tab,  # noqa: E402
                               greedy_pair_sum_tab_value, greedy_pair_sum_value)


# ----------------------------------------------------------- plain numpy references (tests only)
def ref_sinc_factors(x, b):
    """Normalised sinc sin(b x) / (b x) and its x-derivative by quadrature, with no cancellation:
    sin(b x) / x = int_0^b cos(x t) dt,  d/dx = -int_0^b t sin(x t) dt (80-point Gauss-Legendre),
    both divided by b (the greedy kernel's units: the pair term times pi / b per coordinate)."""
    x = np.asarray(x, dtype=float)[..., None]
    b = np.asarray(b, dtype=float)[..., None]
    nodes, wts = np.polynomial.legendre.leggauss(80)
    tt = 0.5 * b * (nodes + 1.0)
    ww = 0.5 * b * wts
    f = np.sum(ww * np.cos(x * tt), axis=-1)
    df = -np.sum(ww * tt * np.sin(x * tt), axis=-1)
    return f / b[..., 0], df / b[..., 0]


def ref_pair_sum(w, W, b):
    f, df = ref_sinc_factors(w[None, :] - W, b)
    total = np.prod(f, axis=1).sum()
    grad = np.array([(df[:, j] * np.prod(np.delete(f, j, axis=1), axis=1)).sum()
                     for j in range(W.shape[1])])
    return total, grad


def ref_D2(W, b, xi=None):
    """Gaussian density at unit bandwidth, box b (scalar): D^2 from formulas.md."""
    s, d = W.shape
    xi = np.full(s, 1 / s) if xi is None else xi
    diff = W[:, None, :] - W[None, :, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.where(diff == 0, b, np.sin(b * diff) / np.where(diff == 0, 1, diff))
    H = np.prod(f / np.pi, axis=2)
    A, y = b / np.sqrt(2), W / np.sqrt(2)
    g = (np.exp(-y ** 2) - np.exp(-A ** 2) * np.real(np.exp(2j * A * y) * wofz(y + 1j * A)))
    v = np.prod(g / np.sqrt(2 * np.pi), axis=1)
    C = (erf(b) / (2 * np.sqrt(np.pi))) ** d
    return C - 2 * v @ xi + xi @ H @ xi


def box(b, d, sigma=1.0):
    return BoxDiscrepancy(np.full(d, float(b)), sigma=np.full(d, float(sigma)))


def halton_w(s, d):
    return norm.ppf(qmc.Halton(d, scramble=False).random(s + 1)[1:])


# --------------------------------------------------------------------------- greedy kernel
@pytest.mark.parametrize("d", [1, 3, 6, 250])
def test_greedy_kernel_matches_reference(d):
    rng = np.random.default_rng(d)
    W = rng.standard_normal((30, d))
    b = rng.uniform(0.5, 3.0, d)
    w = rng.standard_normal(d)
    # coincident and nearly coincident coordinates exercise the Taylor branch
    W[3, 0] = w[0]
    W[5, -1] = w[-1] + 1e-9
    W[7, :] = w + 0.03 / b
    grad = np.empty(d)
    val = greedy_pair_sum(w, W, 25, b, grad)
    rv, rg = ref_pair_sum(w, W[:25], b)
    assert val == pytest.approx(rv, rel=1e-13, abs=1e-15)
    np.testing.assert_allclose(grad, rg, rtol=1e-11, atol=1e-14 * np.abs(rg).max())
    assert greedy_pair_sum_value(w, W, 25, b) == pytest.approx(val, rel=1e-14)
    assert greedy_pair_sum(w, W, 0, b, grad) == 0.0 and np.all(grad == 0)
    # the tabulated (angle-addition) kernel used by the greedy state
    S, Co = np.sin(b * W), np.cos(b * W)
    gt = np.empty(d)
    vt = greedy_pair_sum_tab(w, W, S, Co, 25, b, gt)
    assert vt == pytest.approx(rv, rel=1e-13, abs=1e-15)
    np.testing.assert_allclose(gt, rg, rtol=1e-11, atol=1e-14 * np.abs(rg).max())
    assert greedy_pair_sum_tab_value(w, W, S, Co, 25, b) == vt  # same factors, same order
    assert greedy_pair_sum_tab(w, W, S, Co, 0, b, gt) == 0.0 and np.all(gt == 0)


def test_greedy_tab_kernel_taylor_switch_and_fd():
    # the series and the angle-addition form agree at the switch |b x| = 0.5
    b = np.array([2.0])
    W = np.array([[0.3]])
    S, Co = np.sin(b * W), np.cos(b * W)
    g1, g2 = np.empty(1), np.empty(1)
    v1 = greedy_pair_sum_tab(np.array([0.3 + 0.25 * (1 - 1e-12)]), W, S, Co, 1, b, g1)
    v2 = greedy_pair_sum_tab(np.array([0.3 + 0.25 * (1 + 1e-12)]), W, S, Co, 1, b, g2)
    assert v1 == pytest.approx(v2, rel=1e-14)
    assert g1[0] == pytest.approx(g2[0], rel=1e-12)
    rng = np.random.default_rng(8)
    d = 5
    W = rng.standard_normal((20, d))
    b = np.full(d, 2.0)
    S, Co = np.sin(b * W), np.cos(b * W)
    w = rng.standard_normal(d)
    grad = np.empty(d)
    greedy_pair_sum_tab(w, W, S, Co, 20, b, grad)
    h = 1e-6
    for j in range(d):
        e = np.zeros(d)
        e[j] = h
        fd = (greedy_pair_sum_tab_value(w + e, W, S, Co, 20, b)
              - greedy_pair_sum_tab_value(w - e, W, S, Co, 20, b)) / (2 * h)
        assert grad[j] == pytest.approx(fd, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("d", [1, 2, 7, 40])
def test_transposed_greedy_kernels_bit_identical_to_row_kernels(d):
    # the vectorised kernels of the greedy state keep every operation of the row-wise ones
    rng = np.random.default_rng(100 + d)
    s, t = 50, 37
    W = rng.standard_normal((s, d))
    b = rng.uniform(0.5, 3.0, d)
    w = rng.standard_normal(d)
    W[3] = w  # exact zeros of y, and the Taylor branch
    W[5, -1] = w[-1] + 1e-9
    W[7] = w + 0.2 / b
    S, Co = np.sin(b * W), np.cos(b * W)
    tab = np.ascontiguousarray(np.stack([W.T, S.T, Co.T]))
    work = np.empty((3 * d + 1, s))
    for tt in (0, 1, t):
        g_row, g_t = np.empty(d), np.empty(d)
        v_row = greedy_pair_sum_tab(w, W, S, Co, tt, b, g_row)
        assert greedy_pair_sum_t(w, tab, tt, b, work, g_t) == v_row
        np.testing.assert_array_equal(g_t, g_row)
        assert greedy_pair_sum_t_value(w, tab, tt, b, work) == \
            greedy_pair_sum_tab_value(w, W, S, Co, tt, b)


def test_greedy_candidate_kernel_matches_former_numpy_expression():
    rng = np.random.default_rng(12)
    d, s, t = 5, 20, 13
    W = rng.standard_normal((s, d))
    b = rng.uniform(0.5, 3.0, d)
    sigma = rng.uniform(0.5, 2.0, d)
    a = b / sigma
    w = rng.standard_normal(d)
    S, Co = np.sin(b * W), np.cos(b * W)
    tab = np.ascontiguousarray(np.stack([W.T, S.T, Co.T]))
    work = np.empty((3 * d + 1, s))
    g, dg = rng.uniform(-0.3, 0.3, d), rng.uniform(-0.3, 0.3, d)
    pair, lin, C, scale = 57.25, 3.125, 0.3, (t + 1) ** 2 / 2.0
    out = np.empty(d)
    val = greedy_candidate(w, tab, t, b, work, g, dg,
                           np.array([np.pi / a, np.pi * sigma / a]),
                           np.array([pair, lin, 1.0, C]), t + 1, scale, out)
    # the former NumPy code of _GreedyState.candidate, operation by operation
    gp = np.empty(d)
    S_w = greedy_pair_sum_tab(w, W, S, Co, t, b, gp)
    gv = np.empty(d)
    v = product_and_grad(g * (np.pi / a), dg * (np.pi * sigma / a), gv)
    n = t + 1
    ref = (pair + 2.0 * S_w + 1.0) / n ** 2 - 2.0 * (lin + v) / n + C
    ref_grad = 2.0 * gp / n ** 2 - 2.0 * gv / n
    assert val == ref * scale
    np.testing.assert_array_equal(out, ref_grad * scale)


@pytest.mark.parametrize("d, r", [(8, 2.0), (3, 0.7), (5, 4.0)])
def test_fused_gaussian_candidate_equals_the_two_step_path(d, r):
    # Gaussian density: g, g' inside the candidate's compiled call (quadrature branch from
    # tabulated node terms) give the bits of the density's g followed by greedy_candidate;
    # elements outside the branch (|x| a > 4, a > 2: r = 4 has a = 4) and non-finite
    # candidates fall back to that path
    obj = box(r, d)
    P = UnitProblem(obj, d)
    st = P.greedy_state(40)
    rng = np.random.default_rng(d)
    for w in rng.standard_normal((30, d)) * 1.3:
        st.add(np.ascontiguousarray(w))
    nodes = st.gauss_nodes
    assert nodes is not None
    fused = 0
    for w in rng.standard_normal((100, d)) * 2.5:
        w = np.ascontiguousarray(w)
        g1, g2 = np.empty(d), np.empty(d)
        v1 = st.scaled_candidate(w, 3.0, g1)
        fused += greedy_candidate_gauss(w, st.sigma, st.a, *nodes, st.tab, st.t, st.b, st.work,
                                        st.coef, np.zeros(4), st.t + 1, 1.0, np.empty(d))[1]
        st.gauss_nodes = None
        v2 = st.scaled_candidate(w, 3.0, g2)
        st.gauss_nodes = nodes
        assert v1 == v2
        np.testing.assert_array_equal(g1, g2)
    assert (fused > 0) == (r < 4.0) and fused < 100  # both paths taken where they can be
    w = np.full(d, np.nan)
    with pytest.raises(ValueError, match="finite"):
        st.scaled_candidate(w, 1.0, np.empty(d))


def test_nd2_on_the_gradient_path_is_the_value_bit_for_bit():
    # the global design evaluates D^2 on the value-and-gradient path (one compiled pair
    # kernel fewer): the same number as the value-only path, weights or not
    rng = np.random.default_rng(5)
    for s, d in ((40, 3), (300, 40)):
        P = UnitProblem(box(1.7, d), d)
        U = rng.standard_normal((s, d))
        xi = rng.uniform(0.5, 1.5, s) / s
        for weights in (None, xi):
            P.via_gradient = False
            v = P.nd2(U, weights)
            P.via_gradient = True
            assert P.nd2(U, weights) == v


def _cg_problems():
    from scipy.optimize import rosen, rosen_der

    def rosenbrock(x):
        return rosen(x), rosen_der(x)

    def wavy(x):  # many line-search failures: exercises SciPy's Wolfe-2 fallback
        return float(np.sum(np.sin(3 * x)) + 0.1 * x @ x), 3 * np.cos(3 * x) + 0.2 * x

    return [(rosenbrock, 200, 1e-8), (wavy, 50, 1e-10)]


@pytest.mark.parametrize("k", [0, 1])
def test_minimize_cg_takes_scipys_cg_steps(k):
    # bit-identical to scipy.optimize.minimize(method="CG") (SciPy >= 1.15, see qmc_orff.designs._cg)
    from scipy.optimize import minimize

    from qmc_orff.designs._cg import minimize_cg

    fun, maxiter, gtol = _cg_problems()[k]
    rng = np.random.default_rng(30 + k)
    status = set()
    for d in (2, 3, 5, 8):
        for _ in range(6):
            x0 = rng.standard_normal(d) * 2.0
            ref = minimize(fun, x0, jac=True, method="CG",
                           options={"gtol": gtol, "maxiter": maxiter})
            x, f, nit = minimize_cg(fun, x0, gtol=gtol, maxiter=maxiter)
            np.testing.assert_array_equal(x, ref.x)
            assert f == ref.fun and nit == ref.nit
            status.add(ref.status)
    assert 0 in status  # converged runs, and (wavy) line-search failures, both compared
    if k == 1:
        assert 2 in status


def test_greedy_steps_equal_scipy_cg_steps(monkeypatch):
    # every local optimisation of a greedy design as SciPy's CG would take it
    from scipy.optimize import minimize

    from qmc_orff.designs import _cg

    calls = []

    def checked(fun, x0, *, gtol, maxiter):
        out = _cg.minimize_cg(fun, x0, gtol=gtol, maxiter=maxiter)
        ref = minimize(fun, x0, jac=True, method="CG", options={"gtol": gtol, "maxiter": maxiter})
        calls.append(np.array_equal(out[0], ref.x) and out[1] == ref.fun and out[2] == ref.nit)
        return out

    monkeypatch.setattr(greedy_design, "minimize_cg", checked)
    design.greedy_sequence(box(2.0, 4), 40, starts=2)
    assert len(calls) >= 70 and all(calls)


def test_product_and_grad_matches_cumprod():
    g = np.array([0.3, -0.0, 0.7, 1.1, -0.4])
    dg = np.array([1.0, 2.0, -0.5, 0.25, 3.0])
    grad = np.empty(5)
    p = product_and_grad(g, dg, grad)
    prefix = np.concatenate(([1.0], np.cumprod(g)))
    suffix = np.concatenate((np.cumprod(g[::-1])[::-1], [1.0]))
    assert p == prefix[5]
    np.testing.assert_array_equal(grad, dg * prefix[:5] * suffix[1:])


def test_greedy_kernel_taylor_branch_continuity():
    # the series and the direct form agree at the switch |b x| = 0.1
    b = np.array([2.0])
    W = np.zeros((1, 1))
    g1, g2 = np.empty(1), np.empty(1)
    x_in, x_out = 0.05 * (1 - 1e-12), 0.05 * (1 + 1e-12)
    v1 = greedy_pair_sum(np.array([x_in]), W, 1, b, g1)
    v2 = greedy_pair_sum(np.array([x_out]), W, 1, b, g2)
    assert v1 == pytest.approx(v2, rel=1e-14)
    assert g1[0] == pytest.approx(g2[0], rel=1e-11)


def test_greedy_kernel_gradient_finite_differences():
    rng = np.random.default_rng(5)
    d = 4
    W = rng.standard_normal((20, d))
    b = np.full(d, 2.0)
    w = rng.standard_normal(d)
    grad = np.empty(d)
    greedy_pair_sum(w, W, 20, b, grad)
    h = 1e-6
    for j in range(d):
        e = np.zeros(d)
        e[j] = h
        fd = (greedy_pair_sum_value(w + e, W, 20, b) - greedy_pair_sum_value(w - e, W, 20, b)) / (2 * h)
        assert grad[j] == pytest.approx(fd, rel=1e-6, abs=1e-9)


# --------------------------------------------------------------------------- greedy state
def test_greedy_incremental_equals_full_recompute():
    d, b = 3, 1.7
    obj = box(b, d)
    state = BoxGreedyState(obj, 40, d)
    rng = np.random.default_rng(7)
    pts = rng.standard_normal((40, d))
    norm_factor = (b / np.pi) ** d  # the state works in normalised units
    for t in range(40):
        w = np.ascontiguousarray(pts[t])
        cand, grad = state.candidate(w)
        full = obj(pts[:t + 1], normalize=True)
        assert cand == pytest.approx(full, rel=1e-11, abs=1e-16)
        # and against the plain numpy reference
        assert cand * norm_factor == pytest.approx(ref_D2(pts[:t + 1], b), rel=1e-10, abs=1e-16)
        # gradient of the incremental objective = gradient of the full D^2 in the new point
        _, g_full = obj.value_and_grad(pts[:t + 1], normalize=True)
        np.testing.assert_allclose(grad, g_full[t], rtol=1e-8, atol=1e-12 * np.abs(g_full).max())
        assert state.add(w) == pytest.approx(full, rel=1e-11, abs=1e-16)


def test_greedy_sequence_history_is_prefix_D2_and_beats_halton():
    d, s, b = 4, 40, 2.0
    obj = box(b, d)
    seq = design.greedy_sequence(obj, s)
    hist = np.array(seq.meta["history"])
    assert seq.s == s and len(hist) == s
    for n in (1, 5, 17, 40):
        assert hist[n - 1] == pytest.approx(obj(seq.points[:n]), rel=1e-10)
    assert seq.meta["d2"] == pytest.approx(obj(seq.points), rel=1e-10)
    H = halton_w(s, d)
    halton = np.array([obj(H[:n]) for n in range(1, s + 1)])
    # issue 4 floor: greedy beats Halton at every prefix length >= 32 (d=4, b/sigma=2)
    assert np.all(hist[31:] < halton[31:])


def test_greedy_resume_from_prefix_is_identical():
    obj = box(2.0, 3)
    full = design.greedy_sequence(obj, 20, maxiter=20)
    part = design.greedy_sequence(obj, 12, maxiter=20)
    resumed = design.greedy_sequence(obj, 20, maxiter=20, prefix=part)
    np.testing.assert_array_equal(resumed.points, full.points)
    assert resumed.meta["resumed_points"] == 12
    np.testing.assert_allclose(resumed.meta["history"], full.meta["history"], rtol=1e-12)


def test_greedy_checkpoints_and_single_start():
    obj = box(2.0, 2)
    seen = []
    seq = design.greedy_sequence(obj, 10, starts=1, maxiter=10,
                                 checkpoint=seen.append, checkpoint_every=4)
    assert [c.s for c in seen] == [4, 8]
    np.testing.assert_array_equal(seen[1].points, seq.points[:8])
    assert seq.meta["starts"] == 1
    with pytest.raises(TypeError, match="'checkpoint' must be callable"):
        design.greedy_sequence(obj, 3, checkpoint=1)


# --------------------------------------------------------------------------- global
@pytest.mark.parametrize("method", ["cg", "l-bfgs-b"])
def test_global_never_worse_than_init_and_keeps_best(method):
    obj = box(2.0, 3)
    seq = design.global_sequence(obj, 24, method=method, maxiter=15)
    m = seq.meta
    assert m["d2"] <= m["initial_d2"]
    assert m["initial_d2"] == pytest.approx(obj(halton_w(24, 3)), rel=1e-12)
    assert m["d2"] == pytest.approx(obj(seq.points), rel=1e-12)
    assert m["d2"] <= min(m["history"]) * (1 + 1e-12)
    assert m["history"][0] == m["initial_d2"] and m["iterations"] == len(m["history"]) - 1
    assert m["iterations"] <= 15
    assert m["stop_reason"]
    assert m["method"] == "global" and m["optimizer"] == method and m["maxiter"] == 15
    assert m["halton_d2"] == pytest.approx(m["initial_d2"], rel=1e-12)
    assert m["d2"] == pytest.approx(ref_D2(seq.points, 2.0), rel=1e-10)


def test_global_reference_floor_d4():
    # issue 4: d=4, s=64, b/sigma=2: global D^2 <= 0.1 x Halton's (1.2e-3)
    seq = design.global_sequence(box(2.0, 4), 64, maxiter=30)
    assert seq.meta["halton_d2"] == pytest.approx(1.2e-3, rel=0.01)
    assert seq.meta["d2"] <= 0.1 * seq.meta["halton_d2"]


def test_global_deterministic():
    a = design.global_sequence(box(1.0, 2), 16, maxiter=10)
    b = design.global_sequence(box(1.0, 2), 16, maxiter=10)
    np.testing.assert_array_equal(a.points, b.points)


def test_global_stored_at_unit_bandwidth():
    # a design at box b, bandwidth sigma is the unit-bandwidth design for box b / sigma
    sig = np.array([2.0, 0.5])
    obj = BoxDiscrepancy(np.array([4.0, 1.0]), sigma=sig)
    seq = design.global_sequence(obj, 16, maxiter=10)
    ref = design.global_sequence(box(2.0, 2), 16, maxiter=10)
    assert seq.meta["box_over_sigma"] == [2.0, 2.0]
    np.testing.assert_allclose(seq.points, ref.points, rtol=1e-7, atol=1e-9)
    W = seq.frequencies(sig)
    assert obj(W) == pytest.approx(seq.meta["d2"], rel=1e-12)


def test_global_callback_stop_and_interrupt():
    obj = box(2.0, 2)
    calls = []

    def cb(it, W, d2):
        calls.append((it, d2))
        assert W.shape == (12, 2)
        return it >= 3

    seq = design.global_sequence(obj, 12, maxiter=50, callback=cb)
    assert [c[0] for c in calls] == [1, 2, 3]
    assert seq.meta["stop_reason"] == "callback requested stop"

    def interrupt(it, W, d2):
        if it == 2:
            raise KeyboardInterrupt
        return False

    seq = design.global_sequence(obj, 12, maxiter=50, callback=interrupt)
    assert seq.meta["stop_reason"] == "interrupted"
    assert seq.meta["d2"] <= seq.meta["initial_d2"]
    assert seq.meta["d2"] == pytest.approx(obj(seq.points), rel=1e-12)


def _interrupt_in_compiled_code():
    """What a Ctrl-C inside a numba call raises: SystemError chained from KeyboardInterrupt."""
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as exc:
        err = SystemError("CPUDispatcher(...) returned a result with an exception set")
        err.__cause__ = exc
        return err


def test_ctrl_c_inside_compiled_code_counts_as_an_interrupt(monkeypatch):
    # seen in test_cli's Ctrl-C test: the CLI used to exit with status 1 and save nothing
    obj = box(2.0, 2)
    calls = [0]
    original = BoxDiscrepancy.value_and_grad

    def flaky(self, *args, **kwargs):
        calls[0] += 1
        if calls[0] == 6:
            raise _interrupt_in_compiled_code()
        return original(self, *args, **kwargs)

    monkeypatch.setattr(BoxDiscrepancy, "value_and_grad", flaky)
    seq = design.global_sequence(obj, 12, maxiter=50)
    assert seq.meta["stop_reason"] == "interrupted"
    assert seq.meta["d2"] <= seq.meta["initial_d2"]
    assert seq.meta["d2"] == pytest.approx(obj(seq.points), rel=1e-12)

    steps = [0]

    def flaky_pair_sum(*args):
        steps[0] += 1
        if steps[0] == 40:
            raise _interrupt_in_compiled_code()
        return greedy_candidate(*args)

    def flaky_fused(*args):
        steps[0] += 1
        if steps[0] == 40:
            raise _interrupt_in_compiled_code()
        return greedy_candidate_gauss(*args)

    monkeypatch.setattr(box_greedy, "greedy_candidate", flaky_pair_sum)
    monkeypatch.setattr(box_greedy, "greedy_candidate_gauss", flaky_fused)
    seq = design.greedy_sequence(obj, 12, maxiter=5)
    assert seq.meta["stop_reason"] == "interrupted" and 1 <= seq.s < 12
    # other SystemErrors still propagate
    for name in ("greedy_candidate", "greedy_candidate_gauss"):
        monkeypatch.setattr(box_greedy, name, lambda *args: (_ for _ in ()).throw(SystemError("other")))
    with pytest.raises(SystemError, match="other"):
        design.greedy_sequence(obj, 4, maxiter=5)
    assert is_interrupt(KeyboardInterrupt()) and not is_interrupt(ValueError())


def test_global_init_options():
    obj = box(1.5, 2)
    seq0 = design.global_sequence(obj, 8, maxiter=0)
    np.testing.assert_array_equal(seq0.points, halton_w(8, 2))
    assert seq0.meta["stop_reason"] == "maxiter = 0"
    resumed = design.global_sequence(obj, 8, init=seq0, maxiter=0)
    np.testing.assert_array_equal(resumed.points, seq0.points)
    arr = design.global_sequence(obj, 8, init=np.ones((8, 2)) * 0.3 + halton_w(8, 2), maxiter=0)
    assert arr.meta["init"] == "array"
    r1 = design.global_sequence(obj, 8, init="random", seed=3, maxiter=0)
    r2 = design.global_sequence(obj, 8, init="random", seed=3, maxiter=0)
    np.testing.assert_array_equal(r1.points, r2.points)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(method="newton"), ValueError, "'method' must be one of 'cg', 'l-bfgs-b'"),
    (dict(init="faure"), ValueError, "'init' must be one of"),
    (dict(init=np.zeros((3, 2))), ValueError, r"'init' must be a generator name .* shape \(8, 2\)"),
    (dict(init=np.full((8, 2), np.nan)), ValueError, "'init' must contain only finite"),
    (dict(maxiter=-1), ValueError, "'maxiter' must be >= 0"),
    (dict(tol=0.0), ValueError, "'tol' must be a positive finite number"),
    (dict(tol=np.inf), ValueError, "'tol' must be a positive finite number"),  # used to stop at once
    (dict(callback=3), TypeError, "'callback' must be callable"),
    (dict(d=3), ValueError, "'d' = 3 conflicts with the objective's d = 2"),
])
def test_global_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        design.global_sequence(box(1.0, 2), 8, **kwargs)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(method="newton"), ValueError, "'method' must be one of 'cg', 'l-bfgs-b'"),
    (dict(maxiter=-1), ValueError, "'maxiter' must be >= 0"),
    (dict(tol=np.nan), ValueError, "'tol' must be a positive finite number"),
    (dict(tol=np.inf), ValueError, "'tol' must be a positive finite number"),
])
def test_greedy_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        design.greedy_sequence(box(1.0, 2), 8, **kwargs)


def test_d_required_when_objective_has_none():
    obj = BoxDiscrepancy(2.0)  # scalar box and bandwidth, no d
    assert obj.d is None
    for f in (design.global_sequence, design.greedy_sequence, design.weighted_sequence,
              design.lattice_sequence):
        with pytest.raises(ValueError, match="'d' is required"):
            f(obj, 8)
    a = design.global_sequence(obj, 8, d=2, maxiter=3)
    b = design.global_sequence(box(2.0, 2), 8, maxiter=3)
    np.testing.assert_array_equal(a.points, b.points)
    assert a.meta["d2"] == b.meta["d2"] and a.meta["expected_mc"] == b.meta["expected_mc"]
    w = design.weighted_sequence(obj, 8, d=2)
    assert w.meta["box_over_sigma"] == [2.0, 2.0]


# --------------------------------------------------------------------------- points from the cube
def test_unit_points_policy():
    for init in ("halton", "halton-rr2", "sobol"):
        t = initial_points(init, 64, 5)
        assert t.shape == (64, 5)
        assert np.all(t > 0) and np.all(t < 1)
        w = design.to_frequencies(t, qmc_orff.GaussianDensity(), 1.0)
        assert np.all(np.isfinite(w))
    # unscrambled Halton from index 1 (index 0 is the origin)
    np.testing.assert_array_equal(initial_points("halton", 10, 3),
                                  qmc.Halton(3, scramble=False).random(11)[1:])
    t = initial_points("random", 5, 2, seed=1)
    np.testing.assert_array_equal(t, np.random.default_rng(1).random((5, 2)))


def test_to_frequencies_never_infinite():
    with pytest.raises(ValueError, match="non-finite frequencies"):
        design.to_frequencies(np.array([[0.0, 0.5]]), qmc_orff.GaussianDensity(), 1.0)


# --------------------------------------------------------------------------- weighted
def test_weighted_sequence():
    obj = box(2.0, 4)
    seq = design.weighted_sequence(obj, 64)
    m = seq.meta
    assert seq.weights is not None and np.all(seq.weights >= 0)
    np.testing.assert_array_equal(seq.points, halton_w(64, 4))
    assert m["d2"] == pytest.approx(obj(seq.points, seq.weights), rel=1e-12)
    assert m["d2"] == pytest.approx(ref_D2(seq.points, 2.0, seq.weights), rel=1e-9)
    assert m["d2"] < m["uniform_d2"] == pytest.approx(m["halton_d2"], rel=1e-12)
    assert m["kkt_residual"] < 1e-8
    assert m["method"] == "weighted" and m["solver"] == "nnls"
    # k(0) = 1 is kept: the weights sum to 1 (the default), and the map built from them
    # does not warn
    assert abs(np.sum(seq.weights) - 1.0) <= 1e-12 and m["sum_to_one"] is True
    assert m["weights_sum"] == pytest.approx(1.0, abs=1e-12)


def test_weighted_sequence_unconstrained_is_explicit_and_warns():
    obj = box(2.0, 16)
    with pytest.warns(UserWarning, match="unconstrained optimal weights sum to"):
        free = design.weighted_sequence(obj, 64, sum_to_one=False)
    assert free.meta["sum_to_one"] is False and np.sum(free.weights) < 0.95
    from qmc_orff import make_frequencies
    with pytest.warns(UserWarning, match=r"weights of 'sequence' sum to [-+.e\d]+, not 1"):
        make_frequencies("gaussian", None, 16, sequence=free)
    cvx = design.weighted_sequence(obj, 64, solver="cvxpy")
    nn = design.weighted_sequence(obj, 64)
    assert abs(np.sum(cvx.weights) - 1.0) <= 1e-12
    assert nn.meta["normalized_d2"] == pytest.approx(cvx.meta["normalized_d2"], rel=1e-8)


# --------------------------------------------------------------------------- lattice
def test_lattice_cbc_is_componentwise_optimal():
    s, d, b = 16, 3, 2.0
    obj = box(b, d)
    seq = design.lattice_sequence(obj, s)
    z = seq.meta["generating_vector"]
    assert z[0] == 1 and all(math.gcd(zj, s) == 1 for zj in z)
    shift = np.full(d, 0.5 / s)

    def lat_D2(zz):
        k = len(zz)
        t = (np.arange(s)[:, None] * np.array(zz)[None, :] % s) / s + shift[:k]
        return ref_D2(norm.ppf(t), b)

    # each component minimises D^2 of the projection given the previous ones
    for j in range(1, d):
        best = min(lat_D2(z[:j] + [c]) for c in range(1, s // 2 + 1) if math.gcd(c, s) == 1)
        assert lat_D2(z[:j + 1]) == pytest.approx(best, rel=1e-10)
        assert seq.meta["history"][j] == pytest.approx(best, rel=1e-10)
    assert seq.meta["d2"] == pytest.approx(lat_D2(z), rel=1e-10)
    assert np.all(np.isfinite(seq.points))


def test_lattice_export_and_options(tmp_path):
    obj = box(1.0, 2)
    seq = design.lattice_sequence(obj, 13, candidates=3)
    assert seq.meta["n_candidates"] == 3
    seq.write_lattice(tmp_path / "l.txt")
    from qmc_orff.sequence import read_lattice
    n, z = read_lattice(tmp_path / "l.txt")
    assert n == 13 and z.tolist() == seq.meta["generating_vector"]
    with pytest.raises(ValueError, match="puts a lattice point at 0"):
        design.lattice_sequence(obj, 8, shift=[0.0, 0.5])
    with pytest.raises(ValueError, match=r"'shift' must be a finite array of shape \(2,\)"):
        design.lattice_sequence(obj, 8, shift=[0.1])
    with pytest.raises(ValueError, match="'s' must be >= 2"):
        design.lattice_sequence(obj, 1)


def test_public_names():
    for name in ("global_sequence", "greedy_sequence", "weighted_sequence", "lattice_sequence"):
        assert getattr(qmc_orff, name) is getattr(design, name)
    assert isinstance(design.weighted_sequence(box(1.0, 1), 4), Sequence)


# --------------------------------------------------------------------------- high dimension
# sigma = 0.05 with b / sigma = 0.5 or 2 at d = 250: prod(b / pi) = (0.025/pi)^250 or
# (0.1/pi)^250, both below the smallest float64 (the MNIST PCA-250 situation: data in
# small units); the designs work in normalised units (pi^d / prod(b) D^2) throughout.
HD, HS, HSIG = 250, 16, 0.05


def hd_box(r, d=HD, sigma=HSIG):
    return BoxDiscrepancy(np.full(d, r * sigma), sigma=np.full(d, sigma))


def check_hd_meta(obj, seq, sigma=HSIG):
    """Figures in meta against full normalised recomputes; raw values consistent."""
    m = seq.meta
    s, d = seq.points.shape
    W = seq.points / sigma
    assert np.all(np.isfinite(seq.points))
    assert m["normalized_d2"] == pytest.approx(obj(W, seq.weights, normalize=True), rel=1e-10)
    nh = obj(halton_w(s, d) / sigma, normalize=True)
    assert m["normalized_halton_d2"] == pytest.approx(nh, rel=1e-12)
    assert m["normalized_expected_mc"] == pytest.approx(obj.expected_mc(s, normalize=True),
                                                        rel=1e-14)
    assert math.isfinite(m["ratio_to_halton"])
    assert m["ratio_to_halton"] == pytest.approx(m["normalized_d2"] / nh, rel=1e-10)
    # raw values: prod(b / pi) times the normalised ones, 0.0 where that underflows
    log_scale = float(np.sum(np.log(obj.box_and_sigma(d)[0] / np.pi)))
    for key in ("d2", "halton_d2", "expected_mc"):
        log_raw = math.log(m["normalized_" + key]) + log_scale
        if log_raw < -746.0:  # below the smallest subnormal
            assert m[key] == 0.0
        else:
            assert m[key] == pytest.approx(math.exp(log_raw), rel=1e-12)


@pytest.mark.parametrize("r, sigma", [(0.5, HSIG), (2.0, HSIG), (2.0, 1.0)])
def test_high_dimension_global(r, sigma):
    # sigma = 1, b = 2: prod(b / pi) = (2/pi)^250 ~ 1e-49, raw values representable
    obj = hd_box(r, sigma=sigma)
    seq = design.global_sequence(obj, HS, maxiter=3)
    m = seq.meta
    check_hd_meta(obj, seq, sigma=sigma)
    n0 = obj(halton_w(HS, HD) / sigma, normalize=True)
    assert m["normalized_initial_d2"] == pytest.approx(n0, rel=1e-12)
    assert m["normalized_d2"] <= m["normalized_initial_d2"]
    assert m["normalized_d2"] <= min(m["normalized_history"]) * (1 + 1e-12)
    if sigma == HSIG:
        assert m["d2"] == 0.0  # prod(b / pi) underflows: documented
    else:
        assert m["d2"] == pytest.approx(obj(seq.points / sigma), rel=1e-10)


@pytest.mark.parametrize("r", [0.5, 2.0])
def test_high_dimension_greedy(r):
    obj = hd_box(r)
    seq = design.greedy_sequence(obj, HS, maxiter=3)
    m = seq.meta
    check_hd_meta(obj, seq)
    W, H = seq.points / HSIG, halton_w(HS, HD) / HSIG
    nhist = m["normalized_history"]
    for t in range(HS):
        assert nhist[t] == pytest.approx(obj(W[:t + 1], normalize=True), rel=1e-10)
        # each step is never worse than its init point (the t-th Halton point)
        init_val = obj(np.vstack([W[:t], H[t:t + 1]]), normalize=True)
        assert nhist[t] <= init_val * (1 + 1e-12)


@pytest.mark.parametrize("r", [0.5, 2.0])
def test_high_dimension_weighted_and_lattice(r):
    obj = hd_box(r)
    seq = design.weighted_sequence(obj, HS)
    check_hd_meta(obj, seq)
    m = seq.meta
    assert m["normalized_d2"] <= m["normalized_uniform_d2"]
    assert m["normalized_uniform_d2"] == pytest.approx(m["normalized_halton_d2"], rel=1e-12)
    assert np.all(seq.weights >= 0) and seq.weights.max() > 0
    lat = design.lattice_sequence(obj, HS, candidates=3)
    check_hd_meta(obj, lat)
    assert lat.meta["normalized_history"][-1] == pytest.approx(lat.meta["normalized_d2"],
                                                                rel=1e-10)


def test_high_dimension_greedy_incremental_equals_full_recompute():
    d = HD
    obj = hd_box(0.5)
    state = BoxGreedyState(obj, 12, d)
    rng = np.random.default_rng(11)
    pts = rng.standard_normal((12, d)) / HSIG  # b w ~ 0.5 N(0, 1): pair products ~ 1e-9
    pts[5] = pts[2] + 0.01 / HSIG  # a close pair
    for t in range(12):
        w = np.ascontiguousarray(pts[t])
        cand, grad = state.candidate(w)
        full, g_full = obj.value_and_grad(pts[:t + 1], normalize=True)
        assert cand == pytest.approx(full, rel=1e-11)
        np.testing.assert_allclose(grad, g_full[t], rtol=1e-8, atol=1e-12 * np.abs(g_full).max())
        assert state.add(w) == pytest.approx(full, rel=1e-11)
    assert state.pair > 12  # the diagonal (12 x 1) and the close pair survive: no underflow


@pytest.mark.parametrize("method", ["global", "greedy"])
def test_d512_runs(method):
    # sigma = 1, b = 0.5: prod(b / pi) = (0.5/pi)^512 ~ 1e-409 underflows
    obj = BoxDiscrepancy(np.full(512, 0.5), sigma=np.ones(512))
    f = design.global_sequence if method == "global" else design.greedy_sequence
    seq = f(obj, 8, maxiter=3)
    check_hd_meta(obj, seq, sigma=1.0)
    assert seq.meta["normalized_d2"] <= seq.meta["normalized_halton_d2"]


def test_raw_values_none_where_they_overflow():
    # b / sigma = 100 with sigma = 1 at d = 250: prod(b / pi) = (100/pi)^250 overflows
    obj = BoxDiscrepancy(np.full(250, 100.0), sigma=np.ones(250))
    seq = design.global_sequence(obj, 4, maxiter=1)
    m = seq.meta
    assert m["d2"] is None and m["halton_d2"] is None and m["expected_mc"] is None
    assert m["normalized_d2"] == pytest.approx(obj(seq.points, normalize=True), rel=1e-12)
    assert math.isfinite(m["ratio_to_halton"])
    # prod(sigma) = 100^250 overflows too: sigma_product is None, the design unchanged
    big = BoxDiscrepancy(np.full(250, 1e4), sigma=np.full(250, 100.0))
    seq2 = design.global_sequence(big, 4, maxiter=1)
    assert seq2.meta["sigma_product"] is None and seq.meta["sigma_product"] == 1.0
    np.testing.assert_allclose(seq2.points, seq.points, rtol=1e-12)


def test_cg_fallback_line_search_silences_only_scipys_line_search_warning():
    # issue 29, item 8: no private SciPy import; SciPy's LineSearchWarning is recognised by
    # name (a failed search is the caller's business), any other warning is passed on
    import warnings

    from qmc_orff.designs._cg import _wolfe2

    def fg(x):  # an ascent direction: the search fails and SciPy warns
        return float(x @ x), 2.0 * x

    x0 = np.array([1.0, -2.0])
    last = [None, None, None]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ret = _wolfe2(fg, last, x0, 2.0 * x0, 2.0 * x0, 5.0, None, 1e-4, 0.4, None)
    assert ret[0] is None and caught == []

    def noisy(x):
        warnings.warn("from the objective", RuntimeWarning)
        return fg(x)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _wolfe2(noisy, last, x0, -2.0 * x0, 2.0 * x0, 5.0, None, 1e-4, 0.4, None)
    assert [str(w.message) for w in caught][:1] == ["from the objective"]


# --------------------------------------------------------------------------- global: checkpoints, resume
def test_global_checkpoints_and_resume_describe_the_whole_run():
    obj = box(2.0, 3)
    common = dict(method="l-bfgs-b", tol=1e-14)
    ckpts = []
    full = design.global_sequence(obj, 32, maxiter=6, checkpoint=ckpts.append,
                                  checkpoint_every=2, **common)
    assert full.meta["iterations"] == 6 and full.meta["stop_reason"] == "maxiter (6) reached"
    assert [c.meta["iterations"] for c in ckpts] == [2, 4, 6]
    first = ckpts[0]
    assert first.meta["checkpoint"] is True and first.meta["stop_reason"] == "checkpoint"
    assert first.meta["history"] == full.meta["history"][:3]
    assert first.meta["normalized_d2"] == first.meta["normalized_history"][-1]
    # resumed from iteration 2 with the cap of the whole run: 4 more iterations, the
    # history continues the checkpoint's, and the stop names the whole run's cap (not 4)
    resumed = design.global_sequence(obj, 32, maxiter=6, resume=first, **common)
    m = resumed.meta
    assert m["iterations"] == 6 and m["resumed_iterations"] == 2
    assert m["stop_reason"] == "maxiter (6) reached"
    assert m["history"][:3] == first.meta["history"] and len(m["history"]) == 7
    assert m["initial_d2"] == full.meta["initial_d2"]
    np.testing.assert_array_equal(  # the same as starting from its points with 4 iterations
        resumed.points, design.global_sequence(obj, 32, maxiter=4, init=first, **common).points)
    # resuming a complete file: nothing left to do, and the stop still says why
    again = design.global_sequence(obj, 32, maxiter=6, resume=full, **common)
    assert again.meta["stop_reason"] == "maxiter (6) reached" and again.meta["iterations"] == 6
    np.testing.assert_array_equal(again.points, full.points)
    assert design.global_sequence(obj, 32, maxiter=0).meta["stop_reason"] == "maxiter = 0"


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"resume": "g.npz"}, TypeError, "'resume' must be a Sequence"),
    ({"resume": Sequence(np.ones((8, 3)), meta={"method": "greedy"})}, ValueError,
     "'resume' must hold a 'global' design; got 'greedy'"),
    ({"resume": Sequence(np.ones((4, 3)), meta={"method": "global"})}, ValueError,
     r"'resume' has shape \(4, 3\); expected \(8, 3\)"),
    ({"resume": Sequence(np.ones((8, 3)), meta={"method": "global", "iterations": -1})},
     ValueError, "'resume' has a malformed 'iterations' entry"),
    ({"checkpoint": 3}, TypeError, "'checkpoint' must be callable or None"),
    ({"checkpoint": print, "checkpoint_every": 0}, ValueError, "'checkpoint_every'"),
])
def test_global_resume_and_checkpoint_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        design.global_sequence(box(2.0, 3), 8, maxiter=2, **kwargs)
