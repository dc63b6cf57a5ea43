"""Tests of qmc_orff.generators.Halton."""
import math

import numpy as np
import pytest
from scipy.stats import qmc

from _qmc_engine_common import SKIP_LEAP, EngineChecks, assert_skip_leap_equal_scipy
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
        return Halton(d, scramble=False)


class TestRandomEngine(EngineChecks):
    def make(self, d):
        return Halton(d, scramble=True, rng=7)


class TestDeterministicEngine(EngineChecks):
    def make(self, d):
        return Halton(d, scramble="deterministic")


# --- exactness against SciPy ----------------------------------------------------

@pytest.mark.parametrize("d", [1, 2, 10, 64, 1000])
def test_plain_equals_scipy(d):
    n = 2 ** 14 if d <= 64 else 2 ** 10
    ours, theirs = Halton(d, scramble=False), qmc.Halton(d, scramble=False)
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
        Halton(2, scramble=False).random(5),
        [[0, 0], [1 / 2, 1 / 3], [1 / 4, 2 / 3], [3 / 4, 1 / 9], [1 / 8, 4 / 9]])


@pytest.mark.parametrize("d", [1, 5, 64, 300])
def test_random_scramble_equals_scipy_with_same_seed(d):
    # Same permutations (drawn in SciPy's order) and same summation: identical.
    n = 4096 if d <= 64 else 512
    ours = Halton(d, scramble=True, rng=20240611)
    theirs = qmc.Halton(d, scramble=True, rng=20240611)
    np.testing.assert_array_equal(ours.random(n), theirs.random(n))
    ours.fast_forward(123)
    theirs.fast_forward(123)
    np.testing.assert_array_equal(ours.random(100), theirs.random(100))


def test_large_index_matches_scipy():
    ours, theirs = Halton(4, scramble=False), qmc.Halton(4, scramble=False)
    ours.fast_forward(2 ** 40 + 3)
    theirs.num_generated = 2 ** 40 + 3   # SciPy's draw is stateless in the index too
    np.testing.assert_array_equal(ours.random(50), theirs.random(50))


# --- scrambling -------------------------------------------------------------------

def test_random_scramble_reproducible_and_seed_dependent():
    a = Halton(6, scramble=True, rng=1).random(64)
    b = Halton(6, scramble="random", rng=1).random(64)
    c = Halton(6, scramble=True, rng=2).random(64)
    np.testing.assert_array_equal(a, b)
    assert not np.any(np.all(a == c, axis=0))   # every coordinate differs


def test_random_scramble_generator_is_spawned_not_consumed():
    g = np.random.default_rng(3)
    state = g.bit_generator.state
    Halton(3, scramble=True, rng=g).random(8)
    assert g.bit_generator.state == state


def test_random_scramble_stratified():
    # Each digit permutation keeps the van der Corput stratification:
    # the first b^k points hit every interval [i b^-k, (i+1) b^-k) once.
    x = Halton(3, scramble=True, rng=11).random(2 ** 6 * 3 ** 0)
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


#: MATLAB documentation of `scramble` (Statistics and Machine Learning Toolbox):
#: p = haltonset(3,'Skip',1e3,'Leap',1e2); p = scramble(p,'RR2'); X0 = net(p,4)
#: prints (4 decimals) these values: the (zero-based) indices 1000, 1101, 1202, 1303.
MATLAB_RR2_SKIP1000_LEAP100 = np.array([[0.0928, 0.6950, 0.0029],
                                        [0.6958, 0.2958, 0.8269],
                                        [0.3013, 0.6497, 0.4141],
                                        [0.9087, 0.7883, 0.2166]])


def test_rr2_matches_matlab_documentation():
    x = Halton(3, scramble="deterministic", skip=1000, leap=100).random(4)
    np.testing.assert_allclose(x, MATLAB_RR2_SKIP1000_LEAP100, rtol=0, atol=5e-5)
    # the same points as the unleaped sequence from index 1000 with a stride of 101
    e = Halton(3, scramble="deterministic").fast_forward(1000)
    np.testing.assert_array_equal(x, e.random(304)[::101])


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

@pytest.mark.parametrize("skip, step", [(0, 1), (1000, 701)])
def test_plain_kernel_chunking_invariant(skip, step):
    e = Halton(7, scramble=False)
    serial = np.empty((5000, 7))
    chunked = np.empty((5000, 7))
    _halton.halton_plain(12345, 5000, skip, step, e.base, e._weights, 5000, serial)
    _halton.halton_plain(12345, 5000, skip, step, e.base, e._weights, 7, chunked)
    np.testing.assert_array_equal(serial, chunked)
    ident = [[np.arange(b)] * 64 for b in e.base.tolist()]
    idx = skip + np.arange(12345, 12345 + 5000) * step
    np.testing.assert_array_equal(serial, ref_halton_permuted(idx, e.base.tolist(), ident,
                                                              [64] * 7))


