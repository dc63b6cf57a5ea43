"""The one driver of the adaptive designs; :mod:`.adaptive` holds its two public faces.

:func:`run_adaptive` owns the pipeline that the scalar and the operator-valued
designs share: the checks, the generators, the training and validation
subsamples, the start, the ORF reference, L-BFGS with the validation stop,
the optional weights and the ``meta``.  A face supplies only what differs, as an
:class:`AdaptiveFace` (the objective factory and the start are its two hooks),
in the way SciPy's ``QMCEngine.random`` owns the bookkeeping around each
engine's ``_random``.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

import numpy as np

from .._version import __version__
from .._validation import (as_generator, check_fraction, check_int, check_positive_real,
                           check_size)
from ..objectives.data import data_sha256
from ..sequence import Sequence
from ..threads import _blas_limited
from ._adaptive_data import _orf_reference, _subsamples, check_subsample_sizes
from . import _early_stopping
from ._early_stopping import _optimise_with_progress
from ._optimizer import _check_checkpoint, _check_resume, is_interrupt

__all__ = ["AdaptiveFace", "run_adaptive"]


@dataclass
class AdaptiveFace:
    """What a public face of :func:`run_adaptive` supplies: its objective, start and ``meta``.

    Attributes
    ----------
    make : callable
        ``make(X_unit)``: the float64 objective on unit-bandwidth rows (training
        and validation; hook one).
    start : callable
        ``start(init, s, d, rng)``: the unit-bandwidth start ``(s, d)`` and its
        description (hook two).
    gram_arrays : int
        ``(m, m)`` arrays the objective holds (the ``n_train`` size check).
    extra_per_frequency : callable
        ``extra_per_frequency(m)``: entries per frequency beyond the scalar
        design's, for ``m`` training rows (the ``s`` size check).
    maxcor : callable
        ``maxcor(s, d, n_train)``: L-BFGS's correction pairs.
    meta : dict
        The face's own ``meta`` entries, placed first.
    make_fast : callable or None
        The optimiser's (cheaper) twin of ``make`` on the training rows; None:
        the objective itself.
    train_dtype : str
        What ``make_fast`` evaluates in (``meta["train_dtype"]``).
    scalar_sigma : bool
        Refuse a per-coordinate ``sigma``.
    reference_kernel, nu : str, float
        The kernel of the ORF reference draw and of the covering rows' distance.
    check_s : callable or None
        ``check_s(s)``: a further check of ``s`` (after the size check).
    blas_threads : int or None
        BLAS threads during the design (None: no limit).
    """

    make: Callable
    start: Callable
    gram_arrays: int
    extra_per_frequency: Callable
    maxcor: Callable
    meta: dict = field(default_factory=dict)
    make_fast: Callable | None = None
    train_dtype: str = "float64"
    scalar_sigma: bool = False
    reference_kernel: str = "gaussian"
    nu: float = 1.5
    check_s: Callable | None = None
    blas_threads: int | None = 1


def check_s(s, d, m, extra=0):
    """``s`` checked before any allocation against what the design holds at once: about
    four ``(m, 2 s)`` arrays for the ``m`` training rows (features, their weighted copy,
    ``E @ [C, S]``, the gradient terms), L-BFGS's ``2 * maxcor + 4 <= 44`` vectors of
    ``s d`` entries, and ``extra`` entries per frequency (the operator objective's ``(m, s)``
    products)."""
    return check_size(s, "s", minimum=1, width=8 * m + 44 * d + extra)


def _check_run(maxiter, patience, tol):
    """Checked ``(maxiter, patience, tol)`` of the optimiser."""
    maxiter = check_int(maxiter, "maxiter", minimum=0)
    if patience is not None:
        patience = check_int(patience, "patience", minimum=1)
    tol = check_positive_real(tol, "tol")
    return maxiter, patience, tol


def _stamp():
    """The library version and the time, for ``meta``."""
    return {"library_version": __version__,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def _data_meta(X, data, sigma, init_name):
    """The ``meta`` entries of the data, its subsamples and the start."""
    return {
        "sigma_rule": sigma if isinstance(sigma, str) else "given",
        "init": init_name,
        "n": int(X.shape[0]),
        "n_train": data.n_train,
        "n_validation": data.n_validation,
        "validation_on_training_points": not data.disjoint,
        "data_sha256": data_sha256(X),
    }


def _outcome(state, orf_val, start_val, best_val):
    """The ``meta`` entries of the optimisation's outcome (float64 errors)."""
    return {
        "start_validation_error": start_val,
        "validation_error": best_val,
        "orf_validation_error": orf_val,
        # below 1: better than ORF, the number a reader compares with
        "ratio_to_orf": best_val / orf_val if orf_val else None,
        "start_train_error": state["train_history"][0],
    }


