"""Tests of qmc_orff.generators.Lattice."""
import math

import numpy as np
import pytest

from _qmc_engine_common import EngineChecks
from qmc_orff.generators import Lattice, cbc_lattice
from qmc_orff.generators import _lattice
from qmc_orff.generators.lattice import kuo_generating_vector

# Generated with QMCPy 2.4 (/tmp/venvtest/bin/python):
#   l = qmcpy.Lattice(5, randomize='FALSE')
#   (l.gen_samples(n_min=0, n_max=16) * 16).astype(int)
QMCPY_D5_FIRST16_TIMES_16 = [
    [0, 0, 0, 0, 0], [8, 8, 8, 8, 8], [4, 12, 12, 12, 4], [12, 4, 4, 4, 12],
    [2, 6, 6, 14, 10], [10, 14, 14, 6, 2], [6, 2, 2, 10, 14], [14, 10, 10, 2, 6],
    [1, 11, 3, 7, 13], [9, 3, 11, 15, 5], [5, 7, 15, 3, 1], [13, 15, 7, 11, 9],
    [3, 1, 9, 5, 7], [11, 9, 1, 13, 15], [7, 13, 5, 1, 11], [15, 5, 13, 9, 3]]
#   (l.gen_samples(n_min=1024, n_max=2048)[[0, 1, 2, 3, 500, 1023]] * 2**20).astype(int)
#   i.e. the points of (zero-based) index 1024, 1025, 1026, 1027, 1524, 2047
QMCPY_D5_ROWS = [1024, 1025, 1026, 1027, 1524, 2047]
QMCPY_D5_ROWS_TIMES_2_20 = [
    [512, 202240, 378368, 716288, 924160], [524800, 726528, 902656, 192000, 399872],
    [262656, 988672, 116224, 454144, 137728], [786944, 464384, 640512, 978432, 662016],
    [195072, 507392, 503296, 275968, 832000], [1048064, 846336, 670208, 332288, 124416]]


# --- plain numpy references (never imported by the package) ---------------------

def ref_lattice_set(z, big_n):
    """{frac(i z / N) : i < N} as exact numerators (i z mod N), in natural order."""
    i = np.arange(big_n, dtype=object)[:, None]
    return np.array((i * np.asarray(z, dtype=object)[None, :]) % big_n, dtype=np.int64)


def ref_radical_inverse(k, m):
    return int(format(k, f"0{m}b")[::-1], 2) if m else 0


def as_set(numerators):
    return {tuple(r) for r in np.asarray(numerators).tolist()}


# --- shared engine behaviour ----------------------------------------------------

class TestDefaultEngine(EngineChecks):
    def make(self, d):
        return Lattice(d)


class TestShiftedEngine(EngineChecks):
    def make(self, d):
        return Lattice(d, shift=True, seed=17)


class TestNaturalEngine(EngineChecks):
    def make(self, d):
        # 128 points: the test draws the whole lattice, where its quality shows
        return Lattice(d, generating_vector=cbc_lattice(128, d), order="natural", n_max=128)


# --- QMCPy equality ------------------------------------------------------------------

def test_equals_qmcpy_vector():
    x = Lattice(5).random(16)
    np.testing.assert_array_equal(x * 16, QMCPY_D5_FIRST16_TIMES_16)
    e = Lattice(5)
    for row, expected in zip(QMCPY_D5_ROWS, QMCPY_D5_ROWS_TIMES_2_20):
        e.reset().fast_forward(row)
        np.testing.assert_array_equal(e.random(1)[0] * 2 ** 20, expected)


@pytest.mark.parametrize("d", [1, 3, 64])
def test_equals_live_qmcpy(d):
    qmcpy = pytest.importorskip("qmcpy")
    ref = qmcpy.Lattice(d, randomize="FALSE").gen_samples(2 ** 12, warn=False)
    np.testing.assert_array_equal(Lattice(d).random(2 ** 12), ref)


# --- lattice structure --------------------------------------------------------------------

@pytest.mark.parametrize("m", [0, 1, 5, 10, 12])
def test_radical_inverse_prefixes_are_lattices(m):
    d = 7
    x = Lattice(d).random(2 ** m)
    num = x * 2 ** m
    np.testing.assert_array_equal(num, np.round(num))      # on the grid 2^-m Z
    z = kuo_generating_vector(d)
    assert as_set(num.astype(np.int64)) == as_set(ref_lattice_set(z % 2 ** m, 2 ** m))


