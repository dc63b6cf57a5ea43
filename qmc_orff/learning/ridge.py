"""Ridge regression with operator-valued Fourier features (:class:`ORFFRidge`).

Scalar kernels need no estimator of their own: put
:class:`~qmc_orff.FourierFeatures` in a pipeline with
:class:`sklearn.linear_model.Ridge` -- or use :class:`ORFFRidge` with the
decomposable kernel and one output (``p = 1``), which adds out-of-core fitting
(:meth:`ORFFRidge.partial_fit`, Dask arrays).

The solvers need only the sufficient statistics of the data: the weighted
means ``mF`` (2 s) and ``mY`` (p) and the centred moments ``G = sum_i w_i (F_i -
mF)(F_i - mF)^T`` (2 s x 2 s) and ``C = sum_i w_i (F_i - mF)(Y_i - mY)^T``
(2 s x p) of the scalar features ``F_i = F(x_i)``.  They are accumulated batch
by batch and merged with the pairwise update of Chan, Golub and LeVeque (1979),
so the memory is independent of ``n`` and chunks can be reduced in any order
(:meth:`ORFFRidge.partial_fit`, a Dask reduction over chunks).
"""
from __future__ import annotations

import contextlib
from numbers import Integral, Real

import numpy as np
import sklearn
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context, clone
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _array_api as _xp
from .. import _dask
from .._validation import check_choice, check_int, check_positive_real, check_weight_values
from ..maps.operator_nystroem import OperatorNystroem
from ..maps.orff import ORFF
from ..threads import _blas_limited
from ._solvers import check_alpha
from ._statistics import accumulate, merge
from ._structure import structure_of

__all__ = ["ORFFRidge"]

_SOLVERS = ("auto", "stein", "direct", "cg")
#: ``solver="cg"`` in :meth:`ORFFRidge.fit` on an in-memory array forms the scalar
#: Gram matrix ``F^T F`` (2 s x 2 s) when ``n > 2 s`` and it takes at most this many
#: bytes; otherwise it works through the operator.  (:meth:`ORFFRidge.partial_fit`
#: and Dask fits always form it: it is their state.)
GRAM_MAX_BYTES = 1 << 30
#: Default batch memory in MiB (capped further by scikit-learn's ``working_memory``).
BATCH_MIB = 64


