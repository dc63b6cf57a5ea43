"""Tests of qmc_orff.generators.Sobol."""
import pickle
import warnings

import numpy as np
import pytest
from scipy.stats import qmc
from scipy.stats._sobol import _initialize_v  # SciPy's own (Cython) reference

from _qmc_engine_common import SKIP_LEAP, EngineChecks, assert_skip_leap_equal_scipy
from qmc_orff.generators import Sobol
from qmc_orff.generators import _sobol
from qmc_orff.generators.sobol import _lms_scramble, direction_numbers

BALANCE = "The balance properties of Sobol' points require n to be a power of 2"


# --- plain numpy references (never imported by the package) ---------------------

def ref_sobol(idx, sv, shift, bits=30):
    """x_k = 2^-bits (shift XOR XOR_{b in gray(k)} v_b), one point at a time."""
    out = np.empty((len(idx), sv.shape[0]))
    for r, k in enumerate(idx):
        g = k ^ (k >> 1)
        q = shift.copy()
        for b in range(bits):
            if (g >> b) & 1:
                q ^= sv[:, b]
        out[r] = q / 2.0 ** bits
    return out


def ref_lms(sv, ltm, bits):
    """Left matrix scramble over GF(2), bits written most significant first."""
    new = np.zeros_like(sv)
    for j in range(sv.shape[0]):
        lower = np.tril(ltm[j]).astype(np.int64)
        np.fill_diagonal(lower, 1)
        for k in range(bits):
            vbits = np.array([(int(sv[j, k]) >> (bits - 1 - i)) & 1 for i in range(bits)])
            nbits = lower @ vbits % 2
            new[j, k] = sum(int(bv) << (bits - 1 - i) for i, bv in enumerate(nbits))
    return new


# --- shared engine behaviour ----------------------------------------------------

class TestPlainEngine(EngineChecks):
    def make(self, d):
        return Sobol(d, scramble=False)


class TestScrambledEngine(EngineChecks):
    def make(self, d):
        return Sobol(d, scramble=True, rng=99)


# --- exactness against SciPy ----------------------------------------------------

@pytest.mark.parametrize("d", [1, 2, 10, 64, 1000])
def test_plain_equals_scipy(d):
    n = 2 ** 14 if d <= 64 else 2 ** 11
    ours, theirs = Sobol(d, scramble=False), qmc.Sobol(d, scramble=False)
    np.testing.assert_array_equal(ours.random(n), theirs.random(n))
    ours.fast_forward(1000)
    theirs.fast_forward(1000)
    np.testing.assert_array_equal(ours.random(512), theirs.random(512))
    ours.reset()
    theirs.reset()
    np.testing.assert_array_equal(ours.random_base2(5), theirs.random_base2(5))


def test_plain_equals_scipy_near_maxdim():
    d = 21201
    np.testing.assert_array_equal(Sobol(d, scramble=False).random(64),
                                  qmc.Sobol(d, scramble=False).random(64))
    # all 30 direction numbers of every dimension, against SciPy's initialiser
    v = np.zeros((d, 30), dtype=np.uint32)
    _initialize_v(v, dim=d, bits=30)
    np.testing.assert_array_equal(direction_numbers(d), v.astype(np.uint64))


def test_high_index_equals_scipy():
    # bits 20..29 of the index exercise the last direction numbers
    ours, theirs = Sobol(3, scramble=False), qmc.Sobol(3, scramble=False)
    theirs.fast_forward(2 ** 29 + 5)      # SciPy walks the Gray code (about 1 s)
    ours.fast_forward(2 ** 29 + 5)
    np.testing.assert_array_equal(ours.random(300), theirs.random(300))


@pytest.mark.parametrize("d", [1, 7, 64, 500])
def test_scrambled_equals_scipy_with_same_seed(d):
    ours = Sobol(d, scramble=True, rng=31415)
    theirs = qmc.Sobol(d, scramble=True, rng=31415)
    np.testing.assert_array_equal(ours.random(1024), theirs.random(1024))
    ours.fast_forward(100)
    theirs.fast_forward(100)
    np.testing.assert_array_equal(ours.random(100), theirs.random(100))


