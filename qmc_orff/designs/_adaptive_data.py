"""The data side of the adaptive designs: subsamples, bandwidth and start points.

Everything is at unit bandwidth: ``U = sigma W`` against ``X / sigma``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import as_float_array, as_generator, as_positive, check_int
from ..sequence import Sequence
from ..sources._orthogonal import _orthogonal
from ..sources.frequencies import make_frequencies
from ._coverage import split_cover

__all__ = ["median_heuristic"]

_SOURCES = ("orf", "mc", "halton", "sobol", "lattice")


def median_heuristic(X, *, max_points=1000, seed=0):
    """Median Euclidean distance between distinct rows of ``X`` (on at most ``max_points`` rows).

    Parameters
    ----------
    X : array_like of shape (n, d)
    max_points : int, default=1000
        A seeded random subset of rows beyond this (cost ``O(max_points^2 d)``).
    seed : None, int or Generator, default=0

    Returns
    -------
    float
        Positive; ``ValueError`` when all sampled rows coincide.
    """
    from scipy.spatial.distance import pdist

    X = _check_X(X)
    if X.shape[0] > max_points:
        X = X[np.sort(as_generator(seed).choice(X.shape[0], max_points, replace=False))]
    med = float(np.median(pdist(X)))
    if not (med > 0 and math.isfinite(med)):
        raise ValueError("'sigma'='median' needs distinct rows in 'X': the median distance is "
                         f"{med!r}; give sigma explicitly.")
    return med


def _check_X(X):
    X = as_float_array(X, "X", ndim=2)
    if X.shape[0] < 2:
        raise ValueError(f"'X' must have at least 2 rows (points); got shape {X.shape}.")
    if X.shape[1] < 1:
        raise ValueError(f"'X' must have at least one column; got shape {X.shape}.")
    return X


def _resolve_sigma(sigma, X, d, rng, *, scalar=False):
    if isinstance(sigma, str):
        if sigma != "median":
            raise ValueError(f"'sigma' must be a positive number, an array of shape ({d},) or "
                             f"'median'; got {sigma!r}.")
        return median_heuristic(X, seed=rng)
    sig = as_positive(sigma, "sigma", d=d)
    if scalar and sig.ndim != 0:
        raise ValueError(f"'sigma' must be a positive scalar; got shape {sig.shape}.")
    return float(sig) if sig.ndim == 0 else sig


def check_subsample_sizes(n, n_train, n_validation, arrays):
    """Checked ``(n_train, n_validation)``: the objective on ``min(n_train, n)`` rows holds
    ``arrays`` ``(m, m)`` arrays (:func:`qmc_orff.objectives.data.check_rows`), refused
    here, before any allocation, with a message naming ``'n_train'``."""
    from ..objectives.data import check_rows

    n_train = check_int(n_train, "n_train", minimum=2)
    n_validation = check_int(n_validation, "n_validation", minimum=0)
    check_rows(min(n_train, n), "n_train", arrays)
    return n_train, n_validation


def _split(n, n_train, n_validation, rng):
    """Disjoint training and validation row indices (sorted); cost independent of ``n``."""
    n_train = check_int(n_train, "n_train", minimum=2)
    n_validation = check_int(n_validation, "n_validation", minimum=0)
    if n_validation > 0 and n >= 4:
        n_val = max(2, min(n_validation, n // 5))
    else:
        n_val = 0
    n_tr = min(n_train, n - n_val)
    idx = rng.choice(n, size=n_tr + n_val, replace=False)
    train = np.sort(idx[:n_tr])
    val = np.sort(idx[n_tr:]) if n_val else train
    return train, val, n_val > 0


@dataclass
class _Subsamples:
    """The training objective and the validation one on disjoint subsamples of ``X``."""

    train_obj: Any
    val_obj: Any
    sigma: Any  # float or ndarray of shape (d,)
    n_train: int
    n_validation: int  # 0 where the training points validate
    disjoint: bool
    #: the optimiser's evaluations of the training objective (a float32 twin of
    #: ``train_obj``); None: ``train_obj`` itself
    fast_obj: Any = None
    #: training rows chosen to cover the data (:mod:`._coverage`), not uniformly
    n_cover: int = 0
    #: the optimiser's scores of its iterates on the validation rows (the same twin as
    #: ``fast_obj``, on those rows); None: ``val_obj`` itself
    fast_val: Any = None

    def train(self, U, grad):
        """The normalised training objective (and its gradient when ``grad``), as the
        optimiser sees it (``fast_obj`` where given)."""
        obj = self.train_obj if self.fast_obj is None else self.fast_obj
        if grad:
            return obj.value_and_grad(U, normalize=True)
        return obj(U, normalize=True)

    def val_error(self, U, xi=None):
        """The relative Frobenius Gram error on the validation subsample (float64)."""
        return math.sqrt(max(self.val_obj(U, xi, normalize=True), 0.0))

    def val_score(self, U):
        """:meth:`val_error` in the optimiser's precision (``fast_val`` where given): the
        score of every iterate; the chosen one is re-scored by :meth:`val_error`."""
        obj = self.val_obj if self.fast_val is None else self.fast_val
        return math.sqrt(max(obj(U, None, normalize=True), 0.0))

    def train_error(self, U, xi=None):
        """The relative Frobenius Gram error on the training subsample."""
        return math.sqrt(max(self.train_obj(U, xi, normalize=True), 0.0))


def _subsamples(X, make, sigma, n_train, n_validation, split_rng, sigma_rng, *, scalar=False,
                make_fast=None, coverage=0.0, kernel="gaussian", nu=1.5):
    """Split ``X`` (disjoint training and validation rows), resolve ``sigma`` on the uniform
    training rows, re-draw the fraction ``coverage`` of them to cover ``X`` in the distance of
    ``kernel`` (:func:`._coverage.split_cover`), and build the objectives
    ``make(rows / sigma)`` (unit bandwidth), and the optimiser's
    ``make_fast(training rows / sigma)`` and ``make_fast(validation rows / sigma)`` (the
    iterates' scores) where given."""
    n, d = X.shape
    train_idx, val_idx, disjoint = _split(n, n_train, n_validation, split_rng)
    sig = _resolve_sigma(sigma, X[train_idx], d, sigma_rng, scalar=scalar)
    n_cover = 0
    if coverage > 0:
        train_idx, n_cover = split_cover(X, sig, train_idx, val_idx if disjoint else train_idx,
                                         coverage, kernel=kernel, nu=nu, rng=split_rng)
        if not disjoint:
            val_idx = train_idx
    with np.errstate(over="ignore", invalid="ignore"):
        Xt = X[train_idx] / sig
        Xv = X[val_idx] / sig
        finite = all(np.all(np.isfinite(np.einsum("ij,ij->i", Y, Y))) for Y in (Xt, Xv))
    if not finite:  # the objective's squared distances and phases would overflow
        shown = sig if np.ndim(sig) == 0 else f"min {float(np.min(sig))!r}"
        raise ValueError(f"'sigma' is too small for 'X': |X / sigma|^2 overflows float64; "
                         f"got sigma={shown}.")
    train_obj = make(Xt)
    val_obj = train_obj if not disjoint else make(Xv)
    fast_obj = fast_val = None
    if make_fast is not None:
        fast_obj = make_fast(Xt)
        fast_val = fast_obj if not disjoint else make_fast(Xv)
    return _Subsamples(train_obj, val_obj, sig, int(train_idx.size),
                       int(val_idx.size) if disjoint else 0, disjoint, fast_obj, n_cover,
                       fast_val)


def _orthogonal_unit(kernel, s, d, nu, rng):
    """Orthogonal random features at unit bandwidth for the Gaussian or Matern kernel."""
    U = _orthogonal(s, d, rng)
    if kernel == "matern":  # multivariate t: rows (marginally N(0, I)) over sqrt(chi2(2 nu) / 2 nu)
        g = rng.chisquare(2.0 * nu, size=s)
        U = U / np.sqrt(g / (2.0 * nu))[:, None]
    return U


def _init_points(init, s, d, kernel, nu, rng, density):
    """Unit-bandwidth starting frequencies ``(s, d)`` and a description."""
    if isinstance(init, Sequence):
        if init.s != s or init.d != d:
            raise ValueError(f"'init' sequence has shape ({init.s}, {init.d}); expected ({s}, {d}).")
        if init.meta.get("density") not in (None, density):
            raise ValueError(f"'init' sequence was designed for the density "
                             f"{init.meta.get('density')!r}, not {density!r}.")
        return np.array(init.points), "sequence:" + str(init.meta.get("method"))
    if isinstance(init, str):
        if init not in _SOURCES:
            raise ValueError(f"'init' must be one of {', '.join(map(repr, _SOURCES))}, a Sequence "
                             f"or an array of shape ({s}, {d}); got {init!r}.")
        if init == "orf":
            if kernel not in ("gaussian", "matern", "curl_free", "div_free", "decomposable"):
                raise ValueError(f"'init'='orf' needs a radial spectral density (gaussian, matern); "
                                 f"got kernel={kernel!r}: use init='mc' or 'halton'.")
            return _orthogonal_unit("matern" if kernel == "matern" else "gaussian", s, d, nu,
                                    rng), "orf"
        W, _ = make_frequencies(density, s, d, sigma=1.0, sequence=init, seed=rng, nu=nu)
        return W, init
    try:
        U = as_float_array(init, "init", finite=False)
    except ValueError:
        raise ValueError(f"'init' must be a source name, a Sequence or an array of shape "
                         f"({s}, {d}); got {type(init).__name__}.") from None
    if U.shape != (s, d):
        raise ValueError(f"'init' must have shape ({s}, {d}) (s, d of 'X'); got shape {U.shape}.")
    if not np.all(np.isfinite(U)):
        raise ValueError("'init' must contain only finite values (no NaN or inf).")
    return np.array(U, dtype=np.float64), "array"


def _orf_reference(data, U0, start_val, init_name, kernel, nu, rng):
    """Validation error of a fresh ORF draw of the start's size (None for the Laplacian
    kernel); an ORF start is that draw, and ``start_val`` its validation error."""
    if kernel == "laplacian":
        return None
    if init_name == "orf":
        return start_val
    s, d = U0.shape
    return data.val_error(_orthogonal_unit(kernel, s, d, nu, rng))
