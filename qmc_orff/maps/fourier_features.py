"""Scalar random Fourier features: :class:`FourierFeatures`."""
from __future__ import annotations

from typing import TYPE_CHECKING

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import (BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
                          _fit_context)
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _array_api as _xp
from .. import _dask
from .._validation import as_real_scalar, check_choice, check_map_rows
from ..kernels import SCALAR_KERNELS, SkewedChi2, scalar_kernel
from ..sources.frequencies import SOURCES, make_frequencies
from ._params import _common_constraints, _resolve_seed, _sigma_from_gamma
from .adaptive_maps import _adaptive_frequencies, _is_adaptive
from .default_source import _CHECKS, _check_supplied_sequence, _select_default, median_bandwidth

if TYPE_CHECKING:  # names used in type hints only
    from typing import Any

    from numpy.typing import ArrayLike
    from scipy.sparse import spmatrix

__all__ = ["FourierFeatures"]

#: other names accepted for a kernel (scikit-learn's RBFSampler calls the Gaussian "rbf")
_KERNEL_ALIASES = {"rbf": "gaussian"}


# --------------------------------------------------------------------------- scalar maps
@_dask.lazy_transform
class FourierFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Fourier features of a shift-invariant kernel, from random or QMC frequencies.

    With frequencies :math:`w_1, \dots, w_s` (the rows of ``frequencies_``, :math:`W`) and
    weights :math:`\xi_j` (``weights_``), ``transform`` maps a row :math:`x` to

    .. math::

        z(x) = \bigl[\sqrt{\xi_j} \cos\langle w_j, x\rangle\bigr]_{j=1}^{s}
        \oplus \bigl[\sqrt{\xi_j} \sin\langle w_j, x\rangle\bigr]_{j=1}^{s},
        \qquad
        z(x)^\top z(y) = \sum_{j=1}^{s} \xi_j \cos\langle x - y, w_j\rangle \approx k(x, y).

    .. warning::
       ``n_components`` counts **frequencies**, not columns: the output has
       **2 n_components columns** (a cosine and a sine per frequency).
       scikit-learn's ``RBFSampler(n_components=m)`` has ``m`` columns, so
       ``FourierFeatures(n_components=m // 2)`` is the map of equal width.

    Parameters
    ----------
    kernel : {"gaussian", "rbf", "laplacian", "matern", "skewed_chi2"}, default="gaussian"
        :math:`\exp(-\lVert x - z\rVert^2 / (2\sigma^2))` (``"rbf"`` is another name for it),
        :math:`\exp(-\lVert x - z\rVert_1 / \sigma)`, the Matern kernel with smoothness ``nu``
        and length scale ``sigma``, or the skewed chi-squared kernel with
        skewness ``c`` (features of ``log(x + c)``; inputs must satisfy
        ``x + c > 0``).  The exact kernels are in ``qmc_orff.kernels``.
    sigma : float or array_like of shape (d,) or None, default=None
        Bandwidth / length scale (per coordinate allowed).  ``None`` (and ``gamma=None``):
        the median heuristic, computed at ``fit``: the median distance between the rows of
        a fixed sample of at most 512 rows of ``X`` (Euclidean; the 1-norm for the
        Laplacian and skewed chi-squared kernels, of ``log(X + c)`` for the latter), 1.0
        when they are all equal; ``sigma_`` holds it.  ``gamma`` gives it otherwise.
    gamma : "scale", float or array_like of shape (d,) or None, default=None
        The Gaussian kernel's :math:`\exp(-\gamma \lVert x - z\rVert^2)` (RBFSampler's
        parameter): :math:`\gamma = 1 / (2\sigma^2)`, so :math:`\sigma = 1/\sqrt{2\gamma}`.
        ``"scale"`` (as in :class:`sklearn.kernel_approximation.RBFSampler`):
        :math:`\gamma = 1 / (d \operatorname{Var} X)`, the variance of all the entries of the ``X``
        given to ``fit`` (1.0 when it is 0), computed at fit; ``sigma_`` holds the result.
        Give ``sigma`` or ``gamma``, not both.
    n_components : int or None, default=256
        Number ``s`` of **frequencies**; the output has **2 s columns**.
        ``None`` takes all the points of a Sequence or array ``sequence``.
    sequence : {"auto", "orf-qmc", "halton", "sobol", "lattice", "mc", "orf", "adaptive"}, Sequence, QMCEngine or array_like, default="auto"
        Point source; see :func:`qmc_orff.make_frequencies`.  A
        `scipy.stats.qmc.QMCEngine` instance (``scipy.stats.qmc.Sobol(d)``,
        :class:`qmc_orff.Sobol`, ...) gives its next ``n_components`` points at each
        ``fit`` (``engine.random``; its ``d`` must match): a stateful engine advances,
        so refitting gives another map unless it is ``reset()``.  ``"auto"``: orthogonal
        directions with stratified radii (``"orf-qmc"``), scrambled Sobol' points in low
        dimension (:math:`d \le 10`, :math:`s \ge 32 d`), RR2 Halton for the Laplacian and skewed
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
        Scrambling of the QMC points (see :func:`qmc_orff.make_frequencies`):
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
    verbose : int, default=0
        ``> 0``: progress of the long fits on stderr (the seedless default's
        selection, one line per candidate draw; the adaptive design's progress line).

    Attributes
    ----------
    frequencies_ : ndarray of shape (s, d)
    weights_ : ndarray of shape (s,)
        Quadrature weights :math:`\xi` (:math:`1/s` unless a weighted Sequence was given).
    design_ : Sequence
        With ``sequence="adaptive"`` only: the designed sequence (its ``meta``
        has the validation errors of the start, of ORF and of the result).
    sigma_ : float or ndarray of shape (d,)
        The bandwidth used (from ``sigma``, ``gamma`` or the median heuristic).
    kernel_ : qmc_orff.kernels.Kernel
        The exact kernel approximated.
    check_ : tuple or None
        ``(error, reference_error, n_rows)`` of the fit-time check, ``None`` when it did
        not run (named source or ``check="off"``).
    n_features_in_ : int

    See Also
    --------
    ORFF : the operator-valued (matrix-valued kernel) counterpart.
    make_frequencies : the frequencies and weights alone, from any point source.
    gram_error : the relative Gram error of a fitted map on held-out rows.
    sklearn.kernel_approximation.RBFSampler : random Fourier features (i.i.d. frequencies).
    sklearn.kernel_approximation.Nystroem : a data-dependent map from landmark rows.

    Notes
    -----
    With a data-independent source a fitted map depends on the data only through ``d``
    (``n_features_in_``); the seedless default and ``"adaptive"`` look at the training rows
    once, in ``fit``.  ``transform`` is always a pure function of each row, so it can be
    applied chunk by chunk, in any order, on any scheduler, with the same result.  Sparse
    ``X`` (scipy.sparse CSR/CSC) is accepted by ``fit`` and ``transform``:
    :math:`X W^\top` is a sparse-dense product; the output is dense (not for
    ``kernel="skewed_chi2"``, whose :math:`\log(x + c)` is dense).

    Avron et al. (2016), Algorithm 1 (and section 5 for weights).  The product
    :math:`X W^\top` is one BLAS call writing into the output's second half; the sine
    and cosine of each argument are then computed together in one vectorised
    pass, in place (a compiled kernel), so the peak memory is
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

    _parameter_constraints: dict = {
        "kernel": [StrOptions(set(SCALAR_KERNELS) | set(_KERNEL_ALIASES))],
        **_common_constraints(SOURCES + ("adaptive",)),
        "nu": [Real],
        "c": [Real],
    }

    def __init__(self, kernel="gaussian", *, sigma=None, gamma=None, n_components=256,
                 sequence="auto", seed=None, random_state=None, scramble="auto", nu=1.5,
                 c=1.0, check="warn", design_options=None, verbose=0):
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
        self.verbose = verbose

    def __sklearn_tags__(self):
        return _xp.map_tags(super().__sklearn_tags__())

    def _input(self, X, reset, finite=True, xp=None, device="cpu"):
        """Validated ``X`` (CSR or C-contiguous; ``log(X + c)`` for the skewed chi-squared
        kernel).  ``finite=False``: the caller finds a non-finite ``X`` by its phases
        (:func:`qmc_orff._cos_sin.cos_sin_features` with ``name``), saving a pass over ``X``.
        ``xp``: the namespace of ``X`` (``None``: NumPy)."""
        if xp is not None and not _xp.is_numpy(xp):
            X = validate_data(self, X, dtype=_xp.input_dtypes(xp, device), reset=reset)
            if self.kernel == "skewed_chi2":
                c = as_real_scalar(self.c, "c")
                if bool(xp.any(X + c <= 0)):
                    raise ValueError(f"'X' must satisfy X + c > 0 (c={c!r}); got minimum "
                                     f"{float(xp.min(X))!r}.")
                X = xp.log(X + c)
            return X
        finite = finite or self.kernel == "skewed_chi2"  # log(X + c) checks X + c > 0 first
        X = validate_data(self, _xp.host(X), dtype=[np.float64, np.float32], reset=reset,
                          accept_sparse=("csr", "csc"), ensure_all_finite=finite)
        if sp.issparse(X):
            if self.kernel == "skewed_chi2":
                raise ValueError("sparse 'X' is not supported for kernel='skewed_chi2' "
                                 "(log(X + c) is dense); pass a dense array.")
            return X.tocsr()
        if self.kernel == "skewed_chi2":
            # log(X + c) in X's dtype, checking X + c > 0
            X = SkewedChi2(as_real_scalar(self.c, "c")).log_transform(X)
        return np.ascontiguousarray(X)

    @_fit_context(prefer_skip_nested_validation=True)
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
        kernel = check_choice(self.kernel, "kernel", tuple(SCALAR_KERNELS) + tuple(_KERNEL_ALIASES))
        kernel = _KERNEL_ALIASES.get(kernel, kernel)
        seed = _resolve_seed(self.seed, self.random_state)
        check_map_rows(X, 0)  # from the shape, before scikit-learn's pass over X
        ns = _xp.foreign(X)  # array API: the frequencies are chosen on the host, moved once
        X_raw = X = _xp.host(X)
        X = self._input(X, reset=True)
        sigma = median_bandwidth(X, kernel) if self.sigma is None and self.gamma is None \
            else _sigma_from_gamma(kernel, self.sigma, self.gamma, X)
        if kernel == "skewed_chi2" and not isinstance(self.sequence, str):
            X_raw = validate_data(self, X_raw, dtype=np.float64, reset=False)
        else:
            X_raw = X  # the map reads the rows as they are
        d = X.shape[1]
        exact = scalar_kernel(kernel, sigma, nu=self.nu, c=self.c)  # c is checked by _input
        W = None
        if _is_adaptive(self.sequence):
            W, xi, self.design_ = _adaptive_frequencies(self, kernel, X, sigma, seed)
        elif isinstance(self.sequence, str) and self.sequence == "auto" and seed is None:
            W, xi = _select_default(kernel, self.n_components, X, exact, sigma=sigma,
                                    nu=self.nu, verbose=self.verbose)
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
        if ns is not None:
            _xp.move_fitted(self, ("frequencies_", "weights_", "sigma_"), ns)
        return self

    def transform(self, X: ArrayLike | spmatrix) -> np.ndarray:
        r"""Feature matrix :math:`[\sqrt{\xi} \cos(X W^\top), \sqrt{\xi} \sin(X W^\top)]`.

        Parameters
        ----------
        X : {array_like, sparse matrix} or dask.array.Array of shape (n, d)
            A Dask array gives a Dask array, lazily: one task per row chunk,
            ``2 s`` columns in one chunk (see :ref:`ug-dask`).

        Returns
        -------
        ndarray of shape (n, 2 s), dtype of ``X`` (float32 or float64)
            Dense, also for sparse ``X``.
        """
        check_is_fitted(self)
        if _dask.is_dask_collection(X):
            return _dask.map_rows(self, "transform", X)
        check_map_rows(X, self._n_features_out)  # the (n, 2 s) features, before X is read
        _xp.check_same(X, self, "frequencies_", "transform")
        xp, device = _xp.namespace(X)
        X = self._input(X, reset=False, finite=False, xp=xp, device=device)
        # the phases are checked as they are evaluated: no NaN features from overflowing phases
        return _xp.cos_sin(X, self.frequencies_, xp.sqrt(self.weights_), xp)
