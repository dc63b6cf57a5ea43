"""Absurd sizes, extreme values and wrong types on the public API (issue 11, items 8-11).

Contract: a documented maximum for every size, checked before anything is
allocated; never a silent NaN/inf (compute finitely or raise ``ValueError``
naming the input); wrong types raise ``TypeError`` naming the parameter.
The engines' own size and index checks are in test_halton.py / test_sobol.py;
the whole-API fuzz campaign is ``benchmarks/fuzz_api.py`` (run here as a slow test).
"""
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import qmc_orff as q
from qmc_orff import kernels as K
from qmc_orff.generators import Halton, Lattice, Sobol, cbc_lattice, worst_case_error
from qmc_orff.objectives.weights import solve_weights_qp

W4 = np.array([[0.1, -0.3, 0.2], [0.7, 0.2, -0.4], [-0.5, 0.9, 0.3], [1.1, -1.2, 0.6]])
X6 = np.array([[0.1, 0.2], [0.3, -0.1], [1.0, 0.5], [-0.4, 0.8], [0.0, 0.3], [0.6, -0.7]])


@pytest.fixture(autouse=True)
def _no_complex_warning():
    # a ComplexWarning (silent truncation) must never be the answer
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        yield


# --------------------------------------------------------------------------- item 8: sizes
@pytest.mark.parametrize("make", [
    lambda: Halton(2, scramble=False).random(2 ** 40),
    lambda: Sobol(2, scramble=False).random(2 ** 40),
    lambda: Lattice(2).random(2 ** 40),
    lambda: Halton(3, scramble=False).integers(5, n=2 ** 40),
])
def test_engine_n_2_40_is_a_value_error_naming_n(make):
    # used to raise MemoryError (16 TiB requested)
    with pytest.raises(ValueError, match=r"^'n' must be <= \d+"):
        make()


def test_lattice_sequence_size_is_checked_first():
    # used to run past 60 s building a Python list of 2^39 candidates
    obj = q.BoxDiscrepancy(1.0, d=2)
    with pytest.raises(ValueError, match=r"'s' must be <= 8192; got 1099511627776"):
        q.lattice_sequence(obj, 2 ** 40)
    assert q.lattice_sequence(obj, 64).points.shape == (64, 2)


@pytest.mark.parametrize("fn", ["global_sequence", "greedy_sequence", "weighted_sequence"])
def test_design_sizes_are_bounded(fn):
    with pytest.raises(ValueError, match=r"'s' must be <= 8192; got 1099511627776"):
        getattr(q, fn)(q.BoxDiscrepancy(1.0, d=2), 2 ** 40)


def test_frequency_counts_are_bounded():
    with pytest.raises(ValueError, match=r"'n_components' must be <= 134217728 for rows of "
                                         r"width 2"):
        q.make_frequencies("gaussian", 2 ** 40, 2)
    with pytest.raises(ValueError, match=r"'n_components' must be <="):
        q.FourierFeatures(n_components=2 ** 40).fit(X6)
    with pytest.raises(ValueError, match=r"'n_components' must be <="):
        q.ORFF("curl_free", n_components=2 ** 40).fit(X6)
    with pytest.raises(ValueError, match=r"'d' must be <= 1048576"):
        q.make_frequencies("gaussian", 8, 2 ** 40)


@pytest.mark.parametrize("make", [
    lambda: Halton(2 ** 31 + 1),
    lambda: Sobol(2 ** 40),
    lambda: cbc_lattice(64, 10 ** 9),
    lambda: q.BoxDiscrepancy(1.0, d=2 ** 40),
])
def test_dimensions_are_bounded(make):
    # used to allocate 49 GiB (a prime sieve), 7 GiB (CBC weights) or 8 TiB
    with pytest.raises(ValueError, match=r"^'d' must be <= \d+"):
        make()


def test_scrambled_halton_permutation_tables_are_bounded():
    with pytest.raises(ValueError, match="'d' is too large for scramble=True"):
        Halton(20000, scramble=True, rng=0)
    assert Halton(20000, scramble=False).random(2).shape == (2, 20000)   # plain: no tables


