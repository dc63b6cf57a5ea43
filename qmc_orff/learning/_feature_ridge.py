"""The generic path of :class:`qmc_orff.ORFFRidge`: any fitted operator-valued feature map with
``transform`` giving ``Phi(x)`` of shape ``(D, p)`` (``flatten=False``) and ``n_outputs_``, such as
:class:`qmc_orff.OperatorNystroem`; :class:`qmc_orff.ORFF` keeps its own, faster path.

Minimises ``sum_i w_i |Phi(x_i)^T theta + b - y_i|^2 + alpha |theta|^2`` from the statistics
``(sw, n, mP, mY, H, c)``: total weight, row count, the weighted means ``mP`` (D, p) of the
features and ``mY`` (p,) of the targets, ``H = sum_i w_i (Phi_i - mP)(Phi_i - mP)^T`` (D, D)
and ``c = sum_i w_i (Phi_i - mP)(y_i - mY)`` (D,).  Batches merge as in Chan, Golub and LeVeque
(1979), with the outer products of the ``(D, p)`` mean differences summed over the outputs.
"""
from __future__ import annotations

import numpy as np
from scipy.sparse.linalg import LinearOperator, cg

from ..maps.operator_nystroem import OperatorNystroem
from ._ridge_solve import _direct_solve
from ._ridge_xp import merge

#: Solvers of the generic path (``"auto"`` is ``"direct"``).
FEATURE_SOLVERS = ("auto", "direct", "cg")


def is_generic(fmap, orff_type):
    """Whether ``fmap`` goes through this path (anything but an :class:`ORFF`)."""
    return not isinstance(fmap, orff_type)


def choose_solver(solver, fmap, alpha):
    """``"direct"`` or ``"cg"``; refuse what needs ORFF's structure."""
    name = type(fmap).__name__
    if solver not in FEATURE_SOLVERS:
        raise ValueError(f"'solver'={solver!r} needs an ORFF feature map (its frequencies and "
                         f"factors B(w)); {name} supports 'auto', 'direct' and 'cg'.")
    if np.ndim(alpha) != 0:
        raise ValueError(f"'alpha' per target needs ORFF with kernel='decomposable' and a "
                         f"diagonal A; {name} shares theta between the outputs. Pass a scalar "
                         "'alpha'.")
    return "direct" if solver == "auto" else solver


def prefitted(fmap, d):
    """Whether ``fmap`` is a fitted generic map (used as it is); its input width must be ``d``."""
    if isinstance(fmap, OperatorNystroem) and hasattr(fmap, "n_components_"):
        if fmap.n_features_in_ != d:
            raise ValueError(f"'X' must have {fmap.n_features_in_} columns, as the rows the "
                             f"fitted feature map 'orff' was fitted on; got {d}.")
        return True
    return False


def copy_map(fmap):
    """A copy of a fitted map (the estimator's own map is never the caller's object)."""
    import copy

    return copy.deepcopy(fmap)


def width(fmap):
    """Floats per row of ``Phi(x)``: ``D p``."""
    return int(fmap.n_components_) * int(fmap.n_outputs_)


def _features(fmap, X):
    """``Phi(X)`` of shape (n, D, p), float64, whatever the map's ``flatten``."""
    P = np.asarray(fmap.transform(X), dtype=np.float64)
    return P.reshape(X.shape[0], -1, fmap.n_outputs_)


def _batch(P, Y, w):
    """Statistics of one batch of features ``P`` (n, D, p) and targets ``Y`` (n, p)."""
    n, D, p = P.shape
    sw = float(n) if w is None else float(np.sum(w))
    if sw <= 0.0:
        return (0.0, n, np.zeros((D, p)), np.zeros(p), np.zeros((D, D)), np.zeros(D))
    wt = np.ones(n) if w is None else w
    mP = np.tensordot(wt, P, axes=1) / sw
    mY = (wt @ Y) / sw
    Pc = (P - mP) * np.sqrt(wt)[:, None, None]
    Yc = (Y - mY) * np.sqrt(wt)[:, None]
    S = Pc.transpose(1, 0, 2).reshape(D, n * p)   # column i p + a: Phi_i[:, a], centred
    return sw, n, mP, mY, S @ S.T, S @ Yc.reshape(n * p)


def statistics(fmap, X, Y, w, rows):
    """Statistics of validated ``X`` (n, d), ``Y`` (n, p), ``w`` (n,) or None, by ``rows``."""
    stats = None
    for start in range(0, X.shape[0], rows):
        stop = min(start + rows, X.shape[0])
        part = _batch(_features(fmap, X[start:stop]), Y[start:stop],
                      None if w is None else w[start:stop])
        stats = part if stats is None else merge(stats, part)
    return stats


def solve(stats, alpha, solver, tol, max_iter, fit_intercept):
    """``(theta, b, n_iter)`` from the statistics: ``(H + alpha I) theta = c``."""
    sw, _, mP, mY, H, c = stats
    if sw <= 0.0:
        raise ValueError("'sample_weight' must have a positive sum; got all zeros.")
    if not fit_intercept:  # uncentred moments
        H = H + sw * (mP @ mP.T)
        c = c + sw * (mP @ mY)
    n_iter = 1
    if solver == "direct":
        theta = _direct_solve(H, c, alpha)
    else:
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        size = c.shape[0]
        diag = np.diag(H) + alpha
        diag = np.where(diag > 0, diag, 1.0)
        count = [0]
        maxiter = 10 * size if max_iter is None else max_iter
        normal = LinearOperator((size, size), dtype=np.float64, matvec=lambda t: H @ t + alpha * t)
        jacobi = LinearOperator((size, size), dtype=np.float64, matvec=lambda t: t / diag)
        theta, info = cg(normal, c, rtol=tol, atol=0.0, maxiter=maxiter, M=jacobi,
                         callback=lambda _: count.__setitem__(0, count[0] + 1))
        if info > 0:
            warnings.warn(f"conjugate gradient did not reach tol={tol!r} in {maxiter} "
                          "iterations; increase 'max_iter' or 'alpha'.", ConvergenceWarning,
                          stacklevel=4)
        n_iter = max(count[0], 1)
    intercept = mY - mP.T @ theta if fit_intercept else np.zeros(mY.shape[0])
    return theta, intercept, n_iter


def predict(fmap, X, coef, rows):
    """``Phi(x_i)^T theta`` of shape (m, p), in batches of ``rows``."""
    out = np.empty((X.shape[0], fmap.n_outputs_))
    for start in range(0, X.shape[0], rows):
        stop = min(start + rows, X.shape[0])
        out[start:stop] = np.einsum("nkp,k->np", _features(fmap, X[start:stop]), coef)
    return out


def fit_rows(fmap, n):
    """How many rows of a Dask ``X`` the map is fitted on (its landmarks come from them)."""
    return min(n, max(2048, 4 * int(getattr(fmap, "n_components", 1))))
