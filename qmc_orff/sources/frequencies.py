"""Frequencies (and quadrature weights) for a kernel from a point source.

One function, :func:`make_frequencies`, turns any point source -- i.i.d.
sampling, orthogonal random features, a low-discrepancy sequence, a designed
:class:`~qmc_orff.Sequence` or an explicit array -- into frequencies
``W`` of shape ``(s, d)`` and weights ``xi`` of shape ``(s,)`` such that

    k(x, z) ~= sum_j xi_j cos<x - z, w_j>.

Unit-cube points become frequencies by the inverse CDF, coordinate-wise for
product densities; the Matern (multivariate t) and the radial measure use one
extra coordinate (see :func:`make_frequencies`, Notes).
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from .._validation import MAX_DIMENSION, check_size
from .._validation import (as_generator, as_points, as_positive, check_choice, check_int,
                           check_positive_real)
from ..densities import get_density
from ..generators import Halton, Lattice, Sobol
from ..kernels import SCALAR_KERNELS
from ..sequence import Sequence
from ._engine_cube import T_EPS, centre, engine_cube_points
from ._orthogonal import ORF_QMC_SEED, _orf_qmc, _orthogonal

if TYPE_CHECKING:  # names used in type hints only
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["make_frequencies", "source_points", "KERNELS", "SOURCES", "T_EPS"]

#: Kernels whose spectral measures :func:`make_frequencies` samples: the scalar kernels by
#: name (:data:`qmc_orff.kernels.SCALAR_KERNELS`).
KERNELS = tuple(SCALAR_KERNELS)
#: Named point sources.  ``"auto"`` is the rule of the feature maps' default (see
#: :func:`make_frequencies`).
SOURCES = ("auto", "orf-qmc", "mc", "orf", "halton", "sobol", "lattice")
_MEASURES = ("spectral", "radial")


# --------------------------------------------------------------------------- unit-cube points
def _engine(name, dim, scramble, seed):
    """The :mod:`qmc_orff.generators` engine for ``name``."""
    if name == "halton":
        return Halton(dim, scramble=scramble, rng=as_generator(seed))
    if scramble == "deterministic":
        raise ValueError(f"'scramble' must be True or False for sequence={name!r}; "
                         "got 'deterministic'.")
    if name == "sobol":
        return Sobol(dim, scramble=bool(scramble), rng=as_generator(seed))
    return Lattice(dim, order="radical_inverse", shift=bool(scramble), rng=as_generator(seed))


def _check_scramble(scramble):
    if not (isinstance(scramble, (bool, np.bool_)) or scramble in ("deterministic", "auto")):
        raise ValueError("'scramble' must be one of 'auto', True, False, 'deterministic'; "
                         f"got {scramble!r}.")


def _resolve_scramble(scramble, source):
    """``"auto"``: the deterministic RR2 permutations for Halton, randomised otherwise."""
    if isinstance(scramble, str) and scramble == "auto":
        return "deterministic" if source == "halton" else True
    return scramble


def source_points(source, s, dim, *, scramble="auto", seed=None):
    """``s`` points of a low-discrepancy sequence in the open unit cube ``(0, 1)^dim``.

    Parameters
    ----------
    source : {"halton", "sobol", "lattice"}
    s : int
        Number of points, ``s >= 1``.
    dim : int
        Dimension of the cube.
    scramble : "auto", bool or "deterministic", default="auto"
        ``"auto"``: ``"deterministic"`` for Halton (no seed needed, the same
        points every time) and ``True`` for Sobol' and lattices.
        ``True``: randomised QMC -- random digit permutations (Halton), LMS
        scrambling plus digital shift (Sobol'), a uniform random shift modulo 1
        (lattice), drawn from ``seed``.  ``False``: the plain sequence.
        ``"deterministic"`` (Halton only): the RR2 permutations of Kocis and
        Whiten (1997), as used by Avron et al. (2016).
    seed : None, int, SeedSequence, BitGenerator or Generator, default=None

    Returns
    -------
    ndarray of shape (s, dim)
        Points in ``[T_EPS, 1 - T_EPS]``.

    Notes
    -----
    Policy for the boundary (the inverse CDF is infinite at 0 and 1):

    * Unrandomised points (``scramble=False`` or ``"deterministic"``) start at
      the origin.  Their first ``s`` points have coordinates on the grid
      ``b^-D Z`` with ``D`` the number of base-``b`` digits of ``s - 1``
      (``D = 0`` for ``s = 1``; ``b = 2`` for Sobol' and lattices in radical-inverse order, the
      coordinate's prime for Halton).  They are *centred*: shifted by half a
      grid step, ``t <- t + b^-D / 2``.  Each one-dimensional projection of a
      net then becomes the midpoint rule, the points stay inside ``(0, 1)``
      and, for base 2, the shift is a digital shift that keeps the net
      structure.  No point is dropped.
    * Randomised points are in ``(0, 1)`` with probability one, but the
      engines work with finitely many digits (Sobol': 30 bits), so a
      coordinate can be exactly 0; as a safety net every coordinate is clipped
      to ``[T_EPS, 1 - T_EPS]``, ``T_EPS = 2**-53``.  The clip changes nothing
      in the centred case.

    An engine passed as ``sequence=`` follows the same rule
    (:func:`make_frequencies`).  The designs' start points and
    ``qmc-orff generate`` skip index 0 of unrandomised Halton/Sobol' points instead.
    """
    return _source_points(source, s, dim, scramble, seed, "s")


def _source_points(source, s, dim, scramble, seed, name):
    """:func:`source_points`, its count checked and named as ``name`` (the caller's parameter:
    ``"n_components"`` for :func:`make_frequencies`)."""
    source = check_choice(source, "sequence", ("halton", "sobol", "lattice"))
    s = check_size(s, name, minimum=1, width=dim if isinstance(dim, int) else 1)
    _check_scramble(scramble)
    scramble = _resolve_scramble(scramble, source)
    engine = _engine(source, dim, scramble, seed)
    with warnings.catch_warnings():
        # the engine's warning points into this module; ours below names the parameter
        warnings.filterwarnings("ignore", message="The balance properties of Sobol",
                                category=UserWarning)
        t = np.array(engine.random(s), dtype=np.float64)
    if source == "sobol" and s & (s - 1):
        warnings.warn(f"sequence='sobol' with {name}={s}: the balance properties of "
                      "Sobol' points need a power of 2.", UserWarning, stacklevel=3)
    if scramble is not True and not (isinstance(scramble, np.bool_) and scramble):
        bases = engine.base.tolist() if source == "halton" else [2] * dim
        return centre(t, bases, s - 1)
    np.clip(t, T_EPS, 1.0 - T_EPS, out=t)
    return t


# --------------------------------------------------------------------------- inverse CDFs
def _ppf_cauchy(t):
    return get_density("laplacian").ppf(t)


def _ppf_sech(t):
    """Inverse CDF of the hyperbolic secant density ``sech(pi w)``: ``pi^-1 log(tan(pi t / 2))``."""
    return np.log(np.tan(0.5 * np.pi * t)) / np.pi


def _ppf_gaussian(t):
    return get_density("gaussian").ppf(t)


def _from_unit(t, kernel, measure, nu, d):
    """Map unit-cube points ``t`` of shape (s, d or d + 1) to unit-bandwidth frequencies."""
    if measure == "radial":
        z = _ppf_gaussian(t[:, :d])
        r = np.sqrt(stats.chi2.ppf(t[:, d], d + 2))
        return _radial(z, r)
    if kernel == "gaussian":
        return _ppf_gaussian(t)
    if kernel == "laplacian":
        return _ppf_cauchy(t)
    if kernel == "skewed_chi2":
        return _ppf_sech(t)
    # matern: multivariate t with 2 nu degrees of freedom
    z = _ppf_gaussian(t[:, :d])
    g = stats.chi2.ppf(t[:, d], 2.0 * nu)
    with np.errstate(divide="ignore"):  # g = 0 (tiny nu): refused by the caller
        return z / np.sqrt(g / (2.0 * nu))[:, None]


def _radial(z, r):
    """``r * z / |z|`` (direction ``e_1`` where ``z = 0``)."""
    norm = np.sqrt(np.sum(z * z, axis=1))
    u = np.empty_like(z)
    ok = norm > 0
    u[ok] = z[ok] / norm[ok, None]
    u[~ok] = 0.0
    u[~ok, 0] = 1.0
    return r[:, None] * u


def _sample(kernel, measure, nu, s, d, rng):
    """``s`` i.i.d. unit-bandwidth frequencies."""
    if measure == "radial":
        z = rng.standard_normal((s, d))
        r = np.sqrt(rng.chisquare(d + 2, size=s))
        return _radial(z, r)
    if kernel == "gaussian":
        return rng.standard_normal((s, d))
    if kernel == "laplacian":
        return rng.standard_cauchy((s, d))
    if kernel == "skewed_chi2":
        t = np.clip(rng.random((s, d)), T_EPS, 1.0 - T_EPS)
        return _ppf_sech(t)
    z = rng.standard_normal((s, d))
    g = rng.chisquare(2.0 * nu, size=s)
    with np.errstate(divide="ignore"):  # g = 0 (tiny nu): refused by the caller
        return z / np.sqrt(g / (2.0 * nu))[:, None]


# --------------------------------------------------------------------------- orthogonal QMC
#: A Sequence whose weights sum farther than this from 1 warns when a map is built from it.
WEIGHTS_SUM_TOLERANCE = 1e-8
#: ``"auto"`` uses scrambled Sobol' points (fixed seed) when ``d <= AUTO_SOBOL_MAX_D`` and
#: ``s >= AUTO_SOBOL_MIN_S_OVER_D * d``; ``"orf-qmc"`` otherwise.
AUTO_SOBOL_MAX_D = 10
AUTO_SOBOL_MIN_S_OVER_D = 32


def _auto_source(kernel, measure, s, d):
    """The source ``"auto"`` stands for (see :func:`make_frequencies`)."""
    if kernel in ("laplacian", "skewed_chi2"):
        return "halton"
    if d <= AUTO_SOBOL_MAX_D and s >= AUTO_SOBOL_MIN_S_OVER_D * d:
        return "sobol"
    return "orf-qmc"


def _quiet_sobol(s, d, seed):
    """Scrambled Sobol' points without the power-of-2 warning (``"auto"`` picks ``s`` freely)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="sequence='sobol' with n_components",
                                category=UserWarning)
        return _source_points("sobol", s, d, True, seed, "n_components")


def _checked_options(kernel, measure, nu, scramble, d, n_components):
    """:func:`make_frequencies`' options, checked: ``(kernel, measure, nu, d, n_components)``."""
    kernel = check_choice(kernel, "kernel", KERNELS)
    measure = check_choice(measure, "measure", _MEASURES)
    if measure == "radial" and kernel != "gaussian":
        raise ValueError(f"'measure'='radial' needs kernel='gaussian'; got kernel={kernel!r}.")
    if kernel == "matern":
        nu = check_positive_real(nu, "nu")
    _check_scramble(scramble)
    if d is not None:
        d = check_int(d, "d", minimum=1, maximum=MAX_DIMENSION)
    if n_components is not None:   # an (n_components, d) array: checked before it is drawn
        n_components = check_size(n_components, "n_components", minimum=1, width=d or 1)
    return kernel, measure, nu, d, n_components


def _given_points(sequence, kernel, measure, n_components, d):
    """Unit-bandwidth frequencies ``(s, d)`` and weights (or None) of a Sequence or an array,
    the first ``n_components`` of them."""
    weights = None
    if isinstance(sequence, Sequence):
        density = sequence.meta.get("density")
        if measure != "spectral":
            raise ValueError(f"'sequence' (a Sequence) needs measure='spectral'; got {measure!r}.")
        if density != kernel:
            raise ValueError(f"'sequence' was designed for the density {density!r}, "
                             f"not for kernel={kernel!r}.")
        U = np.asarray(sequence.points, dtype=np.float64)
        weights = None if sequence.weights is None else np.array(sequence.weights, dtype=np.float64)
        if weights is not None and abs(float(np.sum(weights)) - 1.0) > WEIGHTS_SUM_TOLERANCE:
            warnings.warn(f"the weights of 'sequence' sum to {float(np.sum(weights)):.6g}, not 1: "
                          f"the map approximates k(0) = 1 by that sum, so every diagonal entry "
                          "of its Gram matrix is off by as much (design weights with "
                          "sum_to_one=True, the default).", UserWarning, stacklevel=4)
    else:
        try:
            U = as_points(sequence, "sequence")
        except TypeError:
            raise ValueError("'sequence' must be one of 'auto', 'orf-qmc', 'mc', 'orf', 'halton', 'sobol', "
                             f"'lattice', a Sequence or an (s, d) array; got {sequence!r}.") from None
    if d is not None and U.shape[1] != d:
        raise ValueError(f"'sequence' has dimension {U.shape[1]}, but d={d}.")
    d = U.shape[1]
    s_all = U.shape[0]
    if n_components is not None and n_components != s_all:
        if n_components > s_all:
            raise ValueError(f"'n_components'={n_components} exceeds the {s_all} points of "
                             "'sequence'; pass n_components=None to use them all.")
        if weights is not None:
            raise ValueError(f"'n_components'={n_components} would truncate a weighted sequence "
                             f"of {s_all} points; pass n_components=None.")
        U = U[:n_components]
    return U, weights


def _engine_points(engine, kernel, measure, nu, s, d):
    """Unit-bandwidth frequencies ``(s, d)`` from the next ``s`` points of a
    `scipy.stats.qmc.QMCEngine` (``engine.random(s)``, kept off the cube's boundary as the
    named QMC sources, :func:`~qmc_orff.sources._engine_cube.engine_cube_points`, and mapped by
    the inverse CDF); a stateful engine advances."""
    if d is None:
        raise ValueError("'d' is required for a QMCEngine 'sequence'.")
    if s is None:
        raise ValueError("'n_components' must be an integer for a QMCEngine 'sequence'; got None.")
    extra = 1 if (kernel == "matern" or measure == "radial") else 0
    if engine.d != d + extra:
        raise ValueError(f"'sequence' is a QMCEngine of dimension {engine.d}, but this map needs "
                         f"{d + extra} (d={d}{' + 1 for the radius' if extra else ''}).")
    t = engine_cube_points(engine, s)
    return _from_unit(t, kernel, measure, nu, d), s


def _scaled(U, weights, sigma, kernel, measure, nu, s, d):
    """``(U / sigma, weights)``, checked finite; uniform weights ``1/s`` for None."""
    sig = as_positive(sigma, "sigma", d=d)
    if sig.ndim and measure == "radial":
        raise ValueError(f"'sigma' must be a scalar for measure='radial'; got shape {sig.shape}.")
    if not np.all(np.isfinite(U)):  # e.g. a Matern nu so small that chi2.ppf underflows to 0
        raise ValueError(f"the {kernel!r} spectral measure produced a non-finite frequency "
                         f"(nu={nu!r})." if kernel == "matern"
                         else "'sequence' produced a non-finite frequency.")
    with np.errstate(over="ignore"):
        W = np.ascontiguousarray(U / sig, dtype=np.float64)
    if not np.all(np.isfinite(W)):
        raise ValueError(f"'sigma' is too small: the frequencies divided by 'sigma' overflow "
                         f"float64 (min sigma {float(np.min(sig))!r}).")
    if weights is None:
        weights = np.full(s, 1.0 / s)
    return W, weights


# --------------------------------------------------------------------------- public
def make_frequencies(kernel: str = "gaussian", n_components: int | None = 256,
                     d: int | None = None, *, sigma: float | ArrayLike = 1.0,
                     sequence: str | Sequence | ArrayLike = "auto", seed: Any = None,
                     scramble: bool | str = "auto", nu: float = 1.5,
                     measure: str = "spectral") -> tuple[np.ndarray, np.ndarray]:
    r"""Frequencies and quadrature weights for a shift-invariant kernel.

    Frequencies :math:`w_1, \dots, w_s` (the rows of ``W``) and weights :math:`\xi_j`
    such that

    .. math::

        k(x, z) \approx \sum_{j=1}^{s} \xi_j \cos\langle x - z, w_j\rangle .

    Parameters
    ----------
    kernel : {"gaussian", "laplacian", "matern", "skewed_chi2"}, default="gaussian"
        The kernel whose spectral measure is sampled: :math:`\mathcal N(0, \sigma^{-2} I)`,
        a product of :math:`\operatorname{Cauchy}(0, 1/\sigma_j)`, the multivariate t with
        :math:`2\nu` degrees of freedom and scale :math:`1/\sigma` (:math:`\sigma` is the
        Matern length scale), or a product of hyperbolic secant densities
        :math:`\sigma \operatorname{sech}(\pi \sigma w)`.
    n_components : int or None, default=256
        Number :math:`s` of frequencies (:math:`s d \le 2^{28}`).  For a :class:`~qmc_orff.Sequence` or an
        array: ``None`` takes all its points, an int :math:`\le s` the first
        ``n_components`` (extensible sequences are nested); a weighted
        sequence cannot be truncated.
    d : int or None, default=None
        Input dimension.  Required for the named sources; for a Sequence or an
        array it is checked against theirs when given.
    sigma : float or array_like of shape (d,), default=1.0
        Bandwidth (length scale); frequencies are unit-bandwidth frequencies
        divided by ``sigma`` coordinate-wise.  Scalar for ``measure="radial"``.
    sequence : {"auto", "orf-qmc", "mc", "orf", "halton", "sobol", "lattice"}, Sequence or array_like, default="auto"
        The point source:

        - ``"auto"``: the rule of the feature maps' default (Notes): scrambled Sobol'
          points when :math:`d \le 10` and :math:`s \ge 32 d`, else ``"orf-qmc"``; RR2 Halton
          for the Laplacian and skewed chi-squared kernels (no radial measure).
          Without a seed the same points every time (fixed seeds), with one a
          randomised draw.
        - ``"orf-qmc"``: orthogonal directions with stratified (QMC) radii, for the
          radial measures (Gaussian, Matern, ``measure="radial"``); see Notes.
        - ``"mc"``: i.i.d. draws from the spectral measure (seeded).
        - ``"orf"``: orthogonal random features (Yu et al. 2016), Gaussian
          kernel and spectral measure only.
        - ``"halton"``, ``"sobol"``, ``"lattice"``: low-discrepancy points
          mapped by the inverse CDF; see ``scramble``.
        - a :class:`~qmc_orff.Sequence`: its points (unit bandwidth) divided by
          ``sigma``, with its weights.  Its ``meta["density"]`` must be the
          kernel's density (``"gaussian"`` or ``"laplacian"``).
        - an array of shape ``(s, d)``: unit-bandwidth frequencies of the
          requested measure (like ``Sequence.points``), divided by ``sigma``;
          uniform weights.  Not unit-cube points: a zero row is the zero frequency
          (pass the engine itself to map unit-cube points by the inverse CDF).
        - a `scipy.stats.qmc.QMCEngine` instance (``scipy.stats.qmc.Sobol(d)``,
          :class:`qmc_orff.Sobol`, ...): its next ``n_components`` points
          (``engine.random(n_components)``) mapped by the inverse CDF, as the named
          QMC sources; its ``d`` must be the map's (``d + 1`` for the Matern kernel and
          ``measure="radial"``).  A stateful engine advances: a second call draws the
          next points (``engine.reset()`` first for the same ones).  The boundary rule of
          the named sources applies: unrandomised Sobol', Halton and lattice engines
          (this library's or SciPy's, which start at the origin) are centred by half a
          grid step -- ``Sobol(d, scramble=False)`` gives the frequencies of
          ``sequence="sobol", scramble=False`` -- randomised ones are clipped to
          ``[T_EPS, 1 - T_EPS]``, and another engine's point with a coordinate 0 or 1
          is refused (ValueError).
    seed : None, int, SeedSequence, BitGenerator or Generator, default=None
        Randomness of ``"mc"``, ``"orf"`` and of the scrambling.
    scramble : "auto", bool or "deterministic", default="auto"
        For ``"halton"``, ``"sobol"``, ``"lattice"``: randomise (``True``:
        Owen/Matousek scrambling, random lattice shift), or not (``False``), or
        Halton with the deterministic RR2 permutations (``"deterministic"``).
        ``"auto"``: RR2 for Halton (deterministic, no seed), ``True`` otherwise.
        Unrandomised points are centred by half a grid step, so none lies on the
        boundary of the cube, where the inverse CDF is infinite.
    nu : float, default=1.5
        Matern smoothness (``kernel="matern"`` only).
    measure : {"spectral", "radial"}, default="spectral"
        ``"radial"`` (Gaussian only) samples the trace-normalised measure of
        the Gaussian curl- and div-free kernels (Minh 2016, eq. 54 and 56),
        :math:`\rho(w) = \sigma^2 \lVert w\rVert^2 \mathcal N(w; 0, \sigma^{-2} I) / d`.

    Returns
    -------
    W : ndarray of shape (s, d)
        Finite frequencies (float64).
    weights : ndarray of shape (s,)
        Nonnegative quadrature weights: :math:`1/s` each unless a weighted Sequence
        was given.

    See Also
    --------
    FourierFeatures : the scalar feature map built on these frequencies.
    ORFF : the operator-valued feature map.
    Sobol, Halton, Lattice : engines to pass as ``sequence=``.
    load_catalogue : designed sequences to pass as ``sequence=``.

    Notes
    -----
    ``"orf-qmc"``: blocks of :math:`d` orthonormal directions (Haar-random, the last
    block truncated), as in orthogonal random features, with the radii :math:`\lvert w\rvert` at the
    quantiles :math:`F^{-1}(t_j)` of the centred base-2 van der Corput points :math:`t_j`
    (:math:`F` the CDF of :math:`\chi(d)` for the Gaussian, of :math:`\sqrt{d\, F(d, 2\nu)}` for the
    Matern kernel, of :math:`\chi(d + 2)` for the radial measure): every block's radii are
    stratified over :math:`(0, 1)`, and each frequency is still marginally exact.  Without
    a seed, 8 direction sets from fixed seeds are drawn and the one with the lowest
    data-free criterion is kept (cached): the expected squared error
    :math:`E\bigl(k(\delta) - \frac{1}{s} \sum_j \cos\langle w_j, \delta\rangle\bigr)^2` over isotropic
    Gaussian differences at the median-heuristic scale, :math:`\delta \sim \mathcal N(0, \sigma^2 I / d)`
    (closed form, :math:`O(s^2 d)`).  With a seed: one draw, the radii's levels rotated by a uniform
    shift modulo 1.

    Measured (``benchmarks/bench_default_map.py``: held-out relative Frobenius Gram
    error over ORF's mean over 5 seeds, median-heuristic :math:`\sigma`, :math:`s = 32, \dots, 1024`):
    seedless ``"orf-qmc"`` 0.81-0.99 on digits (:math:`d = 61`) and digits PCA-8, 0.89-0.94 on
    breast cancer (:math:`d = 30`) but 1.25 at :math:`s = 64`, 0.71-1.07 on diabetes (:math:`d = 10`),
    0.94-1.03 on MNIST pixels (:math:`d = 663`) -- about ORF's accuracy in high dimension, where no
    data-free source beats it, 5-20% better in moderate dimension, and a single fixed
    draw can still land 25% worse; RR2 Halton 0.54-8.6; scrambled
    Sobol' 0.49-0.75 in :math:`d \le 10` at :math:`s \ge 32 d` (hence the rule) but up to 2x worse at
    small :math:`s` or in high :math:`d`.  :class:`~qmc_orff.FourierFeatures` with
    ``sequence="auto"`` and no seed therefore keeps the best of 8 fixed draws on 512 of
    its training rows: 0.40-1.00 of ORF's error in all 30 cells (worst: MNIST, :math:`s = 1024`).

    Coordinate-wise inverse CDF for product densities, :math:`w_j = F^{-1}(t_j) / \sigma_j`.
    Matern: :math:`w = z / \bigl(\sigma \sqrt{g / (2 \nu)}\bigr)`, :math:`z = \Phi^{-1}(t_1, \dots, t_d)`,
    :math:`g = F^{-1}_{\chi^2(2 \nu)}(t_{d+1})`.  Radial measure: :math:`w = r z / \lvert z\rvert` with
    :math:`\sigma r = F^{-1}_{\chi(d+2)}(t_{d+1})` (a :math:`\chi(d + 2)` radius because the
    density is :math:`\lvert w\rvert^2` times a Gaussian).  These two use :math:`d + 1` sequence
    coordinates.

    Examples
    --------
    >>> from qmc_orff import make_frequencies
    >>> W, xi = make_frequencies("gaussian", 4, 2, sequence="halton", scramble=False)
    >>> W.shape, float(xi.sum())
    ((4, 2), 1.0)
    """
    kernel, measure, nu, d, n_components = _checked_options(kernel, measure, nu, scramble, d,
                                                            n_components)
    weights = None
    if isinstance(sequence, str):
        sequence = check_choice(sequence, "sequence", SOURCES)
        if d is None:
            raise ValueError(f"'d' is required for sequence={sequence!r}.")
        if n_components is None:
            raise ValueError(f"'n_components' must be an integer for sequence={sequence!r}; got None.")
        s = n_components
        if sequence == "auto":
            sequence = _auto_source(kernel, measure, s, d)
            if sequence == "sobol":
                # scrambled (fixed seed when none is given); s need not be a power of 2
                extra = 1 if (kernel == "matern" or measure == "radial") else 0
                t = _quiet_sobol(s, d + extra, ORF_QMC_SEED if seed is None else seed)
                U = _from_unit(t, kernel, measure, nu, d)
                sequence = None
        if sequence is None:
            pass
        elif sequence == "orf-qmc":
            if kernel not in ("gaussian", "matern"):
                raise ValueError("sequence='orf-qmc' needs a radial measure (kernel='gaussian' or "
                                 f"'matern'); got kernel={kernel!r}.")
            U = _orf_qmc(s, d, kernel, measure, nu, seed)
        elif sequence == "mc":
            U = _sample(kernel, measure, nu, s, d, as_generator(seed))
        elif sequence == "orf":
            if kernel != "gaussian" or measure != "spectral":
                raise ValueError("sequence='orf' (orthogonal random features) needs "
                                 f"kernel='gaussian' and measure='spectral'; got kernel={kernel!r}, "
                                 f"measure={measure!r}.")
            U = _orthogonal(s, d, as_generator(seed))
        else:
            extra = 1 if (kernel == "matern" or measure == "radial") else 0
            t = _source_points(sequence, s, d + extra, scramble, seed, "n_components")
            U = _from_unit(t, kernel, measure, nu, d)
    elif isinstance(sequence, stats.qmc.QMCEngine):
        U, s = _engine_points(sequence, kernel, measure, nu, n_components, d)
    else:
        U, weights = _given_points(sequence, kernel, measure, n_components, d)
        s, d = U.shape
    return _scaled(U, weights, sigma, kernel, measure, nu, s, d)
