"""The sufficient statistics of :class:`qmc_orff.ORFFRidge`, in any array namespace ``xp``.

A statistics tuple ``(sw, n, mP, mY, G, C)`` of features ``P`` (n, k, q) and targets
``Y`` (n, q, t) with weights ``w``: the total weight, the row count, the weighted means
``mP`` (k, q) and ``mY`` (q, t), and the centred moments
``G = sum_i w_i (P_i - mP)(P_i - mP)^T`` (k, k) and ``C = sum_i w_i (P_i - mP)(Y_i - mY)``
(k, t).  An ORFF map gives its scalar features (``q = 1``, ``t = p``: ``F^T F`` and ``F^T Y``),
a map of dense features ``Phi(x)`` (D, p) gives ``q = p``, ``t = 1``.  Batches merge with the
pairwise update of Chan, Golub and LeVeque (1979), so the memory is independent of ``n`` and
chunks reduce in any order.
"""
from __future__ import annotations

import functools

from .._array_api import device, is_numpy


def batch(P, Y, w, xp):
    """Statistics of one batch: ``P`` (n, k, q), ``Y`` (n, q, t), ``w`` (n,) or None; ``P`` is
    the batch's own features, overwritten on NumPy."""
    n, k, q = P.shape
    sw = float(n) if w is None else float(xp.sum(w))
    if sw <= 0.0:  # only zero weights: contributes nothing
        zeros = functools.partial(xp.zeros, dtype=P.dtype, device=device(P))
        return (0.0, n, zeros((k, q)), zeros(Y.shape[1:]), zeros((k, k)),
                zeros((k, Y.shape[2])))
    if w is None:
        mP, mY = xp.mean(P, axis=0), xp.mean(Y, axis=0)
        Pc, Yc = _centred(P, mP, None, xp), Y - mY
    else:
        mP = xp.reshape(w @ xp.reshape(P, (n, k * q)), (k, q)) / sw
        mY = xp.reshape(w @ xp.reshape(Y, (n, -1)), Y.shape[1:]) / sw
        r = xp.sqrt(w)
        Pc, Yc = _centred(P, mP, r, xp), (Y - mY) * r[:, None, None]
    S = xp.reshape(xp.permute_dims(Pc, (1, 0, 2)), (k, n * q))  # q = 1: a view of Pc^T
    return sw, n, mP, mY, S @ S.T, S @ xp.reshape(Yc, (n * q, -1))


def _centred(P, mP, r, xp):
    """``(P - mP) * r`` (``r`` None: no scaling): in place on NumPy, where a second
    batch-sized array would double the fit's peak memory (the same bits either way); a new
    array in other namespaces, whose arrays need not be writable."""
    if is_numpy(xp):
        P -= mP
        if r is not None:
            P *= r[:, None, None]
        return P
    return P - mP if r is None else (P - mP) * r[:, None, None]


def merge(a, b):
    """Pairwise update of Chan, Golub and LeVeque (1979), weighted (any namespace)."""
    swa, na, mPa, mYa, Ga, Ca = a
    swb, nb, mPb, mYb, Gb, Cb = b
    sw = swa + swb
    if swb == 0.0:
        return (swa, na + nb, mPa, mYa, Ga, Ca)
    if swa == 0.0:
        return (swb, na + nb, mPb, mYb, Gb, Cb)
    dP, dY = mPb - mPa, mYb - mYa
    f = swa * swb / sw
    return (sw, na + nb, mPa + dP * (swb / sw), mYa + dY * (swb / sw),
            Ga + Gb + f * (dP @ dP.T), Ca + Cb + f * (dP @ dY))


def uncentred(stats):
    """``(G, C)`` of the statistics about the origin (``fit_intercept=False``)."""
    sw, _, mP, mY, G, C = stats
    return G + sw * (mP @ mP.T), C + sw * (mP @ mY)


def accumulate(features, X, Y, w, rows, xp):
    """Statistics of ``X`` (n, d), targets ``Y`` (n, q, t) and ``w`` (n,) or None, ``rows`` at
    a time; ``features(X_block)`` gives the block's ``P``."""
    stats = None
    for start in range(0, X.shape[0], rows):
        stop = min(start + rows, X.shape[0])
        part = batch(features(X[start:stop, ...]), Y[start:stop, ...],
                     None if w is None else w[start:stop], xp)
        stats = part if stats is None else merge(stats, part)
    return stats
