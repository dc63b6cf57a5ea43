"""Training rows that cover the data (:mod:`qmc_orff.designs._coverage`)."""
import numpy as np
import pytest

from qmc_orff import adaptive_sequence
from qmc_orff.designs._coverage import cover_rows, split_cover
from qmc_orff.kernels import Gaussian, Laplacian, Matern

KERNELS = {"gaussian": Gaussian(1.0), "laplacian": Laplacian(1.0), "matern": Matern(1.5, 1.0)}


def _reference_cover(kept, candidates, k, kernel, rng):
    """D^2 seeding written plainly: the whole kernel Gram against every chosen row, each step."""
    kern = KERNELS[kernel]
    chosen = []
    for _ in range(k):
        centres = np.vstack([kept] + [candidates[[i]] for i in chosen])
        dist = np.maximum(1.0 - kern(candidates, centres).max(axis=1), 0.0)
        dist[chosen] = 0.0
        chosen.append(int(rng.choice(candidates.shape[0], p=dist / dist.sum())))
    return np.array(chosen)


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_cover_rows_matches_the_plain_d2_seeding(kernel):
    rng = np.random.default_rng(0)
    Y = rng.standard_normal((300, 4)) * 1.3
    kept, candidates = Y[:100], Y[100:]
    got = cover_rows(kept, candidates, 40, kernel=kernel, nu=1.5, rng=np.random.default_rng(5))
    want = _reference_cover(kept, candidates, 40, kernel, np.random.default_rng(5))
    np.testing.assert_array_equal(got, want)
    assert np.unique(got).size == 40


def test_cover_rows_finds_a_small_far_cluster():
    """Three rows far from 1997 others: 500 uniform training rows miss all three in 42% of
    draws; with a quarter of them covering, none of 10 draws misses them."""
    rng = np.random.default_rng(1)
    Y = np.vstack([rng.standard_normal((1997, 3)), 8.0 + 0.1 * rng.standard_normal((3, 3))])
    far = np.arange(1997, 2000)
    uniform_hits = cover_hits = 0
    for seed in range(10):
        r = np.random.default_rng(seed)
        idx = r.permutation(2000)
        uniform_hits += np.isin(idx[:500], far).any()
        kept, candidates = idx[:375], idx[375:]
        got = candidates[cover_rows(Y[kept], Y[candidates], 125, kernel="gaussian", nu=1.5,
                                    rng=r)]
        cover_hits += np.isin(np.concatenate([kept, got]), far).any()
    assert cover_hits == 10 and uniform_hits < 10


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_cover_rows_without_kept_rows_starts_uniformly(kernel):
    """coverage=1: no kept row, every candidate at distance inf (no NaN from the kernel)."""
    Y = np.random.default_rng(0).standard_normal((50, 3))
    with np.errstate(all="raise"):
        got = cover_rows(Y[:0], Y, 10, kernel=kernel, nu=1.5, rng=np.random.default_rng(0))
    assert np.unique(got).size == 10
    X = np.random.default_rng(1).standard_normal((400, 3))
    seq = adaptive_sequence(X, 8, kernel=kernel, sigma=1.0, coverage=1.0, n_train=100,
                            n_validation=50, maxiter=5, seed=0,
                            init="mc" if kernel == "laplacian" else "orf")
    assert seq.meta["n_cover"] == 100


def test_cover_rows_on_duplicates_draws_uniformly():
    Y = np.ones((50, 3))
    got = cover_rows(Y[:10], Y[10:], 20, kernel="gaussian", nu=1.5,
                     rng=np.random.default_rng(0))
    assert np.unique(got).size == 20 and got.max() < 40


def test_split_cover_keeps_the_subsamples_disjoint_and_reads_few_rows():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((100_000, 5))
    idx = rng.choice(X.shape[0], 750, replace=False)
    train, val = np.sort(idx[:500]), np.sort(idx[500:])

    class Counting(np.ndarray):  # the rows read, through fancy indexing
        read = 0

        def __getitem__(self, key):
            out = super().__getitem__(key)
            if isinstance(key, np.ndarray):  # rows drawn by index, not slices of them
                Counting.read += key.size
            return out

    got, k = split_cover(X.view(Counting), 2.0, train, val, 0.25, kernel="gaussian", nu=1.5,
                         rng=np.random.default_rng(3))
    assert k == 125 and got.size == 500 and np.all(np.diff(got) > 0)
    assert np.intersect1d(got, val).size == 0
    assert np.intersect1d(got, train).size >= 375  # the kept rows (dropped ones may return)
    assert Counting.read <= 375 + 8 * 125  # the kept rows and the candidates, not all of X


def test_split_cover_without_spare_rows_changes_nothing():
    X = np.random.default_rng(0).standard_normal((60, 2))
    train, val = np.arange(48), np.arange(48, 60)
    got, k = split_cover(X, 1.0, train, val, 0.5, kernel="gaussian", nu=1.5,
                         rng=np.random.default_rng(0))
    assert k == 0 and got is train


def test_adaptive_sequence_coverage_meta_bits_and_bad_input():
    X = np.random.default_rng(4).standard_normal((1500, 3))
    kw = dict(sigma="median", seed=7, maxiter=20, n_train=200, n_validation=100)
    seq = adaptive_sequence(X, 16, **kw)
    assert seq.meta["coverage"] == 0.25 and seq.meta["n_cover"] == 50
    again = adaptive_sequence(X, 16, **kw)
    np.testing.assert_array_equal(seq.points, again.points)
    uniform = adaptive_sequence(X, 16, coverage=0.0, **kw)
    assert uniform.meta["n_cover"] == 0
    assert not np.array_equal(uniform.points, seq.points)
    # the bandwidth comes from the uniform rows: the same with and without covering rows
    assert uniform.meta["sigma"] == seq.meta["sigma"]
    small = adaptive_sequence(X[:300], 16, **kw)  # 60 validation rows, 240 left: all train
    assert small.meta["n_cover"] == 40 and small.meta["n_train"] == 200
    for bad, err in ((-0.1, ValueError), (1.5, ValueError), (float("nan"), ValueError),
                     (True, TypeError), ("0.5", TypeError)):
        with pytest.raises(err, match="'coverage' must be a number in \\[0, 1\\]"):
            adaptive_sequence(X, 4, coverage=bad, **kw)
