"""Tests of qmc_orff.generators.cbc_lattice (fast CBC, Nuyens & Cools 2006)."""
import math

import numpy as np
import pytest

from qmc_orff.generators import cbc_lattice, worst_case_error
from qmc_orff.generators.cbc import _omega


# --- plain numpy references (never imported by the package) ---------------------

def ref_omega(x, alpha):
    """sum_{h != 0} e^{2 pi i h x} / |h|^alpha in closed form (Bernoulli polynomials)."""
    if alpha == 2:   # B_2(x) = x^2 - x + 1/6
        return 2 * np.pi ** 2 * (x ** 2 - x + 1 / 6)
    if alpha == 4:   # B_4(x) = x^4 - 2x^3 + x^2 - 1/30
        return -(2 * np.pi) ** 4 / 24 * (x ** 4 - 2 * x ** 3 + x ** 2 - 1 / 30)
    raise NotImplementedError


def ref_error(z, n, gamma, alpha=2):
    k = np.arange(n)
    p = np.ones(n)
    for zj, gj in zip(z, gamma):
        p *= 1 + gj * ref_omega((k * zj % n) / n, alpha)
    return p.mean() - 1


def ref_cbc(n, d, gamma, alpha=2):
    """Plain CBC: try every unit z for every coordinate; keep the smallest minimiser."""
    k = np.arange(n)
    units = [u for u in range(1, max(n, 2)) if math.gcd(u, n) == 1]   # n = 1: z = 1
    z = [1]
    p = 1 + gamma[0] * ref_omega(k / n, alpha)
    for s in range(1, d):
        vals = np.array([np.mean(p * (1 + gamma[s] * ref_omega((k * u % n) / n, alpha)))
                         for u in units])
        near = vals <= vals.min() + 1e-12 * np.abs(vals).max()
        best = min(u for u, ok in zip(units, near) if ok)
        z.append(best)
        p = p * (1 + gamma[s] * ref_omega((k * best % n) / n, alpha))
    return np.array(z), p.mean() - 1


# --- against the brute-force search -----------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 31, 101, 127, 251, 509])
def test_prime_equals_brute_force(n):
    d = 6
    gamma = 1.0 / np.arange(1, d + 1) ** 2
    z_ref, e_ref = ref_cbc(n, d, gamma)
    z, e = cbc_lattice(n, d, return_error=True)
    assert z.dtype == np.int64 and z.shape == (d,)
    np.testing.assert_array_equal(z, z_ref)
    np.testing.assert_allclose(e, e_ref, rtol=1e-12)


@pytest.mark.parametrize("n", [4, 8, 16, 32, 64, 128, 256, 512])
def test_power_of_two_equals_brute_force(n):
    d = 6
    gamma = 1.0 / np.arange(1, d + 1) ** 2
    z_ref, e_ref = ref_cbc(n, d, gamma)
    z, e = cbc_lattice(n, d, return_error=True)
    np.testing.assert_array_equal(z, z_ref)
    np.testing.assert_allclose(e, e_ref, rtol=1e-12)


@pytest.mark.parametrize("n, weights, alpha", [
    (127, 0.5, 2), (128, 0.5, 2), (127, [1.0, 0.9, 0.3, 0.2, 0.1], 2),
    (256, [2.0, 1.0, 0.5, 0.25, 0.125], 2), (101, None, 4), (128, None, 4)])
def test_weights_and_alpha_equal_brute_force(n, weights, alpha):
    d = 5
    gamma = (1.0 / np.arange(1, d + 1) ** 2 if weights is None
             else np.broadcast_to(np.asarray(weights, dtype=float), (d,)))
    z_ref, e_ref = ref_cbc(n, d, gamma, alpha)
    z, e = cbc_lattice(n, d, weights=weights, alpha=alpha, return_error=True)
    np.testing.assert_array_equal(z, z_ref)
    # e = -1 + mean(prod_j (...)): the terms are ~1, so a few ulp of 1 (absolute) is the rounding
    # floor whatever e's size (scipy 1.15's FFT lands 1.3e-15 off at e = 7e-4, n=101, alpha=4)
    np.testing.assert_allclose(e, e_ref, rtol=1e-12, atol=8 * np.finfo(np.float64).eps)


