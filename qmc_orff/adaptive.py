"""Data-adaptive frequency designs: minimise the Gram error on the data itself.

:func:`adaptive_sequence` starts from an ORF draw (or any source) and runs
L-BFGS on the data discrepancy (:class:`~qmc_orff.DataDiscrepancy`, the squared
Gram error over all pairs of a training subsample of ``X``); a disjoint
validation subsample scores every iterate and the best validated iterate is
returned (never worse than the start on validation).  :func:`adaptive_operator_sequence`
is the operator-valued analogue (:class:`~qmc_orff.data_discrepancy.OperatorDataDiscrepancy`).

The box discrepancy of Avron et al. (2016) measures the error over the
uniform measure on a box of differences ``x - z``; in high dimension a data
set's differences look nothing like that box, and the box designs lose to
orthogonal random features.  The data discrepancy measures the error where the
data's differences actually lie (Avron et al. close their paper with this open
problem: "incorporating stronger data-dependence in the estimation of adaptive
sequences").

Everything is optimised in unit-bandwidth coordinates, ``U = sigma W`` against
``X / sigma`` (the curvature then does not depend on sigma); the returned
:class:`~qmc_orff.Sequence` holds ``U`` (``seq.frequencies(sigma)`` gives ``W``).
The cost depends on the subsample sizes, not on ``n``: each evaluation is
``O(m s d + m^2 s)`` for ``m`` training points.
"""
from __future__ import annotations

import hashlib
import math
import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import numpy as np
import scipy.optimize

from . import __version__
from ._validation import as_float_array, as_generator, as_positive, check_int, check_positive_real
from .data_discrepancy import KERNELS, OPERATOR_KERNELS, DataDiscrepancy, OperatorDataDiscrepancy
from .sequence import Sequence

if TYPE_CHECKING:  # names used in type hints only
    from typing import Any, Callable

    from numpy.typing import ArrayLike

__all__ = ["adaptive_sequence", "adaptive_operator_sequence", "median_heuristic", "data_sha256"]

_SOURCES = ("orf", "mc", "halton", "sobol", "lattice")
#: default training subsample (all pairs) and validation subsample sizes
N_TRAIN = 1000
N_VALIDATION = 500


# --------------------------------------------------------------------------- helpers
def data_sha256(X):
    """SHA-256 (hex) of ``X`` as little-endian float64 in C order, prefixed by its shape."""
    X = np.ascontiguousarray(X, dtype="<f8")
    h = hashlib.sha256(f"{X.shape}".encode())
    h.update(X.tobytes())
    return h.hexdigest()


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


def _orthogonal_unit(kernel, s, d, nu, rng):
    """Orthogonal random features at unit bandwidth for the Gaussian or Matern kernel."""
    from .frequencies import _orthogonal

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
        from .frequencies import make_frequencies

        W, _ = make_frequencies(density, s, d, sigma=1.0, sequence=init, seed=rng, nu=nu)
        return W, init
    try:
        U = np.asarray(init, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"'init' must be a source name, a Sequence or an array of shape "
                         f"({s}, {d}); got {type(init).__name__}.") from None
    if U.shape != (s, d):
        raise ValueError(f"'init' must have shape ({s}, {d}) (s, d of 'X'); got shape {U.shape}.")
    if not np.all(np.isfinite(U)):
        raise ValueError("'init' must contain only finite values (no NaN or inf).")
    return np.array(U, dtype=np.float64), "array"


class _Progress:
    """Progress on stderr (a bar on a terminal, plain lines in a log; :class:`design._Progress`):
    iteration, training and validation Gram error, best over the start's."""

    def __init__(self, total, start_error, stream=None):
        from .design import _Progress as Bar

        self.start_error = start_error
        self.bar = Bar(total, None, stream=stream, width=20)

    def update(self, it, train, val, best):
        ratio = best / self.start_error if self.start_error > 0 else float("nan")
        self.bar.show(it, f"train {train:.4g} validation {val:.4g} best/start {ratio:.3f}")

    def close(self):
        self.bar.close()


