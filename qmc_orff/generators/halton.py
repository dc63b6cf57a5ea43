"""Halton sequence: plain, RR2-permuted (deterministic) and randomly scrambled."""
from __future__ import annotations

import math

import numpy as np

from .._jit import parallel_pays
from .._validation import check_dimension, check_int
from . import _halton
from ._base import IndexedEngine, init_engine

__all__ = ["Halton", "first_primes", "rr2_permutation", "MAX_INDEX"]

#: Index bound: at most 2**53 points (indices ``0 .. 2**53 - 1``).  Beyond it
#: float64 cannot tell base-2 coordinates apart, the random scrambling (53
#: permuted base-2 digits, as SciPy) repeats, and the kernels' int64 digit
#: arithmetic would be one step from overflow.
MAX_INDEX = 2 ** 53
#: Largest dimension (the digit tables take 64 d float64 entries per thread).
MAX_DIM = 2 ** 16
#: Largest random-permutation table (``sum_j count_j b_j`` int32 entries, 1 GiB).
MAX_PERMUTATION_ENTRIES = 2 ** 28

# Points per parallel task: large enough to amortise the digit set-up.
_CHUNK = 2048


def first_primes(d):
    """Return the first ``d`` primes as an int64 array (sieve of Eratosthenes).

    Parameters
    ----------
    d : int
        Number of primes, ``d >= 1``.

    Returns
    -------
    primes : ndarray of shape (d,), dtype int64
    """
    d = check_dimension(d)
    # Rosser's bound p_d < d (ln d + ln ln d) for d >= 6.
    limit = 15 if d < 6 else int(d * (math.log(d) + math.log(math.log(d)))) + 1
    sieve = np.ones(limit + 1, dtype=bool)
    sieve[:2] = False
    for p in range(2, math.isqrt(limit) + 1):
        if sieve[p]:
            sieve[p * p::p] = False
    return np.flatnonzero(sieve)[:d].astype(np.int64)


def rr2_permutation(base):
    """Kocis-Whiten reverse-radix ("RR2") digit permutation for ``base``.

    The integers ``0 .. 2^k - 1`` (``2^k >= base``) are listed in base-2
    radical-inverse (bit-reversed) order and those ``>= base`` are dropped.

    Parameters
    ----------
    base : int
        The base (a prime >= 2).

    Returns
    -------
    perm : ndarray of shape (base,), dtype int64
        ``perm[r]`` replaces the digit ``r``; ``perm[0] = 0``.

    Examples
    --------
    >>> rr2_permutation(5).tolist()
    [0, 4, 2, 1, 3]
    """
    k = max(1, (int(base) - 1).bit_length())
    idx = np.arange(2 ** k, dtype=np.int64)
    rev = np.zeros_like(idx)
    for bit in range(k):
        rev |= ((idx >> bit) & 1) << (k - 1 - bit)
    return rev[rev < base]


def _digit_count(base):
    # SciPy's number of permuted digits per base (Owen 2017, Algorithm 1):
    # enough that base**-count > 2**-54.
    return math.ceil(54 / math.log2(base)) - 1


