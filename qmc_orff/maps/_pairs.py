"""The (landmark, output) pairs of :class:`qmc_orff.OperatorNystroem`: their selection from the
training rows and the inverse square root of their block Gram matrix.

A pair ``J = i p + a`` names row ``i`` of the training rows and output ``a``: the column
``J`` of the block Gram matrix ``[K(x_i', x_i)[b, a]]`` (rows ``i' p + b``).
"""
from __future__ import annotations

import numpy as np
import scipy.linalg

#: Candidate pivots drawn per round of the randomly pivoted Cholesky.
RPC_BLOCK = 64
#: Rounds in a row without an accepted pivot after which the selection stops (the residual
#: is then numerically zero: the block Gram matrix has lower rank than ``D``).
RPC_STALL = 8


def uniform_pairs(n_pairs, D, rng):
    """``D`` distinct pairs of ``0..n_pairs-1`` drawn uniformly, in increasing order."""
    return np.sort(rng.choice(n_pairs, size=D, replace=False))


def _rejection_pivots(H, diag, rng):
    """Accepted candidates of one round (Epperly, Tropp and Webber 2024, Algorithm 2).

    ``H`` (b, b) is the residual block Gram matrix on the candidates and ``diag`` (b,) the
    residual diagonal they were drawn with; candidate ``j`` is accepted with probability
    ``H_jj / diag_j``, ``H`` then replaced by its Schur complement (a repeated candidate has
    a zero residual once accepted and is rejected).
    """
    H = np.array(H, dtype=np.float64)
    accepted = []
    for j in range(H.shape[0]):
        pivot = H[j, j]
        if rng.random() * diag[j] < pivot and pivot > 0.0:
            accepted.append(j)
            H[j:, j:] -= np.outer(H[j:, j], H[j, j:]) / pivot
    return np.asarray(accepted, dtype=np.intp)


def rp_cholesky_pairs(columns, diag, D, rng):
    """``D`` pairs chosen by the randomly pivoted Cholesky of a PSD matrix ``K`` (N x N).

    Parameters
    ----------
    columns : callable
        ``columns(J)`` -> ``K[:, J]`` of shape ``(N, len(J))``.
    diag : ndarray of shape (N,)
        ``diag(K)``.
    D : int
        Number of pairs, ``D <= N``.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int of shape (D,)
        Distinct pivots in selection order; when the residual vanishes before ``D``
        pivots (rank below ``D``), the rest are drawn uniformly from the unselected ones.

    Notes
    -----
    Pivot ``J`` is drawn with probability proportional to the residual diagonal
    ``diag(K - F F^T)`` (Chen, Epperly, Tropp and Webber 2023), in rounds of
    ``RPC_BLOCK`` candidates accepted by rejection (Epperly, Tropp and Webber 2024,
    "accelerated RPCholesky"), which gives the same distribution with BLAS-3 updates.
    Cost ``O(N D^2)``, memory ``N D`` floats.
    """
    N = diag.shape[0]
    F = np.zeros((N, D))
    resid = np.clip(np.asarray(diag, dtype=np.float64), 0.0, None)
    floor = np.finfo(np.float64).eps * N * max(float(resid.max()), 0.0)
    chosen, k, stall = [], 0, 0
    while k < D and stall < RPC_STALL and resid.sum() > floor:
        cand = rng.choice(N, size=min(RPC_BLOCK, D - k), p=resid / resid.sum())
        C = columns(cand)
        Fc = F[cand, :k]
        accepted = _rejection_pivots(C[cand] - Fc @ Fc.T, resid[cand], rng)
        if accepted.size == 0:
            stall += 1
            continue
        stall = 0
        S = cand[accepted]
        G = C[:, accepted] - F[:, :k] @ F[S, :k].T
        try:
            R = scipy.linalg.cholesky(G[S], lower=False)
        except np.linalg.LinAlgError:  # rounding: keep the first pivot only
            S, G = S[:1], G[:, :1]
            R = np.sqrt(np.maximum(G[S], floor))
        Fn = scipy.linalg.solve_triangular(R, G.T, trans="T", lower=False).T
        F[:, k:k + S.size] = Fn
        resid = np.clip(resid - np.einsum("ij,ij->i", Fn, Fn), 0.0, None)
        resid[S] = 0.0
        chosen.extend(S.tolist())
        k += S.size
    if k < D:
        rest = np.setdiff1d(np.arange(N), np.asarray(chosen, dtype=np.intp))
        chosen.extend(rng.choice(rest, size=D - k, replace=False).tolist())
    return np.asarray(chosen, dtype=np.intp)


def inv_sqrt_psd(W, rcond=1e-12):
    """``W^{+1/2}``: the symmetric inverse square root of a PSD matrix on its eigenvalues above
    ``rcond`` times the largest (the others are dropped: a pseudo-inverse)."""
    lam, V = np.linalg.eigh((W + W.T) / 2.0)
    top = lam[-1] if lam.size else 0.0
    keep = lam > rcond * top if top > 0 else np.zeros(lam.shape, dtype=bool)
    return (V[:, keep] / np.sqrt(lam[keep])) @ V[:, keep].T
