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