def _optimise_with_progress(train, val_error, U0, *, progress, maxiter, **kwargs):
    """:func:`_optimise`, with a progress bar on stderr when ``progress``."""
    bar = _Progress(maxiter, val_error(U0)) if progress else None
    try:
        return _optimise(train, val_error, U0, maxiter=maxiter, bar=bar, **kwargs)
    finally:
        if bar is not None:
            bar.close()


def _is_interrupt(exc):
    from .design import _is_interrupt as check

    return check(exc)


# --------------------------------------------------------------------------- the optimiser
def _optimise(train, val_error, U0, *, maxiter, patience, callback, bar, checkpoint,
              checkpoint_every, make_sequence, tol):
    """L-BFGS-B on the normalised training objective, scoring iterates on validation.

    Returns a dict with the best validated iterate and the bookkeeping.
    """
    s, d = U0.shape
    start_val = val_error(U0)
    f0 = train(U0, grad=False)
    scale = 1.0 / f0 if f0 > 0 else 1.0
    state = {"best_val": start_val, "best_U": U0.copy(), "best_it": 0, "it": 0,
             "train_history": [math.sqrt(f0)], "val_history": [start_val], "reason": None,
             "last_x": None, "last_f": None}

    def fun(x):
        f, g = train(x.reshape(s, d), grad=True)
        state["last_x"], state["last_f"] = x, f
        return f * scale, g.ravel() * scale

    def cb(intermediate_result):
        x = intermediate_result.x if hasattr(intermediate_result, "x") else intermediate_result
        fk = getattr(intermediate_result, "fun", None)
        f = fk / scale if fk is not None else train(x.reshape(s, d), grad=False)
        U = x.reshape(s, d)
        state["it"] += 1
        it = state["it"]
        v = val_error(U)
        tr = math.sqrt(max(f, 0.0))
        state["train_history"].append(tr)
        state["val_history"].append(v)
        if v < state["best_val"]:
            state["best_val"], state["best_U"], state["best_it"] = v, U.copy(), it
        if bar is not None:
            bar.update(it, tr, v, state["best_val"])
        if checkpoint is not None and checkpoint_every and it % checkpoint_every == 0:
            checkpoint(make_sequence(state, "checkpoint"))
        if callback is not None and callback(it, U.copy(), tr, v):
            state["reason"] = "callback requested stop"
            raise StopIteration
        if patience is not None and it - state["best_it"] >= patience:
            state["reason"] = f"validation error not improved for {patience} iterations"
            raise StopIteration

    if maxiter == 0:
        state["reason"] = "maxiter = 0"
        return state
    try:
        res = scipy.optimize.minimize(fun, U0.ravel().copy(), jac=True, method="L-BFGS-B",
                                      callback=cb, options={"maxiter": maxiter, "gtol": tol,
                                                            "ftol": tol, "maxcor": 20})
        if state["reason"] is None:
            if state["it"] >= maxiter:
                state["reason"] = f"maxiter ({maxiter}) reached"
            else:
                state["reason"] = f"converged: {res.message}"
    except (KeyboardInterrupt, SystemError) as exc:
        if not _is_interrupt(exc):
            raise
        state["reason"] = "interrupted"
    return state


