"""The closed-form ridge solves of :class:`qmc_orff.ORFFRidge` and its ``alpha``
(``alpha >= 0``; one value per target where the outputs are independent)."""
from __future__ import annotations

import numpy as np
import scipy.linalg


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