@pytest.mark.parametrize("skip, step", [(0, 1), (77, 12)])
def test_permuted_kernel_chunking_invariant(skip, step):
    e = Halton(7, scramble=True, rng=4)
    args = (e.base, e._weights, e._counts, e._offsets, e._strides, e._perms)
    serial = np.empty((3000, 7))
    chunked = np.empty((3000, 7))
    _halton.halton_permuted(999, 3000, skip, step, *args, 3000, serial)
    _halton.halton_permuted(999, 3000, skip, step, *args, 13, chunked)
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
    with pytest.raises(ValueError, match="'d' must be >= 0; got -1"):
        Halton(-1)
    with pytest.raises(TypeError, match="'d' must be an integer; got 2.0"):
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
    e = Halton(d, scramble=False).fast_forward(10 ** 6)
    got = e.random(500)
    bases = ref_primes(d)
    ident = [[np.arange(b)] * 64 for b in bases]
    ref = ref_halton_permuted(np.arange(10 ** 6, 10 ** 6 + 500), bases, ident, [64] * d)
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("make_seed", [
    lambda: 12, lambda: np.random.SeedSequence(12), lambda: np.random.PCG64(12),
    lambda: np.random.default_rng(12)])
def test_seed_accepts_what_scipy_rng_accepts(make_seed):
    ours = Halton(4, scramble=True, rng=make_seed()).random(64)
    theirs = qmc.Halton(4, scramble=True, rng=make_seed()).random(64)
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("scramble", [False, True, "deterministic"])
def test_parallel_equals_one_thread(scramble):
    numba = pytest.importorskip("numba")
    e = Halton(11, scramble=scramble, rng=6)
    par = e.random(20000)
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        ser = e.reset().random(20000)
    finally:
        numba.set_num_threads(old)
    np.testing.assert_array_equal(par, ser)


# --- sizes and the index bound (issue 11, items 8 and 9) ----------------------------

def ref_radical_inverse(i, b):
    """Exact radical inverse of the integer i in base b (fractions), as a float."""
    from fractions import Fraction
    x, w = Fraction(0), Fraction(1, b)
    while i > 0:
        i, r = divmod(i, b)
        x += r * w
        w /= b
    return float(x)


def test_index_bound_is_checked_before_drawing():
    # indices >= 2^63 used to give silently wrong points ([0, 0] for 2^64 - 2)
    with pytest.raises(ValueError, match=r"At most 2\*\*53=9007199254740992 Halton points"):
        Halton(2, scramble=False).fast_forward(2 ** 64 - 2)
    e = Halton(2, scramble=False).fast_forward(2 ** 53 - 1)
    last = e.random(1)          # index 2^53 - 1: the last one allowed
    np.testing.assert_allclose(   # exact value, up to float64 summation
        last, [[ref_radical_inverse(2 ** 53 - 1, 2), ref_radical_inverse(2 ** 53 - 1, 3)]],
        rtol=0, atol=1e-15)
    with pytest.raises(ValueError, match=r"n=9007199254740992\+1=9007199254740993"):
        e.random(1)
    with pytest.raises(ValueError, match="At most 2"):
        Halton(3, scramble=True, rng=1).fast_forward(2 ** 52).fast_forward(2 ** 52 + 1)
    assert _halton.MAX_DIGITS >= 54   # every index < 2^53 fits the digit buffers


@pytest.mark.parametrize("scramble", [False, True, "deterministic"])
def test_points_near_the_index_bound_equal_reference(scramble):
    start = 2 ** 53 - 40
    e = Halton(5, scramble=scramble, rng=3).fast_forward(start)
    got = e.random(40)
    if scramble is False:
        exact = [[ref_radical_inverse(i, b) for b in (2, 3, 5, 7, 11)]
                 for i in range(start, start + 40)]
        np.testing.assert_allclose(got, exact, rtol=0, atol=1e-15)
        ident = [[np.arange(b)] * 64 for b in (2, 3, 5, 7, 11)]
        ref = ref_halton_permuted(np.arange(start, start + 40), [2, 3, 5, 7, 11], ident, [64] * 5)
        np.testing.assert_array_equal(got, ref)
    else:
        bases = ref_primes(5)
        counts = [math.ceil(54 / math.log2(b)) - 1 for b in bases]
        if scramble is True:
            g = Halton(5, scramble=True, rng=3)
            perms = [g._perms[g._offsets[j]:g._offsets[j] + counts[j] * b].reshape(counts[j], b)
                     for j, b in enumerate(bases)]
        else:
            perms = [[np.array(ref_rr2(b))] * counts[j] for j, b in enumerate(bases)]
        ref = ref_halton_permuted(np.arange(start, start + 40), bases, perms, counts)
        np.testing.assert_array_equal(got, ref)