# --------------------------------------------------------------------------- item 10: no NaN/inf
def test_box_discrepancy_huge_sigma_gradient_is_rejected():
    # used to return a finite value with an all-NaN gradient
    W = np.random.default_rng(0).normal(size=(8, 3))
    disc = q.BoxDiscrepancy(1.0, sigma=1e200, d=3)
    with pytest.raises(ValueError, match="'sigma' is too large relative to 'b' for gradients"):
        disc.value_and_grad(W)
    assert np.isfinite(disc(W))           # the value alone is representable
    val, grad = q.BoxDiscrepancy(1.0, sigma=1e100, d=3).value_and_grad(W)
    assert np.isfinite(val) and np.all(np.isfinite(grad))


def test_box_discrepancy_huge_weights_are_rejected():
    # used to give D^2 = inf
    disc = q.BoxDiscrepancy(1.0, d=3)
    for call in (disc, disc.value_and_grad):
        with pytest.raises(ValueError, match=r"'weights' must sum to at most 1e\+150; got sum"):
            call(W4, np.full(4, 1e300))
    # below the bound: finite, and equal to the quadratic form built from the QP pieces
    xi = np.array([1e70, 3e70, 2e70, 5e69])
    d2, grad, grad_w = disc.value_and_grad(W4, xi)
    quad = disc.constant(3) - 2 * disc.linear_term(W4) @ xi + xi @ disc.pair_matrix(W4) @ xi
    assert np.isfinite(d2) and np.all(np.isfinite(grad)) and np.all(np.isfinite(grad_w))
    np.testing.assert_allclose(d2, quad, rtol=1e-12)


def test_cbc_huge_weights_are_rejected():
    # used to return NaN (return_error=True) or a bare "zero-size array" error
    with pytest.raises(ValueError, match="'weights' are too large"):
        cbc_lattice(64, 3, weights=1e300, return_error=True)
    with pytest.raises(ValueError, match="'weights' are too large"):
        worst_case_error([1, 19, 27], 64, weights=1e300)
    # large but representable: finite, and the fast error equals the direct O(n d) sum
    z, err = cbc_lattice(64, 3, weights=1e80, return_error=True)
    assert np.isfinite(err)
    np.testing.assert_allclose(err, worst_case_error(z, 64, weights=1e80), rtol=1e-10)


@pytest.mark.parametrize("dtype, big", [(np.float64, 1e308), (np.float32, 3e38)])
def test_fourier_features_near_float_max_are_rejected(dtype, big):
    # used to return NaN features (the phases X @ W.T overflow); sigma = 0.1: frequencies
    # about 10, so that big * w overflows (phases that stay finite are accepted)
    ff = q.FourierFeatures(n_components=16, sigma=0.1, seed=0).fit(X6)
    with pytest.raises(ValueError, match="'X' is too large for these frequencies"):
        ff.transform(np.full((3, 2), big, dtype=dtype))
    assert np.all(np.isfinite(ff.transform(np.full((3, 2), 1e10, dtype=dtype))))
    orff = q.ORFF("curl_free", n_components=4, sigma=0.1, seed=0).fit(X6)
    with pytest.raises(ValueError, match="'X' is too large for these frequencies"):
        orff.transform(np.full((3, 2), 1e308))


@pytest.mark.parametrize("make", [
    lambda: K.Gaussian(1e-320)(X6),
    lambda: K.Laplacian(1e-320)(X6),
    lambda: K.Matern(1e300, 1.0)(X6),
    lambda: K.CurlFree(1e-300)(X6),
    lambda: K.DivFree(1e200)(X6),
])
def test_kernels_never_return_nan(make):
    # used to return NaN Gram matrices, or an OverflowError for CurlFree(1e200)
    with pytest.raises(ValueError, match="sigma|not finite"):
        make()


def test_tiny_box_global_design_is_rejected():
    # used to raise ZeroDivisionError
    with pytest.raises(ValueError, match="'objective' has a box too small for float64"):
        q.global_sequence(q.BoxDiscrepancy(1e-150, d=2), 8, maxiter=2)


def test_qp_constant_is_checked():
    with pytest.raises(ValueError, match="'constant' must be a finite real number; got nan"):
        solve_weights_qp(np.eye(3), np.ones(3), constant=np.nan)
    with pytest.raises(TypeError, match="'constant' must be a finite real number; got '1'"):
        solve_weights_qp(np.eye(3), np.ones(3), constant="1")


