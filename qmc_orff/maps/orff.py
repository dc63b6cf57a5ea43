"""Operator-valued random Fourier features: :class:`ORFF` (the factors ``B(w)`` of its kernels
in :mod:`._factors`)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator
from scipy.stats.qmc import QMCEngine
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _dask
from .._validation import check_choice, check_map_rows
from ..kernels import OPERATOR_KERNELS, Gaussian, operator_kernel
from ..sources.frequencies import SOURCES, make_frequencies
from .. import _array_api as _xp
from ._factors import _orff_factors
from ._params import _check_second_rows, _common_constraints, _resolve_seed, _sigma_from_gamma
from .adaptive_maps import _adaptive_operator_frequencies, _is_adaptive
from .default_source import (BANDWIDTH_SAMPLES, _CHECKS, _check_supplied_sequence,
                             _sample_indices, _select_default_operator,
                             operator_default_bandwidth)
from .operators import _FeatureOperator

if TYPE_CHECKING:  # names used in type hints only
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["ORFF"]

_ORFF_MEASURES = ("spectral", "bounded", "trace")
#: ``flatten=True`` with the implicit ``A=None`` (the identity of size ``d``, so ``p = d``
#: outputs and ``2 s d^2`` columns) warns above this many columns: pass ``A`` to choose ``p``.
FLATTEN_WARN_COLUMNS = 4096


def _warn_width(columns, d):
    """``flatten=True`` with the implicit ``A=None``: say how wide the output is."""
    if columns > FLATTEN_WARN_COLUMNS:
        import warnings

        warnings.warn(f"ORFF(flatten=True) with A=None (the identity of size d={d}: {d} "
                      f"outputs) gives {columns} columns, d^2 = {d * d} times those of a scalar "
                      "map; pass A=[[1.0]] for one output (as FourierFeatures), or an explicit "
                      "A to choose the outputs and silence this warning.", UserWarning,
                      stacklevel=4)


@_dask.lazy_transform
class ORFF(TransformerMixin, BaseEstimator):
    r"""Operator-valued random Fourier features (ORFF) of Gaussian matrix-valued kernels.

    .. math::

        \Phi(x)^\top \Phi(z) = \sum_{j=1}^{s} \xi_j \cos\langle x - z, w_j\rangle\,
        \tilde A(w_j) \approx K(x, z), \qquad \tilde A(w) = B(w) B(w)^\top

    (Brault et al. 2016, Proposition 2.3), :math:`\Phi(x)` of shape :math:`(2sr, p)`.

    Parameters
    ----------
    kernel : {"decomposable", "curl_free", "div_free"}, default="decomposable"
        :math:`k_0(\delta) A`; :math:`-\nabla\nabla^\top k_0`;
        :math:`(\nabla\nabla^\top - \Delta I) k_0` with
        :math:`k_0(\delta) = \exp(-\lVert\delta\rVert^2 / (2\sigma^2))`; the exact kernels are
        ``Decomposable``, ``CurlFree`` and ``DivFree`` of ``qmc_orff.kernels``
        (fitted: ``kernel_``).  Curl- and div-free need :math:`p = d`
        (div-free :math:`d \ge 2`).
    sigma : float or None, default=None
        Bandwidth of :math:`k_0` (:math:`\gamma = 1 / (2 \sigma^2)`).  Per coordinate
        (an array of shape (d,)) for the decomposable kernel only.  ``None`` (and
        ``gamma=None``): the median heuristic, computed at ``fit``: the median Euclidean
        distance between the rows of a fixed sample of at most 512 rows of ``X``, its pairs
        weighted by ``sample_weight`` (integer weights count as repeated rows), 1.0 when
        they are all equal; ``fit`` then reads those rows only (all of them for
        ``sequence="adaptive"``).  ``sigma_`` holds it.
    gamma : "scale", float or array_like of shape (d,) or None, default=None
        :math:`k_0(\delta) = \exp(-\gamma \lVert\delta\rVert^2)` (RBFSampler's parameter), so
        :math:`\sigma = 1 / \sqrt{2 \gamma}`; ``"scale"`` is :math:`1 / (d \operatorname{Var} X)` on the
        ``X`` given to ``fit``, as in :class:`FourierFeatures`.  Give ``sigma`` or
        ``gamma``, not both.
    A : array_like of shape (p, p) or None, default=None
        Output matrix of the decomposable kernel (symmetric PSD); ``None`` is
        the identity of size :math:`d`.  Ignored by the other kernels.
    n_components : int or None, default=256
        Number :math:`s` of frequencies.
    sequence : {"auto", "orf-qmc", "halton", "sobol", "lattice", "mc", "orf", "adaptive"}, Sequence, QMCEngine or array_like, default="auto"
        Point source; see :func:`qmc_orff.make_frequencies` and :class:`FourierFeatures`
        (a `scipy.stats.qmc.QMCEngine` instance: its next ``n_components`` points at
        each ``fit``; a stateful engine advances).
        ``"auto"`` without a seed: the best of ``DEFAULT_CANDIDATES`` fixed draws by the
        operator-valued Gram error on a fixed sample of ``X`` (a deterministic map).
        ``"adaptive"``: designed on the data given to ``fit`` (see ``design_options``).
    measure : {"spectral", "bounded", "trace"}, default="spectral"
        The probability measure :math:`\rho` the frequencies follow, and :math:`\tilde A = \mu / \rho`:

        - ``"spectral"``: :math:`\rho_0 = \mathcal N(0, \sigma^{-2} I)`;
          :math:`\tilde A(w) = A`, :math:`w w^\top`, :math:`\lVert w\rVert^2 I - w w^\top`
          (unbounded for curl/div; Brault et al. 2016).
        - ``"bounded"``: :math:`\rho = \mathcal N(0, 2\sigma^{-2} I)`,
          :math:`\tilde A = A(w) \rho_0 / \rho = A(w)\, 2^{d/2}
          \exp(-\sigma^2 \lVert w\rVert^2 / 4)` (Minh 2016, eq. 39-42).
        - ``"trace"``: the trace-normalised measure (Minh 2016, Theorem 9,
          Corollary 10), :math:`\rho = \sigma^2 \lVert w\rVert^2 \rho_0 / d` for
          curl/div, with :math:`\tilde A = (d / \sigma^2)\, \hat w \hat w^\top` (curl) and
          :math:`(d / \sigma^2)(I - \hat w \hat w^\top)` (div),
          :math:`\hat w = w / \lVert w\rVert`; for the decomposable kernel it is
          :math:`\rho_0`.
    seed : None, int, SeedSequence or Generator, default=None
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        scikit-learn's name for ``seed`` (used instead of it when given); see
        :class:`FourierFeatures`.
    scramble : "auto", bool or "deterministic", default="auto"
        As in :class:`FourierFeatures`.
    flatten : bool, default=False
        ``transform`` returns the 2-D feature matrix of shape ``(n, 2 s r p)``
        (row ``i`` is ``Phi(x_i)`` flattened in C order) that a linear model,
        a ``Pipeline`` or ``set_output`` can take, with
        :meth:`get_feature_names_out`; ``False`` keeps the 3-D ``(n, 2 s r, p)``.
        With the decomposable kernel and ``A=None`` (the identity of size ``d``),
        :math:`p = r = d`: :math:`2 s d^2` **columns** (4608 at :math:`s = 64`, :math:`d = 6`), not the
        ``2 s`` of a scalar map; ``fit`` warns (``UserWarning``) above
        ``FLATTEN_WARN_COLUMNS`` (4096) such columns.  Pass ``A=[[1.0]]`` for one
        output (the scalar map of :class:`FourierFeatures`), or an explicit ``A``.
    check : {"warn", "raise", "off"}, default="warn"
        As in :class:`FourierFeatures`, on the block Gram matrix of at most
        ``512 // p`` rows of ``X`` (reference: ``"orf"``, or ``"mc"`` for the trace measure).
    design_options : dict or None, default=None
        With ``sequence="adaptive"`` (measures ``"spectral"`` and ``"trace"``):
        keyword arguments of :func:`qmc_orff.adaptive_operator_sequence`, which
        designs the frequencies on the ``X`` given to ``fit`` by minimising the
        block Gram error; ignored otherwise.
    verbose : int, default=0
        ``> 0``: progress of the long fits on stderr (the seedless default's
        selection, one line per candidate draw; the adaptive design's progress line).

    Attributes
    ----------
    sigma_ : float or ndarray of shape (d,)
        The bandwidth used (from ``sigma``, ``gamma`` or the median heuristic).
    frequencies_ : ndarray of shape (s, d)
    weights_ : ndarray of shape (s,)
        Quadrature weights :math:`\xi`.
    amplitudes_ : ndarray of shape (s,)
        :math:`\sqrt{\xi_j}` times the scalar part of :math:`B(w_j)` (the bounded
        measure's factor for the decomposable kernel).
    factors_ : ndarray of shape (s, p, r), or (p, r) for the decomposable kernel
        :math:`B(w_j)` (:math:`B = V_A \operatorname{diag}(\sqrt{\lambda_A})` on the nonzero
        eigenvalues of :math:`A` for the decomposable kernel, so :math:`r = \operatorname{rank} A`;
        :math:`r = 1` curl-free; :math:`r = d - 1` div-free, :math:`B(w) = \lVert w\rVert Q(w)`).
    n_outputs_ : int
        :math:`p`.
    rank_ : int
        :math:`r`, the column count of :math:`B(w)`.
    kernel_ : qmc_orff.kernels.OperatorKernel
        The exact kernel approximated.
    n_features_in_ : int

    See Also
    --------
    ORFFRidge : vector-valued ridge regression on these features.
    FourierFeatures : the scalar-kernel map.
    adaptive_operator_sequence : the frequencies designed on data (``sequence="adaptive"``).

    Notes
    -----
    ``transform`` materialises :math:`\Phi(X)` of shape ``(n, 2 s r, p)``; learning
    should use :meth:`operator` (:math:`\theta \mapsto \Phi(X)^\top \theta` and its adjoint in
    :math:`O(n s p + s p r)` per product, never forming :math:`\Phi(X)`; Brault et al.
    2016, appendix D, Table 2) or :class:`qmc_orff.ORFFRidge`.

    Examples
    --------
    >>> import numpy as np
    >>> from qmc_orff import ORFF
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(100, 2))
    >>> orff = ORFF("curl_free", sigma=1.0, n_components=64, seed=0).fit(X)
    >>> orff.transform(X[:5]).shape     # (n, 2 s r, p), r = 1 curl-free
    (5, 128, 2)

    The relative Frobenius error of the approximate kernel:

    >>> K, K_approx = orff.kernel_(X[:20]), orff.approximate_kernel(X[:20])
    >>> K.shape, bool(np.linalg.norm(K - K_approx) / np.linalg.norm(K) < 0.2)
    ((20, 20, 2, 2), True)
    """

    _parameter_constraints: dict = {
        "kernel": [StrOptions(set(OPERATOR_KERNELS))],
        **_common_constraints(SOURCES + ("adaptive",)),
        "A": ["array-like", None],
        "measure": [StrOptions(set(_ORFF_MEASURES))],
        "flatten": ["boolean"],
    }

    def __init__(self, kernel="decomposable", *, sigma=None, gamma=None, A=None,
                 n_components=256, sequence="auto", measure="spectral", seed=None,
                 random_state=None, scramble="auto", flatten=False, check="warn",
                 design_options=None, verbose=0):
        self.kernel = kernel
        self.sigma = sigma
        self.gamma = gamma
        self.verbose = verbose
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
        return _xp.map_tags(super().__sklearn_tags__())

    @staticmethod
    def _rows(X):
        """Validated ``X`` as C-contiguous float64, or CSR for sparse input."""
        return X.tocsr() if sp.issparse(X) else np.ascontiguousarray(X)

    # ------------------------------------------------------------------ fitting
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: ArrayLike, y: Any = None, sample_weight: ArrayLike | None = None) -> ORFF:
        r"""Draw the frequencies and the factors :math:`B(w_j)` for inputs like ``X``.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n, d)
            Sparse ``X`` (scipy.sparse CSR/CSC) is accepted, as by
            :class:`FourierFeatures` (:math:`X W^\top` is a sparse-dense product).
        y : ignored
        sample_weight : array_like of shape (n,) or None, default=None
            Weights of the rows for the seedless default's selection (its Gram error
            weights each pair of rows by :math:`w_i w_j`): integer weights select the map
            that repeated rows select (exactly when ``X`` and the repeated rows have at
            most :math:`\lfloor 512 / p\rfloor` rows, the selection's sample; :math:`p` outputs).  Ignored by
            the other sources.

        Returns
        -------
        self
        """
        kernel = check_choice(self.kernel, "kernel", tuple(OPERATOR_KERNELS))
        measure = check_choice(self.measure, "measure", _ORFF_MEASURES)
        check_map_rows(X, 0)  # from the shape, before scikit-learn's pass over X
        ns = _xp.foreign(X)  # array API: the frequencies are chosen on the host, moved once
        X, sample_weight = _xp.host(X), _xp.host(sample_weight)
        X = self._rows(validate_data(self, X, dtype=np.float64, reset=True,
                                     accept_sparse=("csr", "csc")))
        d = X.shape[1]
        sample_weight = _xp.sample_weights(sample_weight, X)
        if self.sigma is None and self.gamma is None:  # the default bandwidth: the median
            # heuristic on a fixed sample; but for an adaptive design the fit then reads these
            # rows only (as a Dask fit does, see default_source._orff_fit_rows)
            idx = _sample_indices(X.shape[0], BANDWIDTH_SAMPLES)
            w = None if sample_weight is None else sample_weight[idx]
            sigma = operator_default_bandwidth(X[idx], kernel, w)
            if not _is_adaptive(self.sequence):
                X, sample_weight = X[idx], w
        else:
            sigma = _sigma_from_gamma("gaussian", self.sigma, self.gamma, X, sample_weight)
        exact, sigma = operator_kernel(kernel, sigma, d, self.A)
        A = exact.A if kernel == "decomposable" else None
        sig_arr = np.asarray(Gaussian(sigma).sigma, dtype=np.float64)

        radial = measure == "trace" and kernel != "decomposable"
        if radial and not isinstance(self.sequence, (str, np.ndarray, list, tuple, QMCEngine)):
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
            return _orff_factors(kernel, measure, radial, W, xi, sig_arr, sigma, d, A)

        W = None
        if _is_adaptive(self.sequence):
            W, xi, self.design_ = _adaptive_operator_frequencies(self, kernel, measure, X,
                                                                 sigma, A)
        elif isinstance(self.sequence, str) and self.sequence == "auto" and seed is None:
            W, xi = _select_default_operator(self, exact, X, factors, freq_sig, frequency_measure,
                                             sample_weight)
        if W is None:
            W, xi = make_frequencies("gaussian", self.n_components, d, sigma=freq_sig,
                                     sequence=self.sequence, seed=seed, scramble=self.scramble,
                                     measure=frequency_measure)
        amp, B = factors(W, xi)
        if self.flatten and kernel == "decomposable" and self.A is None:
            _warn_width(2 * W.shape[0] * B.shape[-1] * exact.output_dim(d), d)
        self.sigma_ = sigma
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
        if ns is not None:
            _xp.move_fitted(self, ("sigma_", "frequencies_", "weights_", "amplitudes_",
                                   "factors_"), ns)
        return self

    # ------------------------------------------------------------------ evaluation
    def _checked(self, X, name="X"):
        """Validated ``X`` as C-contiguous float64 (CSR for sparse), and its dtype (float32 is
        kept by the outputs)."""
        check_is_fitted(self)
        X = validate_data(self, _xp.host(X), dtype=[np.float64, np.float32], reset=False,
                          accept_sparse=("csr", "csc"), ensure_all_finite=False)
        dtype = X.dtype
        # a non-finite X (or one too large for the frequencies) is refused by its phases, as
        # cos_sin_features(..., name=name) evaluates them: one pass over X fewer
        return self._rows(X.astype(np.float64, copy=False)), dtype

    def scalar_features(self, X: ArrayLike) -> np.ndarray:
        r"""The scalar features :math:`F(X) = [a \cos(X W^\top), a \sin(X W^\top)]` of shape ``(n, 2 s)``,
        :math:`a` = ``amplitudes_``.

        Parameters
        ----------
        X : array_like of shape (n, d)

        Returns
        -------
        ndarray of shape (n, 2 s), dtype of ``X`` (float32 or float64)
        """
        check_is_fitted(self)
        check_map_rows(X, 2 * self.frequencies_.shape[0])  # the (n, 2 s) features, before X is read
        return self._scalar_features(X, "scalar_features")

    def _scalar_features(self, X, method, name="X"):
        check_is_fitted(self)
        _xp.check_same(X, self, "frequencies_", method)
        xp, device = _xp.namespace(X)
        if _xp.is_numpy(xp):  # float32 rows evaluated in float64 (as the frequencies)
            X, dtype = self._checked(X, name)
            return _xp.cos_sin(X, self.frequencies_, self.amplitudes_, xp,
                               name).astype(dtype, copy=False)
        X = validate_data(self, X, dtype=_xp.input_dtypes(xp, device), reset=False)
        return _xp.cos_sin(X, self.frequencies_, self.amplitudes_, xp, name)

    def _factor_stack(self, xp=np):
        """``B(w_j)`` as ``(s, p, r)`` (materialised for the decomposable kernel)."""
        B = self.factors_
        if B.ndim == 2:
            return xp.broadcast_to(B, (self.frequencies_.shape[0],) + tuple(B.shape))
        return B

    def transform(self, X: ArrayLike) -> np.ndarray:
        r"""The feature matrices :math:`\Phi(x_i)`.

        Parameters
        ----------
        X : {array_like, sparse matrix} or dask.array.Array of shape (n, d)
            A Dask array gives a Dask array, lazily (one task per row chunk).

        Returns
        -------
        ndarray of shape (n, 2 s r, p), or (n, 2 s r p) when ``flatten``
            In ``X``'s dtype (float32 or float64); under array API dispatch, in ``X``'s
            namespace and on its device.
            Row :math:`(c s + j) r + k` of :math:`\Phi(x)` is :math:`F(x)_{c s + j}\, B(w_j)_{:, k}`;
            flattened, that is column :math:`((c s + j) r + k) p + a`.
        """
        check_is_fitted(self)
        if _dask.is_dask_collection(X):
            return _dask.map_rows(self, "transform", X)
        # the (n, 2 s r, p) features, from the shape before X is read
        check_map_rows(X, 2 * self.frequencies_.shape[0] * self.factors_.shape[-1]
                       * self.n_outputs_)
        F = self._scalar_features(X, "transform")
        xp = _xp.namespace(F)[0]
        n, s = F.shape[0], F.shape[1] // 2
        Bt = xp.astype(xp.permute_dims(self._factor_stack(xp), (0, 2, 1)), F.dtype)  # (s, r, p)
        Phi = xp.reshape(F, (n, 2, s, 1, 1)) * Bt[None, None, ...]
        return xp.reshape(Phi, (n, -1) if self.flatten else (n, -1, Bt.shape[2]))

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

    def _A_tilde(self, xp):
        """``A~(w_j) = B_j B_j^T``, shape (s, p, p) (or (p, p) decomposable)."""
        B = self.factors_
        if B.ndim == 2:
            return B @ B.T
        return _xp.einsum("jak,jbk->jab", B, B, xp)

    def approximate_kernel(self, X: ArrayLike, Z: ArrayLike | None = None, *,
                           block: bool = False) -> np.ndarray:
        r"""The approximate kernel :math:`\tilde K(x_i, z_l) = \Phi(x_i)^\top \Phi(z_l)
        = \sum_j \xi_j \cos\langle x_i - z_l, w_j\rangle\, \tilde A(w_j)`.

        Parameters
        ----------
        X : array_like of shape (n, d)
        Z : array_like of shape (m, d), default=None
            ``None`` means ``Z = X``.
        block : bool, default=False
            Return the flattened block matrix ``(n p, m p)`` (as the exact
            kernel's ``kernel_.block(X, Z)``).

        Returns
        -------
        ndarray of shape (n, m, p, p), or (n p, m p) when ``block``
        """
        FX = self._scalar_features(X, "approximate_kernel")
        if Z is not None:
            _check_second_rows(self, Z)
        FZ = FX if Z is None else self._scalar_features(Z, "approximate_kernel", "Z")
        xp, device = _xp.namespace(FX)
        A = self._A_tilde(xp)
        if not _xp.is_numpy(xp):  # in X's dtype (NumPy promotes float32 rows to float64: kept)
            A = xp.astype(A, FX.dtype)
        n, m, p = FX.shape[0], FZ.shape[0], self.n_outputs_
        if A.ndim == 2:
            K = (FX @ FZ.T)[:, :, None, None] * A
        else:
            K = xp.empty((n, m, p, p), dtype=A.dtype, device=device)
            for a in range(p):
                for b in range(a, p):
                    coef = xp.concat([A[:, a, b], A[:, a, b]])
                    K[:, :, a, b] = (FX * coef) @ FZ.T
                    if b != a:
                        K[:, :, b, a] = K[:, :, a, b]
        if block:
            return xp.reshape(xp.permute_dims(K, (0, 2, 1, 3)), (n * p, m * p))  # a C-ordered copy
        return K

    def operator(self, X: ArrayLike) -> LinearOperator:
        r"""The map :math:`P_X: \theta \mapsto \Phi(X)^\top \theta` as a LinearOperator, without forming :math:`\Phi(X)`.

        Parameters
        ----------
        X : array_like of shape (n, d)

        Returns
        -------
        scipy.sparse.linalg.LinearOperator of shape (n p, 2 s r)
            ``matvec`` gives entry :math:`i p + a` as :math:`(\Phi(x_i)^\top \theta)_a`; ``rmatvec`` is the
            adjoint :math:`y \mapsto \sum_i \Phi(x_i)\, y_i`.

        Notes
        -----
        With :math:`F = F(X)` (n, 2 s) computed once (:math:`O(n s d)`): ``matvec`` forms
        :math:`V_{c s + j} = B(w_j)\, \theta_{c s + j}` (:math:`O(s p r)`) and returns :math:`F V`
        (:math:`O(n s p)`); ``rmatvec`` forms :math:`G = F^\top Y` (:math:`O(n s p)`) and
        :math:`\theta_{c s + j} = B(w_j)^\top G_{c s + j}` (:math:`O(s p r)`).  For the
        decomposable kernel ``matvec`` is :math:`(F \Theta) B^\top` (:math:`O(n s r + n r p)`).
        Per point this is Brault et al.'s Table 2, with :math:`O(s p)` instead of
        :math:`O(s p^2)` for the div-free map.
        """
        if _xp.foreign(X) is not None or _xp.foreign(self.frequencies_) is not None:
            raise TypeError("ORFF.operator is NumPy-only (a scipy LinearOperator); under "
                            "array API dispatch use transform, approximate_kernel or "
                            "ORFFRidge, which run in the input's namespace, or pass NumPy "
                            "arrays to a map fitted on NumPy arrays.")
        F = self.scalar_features(X)
        return _FeatureOperator(F, self.factors_)
