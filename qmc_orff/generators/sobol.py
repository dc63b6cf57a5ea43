"""Sobol' sequence with Joe-Kuo direction numbers; LMS + digital shift scrambling."""
from __future__ import annotations

import functools
import importlib.resources
import warnings

import numpy as np

from .._jit import parallel_pays
from .._validation import check_dimension, check_int
from . import _sobol
from ._base import IndexedEngine, init_engine, integers_like_scipy

__all__ = ["Sobol", "direction_numbers", "MAXDIM", "BITS"]

#: Largest dimension of the Joe-Kuo new-joe-kuo-6.21201 direction numbers.
MAXDIM = 21201
#: Bits per coordinate (SciPy's default): at most 2**BITS points.
BITS = 30
#: Largest ``bits`` (SciPy's too).
MAX_BITS = 64
#: SciPy's copy of the Joe-Kuo direction numbers (a private file of ``scipy.stats``)
_JOE_KUO_FILE = ("scipy.stats", "_sobol_direction_numbers.npz")

_CHUNK = 4096


@functools.lru_cache(maxsize=1)
def _load_joe_kuo():
    # SciPy ships new-joe-kuo-6.21201 as `scipy/stats/_sobol_direction_numbers.npz`:
    # `poly` (21201,) are the primitive polynomials written as 2a + 2^s + 1
    # (s the degree, a the coefficients) with a degenerate first entry 1, and
    # `vinit` (21201, 18) the initial direction numbers m_1 .. m_s (zero padded).
    # Source: S. Joe and F. Y. Kuo, https://web.maths.unsw.edu.au/~fkuo/sobol/
    # (BSD-style licence, Copyright (c) 2008 Frances Y. Kuo and Stephen Joe).
    package, name = _JOE_KUO_FILE
    try:
        res = importlib.resources.files(package).joinpath(name)
        with importlib.resources.as_file(res) as path, np.load(path) as data:
            poly = np.ascontiguousarray(data["poly"], dtype=np.int64)
            vinit = np.ascontiguousarray(data["vinit"], dtype=np.int64)
    except (OSError, KeyError, ValueError, ModuleNotFoundError) as exc:  # moved, renamed, changed
        import scipy

        raise RuntimeError(
            f"qmc_orff's Sobol' engine reads Joe and Kuo's direction numbers from SciPy's "
            f"{package}/{name}, which this SciPy ({scipy.__version__}) does not provide as "
            f"expected ({exc!r}); install a SciPy with that file (1.15 to 1.18 have it).") from exc
    poly.setflags(write=False)
    vinit.setflags(write=False)
    return poly, vinit


def direction_numbers(d, bits=BITS):
    """Sobol' direction numbers of the first ``d`` dimensions.

    Read lazily (and cached) from SciPy's copy of Joe & Kuo's
    ``new-joe-kuo-6.21201`` (search criterion D(6)) and expanded with the
    Bratley-Fox recurrence.

    Parameters
    ----------
    d : int
        Dimension, ``1 <= d <= 21201``.
    bits : int, default=30
        Number of bits, ``1 <= bits <= 64``.

    Returns
    -------
    v : ndarray of shape (d, bits), dtype uint64
        ``v[j, k]`` is the k-th direction number of coordinate j, aligned so
        that its leading bit has weight ``2^(bits - 1 - k)``.
    """
    d = check_dimension(d, maximum=MAXDIM)
    bits = check_int(bits, "bits", minimum=1, maximum=64)
    poly, vinit = _load_joe_kuo()
    return _sobol.direction_matrix(poly, vinit, d, bits)


def _parity(x):
    """Parity of the set bits of each uint64 in ``x`` (0 or 1)."""
    x = x.copy()
    for s in (32, 16, 8, 4, 2, 1):
        x ^= x >> np.uint64(s)
    return x & np.uint64(1)


def _lms_scramble(sv, ltm, bits):
    """Left linear matrix scramble of the direction numbers (SciPy's `_cscramble`).

    ``ltm[j]`` is a lower-triangular 0/1 matrix (its diagonal is set to 1);
    row ``p`` read as an integer with column ``i`` at bit ``bits - 1 - i`` gives
    bit ``bits - 1 - p`` of the new number as the parity of ``row & v``.
    """
    d = sv.shape[0]
    idx = np.arange(bits)
    weight = np.uint64(1) << (bits - 1 - idx).astype(np.uint64)   # bit of column / row i
    out = np.empty_like(sv)
    for lo in range(0, d, 1024):                                    # bounded memory
        blk = ltm[lo:lo + 1024].astype(np.uint64)
        blk[:, idx, idx] = 1
        rows = (blk * weight).sum(axis=2, dtype=np.uint64)          # (b, p)
        par = _parity(rows[:, :, None] & sv[lo:lo + 1024, None, :])  # (b, p, k)
        out[lo:lo + 1024] = (par * weight[None, :, None]).sum(axis=1, dtype=np.uint64)
    return out


