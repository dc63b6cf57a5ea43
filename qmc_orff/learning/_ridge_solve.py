"""The solves of :class:`qmc_orff.ORFFRidge`'s normal equations and its ``alpha`` (``alpha >=
0``; one value per target where the outputs are independent): closed form (dense, Stein
equation) from the sufficient statistics, and Jacobi-preconditioned conjugate gradients, on the
statistics' ``G o (B^T B)`` or matrix-free through the feature operator and its adjoint."""
from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import LinearOperator, cg
from sklearn.exceptions import ConvergenceWarning

from ..maps.operators import _FeatureOperator


def _check_alpha(alpha):
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


def _alpha_columns(alpha, B):
    """The penalty of each column ``k`` of ``Theta`` (2 s x r): ``alpha`` itself when it is a
    scalar; for per-target ``alpha`` (p,), that of the one output column ``k`` feeds
    (``B`` (p, r) of a diagonal ``A`` has one nonzero per column)."""
    if np.ndim(alpha) == 0:
        return alpha
    p = B.shape[-2]
    if alpha.shape[0] != p:
        raise ValueError(f"'alpha' must have one value per target, shape ({p},); "
                         f"got shape {alpha.shape}.")
    if B.ndim != 2 or np.any(np.count_nonzero(B, axis=0) != 1):
        raise ValueError("'alpha' per target needs independent outputs: kernel='decomposable' "
                         "with a diagonal A (A=None is the identity); the other kernels share "
                         "theta between the outputs. Pass a scalar 'alpha'.")
    return alpha[np.argmax(np.abs(B), axis=0)]


def _coef_alpha(alpha, s, r):
    """``alpha`` per coefficient of ``theta`` (2 s r,), in its order ``(c s + j) r + k``."""
    return alpha if np.ndim(alpha) == 0 else np.tile(alpha, 2 * s)


def _direct_solve(H, b, alpha):
    """``(H + diag(alpha)) theta = b``: Cholesky when every ``alpha > 0``, else the
    minimum-norm least-squares solution (``alpha = 0``: the system may be singular)."""
    if np.ndim(alpha) == 0:
        if alpha > 0:
            return scipy.linalg.solve(H + alpha * np.eye(b.size), b, assume_a="pos")
        return scipy.linalg.lstsq(H, b)[0]
    H = H.copy()
    H[np.diag_indices_from(H)] += alpha
    if np.all(alpha > 0):
        return scipy.linalg.solve(H, b, assume_a="pos")
    return scipy.linalg.lstsq(H, b)[0]


def _stein_solve(G, C, B, alpha):
    """Closed form of ``min |F Theta B^T - Y|^2 + alpha |Theta|^2`` (Theta: 2 s x r).

    Normal equations (a Stein equation, Brault et al. 2016, section 4.1):
    ``G Theta M + alpha Theta = C B`` with ``G = F^T F = U diag(lam) U^T``,
    ``C = F^T Y`` and ``M = B^T B = V diag(mu) V^T``; then
    ``Theta = U [(U^T C B V) / (lam mu^T + alpha)] V^T``.
    ``alpha`` (r,) per column (per-target ``alpha``, ``B^T B`` diagonal): ``V = I``.  Where
    ``alpha = 0``, the pseudo-inverse: denominators below ``eps`` times the largest are
    dropped (the minimum-norm least-squares solution).
    """
    lam, U = np.linalg.eigh(G)
    if np.ndim(alpha) == 0:
        mu, V = np.linalg.eigh(B.T @ B)
    else:
        mu, V = np.sum(B * B, axis=0), np.eye(B.shape[1])
    R = U.T @ (C @ B) @ V
    D = np.maximum(lam, 0.0)[:, None] * np.maximum(mu, 0.0)[None, :] + alpha
    if np.all(np.asarray(alpha) > 0):
        T = R / D
    else:  # least squares: drop the (numerically) zero part of the spectrum
        keep = D > np.finfo(np.float64).eps * max(D.shape) * D.max()
        T = np.where(keep, R, 0.0) / np.where(keep, D, 1.0)
    return (U @ T @ V.T).ravel()


def _solve(stats, B, alpha, solver, tol, max_iter, fit_intercept):
    """``(theta, b, n_iter)`` from the statistics."""
    sw, _, mF, mY, G, C = stats
    if sw <= 0.0:
        raise ValueError("'sample_weight' must have a positive sum; got all zeros.")
    if not fit_intercept:  # uncentred moments
        G = G + sw * np.outer(mF, mF)
        C = C + sw * np.outer(mF, mY)
    s = G.shape[0] // 2
    n_iter = 1
    alpha = _alpha_columns(alpha, B)
    if solver == "stein":
        theta = _stein_solve(G, C, B, alpha)
    else:
        b = _apply_Bt(C, B, s)
        if solver == "direct":
            theta = _direct_solve(_normal_matrix(G, B), b, _coef_alpha(alpha, s, B.shape[-1]))
        else:
            alpha = _coef_alpha(alpha, s, B.shape[-1])
            theta, n_iter = _cg_gram(G, B, b, alpha, tol, max_iter)
    if fit_intercept:
        intercept = mY - _FeatureOperator(mF[None, :], B).matvec(theta)
    else:
        intercept = np.zeros(mY.shape[0])
    return theta, intercept, n_iter