# --------------------------------------------------------------------------- item 11: types
@pytest.mark.parametrize("make, name", [
    (lambda: q.BoxDiscrepancy(1.0, d=3)(W4 + 0j), "W"),
    (lambda: q.BoxDiscrepancy(np.array([1.0 + 0j, 2.0])), "b"),
    (lambda: q.BoxDiscrepancy(1.0, sigma=np.array([1.0, 2.0], dtype=complex)), "sigma"),
    (lambda: q.BoxDiscrepancy(1.0, d=3)(W4, np.ones(4, dtype=complex)), "weights"),
    (lambda: K.Gaussian(1.0)(X6 + 0j), "X"),
    (lambda: q.make_frequencies("gaussian", 8, 2, sigma=np.array([1.0, 1.0], dtype=complex)),
     "sigma"),
    (lambda: q.ORFF("curl_free", sigma=1 + 0j).fit(X6), "sigma"),
    (lambda: q.gram_error(q.FourierFeatures(n_components=4, seed=0).fit(X6), X6 + 0j), "X"),
])
def test_complex_is_a_type_error_not_a_truncation(make, name):
    # used to warn (ComplexWarning) and drop the imaginary part
    # (the estimators' parameters: scikit-learn's InvalidParameterError, a TypeError naming it)
    with pytest.raises(TypeError, match=f"'{name}' (must be (a )?real|parameter of \\w+ must be)"):
        make()


@pytest.mark.parametrize("make, name", [
    (lambda: q.BoxDiscrepancy(True, d=2), "b"),
    (lambda: q.BoxDiscrepancy(1.0, sigma=True, d=2), "sigma"),
    (lambda: q.BoxDiscrepancy(np.array([True, True])), "b"),
    (lambda: K.Gaussian(True), "sigma"),
    (lambda: K.CurlFree(True), "sigma"),
    (lambda: q.make_frequencies("gaussian", 8, 2, sigma=True), "sigma"),
    (lambda: q.FourierFeatures(sigma=True).fit(X6), "sigma"),
    (lambda: q.ORFF("curl_free", sigma=True).fit(X6), "sigma"),
    (lambda: cbc_lattice(64, 2, weights=True), "weights"),
    (lambda: Halton(2, scramble=True, seed=True), "seed"),
    (lambda: Sobol(True), "d"),
])
def test_bool_is_rejected_everywhere(make, name):
    # sigma=True / b=True used to be accepted as 1.0 in some functions
    with pytest.raises(TypeError, match=f"'{name}' must be"):
        make()


def test_wrong_objects_are_type_errors():
    # used to raise AttributeError / UFuncTypeError
    with pytest.raises(TypeError, match="'objective' must be a BoxDiscrepancy; got str"):
        q.optimal_weights("x", W4)
    with pytest.raises(TypeError, match="'y' must contain real numbers; got dtype <U1"):
        q.ORFFRidge().fit(X6, np.array([["a", "b"]] * 6))
    with pytest.raises(TypeError, match="'W' must be a real number or an array of real "
                                        "numbers; got dtype <U"):
        q.BoxDiscrepancy(1.0, d=3)(W4.astype(str))
    with pytest.raises(TypeError, match="'optimization' must be None, 'random-cd' or 'lloyd'"):
        Sobol(2, optimization=1)
    with pytest.raises(TypeError, match="'rng' must be None, an int"):
        Halton(2, scramble=True, rng=2.5)


# --------------------------------------------------------------------------- the fuzz campaign
@pytest.mark.slow
def test_fuzz_campaign_meets_the_floor():
    # 0 silent NaN/inf, 0 hangs, 0 crashes, only ValueError/TypeError over ~1250 cases
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz_api.py"
    res = subprocess.run([sys.executable, str(script), "--timeout", "120"],
                         capture_output=True, text=True, timeout=3600)
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-2000:]
    assert "FLOOR MET" in res.stdout


def test_pandas_na_gets_a_clear_message():
    # a nullable Float64 frame with NA converts to an object array: the message names the
    # missing values (it said "got DataFrame", as for a frame of strings)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": [0.1, None, 1.0, 0.3], "b": [0.2, 0.3, 0.5, 0.1]}, dtype="Float64")
    with pytest.raises(ValueError, match=r"'X' must contain only finite values; got missing "
                       r"values \(pandas NA\) in a DataFrame"):
        q.DataDiscrepancy(frame)
    # without NA the same dtype is accepted, and other objects still get the TypeError
    assert q.DataDiscrepancy(frame.fillna(0.0)).m == 4
    with pytest.raises(TypeError, match="'X' must be an array of real numbers; got DataFrame"):
        q.DataDiscrepancy(pd.DataFrame({"a": ["x", "y"], "b": [1.0, 2.0]}))
