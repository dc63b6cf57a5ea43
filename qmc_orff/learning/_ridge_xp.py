"""The ridge fit and prediction of :class:`qmc_orff.ORFFRidge` in an array-API namespace ``xp``
(torch, CuPy, array-api-strict under scikit-learn's ``array_api_dispatch``).

The same sufficient statistics as the NumPy path (:mod:`.ridge`: weighted means ``mF``, ``mY``
and centred moments ``G``, ``C``, merged by Chan, Golub and LeVeque's pairwise update), formed
on the device in its widest float dtype (float64, or float32 where the device has no float64),
and the two closed-form solves in ``xp.linalg``: ``"stein"`` (``eigh``) and ``"direct"``
(``solve``; for ``alpha = 0`` the minimum-norm solution by ``svd`` with ``lstsq``'s cutoff).
``"cg"`` is NumPy-only (SciPy's ``cg``): :func:`check_solver` says so.
"""
from __future__ import annotations

import numpy as np

from .. import _array_api as _xp

#: the solvers that run in an array-API namespace; ``"auto"`` picks among them
XP_SOLVERS = ("stein", "direct")


def check_solver(solver, decomposable):
    """The solver for an array-API fit: ``"auto"`` is ``"stein"`` (decomposable) or
    ``"direct"``; ``"cg"`` raises (NumPy-only)."""
    if solver == "auto":
        return "stein" if decomposable else "direct"
    if solver not in XP_SOLVERS:
        raise ValueError(f"'solver'={solver!r} is NumPy-only (SciPy's conjugate gradient); "
                         "under array API dispatch use solver='stein' (decomposable kernel), "
                         "'direct' or 'auto', or pass NumPy arrays.")
    return solver


def _outer(a, b):
    """``a b^T``: of vectors (an outer product), or of a generic feature map's mean features
    ``a`` (D, p) with ``b`` (D, p) or (p,) (:mod:`._feature_ridge`'s statistics)."""
    if a.ndim == 2:
        return a @ (b.T if b.ndim == 2 else b)
    return a[:, None] * b[None, :]


def batch_statistics(F, Y, w, xp):
    """``(sw, n, mF, mY, G, C)`` of one batch of features ``F`` (n, 2 s), targets ``Y`` (n, p)
    and weights ``w`` (n,) or None, in ``xp`` (as :func:`.ridge._batch_statistics`)."""
    n = F.shape[0]
    sw = float(n) if w is None else float(xp.sum(w))
    if sw <= 0.0:  # only zero weights: contributes nothing
        z = xp.zeros_like
        return (0.0, n, z(F[0, :]), z(Y[0, :]), z(F.T @ F), z(F.T @ Y))
    if w is None:
        mF, mY = xp.mean(F, axis=0), xp.mean(Y, axis=0)
        Fc, Yc = F - mF, Y - mY
    else:
        mF, mY = (w @ F) / sw, (w @ Y) / sw
        r = xp.sqrt(w)[:, None]
        Fc, Yc = (F - mF) * r, (Y - mY) * r
    return sw, n, mF, mY, Fc.T @ Fc, Fc.T @ Yc


def merge(a, b):
    """Pairwise update of Chan, Golub and LeVeque (1979), weighted (any namespace; the scalar
    features' statistics and a generic feature map's, :mod:`._feature_ridge`)."""
    swa, na, mFa, mYa, Ga, Ca = a
    swb, nb, mFb, mYb, Gb, Cb = b
    sw = swa + swb
    if swb == 0.0:
        return (swa, na + nb, mFa, mYa, Ga, Ca)
    if swa == 0.0:
        return (swb, na + nb, mFb, mYb, Gb, Cb)
    dF, dY = mFb - mFa, mYb - mYa
    f = swa * swb / sw
    return (sw, na + nb, mFa + dF * (swb / sw), mYa + dY * (swb / sw),
            Ga + Gb + f * _outer(dF, dF), Ca + Cb + f * _outer(dF, dY))


def statistics(orff, X, Y, w, rows, xp):
    """Statistics of ``X`` (n, d), ``Y`` (n, p), ``w`` (n,) or None, ``rows`` at a time; the
    features in the statistics' dtype (that of the fitted map's arrays)."""
    dtype = orff.frequencies_.dtype
    stats = None
    for start in range(0, X.shape[0], rows):
        stop = min(start + rows, X.shape[0])
        F = orff.scalar_features(xp.astype(X[start:stop, ...], dtype))
        part = batch_statistics(F, Y[start:stop, ...], None if w is None else w[start:stop],
                                xp)
        stats = part if stats is None else merge(stats, part)
    return stats