def _apply_Bt(C, B, s):
    """``theta_{c s + j} = B(w_j)^T C[c s + j]`` for ``C`` (2 s, p): ``Phi^T Y`` from ``F^T Y``."""
    if B.ndim == 2:
        return (C @ B).ravel()
    return np.einsum("jak,cja->cjk", B, C.reshape(2, s, -1)).ravel()


def _normal_matrix(G, B):
    """``Phi^T Phi`` as ``G o (B^T B)`` of shape (2 s r, 2 s r), ``G = F^T F``."""
    s = G.shape[0] // 2
    p, r = B.shape[-2], B.shape[-1]
    G = G.reshape(2, s, 2, s)
    if B.ndim == 2:
        M = np.broadcast_to((B.T @ B)[None, :, None, :], (s, r, s, r))
    else:
        Bflat = np.ascontiguousarray(B.transpose(1, 0, 2)).reshape(p, s * r)
        M = (Bflat.T @ Bflat).reshape(s, r, s, r)
    H = G[:, :, None, :, :, None] * M[None, :, :, None, :, :]
    return H.reshape(2 * s * r, 2 * s * r)


def _jacobi_diag(colsq, B, alpha):
    """Diagonal of ``Phi^T Phi + alpha I`` from the squared column norms of ``F`` (2 s,)."""
    s = colsq.shape[0] // 2
    if B.ndim == 2:
        bsq = np.broadcast_to(np.sum(B * B, axis=0)[None, :], (s, B.shape[1]))
    else:
        bsq = np.sum(B * B, axis=1)  # (s, r)
    diag = (colsq.reshape(2, s)[:, :, None] * bsq[None]).ravel() + alpha
    return np.where(diag > 0, diag, 1.0)  # alpha = 0: no zero division in the preconditioner


def _cg_gram(G, B, b, alpha, tol, max_iter):
    """CG with the normal operator ``theta -> B^T (G (B theta))`` (Brault et al. Table 2, P^T P)."""
    s = G.shape[0] // 2
    p, r = B.shape[-2], B.shape[-1]
    op = _FeatureOperator(np.zeros((0, 2 * s)), B)

    def normal_matvec(t):
        T = t.reshape(2 * s, r, 1)
        V = op._theta_to_V(T)[:, :, 0]  # (2 s, p): B_j theta_cj
        U = (G @ V)[:, :, None]
        if B.ndim == 2:
            out = np.einsum("ak,jaq->jkq", B, U)
        else:
            out = np.einsum("jak,cjaq->cjkq", B, U.reshape(2, s, p, 1))
        return out.ravel() + alpha * t

    return _cg(normal_matvec, _jacobi_diag(np.diag(G).copy(), B, alpha), b, tol, max_iter)


def _operator_solve(orff, X, Y, w, alpha, tol, max_iter, fit_intercept):
    """CG through ``P = Phi(X)^T`` and its adjoint, on the (weighted, centred) data."""
    F = orff.scalar_features(X)
    Y = np.array(Y, dtype=np.float64)
    if fit_intercept:
        sw = float(X.shape[0]) if w is None else float(np.sum(w))
        if sw <= 0.0:
            raise ValueError("'sample_weight' must have a positive sum; got all zeros.")
        mF = (F.mean(axis=0) if w is None else (w @ F) / sw)
        mY = (Y.mean(axis=0) if w is None else (w @ Y) / sw)
        F -= mF
        Y -= mY
    if w is not None:
        r = np.sqrt(w)[:, None]
        F *= r
        Y *= r
    op = _FeatureOperator(F, orff.factors_)
    b = op.rmatvec(Y.ravel())
    alpha = _coef_alpha(_alpha_columns(alpha, orff.factors_), F.shape[1] // 2, orff.rank_)

    def normal_matvec(t):
        return op.rmatvec(op.matvec(t)) + alpha * t

    diag = _jacobi_diag(np.einsum("ij,ij->j", F, F), orff.factors_, alpha)
    theta, n_iter = _cg(normal_matvec, diag, b, tol, max_iter)
    if fit_intercept:
        intercept = mY - _FeatureOperator(mF[None, :], orff.factors_).matvec(theta)
    else:
        intercept = np.zeros(Y.shape[1])
    return theta, intercept, n_iter


def _cg(normal_matvec, diag, b, tol, max_iter):
    """Jacobi-preconditioned CG on ``(Phi^T Phi + alpha I) theta = b``."""
    n_dim = b.size
    normal = LinearOperator((n_dim, n_dim), dtype=np.float64, matvec=normal_matvec)
    precond = LinearOperator((n_dim, n_dim), dtype=np.float64, matvec=lambda t: t / diag)
    iters = [0]

    def count(_):
        iters[0] += 1

    maxiter = 10 * n_dim if max_iter is None else max_iter
    theta, info = cg(normal, b, rtol=tol, atol=0.0, maxiter=maxiter, M=precond, callback=count)
    if info > 0:
        warnings.warn(f"conjugate gradient did not reach tol={tol!r} in {maxiter} iterations; "
                      "increase 'max_iter' or 'alpha'.", ConvergenceWarning, stacklevel=4)
    return theta, max(iters[0], 1)
