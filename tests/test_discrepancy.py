"""Tests for qmc_orff.objectives.box and its numba kernels.

The plain numpy references below are written here (never imported by the
package): a direct (s, s, d) evaluation of the formulas of Avron et al. (2016),
and the mean squared integration error of Theorem 12 by tensor Gauss-Legendre
quadrature over the box.
"""
import math
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from qmc_orff.objectives import _box_kernels as kernels
from qmc_orff.densities import CauchyDensity, CharacteristicDensity, GaussianDensity
from qmc_orff.objectives.box import BoxDiscrepancy, box_from_data

sys.path.insert(0, str(Path(__file__).parent))

PHI = {
    "gaussian": lambda t: np.exp(-0.5 * t * t),
    "laplacian": lambda t: np.exp(-np.abs(t)),
}


# --------------------------------------------------------------------------- references
def _ref_sinc_factors(X, b):
    """sin(b x)/x and its x-derivative, elementwise, accurate near x = 0."""
    z = b * X
    small = np.abs(z) < 0.1  # series to 1e-17 below 0.1; the direct forms lose < 1e-13 above
    zs = np.where(small, 1.0, z)
    z2 = z * z
    f_series = 1 - z2 / 6 + z2 ** 2 / 120 - z2 ** 3 / 5040 + z2 ** 4 / 362880
    df_series = z * (-1 / 3 + z2 / 30 - z2 ** 2 / 840 + z2 ** 3 / 45360 - z2 ** 4 * 10 / 39916800)
    f = np.where(small, b * f_series, b * np.sin(zs) / zs)
    df = np.where(small, b * b * df_series, b * b * (zs * np.cos(zs) - np.sin(zs)) / (zs * zs))
    return f, df


def ref_terms(W, b, sigma, density, xi):
    """Direct numpy D^2, dD^2/dW, dD^2/dxi, H, v, const (unnormalised)."""
    s, d = W.shape
    X = W[:, None, :] - W[None, :, :]
    f, df = _ref_sinc_factors(X, b)
    H = np.prod(f, axis=2) / math.pi ** d
    a = b / sigma
    g1, dg1 = density.g_and_derivative(sigma * W, a)
    g = sigma * g1
    dg = sigma * sigma * dg1
    v = np.prod(g, axis=1)
    const = np.prod(sigma * density.C(a))
    D2 = xi @ H @ xi - 2 * xi @ v + const
    grad = np.zeros((s, d))
    for j in range(d):
        others = np.prod(np.delete(f, j, axis=2), axis=2) / math.pi ** d
        T = df[:, :, j] * others
        np.fill_diagonal(T, 0.0)
        grad[:, j] = 2 * xi * (T @ xi) - 2 * xi * dg[:, j] * np.prod(np.delete(g, j, axis=1), axis=1)
    gxi = 2 * H @ xi - 2 * v
    return D2, grad, gxi, H, v, const


def gauss_legendre(lo, hi, n):
    x, w = np.polynomial.legendre.leggauss(n)
    return 0.5 * (hi - lo) * x + 0.5 * (hi + lo), 0.5 * (hi - lo) * w


def mse_over_box(W, xi, b, sigma, phi, *, n, split):
    """Theorem 12, left side: E_{u ~ U[-b, b]} |prod_j phi(u_j / sigma_j) - sum_l xi_l e^{-i u.w_l}|^2."""
    d = W.shape[1]
    nodes, weights = [], []
    for j in range(d):
        if split:  # the Laplacian's phi has a kink at 0: integrate each smooth half
            x1, w1 = gauss_legendre(-b[j], 0.0, n)
            x2, w2 = gauss_legendre(0.0, b[j], n)
            x, w = np.concatenate([x1, x2]), np.concatenate([w1, w2])
        else:
            x, w = gauss_legendre(-b[j], b[j], 2 * n)
        nodes.append(x)
        weights.append(w)
    U = np.stack(np.meshgrid(*nodes, indexing="ij"), axis=-1).reshape(-1, d)
    Wt = np.prod(np.stack(np.meshgrid(*weights, indexing="ij"), axis=-1).reshape(-1, d), axis=1)
    F = np.prod(phi(U / sigma), axis=1)
    Q = np.exp(-1j * (U @ W.T)) @ xi
    return float(np.sum(Wt * np.abs(F - Q) ** 2) / np.prod(2 * b))


def _points(rng, s, d, kernel, sigma):
    if kernel == "gaussian":
        return rng.standard_normal((s, d)) / sigma
    return rng.standard_cauchy((s, d)) / sigma


# --------------------------------------------------------------------------- Theorem 12
@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_theorem12_mean_squared_error_over_box(kernel, d, weighted):
    rng = np.random.default_rng(1200 + 10 * d + weighted)
    s = 7
    b = rng.uniform(0.8, 2.5, d)
    sigma = rng.uniform(0.7, 1.5, d)
    W = rng.standard_normal((s, d)) / sigma
    xi = rng.uniform(0.02, 0.3, s) if weighted else np.full(s, 1.0 / s)
    obj = BoxDiscrepancy(b, kernel=kernel, sigma=sigma)
    value = obj(W, xi if weighted else None)
    ref = mse_over_box(W, xi, b, sigma, PHI[kernel], n={1: 60, 2: 40, 3: 30}[d],
                       split=kernel == "laplacian")
    assert obj.normalized(value) == pytest.approx(ref, rel=1e-8)


