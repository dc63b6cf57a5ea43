"""Operator-valued Nystroem map (:class:`OperatorNystroem`): a column Nystroem approximation of
the block Gram matrix of a Gaussian matrix-valued kernel, with ``D`` (landmark, output) pairs."""
from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _array_api as _xp
from .. import _dask
from .._validation import as_generator, check_choice, check_int, check_map_rows, shape_of
from ..threads import _blas_limited
from ..kernels import OPERATOR_KERNELS, operator_kernel
from ._pairs import inv_sqrt_psd, rp_cholesky_pairs, uniform_pairs
from .default_source import operator_default_bandwidth
from ._params import _check_second_rows, _resolve_seed, _seed_constraints, _sigma_from_gamma

if TYPE_CHECKING:  # names used in type hints only
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["OperatorNystroem"]

_SELECTIONS = ("rp_cholesky", "uniform")
#: ``fit`` refuses, before allocating, a Cholesky factor (``selection="rp_cholesky"``:
#: ``n p`` x ``D`` floats) or the ``D x D`` matrices ``W`` and ``W^{-1/2}`` over this many bytes.
MAX_BYTES = 1 << 31
#: The fitted arrays, moved to the input's device by a ``fit`` on arrays of another namespace.
_FITTED = ("sigma_", "components_", "component_indices_", "component_outputs_",
           "normalization_")
#: Kernel values (floats) evaluated at once by ``transform`` and the selection.
BATCH_FLOATS = 1 << 22


def _check_pivot_shape(X, selection, n_components):
    """Refuse from ``X.shape`` alone, before any pass over ``X``, the rows whose pivoted
    Cholesky factor (``n p`` x ``D`` floats, ``p >= 1`` outputs) is over :data:`MAX_BYTES`
    whatever ``p``; the exact check (with ``p``) follows the validation in ``_select``."""
    shape = shape_of(X)
    if shape is None or len(shape) != 2 or selection != "rp_cholesky":
        return
    n, D = shape[0], check_int(n_components, "n_components", minimum=1)
    if D < n and 8 * n * D > MAX_BYTES:  # D < n: fewer pairs than rows, so a selection runs
        raise ValueError(f"selection='rp_cholesky' needs at least {8 * n * D / 2**30:.1f} GiB for "
                         f"'X' of {n} rows and n_components={D} (limit MAX_BYTES = "
                         f"{MAX_BYTES / 2**30:.0f} GiB); fit on fewer rows or use "
                         "selection='uniform'.")


