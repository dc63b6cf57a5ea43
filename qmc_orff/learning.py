"""Ridge regression with operator-valued Fourier features (:class:`ORFFRidge`).

Scalar kernels need no estimator of their own: put
:class:`~qmc_orff.FourierFeatures` in a pipeline with
:class:`sklearn.linear_model.Ridge`.
"""
from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import LinearOperator, cg
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import check_choice, check_int, check_positive_real
from .features import ORFF, _FeatureOperator

__all__ = ["ORFFRidge"]

_SOLVERS = ("auto", "stein", "direct", "cg")
#: ``solver="auto"`` solves directly while ``2 s r`` is at most this.
DIRECT_MAX = 4096
#: ``solver="cg"`` forms the scalar Gram matrix ``F^T F`` (2 s x 2 s) when ``n > 2 s``
#: and it takes at most this many bytes; otherwise it works through the operator.
GRAM_MAX_BYTES = 1 << 30


class ORFFRidge(RegressorMixin, BaseEstimator):
    """Vector-valued ridge regression on operator-valued Fourier features.

    Minimises ``sum_i |Phi(x_i)^T theta - y_i|^2 + alpha |theta|^2`` over
    ``theta`` in ``R^(2 s r)`` (Brault et al. 2016, eq. 10 with the squared
    loss; the loss is summed, as in :class:`sklearn.linear_model.Ridge`), and
    predicts ``f(x) = Phi(x)^T theta``.

    Parameters
    ----------
    orff : ORFF or None, default=None
        The (unfitted) feature map; cloned and fitted in :meth:`fit`.  ``None``
        means ``ORFF()``.  For the decomposable kernel with ``A=None`` the
        identity of size ``p`` (the number of outputs) is used.
    alpha : float, default=1.0
        Regularisation, ``alpha > 0``.
    solver : {"auto", "stein", "direct", "cg"}, default="auto"
        - ``"stein"`` (decomposable kernel only): closed form of the Stein
          equation ``F^T F Theta B^T B + alpha Theta = F^T Y B`` through the
          eigendecompositions of ``F^T F`` (2 s x 2 s) and ``B^T B`` (r x r):
          ``O(n s^2 + s^3)``, never the ``(2 s r)``-sized system.
        - ``"direct"``: Cholesky solve of the normal equations, whose matrix
          ``(F^T F) o (B^T B)`` (a Hadamard product of the Gram matrix of the
          scalar features with that of the factors) is formed in
          ``O(n s^2 + (s r)^2 p)``; memory ``(2 s r)^2``.
        - ``"cg"``: Jacobi-preconditioned conjugate gradient on the normal
          equations.  When ``n > 2 s`` and ``F^T F`` fits in 1 GiB, the normal
          operator is ``theta -> B^T (F^T F (B theta))`` (Brault et al. 2016,
          Table 2; ``O(n s^2)`` once, then ``O(s^2 p)`` per iteration); otherwise
          it goes through :meth:`ORFF.operator` and its adjoint (``O(n s p)``
          per iteration, memory ``O(n s)``).
        - ``"auto"``: ``"stein"`` for the decomposable kernel, else ``"direct"``
          when ``2 s r <= 4096``, else ``"cg"``.
    tol : float, default=1e-10
        Relative residual tolerance of ``"cg"``.
    max_iter : int or None, default=None
        Iteration cap of ``"cg"`` (``None``: ``10 * 2 s r``).

    Attributes
    ----------
    orff_ : ORFF
        The fitted feature map.
    coef_ : ndarray of shape (2 s r,)
        ``theta``, in the row order of ``ORFF.transform``.
    solver_ : str
        The solver used.
    n_iter_ : int
        Conjugate gradient iterations (set only when ``solver_ == "cg"``).
    n_features_in_ : int

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

    def __init__(self, orff=None, *, alpha=1.0, solver="auto", tol=1e-10, max_iter=None):
        self.orff = orff
        self.alpha = alpha
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def fit(self, X, y):
        """Fit the feature map on ``X`` and solve the ridge problem.

        Parameters
        ----------
        X : array_like of shape (n, d)
        y : array_like of shape (n, p) or (n,)
            Vector-valued targets (``p = d`` for the curl- and div-free kernels).

        Returns
        -------
        self
        """
        solver = check_choice(self.solver, "solver", _SOLVERS)
        alpha = check_positive_real(self.alpha, "alpha")
        tol = check_positive_real(self.tol, "tol")
        max_iter = None if self.max_iter is None else check_int(self.max_iter, "max_iter",
                                                                minimum=1)
        orff = ORFF() if self.orff is None else self.orff
        if not isinstance(orff, ORFF):
            raise TypeError(f"'orff' must be an ORFF instance or None; got {type(orff).__name__}.")
        if np.asarray(y).dtype.kind in "USV":   # (complex: sklearn's ValueError, as it expects)
            raise TypeError(f"'y' must contain real numbers; got dtype {np.asarray(y).dtype}.")
        X, y = validate_data(self, X, y, multi_output=True, y_numeric=True, dtype=np.float64)
        Y = y[:, None] if y.ndim == 1 else y
        self._y_1d = y.ndim == 1
        p = Y.shape[1]

        orff = clone(orff)
        if orff.kernel == "decomposable" and orff.A is None:
            orff.set_params(A=np.eye(p))
        orff.fit(X)
        if orff.n_outputs_ != p:
            raise ValueError(f"'y' must have p={orff.n_outputs_} columns for kernel={orff.kernel!r} "
                             f"on d={X.shape[1]} inputs; got shape {y.shape}.")
        decomposable = orff.factors_.ndim == 2
        s2 = 2 * orff.frequencies_.shape[0]
        r = orff.rank_
        if solver == "auto":
            solver = "stein" if decomposable else ("direct" if s2 * r <= DIRECT_MAX else "cg")
        if solver == "stein" and not decomposable:
            raise ValueError(f"'solver'='stein' needs kernel='decomposable'; got {orff.kernel!r}.")

        F = orff.scalar_features(X)
        if hasattr(self, "n_iter_"):
            del self.n_iter_
        if solver == "stein":
            theta = _stein_solve(F, orff.factors_, Y, alpha)
        else:
            op = _FeatureOperator(F, orff.factors_)
            b = op.rmatvec(Y.ravel())
            if solver == "direct":
                theta = scipy.linalg.solve(_normal_matrix(F, op) + alpha * np.eye(b.size), b,
                                           assume_a="pos")
            else:
                theta, self.n_iter_ = _cg_solve(F, op, b, alpha, tol, max_iter)
        self.orff_ = orff
        self.coef_ = theta
        self.solver_ = solver
        return self

    def predict(self, X):
        """``f(x_i) = Phi(x_i)^T theta``.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m, p) (or (m,) when fitted on a 1-D ``y``)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        op = self.orff_.operator(X)
        Y = op.matvec(self.coef_).reshape(X.shape[0], self.orff_.n_outputs_)
        return Y.ravel() if self._y_1d else Y


