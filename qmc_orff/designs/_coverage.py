"""Training rows that cover the data: k-means++ (D^2) seeding in the kernel's distance.

A uniform subsample of a few hundred rows leaves the sparse regions of the data (the tails,
isolated clusters) with few or no training rows.  The adaptive designs then fit the kernel at
the differences they see and leave it unconstrained at the differences between a sparse row and
the rest, where the held-out Gram error of the map concentrates (on diamonds, 5 of
250 validation rows, 2-4 times farther from the nearest training row than the median row, held
20-41% of the validation error).  :func:`cover_rows` replaces part of the uniform training rows
by rows drawn with probability proportional to their kernel distance

.. math:: D(x) = 1 - \\max_{c} k(x, c)

to the rows already chosen (Arthur and Vassilvitskii's k-means++ seeding, in the kernel's
feature space: ``|phi(x) - phi(c)|^2 = 2 (1 - k(x, c))``).  The distance saturates at 1, so
every row far from all chosen ones is about equally likely and no single outlier dominates.
"""
from __future__ import annotations

import numpy as np

from ..kernels import _abs_dists, _matern_of_r, _sq_dists
from ..objectives.data import KERNELS

__all__ = ["cover_rows", "split_cover"]

#: candidate rows drawn (uniformly) per covering row: the seeding's cost is
#: ``O(CANDIDATES k n_train d)`` for ``k`` covering rows, whatever the number of rows of ``X``
CANDIDATES = 8


def _distance_to_kernel(kernel, nu):
    """``(l1, k_of)``: whether the kernel's distance is L1 (else Euclidean), and the kernel
    at unit bandwidth as a function of the squared Euclidean or the L1 distance."""
    if kernel == "gaussian":
        return False, lambda r2: np.exp(-0.5 * r2)
    if kernel == "laplacian":
        return True, lambda r1: np.exp(-r1)
    if kernel == "matern":
        return False, lambda r2: _matern_of_r(np.sqrt(r2), nu)
    raise ValueError(f"'kernel' must be one of {', '.join(map(repr, KERNELS))}; got {kernel!r}.")


def cover_rows(kept, candidates, k, *, kernel, nu, rng):
    """``k`` rows of ``candidates`` by D^2 seeding against the rows ``kept``.

    Parameters
    ----------
    kept : ndarray of shape (m, d)
        The rows already chosen, at unit bandwidth (``X / sigma``).
    candidates : ndarray of shape (c, d)
        The rows to choose from, at unit bandwidth.
    k : int
        Rows to choose, ``0 <= k <= c``.
    kernel : {"gaussian", "laplacian", "matern"}
    nu : float
        Matern smoothness.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int of shape (k,)
        Indices into ``candidates``, in the order chosen.  Where every remaining candidate
        is at distance 0 from a chosen row (duplicates), the rest are drawn uniformly.

    Notes
    -----
    The distance of each candidate to its nearest chosen row is kept (squared Euclidean,
    or L1 for the Laplacian kernel) and the kernel applied to it: ``1 - k`` decreases with
    the distance for the three kernels.  The distances to ``kept`` are exact
    (:func:`qmc_orff.kernels._sq_dists`); those to each new row use
    ``|x|^2 - 2 x.c + |c|^2`` (one matrix-vector product, clipped at 0): its rounding only
    moves probabilities near 0, of rows next to a chosen one.  Cost
    ``O(c (m + k) d)``.
    """
    l1, k_of = _distance_to_kernel(kernel, nu)
    c = candidates.shape[0]
    near = np.full(c, np.inf)
    for start in range(0, kept.shape[0], 256):  # blocks of the (c, m) distances
        block = kept[start:start + 256]
        dist = _abs_dists(candidates, block) if l1 else _sq_dists(candidates, block)
        np.minimum(near, dist.min(axis=1), out=near)
    norms = None if l1 else np.einsum("ij,ij->i", candidates, candidates)
    free = np.ones(c, dtype=bool)
    chosen = np.empty(k, dtype=np.intp)
    for t in range(k):
        weights = np.ones(c)  # 1 - k: 1 where no row is chosen yet (near = inf)
        seen = np.isfinite(near)
        weights[seen] = np.maximum(1.0 - k_of(near[seen]), 0.0)
        weights[~free] = 0.0
        total = weights.sum()
        if total > 0:
            pick = int(rng.choice(c, p=weights / total))
        else:
            pick = int(rng.choice(np.flatnonzero(free)))
        free[pick] = False
        chosen[t] = pick
        row = candidates[pick]
        if l1:
            dist = np.abs(candidates - row).sum(axis=1)
        else:
            dist = np.maximum(norms - 2.0 * (candidates @ row) + norms[pick], 0.0)
        np.minimum(near, dist, out=near)
    return chosen


def split_cover(X, sigma, train_idx, val_idx, fraction, *, kernel, nu, rng):
    """The training rows with ``round(fraction n_train)`` of them re-drawn to cover ``X``.

    A uniform subset of ``train_idx`` is kept; the others are replaced by :func:`cover_rows`
    (in the kernel's distance at bandwidth ``sigma``, a float or an array of shape (d,)) from
    candidates drawn uniformly among the rows of ``X`` outside ``val_idx`` and the kept rows:
    the replaced rows and ``CANDIDATES - 1`` fresh rows per replaced row.  Only the drawn
    rows of ``X`` are read.

    Returns
    -------
    (ndarray of int, int)
        The sorted training rows and the number chosen to cover (0 where ``X`` has no row
        outside ``train_idx`` and ``val_idx``).
    """
    n, n_tr = X.shape[0], train_idx.size
    taken = np.union1d(train_idx, val_idx)
    k = min(int(round(fraction * n_tr)), n - taken.size)
    if k <= 0:
        return train_idx, 0
    kept = np.sort(rng.choice(train_idx, size=n_tr - k, replace=False))
    # candidates: the dropped training rows and fresh rows, drawn without reading all of X
    dropped = np.setdiff1d(train_idx, kept)
    want = CANDIDATES * k - dropped.size
    fresh = rng.choice(n, size=min(n, want + taken.size), replace=False)
    fresh = fresh[~np.isin(fresh, taken)][:max(want, 0)]
    candidates = np.concatenate([dropped, fresh])
    chosen = cover_rows(X[kept] / sigma, X[candidates] / sigma, k, kernel=kernel, nu=nu,
                        rng=rng)
    return np.sort(np.concatenate([kept, candidates[chosen]])), k