@_dask.lazy_transform
class OperatorNystroem(TransformerMixin, BaseEstimator):
    r"""Operator-valued Nystroem map of the Gaussian matrix-valued kernels of :class:`ORFF`.

    .. math::

       \Phi(x) = W^{-1/2} K_J(x), \qquad (K_J(x))_{k,:} = K(z_k, x)_{a_k,:}, \qquad
       W_{kl} = K(z_k, z_l)_{a_k a_l},

    of shape ``(D, p)``, for the pairs :math:`(z_k, a_k)` (a training row and an output) and
    :math:`W` of shape ``(D, D)``, so that :math:`\Phi(x)^\top \Phi(y) = K(x, Z)\, W^+ K(Z, y)`
    approximates :math:`K(x, y)` block-wise (exactly on the training rows when all :math:`n p` pairs
    are used).

    Parameters
    ----------
    kernel : {"decomposable", "curl_free", "div_free"}, default="decomposable"
        As in :class:`ORFF`: :math:`k_0(\delta) A`; :math:`-\nabla^2 k_0`;
        :math:`(\nabla^2 - \Delta I)\, k_0` (Hessian and Laplacian)
        with :math:`k_0(\delta) = \exp(-\lVert\delta\rVert^2 / (2 \sigma^2))` (fitted: ``kernel_``).  Curl- and
        div-free have :math:`p = d` outputs (div-free :math:`d \ge 2`).
    sigma : float, array_like of shape (d,) or None, default=None
        Bandwidth of :math:`k_0`, as in :class:`ORFF` (per coordinate only for the decomposable
        kernel); ``None`` (and ``gamma=None``): the median heuristic computed at ``fit``,
        as :class:`ORFF` (:func:`~qmc_orff.maps.default_source.median_bandwidth`: the median
        Euclidean distance between the rows of a fixed sample of at most 512 rows, pairs
        weighted by ``sample_weight``), or the value given by ``gamma``.
    gamma : "scale", float, array_like of shape (d,) or None, default=None
        :math:`k_0(\delta) = \exp(-\gamma \lVert\delta\rVert^2)`, as in :class:`ORFF`.  Not with ``sigma``.
    A : array_like of shape (p, p) or None, default=None
        Output matrix of the decomposable kernel (symmetric PSD); ``None`` is the identity of
        size ``d``.  Ignored by the other kernels.
    n_components : int, default=256
        The output width :math:`D`: the number of (landmark, output) pairs, any positive integer
        (as :class:`sklearn.kernel_approximation.Nystroem` counts landmarks).  Unlike
        :class:`ORFF`, whose ``n_components`` counts frequencies :math:`s` (width :math:`2 s r`).
        Above the :math:`n p` pairs of the training rows, all of them are used (with a warning).
    selection : {"rp_cholesky", "uniform"}, default="rp_cholesky"
        How the pairs are chosen from the :math:`n p` pairs of the training rows:

        - ``"rp_cholesky"``: the pivots of a randomly pivoted Cholesky of the training block
          Gram matrix (Chen, Epperly, Tropp and Webber 2023), each drawn in proportion to the
          part of its diagonal entry not yet explained; :math:`O(n p D^2)`.  The most accurate
          selection measured (``benchmarks/bench_operator_vs_nystroem.py``).
        - ``"uniform"``: :math:`D` distinct pairs uniformly at random; :math:`O(D^2 p)` kernel values.
    seed : None, int, SeedSequence or Generator, default=None
        Randomness of the selection (``None``: fresh entropy at each ``fit``).
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        scikit-learn's name for ``seed`` (used instead of it when given).
    flatten : bool, default=False
        ``transform`` returns ``(n, D p)`` (row :math:`i` is :math:`\Phi(x_i)` flattened in C order),
        with :meth:`get_feature_names_out`; ``False`` keeps ``(n, D, p)``.

    Attributes
    ----------
    sigma_ : float or ndarray of shape (d,)
    kernel_ : qmc_orff.kernels.OperatorKernel
        The exact kernel approximated.
    n_components_ : int
        :math:`D` (``n_components``, or :math:`n p` when the training rows have fewer pairs).
    components_ : ndarray of shape (D, d)
        The landmark :math:`z_k` of each pair (a training row; rows repeat across outputs).
    component_indices_ : ndarray of shape (D,)
        The training row index of each pair.
    component_outputs_ : ndarray of shape (D,)
        The output :math:`a_k` of each pair.
    normalization_ : ndarray of shape (D, D)
        :math:`(W^+)^{1/2}` (eigenvalues below :math:`10^{-12}` times the largest dropped).
    n_outputs_ : int
        :math:`p`.
    n_features_in_ : int

    See Also
    --------
    ORFF : the operator-valued random Fourier features of the same kernels.
    ORFFRidge : ridge regression on ORFF features (the Nystroem map's features go to any
        linear model after ``flatten=True``).
    gram_error : the block Gram error of either map.

    Examples
    --------
    >>> import numpy as np
    >>> from qmc_orff import OperatorNystroem, gram_error
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(200, 2))
    >>> ny = OperatorNystroem("curl_free", n_components=64, random_state=0).fit(X)
    >>> ny.transform(X[:5]).shape       # (n, D, p)
    (5, 64, 2)
    >>> bool(gram_error(ny, X) < 0.01)
    True
    """

    _parameter_constraints: dict = {
        "kernel": [StrOptions(set(OPERATOR_KERNELS))],
        "sigma": [Real, "array-like", None],
        "gamma": [Real, "array-like", StrOptions({"scale"}), None],
        "A": ["array-like", None],
        "n_components": [Integral],
        "selection": [StrOptions(set(_SELECTIONS))],
        "seed": _seed_constraints(legacy=False),
        "random_state": _seed_constraints(legacy=True),
        "flatten": ["boolean"],
    }

    def __init__(self, kernel="decomposable", *, sigma=None, gamma=None, A=None,
                 n_components=256, selection="rp_cholesky", seed=None, random_state=None,
                 flatten=False):
        self.kernel = kernel
        self.sigma = sigma
        self.gamma = gamma
        self.A = A
        self.n_components = n_components
        self.selection = selection
        self.seed = seed
        self.random_state = random_state
        self.flatten = flatten

    def __sklearn_tags__(self):
        return _xp.map_tags(super().__sklearn_tags__())

    # ------------------------------------------------------------------ fitting
    def _exact_kernel(self, X, sample_weight):
        """``(kernel_, sigma_)`` for the rows ``X``, with the parameters checked."""
        kernel = check_choice(self.kernel, "kernel", tuple(OPERATOR_KERNELS))
        if self.sigma is None and self.gamma is None:  # the default bandwidth, as ORFF's
            sigma = operator_default_bandwidth(X, kernel, sample_weight)
        else:
            sigma = _sigma_from_gamma("gaussian", self.sigma, self.gamma, X, sample_weight)
        return operator_kernel(kernel, sigma, X.shape[1], self.A)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: ArrayLike, y: Any = None,
            sample_weight: ArrayLike | None = None) -> OperatorNystroem:
        """Choose the :math:`D` (landmark, output) pairs among the rows of ``X``.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n, d)
        y : ignored
        sample_weight : array_like of shape (n,) or None, default=None
            Weights of the rows for ``gamma="scale"`` and the default bandwidth (as
            :class:`ORFF`: finite, non-negative, not all zero); the selection of the pairs
            ignores them.

        Returns
        -------
        self
        """
        _check_pivot_shape(X, self.selection, self.n_components)
        check_map_rows(X, 0)  # from the shape, before scikit-learn's pass over X
        # arrays of another namespace: the pairs are chosen on the host (NumPy); transform and
        # approximate_kernel answer in the input's namespace, device and dtype
        ns = _xp.foreign(X)
        X, sample_weight = _xp.host(X), _xp.host(sample_weight)
        X = _dense(validate_data(self, X, dtype=(np.float64, np.float32), reset=True,
                                 accept_sparse=("csr", "csc")))
        selection = check_choice(self.selection, "selection", _SELECTIONS)
        D = check_int(self.n_components, "n_components", minimum=1)
        if not isinstance(self.flatten, (bool, np.bool_)):
            raise TypeError(f"'flatten' must be a bool; got {self.flatten!r}.")
        sample_weight = _xp.sample_weights(sample_weight, X)
        exact, sigma = self._exact_kernel(X, sample_weight)
        n, p = X.shape[0], exact.output_dim(X.shape[1])
        if D > n * p:
            warnings.warn(f"n_components={D} is above the n p = {n * p} (landmark, output) "
                          f"pairs of the {n} training rows; all {n * p} are used.", UserWarning,
                          stacklevel=2)
            D = n * p
        if 16 * D * D > MAX_BYTES:
            raise ValueError(f"'n_components'={D} needs {16 * D * D / 2**30:.1f} GiB for the "
                             f"D x D matrices W and W^(-1/2) (limit MAX_BYTES = "
                             f"{MAX_BYTES / 2**30:.0f} GiB); choose a smaller 'n_components'.")
        rng = as_generator(_resolve_seed(self.seed, self.random_state), "random_state")
        with _blas_limited(1):  # the same pairs and W whatever the BLAS thread count
            J, W = self._select(exact, X, D, p, selection, rng)
            normalization = inv_sqrt_psd(W)
        rows, outputs = J // p, J % p
        self.sigma_ = sigma
        self.kernel_ = exact
        self.n_outputs_ = p
        self.n_components_ = D
        self.components_ = X[rows]
        self.component_indices_ = rows
        self.component_outputs_ = outputs
        self.normalization_ = normalization
        if ns is not None:
            _xp.move_fitted(self, _FITTED, ns)
        return self

    @staticmethod
    def _select(exact, X, D, p, selection, rng):
        """The pairs ``J`` (D,) and their block Gram matrix ``W`` (D, D)."""
        n = X.shape[0]
        if D == n * p:
            J = np.arange(n * p)
        elif selection == "uniform":
            J = uniform_pairs(n * p, D, rng)
        else:
            if 8 * n * p * D > MAX_BYTES:
                raise ValueError(f"selection='rp_cholesky' needs {8 * n * p * D / 2**30:.1f} GiB "
                                 f"for n={n} rows, p={p} outputs and n_components={D} (limit "
                                 f"MAX_BYTES = {MAX_BYTES / 2**30:.0f} GiB); fit on fewer rows "
                                 "or use selection='uniform'.")
            diag = np.tile(np.diagonal(exact.signature(np.zeros(X.shape[1]))), n)
            J = rp_cholesky_pairs(lambda idx: _pair_columns(exact, X, X, idx, p).T, diag, D, rng)
        return J, _pair_gram(exact, X[J // p], J % p, p)

    # ------------------------------------------------------------------ evaluation
    def transform(self, X: ArrayLike) -> np.ndarray:
        r"""The feature matrices :math:`\Phi(x_i) = W^{-1/2} K_J(x_i)`.

        Parameters
        ----------
        X : {array_like, sparse matrix} or dask.array.Array of shape (n, d)

        Returns
        -------
        ndarray of shape (n, D, p), or (n, D p) when ``flatten``
            In ``X``'s dtype (float32 or float64); under array API dispatch, computed in
            ``X``'s namespace and on its device.
        """
        check_is_fitted(self)
        check_map_rows(X, self.n_components_ * self.n_outputs_)  # the (n, D, p) features
        _xp.check_same(X, self, "components_", "transform")
        xp, device = _xp.namespace(X)
        X, dtype = self._rows(X, xp, device, (np.float64, np.float32))
        Phi = xp.astype(self._features(X, xp), dtype, copy=False)
        return xp.reshape(Phi, (Phi.shape[0], -1)) if self.flatten else Phi

    def _rows(self, X, xp, device, numpy_dtype):
        """``(rows, dtype)``: the validated rows ``X`` as :meth:`_features` takes them, and the
        dtype of the answer.  NumPy: dense C-contiguous float64 rows (``validate_data`` with
        ``numpy_dtype``), the answer in the validated dtype; another namespace: the rows in
        the device's widest float dtype (the fitted arrays'), the answer in ``X``'s dtype."""
        if _xp.is_numpy(xp):
            X = validate_data(self, _xp.host(X), dtype=numpy_dtype, reset=False,
                              accept_sparse=("csr", "csc"))
            return _dense(X), X.dtype
        X = validate_data(self, X, dtype=_xp.input_dtypes(xp, device), reset=False)
        return xp.astype(X, _xp.float_dtype(xp, device)), X.dtype

    def _features(self, X, xp):
        """``(n, D, p)`` features of the rows :meth:`_rows` returns, in their dtype, computed in
        ``xp`` on their device, ``step`` rows at a time."""
        D, p, n = self.n_components_, self.n_outputs_, X.shape[0]
        Z, outputs, normalization = (
            _xp.to_numpy(value) if _xp.is_numpy(xp) else _xp.move(value, xp, _xp.device(X))
            for value in (self.components_, self.component_outputs_, self.normalization_))
        out = xp.empty((n, D, p), dtype=X.dtype, device=_xp.device(X))
        step = max(1, BATCH_FLOATS // max(D * p * p, 1))
        with _blas_limited(1):  # the same features whatever the BLAS thread count
            for start in range(0, n, step):
                stop = min(start + step, n)
                KJ = _pair_rows(self.kernel_, Z, outputs, X[start:stop, ...], p, xp)  # (D, nb, p)
                nb = stop - start
                out[start:stop, ...] = xp.permute_dims(xp.reshape(
                    normalization @ xp.reshape(KJ, (D, nb * p)), (D, nb, p)), (1, 0, 2))
        return out

    def approximate_kernel(self, X: ArrayLike, Z: ArrayLike | None = None, *,
                           block: bool = False) -> np.ndarray:
        r"""The approximate kernel :math:`\tilde K(x_i, z_l) = \Phi(x_i)^\top \Phi(z_l)` (``gram_error`` reads it).

        Parameters
        ----------
        X : array_like of shape (n, d)
        Z : array_like of shape (m, d) or None, default=None
            The second set of rows (``None``: ``X`` again).
        block : bool, default=False
            ``True``: the ``(n p, m p)`` block matrix, entry :math:`(i p + a, l p + b)`, the
            layout of ``kernel_.block(X, Z)``.

        Returns
        -------
        ndarray of shape (n, m, p, p), or (n p, m p) with ``block=True``
            Float64 NumPy arrays; under array API dispatch, computed in ``X``'s namespace and
            on its device, in ``X``'s dtype.
        """
        check_is_fitted(self)
        _xp.check_same(X, self, "components_", "approximate_kernel")
        if Z is not None:
            _check_second_rows(self, Z)
        xp, device = _xp.namespace(X)
        rows = [self._rows(R, xp, device, np.float64) for R in ([X] if Z is None else [X, Z])]
        PX, PZ = (self._features(R, xp) for R, _ in (rows[0], rows[-1]))
        n, D, p = PX.shape
        m = PZ.shape[0]
        K = (xp.reshape(xp.permute_dims(PX, (0, 2, 1)), (n * p, D))
             @ xp.reshape(xp.permute_dims(PZ, (1, 0, 2)), (D, m * p)))
        if not block:
            K = xp.permute_dims(xp.reshape(K, (n, p, m, p)), (0, 2, 1, 3))
        return np.ascontiguousarray(K) if _xp.is_numpy(xp) else xp.astype(K, rows[0][1])

    def get_feature_names_out(self, input_features: ArrayLike | None = None) -> np.ndarray:
        """Column names of ``transform`` with ``flatten=True``.

        Parameters
        ----------
        input_features : array_like of str or None, default=None
            Checked against the feature names seen in ``fit``, if any; not used otherwise.

        Returns
        -------
        ndarray of str of shape (D p,)
            ``operatornystroem_k{k}_y{a}`` for pair ``k`` and output ``a``: column
            ``k p + a``.

        Raises
        ------
        ValueError
            With ``flatten=False``: a 3-D ``(n, D, p)`` output has no columns to name.
        """
        from sklearn.utils.validation import _check_feature_names_in

        check_is_fitted(self)
        _check_feature_names_in(self, input_features, generate_names=False)
        if not self.flatten:
            raise ValueError("feature names need flatten=True; with flatten=False the output "
                             "of transform is 3-D, shape (n, D, p), and has no columns.")
        return np.asarray([f"operatornystroem_k{k}_y{a}" for k in range(self.n_components_)
                           for a in range(self.n_outputs_)], dtype=object)


def _dense(X):
    """Validated rows as a C-contiguous array (sparse input densified)."""
    return np.ascontiguousarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)


def _distinct_rows(Z, xp):
    """``(Zu, inverse)``: the distinct rows of ``Z`` and the index in ``Zu`` of each row of ``Z``
    (a landmark chosen with several outputs is evaluated once).  The standard has no
    ``unique`` over rows: another namespace evaluates every row (the same values; with
    ``rp_cholesky`` most landmarks carry one output)."""
    if _xp.is_numpy(xp):
        Zu, inverse = np.unique(Z, axis=0, return_inverse=True)
        return Zu, inverse.reshape(-1)
    return Z, xp.arange(Z.shape[0], device=_xp.device(Z))


def _pair_rows(kernel, Z, outputs, X, p, xp=None):
    """``R[k, i, b] = K(z_k, x_i)[a_k, b]`` of shape ``(D, n, p)``, ``a_k = outputs[k]``, for
    float arrays ``Z`` (D, d) and ``X`` (n, d) of the namespace ``xp`` (``None``: NumPy),
    computed there in their dtype."""
    xp = _xp.namespace(X)[0] if xp is None else xp
    Zu, inverse = _distinct_rows(Z, xp)
    m, n = Zu.shape[0], X.shape[0]
    out = xp.empty((Z.shape[0], n, p), dtype=X.dtype, device=_xp.device(X))
    step = max(1, BATCH_FLOATS // max(m * p * p, 1))
    for start in range(0, n, step):
        stop = min(start + step, n)
        K = kernel._values_in(Zu, X[start:stop, ...], xp)                   # (m, nb, p, p)
        if _xp.is_numpy(xp):  # NumPy's paired fancy index reads D nb p values, not m nb p^2
            out[:, start:stop, :] = K[inverse, :, outputs, :]
        else:  # the standard's take has one index array: rows (landmark, output) of a stack
            K = xp.reshape(xp.permute_dims(K, (0, 2, 1, 3)), (m * p, stop - start, p))
            out[:, start:stop, :] = xp.take(K, inverse * p + outputs, axis=0)
    return out


def _pair_gram(kernel, Z, outputs, p):
    """``W = [K(z_k, z_l)[a_k, a_l]]`` (D, D), a block of columns at a time."""
    D = Z.shape[0]
    W = np.empty((D, D))
    step = max(1, BATCH_FLOATS // max(D * p, 1))
    for start in range(0, D, step):
        stop = min(start + step, D)
        R = _pair_rows(kernel, Z, outputs, Z[start:stop], p)          # (D, nb, p)
        W[:, start:stop] = np.take_along_axis(
            R, outputs[None, start:stop, None], axis=2)[:, :, 0]
    return W


def _pair_columns(kernel, X, rows_of, J, p):
    """Columns ``J`` of the block Gram matrix of ``X``: ``(len(J), n p)``, entry
    ``[j, i p + b] = K(x_{J_j // p}, x_i)[J_j % p, b]`` (symmetric kernel)."""
    J = np.asarray(J, dtype=np.intp)
    R = _pair_rows(kernel, rows_of[J // p], J % p, X, p)
    return R.reshape(J.shape[0], -1)
