"""make_frequencies: every point source, the distributions, and the boundary policy."""
import numpy as np
import pytest
from scipy import stats

import qmc_orff.sources.frequencies as freq
from qmc_orff.sources.frequencies import T_EPS, make_frequencies, source_points
from qmc_orff.sequence import Sequence

# sizes that are not powers of 2 are used on purpose; the warning is tested once
pytestmark = pytest.mark.filterwarnings("ignore:sequence='sobol' with n_components")

KERNELS = ["gaussian", "laplacian", "matern", "skewed_chi2"]
QMC = ["halton", "sobol", "lattice"]


# --------------------------------------------------------------------------- boundary policy
def test_unscrambled_points_are_centred():
    # Halton s = 4: base 2 grid 1/4 -> +1/8; base 3 grid 1/9 (3 = "10" in base 3) -> +1/18
    t = source_points("halton", 4, 2, scramble=False)
    np.testing.assert_allclose(t, [[1 / 8, 1 / 18], [5 / 8, 7 / 18], [3 / 8, 13 / 18],
                                   [7 / 8, 3 / 18]], rtol=1e-15)
    t = source_points("sobol", 4, 2, scramble=False)
    np.testing.assert_array_equal(t, [[0.125, 0.125], [0.625, 0.625], [0.875, 0.375],
                                      [0.375, 0.875]])
    t = source_points("lattice", 4, 2, scramble=False)
    np.testing.assert_array_equal(t, [[0.125, 0.125], [0.625, 0.625], [0.375, 0.875],
                                      [0.875, 0.375]])


@pytest.mark.parametrize("source", QMC)
@pytest.mark.parametrize("s", [1, 2, 7, 64, 100])
def test_unscrambled_points_inside_and_midpoint_1d(source, s):
    t = source_points(source, s, 3, scramble=False)
    assert np.all(t > 0) and np.all(t < 1)
    if s & (s - 1) == 0 and source != "halton":
        # a (0, m, 1)-net in each coordinate becomes the midpoint rule
        np.testing.assert_allclose(np.sort(t[:, 0]), (np.arange(s) + 0.5) / s, rtol=1e-15)


def test_zero_from_an_engine_is_clipped(monkeypatch):
    """Safety net: a randomised engine that returns exact 0 and 1 gives finite frequencies."""
    class Degenerate:
        def random(self, n):
            t = np.zeros((n, 3))
            t[1::2] = 1.0
            return t

    monkeypatch.setattr(freq, "_engine", lambda *args: Degenerate())
    for kernel in KERNELS:
        W, _ = make_frequencies(kernel, 4, 2, sequence="sobol", scramble=True)
        assert np.all(np.isfinite(W))
    t = source_points("sobol", 4, 3, scramble=True)
    assert t.min() == T_EPS and t.max() == 1.0 - T_EPS


# unrandomised engines as sequence=: centred as the named sources (issue 29, item 2)
def _unrandomised_engines(dim):
    from scipy.stats import qmc

    from qmc_orff import Halton, Lattice, Sobol
    return {"ours-sobol": (Sobol(dim, scramble=False), "sobol", False),
            "ours-halton": (Halton(dim, scramble=False), "halton", False),
            "ours-halton-rr2": (Halton(dim, scramble="deterministic"), "halton", "deterministic"),
            "ours-lattice": (Lattice(dim), "lattice", False),
            "scipy-sobol": (qmc.Sobol(dim, scramble=False), "sobol", False),
            "scipy-halton": (qmc.Halton(dim, scramble=False), "halton", False)}