def test_first_points():
    # Sobol' (1967) with Joe-Kuo numbers; SciPy's documented example
    np.testing.assert_array_equal(
        Sobol(2, scramble=False).random_base2(3),
        [[0, 0], [0.5, 0.5], [0.75, 0.25], [0.25, 0.75],
         [0.375, 0.375], [0.875, 0.875], [0.625, 0.125], [0.125, 0.625]])


# --- kernels against plain references; chunked equals serial -------------------------

@pytest.mark.parametrize("skip, step", [(0, 1), (1000, 701), (5, 8)])
def test_draw_kernel_equals_reference_and_chunking_invariant(skip, step):
    d, start, n = 9, 777, 700
    e = Sobol(d, scramble=True, rng=5)
    ref = ref_sobol(range(skip + start * step, skip + (start + n) * step, step),
                    e._svt.T.copy(), e._shift)
    serial = np.empty((n, d))
    chunked = np.empty((n, d))
    args = (np.uint64(start), n, np.uint64(skip), np.uint64(step), e._svt, e._shift, e._scale)
    _sobol.sobol_draw(*args, n, serial)
    _sobol.sobol_draw(*args, 3, chunked)
    np.testing.assert_array_equal(serial, ref)
    np.testing.assert_array_equal(chunked, ref)


def test_lms_equals_bit_matrix_reference():
    rng = np.random.default_rng(8)
    sv = direction_numbers(4, 12)
    ltm = np.tril(rng.integers(0, 2, size=(4, 12, 12)))
    np.testing.assert_array_equal(_lms_scramble(sv, ltm, 12), ref_lms(sv, ltm, 12))


# --- scrambling ---------------------------------------------------------------------

def test_scrambled_reproducible_and_seed_dependent():
    a = Sobol(5, scramble=True, rng=1).random(64)
    b = Sobol(5, scramble=True, rng=1).random(64)
    c = Sobol(5, scramble=True, rng=2).random(64)
    np.testing.assert_array_equal(a, b)
    assert not np.any(np.all(a == c, axis=0))


@pytest.mark.parametrize("m", [0, 1, 4, 10])
def test_scrambled_one_point_per_interval(m):
    # each 1-D projection of the first 2^m points of a (t, s)-sequence in base 2
    # (scrambled or not) puts exactly one point in each [i 2^-m, (i+1) 2^-m)
    x = Sobol(40, scramble=True, rng=123).random_base2(m)
    cells = np.sort(np.floor(x * 2 ** m).astype(np.int64), axis=0)
    np.testing.assert_array_equal(cells, np.repeat(np.arange(2 ** m)[:, None], 40, axis=1))


def test_scrambled_first_point_not_zero():
    x = Sobol(8, scramble=True, rng=0).random(1)
    assert np.all(x > 0)


# --- warnings and errors (SciPy's semantics) ------------------------------------------

