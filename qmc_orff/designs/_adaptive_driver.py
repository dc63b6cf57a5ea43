"""The one driver of the adaptive designs; :mod:`.adaptive` holds its two public faces.

:func:`run_adaptive` owns the pipeline that the scalar and the operator-valued
designs share: the checks, the generators, the training and validation
subsamples, the start, the ORF reference, L-BFGS-B with the validation stop,
the optional weights and the ``meta``.  A face supplies only what differs, as an
:class:`AdaptiveFace` (the objective factory and the start are its two hooks),
in the way SciPy's ``QMCEngine.random`` owns the bookkeeping around each
engine's ``_random``.
"""
from __future__ import annotations

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
from ._adaptive_data import _check_X, _orf_reference, _subsamples, check_subsample_sizes
from ._early_stopping import _optimise_with_progress

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
        ``maxcor(s, d, n_train)``: L-BFGS-B's correction pairs.
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
    ``E @ [C, S]``, the gradient terms), L-BFGS-B's ``2 * maxcor + 4 <= 44`` vectors of
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


def _check_callables(**callables):
    """Each of ``callables`` must be callable or None."""
    for name, fn in callables.items():
        if fn is not None and not callable(fn):
            raise TypeError(f"'{name}' must be callable or None; got {type(fn).__name__}.")


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


def _outcome(state, orf_val):
    """The ``meta`` entries of the optimisation's outcome (errors, iterations)."""
    return {
        "start_validation_error": state["val_history"][0],
        "validation_error": state["best_val"],
        "orf_validation_error": orf_val,
        # below 1: better than ORF, the number a reader compares with
        "ratio_to_orf": state["best_val"] / orf_val if orf_val else None,
        "start_train_error": state["train_history"][0],
    }


def run_adaptive(face: AdaptiveFace, X: Any, s: int, n_train: int, *, sigma, init, weights,
                 n_validation, maxiter, patience, min_iterations, coverage, tol, seed,
                 callback, progress, checkpoint, checkpoint_every) -> Sequence:
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
    _check_callables(callback=callback, checkpoint=checkpoint)
    every = None if checkpoint_every is None else check_int(checkpoint_every, "checkpoint_every",
                                                            minimum=1)
    split_rng, init_rng, orf_rng, sigma_rng = as_generator(seed).spawn(4)
    with _blas_limited(face.blas_threads):  # bit-identical whatever the BLAS thread count
        data = _subsamples(X, face.make, sigma, n_train, n_validation, split_rng, sigma_rng,
                           scalar=face.scalar_sigma, make_fast=face.make_fast, coverage=coverage,
                           kernel=face.reference_kernel, nu=face.nu)
        U0, init_name = face.start(init, s, d, init_rng)
        orf_val = _orf_reference(data, U0, init_name, face.reference_kernel, face.nu, orf_rng)
        sig = data.sigma
        meta = {
            **face.meta,
            "sigma": float(sig) if np.ndim(sig) == 0 else [float(x) for x in sig],
            **_data_meta(X, data, sigma, init_name),
            "optimizer": "l-bfgs-b",
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

        def make_sequence(state, reason, xi=None):
            m = dict(meta)
            m.update(_outcome(state, orf_val))
            m.update({
                "iterations": state["it"],
                "best_iteration": state["best_it"],
                "stop_reason": reason,
                "seconds": time.perf_counter() - t_start,
            })
            m.setdefault("train_history", list(state["train_history"]))  # checkpoints: so far
            m.setdefault("validation_history", list(state["val_history"]))
            if state.get("checkpoint_error"):  # the last failure of the 'checkpoint' callable
                m["checkpoint_error"] = state["checkpoint_error"]
            return Sequence(state["best_U"], xi, m)

        state = _optimise_with_progress(data.train, data.val_error, U0, progress=progress,
                                        maxiter=maxiter, patience=patience, callback=callback,
                                        checkpoint=checkpoint, checkpoint_every=every,
                                        make_sequence=make_sequence, tol=tol,
                                        maxcor=meta["maxcor"], min_iterations=min_iterations)
        xi = _fitted_weights(data, state, meta) if weights else None
        if not weights:
            meta["weights_status"] = "not requested"
        meta["train_error"] = data.train_error(state["best_U"], xi)
        meta["train_history"] = state["train_history"]
        meta["validation_history"] = state["val_history"]
        return make_sequence(state, state["reason"], xi)


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
