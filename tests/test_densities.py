"""Tests for qmc_orff.densities: closed forms and quadrature against independent references."""
import math
import warnings

import numpy as np
import pytest
from scipy import integrate, special, stats

from qmc_orff.densities import (
    CauchyDensity,
    CharacteristicDensity,
    GaussianDensity,
    ProductDensity,
    get_density,
)


def _phi_gauss(t):
    return np.exp(-0.5 * np.asarray(t) ** 2)


def _phi_laplace(t):
    return np.exp(-np.abs(np.asarray(t)))


def _phi_sinc(t):
    return np.sinc(np.asarray(t) / np.pi)  # sin(t) / t


def _sinc_density():
    # sinc kernel: uniform spectral density on [-1, 1]
    return CharacteristicDensity(_phi_sinc, ppf=lambda t: 2.0 * t - 1.0,
                                 cdf=lambda u: np.clip(0.5 * (u + 1.0), 0.0, 1.0),
                                 pdf=lambda u: np.where(np.abs(u) <= 1.0, 0.5, 0.0), name="sinc")


DENSITIES = {
    "gaussian": (GaussianDensity(), _phi_gauss),
    "laplacian": (CauchyDensity(), _phi_laplace),
    "generic-gaussian": (CharacteristicDensity(_phi_gauss, ppf=special.ndtri), _phi_gauss),
    "sinc": (_sinc_density(), _phi_sinc),
}

A_VALUES = [1e-3, 0.05, 1.0, 1.9, 2.5, 10.0, 100.0]
X_VALUES = [0.0, 1e-7, 0.3, 1.5, 2.2, 5.0, 37.5, 60.0, 300.0, 1000.0]