def _stein_solve(F, B, Y, alpha):
    """Closed form of ``min |F Theta B^T - Y|^2 + alpha |Theta|^2`` (Theta: 2 s x r).

    Normal equations (a Stein equation, Brault et al. 2016, section 4.1):
    ``G Theta M + alpha Theta = F^T Y B`` with ``G = F^T F = U diag(lam) U^T``
    and ``M = B^T B = V diag(mu) V^T``; then
    ``Theta = U [(U^T F^T Y B V) / (lam mu^T + alpha)] V^T``.
    """
    lam, U = np.linalg.eigh(F.T @ F)
    mu, V = np.linalg.eigh(B.T @ B)
    R = U.T @ ((F.T @ Y) @ B) @ V
    T = R / (np.maximum(lam, 0.0)[:, None] * np.maximum(mu, 0.0)[None, :] + alpha)
    return (U @ T @ V.T).ravel()


def _normal_matrix(F, op):
    """``Phi^T Phi`` as ``(F^T F) o (B^T B)`` of shape (2 s r, 2 s r)."""
    s, p, r = op.s, op.p, op.r
    G = (F.T @ F).reshape(2, s, 2, s)
    B = op.B
    if B.ndim == 2:
        M = np.broadcast_to((B.T @ B)[None, :, None, :], (s, r, s, r))
    else:
        Bflat = np.ascontiguousarray(B.transpose(1, 0, 2)).reshape(p, s * r)
        M = (Bflat.T @ Bflat).reshape(s, r, s, r)
    H = G[:, :, None, :, :, None] * M[None, :, :, None, :, :]
    return H.reshape(2 * s * r, 2 * s * r)


def _cg_solve(F, op, b, alpha, tol, max_iter):
    """Jacobi-preconditioned CG on ``(Phi^T Phi + alpha I) theta = b`` through ``op``."""
    s, r = op.s, op.r
    B = op.B
    colsq = np.einsum("ij,ij->j", F, F).reshape(2, s)
    if B.ndim == 2:
        bsq = np.broadcast_to(np.sum(B * B, axis=0)[None, :], (s, r))
    else:
        bsq = np.sum(B * B, axis=1)  # (s, r)
    diag = (colsq[:, :, None] * bsq[None]).ravel() + alpha
    n_dim = b.size
    if F.shape[0] > 2 * s and (2 * s) ** 2 * 8 <= GRAM_MAX_BYTES:
        # Brault et al. Table 2, P^T P: theta -> B^T (G (B theta)) with G = F^T F formed
        # once (O(n s^2)); O(s^2 p) per iteration instead of O(n s p)
        G = F.T @ F

        def normal_matvec(t):
            T = t.reshape(2 * s, r, 1)
            V = op._theta_to_V(T)[:, :, 0]  # (2 s, p): B_j theta_cj
            U = (G @ V)[:, :, None]
            if B.ndim == 2:
                out = np.einsum("ak,jaq->jkq", B, U)
            else:
                out = np.einsum("jak,cjaq->cjkq", B, U.reshape(2, s, op.p, 1))
            return out.ravel() + alpha * t
    else:
        def normal_matvec(t):
            return op.rmatvec(op.matvec(t)) + alpha * t
    normal = LinearOperator((n_dim, n_dim), dtype=np.float64, matvec=normal_matvec)
    precond = LinearOperator((n_dim, n_dim), dtype=np.float64, matvec=lambda t: t / diag)
    iters = [0]

    def count(_):
        iters[0] += 1

    maxiter = 10 * n_dim if max_iter is None else max_iter
    theta, info = cg(normal, b, rtol=tol, atol=0.0, maxiter=maxiter, M=precond, callback=count)
    if info > 0:
        warnings.warn(f"conjugate gradient did not reach tol={tol!r} in {maxiter} iterations; "
                      "increase 'max_iter' or 'alpha'.", ConvergenceWarning, stacklevel=3)
    return theta, iters[0]