def test_radical_inverse_order_exact():
    d, m = 4, 20
    z = kuo_generating_vector(d)
    e = Lattice(d).fast_forward(123456)
    got = e.random(200) * 2 ** m
    ref = [[ref_radical_inverse(k, m) * int(zj) % 2 ** m for zj in z]
           for k in range(123456, 123656)]
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("big_n", [1, 2, 97, 1000, 1021, 4096])
def test_natural_full_lattice_equals_set(big_n):
    d, z = 3, [1, 433, 229]          # coprime with each N below
    assert all(math.gcd(v, big_n) == 1 for v in z)
    x = Lattice(d, generating_vector=z, order="natural", n_max=big_n).random(big_n)
    ref = ref_lattice_set(z, big_n) / big_n    # correctly rounded num / N
    np.testing.assert_array_equal(x, ref)       # same points, same (natural) order
    assert len(as_set(x)) == big_n


def test_natural_large_modulus_exact():
    # N close to 2^32: products i z reach 2^64 and must not be rounded
    big_n = 2 ** 32 - 5          # prime
    z = [1, 2 ** 31 + 11, 4294967291 - 2]
    e = Lattice(3, generating_vector=z, order="natural", n_max=big_n)
    e.fast_forward(big_n - 300)
    got = e.random(300)
    ref = np.array([[(k * zj) % big_n / big_n for zj in z]
                    for k in range(big_n - 300, big_n)])
    np.testing.assert_array_equal(got, ref)
    assert got.max() < 1.0


def test_cbc_vector_in_natural_order():
    z = cbc_lattice(257, 4)
    x = Lattice(4, generating_vector=z, order="natural", n_max=257).random(257)
    np.testing.assert_array_equal(x * 257, ref_lattice_set(z, 257))


def test_radical_inverse_with_explicit_vector():
    z = np.array([1, 3, 5], dtype=np.int64)
    x = Lattice(3, generating_vector=z, n_max=8).random(8)
    assert as_set((x * 8).astype(int)) == as_set(ref_lattice_set(z, 8))
    np.testing.assert_array_equal(x[:2] * 8, [[0, 0, 0], [4, 4, 4]])


# --- shifts -----------------------------------------------------------------------------

def test_random_shift_reproducible_and_modulo_one():
    a = Lattice(4, shift=True, seed=3)
    b = Lattice(4, shift=True, seed=3)
    c = Lattice(4, shift=True, seed=4)
    np.testing.assert_array_equal(a.shift, b.shift)
    assert not np.array_equal(a.shift, c.shift)
    x = a.random(1024)
    plain = Lattice(4).random(1024)
    np.testing.assert_array_equal(x, np.mod(plain + a.shift, 1.0))
    np.testing.assert_array_equal(x[0], a.shift)


def test_explicit_shift():
    s = [0.0, 0.25, 0.5, 0.999]
    x = Lattice(4, shift=s).random(64)
    np.testing.assert_array_equal(x, np.mod(Lattice(4).random(64) + s, 1.0))
    assert np.all(x < 1.0)


def test_shift_close_to_one_stays_below_one():
    s = np.nextafter(1.0, 0.0)
    x = Lattice(1, generating_vector=[1], order="natural", n_max=2 ** 32 - 5,
                shift=[s]).fast_forward(2 ** 32 - 10).random(5)
    assert np.all((x >= 0) & (x < 1))


# --- kernels: chunked/parallel equals serial ------------------------------------------------

@pytest.mark.parametrize("kernel", ["ri", "natural"])
def test_kernel_chunking_invariant(kernel):
    d, start, n = 5, 333, 2000
    z = np.asarray(kuo_generating_vector(d) % 2 ** 16, dtype=np.uint64)
    shift = np.linspace(0.1, 0.9, d)
    serial = np.empty((n, d))
    chunked = np.empty((n, d))
    for chunk, out in [(n, serial), (7, chunked)]:
        if kernel == "ri":
            _lattice.lattice_radical_inverse(start, n, z, 16, shift, True, chunk, out)
        else:
            _lattice.lattice_natural(start, n, z, 2 ** 16, shift, True, chunk, out)
    np.testing.assert_array_equal(serial, chunked)


# --- input validation ---------------------------------------------------------------------

def test_bad_dimension():
    with pytest.raises(ValueError, match="'d' must be >= 1; got 0"):
        Lattice(0)
    with pytest.raises(ValueError, match="'d' must be <= 9125 .*; got 9126"):
        Lattice(9126)