class Halton(IndexedEngine):
    r"""Halton sequence, randomly digit-permuted by default as in SciPy.

    Coordinate ``j`` of point ``i`` is the radical inverse of ``i`` in the
    ``j``-th prime base ``b_j``, with each digit optionally passed through a
    permutation of :math:`\{0, \dots, b_j - 1\}`.

    Parameters
    ----------
    d : int
        Dimension, :math:`0 \le d \le 65536` (the primes are computed).  With
        ``scramble=True`` the random permutation tables (:math:`\sum_j b_j`
        entries per digit position, more than :math:`2^{28}` from ``d`` near 4500) bound ``d``
        further; a larger ``d`` raises ``ValueError``.
    scramble : {True, False, "random", "deterministic"}, default=True
        - ``True`` (SciPy's default too) or ``"random"``: random digit
          permutations, one per digit position and base (Owen 2017), drawn from
          ``rng``.  With the same ``rng`` the points equal
          ``scipy.stats.qmc.Halton(d, rng=rng)``.
        - ``False``: the plain Halton sequence, bit-for-bit equal to
          ``scipy.stats.qmc.Halton(d, scramble=False)`` (first point 0).
        - ``"deterministic"``: the reverse-radix "RR2" permutations of Kocis and
          Whiten (1997), the same for every digit of a base (MATLAB's
          ``scramble(haltonset(d), 'RR2')``, as used by Avron et al.); no seed
          needed, first point 0.
    optimization : {None, "random-cd", "lloyd"}, default=None
        SciPy's post-processing of each draw (`scipy.stats.qmc.QMCEngine`):
        random coordinate permutations lowering the centered discrepancy, or
        Lloyd-Max iterations.  Each draw is then no longer a segment of the
        sequence.
    rng : None, int, SeedSequence, BitGenerator or Generator, default=None
        Source of the random permutations, with the semantics of SciPy's
        ``rng`` keyword (passed to ``numpy.random.default_rng``; a Generator
        is spawned, not consumed).
    seed : None, int, Generator or RandomState, default=None
        SciPy's legacy keyword with SciPy's legacy meaning (an int seeds
        ``default_rng(seed)`` used directly, a RandomState is used as is), so that
        ``Halton(d, seed=42)`` equals
        ``scipy.stats.qmc.Halton(d, seed=42)``.  At most one of ``rng`` and
        ``seed``.
    skip : int, default=0
        Index in the sequence of the first point, :math:`0 \le \mathrm{skip} < 2^{53}`
        (MATLAB's ``haltonset(d, 'Skip', skip)``; the origin is index 0).
    leap : int, default=0
        Indices left out between consecutive points, :math:`0 \le \mathrm{leap} < 2^{53}`:
        point :math:`i` of the set is index :math:`\mathrm{skip} + i (\mathrm{leap} + 1)` of
        the sequence (MATLAB's ``'Leap'``; Kocis and Whiten recommend a ``leap + 1``
        prime to every base).  Each point is computed from its index (nothing skipped is
        generated); the digit permutations apply to it exactly as to the same index
        without leap.  Defaults 0 and 0: SciPy's points.

    See Also
    --------
    Sobol, Lattice : the other engines.
    make_frequencies : Halton points as frequencies (``sequence="halton"`` or this engine).
    scipy.stats.qmc.Halton : SciPy's engine, equal point for point with the same ``rng``.

    Notes
    -----
    .. math::

        x_{i,j} = \sum_{k \ge 0} \pi_{j,k}\bigl(a_k(i)\bigr)\, b_j^{-k-1},
        \qquad i = \sum_{k \ge 0} a_k(i)\, b_j^k,

    :math:`b_j` the :math:`j`-th prime and :math:`\pi_{j,k}` the identity (plain), a random
    permutation, or the RR2 permutation; point :math:`m` of the set is
    :math:`x_{\mathrm{skip} + m (\mathrm{leap} + 1)}`.  Points are in :math:`[0, 1)^d` and float64; at most :math:`2^{53}`
    indices (`MAX_INDEX`: ``random`` and ``fast_forward`` raise ``ValueError``
    beyond it), and ``d = 0`` gives empty points as in SciPy.  The kernel runs in
    parallel over chunks of points with numba's threads (``workers`` is
    accepted for SciPy compatibility and ignored; use ``numba.set_num_threads``).

    References
    ----------
    .. [1] J. H. Halton, "On the efficiency of certain quasi-random sequences of
       points in evaluating multi-dimensional integrals", Numer. Math. 2, 1960.
    .. [2] L. Kocis and W. J. Whiten, "Computational investigations of
       low-discrepancy sequences", ACM Trans. Math. Softw. 23(2):266-294, 1997.
    .. [3] Art B. Owen, "A randomized Halton algorithm in R", arXiv:1706.02808, 2017.

    Examples
    --------
    >>> from qmc_orff.generators import Halton
    >>> Halton(2, scramble=False).random(4)
    array([[0.        , 0.        ],
           [0.5       , 0.33333333],
           [0.25      , 0.66666667],
           [0.75      , 0.11111111]])

    MATLAB's ``scramble(haltonset(3, 'Skip', 1e3, 'Leap', 1e2), 'RR2')``:

    >>> Halton(3, scramble="deterministic", skip=1000, leap=100).random(2)
    array([[0.09277344, 0.695016  , 0.00288   ],
           [0.69580078, 0.29583905, 0.82688   ]])
    """

    def __init__(self, d, *, scramble=True, optimization=None, rng=None, seed=None, skip=0,
                 leap=0):
        d = check_int(d, "d", minimum=0, maximum=MAX_DIM)   # d = 0: (n, 0) points, as SciPy
        if scramble is True or scramble is False or isinstance(scramble, np.bool_):
            mode = "random" if bool(scramble) else "none"
        elif isinstance(scramble, str) and scramble in ("random", "deterministic"):
            mode = scramble
        else:
            raise ValueError("'scramble' must be one of False, True, 'random', "
                             f"'deterministic'; got {scramble!r}.")
        self._init_skip_leap(skip, leap)
        init_engine(self, d, rng=rng, seed=seed, optimization=optimization)
        self.scramble = scramble
        self._mode = mode
        self.base = first_primes(d) if d > 0 else np.zeros(0, dtype=np.int64)
        weights = np.empty((d, _halton.MAX_DIGITS), dtype=np.float64)
        # Same recurrence as SciPy (b2r = 1.0 / base; b2r /= base), so the
        # products digit * weight are bit-identical.
        weights[:, 0] = 1.0 / self.base
        for k in range(1, _halton.MAX_DIGITS):
            weights[:, k] = weights[:, k - 1] / self.base
        self._weights = weights
        if mode != "none":
            self._counts = np.array([_digit_count(int(b)) for b in self.base], dtype=np.int64)
            entries = int(np.sum(self._counts * self.base))
            if mode == "random" and entries > MAX_PERMUTATION_ENTRIES:
                raise ValueError(
                    f"'d' is too large for scramble=True: the random digit permutations would "
                    f"take {entries} entries (more than 2**28, 1 GiB); got d={d}. Use "
                    f"scramble=False or 'deterministic', or a smaller d.")
            blocks = []
            for b, count in zip(self.base.tolist(), self._counts.tolist()):
                if mode == "random":
                    # Exactly SciPy's `_van_der_corput_permutations`, in the same
                    # order of draws, so that a seed gives SciPy's points: one
                    # permutation per digit position.
                    block = np.repeat(np.arange(b)[None], count, axis=0)
                    for perm in block:
                        self.rng.shuffle(perm)
                else:
                    block = rr2_permutation(b)   # one permutation for all positions
                blocks.append(block.astype(np.int32).ravel())   # digits < 2^31
            sizes = np.array([blk.size for blk in blocks], dtype=np.int64)
            self._offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
            self._strides = self.base.copy() if mode == "random" else np.zeros(d, np.int64)
            self._perms = np.ascontiguousarray(np.concatenate(blocks or [np.zeros(0, np.int32)]))

    def _room(self):
        return (MAX_INDEX, f"At most 2**53={MAX_INDEX} Halton points can be generated "
                           "(float64 resolution).", "")

    def _random(self, n=1, *, workers=1):
        n, out = self._empty(n)
        if n == 0 or self.d == 0:
            return out
        start, step = self.num_generated, self.leap + 1
        parallel = parallel_pays(n, _CHUNK)  # else the serial build: the same points
        if self._mode == "none":
            kernel = _halton.halton_plain if parallel else _halton.halton_plain_serial
            kernel(start, n, self.skip, step, self.base, self._weights, _CHUNK, out)
            return out
        counts = self._counts
        if self._mode == "deterministic":
            # RR2 maps the digit 0 to 0: digits above the largest index's
            # length add exact zeros, so they are skipped (same values).
            last = self.sequence_index(start + n - 1)
            needed = np.array([max(1, _n_digits(last, int(b))) for b in self.base],
                              dtype=np.int64)
            counts = np.minimum(counts, needed)
        kernel = _halton.halton_permuted if parallel else _halton.halton_permuted_serial
        kernel(start, n, self.skip, step, self.base, self._weights, counts, self._offsets,
               self._strides, self._perms, _CHUNK, out)
        return out



def _n_digits(i, b):
    k = 0
    while i > 0:
        i //= b
        k += 1
    return k