def apply_B(F, theta, B, xp):
    """``Phi(x_i)^T theta`` for the rows of ``F`` (n, 2 s): (n, p)."""
    s2, r = F.shape[1], B.shape[-1]
    T = xp.reshape(theta, (s2, r))
    if B.ndim == 2:
        return (F @ T) @ B.T
    s = s2 // 2  # V[c s + j] = B_j T[c s + j]
    V = xp.sum(B[None, ...] * xp.reshape(T, (2, s, 1, r)), axis=-1)  # (2, s, p)
    return F @ xp.reshape(V, (s2, B.shape[1]))


def _apply_Bt(C, B, xp):
    """``theta_{c s + j} = B(w_j)^T C[c s + j]`` for ``C`` (2 s, p), flattened."""
    if B.ndim == 2:
        return xp.reshape(C @ B, (-1,))
    s, p = B.shape[0], B.shape[1]
    T = xp.sum(B[None, ...] * xp.reshape(C, (2, s, p, 1)), axis=2)  # (2, s, r)
    return xp.reshape(T, (-1,))


def _normal_matrix(G, B, xp):
    """``Phi^T Phi = G o (B^T B)`` of shape (2 s r, 2 s r)."""
    s = G.shape[0] // 2
    p, r = B.shape[-2], B.shape[-1]
    G = xp.reshape(G, (2, s, 2, s))
    if B.ndim == 2:
        M = xp.broadcast_to((B.T @ B)[None, :, None, :], (s, r, s, r))
    else:
        Bflat = xp.reshape(xp.permute_dims(B, (1, 0, 2)), (p, s * r))
        M = xp.reshape(Bflat.T @ Bflat, (s, r, s, r))
    H = G[:, :, None, :, :, None] * M[None, :, :, None, :, :]
    return xp.reshape(H, (2 * s * r, 2 * s * r))


def _stein(G, C, B, alpha, xp):
    """:func:`._ridge_solve._stein_solve` in ``xp`` (``alpha`` a float or (r,) array)."""
    lam, U = xp.linalg.eigh(G)
    if isinstance(alpha, float):
        mu, V = xp.linalg.eigh(B.T @ B)
    else:
        mu, V = xp.sum(B * B, axis=0), xp.eye(B.shape[1], dtype=B.dtype, device=_xp.device(B))
    R = U.T @ (C @ B) @ V
    D = _outer(xp.clip(lam, min=0.0), xp.clip(mu, min=0.0)) + alpha
    if bool(xp.all(alpha > 0)) if not isinstance(alpha, float) else alpha > 0:
        T = R / D
    else:  # least squares: drop the (numerically) zero part of the spectrum
        keep = D > xp.finfo(D.dtype).eps * max(D.shape) * xp.max(D)
        T = xp.where(keep, R, xp.zeros_like(R)) / xp.where(keep, D, xp.ones_like(D))
    return xp.reshape(U @ T @ V.T, (-1,))


def _min_norm(H, b, xp):
    """The minimum-norm solution of ``H theta = b`` as :func:`scipy.linalg.lstsq` (the NumPy
    path's ``_direct_solve``, LAPACK ``gelsd``) defines it: the SVD ``H = U diag(S) V^T``,
    singular values ``S <= eps S_max`` dropped, ``theta = V (U^T b / S)``.  The factors are
    applied to ``b``: an explicit ``pinv(H) @ b`` loses about 100x more to rounding at
    ``cond(H) = 1e10`` (6.6e-8 on the predictions against 6.8e-10)."""
    U, S, Vt = xp.linalg.svd(H, full_matrices=False)
    keep = S > xp.finfo(S.dtype).eps * S[0]
    Utb = xp.where(keep, U.T @ b, xp.zeros_like(S))
    return Vt.T @ (Utb / xp.where(keep, S, xp.ones_like(S)))


def solve(stats, B, alpha, solver, fit_intercept, xp):
    """``(theta, b, 1)`` from the statistics, in ``xp``; ``alpha`` a float or the (r,) NumPy
    array of :func:`._ridge_solve._alpha_columns`."""
    sw, _, mF, mY, G, C = stats
    if sw <= 0.0:
        raise ValueError("'sample_weight' must have a positive sum; got all zeros.")
    if not fit_intercept:  # uncentred moments
        G, C = G + sw * _outer(mF, mF), C + sw * _outer(mF, mY)
    s2, r = G.shape[0], B.shape[-1]
    if np.ndim(alpha) != 0:
        alpha = xp.asarray(alpha, dtype=G.dtype, device=_xp.device(G))
    else:
        alpha = float(alpha)
    if solver == "stein":
        theta = _stein(G, C, B, alpha, xp)
    else:
        H = _normal_matrix(G, B, xp)
        a = alpha if isinstance(alpha, float) else xp.tile(alpha, (s2,))
        n_dim = s2 * r
        eye = xp.eye(n_dim, dtype=H.dtype, device=_xp.device(H))
        b = _apply_Bt(C, B, xp)
        positive = a > 0 if isinstance(a, float) else bool(xp.all(a > 0))
        if positive:
            theta = xp.linalg.solve(H + eye * a, b[:, None])[:, 0]
        else:  # alpha = 0 somewhere: the minimum-norm least-squares solution
            theta = _min_norm(H + eye * a, b, xp)
    if fit_intercept:
        intercept = mY - apply_B(mF[None, :], theta, B, xp)[0, :]
    else:
        intercept = xp.zeros_like(mY)
    return theta, intercept, 1


