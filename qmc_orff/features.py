"""Fourier feature maps: scalar (:class:`FourierFeatures`) and operator-valued (:class:`ORFF`).

Both are scikit-learn transformers whose frequencies come from
:func:`qmc_orff.make_frequencies`: i.i.d. (``"mc"``), orthogonal random
features (``"orf"``), a low-discrepancy sequence (``"halton"``, ``"sobol"``,
``"lattice"``), a designed :class:`~qmc_orff.Sequence` or an explicit array.

Feature layout
--------------
With frequencies ``w_1..w_s``, weights ``xi_j`` and amplitudes
``a_j = sqrt(xi_j)`` (times a measure factor for ORFF), the scalar feature
matrix is ``F(X) = [a * cos(X W^T), a * sin(X W^T)]`` of shape ``(n, 2 s)``:
all cosines first, then all sines, column ``j`` and ``s + j`` belonging to
``w_j``.  The operator-valued map has ``Phi(x)`` of shape ``(2 s r, p)`` with
row ``(c s + j) r + k`` equal to ``F(x)[c s + j] * B(w_j)[:, k]``.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _dask
from ._cos_sin import cos_sin_features
from ._validation import check_choice, check_phases
from .frequencies import make_frequencies
from .kernels import CurlFree, Decomposable, DivFree, Gaussian, Laplacian, Matern, SkewedChi2, \
    check_psd_matrix
from .threads import _blas_limited, _row_workers, get_num_threads

if TYPE_CHECKING:  # names used in type hints only
    from typing import Any

    from numpy.typing import ArrayLike
    from scipy.sparse import spmatrix

__all__ = ["FourierFeatures", "ORFF", "householder_complement"]

_SCALAR_KERNELS = ("gaussian", "laplacian", "matern", "skewed_chi2")
#: other names accepted for a kernel (scikit-learn's RBFSampler calls the Gaussian "rbf")
_KERNEL_ALIASES = {"rbf": "gaussian"}
_ORFF_KERNELS = ("decomposable", "curl_free", "div_free")
_ORFF_MEASURES = ("spectral", "bounded", "trace")


def _scalar_param(value, name):
    if isinstance(value, (bool, np.bool_, complex, np.complexfloating, str, bytes)):
        raise TypeError(f"'{name}' must be a real number; got {value!r}.")
    if np.ndim(value) != 0:
        raise ValueError(f"'{name}' must be a real number; got {value!r}.")
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"'{name}' must be a real number; got {value!r}.") from None
    if not math.isfinite(value):
        raise ValueError(f"'{name}' must be finite; got {value!r}.")
    return value


# --------------------------------------------------------------------------- fit-time check
_CHECKS = ("warn", "raise", "off")
#: The fit-time check of a supplied sequence samples at most this many rows of ``X``
#: (at most ``CHECK_BLOCK_ROWS // p`` for an operator-valued map with ``p`` outputs).
CHECK_SAMPLES = 128
CHECK_BLOCK_ROWS = 512
#: ... and compares with the mean of this many seeded reference maps ...
CHECK_REFERENCE_SEEDS = 3
#: ... flagging the sequence when its Gram error exceeds the reference's by this factor
#: (the margin absorbs the sampling noise of a 256-row estimate; an ORF draw passed as an
#: array stays below it).
CHECK_MARGIN = 1.1


def _sample_indices(n, m):
    """The rows :func:`_sample_rows` takes from ``n`` rows: all, or ``m`` fixed ones (sorted)."""
    if n <= m:
        return np.arange(n)
    return np.sort(np.random.default_rng(0).choice(n, m, replace=False))


def _sample_rows(X, m):
    """A fixed sample (seed 0, sorted) of at most ``m`` rows of ``X``, dense float64."""
    if X.shape[0] > m:
        X = X[_sample_indices(X.shape[0], m)]
    return np.ascontiguousarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)


def _shuffled_sample(X, m):
    """:func:`_sample_rows` in a fixed random order (seed 1): its two halves are random
    halves whatever the order of the rows of ``X`` (the cross-block ranking of the
    default maps' draws)."""
    Xs = _sample_rows(X, m)
    return Xs[np.random.default_rng(1).permutation(Xs.shape[0])]


def _selection_rows(p):
    """Rows of ``X`` the seedless ORFF default ranks its draws on (``p`` outputs)."""
    return max(2, CHECK_BLOCK_ROWS // max(1, p))


def _check_rows(p):
    """Rows of ``X`` the fit-time check samples for a map with ``p`` outputs."""
    return min(CHECK_SAMPLES, _selection_rows(p))


def _orff_fit_rows(orff, p):
    """How many rows of ``X`` fitting ``orff`` (``p`` outputs) reads: the fixed sample of its
    seedless default's selection or of its fit-time check, else 1 (the column count only).

    A fit on those rows (:func:`_sample_rows` of ``X``) gives the same map as a fit on ``X``:
    how :class:`~qmc_orff.ORFFRidge` fits the map to a Dask array without computing it.
    """
    sequence = orff.sequence
    if isinstance(sequence, str):
        seeded = _resolve_seed(orff.seed, orff.random_state) is not None
        return _selection_rows(p) if sequence == "auto" and not seeded else 1
    return 1 if orff.check == "off" else _check_rows(p)


def _gram_errors(Y, K, maps, cross=False):
    """Relative Gram errors ``||Z Z^T - K||_F / ||K||_F`` of several scalar maps on the same rows.

    ``Y`` (m, d) rows (after the map's input transform), ``K`` (m, m) their exact Gram
    matrix, ``maps`` a list of ``(W, xi)``.  One feature pass for all maps; each map's
    Gram matrix ``C C^T + S S^T`` from its cosine and sine columns.  ``cross=True``: the
    error of the block between the first ``h = m // 2`` rows and the others only
    (``Z_A Z_B^T`` against ``K[:h, h:]``): ``h (m - h)`` distinct pairs, half of all, for a
    quarter of the products (the diagonal, ``sum(xi)`` for every map, is left out; a way to
    rank maps with normalised weights, not a Gram error).  Single-threaded BLAS
    (see :func:`qmc_orff._features_kernels.cos_sin_features`); the maps are shared among
    the library's threads, each error computed by the same operations whatever their number.
    """
    W = np.concatenate([w for w, _ in maps])
    scale = np.sqrt(np.concatenate([xi for _, xi in maps]))
    total = W.shape[0]
    Z = cos_sin_features(Y, W, scale)
    h = Y.shape[0] // 2 if cross else Y.shape[0]
    A, B = (slice(0, h), slice(h, None)) if cross else (slice(None), slice(None))
    K = K[A, B]
    nK = float(np.linalg.norm(K))
    offsets = np.cumsum([0] + [w.shape[0] for w, _ in maps])

    def error(c):
        C = Z[:, offsets[c]:offsets[c + 1]]
        S = Z[:, total + offsets[c]:total + offsets[c + 1]]
        G = C[A] @ C[B].T
        G += S[A] @ S[B].T
        G -= K
        return float(np.linalg.norm(G)) / nK

    n_threads = min(get_num_threads(), len(maps))
    with _blas_limited(1):
        if n_threads == 1:
            return [error(c) for c in range(len(maps))]
        return list(_row_workers().map(error, range(len(maps))))


def _check_supplied_sequence(fitted, X, reference, p=1, Y=None):
    """The fit-time check of :class:`FourierFeatures` / :class:`ORFF` (``check`` != "off").

    ``fitted`` was built from a user-supplied Sequence or array; compare its Gram error on a
    sample of the rows of ``X`` with that of the same map drawn from ``reference``
    (``"orf"`` where defined, else ``"mc"``), mean of ``CHECK_REFERENCE_SEEDS`` seeds.
    ``Y``: the rows the scalar map reads (``X`` after its input transform; default ``X``).
    Returns ``(error, reference_error, n_rows)``; warns or raises when the sequence is worse.
    """
    import warnings

    check = check_choice(fitted.check, "check", _CHECKS)
    if check == "off" or X.shape[0] < 2:
        return None
    m = min(X.shape[0], _check_rows(p))
    Xs = _sample_rows(X, m)  # the same rows on every fit: reproducible verdicts
    s = fitted.frequencies_.shape[0]
    if hasattr(fitted, "approximate_kernel"):  # operator-valued: the (m p, m p) block Gram matrix
        from sklearn.base import clone

        K = fitted.kernel_.block(Xs)
        nK = float(np.linalg.norm(K))
        with _blas_limited(1):
            errors = [float(np.linalg.norm(fm.approximate_kernel(Xs, block=True) - K)) / nK
                      for fm in [fitted] + [
                          clone(fitted).set_params(sequence=reference, n_components=s, seed=k,
                                                   random_state=None, check="off").fit(Xs)
                          for k in range(CHECK_REFERENCE_SEEDS)]]
    else:
        Ys = Xs if Y is None else _sample_rows(Y, m)
        kernel = fitted.kernel_
        name = {Gaussian: "gaussian", Laplacian: "laplacian", Matern: "matern",
                SkewedChi2: "skewed_chi2"}[type(kernel)]
        with _blas_limited(1):  # small LAPACK/BLAS calls: one thread (see _gram_errors)
            maps = [(fitted.frequencies_, fitted.weights_)] + [
                make_frequencies(name, s, X.shape[1], sigma=fitted.sigma_, sequence=reference,
                                 seed=k, nu=fitted.nu) for k in range(CHECK_REFERENCE_SEEDS)]
            errors = _gram_errors(Ys, _exact_gram(kernel, Xs), maps)
    own = errors[0]
    ref_err = float(np.mean(errors[1:]))
    if own > CHECK_MARGIN * ref_err:
        msg = (f"the supplied 'sequence' gives a Gram error of {own:.3g} on {m} rows of X, worse "
               f"than {reference!r} frequencies of the same size ({ref_err:.3g}, mean of "
               f"{CHECK_REFERENCE_SEEDS} seeds): it was designed for other data (box, dimension "
               "or bandwidth). Use the default sequence, or pass check='off' to keep it silently.")
        if check == "raise":
            raise ValueError(msg)
        warnings.warn(msg, UserWarning, stacklevel=3)
    return own, ref_err, m


def _exact_gram(kernel, X):
    """The exact Gram matrix of the rows of ``X``; the Gaussian one by one BLAS product.

    ``|x|^2 + |z|^2 - 2 x.z`` loses digits for nearby points (the library's kernels form
    the differences instead), but the check and the selection compare errors of order
    1e-3..1: a relative error of 1e-12 in ``K`` does not matter, and ``O(m^2 d)``
    difference tensors would cost more than everything else at d in the hundreds.
    """
    if isinstance(kernel, Gaussian):
        Y = X / np.asarray(kernel.sigma, dtype=np.float64)
        sq = np.einsum("ij,ij->i", Y, Y)
        D2 = sq[:, None] + sq[None, :] - 2.0 * (Y @ Y.T)
        np.maximum(D2, 0.0, out=D2)
        np.fill_diagonal(D2, 0.0)
        return np.exp(-0.5 * D2)
    return np.asarray(kernel(X), dtype=np.float64)


# --------------------------------------------------------------------------- the default map
#: ``sequence="auto"`` without a seed: the number of fixed seeded draws of the rule's source
#: whose Gram errors on a sample of the training rows are compared (the lowest is kept).
DEFAULT_CANDIDATES = 8
#: ... on at most this many rows of ``X`` (a fixed sample: the same map on every fit).
DEFAULT_SAMPLES = 512


def _select_default(kernel, n_components, X, exact, *, sigma, nu):
    """The default map's frequencies: the best of ``DEFAULT_CANDIDATES`` fixed draws.

    ``"auto"`` resolves to a randomisable source (``"orf-qmc"`` or scrambled Sobol');
    ``DEFAULT_CANDIDATES`` draws with the fixed seeds ``0..K-1`` are scored by their Gram
    error on a fixed sample of at most ``DEFAULT_SAMPLES`` rows of ``X`` (the block between
    two random halves of the sample: :func:`_gram_errors` with ``cross=True``) and the best
    is kept: deterministic given ``X``, no seed needed.  A single draw of orthogonal random
    features is within about +-15% of their mean error; the selection removes the bad
    draws (see ``benchmarks/bench_default_map.py``).  Returns ``(None, None)`` when the
    rule is deterministic (Halton for the Laplacian and skewed chi-squared kernels) or
    ``X`` has fewer than 2 rows.
    """
    from .frequencies import ORF_QMC_SEED, _auto_source

    if n_components is None or X.shape[0] < 2:
        return None, None
    d = X.shape[1]
    source = _auto_source(kernel, "spectral", int(n_components), d)
    if source not in ("orf-qmc", "sobol"):
        return None, None
    Xs = _shuffled_sample(X, DEFAULT_SAMPLES)
    with _blas_limited(1):  # small LAPACK/BLAS calls: one thread (see _gram_errors)
        candidates = [make_frequencies(kernel, n_components, d, sigma=sigma, sequence="auto",
                                       seed=ORF_QMC_SEED + k, nu=nu)
                      for k in range(DEFAULT_CANDIDATES)]
        errors = _gram_errors(Xs, _exact_gram(exact, Xs), candidates, cross=True)
    return candidates[int(np.argmin(errors))]  # the first of equal errors, as before


def _resolve_seed(seed, random_state):
    """scikit-learn's ``random_state`` when given, else ``seed``.

    ``random_state`` takes precedence, as scikit-learn's tools expect (its
    ``check_estimator`` sets ``random_state`` on any estimator that has one).
    A ``numpy.random.RandomState`` (scikit-learn's legacy convention) is drawn
    from once, 128 bits that seed a ``SeedSequence``: it advances, as it would
    in a scikit-learn estimator, and the same state gives the same map.
    """
    if random_state is None:
        return seed
    if isinstance(random_state, np.random.RandomState):
        return np.random.SeedSequence(
            [int(v) for v in random_state.randint(0, 2 ** 32, size=4, dtype=np.uint64)])
    return random_state


def _sigma_from_gamma(kernel, sigma, gamma):
    """The bandwidth from ``sigma`` or RBFSampler's ``gamma = 1 / (2 sigma^2)`` (not both)."""
    if gamma is None:
        return 1.0 if sigma is None else sigma
    if sigma is not None:
        raise ValueError(f"give 'sigma' or 'gamma' (gamma = 1 / (2 sigma^2)), not both; got "
                         f"sigma={sigma!r}, gamma={gamma!r}.")
    if kernel != "gaussian":
        raise ValueError(f"'gamma' applies to the Gaussian kernel (kernel='gaussian' or 'rbf') "
                         f"only; use 'sigma' for kernel={kernel!r}.")
    if isinstance(gamma, (bool, np.bool_)):
        raise ValueError(f"'gamma' must be a positive real number or array; got {gamma!r}.")
    try:
        g = np.asarray(gamma, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"'gamma' must be a positive real number or array; got {gamma!r}.") \
            from None
    if g.ndim > 1 or g.size == 0 or not np.all(np.isfinite(g)) or not np.all(g > 0):
        raise ValueError(f"'gamma' must be positive and finite (a scalar or one per "
                         f"coordinate); got {gamma!r}.")
    sig = 1.0 / np.sqrt(2.0 * g)
    return float(sig) if g.ndim == 0 else sig


# --------------------------------------------------------------------------- scalar maps
class FourierFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Fourier features of a shift-invariant kernel, from random or QMC frequencies.

    ``transform(X) = [sqrt(xi) cos(X W^T), sqrt(xi) sin(X W^T)]``, so that
    ``transform(x) . transform(z) = sum_j xi_j cos<x - z, w_j> ~= k(x, z)``.

    .. warning::
       ``n_components`` counts **frequencies**, not columns: the output has
       **2 n_components columns** (a cosine and a sine per frequency).
       scikit-learn's ``RBFSampler(n_components=m)`` has ``m`` columns, so
       ``FourierFeatures(n_components=m // 2)`` is the map of equal width.

    Parameters
    ----------
    kernel : {"gaussian", "rbf", "laplacian", "matern", "skewed_chi2"}, default="gaussian"
        ``exp(-|x - z|^2 / (2 sigma^2))`` (``"rbf"`` is another name for it),
        ``exp(-|x - z|_1 / sigma)``, the Matern kernel with smoothness ``nu``
        and length scale ``sigma``, or the skewed chi-squared kernel with
        skewness ``c`` (features of ``log(x + c)``; inputs must satisfy
        ``x + c > 0``).  See :mod:`qmc_orff.kernels`.
    sigma : float or array_like of shape (d,) or None, default=None
        Bandwidth / length scale (per coordinate allowed).  ``None`` means
        1.0, or the value given by ``gamma``.
    gamma : float or array_like of shape (d,) or None, default=None
        The Gaussian kernel's ``exp(-gamma |x - z|^2)`` (RBFSampler's
        parameter): ``gamma = 1 / (2 sigma^2)``, so ``sigma = 1 / sqrt(2 gamma)``.
        Give ``sigma`` or ``gamma``, not both.
    n_components : int or None, default=256
        Number ``s`` of **frequencies**; the output has **2 s columns**.
        ``None`` takes all the points of a Sequence or array ``sequence``.
    sequence : {"auto", "orf-qmc", "halton", "sobol", "lattice", "mc", "orf", "adaptive"}, Sequence or array_like, default="auto"
        Point source; see :func:`qmc_orff.make_frequencies`.  ``"auto"``: orthogonal
        directions with stratified radii (``"orf-qmc"``), scrambled Sobol' points in low
        dimension (``d <= 10``, ``s >= 32 d``), RR2 Halton for the Laplacian and skewed
        chi-squared kernels.  Without a seed, ``fit(X)`` keeps the best of
        ``DEFAULT_CANDIDATES`` fixed draws by their Gram error on a fixed sample of ``X``: the
        same map on every fit, and on real data at least as accurate as orthogonal random
        features (``benchmarks/bench_default_map.py``).
        ``"adaptive"``: a data-dependent map (as scikit-learn's ``Nystroem``): ``fit(X)``
        designs the frequencies on ``X`` by :func:`qmc_orff.adaptive_sequence`
        (Gaussian, Laplacian and Matern kernels), reproducibly with ``seed``.
    seed : None, int, SeedSequence or Generator, default=None
        Randomness of ``"mc"``/``"orf"``/``"adaptive"`` and of the QMC scrambling; for
        ``"auto"`` and ``"orf-qmc"``, ``None`` gives the fixed default map and a seed a
        randomised one.
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        scikit-learn's name for ``seed``; when given, it is used instead of ``seed``.
        An int means the same as ``seed``; a ``RandomState`` is drawn from once per fit.
    scramble : "auto", bool or "deterministic", default="auto"
        Scrambling of the QMC points (see :func:`qmc_orff.frequencies.unit_points`):
        by default Halton points get the deterministic RR2 permutations, so the
        default map is the same on every fit, with no seed.
    nu : float, default=1.5
        Matern smoothness.
    c : float, default=1.0
        Skewness of the skewed chi-squared kernel.
    check : {"warn", "raise", "off"}, default="warn"
        Fit-time check of a supplied Sequence or array (named sources are not checked):
        ``fit(X)`` compares the map's Gram error on at most 256 rows of ``X`` with that
        of orthogonal random features of the same size (i.i.d. features for non-Gaussian
        kernels; mean of 3 seeds) and warns (``"warn"``) or raises ``ValueError``
        (``"raise"``) with both numbers when it is more than 10% worse.
    design_options : dict or None, default=None
        Keyword arguments for :func:`qmc_orff.adaptive_sequence` with
        ``sequence="adaptive"`` (e.g. ``{"maxiter": 100, "n_train": 500}``);
        ignored otherwise.

    Attributes
    ----------
    frequencies_ : ndarray of shape (s, d)
    weights_ : ndarray of shape (s,)
        Quadrature weights ``xi`` (``1/s`` unless a weighted Sequence was given).
    design_ : Sequence
        With ``sequence="adaptive"`` only: the designed sequence (its ``meta``
        has the validation errors of the start, of ORF and of the result).
    sigma_ : float or ndarray of shape (d,)
        The bandwidth used (from ``sigma`` or ``gamma``).
    kernel_ : qmc_orff.kernels.Kernel
        The exact kernel approximated.
    check_ : tuple or None
        ``(error, reference_error, n_rows)`` of the fit-time check, ``None`` when it did
        not run (named source or ``check="off"``).
    n_features_in_ : int

    Notes
    -----
    A fitted map depends on the data only through ``d`` (``n_features_in_``):
    ``transform`` is a pure function of each row, so it can be applied chunk by
    chunk, in any order, on any scheduler, with the same result.  Sparse
    ``X`` (scipy.sparse CSR/CSC) is accepted by ``fit`` and ``transform``:
    ``X W^T`` is a sparse-dense product; the output is dense (not for
    ``kernel="skewed_chi2"``, whose ``log(x + c)`` is dense).

    Notes
    -----
    Avron et al. (2016), Algorithm 1 (and section 5 for weights).  The product
    ``X W^T`` is one BLAS call writing into the output's second half; the sine
    and cosine of each argument are then computed together in one vectorised
    pass, in place (:mod:`qmc_orff._features_kernels`), so the peak memory is
    the output.  Values agree with numpy's ``cos``/``sin`` to one ulp.  The
    output dtype is the input's (float32 or float64; anything else becomes
    float64); float32 arguments are evaluated in float64 and rounded once.

    Examples
    --------
    >>> import numpy as np
    >>> from qmc_orff import FourierFeatures
    >>> X = np.random.default_rng(0).normal(size=(5, 3))
    >>> ff = FourierFeatures(sigma=2.0, n_components=512, seed=0).fit(X)
    >>> ff.transform(X).shape
    (5, 1024)
    """

    def __init__(self, kernel="gaussian", *, sigma=None, gamma=None, n_components=256,
                 sequence="auto", seed=None, random_state=None, scramble="auto", nu=1.5,
                 c=1.0, check="warn", design_options=None):
        self.kernel = kernel
        self.sigma = sigma
        self.gamma = gamma
        self.n_components = n_components
        self.sequence = sequence
        self.seed = seed
        self.random_state = random_state
        self.scramble = scramble
        self.nu = nu
        self.c = c
        self.check = check
        self.design_options = design_options

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.sparse = True
        return tags

    def _input(self, X, reset):
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=reset,
                          accept_sparse=("csr", "csc"))
        if sp.issparse(X):
            if self.kernel == "skewed_chi2":
                raise ValueError("sparse 'X' is not supported for kernel='skewed_chi2' "
                                 "(log(X + c) is dense); pass a dense array.")
            return X.tocsr()
        if self.kernel == "skewed_chi2":
            # log(X + c) in X's dtype, checking X + c > 0
            X = SkewedChi2(_scalar_param(self.c, "c")).log_transform(X)
        return np.ascontiguousarray(X)

    def fit(self, X: ArrayLike | spmatrix, y: Any = None) -> FourierFeatures:
        """Draw the frequencies for inputs like ``X``.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n, d)
        y : ignored

        Returns
        -------
        self
        """
        kernel = check_choice(self.kernel, "kernel", _SCALAR_KERNELS + tuple(_KERNEL_ALIASES))
        kernel = _KERNEL_ALIASES.get(kernel, kernel)
        sigma = _sigma_from_gamma(kernel, self.sigma, self.gamma)
        seed = _resolve_seed(self.seed, self.random_state)
        X_raw = X
        X = self._input(X, reset=True)
        if kernel == "skewed_chi2" and not isinstance(self.sequence, str):
            X_raw = validate_data(self, X_raw, dtype=np.float64, reset=False)
        else:
            X_raw = X  # the map reads the rows as they are
        d = X.shape[1]
        if kernel == "gaussian":
            exact = Gaussian(sigma)
        elif kernel == "laplacian":
            exact = Laplacian(sigma)
        elif kernel == "matern":
            exact = Matern(self.nu, sigma)
        else:
            exact = SkewedChi2(_scalar_param(self.c, "c"), sigma)
        W = None
        if _is_adaptive(self.sequence):
            W, xi, self.design_ = _adaptive_frequencies(self, kernel, X, sigma, seed)
        elif isinstance(self.sequence, str) and self.sequence == "auto" and seed is None:
            W, xi = _select_default(kernel, self.n_components, X, exact, sigma=sigma,
                                    nu=self.nu)
        if W is None:
            W, xi = make_frequencies(kernel, self.n_components, d, sigma=sigma,
                                     sequence=self.sequence, seed=seed,
                                     scramble=self.scramble, nu=self.nu)
        self.frequencies_ = W
        self.weights_ = xi
        self.sigma_ = sigma
        self.kernel_ = exact
        self._n_features_out = 2 * W.shape[0]
        check_choice(self.check, "check", _CHECKS)
        if not isinstance(self.sequence, str):
            self.check_ = _check_supplied_sequence(self, X_raw, "orf" if kernel == "gaussian"
                                                   else "mc", Y=X)
        else:
            self.check_ = None
        return self

    def transform(self, X: ArrayLike | spmatrix) -> np.ndarray:
        """Feature matrix ``[sqrt(xi) cos(X W^T), sqrt(xi) sin(X W^T)]``.

        Parameters
        ----------
        X : {array_like, sparse matrix} or dask.array.Array of shape (n, d)
            A Dask array gives a Dask array, lazily: one task per row chunk,
            ``2 s`` columns in one chunk (see :mod:`qmc_orff._dask`).

        Returns
        -------
        ndarray of shape (n, 2 s), dtype of ``X`` (float32 or float64)
            Dense, also for sparse ``X``.
        """
        check_is_fitted(self)
        if _dask.is_dask_collection(X):
            return _dask.map_rows(self, "transform", X)
        X = self._input(X, reset=False)
        # no NaN features from overflowing phases (sparse X: its row 1-norms give the same bound)
        if sp.issparse(X):
            with np.errstate(over="ignore"):  # an overflowing norm is inf: check_phases raises
                norms = np.asarray(abs(X).sum(axis=1), dtype=X.dtype).reshape(-1, 1)
            check_phases(norms, self.frequencies_)
        else:
            check_phases(X, self.frequencies_)
        dt = X.dtype
        W = np.ascontiguousarray(self.frequencies_, dtype=dt)
        scale = np.ascontiguousarray(np.sqrt(self.weights_), dtype=dt)
        return cos_sin_features(X, W, scale)


def _orff_factors(kernel, measure, radial, W, xi, sig_arr, sigma, d, A):
    """ORFF amplitudes ``(s,)`` and factors ``B(w_j)`` ``(s, p, r)`` of frequencies ``W``.

    ``A~(w) = B(w) B(w)^T`` (Brault et al. 2016; Minh 2016): ``A`` for the decomposable
    kernel, ``w w^T`` (curl-free) and ``|w|^2 I - w w^T`` (div-free) in the spectral
    measure; the trace measure replaces ``|w|`` by ``sqrt(d) / sigma``.
    """
    amp = np.sqrt(xi)
    if measure == "bounded":
        # sqrt(rho_0 / rho) = 2^(d/4) exp(-sigma^2 |w|^2 / 8)
        amp = amp * 2.0 ** (d / 4.0) * np.exp(-np.sum((W * sig_arr) ** 2, axis=1) / 8.0)
    if kernel == "decomposable":
        lam, V = np.linalg.eigh(A)
        keep = lam > lam[-1] * A.shape[0] * np.finfo(np.float64).eps
        return amp, np.ascontiguousarray(V[:, keep] * np.sqrt(lam[keep]))
    norm = np.sqrt(np.sum(W * W, axis=1))
    if kernel == "curl_free":
        if radial:
            safe = np.where(norm > 0, norm, 1.0)
            B = (math.sqrt(d) / sigma) * (W / safe[:, None])
        else:
            B = W.copy()
        B = B[:, :, None]
    else:
        Q = householder_complement(W)
        scale = np.full(W.shape[0], math.sqrt(d) / sigma) if radial else norm
        B = Q * scale[:, None, None]
    return amp, np.ascontiguousarray(B)


def _select_default_operator(est, exact, X, factors, sigma, measure):
    """ORFF's default map without a seed: the best of ``DEFAULT_CANDIDATES`` fixed draws.

    As :func:`_select_default`, scored by the operator-valued Gram error: the block
    ``K~(X_A, X_B)`` between two random halves of a fixed sample of at most
    ``CHECK_BLOCK_ROWS // p`` rows (``p`` outputs), against ``K(X_A, X_B)``.  Returns
    ``(None, None)`` when the rule is deterministic or ``X`` has fewer than 2 rows.
    """
    import copy

    from .frequencies import ORF_QMC_SEED, _auto_source

    d = X.shape[1]
    if est.n_components is None or X.shape[0] < 2:
        return None, None
    if _auto_source("gaussian", measure, int(est.n_components), d) not in ("orf-qmc", "sobol"):
        return None, None
    p = exact.output_dim(d)
    Xs = _shuffled_sample(X, _selection_rows(p))
    h = Xs.shape[0] // 2
    XA, XB = Xs[:h], Xs[h:]
    K = exact.block(XA, XB)
    nK = float(np.linalg.norm(K))
    best, best_err = (None, None), np.inf
    with _blas_limited(1):
        for k in range(DEFAULT_CANDIDATES):
            W, xi = make_frequencies("gaussian", est.n_components, d, sigma=sigma,
                                     sequence="auto", seed=ORF_QMC_SEED + k, measure=measure)
            cand = copy.copy(est)
            cand.frequencies_, cand.weights_ = W, xi
            cand.amplitudes_, cand.factors_ = factors(W, xi)
            cand.n_outputs_, cand.rank_, cand.kernel_ = p, cand.factors_.shape[-1], exact
            e = float(np.linalg.norm(cand.approximate_kernel(XA, XB, block=True) - K)) / nK
            if e < best_err:  # the first of equal errors
                best, best_err = (W, xi), e
    return best


# --------------------------------------------------------------------------- adaptive maps
def _is_adaptive(sequence):
    return isinstance(sequence, str) and sequence == "adaptive"


def _design_options(options, forbidden):
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"'design_options' must be a dict or None; got {type(options).__name__}.")
    bad = sorted(set(options) & set(forbidden))
    if bad:
        raise ValueError(f"'design_options' must not set {', '.join(map(repr, bad))}: they are "
                         "parameters of the feature map itself.")
    return dict(options)


def _adaptive_frequencies(est, kernel, X, sigma, seed):
    """``sequence="adaptive"``: design the frequencies on ``X`` (:func:`qmc_orff.adaptive_sequence`)."""
    from .adaptive import adaptive_sequence

    if kernel not in ("gaussian", "laplacian", "matern"):
        raise ValueError(f"sequence='adaptive' needs kernel 'gaussian', 'laplacian' or 'matern'; "
                         f"got {kernel!r}.")
    if est.n_components is None:
        raise ValueError("'n_components' must be an integer for sequence='adaptive'; got None.")
    opts = _design_options(est.design_options, ("X", "s", "kernel", "sigma", "nu", "seed"))
    opts.setdefault("init", "orf" if kernel != "laplacian" else "mc")
    X = X.toarray() if sp.issparse(X) else X  # the design works on dense rows
    seq = adaptive_sequence(np.asarray(X, dtype=np.float64), est.n_components, kernel=kernel,
                            sigma=sigma, nu=est.nu, seed=seed, **opts)
    sigma = seq.meta["sigma"]
    return seq.frequencies(sigma), seq.effective_weights, seq


def _adaptive_operator_frequencies(est, kernel, measure, X, sigma, A):
    """ORFF ``sequence="adaptive"``: :func:`qmc_orff.adaptive_operator_sequence` on ``X``."""
    from .adaptive import adaptive_operator_sequence

    if measure == "bounded":
        raise ValueError("sequence='adaptive' needs measure='spectral' or 'trace'; got 'bounded'.")
    if np.ndim(sigma) != 0:
        raise ValueError("'sigma' must be a scalar for sequence='adaptive'; got an array.")
    if est.n_components is None:
        raise ValueError("'n_components' must be an integer for sequence='adaptive'; got None.")
    opts = _design_options(est.design_options, ("X", "s", "kernel", "sigma", "A", "measure", "seed"))
    seq = adaptive_operator_sequence(X, est.n_components, kernel=kernel, sigma=sigma, A=A,
                                     measure=measure,
                                     seed=_resolve_seed(est.seed, est.random_state), **opts)
    return seq.frequencies(sigma), seq.effective_weights, seq


# --------------------------------------------------------------------------- operator-valued maps
def householder_complement(W):
    """Orthonormal bases ``Q(w)`` of the complements ``w^perp``.

    Parameters
    ----------
    W : ndarray of shape (s, d), d >= 2

    Returns
    -------
    ndarray of shape (s, d, d - 1)
        ``Q[j]`` has orthonormal columns orthogonal to ``W[j]`` (for ``w = 0``:
        those orthogonal to ``e_1``).

    Notes
    -----
    Columns 2..d of the Householder reflection ``H = I - 2 v v^T / v^T v``,
    ``v = w^ + sign(w^_1) e_1``, which maps ``e_1`` to ``-sign(w^_1) w^``.  In
    2-D this is ``+-(-w_2, w_1) / |w|``.  ``O(d^2)`` per frequency.
    """
    s, d = W.shape
    norm = np.sqrt(np.sum(W * W, axis=1))
    U = np.zeros_like(W)
    ok = norm > 0
    U[ok] = W[ok] / norm[ok, None]
    U[~ok, 0] = 1.0
    sign = np.where(U[:, 0] >= 0, 1.0, -1.0)
    V = U.copy()
    V[:, 0] += sign
    vv = np.sum(V * V, axis=1)  # = 2 (1 + |u_1|) >= 2
    H = np.eye(d)[None] - (2.0 / vv)[:, None, None] * V[:, :, None] * V[:, None, :]
    return np.ascontiguousarray(H[:, :, 1:])


class ORFF(TransformerMixin, BaseEstimator):
    """Operator-valued random Fourier features (ORFF) of Gaussian matrix-valued kernels.

    ``Phi(x)^T Phi(z) = sum_j xi_j cos<x - z, w_j> A~(w_j) ~= K(x, z)`` with
    ``A~(w) = B(w) B(w)^T`` (Brault et al. 2016, Proposition 2.3).

    Parameters
    ----------
    kernel : {"decomposable", "curl_free", "div_free"}, default="decomposable"
        ``k_0(delta) A``; ``-Hess k_0``; ``(Hess - Laplacian I) k_0`` with
        ``k_0(delta) = exp(-|delta|^2 / (2 sigma^2))``; see
        :class:`~qmc_orff.kernels.Decomposable`, :class:`~qmc_orff.kernels.CurlFree`,
        :class:`~qmc_orff.kernels.DivFree`.  Curl- and div-free need ``p = d``
        (div-free ``d >= 2``).
    sigma : float, default=1.0
        Bandwidth of ``k_0`` (``gamma = 1 / (2 sigma^2)``).  Per coordinate
        allowed for the decomposable kernel.
    A : array_like of shape (p, p) or None, default=None
        Output matrix of the decomposable kernel (symmetric PSD); ``None`` is
        the identity of size ``d``.  Ignored by the other kernels.
    n_components : int or None, default=256
        Number ``s`` of frequencies.
    sequence : {"auto", "orf-qmc", "halton", "sobol", "lattice", "mc", "orf", "adaptive"}, Sequence or array_like, default="auto"
        Point source; see :func:`qmc_orff.make_frequencies` and :class:`FourierFeatures`.
        ``"auto"`` without a seed: the best of ``DEFAULT_CANDIDATES`` fixed draws by the
        operator-valued Gram error on a fixed sample of ``X`` (a deterministic map).
        ``"adaptive"``: designed on the data given to ``fit`` (see ``design_options``).
    measure : {"spectral", "bounded", "trace"}, default="spectral"
        The probability measure ``rho`` the frequencies follow, and ``A~ = mu / rho``:

        - ``"spectral"``: ``rho_0 = N(0, sigma^-2 I)``; ``A~(w) = A``, ``w w^T``,
          ``|w|^2 I - w w^T`` (unbounded for curl/div; Brault et al. 2016).
        - ``"bounded"``: ``rho = N(0, 2 sigma^-2 I)``, ``A~ = A(w) rho_0 / rho =
          A(w) 2^(d/2) exp(-sigma^2 |w|^2 / 4)`` (Minh 2016, eq. 39-42).
        - ``"trace"``: the trace-normalised measure (Minh 2016, Theorem 9,
          Corollary 10), ``rho = sigma^2 |w|^2 rho_0 / d`` for curl/div, with
          ``A~ = (d / sigma^2) w^ w^T`` (curl) and ``(d / sigma^2)(I - w^ w^T)``
          (div), ``w^ = w / |w|``; for the decomposable kernel it is ``rho_0``.
    seed : None, int, SeedSequence or Generator, default=None
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        scikit-learn's name for ``seed`` (used instead of it when given); see
        :class:`FourierFeatures`.
    scramble : "auto", bool or "deterministic", default="auto"
        As in :class:`FourierFeatures`.
    check : {"warn", "raise", "off"}, default="warn"
        As in :class:`FourierFeatures`, on the block Gram matrix of at most
        ``512 // p`` rows of ``X`` (reference: ``"orf"``, or ``"mc"`` for the trace measure).
    design_options : dict or None, default=None
        With ``sequence="adaptive"`` (measures ``"spectral"`` and ``"trace"``):
        keyword arguments of :func:`qmc_orff.adaptive_operator_sequence`, which
        designs the frequencies on the ``X`` given to ``fit`` by minimising the
        block Gram error; ignored otherwise.
    flatten : bool, default=False
        ``transform`` returns the 2-D feature matrix of shape ``(n, 2 s r p)``
        (row ``i`` is ``Phi(x_i)`` flattened in C order) that a linear model,
        a ``Pipeline`` or ``set_output`` can take, with
        :meth:`get_feature_names_out`; ``False`` keeps the 3-D ``(n, 2 s r, p)``.

    Attributes
    ----------
    frequencies_ : ndarray of shape (s, d)
    weights_ : ndarray of shape (s,)
        Quadrature weights ``xi``.
    amplitudes_ : ndarray of shape (s,)
        ``sqrt(xi_j)`` times the scalar part of ``B(w_j)`` (the bounded
        measure's factor for the decomposable kernel).
    factors_ : ndarray of shape (s, p, r), or (p, r) for the decomposable kernel
        ``B(w_j)`` (``B = V_A diag(sqrt(lambda_A))`` on the nonzero eigenvalues of ``A``
        for the decomposable kernel, so ``r = rank(A)``; ``r = 1`` curl-free;
        ``r = d - 1`` div-free, ``B(w) = |w| Q(w)``).
    n_outputs_ : int
        ``p``.
    rank_ : int
        ``r``, the column count of ``B(w)``.
    kernel_ : qmc_orff.kernels.OperatorKernel
        The exact kernel approximated.
    n_features_in_ : int

    Notes
    -----
    ``transform`` materialises ``Phi(X)`` of shape ``(n, 2 s r, p)``; learning
    should use :meth:`operator` (``theta -> Phi(X)^T theta`` and its adjoint in
    ``O(n s p + s p r)`` per product, never forming ``Phi(X)``; Brault et al.
    2016, appendix D, Table 2) or :class:`qmc_orff.ORFFRidge`.
    """

    def __init__(self, kernel="decomposable", *, sigma=1.0, A=None, n_components=256,
                 sequence="auto", measure="spectral", seed=None, random_state=None,
                 scramble="auto", flatten=False, check="warn", design_options=None):
        self.kernel = kernel
        self.sigma = sigma
        self.A = A
        self.n_components = n_components
        self.sequence = sequence
        self.measure = measure
        self.seed = seed
        self.random_state = random_state
        self.scramble = scramble
        self.check = check
        self.design_options = design_options
        self.flatten = flatten

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags

    # ------------------------------------------------------------------ fitting
    def fit(self, X: ArrayLike, y: Any = None) -> ORFF:
        """Draw the frequencies and the factors ``B(w_j)`` for inputs like ``X``.

        Parameters
        ----------
        X : array_like of shape (n, d)
        y : ignored

        Returns
        -------
        self
        """
        kernel = check_choice(self.kernel, "kernel", _ORFF_KERNELS)
        measure = check_choice(self.measure, "measure", _ORFF_MEASURES)
        X = validate_data(self, X, dtype=np.float64, reset=True)
        d = X.shape[1]
        if kernel == "div_free" and d < 2:
            raise ValueError(f"'X' must have d >= 2 columns for kernel='div_free'; got d={d}.")
        sigma = self.sigma
        if kernel != "decomposable" or np.ndim(sigma) == 0:
            sig = _scalar_param(sigma, "sigma")
            if not sig > 0:
                raise ValueError(f"'sigma' must be positive; got {sig!r}.")
            sigma = sig
        if kernel == "decomposable":
            A = np.eye(d) if self.A is None else check_psd_matrix(self.A, "A")
            exact = Decomposable(Gaussian(sigma), A)
        elif kernel == "curl_free":
            exact = CurlFree(sigma)
        else:
            exact = DivFree(sigma)
        sig_arr = np.asarray(Gaussian(sigma).sigma, dtype=np.float64)

        radial = measure == "trace" and kernel != "decomposable"
        if radial and not isinstance(self.sequence, (str, np.ndarray, list, tuple)):
            raise ValueError("'sequence' must be a named source ('halton', 'sobol', 'lattice', "
                             "'mc') or an array for measure='trace': a Sequence holds points of "
                             "the spectral measure (use measure='spectral' or 'bounded').")
        freq_sigma = sig_arr / math.sqrt(2.0) if measure == "bounded" else sig_arr
        if not isinstance(self.flatten, (bool, np.bool_)):
            raise TypeError(f"'flatten' must be a bool; got {self.flatten!r}.")
        seed = _resolve_seed(self.seed, self.random_state)
        frequency_measure = "radial" if radial else "spectral"
        freq_sig = freq_sigma if freq_sigma.ndim else float(freq_sigma)

        def factors(W, xi):  # amplitudes (s,) and B(w_j) (s, p, r) of frequencies W
            return _orff_factors(kernel, measure, radial, W, xi, sig_arr, sigma, d,
                                 A if kernel == "decomposable" else None)

        W = None
        if _is_adaptive(self.sequence):
            W, xi, self.design_ = _adaptive_operator_frequencies(self, kernel, measure, X, sigma,
                                                                 A if kernel == "decomposable" else None)
        elif isinstance(self.sequence, str) and self.sequence == "auto" and seed is None:
            W, xi = _select_default_operator(self, exact, X, factors, freq_sig, frequency_measure)
        if W is None:
            W, xi = make_frequencies("gaussian", self.n_components, d, sigma=freq_sig,
                                     sequence=self.sequence, seed=seed, scramble=self.scramble,
                                     measure=frequency_measure)
        amp, B = factors(W, xi)
        self.frequencies_ = W
        self.weights_ = xi
        self.amplitudes_ = amp
        self.factors_ = B
        self.n_outputs_ = exact.output_dim(d)
        self.rank_ = B.shape[-1]
        self.kernel_ = exact
        check_choice(self.check, "check", _CHECKS)
        if not isinstance(self.sequence, str):
            self.check_ = _check_supplied_sequence(self, X, "mc" if radial else "orf",
                                                   p=self.n_outputs_)
        else:
            self.check_ = None
        return self

    # ------------------------------------------------------------------ evaluation
    def _checked(self, X, name="X"):
        check_is_fitted(self)
        X = np.ascontiguousarray(validate_data(self, X, dtype=np.float64, reset=False))
        check_phases(X, self.frequencies_, name)   # no NaN features from overflowing phases
        return X

    def scalar_features(self, X: ArrayLike) -> np.ndarray:
        """``F(X) = [a cos(X W^T), a sin(X W^T)]`` of shape ``(n, 2 s)``, ``a = amplitudes_``."""
        X = self._checked(X)
        return cos_sin_features(X, self.frequencies_, self.amplitudes_)

    def _factor_stack(self):
        """``B(w_j)`` as ``(s, p, r)`` (materialised for the decomposable kernel)."""
        B = self.factors_
        if B.ndim == 2:
            return np.broadcast_to(B, (self.frequencies_.shape[0],) + B.shape)
        return B

    def transform(self, X: ArrayLike) -> np.ndarray:
        """The feature matrices ``Phi(x_i)``.

        Parameters
        ----------
        X : array_like or dask.array.Array of shape (n, d)
            A Dask array gives a Dask array, lazily (one task per row chunk).

        Returns
        -------
        ndarray of shape (n, 2 s r, p), or (n, 2 s r p) when ``flatten``
            Row ``(c s + j) r + k`` of ``Phi(x)`` is ``F(x)[c s + j] B(w_j)[:, k]``;
            flattened, that is column ``((c s + j) r + k) p + a``.
        """
        if _dask.is_dask_collection(X):
            check_is_fitted(self)
            return _dask.map_rows(self, "transform", X)
        F = self.scalar_features(X)
        n, s2 = F.shape
        s = s2 // 2
        Bt = np.swapaxes(self._factor_stack(), 1, 2)  # (s, r, p)
        r, p = Bt.shape[1], Bt.shape[2]
        Phi = F.reshape(n, 2, s, 1, 1) * Bt[None, None]
        if self.flatten:
            return Phi.reshape(n, 2 * s * r * p)
        return Phi.reshape(n, 2 * s * r, p)

    def get_feature_names_out(self, input_features: ArrayLike | None = None) -> np.ndarray:
        """Names of the columns of the flattened ``transform`` (``flatten=True``).

        Parameters
        ----------
        input_features : array_like of str or None, default=None
            Only checked against the names seen in ``fit``.

        Returns
        -------
        ndarray of str of shape (2 s r p,)
            ``orff_cos_w{j}_b{k}_y{a}`` then ``orff_sin_w{j}_b{k}_y{a}``: the
            cosine or sine of frequency ``j``, column ``k`` of ``B(w_j)``, output
            ``a`` (column ``((c s + j) r + k) p + a`` of the flattened matrix).

        Raises
        ------
        ValueError
            If ``flatten=False`` (the 3-D output has no column names).
        """
        check_is_fitted(self)
        from sklearn.utils.validation import _check_feature_names_in

        _check_feature_names_in(self, input_features, generate_names=False)
        if not self.flatten:
            raise ValueError("feature names need flatten=True: with flatten=False, transform "
                             "returns the 3-D (n, 2 s r, p) array, which has no columns.")
        s, r, p = self.frequencies_.shape[0], self.rank_, self.n_outputs_
        names = [f"orff_{part}_w{j}_b{k}_y{a}" for part in ("cos", "sin") for j in range(s)
                 for k in range(r) for a in range(p)]
        return np.asarray(names, dtype=object)

    def _A_tilde(self):
        """``A~(w_j) = B_j B_j^T``, shape (s, p, p) (or (p, p) decomposable)."""
        B = self.factors_
        if B.ndim == 2:
            return B @ B.T
        return np.einsum("jak,jbk->jab", B, B)

    def approximate_kernel(self, X: ArrayLike, Z: ArrayLike | None = None, *,
                           block: bool = False) -> np.ndarray:
        """``K~(x_i, z_l) = Phi(x_i)^T Phi(z_l) = sum_j xi_j cos<x_i - z_l, w_j> A~(w_j)``.

        Parameters
        ----------
        X : array_like of shape (n, d)
        Z : array_like of shape (m, d), default=None
            ``None`` means ``Z = X``.
        block : bool, default=False
            Return the flattened block matrix ``(n p, m p)`` (as
            :meth:`~qmc_orff.kernels.OperatorKernel.block`).

        Returns
        -------
        ndarray of shape (n, m, p, p), or (n p, m p) when ``block``
        """
        FX = self.scalar_features(X)
        FZ = FX if Z is None else self.scalar_features(Z)
        A = self._A_tilde()
        n, m = FX.shape[0], FZ.shape[0]
        p = self.n_outputs_
        if A.ndim == 2:
            K = (FX @ FZ.T)[:, :, None, None] * A
        else:
            K = np.empty((n, m, p, p))
            for a in range(p):
                for b in range(a, p):
                    coef = np.concatenate([A[:, a, b], A[:, a, b]])
                    K[:, :, a, b] = (FX * coef) @ FZ.T
                    if b != a:
                        K[:, :, b, a] = K[:, :, a, b]
        if block:
            return np.ascontiguousarray(K.transpose(0, 2, 1, 3).reshape(n * p, m * p))
        return K

    def operator(self, X: ArrayLike) -> LinearOperator:
        """``P_X: theta -> Phi(X)^T theta`` as a LinearOperator, without forming ``Phi(X)``.

        Parameters
        ----------
        X : array_like of shape (n, d)

        Returns
        -------
        scipy.sparse.linalg.LinearOperator of shape (n p, 2 s r)
            ``matvec(theta)[i p + a] = (Phi(x_i)^T theta)[a]``; ``rmatvec`` is the
            adjoint ``y -> sum_i Phi(x_i) y_i``.

        Notes
        -----
        With ``F = F(X)`` (n, 2 s) computed once (``O(n s d)``): ``matvec`` forms
        ``V[c s + j] = B(w_j) theta_{c s + j}`` (``O(s p r)``) and returns ``F V``
        (``O(n s p)``); ``rmatvec`` forms ``G = F^T Y`` (``O(n s p)``) and
        ``theta_{c s + j} = B(w_j)^T G[c s + j]`` (``O(s p r)``).  For the
        decomposable kernel ``matvec`` is ``(F Theta) B^T`` (``O(n s r + n r p)``).
        Per point this is Brault et al.'s Table 2, with ``O(s p)`` instead of
        ``O(s p^2)`` for the div-free map.
        """
        F = self.scalar_features(X)
        return _FeatureOperator(F, self.factors_)


class _FeatureOperator(LinearOperator):
    """``theta -> Phi(X)^T theta`` from ``F(X)`` (n, 2 s) and the factors ``B``."""

    def __init__(self, F, B):
        self.F = F
        self.B = B
        n, s2 = F.shape
        self.s = s2 // 2
        self.p = B.shape[-2]
        self.r = B.shape[-1]
        self.n = n
        super().__init__(dtype=np.float64, shape=(n * self.p, s2 * self.r))

    def _theta_to_V(self, T):
        """``T`` (2 s, r, k) -> ``V`` (2 s, p, k), ``V[cj] = B_j T[cj]``."""
        B = self.B
        if B.ndim == 2:
            return np.einsum("ak,jkq->jaq", B, T)
        T = T.reshape(2, self.s, self.r, -1)
        V = np.einsum("jak,cjkq->cjaq", B, T)
        return V.reshape(2 * self.s, self.p, -1)

    def _matmat(self, Theta):
        k = Theta.shape[1]
        T = np.asarray(Theta, dtype=np.float64).reshape(2 * self.s, self.r, k)
        if self.B.ndim == 2:
            FT = self.F @ T.reshape(2 * self.s, self.r * k)  # (n, r k)
            Y = np.einsum("irq,ar->iaq", FT.reshape(self.n, self.r, k), self.B)
        else:
            V = self._theta_to_V(T)  # (2 s, p, k)
            Y = (self.F @ V.reshape(2 * self.s, self.p * k)).reshape(self.n, self.p, k)
        return Y.reshape(self.n * self.p, k)

    def _rmatmat(self, Ymat):
        k = Ymat.shape[1]
        Y = np.asarray(Ymat, dtype=np.float64).reshape(self.n, self.p * k)
        G = (self.F.T @ Y).reshape(2 * self.s, self.p, k)  # (2 s, p, k)
        B = self.B
        if B.ndim == 2:
            T = np.einsum("ak,jaq->jkq", B, G)
        else:
            T = np.einsum("jak,cjaq->cjkq", B, G.reshape(2, self.s, self.p, k))
        return T.reshape(2 * self.s * self.r, k)

    def _matvec(self, theta):
        return self._matmat(np.asarray(theta).reshape(-1, 1)).ravel()

    def _rmatvec(self, y):
        return self._rmatmat(np.asarray(y).reshape(-1, 1)).ravel()

    def _adjoint(self):
        return _AdjointOperator(self)


class _AdjointOperator(LinearOperator):
    def __init__(self, op):
        self.op = op
        super().__init__(dtype=np.float64, shape=(op.shape[1], op.shape[0]))

    def _matvec(self, y):
        return self.op._rmatvec(y)

    def _matmat(self, Y):
        return self.op._rmatmat(Y)

    def _rmatvec(self, theta):
        return self.op._matvec(theta)

    def _rmatmat(self, Theta):
        return self.op._matmat(Theta)

    def _adjoint(self):
        return self.op