# --------------------------------------------------------------------------- Corollary 15
@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_corollary15_expected_discrepancy_of_iid_points(kernel):
    rng = np.random.default_rng(15)
    d, s, reps = 2, 8, 3000
    b = np.array([1.5, 3.0])
    sigma = np.array([1.0, 0.5])
    obj = BoxDiscrepancy(b, kernel=kernel, sigma=sigma)
    vals = np.array([obj(_points(rng, s, d, kernel, sigma)) for _ in range(reps)])
    se = vals.std(ddof=1) / math.sqrt(reps)
    expected = obj.expected_mc(s)
    assert abs(vals.mean() - expected) <= 4 * se
    # the standard error is small enough for the check to mean something
    assert se < 0.05 * expected
    # formula: (pi^-d prod b - prod C) / s
    C = sigma * obj.density.C(b / sigma)
    assert expected == pytest.approx((np.prod(b) / math.pi ** d - np.prod(C)) / s, rel=1e-14)


# --------------------------------------------------------------------------- numba vs numpy
@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
@pytest.mark.parametrize("s, d", [(1, 1), (2, 3), (37, 4), (90, 7)])
def test_kernels_match_numpy_reference(kernel, s, d):
    rng = np.random.default_rng(100 * s + d)
    b = rng.uniform(0.5, 3.0, d)
    sigma = rng.uniform(0.5, 2.0, d)
    W = _points(rng, s, d, "gaussian", sigma) * 1.5
    xi = rng.uniform(0.0, 1.0, s) / s
    obj = BoxDiscrepancy(b, kernel=kernel, sigma=sigma)
    D2, gW, gxi = obj.value_and_grad(W, xi)
    rD2, rgW, rgxi, rH, rv, rc = ref_terms(W, b, sigma, obj.density, xi)
    assert D2 == pytest.approx(rD2, rel=1e-12)
    assert obj(W, xi) == D2
    np.testing.assert_allclose(gW, rgW, rtol=1e-12, atol=1e-12 * np.max(np.abs(rgW)))
    np.testing.assert_allclose(gxi, rgxi, rtol=1e-12, atol=1e-12 * np.max(np.abs(rgxi)))
    np.testing.assert_allclose(obj.pair_matrix(W), rH, rtol=1e-12, atol=1e-15 * rH[0, 0])
    np.testing.assert_allclose(obj.linear_term(W), rv, rtol=1e-12)
    assert obj.constant() == pytest.approx(rc, rel=1e-14)
    # uniform weights: None and 1/s agree exactly
    D2u, gWu = obj.value_and_grad(W)
    D2u2, gWu2, _ = obj.value_and_grad(W, np.full(s, 1.0 / s))
    assert D2u == D2u2 and obj(W) == D2u
    np.testing.assert_array_equal(gWu, gWu2)


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_near_coincident_coordinates_match_reference(kernel):
    # |w_lj - w_mj| = 0, 1e-9, 1e-5, 1e-3 and around the Taylor switch |z| = TAU, also far out
    rng = np.random.default_rng(22)
    b = np.array([1.3, 0.4, 2.5])
    sigma = np.array([1.0, 0.5, 2.0])
    base = rng.standard_normal((4, 3)) / sigma
    base[3] = [700.0, -1500.0, 400.0]
    offsets = [0.0, 1e-9, 1e-5, 1e-3, 0.99 * kernels.TAU, 1.01 * kernels.TAU]
    W = np.concatenate([base] + [base + np.array(o) / b * rng.choice([-1, 1], 3) for o in offsets])
    xi = rng.uniform(0.1, 1.0, W.shape[0]) / W.shape[0]
    obj = BoxDiscrepancy(b, kernel=kernel, sigma=sigma)
    D2, gW, gxi = obj.value_and_grad(W, xi)
    rD2, rgW, rgxi, rH, *_ = ref_terms(W, b, sigma, obj.density, xi)
    assert D2 == pytest.approx(rD2, rel=1e-12)
    np.testing.assert_allclose(obj.pair_matrix(W), rH, rtol=1e-12, atol=1e-15 * rH[0, 0])
    np.testing.assert_allclose(gW, rgW, rtol=1e-12, atol=1e-12 * np.max(np.abs(rgW)))
    np.testing.assert_allclose(gxi, rgxi, rtol=1e-12, atol=1e-14 * np.max(np.abs(rgxi)))