# --------------------------------------------------------------------------- scalar
def adaptive_sequence(X: ArrayLike, s: int, *, kernel: str = "gaussian",
                      sigma: float | ArrayLike | str, nu: float = 1.5,
                      init: str | Sequence | ArrayLike = "orf", weights: bool = False,
                      n_train: int = N_TRAIN, n_validation: int = N_VALIDATION,
                      maxiter: int = 300, patience: int | None = 30, tol: float = 1e-12,
                      seed: Any = None, callback: Callable | None = None, progress: bool = False,
                      checkpoint: Callable | None = None,
                      checkpoint_every: int | None = None) -> Sequence:
    """Frequencies designed on data: minimise the Gram error on a training subsample of ``X``.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Data (finite, at least 2 rows).  Only ``n_train + n_validation`` rows
        are used: the cost does not grow with ``n``.
    s : int
        Number of frequencies (the feature map has ``2 s`` columns).
    kernel : {"gaussian", "laplacian", "matern"}, default="gaussian"
    sigma : float, array_like of shape (d,) or "median"
        Bandwidth (Matern length scale); ``"median"``: the median distance
        between rows (on at most 1000 rows of ``X``, Jaakkola's heuristic).
    nu : float, default=1.5
        Matern smoothness.
    init : {"orf", "mc", "halton", "sobol", "lattice"}, Sequence or array_like of shape (s, d), default="orf"
        Start: orthogonal random features (Gaussian and Matern only), i.i.d.
        draws, a QMC source (as :func:`qmc_orff.make_frequencies`, seeded), a
        :class:`~qmc_orff.Sequence` (e.g. a checkpoint, to resume) or
        unit-bandwidth frequencies (like ``Sequence.points``).
    weights : bool, default=False
        After the frequencies, fit nonnegative weights by the QP of the data
        discrepancy (:func:`qmc_orff.optimal_weights`, the weighted designs'
        solver) on the training subsample; kept only if they lower the
        validation error.
    n_train : int, default=1000
        Training subsample size: the objective sums over all its pairs.
    n_validation : int, default=500
        Disjoint validation subsample size (at most ``n // 5``: training data
        matter more, measured on digits; with ``n < 4`` the training points
        validate).
    maxiter : int, default=300
        L-BFGS iteration cap.
    patience : int or None, default=30
        Stop when the validation error has not improved for this many
        iterations (None: run to ``maxiter`` or convergence).
    tol : float, default=1e-12
        ``gtol`` and ``ftol`` of L-BFGS-B on the training objective normalised
        to 1 at the start.
    seed : None, int or Generator, default=None
        Randomness of the subsamples, of the start and of the ORF reference.
        The same seed and inputs give bit-identical sequences.
    callback : callable or None, default=None
        ``callback(iteration, U, train_error, validation_error)`` after each
        iteration (``U`` unit-bandwidth frequencies); returning True stops.
    progress : bool, default=False
        A progress line on stderr (training and validation error, ratio of the
        best validation error to the start's).
    checkpoint : callable or None, default=None
        ``checkpoint(sequence)`` receives the best validated iterate so far
        every ``checkpoint_every`` iterations.
    checkpoint_every : int or None, default=None

    Returns
    -------
    Sequence
        Unit-bandwidth frequencies ``U`` (``seq.frequencies(sigma)`` gives the
        map's), weights when ``weights=True`` and they helped.  ``meta``:
        ``method="adaptive"``, ``density`` (the kernel), ``kernel``, ``sigma``,
        ``nu``, ``n``, ``n_train``, ``n_validation``, ``data_sha256`` (of all of
        ``X``), ``start_validation_error``, ``validation_error`` (the result's),
        ``orf_validation_error`` (a fresh ORF draw of the same size; None for
        the Laplacian kernel), ``train_error``, ``start_train_error``,
        ``iterations``, ``best_iteration``, ``stop_reason``, ``seconds``,
        ``validation_history``, ``train_history``.  Errors are relative
        Frobenius Gram errors ``||K - Z Z^T||_F / ||K||_F`` on the subsample.
        A Ctrl-C (``KeyboardInterrupt``) stops the optimisation and returns the
        best validated iterate (``stop_reason="interrupted"``).

    Notes
    -----
    The objective is the data discrepancy ``||K - Z Z^T||_F^2 / m^2`` on all
    pairs of the training subsample (:class:`~qmc_orff.DataDiscrepancy`), a
    training loss: the validation subsample, never trained on, decides which
    iterate is returned (early stopping), so the result is never worse than
    its start there.

    Examples
    --------
    >>> import numpy as np
    >>> from qmc_orff import adaptive_sequence
    >>> X = np.random.default_rng(0).normal(size=(300, 5))
    >>> seq = adaptive_sequence(X, 16, sigma=2.0, maxiter=20, seed=0)
    >>> seq.meta["validation_error"] <= seq.meta["start_validation_error"]
    True
    """
    t_start = time.perf_counter()
    if not isinstance(kernel, str) or kernel not in KERNELS:
        raise ValueError(f"'kernel' must be one of {', '.join(map(repr, KERNELS))}; got {kernel!r}.")
    X = _check_X(X)
    n, d = X.shape
    s = check_int(s, "s", minimum=1)
    if kernel == "matern":
        nu = check_positive_real(nu, "nu")
    maxiter = check_int(maxiter, "maxiter", minimum=0)
    if patience is not None:
        patience = check_int(patience, "patience", minimum=1)
    tol = check_positive_real(tol, "tol")
    if not isinstance(weights, (bool, np.bool_)):
        raise TypeError(f"'weights' must be a bool; got {type(weights).__name__}.")
    for name, fn in (("callback", callback), ("checkpoint", checkpoint)):
        if fn is not None and not callable(fn):
            raise TypeError(f"'{name}' must be callable or None; got {type(fn).__name__}.")
    every = None if checkpoint_every is None else check_int(checkpoint_every, "checkpoint_every",
                                                            minimum=1)
    rng = as_generator(seed)
    split_rng, init_rng, orf_rng, sigma_rng = rng.spawn(4)
    train_idx, val_idx, disjoint = _split(n, n_train, n_validation, split_rng)
    sig = _resolve_sigma(sigma, X[train_idx], d, sigma_rng)
    Xt = X[train_idx] / sig
    Xv = X[val_idx] / sig
    train_obj = DataDiscrepancy(Xt, kernel=kernel, sigma=1.0, nu=nu)
    val_obj = train_obj if not disjoint else DataDiscrepancy(Xv, kernel=kernel, sigma=1.0, nu=nu)
    U0, init_name = _init_points(init, s, d, kernel, nu, init_rng, kernel)

    def train(U, grad):
        if grad:
            return train_obj.value_and_grad(U, normalize=True)
        return train_obj(U, normalize=True)

    def val_error(U, xi=None):
        return math.sqrt(max(val_obj(U, xi, normalize=True), 0.0))

    if kernel == "laplacian":
        orf_val = None
    elif init_name == "orf":
        orf_val = val_error(U0)
    else:
        orf_val = val_error(_orthogonal_unit(kernel, s, d, nu, orf_rng))

    meta = {
        "method": "adaptive",
        "density": kernel,
        "kernel": kernel,
        "sigma": sig if np.ndim(sig) == 0 else [float(x) for x in sig],
        "sigma_rule": sigma if isinstance(sigma, str) else "given",
        "nu": float(nu) if kernel == "matern" else None,
        "init": init_name,
        "n": int(n),
        "n_train": int(train_idx.size),
        "n_validation": int(val_idx.size) if disjoint else 0,
        "validation_on_training_points": not disjoint,
        "data_sha256": data_sha256(X),
        "optimizer": "l-bfgs-b",
        "maxiter": maxiter,
        "patience": patience,
        "tol": tol,
        "library_version": __version__,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }

    def make_sequence(state, reason, xi=None):
        m = dict(meta)
        m.update({
            "start_validation_error": state["val_history"][0],
            "validation_error": state["best_val"],
            "orf_validation_error": orf_val,
            # issue 10: the number a user reads points at ORF (below 1: better than ORF)
            "ratio_to_orf": state["best_val"] / orf_val if orf_val else None,
            "start_train_error": state["train_history"][0],
            "iterations": state["it"],
            "best_iteration": state["best_it"],
            "stop_reason": reason,
            "seconds": time.perf_counter() - t_start,
        })
        return Sequence(state["best_U"], xi, m)

    state = _optimise_with_progress(train, val_error, U0, progress=progress, maxiter=maxiter,
                                    patience=patience, callback=callback, checkpoint=checkpoint,
                                    checkpoint_every=every, make_sequence=make_sequence, tol=tol)
    U = state["best_U"]
    xi = None
    meta["weights_status"] = "not requested"
    if weights:
        from .weights import optimal_weights

        res = optimal_weights(train_obj, U, solver="nnls", normalize=True)
        v = val_error(U, res.weights)
        if v < state["best_val"] and np.sum(res.weights) > 0:
            xi = res.weights
            state["best_val"] = v
            meta["weights_status"] = "fitted"
        else:
            meta["weights_status"] = "rejected: no lower validation error than uniform weights"
        meta["weights_sum"] = float(np.sum(res.weights))
    meta["train_error"] = math.sqrt(max(train_obj(U, xi, normalize=True), 0.0))
    meta["train_history"] = state["train_history"]
    meta["validation_history"] = state["val_history"]
    return make_sequence(state, state["reason"], xi)