class ORFFRidge(RegressorMixin, BaseEstimator):
    r"""Vector-valued ridge regression on operator-valued Fourier features.

    Minimises

    .. math::

        \sum_{i=1}^{n} w_i \lVert \Phi(x_i)^\top \theta + b - y_i \rVert^2
        + \alpha \lVert\theta\rVert^2

    over :math:`\theta \in \mathbb R^{2sr}` and the intercept :math:`b \in \mathbb R^p`
    (Brault et al. 2016, eq. 10 with the squared loss; the loss is summed and the intercept
    not penalised, as in :class:`sklearn.linear_model.Ridge`), and predicts
    :math:`f(x) = \Phi(x)^\top \theta + b`.

    Parameters
    ----------
    orff : ORFF, OperatorNystroem or None, default=None
        The (unfitted) feature map; cloned and fitted in :meth:`fit`.  ``None``
        means ``ORFF()``.  An :class:`~qmc_orff.OperatorNystroem` goes through the
        normal equations of its features (:math:`D \times D`; solvers ``"auto"`` (``"direct"``),
        ``"direct"`` and ``"cg"``, a scalar ``alpha``); it is fitted on the rows of
        :meth:`fit`, the first :meth:`partial_fit` batch, or a sample of a Dask ``X``,
        unless it is already fitted: then a copy is used as it is (its pairs kept).  For the decomposable kernel with ``A=None`` the
        identity of size :math:`p` (the number of outputs) is used; :math:`p = 1` is
        scalar kernel ridge regression with the Gaussian kernel.
    alpha : float or array_like of shape (p,), default=1.0
        Regularisation, :math:`\alpha \ge 0`.  ``0`` is least squares: the minimum-norm
        solution of a singular system (``scipy.linalg.lstsq``, or the
        pseudo-inverse in the ``"stein"`` closed form).  One value per target (as
        :class:`sklearn.linear_model.Ridge` takes) when the outputs are
        independent: the decomposable kernel with a diagonal ``A`` (``A=None``,
        the identity, included); output :math:`a` then penalises its own coefficients
        by :math:`\alpha_a`.  Other kernels share :math:`\theta` between the outputs and
        refuse an array.
    fit_intercept : bool, default=True
        Fit the unpenalised intercept :math:`b` (the features and targets are
        centred with the weighted means; :math:`b = \bar y - \Phi(\bar F)^\top \theta`).
        ``False``: :math:`b = 0`.
    solver : {"auto", "stein", "direct", "cg"}, default="auto"
        - ``"stein"`` (decomposable kernel only): closed form of the Stein
          equation :math:`G \Theta B^\top B + \alpha \Theta = C B` through the
          eigendecompositions of :math:`G` (:math:`2s \times 2s`) and :math:`B^\top B` (:math:`r \times r`):
          :math:`O(s^3)` after the statistics, never the :math:`2 s r`-sized system.
        - ``"direct"``: Cholesky solve of the normal equations, whose matrix
          :math:`G \circ (B^\top B)` (a Hadamard product of the Gram matrix of the scalar
          features with that of the factors) is formed in :math:`O((s r)^2 p)`;
          memory :math:`(2 s r)^2`.
        - ``"cg"``: Jacobi-preconditioned conjugate gradient on the normal
          equations, with the normal operator :math:`\theta \mapsto B^\top (G (B \theta))`
          (Brault et al. 2016, Table 2; :math:`O(s^2 p)` per iteration).  An
          in-memory :meth:`fit` with :math:`n \le 2 s`, or whose ``G`` would exceed
          ``GRAM_MAX_BYTES``, goes through :meth:`ORFF.operator` and its adjoint
          instead (:math:`O(n s p)` per iteration, memory :math:`O(n s)`).
        - ``"auto"``: ``"stein"`` for the decomposable kernel, else ``"direct"``
          when :math:`2 s r \le 4096` (or the input is not NumPy), else ``"cg"``.

        Arrays of another namespace (array API dispatch) run ``"stein"`` and ``"direct"``
        in that namespace; ``"cg"`` (SciPy's) is NumPy-only and refused there with a
        ``ValueError``.
    tol : float, default=1e-10
        Relative residual tolerance of ``"cg"``.
    max_iter : int or None, default=None
        Iteration cap of ``"cg"`` (``None``: ``10 * 2 s r``).
    batch_size : int or None, default=None
        Rows per batch when accumulating the statistics and in :meth:`predict`.
        ``None``: as many rows as fit in ``min(64, working_memory)`` MiB of
        features (``working_memory`` from :func:`sklearn.get_config`), at least
        one.  The extra memory of :meth:`fit` and :meth:`predict` is then
        ``O(batch_size s + s^2)``, whatever ``n``.
    verbose : int, default=0
        ``> 0``: progress on stderr (the feature map's fit, with the map's own
        progress lines, and the solve).

    Attributes
    ----------
    orff_ : ORFF or OperatorNystroem
        The fitted feature map.
    coef_ : ndarray of shape (2 s r,), or (D,) for an OperatorNystroem
        ``theta``, in the row order of the map's ``transform``.
    intercept_ : ndarray of shape (p,), or float when fitted on a 1-D ``y``
        ``b`` (zero when ``fit_intercept=False``).
    solver_ : str
        The solver used.
    n_iter_ : int
        Conjugate gradient iterations; ``1`` for the closed-form solvers (one
        factorisation).
    n_samples_seen_ : int
        Rows seen by :meth:`fit` or the :meth:`partial_fit` calls since.
    n_features_in_ : int

    See Also
    --------
    ORFF : the feature map it fits.
    FourierFeatures : scalar features for any scikit-learn linear model.
    sklearn.linear_model.Ridge : the same estimator on explicit features.

    Notes
    -----
    Out of core: :meth:`partial_fit` adds a batch to the statistics and solves
    again (``O(n_b s^2 + s^3)`` per call); :meth:`fit` on a Dask array computes
    the statistics of each chunk as one task, merges them in a tree on the
    active scheduler (threads, processes or a ``distributed`` cluster) and
    solves once on the client.  The client then holds ``O(s^2)`` numbers, never
    a chunk of features.  Each task runs with
    ``qmc_orff.threads.get_dask_task_threads()`` threads (default 1).  The
    feature map of a Dask fit is fitted on the first row (the maps are
    data-independent: only the column count is read).

    Examples
    --------
    >>> import numpy as np
    >>> from qmc_orff import ORFF, ORFFRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(200, 2))
    >>> Y = np.stack([np.cos(X[:, 0]), np.sin(X[:, 1])], axis=1)
    >>> model = ORFFRidge(ORFF("curl_free", n_components=64, seed=0), alpha=1e-3).fit(X, Y)
    >>> model.predict(X).shape
    (200, 2)
    """

    _parameter_constraints: dict = {
        "orff": [ORFF, OperatorNystroem, None],
        "alpha": [Real, "array-like"],
        "fit_intercept": ["boolean"],
        "solver": [StrOptions(set(_SOLVERS))],
        "tol": [Real],
        "max_iter": [Integral, None],
        "batch_size": [Integral, None],
        "verbose": ["verbose"],
    }

    def __init__(self, orff=None, *, alpha=1.0, fit_intercept=True, solver="auto", tol=1e-10,
                 max_iter=None, batch_size=None, verbose=0):
        self.orff = orff
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.input_tags.sparse = True
        tags.array_api_support = self.solver != "cg"  # SciPy's cg: NumPy only
        return tags

    # ------------------------------------------------------------------ settings
    def _settings(self):
        solver = check_choice(self.solver, "solver", _SOLVERS)
        alpha = check_alpha(self.alpha)
        tol = check_positive_real(self.tol, "tol")
        max_iter = None if self.max_iter is None else check_int(self.max_iter, "max_iter",
                                                                minimum=1)
        if not isinstance(self.fit_intercept, (bool, np.bool_)):
            raise TypeError(f"'fit_intercept' must be a bool; got {self.fit_intercept!r}.")
        if self.batch_size is not None:
            check_int(self.batch_size, "batch_size", minimum=1)
        orff = ORFF() if self.orff is None else self.orff
        if not isinstance(orff, (ORFF, OperatorNystroem)):
            raise TypeError("'orff' must be an ORFF or OperatorNystroem instance or None; got "
                            f"{type(orff).__name__}.")
        return solver, alpha, tol, max_iter, orff

    def _batch_rows(self, row_bytes):
        if self.batch_size is not None:
            return int(self.batch_size)
        mib = min(BATCH_MIB, float(sklearn.get_config()["working_memory"]))
        return max(1, int(mib * 2**20 // max(row_bytes, 1)))

    def _new_map(self, orff, X, p, sample_weight=None):
        """Clone and fit the feature map for ``p`` outputs (a fitted map of dense features: a
        copy, its pairs kept); check ``p``."""
        if _prefitted(orff, X.shape[1]):
            import copy

            orff = copy.deepcopy(orff)
        else:
            orff = clone(orff)
            if orff.kernel == "decomposable" and orff.A is None:
                orff.set_params(A=np.eye(p))
            if self.verbose and not getattr(orff, "verbose", 1):
                orff.set_params(verbose=self.verbose)
            self._say(f"fitting the feature map on {X.shape[0]} x {X.shape[1]} rows")
            orff.fit(X, sample_weight=sample_weight)
        if orff.n_outputs_ != p:
            raise ValueError(f"'y' must have p={orff.n_outputs_} columns for "
                             f"kernel={orff.kernel!r} on d={X.shape[1]} inputs; got {p}.")
        return orff

    # ------------------------------------------------------------------ fitting
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None):
        r"""Fit the feature map on ``X`` and solve the ridge problem.

        Parameters
        ----------
        X : {array_like, sparse matrix} or dask.array.Array of shape (n, d)
            Sparse ``X`` (scipy.sparse CSR/CSC) is multiplied as it is (:math:`X W^\top`).
            Under array API dispatch, an array of another namespace (torch, CuPy,
            array-api-strict): the fit runs in it, on its device.
        y : array_like or dask.array.Array of shape (n, p) or (n,)
            Vector-valued targets (:math:`p = d` for the curl- and div-free kernels).
        sample_weight : array_like or dask.array.Array of shape (n,), default=None
            Non-negative weights :math:`w_i` of the squared errors, not all zero (``None``:
            all 1).  Integer weights are equivalent to repeating rows.

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight, partial=False)

    @_fit_context(prefer_skip_nested_validation=False)
    def partial_fit(self, X, y, sample_weight=None):
        """Add a batch to the sufficient statistics and solve again.

        The first call (or the first after :meth:`fit` on in-memory data that
        went through the operator) fits the feature map; later calls must have
        the same ``d`` and ``p``.  Calling it on batches gives the model
        :meth:`fit` gives on their concatenation (to rounding).  Memory: the
        statistics, ``O(s^2)``, and one batch of features.  A later batch whose weights
        are all zero adds nothing and is skipped (as scikit-learn's estimators do).

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_b, d)
        y : array_like of shape (n_b, p) or (n_b,)
        sample_weight : array_like of shape (n_b,), default=None

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight, partial=True)

    def _inputs(self, X, y, first, xp, device):
        """Validated ``X`` and ``y`` (NumPy: float64, CSR; else arrays of ``xp`` on ``device``)."""
        if _xp.is_numpy(xp):
            y = _xp.host(y)
            if hasattr(y, "tocsr"):  # scipy.sparse: the solvers take dense targets
                raise TypeError(f"'y' must be a dense array; got a sparse "
                                f"{type(y).__name__}. Use y.toarray().")
            dtype = np.asarray(y).dtype
            if dtype.kind in "USV":  # (complex: sklearn's ValueError)
                raise TypeError(f"'y' must contain real numbers; got dtype {dtype}.")
            if dtype.kind == "O" and y is not None:  # scikit-learn checks objects for NaN, not inf
                try:
                    y = np.asarray(y, dtype=np.float64)
                except (TypeError, ValueError):
                    pass  # scikit-learn's conversion says what is wrong
            return validate_data(self, _xp.host(X), y, multi_output=True, y_numeric=True,
                                 dtype=np.float64, reset=first, accept_sparse="csr")
        return validate_data(self, X, _xp.move(y, xp, device), multi_output=True,
                             y_numeric=True, dtype=_xp.input_dtypes(xp, device), reset=first)

    def _fit(self, X, y, sample_weight, *, partial):
        """The one fit, of :meth:`fit` (``partial=False``) and :meth:`partial_fit`: read the
        data (arrays of any namespace, or Dask arrays in :meth:`fit`), fit the map on the first
        batch, form the statistics (merged into the earlier batches'), solve."""
        solver, alpha, tol, max_iter, orff = self._settings()
        first = not partial or getattr(self, "_stats", None) is None
        dask = not partial and any(_dask.is_dask_collection(a) for a in (X, y, sample_weight))
        data = (self._read_dask if dask else self._read)(X, y, sample_weight, orff, first)
        if data is None:
            return self  # a later batch of zero weights adds nothing: skipped
        X, Y, w, fmap, y_1d, n_seen, xp = data
        st = structure_of(fmap)
        solver = st.choose_solver(solver, alpha, xp)
        for name in ("n_iter_", "_stats"):
            if not partial and hasattr(self, name):
                delattr(self, name)
        s2, n = st.row_floats(), X.shape[0]
        batch = self._batch_rows(8 * (s2 + Y.shape[1]))
        with _serial(st):
            if not (dask or partial) and solver == "cg" and hasattr(st, "operator_solve") \
                    and (n <= s2 or s2 * s2 * 8 > GRAM_MAX_BYTES):  # never forms G
                theta, b, n_iter = st.operator_solve(X, Y, w, alpha, tol, max_iter,
                                                     self.fit_intercept)
                stats = None
            else:
                if dask:
                    stats = _dask.reduce_blocks(_block_statistics, merge, (X, Y, w), st, batch)
                    n = int(stats[1])
                    check_weight_values(0.0, stats[0])  # each chunk's were non-negative
                else:
                    stats = accumulate(lambda rows: st.features(rows, xp), X,
                                       st.targets(Y, xp), st.row_weights(w, n, xp), batch, xp)
                if not first:
                    stats = merge(self._stats, stats)
                theta, b, n_iter = st.solve(stats, alpha, solver, tol, max_iter,
                                            self.fit_intercept, xp)
        self._set_solution(fmap, theta, b, n_iter, solver, y_1d, n_seen + n, stats)
        return self

    def _read(self, X, y, sample_weight, orff, first):
        """In-memory data ``(X, Y, w, map, y_1d, rows seen before, xp)``, validated in ``X``'s
        namespace; the map fitted on the first batch.  ``None``: a later batch of zero
        weights."""
        xp, device = _xp.namespace(X)
        X, y = self._inputs(X, y, first, xp, device)
        w = _xp.sample_weights(sample_weight, X, xp, device, allow_all_zero=not first)
        if w is not None and not first and float(xp.max(w)) == 0.0:
            return None
        Y = y[:, None] if y.ndim == 1 else y
        if first:
            fmap, y_1d, n_seen = self._new_map(orff, X, Y.shape[1], w), y.ndim == 1, 0
        else:
            fmap, y_1d, n_seen = self.orff_, self._y_1d, self.n_samples_seen_
            if Y.shape[1] != fmap.n_outputs_:
                raise ValueError(f"'y' must have p={fmap.n_outputs_} columns, as in the "
                                 f"earlier batches; got {Y.shape[1]}.")
        if not _xp.is_numpy(xp):  # the statistics in the fitted map's dtype
            dtype = _xp.float_dtype(xp, device)
            Y, w = xp.astype(Y, dtype), None if w is None else xp.astype(w, dtype)
        return X, Y, w, fmap, y_1d, n_seen, xp

    def _read_dask(self, X, y, sample_weight, orff, first):
        """Dask data, as :meth:`_read`: the chunks stay lazy (validated in their tasks,
        :func:`_block_statistics`); the map is fitted on the rows a fit in memory reads."""
        X, Y, w, y_1d, d = _dask.ridge_inputs(X, y, sample_weight)
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.n_features_in_ = d
        rows, w_rows = _dask_map_rows(orff, X, Y.shape[1], w)
        fmap = self._new_map(orff, rows, Y.shape[1], w_rows)
        return X, Y, w, fmap, y_1d, 0, _xp.namespace()[0]

    def _say(self, message):
        if self.verbose:
            import sys

            print(f"[ORFFRidge] {message}", file=sys.stderr, flush=True)

    def _set_solution(self, orff, theta, b, n_iter, solver, y_1d, n_seen, stats):
        self._say(f"solved by {solver!r} ({n_iter} iteration(s)) on {n_seen} rows")
        self.orff_ = orff
        self.coef_ = theta
        self.intercept_ = float(b[0]) if y_1d else b
        self.n_iter_ = n_iter
        self.solver_ = solver
        self.n_samples_seen_ = n_seen
        self._y_1d = y_1d
        self._stats = stats

    # ------------------------------------------------------------------ prediction
    def predict(self, X):
        r"""Predictions :math:`f(x_i) = \Phi(x_i)^\top \theta + b`, in batches of ``batch_size`` rows.

        Parameters
        ----------
        X : {array_like, sparse matrix} or dask.array.Array of shape (m, d)
            A Dask array gives a Dask array (lazily, one task per chunk).

        Returns
        -------
        ndarray of shape (m, p), or (m,) for one target (``y`` of shape (n,) or (n, 1), as
            :class:`sklearn.linear_model.Ridge`).  In ``X``'s dtype (float32 or
            float64; under array API dispatch, in its namespace and on its device).  Extra
            memory: one batch of features, ``O(batch_size s)``.
        """
        check_is_fitted(self)
        if _dask.is_dask_collection(X):
            return _dask.map_rows(self, "predict", X)
        _xp.check_same(X, self, "coef_", "predict")
        xp, device = _xp.namespace(X)
        if _xp.is_numpy(xp):
            X = validate_data(self, _xp.host(X), dtype=[np.float64, np.float32], reset=False,
                              accept_sparse="csr")
            dtype = X.dtype
            X = X.astype(np.float64, copy=False)
        else:
            X = validate_data(self, X, dtype=_xp.input_dtypes(xp, device), reset=False)
            dtype = X.dtype
        st = structure_of(self.orff_)
        rows = self._batch_rows(8 * st.row_floats(predict=True))
        with _serial(st):
            m = X.shape[0]
            parts = [st.apply(st.features(X[a:min(a + rows, m), ...], xp), self.coef_, xp)
                     for a in range(0, m, rows)]
        out = parts[0] if len(parts) == 1 else xp.concat(parts, axis=0)
        out = xp.astype(out + xp.reshape(xp.asarray(self.intercept_, dtype=out.dtype,
                                                     device=device), (-1,)), dtype)
        return xp.reshape(out, (-1,)) if out.shape[1] == 1 else out  # one target: (m,), as Ridge