def test_taylor_branch_matches_direct_form():
    # sinc(z), sinc'(z) by the kernel's polynomials vs the closed forms (|z| >= 0.2, where the
    # cancellation in z cos z - sin z costs < 1e-14) and vs math.fsum of 12 series terms
    for z in np.linspace(-kernels.TAU, kernels.TAU, 41):
        f, df = kernels.sinc_taylor(z)
        rf = math.fsum((-1) ** k * z ** (2 * k) / math.factorial(2 * k + 1) for k in range(12))
        rdf = math.fsum((-1) ** k * 2 * k * z ** (2 * k - 1) / math.factorial(2 * k + 1)
                        for k in range(1, 13))
        assert f == pytest.approx(rf, rel=2e-16)
        assert df == pytest.approx(rdf, rel=4e-16, abs=1e-300)
        if abs(z) >= 0.2:
            assert f == pytest.approx(math.sin(z) / z, rel=1e-15)
            assert df == pytest.approx((z * math.cos(z) - math.sin(z)) / (z * z), rel=1e-14)
    assert kernels.sinc_taylor(0.0) == (1.0, 0.0)


def test_schedule_visits_every_pair_once():
    for s, d in ((1, 1), (15, 3), (16, 1), (33, 2), (100, 1000), (1100, 4), (2000, 119),
                 (20000, 8), (200_000, 100)):
        block, pairs, offsets = kernels.schedule(s, d)
        nb = -(-s // block)
        assert block >= min(s, kernels.MIN_BLOCK_ROWS) and nb <= kernels.MAX_BLOCKS
        assert len({tuple(p) for p in pairs.tolist()}) == len(pairs) == nb * (nb + 1) // 2
        assert np.all(pairs[:, 0] <= pairs[:, 1])
        # groups: contiguous, non-empty, covering the list; one below SERIAL_WORK
        groups = len(offsets) - 1
        assert offsets[0] == 0 and offsets[-1] == len(pairs) and np.all(np.diff(offsets) >= 1)
        work = s * (s - 1) // 2 * d
        if work < kernels.SERIAL_WORK:
            assert groups == 1
        else:
            assert 2 <= groups <= kernels.MAX_GROUPS
            assert (groups - 1) * 8 * s * (d + 1) <= max(kernels.PARTIALS_BYTES, 8 * s * (d + 1))
            # about equal work: no group above the mean by more than the largest task
            size = np.minimum(block, s - block * np.arange(nb))
            I, J = pairs[:, 0], pairs[:, 1]
            cost = np.where(I == J, size[I] * (size[I] - 1) // 2, size[I] * size[J])
            per_group = np.add.reduceat(cost, offsets[:-1])
            assert per_group.max() <= cost.sum() / groups + cost.max()
        # a function of (s, d) alone
        again = kernels.schedule(s, d)
        assert again[0] == block
        np.testing.assert_array_equal(again[1], pairs)
        np.testing.assert_array_equal(again[2], offsets)
    assert len(kernels.schedule(2000, 119)[2]) - 1 == kernels.MAX_GROUPS
    assert len(kernels.schedule(200_000, 100)[2]) - 1 == 2  # the memory cap


def test_parallel_equals_serial_bitwise():
    # public path: large enough for the parallel kernels (>= SERIAL_WORK pair-dimensions)
    rng = np.random.default_rng(3)
    s, d = 1100, 4
    assert s * (s - 1) // 2 * d >= kernels.SERIAL_WORK
    W = rng.standard_normal((s, d))
    xi = rng.uniform(0, 1, s) / s
    obj = BoxDiscrepancy(np.full(d, 1.7), sigma=0.8)
    old = numba.get_num_threads()
    results = []
    try:
        for nt in (1, min(2, numba.config.NUMBA_NUM_THREADS), 1):
            numba.set_num_threads(nt)
            results.append((obj.value_and_grad(W, xi), obj.pair_matrix(W)))
    finally:
        numba.set_num_threads(old)
    (v0, g0, x0), H0 = results[0]
    for (v, g, x), H in results[1:]:
        assert v == v0
        np.testing.assert_array_equal(g, g0)
        np.testing.assert_array_equal(x, x0)
        np.testing.assert_array_equal(H, H0)


def test_parallel_schedule_kernel_equals_serial_bitwise():
    # the parallel kernel itself on the most groups (16 blocks, MAX_GROUPS groups) vs the
    # serial one, on one and two threads
    rng = np.random.default_rng(4)
    s, d = 256, 3
    W = rng.standard_normal((s, d))
    b = np.full(d, 1.3)
    S, Co = np.sin(b * W), np.cos(b * W)
    xi = rng.uniform(0, 1, s) / s
    block, pairs, offsets = kernels.schedule(s, 1000)
    assert len(offsets) - 1 == kernels.MAX_GROUPS and block == 16
    old = numba.get_num_threads()
    try:
        for nt in (min(2, numba.config.NUMBA_NUM_THREADS), 1):
            numba.set_num_threads(nt)
            for with_grad in (True, False):
                r1, g1 = kernels._run_schedule(W, b, S, Co, xi, block, pairs, offsets, with_grad)
                r2, g2 = kernels._run_schedule_serial(W, b, S, Co, xi, block, pairs, offsets,
                                                      with_grad)
                np.testing.assert_array_equal(r1, r2)
                np.testing.assert_array_equal(g1, g2)
        H1 = kernels._pair_matrix_parallel(W, b, S, Co)
        np.testing.assert_array_equal(H1, kernels._pair_matrix_serial(W, b, S, Co))
    finally:
        numba.set_num_threads(old)


_THREADS_SCRIPT = """
import hashlib, sys
import numba, numpy as np
from qmc_orff.objectives import _box_kernels as K
rng = np.random.default_rng(7)
out = []
for s, d in ((203, 5), (150, 40)):
    W = rng.standard_normal((s, d)) * 0.3
    b = np.linspace(0.4, 1.6, d)
    S, Co = np.sin(b * W), np.cos(b * W)
    xi = rng.uniform(0.5, 1.5, s) / s
    sched = K.schedule(s, 1000)
    for nt in (1, 2, 3, 4):
        numba.set_num_threads(nt)
        h = hashlib.sha256()
        for with_grad in (True, False):
            r, g = K._run_schedule(W, b, S, Co, xi, *sched, with_grad)
            h.update(r.tobytes() + g.tobytes())
            r, g = K._run_schedule_serial(W, b, S, Co, xi, *sched, with_grad)
            h.update(r.tobytes() + g.tobytes())
        out.append(h.hexdigest())
print(" ".join(out))
"""


def test_pair_sums_bit_identical_for_1_to_4_threads():
    # a fresh process with a pool of 4 threads (more than the cores of a small machine:
    # preempted workers, groups claimed in varying order), 1, 2, 3 and 4 of them in use
    import os
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_NUM_THREADS="4")
    proc = subprocess.run([sys.executable, "-c", _THREADS_SCRIPT], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    digests = proc.stdout.split()
    assert len(digests) == 8
    assert len(set(digests[:4])) == 1 and len(set(digests[4:])) == 1, digests


@pytest.mark.parametrize("s, d", [(5, 3), (203, 1), (203, 7), (150, 31), (150, 32), (97, 45),
                                  (2001, 1)])
def test_grouped_sums_match_round_robin_schedule(s, d):
    # the task groups only regroup the sums of the former round-robin schedule
    # (tests/_roundrobin_reference.py): equal to rounding; s < MIN_BLOCK_ROWS, s not a
    # multiple of the block size, d = 1, odd d, d on both sides of 32 (the former switch
    # of loop order), and a public call above SERIAL_WORK
    import _roundrobin_reference as RR

    rng = np.random.default_rng(s + 1000 * d)
    W = rng.standard_normal((s, d)) * (2.0 / np.sqrt(d))  # products far from 0
    W[1] = W[0]
    b = rng.uniform(0.5, 2.0, d)
    S, Co = np.sin(b * W), np.cos(b * W)
    xi = rng.uniform(0.5, 1.5, s) / s
    r0, g0 = RR.pair_value_grad_rounds(W, b, S, Co, xi)
    if s * (s - 1) // 2 * d >= kernels.SERIAL_WORK:
        block, pairs, offsets = kernels.schedule(s, d)
        r, g = kernels.pair_value_grad(W, b, S, Co, xi)
        np.testing.assert_array_equal(kernels.pair_values(W, b, S, Co, xi), r)
    else:
        block, pairs, offsets = kernels.schedule(s, 1000)  # more groups than the public call
        r, g = kernels._run_schedule(W, b, S, Co, xi, block, pairs, offsets, True)
        rv, _ = kernels._run_schedule(W, b, S, Co, xi, block, pairs, offsets, False)
        np.testing.assert_array_equal(rv, r)
    assert (len(offsets) - 1 > 1) == (s >= 2 * kernels.MIN_BLOCK_ROWS)
    np.testing.assert_allclose(r, r0, rtol=1e-13, atol=1e-13 * np.max(np.abs(r0)))
    np.testing.assert_allclose(g, g0, rtol=1e-13, atol=1e-13 * np.max(np.abs(g0)))
    # and the plain numpy reference (pair term only, normalised units), value and gradient
    if s * s * d <= 5_000_000:
        f, df = _ref_sinc_factors(W[:, None, :] - W[None, :, :], b)
        f, df = f / b, df / b  # sinc(b x) and its x-derivative
        np.testing.assert_allclose(r, np.prod(f, axis=2) @ xi, rtol=1e-12, atol=1e-15)
        g_ref = np.empty((s, d))
        for j in range(d):
            T = df[:, :, j] * np.prod(np.delete(f, j, axis=2), axis=2)
            np.fill_diagonal(T, 0.0)
            g_ref[:, j] = 2 * xi * (T @ xi)
        np.testing.assert_allclose(g, g_ref, rtol=1e-12, atol=1e-12 * np.max(np.abs(g_ref)))


def test_small_problems_keep_the_round_robin_bits():
    # below SERIAL_WORK there is one group, listed row by row: every accumulator receives
    # its terms in the order of the former single-block schedule, hence the same bits
    import _roundrobin_reference as RR

    rng = np.random.default_rng(12)
    for s, d in ((60, 3), (300, 20), (150, 40)):
        assert s * (s - 1) // 2 * d < kernels.SERIAL_WORK
        W = rng.standard_normal((s, d)) * 0.5
        b = rng.uniform(0.5, 2.0, d)
        S, Co = np.sin(b * W), np.cos(b * W)
        xi = rng.uniform(0.5, 1.5, s) / s
        r0, g0 = RR.pair_value_grad_rounds(W, b, S, Co, xi)
        r, g = kernels.pair_value_grad(W, b, S, Co, xi)
        np.testing.assert_array_equal(r, r0)
        np.testing.assert_array_equal(g, g0)


def _grouped_reference(W, b, S, Co, xi, block, pairs, offsets, with_grad):
    """The task groups of ``offsets`` by the pair-by-pair task kernel: group 0 into
    ``xi.copy()``, the others into zeros, then added one at a time in the order v = 1, 2, ...
    (numpy's elementwise sums round as the kernels' do)."""
    import _pair_reference as ref

    s, d = W.shape
    r = xi.copy()
    grad = np.zeros((s, d)) if with_grad else np.zeros((0, d))
    parts = []
    for v in range(len(offsets) - 1):
        rv, gv = (r, grad) if v == 0 else (np.zeros(s), np.zeros_like(grad))
        for t in range(offsets[v], offsets[v + 1]):
            ref._task(W, b, S, Co, xi, gv, rv, pairs[t, 0], pairs[t, 1], block, with_grad)
        if v:
            parts.append((rv, gv))
    for rv, gv in parts:
        r = r + rv
        grad = grad + gv
    return r, grad


@pytest.mark.parametrize("s, d", [(2, 1), (70, 2), (150, 5), (97, 31), (40, 32), (75, 33),
                                  (130, 119)])
def test_pair_kernel_bit_identical_to_the_pair_by_pair_loops(s, d):
    # the library's loops (a row l against a tile of rows m, vectorised over m) perform the
    # operations of the former pair-by-pair loops (tests/_pair_reference.py) per pair and
    # accumulate in the same order: the same bits, task by task and for whole schedules
    import _pair_reference as ref

    rng = np.random.default_rng(s + 1000 * d)
    W = rng.standard_normal((s, d))
    W[1] = W[0]  # coincident points, coordinates in the Taylor branch, zero weights
    W[-1, : d // 2 + 1] = W[-2, : d // 2 + 1] + 1e-3
    b = rng.uniform(0.5, 2.5, d)
    S, Co = np.sin(b * W), np.cos(b * W)
    xi = rng.uniform(0.5, 1.5, s) / s
    xi[s // 2] = 0.0
    WT, ST, CT = (np.ascontiguousarray(A.T) for A in (W, S, Co))
    block = max(1, s // 3)
    for I, J in ((0, 0), (0, 1), (1, 2), (2, 2)):
        if J * block >= s:
            continue
        for with_grad in (True, False):
            r1, g1 = xi.copy(), np.zeros((d, s))
            if with_grad:
                kernels._task_grad(W, b, S, Co, xi, g1, r1, I, J, block, WT, ST, CT)
            else:
                kernels._task_values(W, b, S, Co, xi, g1, r1, I, J, block, WT, ST, CT)
            r2, g2 = xi.copy(), np.zeros((s, d))
            ref._task(W, b, S, Co, xi, g2, r2, I, J, block, with_grad)
            np.testing.assert_array_equal(r1, r2)
            np.testing.assert_array_equal(g1.T, g2)
    for block, pairs, offsets in (kernels.schedule(s, d), kernels.schedule(s, 1000)):
        for with_grad in (True, False):
            r1, g1 = kernels._run_schedule_serial(W, b, S, Co, xi, block, pairs, offsets,
                                                  with_grad)
            r2, g2 = _grouped_reference(W, b, S, Co, xi, block, pairs, offsets, with_grad)
            np.testing.assert_array_equal(r1, r2)
            np.testing.assert_array_equal(g1, g2)
    np.testing.assert_array_equal(kernels.pair_matrix(W, b, S, Co), ref.pair_matrix(W, b, S, Co))
    np.testing.assert_array_equal(kernels._pair_matrix_parallel(W, b, S, Co),
                                  ref.pair_matrix(W, b, S, Co))
    # and against the plain reference (pair term only, normalised units)
    Z = b * (W[:, None, :] - W[None, :, :])
    with np.errstate(invalid="ignore", divide="ignore"):
        F = np.where(Z == 0, 1.0, np.sin(Z) / Z)
    r_ref = np.prod(F, axis=2) @ xi
    np.testing.assert_allclose(r1, r_ref, rtol=1e-12, atol=1e-15)


# --------------------------------------------------------------------------- gradients
def _fd(f, x, h):
    # fourth-order central difference
    return (-f(x + 2 * h) + 8 * f(x + h) - 8 * f(x - h) + f(x - 2 * h)) / (12 * h)


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_gradients_match_finite_differences(kernel):
    rng = np.random.default_rng(16)
    s, d = 6, 3
    b = np.array([1.2, 2.0, 0.7])
    sigma = np.array([1.0, 0.6, 1.3])
    W = rng.standard_normal((s, d)) / sigma
    W[1, 0] = W[0, 0]                  # coincident coordinate
    W[2, 1] = W[0, 1] + 1e-9           # nearly coincident
    W[3, 2] = W[1, 2] + 1e-5
    W[4] = np.array([1e3, -8e2, 1.1e3]) / sigma   # far frequencies, |w sigma| ~ 1e3
    W[5, 0] = W[4, 0] + 1e-7           # near-coincident far coordinates
    xi = rng.uniform(0.05, 0.4, s)
    obj = BoxDiscrepancy(b, kernel=kernel, sigma=sigma)
    D2, gW, gxi = obj.value_and_grad(W, xi)
    fd = np.empty_like(gW)
    for l in range(s):
        for j in range(d):
            def f(t, l=l, j=j):
                V = W.copy()
                V[l, j] = t
                return obj(V, xi)
            fd[l, j] = _fd(f, W[l, j], 1e-3 / b[j])
    np.testing.assert_allclose(gW, fd, rtol=1e-6, atol=1e-9 * np.max(np.abs(gW)))
    fdx = np.empty(s)
    for l in range(s):
        def fx(t, l=l):
            x = xi.copy()
            x[l] = t
            return obj(W, x)
        fdx[l] = _fd(fx, xi[l], 1e-3)
    np.testing.assert_allclose(gxi, fdx, rtol=1e-6)
    # coincident coordinates: the limit sin(b x)/x -> b is used, gradient finite
    assert np.all(np.isfinite(gW))


def test_gradient_at_coincident_points_equals_limit():
    # two identical points: the pair gradient vanishes by symmetry; the value equals
    # the value with the coincident pair computed as a limit
    obj = BoxDiscrepancy([1.0, 2.0], sigma=1.0)
    W = np.array([[0.3, -0.2], [0.3, -0.2], [1.0, 0.5]])
    D2, g = obj.value_and_grad(W)
    np.testing.assert_array_equal(g[0], g[1])  # identical points, identical gradients
    for delta in ([1e-7, 0.0], [0.0, -1e-7], [1e-7, 1e-7]):
        Wn = W.copy()
        Wn[1] += delta
        # first order: D2(W + delta) - D2(W) = g[1] . delta (+ O(delta^2))
        assert obj(Wn) - D2 == pytest.approx(g[1] @ np.array(delta), rel=1e-5)
        np.testing.assert_allclose(obj.value_and_grad(Wn)[1], g, rtol=1e-5, atol=1e-12)


# --------------------------------------------------------------------------- QP form
@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_pair_matrix_and_linear_term_give_the_objective(kernel):
    rng = np.random.default_rng(17)
    s, d = 40, 4
    W = rng.standard_normal((s, d))
    xi = rng.uniform(0, 1, s)
    obj = BoxDiscrepancy(2.0, kernel=kernel, sigma=[1.0, 2.0, 0.5, 1.0])
    H = obj.pair_matrix(W)
    v = obj.linear_term(W)
    c = obj.constant()
    assert H.shape == (s, s) and v.shape == (s,)
    np.testing.assert_array_equal(H, H.T)
    assert np.min(np.linalg.eigvalsh(H)) >= -1e-13 * np.max(np.abs(H))
    assert obj(W, xi) == pytest.approx(c - 2 * v @ xi + xi @ H @ xi, rel=1e-12)
    assert obj(W) == pytest.approx(c - 2 * v.mean() + H.mean(), rel=1e-12)
    # dD^2/dxi = 2 H xi - 2 v
    np.testing.assert_allclose(obj.value_and_grad(W, xi)[2], 2 * H @ xi - 2 * v, rtol=1e-12,
                               atol=1e-14 * np.max(np.abs(v)))


# --------------------------------------------------------------------------- extremes
@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
@pytest.mark.parametrize("a", [1e-3, 1.0, 1e2])
def test_finite_and_accurate_at_extremes(kernel, a):
    rng = np.random.default_rng(18)
    s, d = 20, 2
    sigma = np.array([0.5, 2.0])
    b = a * sigma
    W = rng.standard_normal((s, d)) / sigma
    W[:5] *= 1e3 / np.max(np.abs(W[:5] * sigma))  # |w sigma| up to 1e3
    obj = BoxDiscrepancy(b, kernel=kernel, sigma=sigma)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        D2, gW = obj.value_and_grad(W)
    assert np.isfinite(D2) and np.all(np.isfinite(gW))
    rD2, rgW, *_ = ref_terms(W, b, sigma, obj.density, np.full(s, 1.0 / s))
    # D^2 is a difference of O(1) terms: compare at the size of those terms
    scale = obj.normalized(1.0)
    assert abs(D2 - rD2) * scale <= 1e-12 * (1 + a * 1e3)
    assert obj.normalized(D2) >= -1e-12


def test_single_point():
    obj = BoxDiscrepancy([1.0, 2.0], kernel="laplacian", sigma=[1.0, 0.5])
    W = np.array([[0.1, -0.4]])
    D2, g = obj.value_and_grad(W)
    rD2, rg, *_ = ref_terms(W, obj.box_and_sigma()[0], obj.box_and_sigma()[1], obj.density,
                            np.ones(1))
    assert D2 == pytest.approx(rD2, rel=1e-13)
    np.testing.assert_allclose(g, rg, rtol=1e-12)
    assert obj.pair_matrix(W).shape == (1, 1)


def test_high_dimension_normalized_terms_do_not_underflow():
    # factors are kept in [-1, 1] internally: normalized values stay meaningful for d = 512
    # even where prod(b / pi) = (0.5 / pi)^512 ~ 1e-409 underflows
    rng = np.random.default_rng(19)
    s, d = 30, 512
    obj = BoxDiscrepancy(0.5, d=d)
    W = rng.standard_normal((s, d))
    D2, g = obj.value_and_grad(W, normalize=True)
    assert np.isfinite(D2) and np.all(np.isfinite(g)) and D2 > 0
    assert obj(W, normalize=True) == D2
    # with iid points the normalized value is close to its expectation (1 - prod C^) / s
    assert D2 == pytest.approx(obj.expected_mc(s, normalize=True), rel=0.5)
    with pytest.raises(ValueError, match="under- or overflows float64 .* normalize=True"):
        obj(W)
    with pytest.raises(ValueError, match="under- or overflows float64"):
        obj.normalized(1.0)
    # and a box with representable prod(b / pi) in d = 512 works unnormalized
    big = BoxDiscrepancy(4.0, d=d)
    assert big(W) == pytest.approx(big.normalized(big(W)) * np.prod(np.full(d, 4.0 / math.pi)),
                                   rel=1e-13)


def test_normalize_option_is_the_scaled_objective():
    rng = np.random.default_rng(21)
    s, d = 25, 3
    W = rng.standard_normal((s, d))
    xi = rng.uniform(0, 1, s)
    obj = BoxDiscrepancy([0.7, 1.3, 2.2], kernel="laplacian", sigma=[1.0, 0.5, 2.0])
    f = math.pi ** d / np.prod([0.7, 1.3, 2.2])
    D2, gW, gx = obj.value_and_grad(W, xi)
    N2, nW, nx = obj.value_and_grad(W, xi, normalize=True)
    assert N2 == pytest.approx(f * D2, rel=1e-14) and N2 == pytest.approx(obj.normalized(D2), rel=1e-15)
    np.testing.assert_allclose(nW, f * gW, rtol=1e-14)
    np.testing.assert_allclose(nx, f * gx, rtol=1e-14)
    H = obj.pair_matrix(W, normalize=True)
    np.testing.assert_array_equal(np.diag(H), 1.0)
    np.testing.assert_allclose(H, f * obj.pair_matrix(W), rtol=1e-14)
    v = obj.linear_term(W, normalize=True)
    c = obj.constant(normalize=True)
    assert N2 == pytest.approx(c - 2 * v @ xi + xi @ H @ xi, rel=1e-12)
    assert obj.expected_mc(7, normalize=True) == pytest.approx(f * obj.expected_mc(7), rel=1e-14)


def test_generic_density_matches_named_kernel():
    rng = np.random.default_rng(20)
    W = rng.standard_normal((25, 3))
    generic = CharacteristicDensity(lambda t: np.exp(-0.5 * t * t), ppf=GaussianDensity().ppf)
    o1 = BoxDiscrepancy([1.0, 2.0, 3.0], kernel="gaussian", sigma=0.7)
    o2 = BoxDiscrepancy([1.0, 2.0, 3.0], kernel=generic, sigma=0.7)
    v1, g1 = o1.value_and_grad(W)
    v2, g2 = o2.value_and_grad(W)
    assert v2 == pytest.approx(v1, rel=1e-11)
    np.testing.assert_allclose(g2, g1, rtol=1e-9, atol=1e-12 * np.max(np.abs(g1)))
    assert isinstance(BoxDiscrepancy(1.0, kernel="laplacian").density, CauchyDensity)


# --------------------------------------------------------------------------- API
def test_dimension_handling():
    o = BoxDiscrepancy(2.0)
    assert o.d is None and o.b == 2.0 and o.sigma == 1.0
    W3 = np.zeros((4, 3)) + np.arange(3)
    W5 = np.zeros((4, 5)) + np.arange(5)
    assert np.isfinite(o(W3)) and np.isfinite(o(W5))   # scalars broadcast
    b, sigma = o.box_and_sigma(3)
    np.testing.assert_array_equal(b, [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(sigma, [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="'d' must be given"):
        o.box_and_sigma()
    with pytest.raises(ValueError, match="'d' must be given"):
        o.expected_mc(10)
    assert o.expected_mc(10, d=3) == BoxDiscrepancy(2.0, d=3).expected_mc(10)
    o2 = BoxDiscrepancy([1.0, 2.0], sigma=0.5)
    assert o2.d == 2 and isinstance(o2.b, np.ndarray) and o2.sigma == 0.5
    assert BoxDiscrepancy(1.0, sigma=[1.0, 2.0, 3.0]).d == 3
    assert BoxDiscrepancy(1.0, d=4).d == 4
    with pytest.raises(ValueError, match="'d' must equal the discrepancy's dimension 2; got 3"):
        o2.box_and_sigma(3)
    with pytest.raises(ValueError, match="'W' must have 2 columns"):
        o2(W3)
    assert o2.constant() == o2.constant(2)
    assert o2.normalized(o2.constant()) == pytest.approx(
        np.prod(math.pi * o2.density.C(np.array([2.0, 4.0])) / np.array([2.0, 4.0])), rel=1e-14)
    assert "BoxDiscrepancy" in repr(o2)


@pytest.mark.parametrize("args, kwargs, match", [
    ((-1.0,), {}, "'b' must be positive; got -1.0"),
    ((0.0,), {}, "'b' must be positive; got 0.0"),
    (([1.0, np.nan],), {}, "'b' must contain only finite values"),
    ((1.0,), {"sigma": 0.0}, "'sigma' must be positive; got 0.0"),
    ((1.0,), {"sigma": [1.0, -2.0]}, "'sigma' must be positive; got -2.0"),
    (([1.0, 2.0],), {"sigma": [1.0, 2.0, 3.0]}, "'sigma' must have length d=2; got length 3"),
    (([1.0, 2.0],), {"d": 3}, "'b' must have length d=3; got length 2"),
    ((1.0,), {"kernel": "matern"}, "'kernel' must be one of 'gaussian', 'laplacian'"),
    ((1e300,), {"sigma": 1e-300}, "'b' / 'sigma' must be a positive finite float"),
])
def test_bad_constructor_arguments(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        BoxDiscrepancy(*args, **kwargs)


def test_bad_call_arguments():
    obj = BoxDiscrepancy([1.0, 2.0])
    W = np.ones((3, 2))
    with pytest.raises(ValueError, match="'W' must have 2 columns"):
        obj(np.ones((3, 3)))
    with pytest.raises(ValueError, match="'W' must be a 2-D array"):
        obj(np.ones(3))
    with pytest.raises(ValueError, match="'W' must contain only finite values"):
        obj(np.array([[1.0, np.inf]]))
    with pytest.raises(ValueError, match="'W' must contain only finite values"):
        obj.value_and_grad(np.array([[np.nan, 1.0]]))
    with pytest.raises(ValueError, match="'weights' must be nonnegative"):
        obj(W, [0.5, -0.1, 0.6])
    with pytest.raises(ValueError, match="'weights' must have shape \\(3,\\)"):
        obj.value_and_grad(W, [0.5, 0.5])
    with pytest.raises(ValueError, match="'weights' must contain only finite values"):
        obj(W, [0.5, np.nan, 0.5])
    with pytest.raises(ValueError, match="'W' is too large for 'b' and 'sigma'"):
        obj(np.array([[1.0, 1.7e308]]))
    with pytest.raises(ValueError, match="'s' must be >= 1"):
        obj.expected_mc(0)
    with pytest.raises(TypeError, match="'s' must be an integer"):
        obj.expected_mc(2.5)


def test_empty_point_set_is_rejected():
    # s = 0 used to fail with ZeroDivisionError (uniform weights 1/s)
    obj = BoxDiscrepancy(1.0)
    for call in (obj, obj.value_and_grad, obj.pair_matrix, obj.linear_term):
        with pytest.raises(ValueError, match="'W' must contain at least one point; got shape"):
            call(np.ones((0, 2)))


def test_box_from_data():
    X = np.array([[0.0, 1.0, -2.0], [3.0, 1.5, 2.0], [1.0, 1.25, 0.0]])
    np.testing.assert_array_equal(box_from_data(X), [3.0, 0.5, 4.0])
    np.testing.assert_array_equal(box_from_data(X, fraction=0.25), [0.75, 0.125, 1.0])
    with pytest.raises(ValueError, match="column 1 has width 0.0"):
        box_from_data(np.array([[0.0, 1.0], [1.0, 1.0]]))
    with pytest.raises(ValueError, match="'fraction' must be a positive finite number; got -1.0"):
        box_from_data(X, fraction=-1.0)
    with pytest.raises(TypeError, match="'fraction' must be a positive finite number; got 'half'"):
        box_from_data(X, fraction="half")
    with pytest.raises(ValueError, match="'X' must be a 2-D array"):
        box_from_data(np.ones(3))
    with pytest.raises(ValueError, match="'X' must contain only finite values"):
        box_from_data(np.array([[0.0, np.nan], [1.0, 2.0]]))
    with pytest.raises(ValueError, match="'X' must have at least one row"):
        box_from_data(np.ones((0, 3)))


@pytest.mark.slow
def test_large_s():
    # s = 2 * 10^4: memory O(s d), value close to the i.i.d. expectation, finite gradient
    rng = np.random.default_rng(23)
    s, d = 20_000, 2
    obj = BoxDiscrepancy([1.0, 2.0])
    W = rng.standard_normal((s, d))
    D2, g = obj.value_and_grad(W)
    assert np.all(np.isfinite(g)) and D2 == obj(W)
    assert 0.2 * obj.expected_mc(s) < D2 < 5 * obj.expected_mc(s)