def _quad(f, a, weight=None, wvar=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        if weight is None:
            return integrate.quad(f, 0.0, a, epsabs=0.0, epsrel=1e-13, limit=2000)[0]
        return integrate.quad(f, 0.0, a, weight=weight, wvar=wvar, epsabs=0.0, epsrel=1e-13,
                              limit=2000)[0]


def _ref_g(phi, x, a):
    if x == 0:
        return _quad(phi, a) / math.pi
    return _quad(phi, a, "cos", x) / math.pi


def _ref_dg(phi, x, a):
    if x == 0:
        return 0.0
    return -_quad(lambda t: t * phi(t), a, "sin", x) / math.pi


def _tol(ref, x, a, scale):
    # relative 1e-10, with an absolute floor at the conditioning of cos(x t) over [0, a]
    return 1e-10 * abs(ref) + 1e-16 * (1.0 + a * abs(x)) * scale


@pytest.mark.parametrize("key", list(DENSITIES))
@pytest.mark.parametrize("a", A_VALUES)
def test_g_and_derivative_match_quadrature(key, a):
    dens, phi = DENSITIES[key]
    scale = _ref_g(phi, 0.0, a)
    dscale = _quad(lambda t: t * np.abs(phi(t)), a) / math.pi
    for x in X_VALUES:
        for sx in (x, -x):
            g, dg = dens.g_and_derivative(sx, a)
            assert np.isfinite(g) and np.isfinite(dg)
            ref = _ref_g(phi, sx, a)
            dref = _ref_dg(phi, sx, a)
            assert abs(g - ref) <= _tol(ref, sx, a, scale), (sx, a, g, ref)
            assert abs(dg - dref) <= _tol(dref, sx, a, dscale) + 1e-13 * abs(sx) * abs(dref), \
                (sx, a, dg, dref)
            assert dens.g(sx, a) == g


@pytest.mark.parametrize("key", list(DENSITIES))
def test_C_matches_quadrature(key):
    dens, phi = DENSITIES[key]
    for a in A_VALUES:
        ref = _quad(lambda t: phi(t) ** 2, a) / math.pi
        assert dens.C(a) == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("key", list(DENSITIES))
def test_derivative_matches_finite_differences(key):
    dens, _ = DENSITIES[key]
    for a in (0.7, 2.0, 6.0):
        for x in (0.0, 0.4, 1.3, 4.0, 45.0):
            h = 1e-5 * max(1.0, abs(x)) / max(1.0, a)
            fd = (dens.g(x + h, a) - dens.g(x - h, a)) / (2 * h)
            dg = dens.g_and_derivative(x, a)[1]
            assert dg == pytest.approx(fd, rel=1e-6, abs=1e-9 * dens.g(0.0, a))


def test_closed_forms_of_the_sinc_density():
    # g_1(x; a) = (Si((1+x) a) + Si((1-x) a)) / (2 pi);  C_1(a) = (Si(2a) - sin(a)^2 / a) / pi
    dens = DENSITIES["sinc"][0]
    for a in (1e-3, 0.5, 3.0, 40.0):
        x = np.array([0.0, 0.2, 1.0, 2.5, 30.0])
        ref = (special.sici((1 + x) * a)[0] + special.sici((1 - x) * a)[0]) / (2 * math.pi)
        np.testing.assert_allclose(dens.g(x, a), ref, rtol=1e-11, atol=1e-15)
        cref = (special.sici(2 * a)[0] - math.sin(a) ** 2 / a) / math.pi
        assert dens.C(a) == pytest.approx(cref, rel=1e-12)


@pytest.mark.parametrize("closed, phi", [(GaussianDensity(), _phi_gauss),
                                         (CauchyDensity(), _phi_laplace)])
def test_generic_density_matches_closed_form(closed, phi):
    generic = CharacteristicDensity(phi, ppf=closed.ppf)
    rng = np.random.default_rng(7)
    x = np.concatenate([[0.0, 1e-9], rng.normal(scale=3.0, size=40), [80.0, -500.0]])
    for a in (1e-3, 0.3, 1.0, 3.0, 20.0):
        g1, d1 = closed.g_and_derivative(x, a)
        g2, d2 = generic.g_and_derivative(x, a)
        gs = closed.g(0.0, a)
        np.testing.assert_allclose(g2, g1, rtol=1e-11, atol=1e-14 * gs)
        np.testing.assert_allclose(d2, d1, rtol=1e-10, atol=1e-14 * gs)
        assert generic.C(a) == pytest.approx(closed.C(a), rel=1e-13)


def test_gaussian_no_overflow_at_far_frequencies():
    # exp(-y^2) erf(a - i y) overflows for |x| > ~37: the Faddeeva form must stay finite
    dens = GaussianDensity()
    x = np.array([36.0, 38.0, 40.0, 200.0, 1e3, 1e5])
    for a in (1e-3, 1.0, 10.0, 100.0):
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            g, dg = dens.g_and_derivative(x, a)
        assert np.all(np.isfinite(g)) and np.all(np.isfinite(dg))
        # leading asymptotics: g ~ exp(-a^2/2) sin(a x) / (pi x)
        lead = math.exp(-a * a / 2) * np.sin(a * x) / (math.pi * x)
        assert np.all(np.abs(g - lead) <= 2.0 / (math.pi * x ** 2)), (a, g, lead)


def test_broadcasting_and_scalars():
    dens = GaussianDensity()
    x = np.linspace(-3, 3, 12).reshape(4, 3)
    a = np.array([0.5, 1.0, 4.0])
    g = dens.g(x, a)
    assert g.shape == (4, 3)
    for j in range(3):
        np.testing.assert_array_equal(g[:, j], dens.g(x[:, j], a[j]))
    assert isinstance(dens.g(0.5, 1.0), float)
    assert isinstance(dens.C(1.0), float)
    np.testing.assert_array_equal(dens.g(x, a), dens.g(-x, a))  # even in x


@pytest.mark.parametrize("dens, ref", [(GaussianDensity(), stats.norm), (CauchyDensity(), stats.cauchy)])
def test_ppf_cdf_pdf(dens, ref):
    t = np.array([1e-300, 1e-12, 1e-3, 0.1, 0.25, 0.3, 0.5, 0.625, 0.75, 0.9, 1 - 1e-3])
    u = dens.ppf(t)
    # cdf(ppf(t)) = t up to the conditioning of the tail (relative ~ eps u^2 for the normal)
    uc = np.clip(u, -100.0, 100.0)
    assert np.all(np.abs(dens.cdf(u) - t) <= 4e-16 * (1.0 + uc * uc) * t)
    np.testing.assert_allclose(u, ref.ppf(t), rtol=1e-13)
    assert dens.ppf(0.0) == -np.inf and dens.ppf(1.0) == np.inf
    assert dens.ppf(0.5) == 0.0
    # exact symmetry where 1 - t is exact
    ts = np.array([0.25, 0.375, 0.5, 0.125, 2.0 ** -20, 0.0])
    np.testing.assert_array_equal(dens.ppf(1.0 - ts), -dens.ppf(ts))
    v = np.array([-1e6, -30.0, -1.0, 0.0, 0.5, 4.0, 1e6])
    np.testing.assert_allclose(dens.cdf(v), ref.cdf(v), rtol=1e-13)
    np.testing.assert_allclose(dens.pdf(v), ref.pdf(v), rtol=1e-13)
    assert dens.cdf(-np.inf) == 0.0 and dens.cdf(np.inf) == 1.0
    # the density integrates to 1 and its characteristic function is char_fn
    assert 2 * integrate.quad(dens.pdf, 0, np.inf)[0] == pytest.approx(1.0, abs=1e-10)
    for beta in (0.7, 2.0):
        val = 2 * integrate.quad(dens.pdf, 0, np.inf, weight="cos", wvar=beta)[0]
        assert val == pytest.approx(dens.char_fn(beta), abs=1e-10)


def test_ppf_rejects_outside_unit_interval():
    for dens in (GaussianDensity(), CauchyDensity(), DENSITIES["sinc"][0]):
        for bad in (-0.1, 1.5, np.nan):
            with pytest.raises(ValueError, match="'t' must lie in \\[0, 1\\]"):
                dens.ppf(bad)


def test_bad_arguments():
    dens = GaussianDensity()
    with pytest.raises(ValueError, match="'a' .* must be positive and finite; got -1.0"):
        dens.g(0.0, -1.0)
    with pytest.raises(ValueError, match="'a' .* must be positive"):
        CauchyDensity().C(np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="'x' must contain only finite values"):
        dens.g_and_derivative(np.inf, 1.0)
    with pytest.raises(ValueError, match="'x' must contain only finite values"):
        DENSITIES["sinc"][0].g(np.nan, 1.0)


def test_get_density():
    assert isinstance(get_density("gaussian"), GaussianDensity)
    assert isinstance(get_density("laplacian"), CauchyDensity)
    custom = DENSITIES["sinc"][0]
    assert get_density(custom) is custom
    assert get_density("gaussian").name == "gaussian"
    assert get_density("laplacian").name == "laplacian"
    assert custom.name == "sinc"
    assert isinstance(custom, ProductDensity)
    with pytest.raises(ValueError, match="'kernel' must be one of 'gaussian', 'laplacian'"):
        get_density("matern")
    with pytest.raises(ValueError, match="'kernel' must be one of"):
        get_density(3)


def test_characteristic_density_validation():
    with pytest.raises(TypeError, match="'char_fn' must be callable"):
        CharacteristicDensity(1.0, ppf=special.ndtri)
    with pytest.raises(TypeError, match="'ppf' must be callable"):
        CharacteristicDensity(_phi_gauss, ppf=None)
    with pytest.raises(TypeError, match="'cdf' must be callable or None"):
        CharacteristicDensity(_phi_gauss, ppf=special.ndtri, cdf=3)
    with pytest.raises(ValueError, match="'char_fn' must equal 1 at 0"):
        CharacteristicDensity(lambda t: 2.0 * _phi_gauss(t), ppf=special.ndtri)
    dens = CharacteristicDensity(_phi_gauss, ppf=special.ndtri)
    with pytest.raises(ValueError, match="created without 'cdf'"):
        dens.cdf(0.0)
    with pytest.raises(ValueError, match="created without 'pdf'"):
        dens.pdf(0.0)
    assert dens.ppf(0.5) == 0.0


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_char_fn_is_refused(bad):
    # a NaN used to make the panel refinement bisect to depth 40 everywhere (a hang)
    dens = CharacteristicDensity(lambda t: np.where(np.abs(t) > 0.5, bad, _phi_gauss(t)),
                                 ppf=special.ndtri, name="broken")
    for call in (lambda: dens.C(1.0), lambda: dens.g(np.array([0.3, 2.0]), 1.0),
                 lambda: dens.g_and_derivative(0.3, 1.0)):
        with pytest.raises(ValueError, match="'char_fn' of density 'broken' must return finite "
                                             "values; got (nan|inf) at t=0.5"):
            call()


@pytest.mark.parametrize("key", ["gaussian", "laplacian"])
def test_closed_forms_finite_at_any_finite_x(key):
    dens = DENSITIES[key][0]
    x = np.array([1e10, -1e160, 1e300])
    for a in (1e-3, 1.0, 1e2):
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            g, dg = dens.g_and_derivative(x, a)
        assert np.all(np.isfinite(g)) and np.all(np.isfinite(dg))
        assert np.all(np.abs(g) <= 1.0 / np.abs(x))
        # |g'| <= a / |x| up to rounding: the Gaussian's -x g + e^{-a^2/2} sin(a x) / pi
        # cancels to an absolute error ~ eps (documented in GaussianDensity)
        assert np.all(np.abs(dg) <= a / np.abs(x) + 1e-15)


@pytest.mark.parametrize("key", list(DENSITIES))
def test_overflowing_angle_is_refused(key):
    with pytest.raises(ValueError, match="'x' is too large: a \\* x overflows"):
        DENSITIES[key][0].g_and_derivative(1.7e308, 100.0)


def test_generic_density_refuses_unresolvable_oscillation():
    dens = DENSITIES["sinc"][0]
    with pytest.raises(ValueError, match="'x' is too large for the quadrature of density 'sinc'"):
        dens.g(1e9, 10.0)