def test_too_many_points():
    e = Lattice(2).fast_forward(2 ** 20 - 1)
    e.random(1)
    with pytest.raises(ValueError, match="At most n_max=1048576 distinct lattice points"):
        e.random(1)
    e = Lattice(2, generating_vector=[1, 2], order="natural", n_max=5)
    with pytest.raises(ValueError, match=r"n=0\+6=6"):
        e.random(6)


def test_bad_generating_vector():
    with pytest.raises(ValueError, match=r"'generating_vector' must have shape \(3,\) for "
                                         r"d=3; got shape \(2,\)"):
        Lattice(3, generating_vector=[1, 3], n_max=8)
    with pytest.raises(ValueError, match="'generating_vector' must be coprime with "
                                         "n_max=8; entry 1 is 6"):
        Lattice(2, generating_vector=[1, 6], n_max=8)
    with pytest.raises(ValueError, match="'generating_vector' must be coprime with "
                                         "n_max=15; entry 1 is 5"):
        Lattice(2, generating_vector=[1, 5], order="natural", n_max=15)
    with pytest.raises(ValueError, match="'generating_vector' must be nonnegative"):
        Lattice(2, generating_vector=[1, -3], n_max=8)
    with pytest.raises(TypeError, match="'generating_vector' must contain integers"):
        Lattice(2, generating_vector=[1.0, 3.0], n_max=8)
    with pytest.raises(ValueError, match="'generating_vector' must be 'default' or an array"):
        Lattice(2, generating_vector="kuo")


def test_bad_n_max():
    with pytest.raises(ValueError, match="'n_max' .* is required with an explicit"):
        Lattice(2, generating_vector=[1, 3])
    with pytest.raises(ValueError, match="'n_max' must be a power of 2 for "
                                         "order='radical_inverse'; got 12"):
        Lattice(2, generating_vector=[1, 5], n_max=12)
    with pytest.raises(ValueError, match="'n_max' must be a power of 2 with the default"):
        Lattice(2, n_max=1000)
    with pytest.raises(ValueError, match="'n_max' must be <= 1048576; got 2097152"):
        Lattice(2, n_max=2 ** 21)
    with pytest.raises(ValueError, match="'n_max' must be <= 4294967296"):
        Lattice(2, generating_vector=[1, 3], order="natural", n_max=2 ** 32 + 1)


def test_bad_order():
    with pytest.raises(ValueError, match="'order' must be one of 'radical_inverse', "
                                         "'natural'; got 'gray'"):
        Lattice(2, order="gray")