@pytest.mark.parametrize("name", ["ours-sobol", "ours-halton", "ours-halton-rr2", "ours-lattice",
                                  "scipy-sobol", "scipy-halton"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_unrandomised_engine_equals_the_named_source(name, kernel):
    """Each engine starts at the origin; as sequence= it gives the named source's bits."""
    s, d = 16, 3
    extra = 1 if kernel == "matern" else 0
    engine, source, scramble = _unrandomised_engines(d + extra)[name]
    assert np.all(engine.random(1) == 0.0)  # the origin, where the inverse CDF is infinite
    engine.reset()
    W, xi = make_frequencies(kernel, s, d, sequence=engine, sigma=0.5)
    W_ref, xi_ref = make_frequencies(kernel, s, d, sequence=source, scramble=scramble, sigma=0.5)
    np.testing.assert_array_equal(W, W_ref)
    np.testing.assert_array_equal(xi, xi_ref)


def test_unrandomised_engine_that_advanced_is_centred_on_its_grid():
    """After 3 points, the next 5 (indices 3..7) lie on the grid 1/8 and are shifted by 1/16."""
    from qmc_orff import Sobol
    from qmc_orff.sources._engine_cube import engine_cube_points

    engine = Sobol(2, scramble=False)
    engine.random(4)
    engine.reset().fast_forward(3)
    t = engine_cube_points(engine, 5)
    np.testing.assert_array_equal(t, Sobol(2, scramble=False).random(8)[3:] + 1 / 16)
    # natural-order lattice: grid 1/n_max, shifted by half of it
    from qmc_orff import Lattice
    lat = Lattice(2, generating_vector=[1, 3], n_max=8, order="natural")
    np.testing.assert_array_equal(engine_cube_points(lat, 8),
                                  Lattice(2, generating_vector=[1, 3], n_max=8,
                                          order="natural").random(8) + 1 / 16)


def test_unrandomised_engines_fit_a_map():
    """The failures of the issue: each engine works as FourierFeatures' and ORFF's sequence."""
    from qmc_orff import ORFF, FourierFeatures
    X = np.random.default_rng(0).standard_normal((40, 3))
    for engine, _, _ in _unrandomised_engines(3).values():
        ff = FourierFeatures(sequence=engine, n_components=16, sigma=2.0, check="off").fit(X)
        assert np.all(np.isfinite(ff.transform(X)))
    for engine, _, _ in _unrandomised_engines(3).values():
        orff = ORFF("curl_free", sequence=engine, n_components=16, check="off").fit(X)
        assert np.all(np.isfinite(orff.frequencies_))


def test_randomised_engine_is_clipped_unknown_engine_on_the_boundary_is_refused():
    from scipy.stats import qmc

    from qmc_orff import Sobol
    from qmc_orff.sources._engine_cube import engine_cube_points

    class Zeros(qmc.QMCEngine):  # an engine of unknown kind whose point 1 has a 0
        def __init__(self, d):
            super().__init__(d=d)

        def _random(self, n=1, *, workers=1):
            t = np.full((n, self.d), 0.5)
            t[1, 1] = 0.0
            return t

    with pytest.raises(ValueError, match=r"'sequence' \(a Zeros engine\) gave the point 1 a "
                                         r"coordinate 0.0 \(column 1\).*scramble=True"):
        make_frequencies("gaussian", 4, 2, sequence=Zeros(2))
    # scrambled: as the named source (clipped, here a no-op), bit for bit
    W, _ = make_frequencies("gaussian", 8, 2, sequence=Sobol(2, rng=5))
    np.testing.assert_array_equal(W, make_frequencies("gaussian", 8, 2, sequence="sobol",
                                                      scramble=True, seed=5)[0])
    # an engine of unknown kind inside (0, 1): its points as drawn
    t = engine_cube_points(qmc.LatinHypercube(2, rng=1), 6)
    np.testing.assert_array_equal(t, qmc.LatinHypercube(2, rng=1).random(6))


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("source", QMC + ["mc"])
@pytest.mark.parametrize("scramble", [True, False])
def test_no_infinite_frequency(kernel, source, scramble):
    W, xi = make_frequencies(kernel, 257, 4, sequence=source, scramble=scramble, seed=3)
    assert W.shape == (257, 4) and W.dtype == np.float64
    assert np.all(np.isfinite(W))
    np.testing.assert_allclose(xi, 1 / 257)


def test_radial_no_infinite_frequency():
    for source in QMC + ["mc"]:
        for scramble in (True, False):
            W, _ = make_frequencies("gaussian", 33, 3, sequence=source, scramble=scramble,
                                    measure="radial", seed=0)
            assert np.all(np.isfinite(W)) and np.all(np.linalg.norm(W, axis=1) > 0)


# --------------------------------------------------------------------------- distributions
def _marginal_cdf(kernel, sigma, nu=1.5):
    if kernel == "gaussian":
        return stats.norm(scale=1 / sigma).cdf
    if kernel == "laplacian":
        return stats.cauchy(scale=1 / sigma).cdf
    if kernel == "matern":  # multivariate t: marginals Student t(2 nu) / lengthscale
        return stats.t(df=2 * nu, scale=1 / sigma).cdf
    return lambda w: 2 / np.pi * np.arctan(np.exp(np.pi * sigma * w))  # hyperbolic secant


@pytest.mark.parametrize("kernel", KERNELS)
def test_mc_marginals(kernel):
    sigma = 0.7
    W, _ = make_frequencies(kernel, 4000, 3, sigma=sigma, sequence="mc", seed=11)
    for j in range(3):
        assert stats.kstest(W[:, j], _marginal_cdf(kernel, sigma)).pvalue > 1e-3


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("source", QMC)
def test_qmc_marginals_are_nearly_exact(kernel, source):
    # one-dimensional projections of low-discrepancy points: KS distance ~ 1/s.  A Matern
    # coordinate depends on two sequence coordinates (z_j and the chi-squared one), so its
    # KS distance is bounded by a two-dimensional discrepancy, ~ log(s)^2 / s.
    s, sigma = 1024, 1.3
    bound = (12.0 if kernel == "matern" else 4.0) / s
    W, _ = make_frequencies(kernel, s, 3, sigma=sigma, sequence=source, seed=2)
    for j in range(3):
        assert stats.kstest(W[:, j], _marginal_cdf(kernel, sigma)).statistic < bound
    # i.i.d. points are far from that (KS distance ~ 0.87 / sqrt(s))
    W, _ = make_frequencies(kernel, s, 3, sigma=sigma, sequence="mc", seed=2)
    assert max(stats.kstest(W[:, j], _marginal_cdf(kernel, sigma)).statistic for j in range(3)) > bound


def test_matern_is_multivariate_t():
    # |w|^2 l^2 / d ~ F(d, 2 nu) for the multivariate t with 2 nu degrees of freedom
    d, nu, l = 3, 2.5, 0.6
    for source in ("mc", "halton"):
        W, _ = make_frequencies("matern", 2048, d, sigma=l, nu=nu, sequence=source, seed=4)
        r2 = np.sum((W * l) ** 2, axis=1) / d
        assert stats.kstest(r2, stats.f(d, 2 * nu).cdf).pvalue > 1e-3


def test_radial_measure_radius_and_direction():
    d, sigma = 3, 0.5
    for source in ("mc", "sobol"):
        W, _ = make_frequencies("gaussian", 2048, d, sigma=sigma, sequence=source,
                                measure="radial", seed=5)
        r = np.linalg.norm(W, axis=1) * sigma
        assert stats.kstest(r, stats.chi(d + 2).cdf).pvalue > 1e-3
        # isotropic directions: E[u u^T] = I / d
        U = W / np.linalg.norm(W, axis=1, keepdims=True)
        np.testing.assert_allclose(U.T @ U / len(U), np.eye(d) / d, atol=0.03)


def test_orf_blocks_are_orthogonal():
    d, s, sigma = 4, 10, 2.0
    W, xi = make_frequencies("gaussian", s, d, sigma=sigma, sequence="orf", seed=7)
    assert W.shape == (s, d)
    for block in (W[:4], W[4:8], W[8:]):
        G = block @ block.T
        np.testing.assert_allclose(G - np.diag(np.diag(G)), 0.0, atol=1e-12)
    # rows are marginally N(0, sigma^-2 I): norms chi(d) / sigma
    W, _ = make_frequencies("gaussian", 4000, d, sigma=sigma, sequence="orf", seed=8)
    assert stats.kstest(np.linalg.norm(W, axis=1) * sigma, stats.chi(d).cdf).pvalue > 1e-3
    assert stats.kstest(W[:, 0] * sigma, stats.norm.cdf).pvalue > 1e-3


def test_orf_partial_block_has_the_block_law_without_a_square_block():
    """The rows past the last full block (s mod d of them) are the first rows of a Haar
    block: orthogonal, marginally N(0, I) (norms chi(d)); drawn from the reduced QR of a
    d x m Gaussian matrix, never a d x d one (s = 8 at d = 4000: a 128 MB block before)."""
    from _limits import traced_peak

    d = 5
    rows = []
    for seed in range(1500):  # s = 7: one full block and 2 rows of the next
        W, _ = make_frequencies("gaussian", 7, d, sequence="orf", seed=seed)
        tail = W[5:]
        assert abs(tail[0] @ tail[1]) <= 1e-12 * np.linalg.norm(tail[0]) * np.linalg.norm(tail[1])
        rows.append(tail)
    R = np.concatenate(rows)
    assert stats.kstest(np.linalg.norm(R, axis=1), stats.chi(d).cdf).pvalue > 1e-3
    assert stats.kstest(R[:, 3], stats.norm.cdf).pvalue > 1e-3
    (W, _), peak = traced_peak(lambda: make_frequencies("gaussian", 8, 4000, sequence="orf",
                                                        seed=0))
    assert W.shape == (8, 4000) and peak < 4 * 8 * 4000 * 8 + 2 ** 20
    # whole blocks are drawn as before: the first d rows do not depend on s
    a, _ = make_frequencies("gaussian", 10, 4, sequence="orf", seed=3)
    b, _ = make_frequencies("gaussian", 8, 4, sequence="orf", seed=3)
    np.testing.assert_array_equal(a[:8], b)


@pytest.mark.filterwarnings("error")
def test_sobol_size_warning():
    with pytest.warns(UserWarning, match="sequence='sobol' with n_components=12: the balance"):
        make_frequencies("gaussian", 12, 2, sequence="sobol", seed=0)
    make_frequencies("gaussian", 16, 2, sequence="sobol", seed=0)  # no warning


def test_seed_reproducible():
    for source in ("mc", "orf", "halton", "sobol", "lattice"):
        a, _ = make_frequencies("gaussian", 16, 3, sequence=source, seed=1, scramble=True)
        b, _ = make_frequencies("gaussian", 16, 3, sequence=source, seed=1, scramble=True)
        c, _ = make_frequencies("gaussian", 16, 3, sequence=source, seed=2, scramble=True)
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, c)


def test_default_halton_is_deterministic_rr2():
    """scramble="auto": Halton gets the RR2 permutations, whatever the seed."""
    a, _ = make_frequencies("gaussian", 16, 3, sequence="halton", seed=1)
    b, _ = make_frequencies("gaussian", 16, 3, sequence="halton", seed=2)
    c, _ = make_frequencies("gaussian", 16, 3, sequence="halton", scramble="deterministic")
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    for source in ("sobol", "lattice"):  # no deterministic scrambling there: randomised
        d1, _ = make_frequencies("gaussian", 16, 3, sequence=source, seed=1)
        d2, _ = make_frequencies("gaussian", 16, 3, sequence=source, seed=1, scramble=True)
        np.testing.assert_array_equal(d1, d2)


def test_sigma_scales_frequencies():
    a, _ = make_frequencies("laplacian", 16, 2, sequence="halton", scramble=False)
    b, _ = make_frequencies("laplacian", 16, 2, sigma=[2.0, 0.5], sequence="halton", scramble=False)
    np.testing.assert_allclose(b, a / [2.0, 0.5], rtol=1e-15)


def test_deterministic_halton_rr2():
    a, _ = make_frequencies("gaussian", 8, 2, sequence="halton", scramble="deterministic")
    b, _ = make_frequencies("gaussian", 8, 2, sequence="halton", scramble="deterministic", seed=9)
    np.testing.assert_array_equal(a, b)
    assert np.all(np.isfinite(a))


# --------------------------------------------------------------------------- Sequence and arrays
def _seq(points, weights=None, density="gaussian"):
    return Sequence(points, weights, meta={"density": density, "box_over_sigma": [1.0] * points.shape[1],
                                           "method": "test"})


def test_sequence_source_with_weights():
    P = np.random.default_rng(0).normal(size=(6, 2))
    w = np.linspace(0.1, 0.3, 6)
    W, xi = make_frequencies("gaussian", None, 2, sigma=0.5, sequence=_seq(P, w))
    np.testing.assert_allclose(W, P / 0.5, rtol=1e-15)
    np.testing.assert_array_equal(xi, w)
    W, xi = make_frequencies("gaussian", 6, None, sequence=_seq(P, w))
    np.testing.assert_array_equal(W, P)


def test_sequence_truncation_rules():
    P = np.random.default_rng(0).normal(size=(6, 2))
    W, xi = make_frequencies("gaussian", 4, 2, sequence=_seq(P))
    np.testing.assert_array_equal(W, P[:4])
    np.testing.assert_allclose(xi, 0.25)
    with pytest.raises(ValueError, match="'n_components'=4 would truncate a weighted sequence"):
        make_frequencies("gaussian", 4, 2, sequence=_seq(P, np.ones(6)))
    with pytest.raises(ValueError, match="'n_components'=7 exceeds the 6 points"):
        make_frequencies("gaussian", 7, 2, sequence=_seq(P))
    with pytest.raises(ValueError, match="designed for the density 'laplacian'"):
        make_frequencies("gaussian", None, 2, sequence=_seq(P, density="laplacian"))
    with pytest.raises(ValueError, match="'sequence' has dimension 2, but d=3"):
        make_frequencies("gaussian", None, 3, sequence=_seq(P))
    with pytest.raises(ValueError, match="needs measure='spectral'"):
        make_frequencies("gaussian", None, 2, sequence=_seq(P), measure="radial")


def test_array_source():
    P = np.arange(6.0).reshape(3, 2)
    W, xi = make_frequencies("laplacian", None, 2, sigma=2.0, sequence=P)
    np.testing.assert_array_equal(W, P / 2.0)
    np.testing.assert_allclose(xi, 1 / 3)
    with pytest.raises(ValueError, match="'sequence' must contain only finite"):
        make_frequencies("gaussian", None, 2, sequence=np.array([[np.inf, 0.0]]))
    # used to fail with ZeroDivisionError (uniform weights 1/s)
    with pytest.raises(ValueError, match="'sequence' must contain at least one point"):
        make_frequencies("gaussian", None, 2, sequence=np.ones((0, 2)))


@pytest.mark.parametrize("sequence", ["mc", "halton"])
def test_matern_tiny_nu_is_refused_by_name(sequence):
    # chi2(2 nu).ppf / chi2 draws underflow to 0 for tiny nu: infinite frequencies
    with pytest.raises(ValueError, match="the 'matern' spectral measure produced a non-finite "
                                         r"frequency \(nu=0.001\)"):
        make_frequencies("matern", 64, 3, nu=1e-3, sequence=sequence, seed=0)


@pytest.mark.parametrize("sigma", [1e-310, [1.0, 1e-310]])
def test_tiny_sigma_overflow_names_sigma(sigma):
    with pytest.raises(ValueError, match="'sigma' is too small: the frequencies divided by"):
        make_frequencies("gaussian", 8, 2, sigma=sigma, sequence="halton")
    seq = Sequence(np.full((3, 2), 10.0))
    with pytest.raises(ValueError, match="'sigma' is too small: points / sigma overflows"):
        seq.frequencies(sigma)  # used to return inf silently


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize("kwargs, match", [
    (dict(kernel="cauchy"), "'kernel' must be one of 'gaussian', 'laplacian'"),
    (dict(sequence="random"), "'sequence' must be one of 'auto', 'orf-qmc', 'mc', 'orf'"),
    (dict(sequence=object()), "'sequence' must be one of 'auto', 'orf-qmc', 'mc', 'orf', 'halton', 'sobol', 'lattice', a Sequence"),
    (dict(measure="trace"), "'measure' must be one of 'spectral', 'radial'"),
    (dict(kernel="laplacian", measure="radial"), "'measure'='radial' needs kernel='gaussian'"),
    (dict(kernel="laplacian", sequence="orf"), "sequence='orf' .* needs kernel='gaussian'"),
    (dict(d=None), "'d' is required"),
    (dict(n_components=None), "'n_components' must be an integer"),
    (dict(n_components=0), "'n_components' must be >= 1"),
    (dict(sigma=-1.0), "'sigma' must be positive"),
    (dict(sigma=[1.0, 2.0]), "'sigma' must have length d=3"),
    (dict(sigma=[1.0, 2.0, 3.0], measure="radial"), "'sigma' must be a scalar for measure='radial'"),
    (dict(kernel="matern", nu=-0.5), "'nu' must be a positive finite number"),
    (dict(scramble="yes"), "'scramble' must be one of 'auto', True, False, 'deterministic'"),
    (dict(sequence="mc", scramble=None), "'scramble' must be one of 'auto', True, False, 'deterministic'"),
    (dict(sequence="sobol", scramble="deterministic"), "'scramble' must be True or False for sequence='sobol'"),
])
def test_errors(kwargs, match):
    args = dict(kernel="gaussian", n_components=8, d=3)
    args.update(kwargs)
    kernel, n, d = args.pop("kernel"), args.pop("n_components"), args.pop("d")
    with pytest.raises(ValueError, match=match):
        make_frequencies(kernel, n, d, **args)


# --------------------------------------------------------------------------- orf-qmc / auto
def test_orf_qmc_seedless_is_fixed_and_seeded_is_random():
    a, xa = make_frequencies("gaussian", 40, 6, sequence="orf-qmc")
    b, _ = make_frequencies("gaussian", 40, 6, sequence="orf-qmc")
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(xa, np.full(40, 1 / 40))
    c, _ = make_frequencies("gaussian", 40, 6, sequence="orf-qmc", seed=1)
    e, _ = make_frequencies("gaussian", 40, 6, sequence="orf-qmc", seed=1)
    np.testing.assert_array_equal(c, e)
    assert not np.array_equal(a, c)
    a[0, 0] = 7.0  # the cached frequencies are not handed out
    np.testing.assert_array_equal(make_frequencies("gaussian", 40, 6, sequence="orf-qmc")[0], b)


def test_orf_qmc_structure():
    """Orthogonal blocks of d rows; radii at the chi(d) quantiles of a stratified 1-D set."""
    from scipy import stats
    s, d = 70, 8
    W, _ = make_frequencies("gaussian", s, d, sequence="orf-qmc", sigma=2.0)
    U = W * 2.0
    r = np.linalg.norm(U, axis=1)
    for start in range(0, s, d):
        B = U[start:start + d] / r[start:start + d, None]
        np.testing.assert_allclose(B @ B.T, np.eye(B.shape[0]), atol=1e-12)
    # the probability levels of the radii: 70 centred base-2 radical inverses, distinct, each
    # in its own cell of width 1/128 (D = 7 digits)
    t = stats.chi2.cdf(r ** 2, d)
    cells = np.floor(t * 128)
    assert len(np.unique(cells)) == s
    np.testing.assert_allclose(t * 128 - cells, 0.5, atol=1e-7)
    # radial measure: chi(d + 2) radii; Matern: F(d, 2 nu) radii
    Wr, _ = make_frequencies("gaussian", 64, 3, sequence="orf-qmc", measure="radial")
    tr = np.sort(stats.chi2.cdf(np.sum(Wr ** 2, axis=1), 5))
    np.testing.assert_allclose(tr, (np.arange(64) + 0.5) / 64, atol=1e-9)
    Wm, _ = make_frequencies("matern", 64, 3, sequence="orf-qmc", nu=2.5)
    tm = np.sort(stats.f.cdf(np.sum(Wm ** 2, axis=1) / 3, 3, 5.0))
    np.testing.assert_allclose(tm, (np.arange(64) + 0.5) / 64, atol=1e-9)
    with pytest.raises(ValueError, match="sequence='orf-qmc' needs a radial measure"):
        make_frequencies("laplacian", 8, 2, sequence="orf-qmc")


def test_orf_qmc_isotropic_criterion_matches_monte_carlo():
    from qmc_orff.sources._orthogonal import _isotropic_criterion
    rng = np.random.default_rng(0)
    s, d = 12, 3
    U = rng.standard_normal((s, d))
    delta = rng.standard_normal((400000, d)) / np.sqrt(d)
    approx = np.cos(delta @ U.T).mean(axis=1)
    k = np.exp(-0.5 * np.sum(delta ** 2, axis=1))
    mc = np.mean((k - approx) ** 2) - np.mean(k ** 2)
    assert _isotropic_criterion(U) == pytest.approx(mc, abs=3e-3)


def test_auto_rule():
    from qmc_orff.sources._orthogonal import ORF_QMC_SEED
    from qmc_orff.sources.frequencies import _auto_source
    assert _auto_source("gaussian", "spectral", 64, 30) == "orf-qmc"
    assert _auto_source("gaussian", "spectral", 320, 10) == "sobol"
    assert _auto_source("gaussian", "spectral", 319, 10) == "orf-qmc"
    assert _auto_source("gaussian", "radial", 1024, 2) == "sobol"
    assert _auto_source("gaussian", "radial", 1024, 40) == "orf-qmc"
    assert _auto_source("laplacian", "spectral", 64, 3) == "halton"
    a, _ = make_frequencies("gaussian", 100, 2)  # s >= 32 d: scrambled Sobol', fixed seed
    b, _ = make_frequencies("gaussian", 100, 2, sequence="sobol", seed=ORF_QMC_SEED)
    np.testing.assert_array_equal(a, b)
    c, _ = make_frequencies("gaussian", 16, 3)
    np.testing.assert_array_equal(c, make_frequencies("gaussian", 16, 3, sequence="orf-qmc")[0])
    h, _ = make_frequencies("laplacian", 16, 3)
    np.testing.assert_array_equal(h, make_frequencies("laplacian", 16, 3, sequence="halton")[0])


def test_weighted_sequence_not_summing_to_one_warns():
    from qmc_orff.sequence import Sequence
    pts = np.random.default_rng(0).standard_normal((4, 2))
    seq = Sequence(pts, np.array([0.1, 0.1, 0.1, 0.2]), {"density": "gaussian"})
    with pytest.warns(UserWarning, match="weights of 'sequence' sum to 0.5, not 1"):
        make_frequencies("gaussian", None, 2, sequence=seq)
    ok = Sequence(pts, np.array([0.1, 0.2, 0.3, 0.4]), {"density": "gaussian"})
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make_frequencies("gaussian", None, 2, sequence=ok)


def test_unit_cube_points_as_an_array_get_a_hint():
    """Unit-cube points given as an array are frequencies: the fit-time check says so."""
    from qmc_orff import FourierFeatures, Sobol
    X = np.random.default_rng(0).standard_normal((50, 5))
    A = Sobol(5, scramble=False).random(32)
    with pytest.warns(UserWarning, match=r"entries all lie in \[0, 1\].*pass the engine itself"):
        FourierFeatures(sequence=A, n_components=None).fit(X)
    with pytest.raises(ValueError, match=r"entries all lie in \[0, 1\]"):
        FourierFeatures(sequence=A, n_components=None, check="raise").fit(X)
    ok = FourierFeatures(sequence=Sobol(5, scramble=False), n_components=32,
                         check="raise").fit(X)  # the engine itself passes the check
    assert np.all(np.isfinite(ok.frequencies_))
