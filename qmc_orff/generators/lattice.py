"""Rank-1 lattice rules: Kuo's extensible vector by default, Nuyens' latticeseq_b2 vector by name,
or any generating vector."""
from __future__ import annotations

import functools
import importlib.resources
import math
import numbers

import numpy as np

from .._jit import parallel_pays
from .._validation import as_float_array, check_choice, check_dimension, check_int
from . import _lattice
from ._base import IndexedEngine, init_engine

__all__ = ["Lattice", "kuo_generating_vector", "named_generating_vector", "NAMED_VECTORS",
           "KUO_MAXDIM", "KUO_MAX_LOG2N"]

#: Dimensions of the shipped default generating vector.
KUO_MAXDIM = 9125
#: The shipped vector is built for n = 2^10 .. 2^20 points.
KUO_MAX_LOG2N = 20
#: The shipped generating vectors (``qmc_orff/data``, provenance in its README):
#: name -> (file, largest dimension, base-2 logarithm of the largest lattice size).
NAMED_VECTORS = {
    # F. Y. Kuo's lattice-33002-1024-1048576.9125 (Cools, Kuo & Nuyens 2006, order-3 weights)
    "default": ("kuo.lattice-33002-1024-1048576.9125.npy", KUO_MAXDIM, KUO_MAX_LOG2N),
    # Cools, Kuo & Nuyens (2006), order-2 weights: the default of Nuyens' latticeseq_b2
    "exod2_base2_m20_CKN": ("mps.exod2_base2_m20_CKN.250.npy", 250, 20),
}
#: Largest lattice size N for an explicit generating vector (exact uint64 products).
MAX_N = 2 ** 32

_CHUNK = 4096


@functools.lru_cache(maxsize=None)
def _load_vector(name):
    res = importlib.resources.files("qmc_orff.data").joinpath(NAMED_VECTORS[name][0])
    with importlib.resources.as_file(res) as path:
        z = np.load(path).astype(np.int64)
    z.setflags(write=False)
    return z


def named_generating_vector(name, d):
    """First ``d`` entries of a shipped extensible lattice generating vector.

    Parameters
    ----------
    name : {"default", "exod2_base2_m20_CKN"}
        ``"default"``: F. Y. Kuo's ``lattice-33002-1024-1048576.9125`` (9125
        dimensions, order-3 weights); ``"exod2_base2_m20_CKN"``: the vector of
        Cools, Kuo & Nuyens (2006) for order-2 weights that Nuyens' ``latticeseq_b2``
        uses by default (250 dimensions).  Both are embedded lattice sequences in
        base 2 up to :math:`2^{20}` points (`NAMED_VECTORS`).  Provenance:
        ``qmc_orff/data/README.md``.
    d : int
        Dimension, ``1 <= d <=`` the vector's length.

    Returns
    -------
    z : ndarray of shape (d,), dtype int64
    """
    if not isinstance(name, str) or name not in NAMED_VECTORS:
        names = ", ".join(repr(k) for k in NAMED_VECTORS)
        raise ValueError(f"'generating_vector' must be one of {names}; got {name!r}.")
    maxdim = NAMED_VECTORS[name][1]
    d = check_dimension(d)
    if d > maxdim:
        raise ValueError(f"'d' must be <= {maxdim} with generating_vector={name!r} (the "
                         f"vector has {maxdim} dimensions); got {d}.")
    return _load_vector(name)[:d].copy()


def kuo_generating_vector(d):
    """First ``d`` entries of Kuo's extensible lattice generating vector.

    ``lattice-33002-1024-1048576.9125`` (F. Y. Kuo; Cools, Kuo & Nuyens 2006):
    an embedded rank-1 lattice sequence in base 2 for 2^10 .. 2^20 points, up to
    9125 dimensions.  Provenance: ``qmc_orff/data/README.md``.

    Parameters
    ----------
    d : int
        Dimension, ``1 <= d <= 9125``.

    Returns
    -------
    z : ndarray of shape (d,), dtype int64
    """
    return named_generating_vector("default", d)


