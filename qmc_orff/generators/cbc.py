"""Fast component-by-component (CBC) construction of rank-1 lattice rules."""
from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
import scipy.fft
import scipy.special

from .._validation import MAX_ELEMENTS, as_positive, check_dimension, check_int
from . import _cbc_kernels

if TYPE_CHECKING:  # names used in type hints only
    from numpy.typing import ArrayLike

__all__ = ["cbc_lattice", "worst_case_error"]

#: Largest supported lattice size: the library's limit on one array (`MAX_ELEMENTS`, 2**28
#: float64 entries), since the construction keeps several working arrays of ``n`` entries
#: (about 75 bytes per point at its peak: 19 GiB at 2**28); a larger ``n`` is refused with a
#: ValueError before anything is allocated.
MAX_N = MAX_ELEMENTS


def _check_n(n):
    """``n`` as an int in ``[1, MAX_N]`` (arithmetic only: nothing allocated yet)."""
    n = check_int(n, "n", minimum=1)
    if n > MAX_N:
        raise ValueError(f"'n' must be <= 2**28 = {MAX_N} (the construction keeps arrays of n "
                         f"float64 entries, about 75 bytes per point in all); got {n}.")
    return n
#: Largest supported smoothness (B_alpha evaluated as a polynomial in float64).
MAX_ALPHA = 12


def _check_alpha(alpha):
    alpha = check_int(alpha, "alpha", minimum=2, maximum=MAX_ALPHA)
    if alpha % 2:
        raise ValueError(f"'alpha' must be an even integer (2, 4, ..., {MAX_ALPHA}); "
                         f"got {alpha}.")
    return alpha


def _omega(x, alpha):
    """``omega_alpha(x) = sum_{h != 0} exp(2 pi i h x) / |h|^alpha`` for x in [0, 1].

    Equals ``(-1)^(alpha/2 + 1) (2 pi)^alpha / alpha! * B_alpha(x)`` (B the
    Bernoulli polynomial); for alpha = 2: ``2 pi^2 (x^2 - x + 1/6)``.
    """
    if alpha == 2:
        return 2.0 * math.pi ** 2 * (x * x - x + 1.0 / 6.0)
    coef, factor = _omega_coefficients(alpha)
    return factor * np.polyval(coef, x)