def test_bad_shift():
    with pytest.raises(ValueError, match=r"'shift' must lie in \[0, 1\); got 1.0"):
        Lattice(2, shift=[0.5, 1.0])
    with pytest.raises(ValueError, match=r"'shift' must lie in \[0, 1\); got -0.1"):
        Lattice(2, shift=[-0.1, 0.5])
    with pytest.raises(ValueError, match="'shift' must have length d=2; got length 3"):
        Lattice(2, shift=[0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="'shift' must contain only finite values"):
        Lattice(2, shift=[np.nan, 0.5])


@pytest.mark.parametrize("order", ["radical_inverse", "natural"])
def test_parallel_equals_one_thread(order):
    numba = pytest.importorskip("numba")
    e = Lattice(8, order=order, shift=True, seed=1)
    par = e.random(30000)
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        ser = e.reset().random(30000)
    finally:
        numba.set_num_threads(old)
    np.testing.assert_array_equal(par, ser)


# --- the exod2_base2_m20_CKN vector (Nuyens' latticeseq_b2) -----------------------------

CKN = "exod2_base2_m20_CKN"
# The published vector (Magic Point Shop, LDData lattice/mps.exod2_base2_m20_CKN.txt):
# its first ten and last four entries of 250.
CKN_FIRST = [1, 182667, 469891, 498753, 110745, 446247, 250185, 118627, 245333, 283199]
CKN_LAST = [322721, 420175, 430359, 480757]


def ref_latticeseq_b2(z, kstart, n):
    """Nuyens' latticeseq_b2 (Python, m = 32 bits by default): point k is
    frac(bitreverse_32(k) 2^-32 z_j), computed in float64 as there."""
    out = np.empty((n, len(z)))
    for r, k in enumerate(range(kstart, kstart + n)):
        phik = int(format(k, "032b")[::-1], 2) * 2.0 ** -32
        for j, zj in enumerate(z):
            x = phik * int(zj)
            out[r, j] = x - math.floor(x)
    return out


class TestCKNEngine(EngineChecks):
    def make(self, d):
        return Lattice(d, generating_vector=CKN)


def test_ckn_vector_loads_as_published():
    from qmc_orff.generators.lattice import NAMED_VECTORS, named_generating_vector

    z = named_generating_vector(CKN, 250)
    assert z.shape == (250,) and z.dtype == np.int64
    assert z[:10].tolist() == CKN_FIRST and z[-4:].tolist() == CKN_LAST
    assert np.all(z % 2 == 1) and np.all(z < 2 ** 20)   # coprime with every 2^m <= 2^20
    assert NAMED_VECTORS[CKN][1:] == (250, 20)
    np.testing.assert_array_equal(Lattice(7, generating_vector=CKN).generating_vector, z[:7])
    assert Lattice(7, generating_vector=CKN).n_max == 2 ** 20


def test_ckn_limits():
    from qmc_orff.generators.lattice import named_generating_vector

    assert Lattice(250, generating_vector=CKN).random(4).shape == (4, 250)
    with pytest.raises(ValueError, match="'d' must be <= 250 with generating_vector="
                                         "'exod2_base2_m20_CKN' \\(the vector has 250 "
                                         "dimensions\\); got 251"):
        Lattice(251, generating_vector=CKN)
    with pytest.raises(ValueError, match="'n_max' must be <= 1048576; got 2097152"):
        Lattice(2, generating_vector=CKN, n_max=2 ** 21)
    with pytest.raises(ValueError, match="'n_max' must be a power of 2 with generating_vector="
                                         "'exod2_base2_m20_CKN'; got 1000"):
        Lattice(2, generating_vector=CKN, n_max=1000)
    with pytest.raises(ValueError, match="'generating_vector' must be one of 'default', "
                                         "'exod2_base2_m20_CKN'; got 'ckn'"):
        named_generating_vector("ckn", 2)


@pytest.mark.parametrize("kstart", [0, 1000, 2 ** 20 - 64])
def test_ckn_points_equal_latticeseq_b2(kstart):
    """The radical-inverse order is latticeseq_b2's: bit for bit (the products are exact)."""
    z = CKN_FIRST[:6]
    got = Lattice(6, generating_vector=CKN).fast_forward(kstart).random(64)
    np.testing.assert_array_equal(got, ref_latticeseq_b2(z, kstart, 64))


def test_ckn_prefixes_are_lattices():
    z = np.array(CKN_FIRST)
    for m in (0, 3, 8):
        num = Lattice(10, generating_vector=CKN).random(2 ** m) * 2 ** m
        assert as_set(num.astype(np.int64)) == as_set(ref_lattice_set(z % 2 ** m, 2 ** m))


# --- random_base2 -----------------------------------------------------------------------

@pytest.mark.parametrize("make", [lambda: Lattice(5), lambda: Lattice(5, shift=True, seed=3),
                                  lambda: Lattice(5, generating_vector=CKN, n_max=2 ** 10)])
def test_random_base2_continues_the_sequence(make):
    full = make().random(64)
    e = make()
    np.testing.assert_array_equal(e.random_base2(4), full[:16])
    np.testing.assert_array_equal(e.random_base2(4), full[16:32])
    np.testing.assert_array_equal(e.random_base2(5), full[32:64])
    assert e.num_generated == 64
    with pytest.raises(ValueError, match=r"The balance properties of lattice points require n "
                                         r"to be a power of 2. 64 points have been previously "
                                         r"generated, then: n=64\+2\*\*3=72"):
        e.random_base2(3)
    assert e.num_generated == 64


def test_random_base2_limits():
    with pytest.raises(ValueError, match=r"'m' must be <= log2\(n_max\)=20: at most "
                                         r"n_max=1048576 lattice points can be generated; got 21"):
        Lattice(2).random_base2(21)
    e = Lattice(2, generating_vector=[1, 3], n_max=8)
    assert e.random_base2(3).shape == (8, 2)
    with pytest.raises(ValueError, match="At most n_max=8 distinct lattice points"):
        e.random_base2(3)           # 8 + 8 is a power of 2, but past n_max
    with pytest.raises(ValueError, match="'m' must be >= 0; got -1"):
        Lattice(2).random_base2(-1)
    with pytest.raises(TypeError, match="'m' must be an integer"):
        Lattice(2).random_base2(2.0)
    with pytest.raises(ValueError, match="'order' must be 'radical_inverse' for random_base2"):
        Lattice(2, generating_vector=[1, 3], order="natural", n_max=8).random_base2(1)
