"""The solves of :class:`qmc_orff.ORFFRidge`'s normal equations: linear algebra on matrices only
(never a feature map), each written once.

- :func:`stein`: the closed form of the Stein equation ``G Theta M + alpha Theta = C B``
  (eigendecompositions), in any namespace ``xp``;
- :func:`direct`: ``(H + alpha) theta = b``: SciPy's Cholesky, or its minimum-norm
  least-squares solution where an ``alpha`` is 0, when ``xp`` is NumPy; ``xp.linalg.solve``
  and the same minimum-norm solution by ``xp.linalg.svd`` otherwise;
- :func:`cg`: Jacobi-preconditioned conjugate gradients (SciPy's ``cg``: NumPy only).
"""
from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import LinearOperator
from scipy.sparse.linalg import cg as _scipy_cg
from sklearn.exceptions import ConvergenceWarning

from .._array_api import device, is_numpy


def check_alpha(alpha):
    """``alpha`` as a non-negative float, or a 1-D float array of them (one per target)."""
    if np.ndim(alpha) == 0:
        if isinstance(alpha, (bool, np.bool_)) or not np.isrealobj(alpha):
            raise TypeError(f"'alpha' must be a non-negative finite number; got {alpha!r}.")
        value = float(alpha)
        if not (np.isfinite(value) and value >= 0):
            raise ValueError(f"'alpha' must be a non-negative finite number; got {value!r}.")
        return value
    a = np.asarray(alpha)
    if a.dtype.kind not in "iuf" or a.ndim != 1 or a.size == 0:
        raise ValueError(f"'alpha' must be a number or a 1-D array of numbers (one per "
                         f"target); got {alpha!r}.")
    a = a.astype(np.float64)
    if not np.all(np.isfinite(a) & (a >= 0)):
        raise ValueError(f"'alpha' must be non-negative and finite; got {alpha!r}.")
    return a


def refuse_numpy_only(solver, xp):
    """The ``ValueError`` of a solver the array API standard cannot express, in namespace ``xp``."""
    if solver == "cg" and not is_numpy(xp):
        raise ValueError(f"'solver'={solver!r} is NumPy-only (SciPy's conjugate gradient); in "
                         f"namespace {xp.__name__} use solver='stein' (decomposable kernel), "
                         "'direct' or 'auto', or pass NumPy arrays.")


def _positive(alpha, xp):
    return alpha > 0 if isinstance(alpha, float) else bool(xp.all(alpha > 0))


def stein(G, C, B, alpha, xp):
    """Closed form of ``min |F Theta B^T - Y|^2 + alpha |Theta|^2`` (Theta: 2 s x r), flattened.

    Normal equations (a Stein equation, Brault et al. 2016, section 4.1):
    ``G Theta M + alpha Theta = C B`` with ``G = F^T F = U diag(lam) U^T``,
    ``C = F^T Y`` and ``M = B^T B = V diag(mu) V^T``; then
    ``Theta = U [(U^T C B V) / (lam mu^T + alpha)] V^T``.
    ``alpha`` (r,) per column (per-target ``alpha``, ``B^T B`` diagonal): ``V = I``.  Where
    ``alpha = 0``, the pseudo-inverse: denominators below ``eps`` times the largest are
    dropped (the minimum-norm least-squares solution).
    """
    lam, U = xp.linalg.eigh(G)
    if isinstance(alpha, float):
        mu, V = xp.linalg.eigh(B.T @ B)
    else:
        mu, V = xp.sum(B * B, axis=0), xp.eye(B.shape[1], dtype=B.dtype, device=device(B))
    R = U.T @ (C @ B) @ V
    D = xp.clip(lam, min=0.0)[:, None] * xp.clip(mu, min=0.0)[None, :] + alpha
    if _positive(alpha, xp):
        T = R / D
    else:  # least squares: drop the (numerically) zero part of the spectrum
        keep = D > xp.finfo(D.dtype).eps * max(D.shape) * xp.max(D)
        T = xp.where(keep, R, xp.zeros_like(R)) / xp.where(keep, D, xp.ones_like(D))
    return xp.reshape(U @ T @ V.T, (-1,))


def direct(H, b, alpha, xp):
    """``(H + diag(alpha)) theta = b``: Cholesky when every ``alpha > 0``, else the
    minimum-norm least-squares solution (``alpha = 0``: the system may be singular)."""
    H = H + xp.eye(b.shape[0], dtype=H.dtype, device=device(H)) * alpha
    if is_numpy(xp):
        if _positive(alpha, xp):
            return scipy.linalg.solve(H, b, assume_a="pos")
        return scipy.linalg.lstsq(H, b)[0]
    if _positive(alpha, xp):
        return xp.linalg.solve(H, b[:, None])[:, 0]
    return _min_norm(H, b, xp)


def _min_norm(H, b, xp):
    """The minimum-norm solution of ``H theta = b`` as :func:`scipy.linalg.lstsq` (LAPACK
    ``gelsd``) defines it: the SVD ``H = U diag(S) V^T``, singular values ``S <= eps S_max``
    dropped, ``theta = V (U^T b / S)``.  The factors are applied to ``b``: an explicit
    ``pinv(H) @ b`` loses about 100x more to rounding at ``cond(H) = 1e10`` (6.6e-8 on the
    predictions against 6.8e-10)."""
    U, S, Vt = xp.linalg.svd(H, full_matrices=False)
    keep = S > xp.finfo(S.dtype).eps * S[0]
    Utb = xp.where(keep, U.T @ b, xp.zeros_like(S))
    return Vt.T @ (Utb / xp.where(keep, S, xp.ones_like(S)))


def cg(normal_matvec, diag, b, tol, max_iter):
    """Jacobi-preconditioned CG on ``(Phi^T Phi + alpha I) theta = b`` (NumPy): ``normal_matvec``
    applies the matrix, ``diag`` is its diagonal (entries ``<= 0``, from ``alpha = 0``, are
    taken as 1 in the preconditioner).  Returns ``(theta, iterations)``."""
    n_dim = b.size
    diag = np.where(diag > 0, diag, 1.0)
    normal = LinearOperator((n_dim, n_dim), dtype=np.float64, matvec=normal_matvec)
    precond = LinearOperator((n_dim, n_dim), dtype=np.float64, matvec=lambda t: t / diag)
    iters = [0]

    def count(_):
        iters[0] += 1

    maxiter = 10 * n_dim if max_iter is None else max_iter
    theta, info = _scipy_cg(normal, b, rtol=tol, atol=0.0, maxiter=maxiter, M=precond,
                            callback=count)
    if info > 0:
        warnings.warn(f"conjugate gradient did not reach tol={tol!r} in {maxiter} iterations; "
                      "increase 'max_iter' or 'alpha'.", ConvergenceWarning, stacklevel=5)
    return theta, max(iters[0], 1)
