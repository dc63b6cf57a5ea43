"""The exact kernels' pairwise distances (numba, ``qmc_orff._distances``) against numpy."""
import numba
import numpy as np
import pytest

from qmc_orff import _distances, set_num_threads
from qmc_orff.kernels import Gaussian, Laplacian, Matern, _abs_dists, _sq_dists

EPS = 2.0 ** -52


def reference(X, Z, which):
    """The numpy broadcasting the kernels replaced: explicit differences, ``(n, m, d)``."""
    diff = X[:, None, :] - Z[None, :, :]
    return np.sum(diff * diff, axis=2) if which == "sq" else np.sum(np.abs(diff), axis=2)


@pytest.mark.parametrize("which", ["sq", "abs"])
@pytest.mark.parametrize("shape", [(1, 1, 1), (7, 3, 2), (40, 33, 65), (300, 250, 9)])
def test_distances_match_the_numpy_reference(which, shape):
    """Within the rounding of a sum of d nonnegative terms, each side: 2 (d - 1) eps of the
    value, elementwise; the same bits from the serial and the parallel build."""
    n, m, d = shape
    rng = np.random.default_rng(n + m + d)
    X, Z = rng.normal(size=(n, d)) * 3.0, rng.normal(size=(m, d))
    ref = reference(X, Z, which)
    got = _sq_dists(X, Z) if which == "sq" else _abs_dists(X, Z)
    assert got.shape == (n, m) and got.dtype == np.float64
    assert np.all(np.abs(got - ref) <= 2 * max(d - 1, 1) * EPS * ref)
    ZT = np.ascontiguousarray(Z.T)
    par, ser = np.empty((n, m)), np.empty((n, m))
    getattr(_distances, f"{which}_dists")(X, ZT, par)
    getattr(_distances, f"{which}_dists_serial")(X, ZT, ser)
    np.testing.assert_array_equal(par, ser)
    np.testing.assert_array_equal(par, got)


def test_distances_keep_every_digit_of_nearby_points():
    """The differences are formed explicitly: points 1e-9 apart at coordinates near 1e3 keep
    their squared distance to the rounding of the differences themselves (the expansion
    |x|^2 + |z|^2 - 2 x.z returns 0 or noise there)."""
    rng = np.random.default_rng(1)
    X = 1e3 + rng.random((20, 5))
    delta = rng.normal(size=(20, 5)) * 1e-9
    Z = X + delta
    exact = np.sum((Z - X) ** 2, axis=1)  # the rounded differences, squared and summed
    got = np.diagonal(_sq_dists(X, Z))
    np.testing.assert_allclose(got, exact, rtol=8 * EPS)
    assert np.all(got > 0)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs NUMBA_NUM_THREADS >= 2")
def test_distances_same_bits_whatever_the_thread_count():
    """Rows split between threads, each sum in coordinate order: 1 and 2 threads agree."""
    rng = np.random.default_rng(2)
    X, Z = rng.normal(size=(300, 64)), rng.normal(size=(200, 64))
    try:
        set_num_threads(1)
        one = (_sq_dists(X, Z), _abs_dists(X, Z))
        set_num_threads(2)
        two = (_sq_dists(X, Z), _abs_dists(X, Z))
    finally:
        set_num_threads(None)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


def test_kernels_on_strided_and_empty_inputs():
    """Views (non-contiguous rows or columns) give the contiguous arrays' values; no rows, an
    empty Gram matrix."""
    rng = np.random.default_rng(3)
    big = rng.normal(size=(30, 12))
    X, Z = big[::2, ::3], big[1::3, ::3]
    for kernel in (Gaussian(1.5), Laplacian(2.0), Matern(2.5, 1.5)):
        np.testing.assert_array_equal(kernel(X, Z), kernel(X.copy(), Z.copy()))
    assert _sq_dists(np.empty((0, 4)), np.ones((3, 4))).shape == (0, 3)
