"""The p-free curl- and div-free data objective against the direct block form.

:func:`ref_direct` is the former implementation of
:class:`~qmc_orff.OperatorDataDiscrepancy` (kept here, plain numpy, never imported by
the package): for each of the ``p (p + 1) / 2`` entries ``(a, b)`` of the ``p x p``
blocks, the ``(m, m)`` error ``E^ab`` and its gradients, cost ``O(p^2 m^2 s)``.  It
forms the error before squaring it, so it does not cancel; with ``dtype=np.longdouble``
it is the reference of the cancellation test.
"""
from __future__ import annotations

import numpy as np
import pytest

from qmc_orff import OperatorDataDiscrepancy

EPS = np.finfo(np.float64).eps


def ref_A_tilde(kernel, measure, W, sigma):
    """``A~(w_l)`` (s, p, p) and ``dA~(w_l) / dw_lk`` (s, p, p, d), from the formulas."""
    s, d = W.shape
    eye = np.eye(d, dtype=W.dtype)
    if measure == "spectral":
        V = W
    else:
        norm = np.sqrt(np.sum(W * W, axis=1))
        V = W / norm[:, None]
    outer = V[:, :, None] * V[:, None, :]
    dvv = eye[None, :, None, :] * V[:, None, :, None] + V[:, :, None, None] * eye[None, None]
    if kernel == "curl_free":
        base, dbase = outer, dvv
    else:
        sq = np.sum(V * V, axis=1)
        base = sq[:, None, None] * eye[None] - outer
        dbase = 2.0 * V[:, None, None, :] * eye[None, :, :, None] - dvv
    if measure == "spectral":
        return base, dbase
    c = d / sigma ** 2
    J = (eye[None] - outer) / norm[:, None, None]
    return c * base, c * np.einsum("labq,lqk->labk", dbase, J)


def ref_direct(kernel, measure, X, W, xi, sigma, dtype=np.float64):
    """``(L, dL/dW, dL/dxi, N2)`` by the block entries ``(a, b)`` (the former loop)."""
    X, W, xi = (np.asarray(a, dtype=dtype) for a in (X, W, xi))
    m, d = X.shape
    s = W.shape[0]
    D = (X[:, None, :] - X[None, :, :]) / dtype(sigma)
    sq = np.sum(D * D, axis=-1)
    kk = np.exp(-sq / 2) / dtype(sigma) ** 2
    Z = X @ W.T
    C, S = np.cos(Z), np.sin(Z)
    CS = np.concatenate([C, S], axis=1)
    At, dAt = ref_A_tilde(kernel, measure, W, dtype(sigma))
    m2 = dtype(m) ** 2
    value = norm2 = dtype(0)
    dP, grad_xi, grad_W = np.zeros((m, s), dtype), np.zeros(s, dtype), np.zeros((s, d), dtype)
    for a in range(d):
        for b in range(a, d):
            mult = 1 if a == b else 2
            K = D[:, :, a] * D[:, :, b]
            if kernel == "curl_free":
                K = (a == b) - K
            elif a == b:
                K = K + (d - 1) - sq
            K = K * kk
            norm2 += mult * np.sum(K * K)
            coef = xi * At[:, a, b]
            E = (CS * np.concatenate([coef, coef])) @ CS.T - K
            value += mult * np.sum(E * E)
            EC, ES = E @ C, E @ S
            dP += (4 * mult / m2) * (ES * C - EC * S) * coef
            u = (2 * mult / m2) * (np.sum(C * EC, axis=0) + np.sum(S * ES, axis=0))
            grad_xi += u * At[:, a, b]
            grad_W += (u * xi)[:, None] * dAt[:, a, b, :]
    grad_W += (X.T @ dP).T
    return value / m2, grad_W, grad_xi, norm2 / m2


def central(f, x, h=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = h
        g[idx] = (f(x + e) - f(x - e)) / (2 * h)
    return g
