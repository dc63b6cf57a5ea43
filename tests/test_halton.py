"""Tests of qmc_orff.generators.Halton."""
import math

import numpy as np
import pytest
from scipy.stats import qmc

from _qmc_engine_common import EngineChecks
from qmc_orff.generators import Halton
from qmc_orff.generators import _halton
from qmc_orff.generators.halton import first_primes, rr2_permutation


# --- plain numpy / Python references (never imported by the package) ---------

def ref_primes(d):
    out, c = [], 2
    while len(out) < d:
        if all(c % p for p in out if p * p <= c):
            out.append(c)
        c += 1
    return np.array(out)


def ref_rr2(b):
    # Kocis & Whiten (1997): 0 .. 2^k - 1 in bit-reversed order, keep those < b
    k = max(1, math.ceil(math.log2(b)))
    rev = [int(format(i, f"0{k}b")[::-1], 2) for i in range(2 ** k)]
    return [r for r in rev if r < b]


def ref_halton_permuted(idx, bases, perms_per_dim, counts):
    """Digit-permuted radical inverse, summed least significant digit first."""
    out = np.zeros((len(idx), len(bases)))
    for j, b in enumerate(bases):
        w = 1.0 / b
        q = np.array(idx, dtype=np.int64)
        for k in range(counts[j]):
            out[:, j] += perms_per_dim[j][k][q % b] * w
            w /= b
            q //= b
    return out


# --- shared engine behaviour ----------------------------------------------------

class TestPlainEngine(EngineChecks):
    def make(self, d):
        return Halton(d)


class TestRandomEngine(EngineChecks):
    def make(self, d):
        return Halton(d, scramble=True, seed=7)


class TestDeterministicEngine(EngineChecks):
    def make(self, d):
        return Halton(d, scramble="deterministic")


# --- exactness against SciPy ----------------------------------------------------

@pytest.mark.parametrize("d", [1, 2, 10, 64, 1000])
def test_plain_equals_scipy(d):
    n = 2 ** 14 if d <= 64 else 2 ** 10
    ours, theirs = Halton(d), qmc.Halton(d, scramble=False)
    np.testing.assert_array_equal(ours.random(n), theirs.random(n))
    # continuing, after fast_forward and after reset
    ours.fast_forward(1000)
    theirs.fast_forward(1000)
    np.testing.assert_array_equal(ours.random(777), theirs.random(777))
    ours.reset()
    theirs.reset()
    np.testing.assert_array_equal(ours.random(100), theirs.random(100))


def test_plain_first_points():
    # Halton (1960): radical inverses in bases 2 and 3
    np.testing.assert_array_equal(
        Halton(2).random(5),
        [[0, 0], [1 / 2, 1 / 3], [1 / 4, 2 / 3], [3 / 4, 1 / 9], [1 / 8, 4 / 9]])


@pytest.mark.parametrize("d", [1, 5, 64, 300])
def test_random_scramble_equals_scipy_with_same_seed(d):
    # Same permutations (drawn in SciPy's order) and same summation: identical.
    n = 4096 if d <= 64 else 512
    ours = Halton(d, scramble=True, seed=20240611)
    theirs = qmc.Halton(d, scramble=True, rng=20240611)
    np.testing.assert_array_equal(ours.random(n), theirs.random(n))
    ours.fast_forward(123)
    theirs.fast_forward(123)
    np.testing.assert_array_equal(ours.random(100), theirs.random(100))


def test_large_index_matches_scipy():
    ours, theirs = Halton(4), qmc.Halton(4, scramble=False)
    ours.fast_forward(2 ** 40 + 3)
    theirs.num_generated = 2 ** 40 + 3   # SciPy's draw is stateless in the index too
    np.testing.assert_array_equal(ours.random(50), theirs.random(50))


# --- scrambling -------------------------------------------------------------------

def test_random_scramble_reproducible_and_seed_dependent():
    a = Halton(6, scramble=True, seed=1).random(64)
    b = Halton(6, scramble="random", seed=1).random(64)
    c = Halton(6, scramble=True, seed=2).random(64)
    np.testing.assert_array_equal(a, b)
    assert not np.any(np.all(a == c, axis=0))   # every coordinate differs


def test_random_scramble_generator_is_spawned_not_consumed():
    g = np.random.default_rng(3)
    state = g.bit_generator.state
    Halton(3, scramble=True, seed=g).random(8)
    assert g.bit_generator.state == state


def test_random_scramble_stratified():
    # Each digit permutation keeps the van der Corput stratification:
    # the first b^k points hit every interval [i b^-k, (i+1) b^-k) once.
    x = Halton(3, scramble=True, seed=11).random(2 ** 6 * 3 ** 0)
    for j, b, k in [(0, 2, 6), (1, 3, 3), (2, 5, 2)]:
        m = b ** k
        cells = np.floor(x[:m, j] * m).astype(int)
        np.testing.assert_array_equal(np.sort(cells), np.arange(m))


