"""gram_error against an independent dense computation."""
import numpy as np
import pytest
from sklearn.kernel_approximation import Nystroem, RBFSampler

from qmc_orff import ORFF, FourierFeatures, gram_error
from qmc_orff.kernels import Gaussian


def _dense_scalar_error(W, xi, X, sigma, norm):
    # K~_ij = sum_l xi_l cos(w_l . (x_i - x_j)), written from the definition
    diff = X[:, None, :] - X[None, :, :]
    approx = np.einsum("l,ijl->ij", xi, np.cos(diff @ W.T))
    exact = np.exp(-np.sum(diff ** 2, axis=2) / (2 * sigma ** 2))
    E = approx - exact
    if norm == "fro":
        return np.sqrt(np.sum(E ** 2)) / np.sqrt(np.sum(exact ** 2))
    return np.max(np.abs(np.linalg.eigvalsh(E))) / np.max(np.linalg.eigvalsh(exact))


@pytest.mark.parametrize("norm", ["fro", "spectral"])
def test_scalar_matches_definition(norm):
    X = np.random.default_rng(1).normal(size=(60, 3))
    ff = FourierFeatures(sigma=1.5, n_components=40, sequence="mc", seed=2).fit(X)
    expected = _dense_scalar_error(ff.frequencies_, ff.weights_, X, 1.5, norm)
    assert gram_error(ff, X, norm=norm) == pytest.approx(expected, rel=1e-10)


def test_operator_matches_block_definition():
    X = np.random.default_rng(3).uniform(-1, 1, size=(25, 2))
    orff = ORFF("curl_free", sigma=0.7, n_components=30, sequence="mc", seed=4).fit(X)
    W, xi = orff.frequencies_, orff.weights_
    n, p = X.shape[0], 2
    approx = np.zeros((n * p, n * p))
    for i in range(n):
        for j in range(n):
            c = np.cos(W @ (X[i] - X[j]))
            approx[i * p:(i + 1) * p, j * p:(j + 1) * p] = np.einsum("l,la,lb->ab", xi * c, W, W)
    exact = orff.kernel_.block(X)
    expected = np.linalg.norm(approx - exact) / np.linalg.norm(exact)
    assert gram_error(orff, X) == pytest.approx(expected, rel=1e-10)


def test_exact_map_has_zero_error_and_error_decreases_with_width():
    X = np.random.default_rng(5).normal(size=(80, 4))
    errs = [gram_error(FourierFeatures(sigma=2.0, n_components=s, sequence="orf", seed=0).fit(X), X)
            for s in (8, 512)]
    assert errs[1] < errs[0] / 3


def test_sklearn_maps_with_explicit_kernel():
    X = np.random.default_rng(6).normal(size=(70, 3))
    sigma = 1.3
    gamma = 1 / (2 * sigma ** 2)
    nys = Nystroem(gamma=gamma, n_components=70, random_state=0).fit(X)  # all points: exact
    assert gram_error(nys, X, kernel=Gaussian(sigma)) < 1e-6
    rbf = RBFSampler(gamma=gamma, n_components=64, random_state=0).fit(X)
    assert 0.01 < gram_error(rbf, X, kernel=Gaussian(sigma)) < 1.0
    with pytest.raises(TypeError, match="'kernel' must be given"):
        gram_error(rbf, X)


def test_sampling_is_seeded_and_bounded():
    X = np.random.default_rng(7).normal(size=(300, 3))
    ff = FourierFeatures(sigma=2.0, n_components=16, sequence="orf", seed=0).fit(X)
    a = gram_error(ff, X, n_samples=50, seed=3)
    assert a == gram_error(ff, X, n_samples=50, seed=3)
    assert a != gram_error(ff, X, n_samples=50, seed=4)
    idx = np.sort(np.random.default_rng(3).choice(300, 50, replace=False))
    assert a == gram_error(ff, X[idx], n_samples=50)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"norm": "nuc"}, ValueError, "'norm' must be one of"),
    ({"n_samples": 1}, ValueError, "'n_samples' must be >= 2"),
    ({"n_samples": 2.5}, TypeError, "'n_samples' must be an integer"),
])
def test_bad_arguments(kwargs, exc, match):
    X = np.random.default_rng(8).normal(size=(10, 2))
    ff = FourierFeatures(n_components=4, sequence="orf", seed=0).fit(X)
    with pytest.raises(exc, match=match):
        gram_error(ff, X, **kwargs)


def test_bad_data():
    X = np.random.default_rng(9).normal(size=(10, 2))
    ff = FourierFeatures(n_components=4, sequence="orf", seed=0).fit(X)
    with pytest.raises(ValueError, match="'X' must contain only finite"):
        gram_error(ff, np.full((3, 2), np.nan))
    with pytest.raises(ValueError, match="at least 2 rows"):
        gram_error(ff, X[:1])
    with pytest.raises(ValueError, match="'X' must be a 2-D array"):
        gram_error(ff, X[0])