def _rescore(state, data, U0, start_val):
    """The chosen iterate's validation error in float64 (``state["best_val"]``): the
    optimiser picked it by its (float32) scores.  Should the float64 errors rank it above
    the start (scores within rounding of each other), the start is kept: the result is
    never worse than its start on validation, in float64 too."""
    best = data.val_error(state["best_U"]) if state["best_it"] else start_val
    if best > start_val:
        state["best_U"], state["best_it"], best = U0.copy(), 0, start_val
    state["best_val"], state["rescored"] = best, True


def run_adaptive(face: AdaptiveFace, X: Any, s: int, n_train: int, *, sigma, init, weights,
                 n_validation, maxiter, patience, min_iterations, coverage, tol, seed,
                 callback, progress, checkpoint, checkpoint_every, resume=None) -> Sequence:
    """The adaptive design of ``face`` on ``X``: ``s`` frequencies (a checked ``X``
    of shape (n, d); ``n_train`` already resolved from ``"auto"``).  The options are
    :func:`~qmc_orff.adaptive_sequence`'s."""
    t_start = time.perf_counter()
    d = X.shape[1]
    n_train, n_validation = check_subsample_sizes(X.shape[0], n_train, n_validation,
                                                  face.gram_arrays)
    m_train = min(n_train, X.shape[0])
    s = check_s(s, d, m_train, face.extra_per_frequency(m_train))
    if face.check_s is not None:
        face.check_s(s)
    maxiter, patience, tol = _check_run(maxiter, patience, tol)
    min_iterations = check_int(min_iterations, "min_iterations", minimum=0)
    coverage = check_fraction(coverage, "coverage")
    if not isinstance(weights, (bool, np.bool_)):
        raise TypeError(f"'weights' must be a bool; got {type(weights).__name__}.")
    every = _check_checkpoint(checkpoint, checkpoint_every, callback=callback)
    done, origin = 0, None
    if resume is not None:
        done, origin = _resumed(resume, X, s, d)
        init = resume
    split_rng, init_rng, orf_rng, sigma_rng = as_generator(seed).spawn(4)
    with _blas_limited(face.blas_threads):  # bit-identical whatever the BLAS thread count
        data = _subsamples(X, face.make, sigma, n_train, n_validation, split_rng, sigma_rng,
                           scalar=face.scalar_sigma, make_fast=face.make_fast, coverage=coverage,
                           kernel=face.reference_kernel, nu=face.nu)
        if origin is not None:
            _check_same_subsamples(origin, data, coverage)
        U0, init_name = face.start(init, s, d, init_rng)
        start_val = data.val_error(U0)  # float64: the floor of the result (``_rescore``)
        if origin is not None and origin.get("orf_validation_error") is not None:
            orf_val = origin["orf_validation_error"]  # the reference of the run it continues
        else:
            orf_val = _orf_reference(data, U0, start_val, init_name, face.reference_kernel,
                                     face.nu, orf_rng)
        sig = data.sigma
        meta = {
            **face.meta,
            "sigma": float(sig) if np.ndim(sig) == 0 else [float(x) for x in sig],
            **_data_meta(X, data, sigma, init_name),
            "optimizer": _early_stopping.OPTIMIZER,
            "maxiter": maxiter,
            "maxcor": face.maxcor(s, d, data.n_train),
            "train_dtype": face.train_dtype,
            "patience": patience,
            "min_iterations": min_iterations,
            "coverage": coverage,
            "n_cover": data.n_cover,
            "tol": tol,
            **_stamp(),
        }
        if origin is not None:
            meta["init"] = origin.get("init", init_name)
            meta["resumed_iterations"] = done

        def make_sequence(state, reason, xi=None):
            m = dict(meta)
            best = state["best_val"] if state.get("rescored") else data.val_error(state["best_U"])
            m.update(_outcome(state, orf_val, start_val, best))
            m.update({
                "iterations": done + state["it"],
                "best_iteration": done + state["best_it"],
                "stop_reason": reason,
                "seconds": time.perf_counter() - t_start,
            })
            m["train_history"] = list(state["train_history"])  # checkpoints: so far
            m["validation_history"] = list(state["val_history"])
            if origin is not None:
                _continue_run(m, origin, done)
            if state.get("checkpoint_error"):  # the last failure of the 'checkpoint' callable
                m["checkpoint_error"] = state["checkpoint_error"]
            return Sequence(state["best_U"], xi, m)

        start = None if origin is None else origin.get("start_validation_error")
        state = _optimise_with_progress(
            data.train, data.val_score, U0, progress=progress, maxiter=max(maxiter - done, 0),
            total=maxiter, reference=orf_val or start or start_val,
            label="ORF start" if orf_val else "start",
            offset=done, patience=patience, callback=callback, checkpoint=checkpoint,
            checkpoint_every=every, make_sequence=make_sequence, tol=tol, maxcor=meta["maxcor"],
            min_iterations=max(min_iterations - done, 0))
        reason = state["reason"]
        if done and reason.startswith("maxiter"):  # the cap of the whole run
            reason = f"maxiter ({maxiter}) reached"
        try:
            _rescore(state, data, U0, start_val)
            xi = _fitted_weights(data, state, meta) if weights else None
            meta["train_error"] = data.train_error(state["best_U"], xi)
        except (KeyboardInterrupt, SystemError) as exc:  # keep the best validated iterate
            if not is_interrupt(exc):
                raise
            xi, reason = None, "interrupted"
            meta["weights_status"] = "interrupted" if weights else "not requested"
        if not weights:
            meta["weights_status"] = "not requested"
        return make_sequence(state, reason, xi)