def test_huge_n_is_a_value_error_naming_n():
    # used to try to allocate 16 TiB (MemoryError)
    with pytest.raises(ValueError,
                       match=r"'n' must be <= 134217728 for rows of width 2 \(at most 2\*\*28"):
        Halton(2, scramble=False).random(2 ** 40)
    with pytest.raises(ValueError, match=r"'n' must be <="):
        Halton(2, scramble=False).integers(5, n=2 ** 40)
    with pytest.raises(TypeError, match="'n' must be an integer; got True"):
        Halton(2, scramble=False).random(True)


# --- SciPy's keywords: rng, seed (legacy), optimization, d = 0 (issue 11, item 12) ----

@pytest.mark.parametrize("make_seed", [lambda: 42, lambda: np.int64(42),
                                       lambda: np.random.default_rng(42),
                                       lambda: np.random.RandomState(42)])
def test_legacy_seed_has_scipy_meaning(make_seed):
    ours = Halton(3, scramble=True, seed=make_seed()).random(64)
    theirs = qmc.Halton(3, scramble=True, seed=make_seed()).random(64)
    np.testing.assert_array_equal(ours, theirs)


def test_seed_and_rng_differ_as_in_scipy():
    # SciPy: seed=42 -> default_rng(42) used directly; rng=42 -> a child of it
    a = Halton(2, scramble=True, seed=42).random(8)
    b = Halton(2, scramble=True, rng=42).random(8)
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(b, qmc.Halton(2, scramble=True, rng=42).random(8))


def test_seed_rng_errors():
    with pytest.raises(TypeError, match=r"Halton\(\) got multiple values for argument now known as `rng`"):
        Halton(2, rng=1, seed=1)
    with pytest.raises(TypeError, match="a legacy RandomState is accepted only as 'seed'"):
        Halton(2, scramble=True, rng=np.random.RandomState(1))
    with pytest.raises(TypeError, match="use 'rng' for a SeedSequence"):
        Halton(2, scramble=True, seed=np.random.SeedSequence(1))
    with pytest.raises(TypeError, match="'seed' must be None, an int"):
        Halton(2, scramble=True, seed=True)
    with pytest.raises(ValueError, match="'seed' must be a nonnegative int; got -3"):
        Halton(2, scramble=True, seed=-3)
    with pytest.raises(ValueError, match="'rng' must be None, a nonnegative int"):
        Halton(2, scramble=True, rng=-3)


def test_reset_with_random_state_reproduces():
    e = Halton(3, scramble=True, seed=np.random.RandomState(9))
    first = e.random(16)
    np.testing.assert_array_equal(e.reset().random(16), first)


@pytest.mark.parametrize("optimization", ["random-cd", "lloyd"])
def test_optimization_equals_scipy(optimization):
    ours = Halton(2, scramble=True, optimization=optimization, rng=5).random(32)
    theirs = qmc.Halton(2, scramble=True, optimization=optimization, rng=5).random(32)
    np.testing.assert_array_equal(ours, theirs)
    with pytest.raises(ValueError, match="'toto' is not a valid optimization method"):
        Halton(2, optimization="toto")


@pytest.mark.parametrize("scramble", [False, True, "deterministic"])
def test_zero_dimension(scramble):
    e = Halton(0, scramble=scramble, rng=1)
    assert e.random(5).shape == (5, 0)
    assert e.num_generated == 5


# --- skip and leap (MATLAB's haltonset 'Skip' and 'Leap') --------------------------

class TestLeapedEngine(EngineChecks):
    def make(self, d):
        return Halton(d, scramble="deterministic", skip=1000, leap=700)


@pytest.mark.parametrize("skip, leap", SKIP_LEAP)
def test_skip_leap_equal_scipy_unscrambled(skip, leap):
    assert_skip_leap_equal_scipy(Halton, qmc.Halton, 40, 6, skip, leap)


def ref_plain(idx, d):
    """Unscrambled Halton points of the indices ``idx`` (the identity digit permutation)."""
    bases = ref_primes(d)
    return ref_halton_permuted(np.asarray(idx, dtype=np.int64), bases,
                               [[np.arange(b)] * 64 for b in bases], [64] * d)