def _omega_coefficients(alpha):
    """``(coef, factor)`` with ``omega_alpha(x) = factor * polyval(coef, x)`` (alpha > 2)."""
    if alpha == 2:
        return np.zeros(1), 1.0  # unused: omega_2 has its own expression
    b = _bernoulli_numbers(alpha)  # exact B_0 .. B_alpha, with B_1 = -1/2
    coef = [float(math.comb(alpha, k) * b[k]) for k in range(alpha + 1)]  # of x^(alpha-k)
    sign = -1.0 if (alpha // 2) % 2 == 0 else 1.0
    return np.array(coef), sign * (2.0 * math.pi) ** alpha / math.factorial(alpha)


@functools.lru_cache(maxsize=None)
def _bernoulli_numbers(n):
    """Exact Bernoulli numbers B_0 .. B_n (B_1 = -1/2) as Fractions.

    From sum_{k<m+1} C(m+1, k) B_k = 0.  (`scipy.special.bernoulli` returns
    B_4 with a relative error of about 2e-12 (SciPy 1.17), which shows in
    ``P_4`` at the 1e-8 relative level.)
    """
    b = [Fraction(1)]
    for m in range(1, n + 1):
        b.append(-sum(math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return tuple(b)


def _n_kind(n):
    """'pow2' or 'prime' for a valid lattice size, else raise."""
    if n & (n - 1) == 0:
        return "pow2"
    if n > 2 and n % 2 and all(n % q for q in range(3, math.isqrt(n) + 1, 2)):
        return "prime"
    raise ValueError(f"'n' must be a prime or a power of 2; got {n}.")


def _primitive_root(p):
    """Smallest generator of the multiplicative group modulo the prime ``p``."""
    if p == 2:
        return 1
    factors, m, q = set(), p - 1, 2
    while q * q <= m:
        while m % q == 0:
            factors.add(q)
            m //= q
        q += 1
    if m > 1:
        factors.add(m)
    for g in range(2, p):
        if all(pow(g, (p - 1) // f, p) != 1 for f in factors):
            return g
    raise AssertionError("unreachable: every prime has a primitive root")


def _powers(g, count, modulus):
    """``g^c mod modulus``, ``c = 0 .. count-1`` (int64; compiled)."""
    return _cbc_kernels.powers(int(g), int(count), int(modulus))


#: Correlations at least this long use the four-step FFT (their transforms outgrow the
#: L2 cache: 2 MiB of float64 at 2^18).
_FOUR_STEP_MIN = 2 ** 17


class _Correlation:
    """Circular correlation ``y[i] = sum_e x[e] f[(i + e) mod L]`` with a fixed real ``f``.

    ``y = irfft(rfft(f) * conj(rfft(x)))``.  From ``L = 2^17`` on (`_FOUR_STEP_MIN`, powers
    of 2 only) the transforms are split as ``L = n2 * n1`` (four-step FFT, Bailey 1990):
    ``x`` as an ``(n2, n1)`` array, a real FFT along the columns, twiddle factors
    ``exp(-2 pi i k2 j1 / L)``, a complex FFT along the rows; the half spectrum in that
    layout (``k2 <= n2/2``) determines the rest by ``X[L - k] = conj(X[k])``, and the
    inverse runs the steps backwards (inverse FFT along the rows, conjugate twiddles, a
    real inverse FFT along the columns).  Each of these transforms is short enough for
    the cache, where a single length-``L`` transform streams ``log L`` times through memory.
    """

    def __init__(self, f):
        length = f.shape[0]
        self.length = length
        self.split = length >= _FOUR_STEP_MIN and length & (length - 1) == 0
        if self.split:
            self.n1 = 1 << (length.bit_length() - 1) // 2
            self.n2 = length // self.n1
            k2 = np.arange(self.n2 // 2 + 1)[:, None]
            self.twiddle = np.exp((-2j * math.pi / length) * (k2 * np.arange(self.n1)))
            self.twiddle_conj = np.conj(self.twiddle)
        self.fhat = self._forward(f)

    def _forward(self, x):
        if not self.split:
            return scipy.fft.rfft(x)
        a = scipy.fft.rfft(x.reshape(self.n2, self.n1), axis=0)
        a *= self.twiddle
        return scipy.fft.fft(a, axis=1, overwrite_x=True)

    def __call__(self, x):
        xh = self._forward(x)
        np.conjugate(xh, out=xh)
        np.multiply(self.fhat, xh, out=xh)          # fhat * conj(X), as with full spectra
        if not self.split:
            return scipy.fft.irfft(xh, self.length, overwrite_x=True)
        c = scipy.fft.ifft(xh, axis=1, overwrite_x=True)
        c *= self.twiddle_conj
        return scipy.fft.irfft(c, self.n2, axis=0).reshape(-1)


def _cbc_prime(n, d, gamma, om, ukw):
    """CBC steps for a prime ``n > 2``; returns ``(z, p)`` (p in natural order).

    The products are kept in generator order, ``pp[c] = p[g^c mod n]`` and
    ``pp[n - 1] = p[0]``, so the correlated vector is the slice ``pp[:n - 1]``.
    """
    g = _primitive_root(n)
    gp = _powers(g, n - 1, n)                       # g^c mod n, c = 0 .. n-2
    corr = _Correlation(om[gp])
    canon = np.minimum(gp, n - gp)
    om_max = np.abs(om).max()
    perm = np.append(gp, 0)
    pp = (1.0 + gamma[0] * om)[perm]                # p_1 (z_1 = 1), generator order
    z = np.ones(d, dtype=np.int64)
    for s in range(1, d):
        x = pp[: n - 1]
        scale = np.abs(x).sum()
        y = corr(x)
        i = _cbc_kernels.select(y, canon, y.min() + 1e-12 * (scale * om_max))
        z[s] = canon[i]
        # z = g^cz mod n (gp[i] is z or n - z = g^(i + (n-1)/2))
        cz = i if gp[i] == z[s] else (i + (n - 1) // 2) % (n - 1)
        _cbc_kernels.update_prime(pp, gp, cz, n, float(gamma[s]), *ukw)
    p = np.empty(n)
    p[perm] = pp
    return z, p


def _cbc_pow2(n, d, gamma, om, ukw):
    """CBC steps for ``n = 2^m >= 8``; returns ``(z, p)`` (p in natural order).

    ``k = 2^lev u`` (``u`` odd modulo ``M = 2^(m - lev) >= 8``, ``u = +-5^b``) splits
    the sum into one circular correlation of length ``L = M / 4`` per level.  The
    products are kept in that order (layout in `_cbc_kernels.update_pow2`), so each
    level's vector ``p[2^lev 5^b] + p[n - 2^lev 5^b]`` is a sum of two contiguous
    blocks, formed by the update itself.
    """
    m = n.bit_length() - 1
    g5 = _powers(5, n // 4, n)                      # 5^b mod n, b = 0 .. n/4 - 1
    canon = np.minimum(g5, n - g5)
    om_max = np.abs(om).max()
    sizes = np.array([n >> (lev + 2) for lev in range(m - 2)], dtype=np.int64)
    perm = np.empty(n, dtype=np.int64)
    corrs, offsets = [], []
    a = o = 0
    for lev, size in enumerate(sizes.tolist()):     # k = 2^lev u, u odd mod M = 2^(m - lev) >= 8
        big_m = n >> lev
        gm = g5[:size] % big_m
        perm[a:a + size] = gm << lev
        perm[a + size:a + 2 * size] = (big_m - gm) << lev
        corrs.append(_Correlation(om[gm << lev]))
        offsets.append(o)
        a += 2 * size
        o += size
    # levels with M = 2 or 4 (k = 0, n/4, n/2, 3n/4) add the same value for every odd z:
    # kept last, for the error only
    perm[a:] = np.arange(4) * (n // 4)
    pp = (1.0 + gamma[0] * om)[perm]                # p_1 (z_1 = 1), level order
    x = np.empty(n // 2 - 2)                        # the levels' vectors, one after another
    ax = np.empty_like(x)
    c = np.empty_like(x)                            # the levels' correlations, likewise
    y = np.empty(n // 4)
    _cbc_kernels.update_pow2(pp, x, sizes, 0, n, 0.0, *ukw)   # z = 0: forms x only
    z = np.ones(d, dtype=np.int64)
    for s in range(1, d):
        _cbc_kernels.abs_into(x, ax)
        scale = 0.0
        for size, o, corr in zip(sizes.tolist(), offsets, corrs):
            scale += ax[o:o + size].sum()           # = np.abs(x_level).sum()
            c[o:o + size] = corr(x[o:o + size])
        ymin = _cbc_kernels.sum_levels(c, sizes, y)
        z[s] = canon[_cbc_kernels.select(y, canon, ymin + 1e-12 * (scale * om_max))]
        _cbc_kernels.update_pow2(pp, x, sizes, int(z[s]), n, float(gamma[s]), *ukw)
    p = np.empty(n)
    p[perm] = pp
    return z, p


def cbc_lattice(n: int, d: int, *, weights: ArrayLike | None = None, alpha: int = 2,
                return_error: bool = False) -> np.ndarray | tuple[np.ndarray, float]:
    r"""Generating vector of a rank-1 lattice rule by fast CBC construction.

    Chooses :math:`z_1 = 1` and then, one coordinate at a time, the :math:`z_s` in the
    units modulo :math:`n` that minimises the worst-case error :math:`P_\alpha` of the
    :math:`s`-dimensional rule in the weighted Korobov space, with the FFT-based
    algorithm of Nuyens and Cools (:math:`O(d\, n \log n)` operations).

    Parameters
    ----------
    n : int
        Number of points (the modulus): a prime or a power of 2,
        :math:`1 \le n \le 2^{28}` (`MAX_N`; the construction needs about 75 bytes per
        point: 75 MiB at :math:`2^{20}`, 19 GiB at :math:`2^{28}`; a larger ``n`` raises
        `ValueError` before anything is allocated).
    d : int
        Dimension, :math:`d \ge 1`.
    weights : float or array-like of shape (d,), optional
        Positive product weights :math:`\gamma_j`.  Default :math:`\gamma_j = j^{-2}`
        (:math:`j = 1, \dots, d`); a scalar gives equal weights.
    alpha : int, default=2
        Smoothness: an even integer, :math:`2 \le \alpha \le 12`.
    return_error : bool, default=False
        Also return the worst-case error :math:`P_\alpha` of the result.

    Returns
    -------
    z : ndarray of shape (d,), dtype int64
        The generating vector, entries in :math:`[1, n/2]` (:math:`z` and :math:`n - z` give
        the same error); use it with ``Lattice(d, generating_vector=z,
        order="natural", n_max=n)``.
    error : float
        :math:`P_\alpha(z)`, only when ``return_error`` is True.

    See Also
    --------
    worst_case_error : the criterion it minimises, for any vector.
    Lattice : the engine that takes the vector (``generating_vector=``).

    Notes
    -----
    For the rule :math:`x_k = \{k z / n\}` (:math:`\{\cdot\}` the fractional part),
    :math:`k = 0, \dots, n-1`,

    .. math::

       P_\alpha(z) = -1 + \frac{1}{n} \sum_{k=0}^{n-1} \prod_{j=1}^{d}
       \Bigl(1 + \gamma_j\, \omega_\alpha\bigl(\{k z_j / n\}\bigr)\Bigr),

    .. math::

       \omega_\alpha(x) = \sum_{h \ne 0} \frac{e^{2 \pi i h x}}{|h|^\alpha}
       = (-1)^{\alpha/2+1} \frac{(2 \pi)^\alpha}{\alpha!} B_\alpha(x),

    e.g. :math:`\omega_2(x) = 2 \pi^2 (x^2 - x + 1/6)` (Sloan & Joe 1994; Nuyens & Cools
    2006a).  Step :math:`s` minimises :math:`\sum_k p_{s-1}(k)\, \omega(k z / n)` over the
    units :math:`z`; indexing units by a generator of the cyclic group (prime :math:`n`)
    or by :math:`\pm 5^b` (:math:`n = 2^m`: the odd residues, split by the power of 2
    dividing :math:`k`) makes that matrix-vector product a circular correlation,
    computed by FFT (Nuyens & Cools 2006a for prime :math:`n`, 2006b for :math:`2^m`);
    real FFTs, and from length :math:`2^{17}` on the four-step split of the FFT (Bailey
    1990), which keeps :math:`n = 2^{20}` close to :math:`O(d\, n \log n)` in time.  (The
    real transforms' correlation values differ from complex ones by about 1 ulp, the
    products and so the returned error not at all, and the chosen vectors are identical on
    every case checked: ``tests/data/cbc_vectors_i14.json`` and a sweep of 899 cases up to
    :math:`n = 2^{20}`.)
    Ties (e.g. :math:`z` and :math:`z^{-1}` in two dimensions) are broken towards the
    smallest :math:`z`: among the candidates within :math:`10^{-12}` (relative to the size of the terms) of the
    minimum, the smallest is kept.  :math:`P_\alpha = O(n^{-\alpha + \delta})` for
    summable weights.

    References
    ----------
    .. [1] (2006a) D. Nuyens and R. Cools, "Fast algorithms for component-by-component
       construction of rank-1 lattice rules in shift-invariant reproducing
       kernel Hilbert spaces", Math. Comp. 75(254):903-920, 2006.
    .. [2] (2006b) D. Nuyens and R. Cools, "Fast component-by-component construction of
       rank-1 lattice rules with a non-prime number of points", J. Complexity
       22:4-28, 2006.
    .. [3] D. H. Bailey, "FFTs in external or hierarchical memory", J. Supercomputing
       4:23-35, 1990 (the four-step FFT).
    .. [4] I. H. Sloan and S. Joe, "Lattice Methods for Multiple Integration",
       Oxford University Press, 1994.

    Examples
    --------
    >>> from qmc_orff.generators import cbc_lattice
    >>> cbc_lattice(1024, 4)
    array([  1, 275, 167, 403])
    """
    n = _check_n(n)
    d = check_dimension(d)
    alpha = _check_alpha(alpha)
    gamma = _weights(weights, d)
    _check_weight_range(gamma, alpha)
    kind = _n_kind(n)
    om = _omega(np.arange(n, dtype=np.int64) / n, alpha)   # omega(k / n), k = 0 .. n-1
    coef, factor = _omega_coefficients(alpha)
    ukw = (coef, factor, alpha == 2)
    if kind == "prime" and n > 2:
        z, p = _cbc_prime(n, d, gamma, om, ukw)
    elif n >= 8:
        z, p = _cbc_pow2(n, d, gamma, om, ukw)
    else:
        # n in {1, 2, 4}: every unit is +-1, so z = 1 is optimal.
        z = np.ones(d, dtype=np.int64)
        p = 1.0 + gamma[0] * om
        for s in range(1, d):
            _cbc_kernels.update_p(p, 1, n, float(gamma[s]), *ukw)
    if return_error:
        return z, float(p.mean() - 1.0)
    return z


def worst_case_error(z: ArrayLike, n: int, *, weights: ArrayLike | None = None,
                     alpha: int = 2) -> float:
    r"""Worst-case error :math:`P_\alpha` of the rank-1 lattice rule :math:`(z, n)`.

    Parameters
    ----------
    z : array-like of int, shape (d,)
        Generating vector.
    n : int
        Number of points, :math:`1 \le n \le 2^{28}` (`MAX_N`; arrays of :math:`n` entries, about
        50 bytes per point in all).
    weights : float or array-like of shape (d,), optional
        Product weights :math:`\gamma_j` (default :math:`j^{-2}`), as in `cbc_lattice`.
    alpha : int, default=2
        Even smoothness :math:`2 \le \alpha \le 12`.

    Returns
    -------
    error : float
        :math:`P_\alpha(z) = -1 + \frac{1}{n} \sum_{k<n} \prod_j \bigl(1 + \gamma_j\,
        \omega_\alpha(\{k z_j / n\})\bigr)` (see `cbc_lattice`), computed directly in
        :math:`O(n d)`.

    See Also
    --------
    cbc_lattice : builds a vector that minimises it.
    Lattice : the engine that draws the rule's points.

    Examples
    --------
    In one dimension, with :math:`\gamma_1 = 1`, :math:`P_2 = \pi^2 / (3 n^2)` (to the rounding of
    ``-1 + mean(...)``, about 1e-16 absolute):

    >>> import math
    >>> from qmc_orff import cbc_lattice, worst_case_error
    >>> P_2 = math.pi ** 2 / (3 * 1024 ** 2)
    >>> math.isclose(worst_case_error([1], 1024), P_2, rel_tol=1e-9)
    True

    The component-by-component vector against the diagonal ``z = (1, 1, 1, 1)``:

    >>> round(worst_case_error(cbc_lattice(1024, 4), 1024), 6)
    0.000546
    >>> round(worst_case_error([1, 1, 1, 1], 1024), 6)
    1.149378
    """
    n = _check_n(n)
    zz = np.asarray(z)
    if zz.ndim != 1 or zz.size < 1:
        raise ValueError(f"'z' must be a non-empty 1-D array; got shape {zz.shape}.")
    if not np.issubdtype(zz.dtype, np.integer):
        raise TypeError(f"'z' must contain integers; got dtype {zz.dtype}.")
    alpha = _check_alpha(alpha)
    gamma = _weights(weights, zz.shape[0])
    _check_weight_range(gamma, alpha)
    k = np.arange(n, dtype=np.int64)
    p = np.ones(n)
    for j, zj in enumerate((zz.astype(np.int64) % n).tolist()):
        p *= 1.0 + gamma[j] * _omega((k * zj % n) / n, alpha)
    return float(p.mean() - 1.0)


def _weights(weights, d):
    if weights is None:
        return 1.0 / np.arange(1, d + 1, dtype=np.float64) ** 2
    if np.ndim(weights) == 0:   # one weight for every coordinate
        return np.full(d, as_positive([weights], "weights")[0])
    return np.array(as_positive(weights, "weights", d=d), dtype=np.float64)


def _check_weight_range(gamma, alpha):
    """Reject weights for which ``prod_j (1 + gamma_j omega)`` may overflow float64.

    ``|omega_alpha| <= omega_alpha(0) = 2 zeta(alpha)``, so every product in
    ``P_alpha`` is at most ``prod_j (1 + 2 zeta(alpha) gamma_j)``; that bound
    must stay below 1e290 (computed in logs; the margin covers the sums over
    up to 2**28 points).
    """
    c = 2.0 * float(scipy.special.zeta(alpha))
    with np.errstate(over="ignore"):  # c gamma_j beyond float64: inf, refused below
        log_bound = float(np.sum(np.log1p(c * gamma)))
    if not log_bound < math.log(1e290):
        raise ValueError("'weights' are too large: prod_j (1 + 2 zeta(alpha) weights_j) "
                         f"= exp({log_bound:.4g}) exceeds 1e290, and P_alpha would overflow "
                         "float64; got max weight "
                         f"{float(np.max(gamma))!r}.")