def test_worst_case_error_direct():
    z = np.array([1, 182667, 213731, 255351])
    for n in [64, 1024]:
        gamma = 1.0 / np.arange(1, 5) ** 2
        np.testing.assert_allclose(worst_case_error(z, n), ref_error(z % n, n, gamma),
                                   rtol=1e-13)
        np.testing.assert_allclose(worst_case_error(z, n, weights=0.3, alpha=4),
                                   ref_error(z % n, n, [0.3] * 4, 4), rtol=1e-13)


def test_error_returned_equals_direct_evaluation():
    z, e = cbc_lattice(4093, 20, return_error=True)
    assert e == pytest.approx(worst_case_error(z, 4093), rel=1e-12)
    z2, e2 = cbc_lattice(4096, 20, return_error=True)
    assert e2 == pytest.approx(worst_case_error(z2, 4096), rel=1e-12)


def test_entries_are_canonical_units():
    for n in [1021, 1024]:
        z = cbc_lattice(n, 30)
        assert z[0] == 1
        assert np.all((z >= 1) & (z <= n // 2))
        assert all(math.gcd(int(v), n) == 1 for v in z)


# --- the kernel function and the rate -------------------------------------------------------

@pytest.mark.parametrize("alpha", [2, 4, 6, 8])
def test_omega_equals_fourier_series(alpha):
    x = np.linspace(0, 1, 33)
    h = np.arange(1, 200001)[:, None]
    series = 2 * np.sum(np.cos(2 * np.pi * h * x) / h.astype(float) ** alpha, axis=0)
    # truncation error of the series: about 2 / ((alpha - 1) H^(alpha - 1))
    tol = 2.0 / ((alpha - 1) * 200000.0 ** (alpha - 1)) + 1e-12
    np.testing.assert_allclose(_omega(x, alpha), series, rtol=0, atol=tol)
    if alpha in (2, 4):
        np.testing.assert_allclose(_omega(x, alpha), ref_omega(x, alpha), rtol=1e-14)
    # omega_alpha(0) = 2 zeta(alpha)
    from scipy.special import zeta
    assert _omega(np.array(0.0), alpha) == pytest.approx(2 * zeta(alpha), rel=1e-13)


@pytest.mark.parametrize("ns", [[31, 61, 127, 251, 509, 1021, 2039, 4093],
                                [32, 64, 128, 256, 512, 1024, 2048, 4096]])
def test_error_decays_like_n_to_minus_two(ns):
    # P_2 = O(N^(-2 + delta)) (Kuo 2003; Nuyens & Cools 2006): in d = 2 the
    # log factors are mild and the fitted exponent is close to -2 (measured
    # -1.86 on both series); a random or poor vector decays like N^-1.
    errs = [cbc_lattice(n, 2, return_error=True)[1] for n in ns]
    slope = np.polyfit(np.log(ns), np.log(errs), 1)[0]
    assert -2.05 < slope < -1.75
    assert np.all(np.diff(errs) < 0)
    errs4 = [cbc_lattice(n, 4, return_error=True)[1] for n in ns]
    slope4 = np.polyfit(np.log(ns), np.log(errs4), 1)[0]
    assert -2.05 < slope4 < -1.5


def test_large_n_fast():
    # O(d n log n): 2^16 points in 50 dimensions, vs a direct evaluation
    z, e = cbc_lattice(2 ** 16, 50, return_error=True)
    assert e == pytest.approx(worst_case_error(z, 2 ** 16), rel=1e-12)


# --- input validation -------------------------------------------------------------------------

def test_bad_n():
    with pytest.raises(ValueError, match="'n' must be a prime or a power of 2; got 100"):
        cbc_lattice(100, 3)
    with pytest.raises(ValueError, match="'n' must be >= 1; got 0"):
        cbc_lattice(0, 3)
    with pytest.raises(ValueError, match="'n' must be >= 1; got -4"):
        cbc_lattice(-4, 3)
    with pytest.raises(TypeError, match="'n' must be an integer"):
        cbc_lattice(64.0, 3)


@pytest.mark.parametrize("n", [2 ** 28 + 1, 2 ** 29, 2 ** 31, 2 ** 31 - 1, 2 ** 40])
def test_n_above_the_array_limit_is_refused_before_allocation(n):
    """Issue 21: cbc_lattice(2**31, 1) raised MemoryError (16 GiB) for a documented size.

    The limit is now the library's 2**28 entries per array, refused before anything is
    allocated (checked with tracemalloc: nothing near n entries is allocated).
    """
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=rf"'n' must be <= 2\*\*28 = 268435456 .*; got {n}\."):
            cbc_lattice(n, 1)
        with pytest.raises(ValueError, match=rf"'n' must be <= 2\*\*28 = 268435456 .*; got {n}\."):
            worst_case_error([1], n)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 ** 20


@pytest.mark.parametrize("n", [2 ** 18, 262139])   # a power of 2 and a prime (the two paths)
def test_memory_per_point_is_as_documented(n):
    """The docstring's ~75 bytes per point, which sets the 2**28 limit (19 GiB at its peak)."""
    import tracemalloc

    cbc_lattice(64, 3)  # compiled kernels loaded
    tracemalloc.start()
    try:
        cbc_lattice(n, 3)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 80 * n, peak / n


def test_bad_d_alpha_weights():
    with pytest.raises(ValueError, match="'d' must be >= 1; got 0"):
        cbc_lattice(64, 0)
    with pytest.raises(ValueError, match=r"'alpha' must be an even integer \(2, 4, ..., 12\); "
                                         "got 3"):
        cbc_lattice(64, 3, alpha=3)
    with pytest.raises(ValueError, match="'alpha' must be <= 12; got 14"):
        cbc_lattice(64, 3, alpha=14)
    with pytest.raises(ValueError, match="'weights' must be positive; got -1.0"):
        cbc_lattice(64, 3, weights=[1.0, -1.0, 0.5])
    with pytest.raises(ValueError, match="'weights' must have length d=3; got length 2"):
        cbc_lattice(64, 3, weights=[1.0, 0.5])
    with pytest.raises(ValueError, match="'z' must be a non-empty 1-D array"):
        worst_case_error([], 64)
    with pytest.raises(TypeError, match="'z' must contain integers"):
        worst_case_error([1.0, 3.0], 64)


# --- issue 14: real FFTs, generator-order products, compiled kernels --------------------------

import json  # noqa: E402
from pathlib import Path  # noqa: E402

import scipy  # noqa: E402
import scipy.fft  # noqa: E402

from qmc_orff.generators import _cbc_kernels as K  # noqa: E402
from qmc_orff.generators import cbc as cbc_module  # noqa: E402
from qmc_orff.generators.cbc import _Correlation, _omega_coefficients  # noqa: E402

VECTORS_PATH = Path(__file__).parent / "data" / "cbc_vectors_i14.json"
VECTORS = json.loads(VECTORS_PATH.read_text())["vectors"]


def _vector_id(v):
    w = "list" if isinstance(v["weights"], list) else v["weights"]
    return f"n{v['n']}-d{v['d']}-a{v['alpha']}-w{w}"


#: numpy / scipy of the run that wrote tests/data/cbc_vectors_i14.json
VECTORS_WITH = ("2.4.6", "1.17.1")


def _check_vector(v):
    z, e = cbc_lattice(v["n"], v["d"], weights=v["weights"], alpha=v["alpha"], return_error=True)
    np.testing.assert_array_equal(z, v["z"])
    if (np.__version__, scipy.__version__) == VECTORS_WITH:
        assert e == float.fromhex(v["error"])   # the products p are bit-identical
    else:   # other builds: omega and the mean may round differently in the last bits
        np.testing.assert_allclose(e, float.fromhex(v["error"]), rtol=1e-13)


@pytest.mark.parametrize("v", [v for v in VECTORS if v["n"] < 2 ** 18], ids=_vector_id)
def test_vectors_identical_to_complex_fft_code(v):
    # z and the error of the code before the real-FFT change (tests/data/cbc_vectors_i14.json)
    _check_vector(v)


@pytest.mark.parametrize("v", [v for v in VECTORS if v["n"] < 2 ** 18 and v["n"] >= 64
                               and v["alpha"] == 2], ids=_vector_id)
def test_vectors_identical_with_four_step_correlations(v, monkeypatch):
    # the four-step FFT (used from correlation length 2^17 on) forced onto every level >= 16
    monkeypatch.setattr(cbc_module, "_FOUR_STEP_MIN", 16)
    _check_vector(v)


@pytest.mark.slow
@pytest.mark.parametrize("v", [v for v in VECTORS if v["n"] >= 2 ** 18], ids=_vector_id)
def test_large_vectors_identical_to_complex_fft_code(v):
    _check_vector(v)


def _ref_correlation(f, x):
    """y[i] = sum_e x[e] f[(i + e) mod L], directly."""
    L = f.size
    return np.array([np.dot(x, np.roll(f, -i)) for i in range(L)])


@pytest.mark.parametrize("L, four_step_min", [(2, 2 ** 17), (6, 2 ** 17), (1030, 2 ** 17),
                                               (1024, 2 ** 17), (1024, 16), (512, 16), (64, 64)])
def test_correlation_equals_direct_sum(L, four_step_min, monkeypatch):
    monkeypatch.setattr(cbc_module, "_FOUR_STEP_MIN", four_step_min)
    rng = np.random.default_rng(L)
    f, x = rng.standard_normal(L), rng.uniform(0.5, 2.0, L)
    corr = _Correlation(f)
    assert corr.split == (L >= four_step_min and L & (L - 1) == 0)
    ref = _ref_correlation(f, x)
    np.testing.assert_allclose(corr(x), ref, rtol=0, atol=1e-14 * np.abs(f).max() * x.sum())


def test_four_step_correlation_at_its_threshold():
    # L = 2^17 (the first length split): against numpy's complex FFT and a few direct sums
    L = 2 ** 17
    rng = np.random.default_rng(17)
    f, x = rng.standard_normal(L), rng.uniform(0.5, 2.0, L)
    corr = _Correlation(f)
    assert corr.split and (corr.n1, corr.n2) == (256, 512)
    y = corr(x)
    full = scipy.fft.ifft(scipy.fft.fft(f) * np.conj(scipy.fft.fft(x))).real
    scale = np.abs(f).max() * x.sum()
    np.testing.assert_allclose(y, full, rtol=0, atol=1e-14 * scale)
    for i in (0, 1, 4097, L - 1):
        assert abs(y[i] - np.dot(x, np.roll(f, -i))) <= 1e-13 * scale


def _pow2_layout(n):
    """Reference layout of the n = 2^m products (pure Python powers of 5)."""
    m = n.bit_length() - 1
    sizes, perm = [], []
    for lev in range(m - 2):
        big_m = n >> lev
        gm = [pow(5, b, big_m) for b in range(big_m // 4)]
        perm += [g << lev for g in gm] + [(big_m - g) << lev for g in gm]
        sizes.append(big_m // 4)
    perm += [0, n // 4, n // 2, 3 * n // 4]
    return np.array(sizes, dtype=np.int64), np.array(perm)


@pytest.mark.parametrize("n, z, alpha", [(8, 3, 2), (64, 1, 2), (1024, 275, 2), (1024, 403, 4),
                                         (4096, 1365, 6)])
def test_update_pow2_equals_numpy(n, z, alpha):
    sizes, perm = _pow2_layout(n)
    assert sorted(perm.tolist()) == list(range(n))   # a permutation of 0 .. n-1
    rng = np.random.default_rng(n)
    p = rng.uniform(0.5, 2.0, n)
    gamma = 0.37
    k = np.arange(n)
    ref = p * (1 + gamma * _omega((k * z % n) / n, alpha))       # natural order, numpy
    pp = p[perm].copy()
    x = np.empty(n // 2 - 2)
    coef, factor = _omega_coefficients(alpha)
    K.update_pow2(pp, x, sizes, z, n, gamma, coef, factor, alpha == 2)
    np.testing.assert_array_equal(pp, ref[perm])
    # x: per level, the sum of the two halves
    o = 0
    for L in sizes.tolist():
        a = 2 * o
        np.testing.assert_array_equal(x[o:o + L], pp[a:a + L] + pp[a + L:a + 2 * L])
        o += L
    # z = 0 forms x only
    pp2 = pp.copy()
    K.update_pow2(pp2, x, sizes, 0, n, gamma, coef, factor, alpha == 2)
    np.testing.assert_array_equal(pp2, pp)


@pytest.mark.parametrize("n, alpha", [(3, 2), (101, 2), (1009, 4)])
def test_update_prime_equals_numpy(n, alpha):
    g = cbc_module._primitive_root(n)
    gp = np.array([pow(g, c, n) for c in range(n - 1)])
    perm = np.append(gp, 0)
    rng = np.random.default_rng(n)
    p = rng.uniform(0.5, 2.0, n)
    coef, factor = _omega_coefficients(alpha)
    k = np.arange(n)
    for cz in (0, 1, (n - 1) // 2, n - 2):
        z = pow(g, cz, n)
        ref = p * (1 + 0.8 * _omega((k * z % n) / n, alpha))
        pp = p[perm].copy()
        K.update_prime(pp, gp, cz, n, 0.8, coef, factor, alpha == 2)
        np.testing.assert_array_equal(pp, ref[perm])


def test_update_p_equals_numpy():
    n, z = 97, 35
    p = np.random.default_rng(5).uniform(0.5, 2.0, n)
    ref = p * (1 + 0.3 * _omega((np.arange(n) * z % n) / n, 4))
    coef, factor = _omega_coefficients(4)
    K.update_p(p, z, n, 0.3, coef, factor, False)
    np.testing.assert_array_equal(p, ref)


@pytest.mark.parametrize("n_y", [2, 8, 4096, 2 ** 14])
def test_sum_levels_equals_numpy_tiles(n_y):
    rng = np.random.default_rng(n_y)
    cs = [rng.standard_normal(n_y >> lev) for lev in range(n_y.bit_length() - 1)]
    ref = np.zeros(n_y)
    for c in cs:                       # the same additions in the same order
        ref += np.tile(c, n_y // c.size)
    y = np.empty(n_y)
    sizes = np.array([a.size for a in cs], dtype=np.int64)
    ymin = K.sum_levels(np.concatenate(cs), sizes, y)
    np.testing.assert_array_equal(y, ref)
    assert ymin == ref.min()


def test_select_equals_numpy():
    rng = np.random.default_rng(9)
    values = rng.standard_normal(1000)
    values[[10, 500, 900]] = values.min()          # ties
    cand = rng.permutation(1000) + 1
    for thr in (values.min(), values.min() + 1e-3, 0.0, 10.0):
        i = K.select(values, cand, thr)
        assert cand[i] == cand[values <= thr].min()
    assert K.select(values, cand, values.min() - 1.0) == -1


def test_abs_into_equals_numpy():
    x = np.random.default_rng(2).standard_normal(1001)
    out = np.empty_like(x)
    K.abs_into(x, out)
    np.testing.assert_array_equal(out, np.abs(x))
    assert out.sum() == np.abs(x).sum()