@pytest.mark.parametrize("b", [2, 3, 5, 7, 11, 13, 97, 101, 7919])
def test_rr2_permutation(b):
    perm = rr2_permutation(b)
    assert perm.tolist() == ref_rr2(b)
    assert sorted(perm.tolist()) == list(range(b))


def test_rr2_small_bases_by_hand():
    # bit-reversal of 0..7 is 0 4 2 6 1 5 3 7
    assert rr2_permutation(3).tolist() == [0, 2, 1]
    assert rr2_permutation(5).tolist() == [0, 4, 2, 1, 3]
    assert rr2_permutation(7).tolist() == [0, 4, 2, 6, 1, 5, 3]


def test_rr2_matches_matlab_documentation():
    # MATLAB documentation of `scramble` (Statistics and Machine Learning
    # Toolbox): p = haltonset(3,'Skip',1e3,'Leap',1e2); p = scramble(p,'RR2');
    # X0 = net(p,4) prints (4 decimals) the values below.  Skip 1000 and leap 100
    # select the (zero-based) indices 1000, 1101, 1202, 1303.
    matlab = np.array([[0.0928, 0.6950, 0.0029],
                       [0.6958, 0.2958, 0.8269],
                       [0.3013, 0.6497, 0.4141],
                       [0.9087, 0.7883, 0.2166]])
    e = Halton(3, scramble="deterministic").fast_forward(1000)
    x = e.random(304)[::101]
    np.testing.assert_allclose(x, matlab, rtol=0, atol=5e-5)


def test_rr2_equals_numpy_reference():
    d = 12
    e = Halton(d, scramble="deterministic")
    e.fast_forward(5000)
    got = e.random(3000)
    bases = ref_primes(d)
    counts = [math.ceil(54 / math.log2(b)) - 1 for b in bases]
    perms = [[np.array(ref_rr2(b))] * counts[j] for j, b in enumerate(bases)]
    ref = ref_halton_permuted(np.arange(5000, 8000), bases, perms, counts)
    np.testing.assert_array_equal(got, ref)
    assert np.all(Halton(d, scramble="deterministic").random(1) == 0.0)


# --- kernels: chunked/parallel equals serial ---------------------------------------

def test_plain_kernel_chunking_invariant():
    e = Halton(7)
    serial = np.empty((5000, 7))
    chunked = np.empty((5000, 7))
    _halton.halton_plain(12345, 5000, e.base, e._weights, 5000, serial)
    _halton.halton_plain(12345, 5000, e.base, e._weights, 7, chunked)
    np.testing.assert_array_equal(serial, chunked)


def test_permuted_kernel_chunking_invariant():
    e = Halton(7, scramble=True, seed=4)
    args = (e.base, e._weights, e._counts, e._offsets, e._strides, e._perms)
    serial = np.empty((3000, 7))
    chunked = np.empty((3000, 7))
    _halton.halton_permuted(999, 3000, *args, 3000, serial)
    _halton.halton_permuted(999, 3000, *args, 13, chunked)
    np.testing.assert_array_equal(serial, chunked)


# --- primes and input validation ---------------------------------------------------

@pytest.mark.parametrize("d", [1, 2, 5, 6, 7, 100, 1000, 1229])
def test_first_primes(d):
    np.testing.assert_array_equal(first_primes(d), ref_primes(d))


def test_first_primes_large():
    p = first_primes(10000)
    assert p[-1] == 104729   # the 10000th prime
    assert np.all(np.diff(p) > 0)


def test_bad_dimension():
    with pytest.raises(ValueError, match="'d' must be >= 1; got 0"):
        Halton(0)
    with pytest.raises(TypeError, match="'d' must be an integer >= 1; got 2.0"):
        Halton(2.0)


def test_bad_scramble():
    with pytest.raises(ValueError, match="'scramble' must be one of False, True, 'random', "
                                         "'deterministic'; got 'rr2'"):
        Halton(2, scramble="rr2")


def test_bad_seed():
    with pytest.raises(TypeError, match="'seed' must be None, an int"):
        Halton(2, scramble=True, seed="abc")


def test_plain_equals_numpy_reference():
    d = 9
    e = Halton(d).fast_forward(10 ** 6)
    got = e.random(500)
    bases = ref_primes(d)
    ident = [[np.arange(b)] * 64 for b in bases]
    ref = ref_halton_permuted(np.arange(10 ** 6, 10 ** 6 + 500), bases, ident, [64] * d)
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("make_seed", [
    lambda: 12, lambda: np.random.SeedSequence(12), lambda: np.random.PCG64(12),
    lambda: np.random.default_rng(12)])
def test_seed_accepts_what_scipy_rng_accepts(make_seed):
    ours = Halton(4, scramble=True, seed=make_seed()).random(64)
    theirs = qmc.Halton(4, scramble=True, rng=make_seed()).random(64)
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("scramble", [False, True, "deterministic"])
def test_parallel_equals_one_thread(scramble):
    numba = pytest.importorskip("numba")
    e = Halton(11, scramble=scramble, seed=6)
    par = e.random(20000)
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        ser = e.reset().random(20000)
    finally:
        numba.set_num_threads(old)
    np.testing.assert_array_equal(par, ser)