def _resumed(resume, X, s, d):
    """``(iterations, meta)`` of the adaptive design ``resume`` continues, checked."""
    done, m = _check_resume(resume, "adaptive", s, d)
    if m.get("data_sha256") != data_sha256(X):
        raise ValueError("'resume' was designed on other data (its 'data_sha256' differs "
                         "from that of 'X').")
    return done, m


def _check_same_subsamples(origin, data, coverage):
    """The resumed run must draw the subsamples of the run it continues (the same seed,
    sizes and covering fraction): its sizes and ``coverage`` are checked here."""
    ours = {"n_train": data.n_train, "n_validation": data.n_validation, "coverage": coverage}
    for key, value in ours.items():
        theirs = origin.get(key, 0.0 if key == "coverage" else None)
        if theirs is not None and theirs != value:
            raise ValueError(f"'resume' was designed with {key}={theirs!r}; this run has "
                             f"{value!r}: give its seed, n_train, n_validation and coverage.")


def _history(meta, key, done):
    """A resumed file's ``train_history`` / ``validation_history`` when consistent
    (``done + 1`` finite numbers), else None."""
    h = meta.get(key)
    if (isinstance(h, list) and len(h) == done + 1
            and all(type(x) in (int, float) and math.isfinite(x) for x in h)):
        return list(h)
    return None


def _continue_run(m, origin, done):
    """``meta`` ``m`` of a resumed run made the whole run's: the first run's start errors,
    the histories joined (this run's first entry is the resumed iterate again)."""
    m["resume_validation_error"] = m["start_validation_error"]
    for key in ("start_validation_error", "start_train_error"):
        if origin.get(key) is not None:
            m[key] = origin[key]
    for key in ("train_history", "validation_history"):
        first = _history(origin, key, done)
        if first is not None:
            m[key] = first + m[key][1:]


def _fitted_weights(data, state, meta):
    """The QP weights of the training objective at the best iterate, kept (and
    ``state["best_val"]`` lowered) only where they lower the validation error."""
    from ..objectives.weights import optimal_weights

    U = state["best_U"]
    res = optimal_weights(data.train_obj, U, solver="nnls", normalize=True)
    v = data.val_error(U, res.weights)
    xi = None
    if v < state["best_val"] and np.sum(res.weights) > 0:
        xi = res.weights
        state["best_val"] = v
        meta["weights_status"] = "fitted"
    else:
        meta["weights_status"] = "rejected: no lower validation error than uniform weights"
    meta["weights_sum"] = float(np.sum(res.weights))
    return xi