class Sobol(IndexedEngine):
    r"""Sobol' sequence (Joe-Kuo direction numbers), scrambled by default as in SciPy.

    Parameters
    ----------
    d : int
        Dimension, :math:`1 \le d \le 21201`.
        :math:`d = 0` gives empty points, as in SciPy.
    scramble : bool, default=True
        ``True`` (SciPy's default too): left linear matrix scrambling plus a
        digital shift (LMS + shift, Matousek 1998), drawn from ``rng``; with
        the same ``rng`` the points equal ``scipy.stats.qmc.Sobol(d, rng=rng)``.
        ``False``: the plain sequence, bit-for-bit equal to
        ``scipy.stats.qmc.Sobol(d, scramble=False)`` (first point the origin);
        ``rng`` is then unused.
    bits : int, default=None
        Number of bits of each coordinate, :math:`1 \le \mathrm{bits} \le 64`; None means 30.
        At most :math:`2^{\mathrm{bits}}` points can be drawn.  As SciPy's.
    optimization : {None, "random-cd", "lloyd"}, default=None
        SciPy's post-processing of each draw (see `scipy.stats.qmc.Sobol`).
    rng : None, int, SeedSequence, BitGenerator or Generator, default=None
        Source of the scrambling, with the semantics of SciPy's ``rng`` keyword
        (passed to ``numpy.random.default_rng``; a Generator is spawned).
    seed : None, int, Generator or RandomState, default=None
        SciPy's legacy keyword with SciPy's legacy meaning (an int seeds
        ``default_rng(seed)`` used directly, a RandomState is used as is), so that
        ``Sobol(d, seed=42)`` equals
        ``scipy.stats.qmc.Sobol(d, seed=42)``.  At most one of ``rng`` and ``seed``.
    skip : int, default=0
        Index in the sequence of the first point, :math:`0 \le \mathrm{skip} < 2^{\mathrm{bits}}`
        (MATLAB's ``sobolset(d, 'Skip', skip)``; the origin is index 0).
    leap : int, default=0
        Indices left out between consecutive points, :math:`0 \le \mathrm{leap} <
        2^{\mathrm{bits}}`: point :math:`i` of the set is index
        :math:`\mathrm{skip} + i (\mathrm{leap} + 1)` of the sequence (MATLAB's ``'Leap'``).
        Each point is computed from its index (nothing skipped is generated); the
        scrambling applies to it exactly as to the same index without leap.  Defaults 0
        and 0: SciPy's points.

    See Also
    --------
    Halton, Lattice : the other engines.
    make_frequencies : Sobol' points as frequencies (``sequence="sobol"`` or this engine).
    scipy.stats.qmc.Sobol : SciPy's engine, equal point for point with the same ``rng``.

    Notes
    -----
    The point of index :math:`k` of the sequence is, coordinate-wise,

    .. math::

       x_k = 2^{-30} \Bigl(s \oplus \bigoplus_{b \,:\, \text{bit } b \text{ of } \operatorname{gray}(k) \text{ set}} v_b\Bigr),

    with :math:`\operatorname{gray}(k) = k \oplus \lfloor k / 2 \rfloor` (Antonov & Saleev
    order, :math:`\oplus` the bitwise XOR), direction numbers :math:`v_b` (scrambled:
    :math:`v_b \leftarrow L v_b` with a random
    unit lower-triangular matrix :math:`L` over GF(2)) and shift :math:`s` (0 unless
    scrambled); point :math:`i` of the set is :math:`x_{\mathrm{skip} + i (\mathrm{leap} + 1)}`.
    30 bits by default as in SciPy, so at most :math:`2^{30}` points
    (:math:`2^{\mathrm{bits}}` in general, indices :math:`\mathrm{skip} + i (\mathrm{leap} + 1)`
    below it: ``random`` and ``random_base2`` check before allocating).
    Drawing is stateless in the index: the numba kernel runs in parallel over
    chunks of indices, each started from its directly computed state.

    As in SciPy, the balance properties need :math:`n = 2^m` points from the
    start: a first draw of another size warns (see `random_base2`).

    References
    ----------
    .. [1] Ilya M. Sobol', "On the distribution of points in a cube and the approximate
       evaluation of integrals", Zh. Vychisl. Mat. i Mat. Fiz. 7:784-802, 1967.
    .. [2] S. Joe and F. Y. Kuo, "Constructing Sobol sequences with better
       two-dimensional projections", SIAM J. Sci. Comput. 30(5):2635-2654, 2008.
    .. [3] P. Bratley and B. L. Fox, "Algorithm 659", ACM Trans. Math. Softw.
       14(1):88-100, 1988.
    .. [4] J. Matousek, "On the L2-discrepancy for anchored boxes",
       J. Complexity 14:527-556, 1998.

    Examples
    --------
    >>> from qmc_orff.generators import Sobol
    >>> Sobol(2, scramble=False).random_base2(2)
    array([[0.  , 0.  ],
           [0.5 , 0.5 ],
           [0.75, 0.25],
           [0.25, 0.75]])
    """

    MAXDIM = MAXDIM

    def __init__(self, d, *, scramble=True, bits=None, optimization=None, rng=None, seed=None,
                 skip=0, leap=0):
        d = check_int(d, "d", minimum=0)
        if d > MAXDIM:
            raise ValueError(f"'d' must be <= {MAXDIM}: Maximum supported dimensionality is "
                             f"{MAXDIM} (Joe-Kuo direction numbers); got {d}.")
        bits = BITS if bits is None else check_int(bits, "bits", minimum=1)
        if bits > MAX_BITS:
            raise ValueError(f"'bits' must be <= {MAX_BITS}: Maximum supported 'bits' is "
                             f"{MAX_BITS}; got {bits}.")
        if not isinstance(scramble, (bool, np.bool_)):
            raise TypeError(f"'scramble' must be True or False; got {scramble!r}.")
        init_engine(self, d, rng=rng, seed=seed, optimization=optimization)
        self.scramble = bool(scramble)
        self.bits = bits
        self.maxn = 2 ** bits
        self._init_skip_leap(skip, leap)
        sv = direction_numbers(d, bits) if d > 0 else np.zeros((0, bits), dtype=np.uint64)
        if self.scramble:
            # Same draws, in the same order and dtype, as SciPy's Sobol._scramble.
            dtype = np.uint32 if bits <= 32 else np.uint64
            shift_bits = integers_like_scipy(self.rng, 2, (d, bits), dtype)
            self._shift = (shift_bits.astype(np.uint64)
                           << np.arange(bits, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
            ltm = np.tril(integers_like_scipy(self.rng, 2, (d, bits, bits), dtype))
            sv = _lms_scramble(sv, ltm, bits)
        else:
            self._shift = np.zeros(d, dtype=np.uint64)
        self._svt = np.ascontiguousarray(sv.T)
        self._scale = 1.0 / 2 ** bits

    def _room(self):
        more = " Consider increasing `bits`." if self.bits < MAX_BITS else ""
        return (self.maxn, f"At most 2**{self.bits}={self.maxn} distinct points can be generated.",
                more)

    def _random(self, n=1, *, workers=1):
        n, out = self._empty(n)
        if n == 0:
            return out
        if self.num_generated == 0 and n & (n - 1) != 0:
            # SciPy's condition and message (stacklevel: user -> random -> _random).
            warnings.warn("The balance properties of Sobol' points require"
                          " n to be a power of 2.", stacklevel=3)
        if self.d == 0:
            return out
        # the serial build for one chunk or one thread: the same points
        kernel = _sobol.sobol_draw if parallel_pays(n, _CHUNK) else _sobol.sobol_draw_serial
        # uint64 throughout (indices reach 2**64 - 1 with bits=64); a step of 2**64
        # (leap = 2**64 - 1) wraps to 0, harmless: only point 0 then exists
        kernel(np.uint64(self.num_generated), n, np.uint64(self.skip),
               np.uint64((self.leap + 1) % 2 ** 64), self._svt, self._shift, self._scale,
               _CHUNK, out)
        return out

    def random_base2(self, m):
        r"""Draw :math:`n = 2^m` points, keeping the balance properties.

        Parameters
        ----------
        m : int
            Base-2 logarithm of the number of points, :math:`0 \le m \le \mathrm{bits}`
            (checked before :math:`2^m` points are allocated).

        Returns
        -------
        sample : ndarray of shape (2**m, d)

        Raises
        ------
        ValueError
            If :math:`\mathrm{num\_generated} + 2^m` is not a power of 2.
        """
        more = " Consider increasing `bits`." if self.bits < MAX_BITS else ""
        return self._random_base2(m, self.bits, f"bits={self.bits}: at most 2**{self.bits} "
                                  "points can be generated", more, "Sobol'")