# --------------------------------------------------------------------------- the estimator's steps
def _weights(sample_weight, X, xp, device):
    """Validated weights (n,) of ``X``'s namespace, or None (as :meth:`ORFFRidge._weights`)."""
    from sklearn.utils.validation import check_array

    if sample_weight is None:
        return None
    n = X.shape[0]
    if np.ndim(sample_weight) == 0 and not hasattr(sample_weight, "__array_namespace__"):
        return xp.full((n,), float(sample_weight), dtype=X.dtype, device=device)
    w = check_array(_xp.move(sample_weight, xp, device), ensure_2d=False,
                    dtype=_xp.input_dtypes(xp, device), input_name="sample_weight")
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(f"'sample_weight' must have shape ({n},); got {tuple(w.shape)}.")
    if bool(xp.any(w < 0)):
        raise ValueError(f"'sample_weight' must be non-negative; got min {float(xp.min(w))!r}.")
    return w


def fit(est, X, y, sample_weight, ns, settings, partial):
    """:meth:`ORFFRidge.fit` (``partial=False``) or ``partial_fit`` of arrays of ``ns``."""
    from sklearn.utils.validation import validate_data

    from ._ridge_solve import _alpha_columns

    from ..maps.orff import ORFF

    solver, alpha, _, _, orff = settings
    if not isinstance(orff, ORFF):
        raise TypeError(f"'orff' of type {type(orff).__name__} is NumPy-only; under array API "
                        "dispatch ORFFRidge needs an ORFF map, or pass NumPy arrays.")
    xp, device = ns
    first = not partial or getattr(est, "_stats", None) is None
    X, y = validate_data(est, X, _xp.move(y, xp, device), multi_output=True, y_numeric=True,
                         dtype=_xp.input_dtypes(xp, device), reset=first)
    w = _weights(sample_weight, X, xp, device)
    if w is not None and not bool(xp.any(w != 0)):
        if not first:
            return est  # a batch of zero weights adds nothing: skipped, as scikit-learn does
        raise ValueError("'sample_weight' must contain a non-zero weight; got all zeros.")
    Y = y[:, None] if y.ndim == 1 else y
    if first:
        orff_, y_1d, n_seen = est._new_map(orff, X, Y.shape[1], w), y.ndim == 1, 0
    else:
        orff_, y_1d, n_seen = est.orff_, est._y_1d, est.n_samples_seen_
        if Y.shape[1] != orff_.n_outputs_:
            raise ValueError(f"'y' must have p={orff_.n_outputs_} columns, as in the earlier "
                             f"batches; got {Y.shape[1]}.")
    B = orff_.factors_
    solver = check_solver(solver, B.ndim == 2)
    dtype = orff_.frequencies_.dtype
    Y, w = xp.astype(Y, dtype), None if w is None else xp.astype(w, dtype)
    s2 = 2 * orff_.frequencies_.shape[0]
    stats = statistics(orff_, X, Y, w, est._batch_rows(8 * (s2 + Y.shape[1])), xp)
    if not first:
        stats = merge(est._stats, stats)
    alpha = _alpha_columns(alpha, _xp.to_numpy(B))
    theta, b, n_iter = solve(stats, B, alpha, solver, est.fit_intercept, xp)
    est._set_solution(orff_, theta, b, n_iter, solver, y_1d, n_seen + X.shape[0], stats)
    return est


def predict(est, X, ns):
    """:meth:`ORFFRidge.predict` of an array of ``ns``: in its namespace, device and dtype."""
    from sklearn.utils.validation import validate_data

    xp, device = ns
    X = validate_data(est, X, dtype=_xp.input_dtypes(xp, device), reset=False)
    orff = est.orff_
    p, s2 = orff.n_outputs_, 2 * orff.frequencies_.shape[0]
    rows = est._batch_rows(8 * (s2 + 2 * orff.rank_ + 2 * p))
    parts = []
    for start in range(0, X.shape[0], rows):
        stop = min(start + rows, X.shape[0])
        F = orff.scalar_features(xp.astype(X[start:stop, ...], orff.frequencies_.dtype))
        parts.append(apply_B(F, est.coef_, orff.factors_, xp))
    out = xp.astype(xp.concat(parts, axis=0) + est.intercept_, X.dtype)
    return xp.reshape(out, (-1,)) if est._y_1d else out