def test_balance_warning():
    with pytest.warns(UserWarning, match=BALANCE):
        Sobol(2, scramble=False).random(3)
    e = Sobol(2, scramble=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e.random(4)
        e.random(3)          # only the first draw is checked, as in SciPy


def test_random_base2_requires_power_of_two_total():
    e = Sobol(2, scramble=False)
    e.random(4)
    with pytest.raises(ValueError, match=r"n=4\+2\*\*1=6"):
        e.random_base2(1)
    with pytest.raises(ValueError, match="'m' must be >= 0; got -1"):
        Sobol(2, scramble=False).random_base2(-1)


def test_too_many_points():
    e = Sobol(2, scramble=False).fast_forward(2 ** 30 - 1)
    e.random(1)
    with pytest.raises(ValueError, match=r"At most 2\*\*30=1073741824 distinct points"):
        e.random(1)
    with pytest.raises(ValueError, match=r"At most 2\*\*30=1073741824 distinct points"):
        Sobol(2, scramble=False).fast_forward(2 ** 30 + 1)


def test_bad_dimension():
    with pytest.raises(ValueError, match="'d' must be >= 0; got -1"):
        Sobol(-1)
    with pytest.raises(ValueError,
                       match="'d' must be <= 21201: Maximum supported dimensionality .*; got 21202"):
        Sobol(21202)


def test_bad_scramble():
    with pytest.raises(TypeError, match="'scramble' must be True or False; got 'yes'"):
        Sobol(2, scramble="yes")


@pytest.mark.parametrize("scramble", [False, True])
def test_parallel_equals_one_thread(scramble):
    numba = pytest.importorskip("numba")
    e = Sobol(16, scramble=scramble, rng=2)
    par = e.random(2 ** 15)
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        ser = e.reset().random(2 ** 15)
    finally:
        numba.set_num_threads(old)
    np.testing.assert_array_equal(par, ser)


@pytest.mark.parametrize("make_seed", [
    lambda: 4, lambda: np.random.SeedSequence(4), lambda: np.random.default_rng(4)])
def test_seed_accepts_what_scipy_rng_accepts(make_seed):
    ours = Sobol(3, scramble=True, rng=make_seed()).random(32)
    theirs = qmc.Sobol(3, scramble=True, rng=make_seed()).random(32)
    np.testing.assert_array_equal(ours, theirs)


# --- sizes (issue 11, item 8) ---------------------------------------------------------

def test_random_base2_checks_m_before_allocating():
    # used to allocate 32 GiB (2^31 x 2 float64) before its own 2^30 check
    with pytest.raises(ValueError, match=r"'m' must be <= bits=30: .*; got 31\. Consider "
                                         r"increasing `bits`"):
        Sobol(2, scramble=False).random_base2(31)
    with pytest.raises(ValueError, match=r"'m' must be <= bits=30"):
        Sobol(2, scramble=False).random_base2(10 ** 12)        # 2**m is never formed
    with pytest.raises(ValueError, match=r"At most 2\*\*30=1073741824 distinct points"):
        Sobol(1, scramble=False).fast_forward(2 ** 30 - 1).random(2)


def test_huge_n_is_a_value_error_naming_n():
    with pytest.raises(ValueError, match=r"'n' must be <= 268435456 \(at most 2\*\*28"):
        Sobol(1, bits=64, scramble=False).random(2 ** 40)
    with pytest.raises(ValueError, match=r"'n' must be <="):
        Sobol(3, bits=64, scramble=False).integers(4, n=2 ** 40)


# --- SciPy's keywords: bits, rng, seed (legacy), optimization, d = 0 (item 12) -----------

@pytest.mark.parametrize("d, bits", [(2, 1), (2, 3), (6, 5), (6, 30), (6, 31), (6, 32),
                                     (6, 33), (6, 52), (6, 64)])
@pytest.mark.parametrize("scramble", [False, True])
def test_bits_equal_scipy(d, bits, scramble):
    # (SciPy 1.17 mis-initialises when bits < the degree of a polynomial used,
    # e.g. d = 6 with bits < 4, and its fast_forward fails for bits > 32: the
    # comparison skips by drawing instead.)
    n = min(2 ** bits, 512)
    ours = Sobol(d, scramble=scramble, bits=bits, rng=77)
    theirs = qmc.Sobol(d, scramble=scramble, bits=bits, rng=77)
    np.testing.assert_array_equal(ours.random(n), theirs.random(n))
    assert ours.maxn == theirs.maxn == 2 ** bits
    if bits >= 20:
        ours.fast_forward(1000)
        theirs.random(1000)
        np.testing.assert_array_equal(ours.random(64), theirs.random(64))


@pytest.mark.parametrize("bits", [1, 2, 3, 4, 8])
def test_few_bits_are_the_leading_bits(bits):
    # unscrambled points with b bits are the 30-bit points truncated to b bits
    d = 8
    full = Sobol(d, scramble=False).random(2 ** bits)
    np.testing.assert_array_equal(Sobol(d, bits=bits, scramble=False).random(2 ** bits),
                                  np.floor(full * 2 ** bits) / 2 ** bits)


def test_bits_limits():
    e = Sobol(2, bits=3, scramble=False)
    e.random(8)
    with pytest.raises(ValueError, match=r"At most 2\*\*3=8 .* Consider increasing `bits`"):
        e.random(1)
    with pytest.raises(ValueError, match=r"'bits' must be <= 64: Maximum supported 'bits' is 64"):
        Sobol(2, bits=65)
    with pytest.raises(ValueError, match=r"'bits' must be >= 1; got 0"):
        Sobol(2, bits=0)
    with pytest.raises(TypeError, match=r"'bits' must be an integer; got 30.0"):
        Sobol(2, bits=30.0)


def test_direction_numbers_64_bits_equal_scipy():
    v = np.zeros((50, 64), dtype=np.uint64)
    _initialize_v(v, dim=50, bits=64)
    np.testing.assert_array_equal(direction_numbers(50, 64), v)


@pytest.mark.parametrize("make_seed", [lambda: 42, lambda: np.int64(42),
                                       lambda: np.random.default_rng(42),
                                       lambda: np.random.RandomState(42)])
@pytest.mark.parametrize("bits", [30, 40])
def test_legacy_seed_has_scipy_meaning(make_seed, bits):
    # Sobol(d, seed=42) must never differ silently from scipy.stats.qmc.Sobol(d, seed=42)
    ours = Sobol(4, scramble=True, bits=bits, seed=make_seed()).random(64)
    theirs = qmc.Sobol(4, scramble=True, bits=bits, seed=make_seed()).random(64)
    np.testing.assert_array_equal(ours, theirs)


def test_seed_and_rng_differ_as_in_scipy():
    a = Sobol(2, scramble=True, seed=42).random(8)
    b = Sobol(2, scramble=True, rng=42).random(8)
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(a, qmc.Sobol(2, scramble=True, seed=42).random(8))
    np.testing.assert_array_equal(b, qmc.Sobol(2, scramble=True, rng=42).random(8))
    with pytest.raises(TypeError, match=r"Sobol\(\) got multiple values for argument now known as `rng`"):
        Sobol(2, rng=1, seed=1)
    with pytest.raises(TypeError, match="accepted only as 'seed'"):
        Sobol(2, rng=np.random.RandomState(1))


@pytest.mark.parametrize("optimization", ["random-cd", "lloyd"])
def test_optimization_equals_scipy(optimization):
    ours = Sobol(2, scramble=True, optimization=optimization, rng=8).random(32)
    theirs = qmc.Sobol(2, scramble=True, optimization=optimization, rng=8).random(32)
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("scramble", [False, True])
def test_zero_dimension(scramble):
    e = Sobol(0, scramble=scramble, rng=1)
    assert e.random(4).shape == (4, 0)
    assert e.random_base2(2).shape == (4, 0)
    assert e.num_generated == 8


def test_missing_direction_numbers_say_where_they_come_from(monkeypatch):
    """The direction numbers are SciPy's private file: a SciPy without it gets a RuntimeError
    naming the file and the SciPy version, not a bare FileNotFoundError or KeyError."""
    from qmc_orff.generators import sobol as mod

    mod._load_joe_kuo.cache_clear()
    try:
        with monkeypatch.context() as patch:
            patch.setattr(mod, "_JOE_KUO_FILE", ("scipy.stats", "_no_such_file.npz"))
            with pytest.raises(RuntimeError,
                               match=r"scipy.stats/_no_such_file.npz, which this SciPy"):
                mod.direction_numbers(3)
    finally:
        mod._load_joe_kuo.cache_clear()
    assert mod.direction_numbers(3).shape == (3, mod.BITS)  # SciPy's file again


# --- skip and leap (MATLAB's sobolset 'Skip' and 'Leap') ---------------------------

class TestLeapedEngine(EngineChecks):
    def make(self, d):
        return Sobol(d, scramble=True, rng=3, skip=1000, leap=700)


@pytest.mark.filterwarnings("ignore:The balance properties:UserWarning")
@pytest.mark.parametrize("skip, leap", SKIP_LEAP)
def test_skip_leap_equal_scipy_unscrambled(skip, leap):
    assert_skip_leap_equal_scipy(Sobol, qmc.Sobol, 32, 6, skip, leap)


def test_scramble_applies_to_leaped_points_as_to_the_same_indices():
    skip, leap, n, d = 333, 50, 32, 8
    got = Sobol(d, rng=11, skip=skip, leap=leap).random(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # the balance warning
        full = Sobol(d, rng=11).random(skip + n * (leap + 1))
    np.testing.assert_array_equal(got, full[skip::leap + 1][:n])


@pytest.mark.filterwarnings("ignore:The balance properties:UserWarning")
def test_skip_leap_kept_by_fast_forward_reset_and_random_base2():
    make = lambda: Sobol(4, rng=2, skip=17, leap=4)  # noqa: E731
    full = make().random(64)
    e = make()
    np.testing.assert_array_equal(e.random_base2(3), full[:8])
    np.testing.assert_array_equal(e.random_base2(3), full[8:16])
    with pytest.raises(ValueError, match=r"n=16\+2\*\*2=20"):
        e.random_base2(2)
    assert e.fast_forward(16) is e and e.num_generated == 32
    np.testing.assert_array_equal(e.random_base2(5), full[32:64])
    np.testing.assert_array_equal(
        Sobol(4, rng=2, skip=17 + 32 * 5, leap=4).random(32), full[32:])
    twin = pickle.loads(pickle.dumps(e.reset().fast_forward(32)))
    assert (twin.skip, twin.leap, twin.num_generated) == (17, 4, 32)
    np.testing.assert_array_equal(twin.random(32), full[32:])
    assert e.reset() is e and (e.skip, e.leap) == (17, 4)
    np.testing.assert_array_equal(e.random(64), full)
    # unscrambled, random_base2 draws SciPy's points at the leaped indices
    got = Sobol(3, scramble=False, skip=3, leap=4).random_base2(4)
    ref = qmc.Sobol(3, scramble=False).random(3 + 15 * 5 + 1)[3::5]
    np.testing.assert_array_equal(got, ref)


def test_skip_leap_with_64_bits_equals_reference():
    """Indices past 2**63 (uint64 throughout); a leap of 2**64 - 1 leaves one point."""
    skip, leap = 2 ** 63 + 5, 2 ** 62
    e = Sobol(2, scramble=False, bits=64, skip=skip, leap=leap)
    got = e.random(2)
    ref = ref_sobol([skip, skip + leap + 1], direction_numbers(2, 64), np.zeros(2, np.uint64),
                    bits=64)
    np.testing.assert_array_equal(got, ref)
    with pytest.raises(ValueError, match="that is 2 points. 2 points have been previously"):
        e.random(1)
    one = Sobol(2, scramble=False, bits=64, skip=7, leap=2 ** 64 - 1)
    np.testing.assert_array_equal(one.random(1), ref_sobol([7], direction_numbers(2, 64),
                                                           np.zeros(2, np.uint64), bits=64))
    with pytest.raises(ValueError, match="that is 1 points"):
        one.random(1)


@pytest.mark.filterwarnings("ignore:The balance properties:UserWarning")
def test_skip_leap_validation():
    with pytest.raises(ValueError, match="'leap' must be >= 0; got -3"):
        Sobol(2, leap=-3)
    with pytest.raises(TypeError, match="'skip' must be an integer; got 2.0"):
        Sobol(2, skip=2.0)
    with pytest.raises(ValueError, match=r"'skip' must be <= 1073741823: the sequence's indices "
                                         r"run from 0 to 1073741823"):
        Sobol(2, skip=2 ** 30)
    with pytest.raises(ValueError, match="'leap' must be <= 1023"):
        Sobol(2, bits=10, leap=1024)
    e = Sobol(2, scramble=False, bits=10, skip=1000, leap=10)   # indices 1000, 1011, 1022
    with pytest.raises(ValueError, match=r"At most 2\*\*10=1024 distinct points can be "
                                         r"generated. With skip=1000 and leap=10"):
        e.random(4)
    assert e.random(3).shape == (3, 2)