def _serial(st):
    """One BLAS thread around the reductions where the structure asks for it
    (``st.serial_blas``), else nothing."""
    return _blas_limited(1) if st.serial_blas else contextlib.nullcontext()


def _prefitted(fmap, d):
    """Whether ``fmap`` is a fitted map of dense features (used as it is); its input width
    must be ``d``."""
    if hasattr(fmap, "n_components_") and not hasattr(fmap, "scalar_features"):
        if fmap.n_features_in_ != d:
            raise ValueError(f"'X' must have {fmap.n_features_in_} columns, as the rows the "
                             f"fitted feature map 'orff' was fitted on; got {d}.")
        return True
    return False


# --------------------------------------------------------------------------- Dask
def _dask_map_rows(orff, X, p, w=None):
    """The rows of a Dask ``X`` the feature map's ``fit`` reads, computed: the map is then the
    one a fit on ``X`` in memory gives (the seedless default's selection and the fit-time
    check sample fixed rows; see :func:`qmc_orff.maps.default_source._orff_fit_rows`), and
    their weights (None without ``w``).  A map of dense features is fitted on its landmark
    sample: ``min(n, max(2048, 4 D))`` rows."""
    import math

    from ..maps.default_source import _orff_fit_rows, _sample_indices

    n = X.shape[0]
    if n is None or (isinstance(n, float) and math.isnan(n)):  # unknown chunk sizes
        rows = _dask.first_block(X)
        return rows, None if w is None else np.asarray(w.blocks[0].compute(), dtype=np.float64)
    if hasattr(orff, "scalar_features"):
        m = _orff_fit_rows(orff, p)
    else:
        m = min(n, max(2048, 4 * int(getattr(orff, "n_components", 1))))
    idx = slice(0, 1) if m == 1 else _sample_indices(n, m)
    return (np.asarray(X[idx].compute()),
            None if w is None else np.asarray(w[idx].compute(), dtype=np.float64))


def _block_statistics(st, rows, X, Y, w):
    """One Dask chunk: validate it like :meth:`ORFFRidge.fit` and return its statistics."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    Y = Y[:, None] if Y.ndim == 1 else Y
    if Y.shape[0] != X.shape[0]:
        raise ValueError(f"'y' must have as many rows as 'X' in every chunk; got {Y.shape[0]} "
                         f"and {X.shape[0]}.")
    if not np.all(np.isfinite(Y)):
        raise ValueError("Input y contains NaN or infinity.")
    if w is not None:
        w = np.asarray(w, dtype=np.float64).reshape(-1)
        if w.shape[0] != X.shape[0] or not np.all(np.isfinite(w)):
            raise ValueError("'sample_weight' must be finite and have one value per row of 'X' "
                             "in every chunk.")
        check_weight_values(float(np.min(w)) if w.size else 0.0, float(np.sum(w)),
                            allow_all_zero=True)
    xp = _xp.namespace()[0]
    with _serial(st):
        return accumulate(lambda part: st.features(part, xp), X, st.targets(Y, xp),
                          st.row_weights(w, X.shape[0], xp), rows, xp)