# --------------------------------------------------------------------------- operator-valued
def adaptive_operator_sequence(X: ArrayLike, s: int, *, kernel: str = "curl_free",
                               sigma: float | str, A: ArrayLike | None = None,
                               measure: str = "spectral", init: str | ArrayLike = "orf",
                               n_train: int = 400, n_validation: int = 200, maxiter: int = 300,
                               patience: int | None = 30, tol: float = 1e-12, seed: Any = None,
                               callback: Callable | None = None,
                               progress: bool = False) -> Sequence:
    """Frequencies for an operator-valued map designed on data (block Gram error).

    The operator-valued analogue of :func:`adaptive_sequence`: L-BFGS on
    :class:`~qmc_orff.data_discrepancy.OperatorDataDiscrepancy`, the squared
    Frobenius error of the ``(m p) x (m p)`` block Gram matrix over all pairs
    of a training subsample, with the best iterate on a disjoint validation
    subsample returned.

    Parameters
    ----------
    X : array_like of shape (n, d)
    s : int
    kernel : {"decomposable", "curl_free", "div_free"}, default="curl_free"
    sigma : float or "median"
        Bandwidth of the scalar Gaussian ``k_0``.
    A : array_like of shape (p, p) or None, default=None
        Decomposable kernel's output matrix (identity of size ``d`` when None).
    measure : {"spectral", "trace"}, default="spectral"
        The ``A~(w)`` of the map (as :class:`qmc_orff.ORFF`).  The design
        optimises the frequencies freely, so the result is no longer a sample
        of that measure: only the matrix function ``A~`` is kept.
    init : {"orf", "mc", "halton", "sobol", "lattice"}, Sequence or array_like, default="orf"
        Unit-bandwidth start (Gaussian spectral measure; for ``measure="trace"``
        with a named source, the trace measure's radial law ``chi(d + 2)``).
    n_train, n_validation : int, default=400, 200
        Subsample sizes (each evaluation costs ``O(p^2 m^2 s)``).
    maxiter, patience, tol, seed, callback, progress
        As :func:`adaptive_sequence`.

    Returns
    -------
    Sequence
        Unit-bandwidth frequencies; ``meta`` as :func:`adaptive_sequence`
        (errors are relative Frobenius errors of the block Gram matrix) plus
        ``measure`` and ``operator_kernel``.
    """
    t_start = time.perf_counter()
    if not isinstance(kernel, str) or kernel not in OPERATOR_KERNELS:
        raise ValueError(f"'kernel' must be one of {', '.join(map(repr, OPERATOR_KERNELS))}; "
                         f"got {kernel!r}.")
    X = _check_X(X)
    n, d = X.shape
    s = check_int(s, "s", minimum=1)
    maxiter = check_int(maxiter, "maxiter", minimum=0)
    if patience is not None:
        patience = check_int(patience, "patience", minimum=1)
    tol = check_positive_real(tol, "tol")
    if callback is not None and not callable(callback):
        raise TypeError(f"'callback' must be callable or None; got {type(callback).__name__}.")
    rng = as_generator(seed)
    split_rng, init_rng, orf_rng, sigma_rng = rng.spawn(4)
    train_idx, val_idx, disjoint = _split(n, n_train, n_validation, split_rng)
    sig = _resolve_sigma(sigma, X[train_idx], d, sigma_rng, scalar=True)
    # unit bandwidth: X / sigma, U = sigma W; A~ scales by sigma^-2 (spectral and trace alike),
    # a constant factor that the normalised objective does not see
    kw = dict(kernel=kernel, sigma=1.0, A=A, measure=measure)
    train_obj = OperatorDataDiscrepancy(X[train_idx] / sig, **kw)
    val_obj = train_obj if not disjoint else OperatorDataDiscrepancy(X[val_idx] / sig, **kw)
    if measure == "trace" and kernel != "decomposable" and isinstance(init, str):
        # the trace measure's law: radius sigma |w| ~ chi(d + 2), uniform direction
        if init == "orf":
            U0 = _orthogonal_unit("gaussian", s, d, 1.5, init_rng)
            U0 *= (np.sqrt(init_rng.chisquare(d + 2, size=s)) / np.linalg.norm(U0, axis=1))[:, None]
        else:
            from .frequencies import make_frequencies

            U0, _ = make_frequencies("gaussian", s, d, sigma=1.0, sequence=init, seed=init_rng,
                                     measure="radial")
        init_name = init
    else:
        U0, init_name = _init_points(init, s, d, kernel, 1.5, init_rng, "gaussian")

    def train(U, grad):
        if grad:
            return train_obj.value_and_grad(U, normalize=True)
        return train_obj(U, normalize=True)

    def val_error(U):
        return math.sqrt(max(val_obj(U, normalize=True), 0.0))

    orf_val = val_error(U0) if init_name == "orf" else val_error(
        _orthogonal_unit("gaussian", s, d, 1.5, orf_rng))
    state = _optimise_with_progress(train, val_error, U0, progress=progress, maxiter=maxiter,
                                    patience=patience, callback=callback, checkpoint=None,
                                    checkpoint_every=None, make_sequence=None, tol=tol)
    meta = {
        "method": "adaptive",
        "density": "gaussian",
        "operator_kernel": kernel,
        "measure": measure,
        "sigma": float(sig),
        "sigma_rule": sigma if isinstance(sigma, str) else "given",
        "init": init_name,
        "n": int(n),
        "n_train": int(train_idx.size),
        "n_validation": int(val_idx.size) if disjoint else 0,
        "validation_on_training_points": not disjoint,
        "data_sha256": data_sha256(X),
        "start_validation_error": state["val_history"][0],
        "validation_error": state["best_val"],
        "orf_validation_error": orf_val,
        # issue 10: the number a user reads points at ORF (below 1: better than ORF)
        "ratio_to_orf": state["best_val"] / orf_val if orf_val else None,
        "start_train_error": state["train_history"][0],
        "train_error": math.sqrt(max(train_obj(state["best_U"], normalize=True), 0.0)),
        "iterations": state["it"],
        "best_iteration": state["best_it"],
        "stop_reason": state["reason"],
        "train_history": state["train_history"],
        "validation_history": state["val_history"],
        "optimizer": "l-bfgs-b",
        "maxiter": maxiter,
        "patience": patience,
        "library_version": __version__,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seconds": time.perf_counter() - t_start,
    }
    return Sequence(state["best_U"], None, meta)