def test_skip_leap_far_indices_equal_reference():
    skip, leap, d = 2 ** 40 + 3, 3 ** 20, 5
    got = Halton(d, scramble=False, skip=skip, leap=leap).random(5)
    np.testing.assert_array_equal(got, ref_plain(skip + np.arange(5) * (leap + 1), d))


@pytest.mark.parametrize("scramble", [True, "deterministic"])
def test_scrambles_apply_to_leaped_points_as_to_the_same_indices(scramble):
    skip, leap, n, d = 333, 50, 30, 8
    got = Halton(d, scramble=scramble, rng=11, skip=skip, leap=leap).random(n)
    full = Halton(d, scramble=scramble, rng=11).random(skip + n * (leap + 1))
    np.testing.assert_array_equal(got, full[skip::leap + 1][:n])


def test_skip_leap_kept_by_fast_forward_reset_and_copies():
    import copy
    import pickle

    make = lambda: Halton(4, scramble=True, rng=2, skip=17, leap=4)  # noqa: E731
    full = make().random(40)
    e = make()
    first = e.random(10)
    np.testing.assert_array_equal(first, full[:10])
    assert e.fast_forward(5) is e and e.num_generated == 15
    np.testing.assert_array_equal(e.random(10), full[15:25])
    # fast_forward(k) lands on index skip + k (leap + 1), as a larger skip would
    np.testing.assert_array_equal(
        Halton(4, scramble=True, rng=2, skip=17 + 15 * 5, leap=4).random(10), full[15:25])
    assert e.sequence_index(e.num_generated) == 17 + 25 * 5
    for twin in (copy.deepcopy(e), pickle.loads(pickle.dumps(e))):
        assert (twin.skip, twin.leap) == (17, 4)
        np.testing.assert_array_equal(twin.random(15), full[25:40])
    assert e.reset() is e and (e.skip, e.leap) == (17, 4)
    np.testing.assert_array_equal(e.random(40), full)


def test_skip_leap_validation():
    with pytest.raises(ValueError, match="'skip' must be >= 0; got -1"):
        Halton(2, skip=-1)
    with pytest.raises(TypeError, match="'leap' must be an integer; got 1.5"):
        Halton(2, leap=1.5)
    with pytest.raises(TypeError, match="'skip' must be an integer; got True"):
        Halton(2, skip=True)
    with pytest.raises(ValueError, match=r"'skip' must be <= 9007199254740991: the sequence's "
                                         r"indices run from 0 to 9007199254740991"):
        Halton(2, skip=2 ** 53)
    with pytest.raises(ValueError, match="'leap' must be <= 9007199254740991"):
        Halton(2, leap=2 ** 53)
    # indices skip + i (leap + 1) below 2**53: three points here, the fourth is refused
    e = Halton(1, scramble=False, skip=2 ** 53 - 10, leap=3)
    msg = r"With skip=9007199254740982 and leap=3 \(indices skip \+ i \(leap \+ 1\)\) that is 3"
    with pytest.raises(ValueError, match=msg):
        e.random(4)
    with pytest.raises(ValueError, match=msg):
        e.fast_forward(4)
    assert e.num_generated == 0
    got = e.random(3)
    np.testing.assert_array_equal(got, ref_plain(2 ** 53 - 10 + 4 * np.arange(3), 1))
    with pytest.raises(ValueError, match="3 points have been previously generated"):
        e.random(1)
    # a leap past the range leaves one point
    assert Halton(1, scramble=False, skip=5, leap=2 ** 53 - 1).random(1).shape == (1, 1)


def test_leaped_engine_as_sequence_is_centred_on_its_own_grid():
    """An unscrambled engine given as ``sequence=`` is shifted by half the grid step of the
    largest index it drew: with skip/leap, the index ``skip + (s - 1)(leap + 1)``."""
    from scipy.special import ndtri

    from qmc_orff import make_frequencies
    from qmc_orff.sources._engine_cube import engine_cube_points

    skip, leap, s, d = 1000, 700, 8, 3
    last = skip + (s - 1) * (leap + 1)
    t = qmc.Halton(d, scramble=False).random(last + 1)[skip::leap + 1].copy()
    for j, b in enumerate([2, 3, 5]):
        t[:, j] += 0.5 * float(b) ** -(int(math.log(last, b) + 1e-9) + 1)
    np.testing.assert_array_equal(
        engine_cube_points(Halton(d, scramble=False, skip=skip, leap=leap), s), t)
    W, _ = make_frequencies("gaussian", s, d,
                            sequence=Halton(d, scramble=False, skip=skip, leap=leap))
    np.testing.assert_allclose(W, ndtri(t), rtol=1e-14, atol=0)