class Lattice(IndexedEngine):
    r"""Rank-1 lattice rule :math:`x_i = \{\phi(i) z / N\}`, optionally shifted.

    Parameters
    ----------
    d : int
        Dimension, :math:`d \ge 1` (:math:`d \le 9125` with the default vector).
    generating_vector : {"default", "exod2_base2_m20_CKN"} or array-like of int of shape (d,), default="default"
        ``"default"``: Kuo's extensible vector ``lattice-33002-1024-1048576.9125``
        (Cools, Kuo & Nuyens 2006; order-3 weights, :math:`d \le 9125`), good for
        :math:`n = 2^{10}, \dots, 2^{20}` points.  ``"exod2_base2_m20_CKN"``: the
        vector of Cools, Kuo & Nuyens (2006) for order-2 weights that Nuyens'
        ``latticeseq_b2`` (Magic Point Shop) uses by default, :math:`d \le 250` and
        :math:`n \le 2^{20}`, the lattice of Avron et al. (2016); with the default
        ``order`` the points equal ``latticeseq_b2``'s.  Otherwise ``d`` nonnegative
        integers coprime with ``n_max`` (e.g. from `cbc_lattice`), stored reduced
        modulo ``n_max``.
    order : {"radical_inverse", "natural"}, default="radical_inverse"
        ``"radical_inverse"``: :math:`\phi(i)` is the base-2 radical inverse of :math:`i`
        times :math:`N`, so every prefix of :math:`2^m \le N` points is the full lattice
        with :math:`2^m` points (an embedded / extensible lattice sequence);
        needs ``N`` a power of 2.  With the default vector and no shift, the
        points equal QMCPy's ``Lattice(d, randomize='FALSE')``.
        ``"natural"``: :math:`\phi(i) = i`: the first ``N`` points are the lattice
        of size ``N`` in its natural order (prefixes are not lattices).
    shift : bool or array-like of shape (d,), default=False
        ``True``: add a uniform random shift modulo 1 drawn from ``rng``
        (a randomly shifted lattice rule, unbiased); an array: that shift, each
        entry in ``[0, 1)``; ``False``: no shift (the first point is 0).
    rng : None, int, SeedSequence, BitGenerator or Generator, default=None
        Source of the random shift, with the semantics of SciPy's ``rng``
        (passed to ``numpy.random.default_rng``; a Generator is spawned).
    seed : None, int, Generator or RandomState, default=None
        The legacy keyword with the meaning it has in SciPy's engines (an int
        seeds ``default_rng(seed)`` used directly, a RandomState is used as
        is), as in `Halton` and `Sobol`.  At most one of ``rng`` and ``seed``.
    n_max : int, optional
        The lattice size ``N`` (modulus of the rule); at most ``N`` points can
        be drawn.  Shipped vectors: a power of 2 up to :math:`2^{20}` (default
        :math:`2^{20}`).  Explicit vector: required, :math:`1 \le N \le 2^{32}`, and a power
        of 2 for ``order="radical_inverse"``.

    See Also
    --------
    cbc_lattice : a generating vector for your weights and size.
    worst_case_error : the score of a generating vector.
    Halton, Sobol : the other engines.

    Notes
    -----
    .. math::

       x_{i,j} = \Bigl\{\frac{\phi(i) z_j}{N} + \Delta_j\Bigr\},

    :math:`\{\cdot\}` the fractional part, with :math:`\Delta = 0` unless
    shifted.  Numerators :math:`\phi(i) z_j \bmod N` are computed exactly in uint64;
    the division by ``N`` is the only rounding.  Drawing is stateless in the
    index (numba, parallel over chunks of points).

    References
    ----------
    .. [1] R. Cools, F. Y. Kuo and D. Nuyens, "Constructing embedded lattice
       rules for multivariate integration", SIAM J. Sci. Comput. 28(6):2162-2188,
       2006.
    .. [2] F. J. Hickernell, H. S. Hong, P. L'Ecuyer and C. Lemieux, "Extensible
       lattice sequences for quasi-Monte Carlo quadrature", SIAM J. Sci. Comput.
       22(3):1117-1138, 2000.
    .. [3] D. Nuyens, "The Magic Point Shop of QMC point generators and generating
       vectors", https://people.cs.kuleuven.be/~dirk.nuyens/qmc-generators/
       (``latticeseq_b2`` and its default vector ``exod2_base2_m20_CKN``).

    Examples
    --------
    >>> from qmc_orff.generators import Lattice
    >>> Lattice(2).random(4)
    array([[0.  , 0.  ],
           [0.5 , 0.5 ],
           [0.25, 0.75],
           [0.75, 0.25]])
    >>> Lattice(2, generating_vector=[1, 3], order="natural", n_max=5).random(5)
    array([[0. , 0. ],
           [0.2, 0.6],
           [0.4, 0.2],
           [0.6, 0.8],
           [0.8, 0.4]])
    """

    def __init__(self, d, *, generating_vector="default", order="radical_inverse",
                 shift=False, rng=None, seed=None, n_max=None):
        self.order = check_choice(order, "order", ("radical_inverse", "natural"))
        if isinstance(generating_vector, str):
            name = generating_vector
            if name not in NAMED_VECTORS:
                others = ", ".join(repr(k) for k in NAMED_VECTORS if k != "default")
                raise ValueError("'generating_vector' must be 'default' or an array of d "
                                 f"integers, or another shipped vector ({others}); got {name!r}.")
            z = named_generating_vector(name, d)
            d = z.shape[0]
            max_n = 2 ** NAMED_VECTORS[name][2]
            n_max = check_int(max_n if n_max is None else n_max, "n_max", minimum=1,
                              maximum=max_n)
            if n_max & (n_max - 1):
                what = ("the default generating vector" if name == "default"
                        else f"generating_vector={name!r}")
                raise ValueError(f"'n_max' must be a power of 2 with {what}; got {n_max}.")
        else:
            d = check_dimension(d)
            if n_max is None:
                raise ValueError("'n_max' (the lattice size N) is required with an explicit "
                                 "'generating_vector'.")
            n_max = check_int(n_max, "n_max", minimum=1, maximum=MAX_N)
            if self.order == "radical_inverse" and n_max & (n_max - 1):
                raise ValueError("'n_max' must be a power of 2 for order='radical_inverse'; "
                                 f"got {n_max}.")
            z = _as_generating_vector(generating_vector, d, n_max)
        init_engine(self, d, rng=rng, seed=seed)
        self.generating_vector = z
        self.n_max = n_max
        self._z = np.ascontiguousarray(z % n_max, dtype=np.uint64)
        self._m = n_max.bit_length() - 1
        self.shift = self._make_shift(shift, d)

    def _make_shift(self, shift, d):
        if isinstance(shift, (bool, np.bool_)):
            return self.rng.random(d) if shift else None
        if shift is None:
            return None
        s = as_float_array(shift, "shift", ndim=1)
        if s.shape[0] != d:
            raise ValueError(f"'shift' must have length d={d}; got length {s.shape[0]}.")
        bad = (s < 0) | (s >= 1)
        if np.any(bad):
            raise ValueError(f"'shift' must lie in [0, 1); got {float(s[bad][0])!r}.")
        return s

    def _room(self):
        return (self.n_max, f"At most n_max={self.n_max} distinct lattice points can be "
                            "generated.", "")

    def random_base2(self, m):
        r"""Draw :math:`n = 2^m` points, keeping the lattice structure (as SciPy's
        `~scipy.stats.qmc.Sobol.random_base2`).

        In radical-inverse order the first :math:`2^k` points are the rank-1 lattice of
        :math:`2^k` points (:math:`2^k \le N`), so draws whose running total is a power
        of 2 end on a full lattice.

        Parameters
        ----------
        m : int
            Base-2 logarithm of the number of points, :math:`0 \le m \le \log_2 N`
            (``N = n_max``; checked before :math:`2^m` points are allocated).

        Returns
        -------
        sample : ndarray of shape (2**m, d)
            The next :math:`2^m` points of the sequence.

        Raises
        ------
        ValueError
            If the running total :math:`\mathrm{num\_generated} + 2^m` is not a power of 2
            or exceeds ``n_max``, or if ``order="natural"`` (whose prefixes are not lattices).
        """
        if self.order != "radical_inverse":
            raise ValueError("'order' must be 'radical_inverse' for random_base2 (prefixes of "
                             "2**m points are lattices only in that order; use random(n)); "
                             f"got {self.order!r}.")
        return self._random_base2(m, self._m, f"log2(n_max)={self._m}: at most n_max="
                                  f"{self.n_max} lattice points can be generated", "",
                                  "lattice")

    def _random(self, n=1, *, workers=1):
        n, out = self._empty(n)
        if n == 0:
            return out
        use_shift = self.shift is not None
        shift = self.shift if use_shift else np.zeros(self.d)
        parallel = parallel_pays(n, _CHUNK)  # else the serial build: the same points
        if self.order == "radical_inverse":
            kernel = (_lattice.lattice_radical_inverse if parallel
                      else _lattice.lattice_radical_inverse_serial)
            kernel(self.num_generated, n, self._z, self._m, shift, use_shift, _CHUNK, out)
        else:
            kernel = _lattice.lattice_natural if parallel else _lattice.lattice_natural_serial
            kernel(self.num_generated, n, self._z, self.n_max, shift, use_shift, _CHUNK, out)
        return out



def _as_generating_vector(z, d, n_max):
    """Check an explicit generating vector; return it reduced modulo ``n_max``."""
    arr = np.asarray(z)
    integral = np.issubdtype(arr.dtype, np.integer) or (
        arr.dtype == object and all(isinstance(v, numbers.Integral)
                                    and not isinstance(v, (bool, np.bool_))
                                    for v in arr.ravel()))
    if not integral:
        raise TypeError(f"'generating_vector' must contain integers; got dtype {arr.dtype}.")
    if arr.ndim != 1 or arr.shape[0] != d:
        raise ValueError(f"'generating_vector' must have shape ({d},) for d={d}; "
                         f"got shape {arr.shape}.")
    vals = [int(v) for v in arr.tolist()]
    for j, v in enumerate(vals):
        if v < 0:
            raise ValueError(f"'generating_vector' must be nonnegative; got {v} at index {j}.")
        g = math.gcd(v, n_max)
        if g != 1:
            raise ValueError(f"'generating_vector' must be coprime with n_max={n_max}; "
                             f"entry {j} is {v} (gcd {g}).")
    return np.array([v % n_max for v in vals], dtype=np.int64)
