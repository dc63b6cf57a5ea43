"""The optimiser of the adaptive designs: L-BFGS with early stopping on validation."""
from __future__ import annotations

import math

import scipy.optimize

from ._lbfgs import minimize_lbfgs
from ._optimizer import _Progress, is_interrupt

#: the optimiser of the adaptive designs, a key of :data:`OPTIMIZERS` (``meta["optimizer"]``):
#: ``"l-bfgs-b"``, SciPy's L-BFGS-B, or ``"lbfgs"``, :func:`._lbfgs.minimize_lbfgs`, the same
#: method without the bounds' machinery.  Its time an iteration outside the objective (one
#: core, 150 iterations from the ORF start, three seeds, one at s = 1024) was 32-46% of
#: L-BFGS-B's at 15,616 to 670,720 variables (standardised MNIST pixels at s = 64, 256, 1024;
#: photo patches and digits at s = 256: 0.7-11 ms against 1.9-29 ms) and 55-61% at 5,120
#: (patches, s = 64); its training objective after those iterations 0.96-1.06x L-BFGS-B's,
#: whose own moves by 0.985-1.018x for a 1e-6 relative change of the start.  Whole designs
#: with the defaults (``benchmarks/bench_vs_nystroem.py --methods nys adaptLB adaptOwn``, six
#: data sets, s = 32..512, two seeds): held-out error 2.22x Nystroem's against 2.21x
#: (geometric mean over 30 cells; per cell within the seeds' spread), fit 58x
#: ``Nystroem.fit`` against 68x.  The designs' bits differ between the two
OPTIMIZER = "lbfgs"

#: L-BFGS-B's correction pairs on small problems
MAXCOR = 20
#: at most this many entries in L-BFGS-B's correction pairs (``maxcor * s * d``; at least
#: ``MIN_MAXCOR`` pairs): its update costs about 5-10 ns per pair and variable, on one core
#: (scipy 1.17), 0.2 s an iteration at ``s d = 645,120`` (s = 1024 on MNIST's 630 pixels)
#: with 20 pairs, more than the objective and the validation together.  At
#: d = 3136, s = 64 (raw pixels, 500 training rows) 20 pairs took 25 ms an iteration against
#: 11 ms for the objective and its validation.  2**20 entries (about 6 ms) keep 20 pairs up to
#: ``s d = 52,428`` (digits and MNIST's 64 principal components at s = 512); on raw MNIST at
#: s = 128, 256, 512 (12, 6, 5 pairs instead of 20, 20, 12) the held-out error was the same
#: (2.50x, 2.65x, 2.44x Nystroem's, against 2.50x, 2.66x, 2.44x) in 8-15% less time
MAXCOR_ENTRIES = 2 ** 20
MIN_MAXCOR = 5
#: the most pairs of a scalar data design (:func:`lbfgs_memory` with ``d`` and ``n_train``)
MAXCOR_CHEAP = 100
#: pairs times dimension that cost a quarter of the scalar data objective at 500 training
#: rows: L-BFGS-B's update takes about 7 ns per pair and variable (``s d`` variables), the
#: float32 objective and its float64 validation about 26 us per frequency (one core; both
#: measured at d = 9, s = 512).  On diamonds (d = 9) 100 pairs instead of 20 reached in 400
#: iterations the validation error that 20 reached in 1000
PAIRS_TIMES_D = 900
#: the training rows at which :data:`PAIRS_TIMES_D` was measured (the objective's cost grows
#: as their square)
PAIRS_ROWS = 500
#: the validation stop (``patience``) waits while the training error still falls by more than
#: this fraction over the patience window: in the optimiser's early, large steps a validation
#: error that rises for ``patience`` iterations often falls again.  On diamonds (d = 9) at
#: s = 512 one of four seeds stopped at iteration 103 (best 83) while its training error
#: fell 17% over the last 20 iterations: 6.04x Nystroem's held-out error; with this rule it
#: ran to 182 (best 162), 4.51x.  No other cell of the four-data-set benchmark changed (the
#: stops there came with a fall of 1-7.5%), nor the fit-time floors
TRAIN_STILL_FALLING = 0.1


def still_falling(history, window, fraction=None):
    """Whether the last of ``history`` (training errors, one per iteration) is more than
    ``fraction`` (default :data:`TRAIN_STILL_FALLING`; None: never) below the one ``window``
    iterations before it."""
    fraction = TRAIN_STILL_FALLING if fraction is None else fraction
    if fraction is None:  # the rule switched off
        return False
    return len(history) > window and history[-1] < (1.0 - fraction) * history[-1 - window]


def lbfgs_memory(n, *, d=None, n_train=None):
    """L-BFGS-B's ``maxcor`` for ``n`` variables.

    :data:`MAXCOR` (20) where ``MAXCOR * n <= MAXCOR_ENTRIES`` (every ``s d <= 52,428``: the
    designs of up to a few hundred dimensions), fewer pairs above, never under
    :data:`MIN_MAXCOR`.  Given the dimension ``d`` and the training rows ``n_train`` of a
    scalar data design, up to :data:`MAXCOR_CHEAP` pairs where they stay cheap against the
    objective (``PAIRS_TIMES_D * (n_train / PAIRS_ROWS)**2 / d`` pairs: 100 at d = 9, 30 at
    d = 30, 20 from d = 45 with 500 rows), within the same entry budget.
    """
    pairs = MAXCOR
    if d is not None and n_train is not None:
        cheap = PAIRS_TIMES_D * int(n_train) ** 2 // (PAIRS_ROWS ** 2 * max(int(d), 1))
        pairs = max(MAXCOR, min(MAXCOR_CHEAP, cheap))
    return max(MIN_MAXCOR, min(pairs, MAXCOR_ENTRIES // max(int(n), 1)))


class _ValidationProgress(_Progress):
    """Progress on stderr (:class:`~qmc_orff.designs._optimizer._Progress`): iteration,
    training and validation Gram error, and the best validation error over ``reference``
    (the ORF reference draw's, or the start's), named ``label``."""

    def __init__(self, total, reference, label="start", stream=None):
        super().__init__(total, None, stream=stream, width=20)
        self.reference = reference
        self.label = label

    def update(self, it, train, val, best):
        ratio = f"{best / self.reference:.3g}" if self.reference else "n/a"
        self.show(it, f"train {train:.4e} validation {val:.4e} best/{self.label} {ratio}")


def _optimise_with_progress(train, val_error, U0, *, progress, maxiter, total=None,
                            reference=None, label="start", **kwargs):
    """:func:`_optimise`, with a progress bar on stderr when ``progress``: iteration
    ``offset + it`` of ``total`` (default ``maxiter``), the best validation error over
    ``reference`` (default: the start's)."""
    bar = None
    if progress:
        ref = reference if reference is not None else val_error(U0)
        bar = _ValidationProgress(maxiter if total is None else total, ref, label)
    try:
        return _optimise(train, val_error, U0, maxiter=maxiter, bar=bar, **kwargs)
    finally:
        if bar is not None:
            bar.close()


def _safe_checkpoint(checkpoint, make_sequence, state):
    """``checkpoint(sequence)``; an exception there (a full disk) neither ends the run nor
    loses its best iterate: a UserWarning (once per run) and ``state["checkpoint_error"]``."""
    import warnings

    try:
        checkpoint(make_sequence(state, "checkpoint"))
    except Exception as exc:  # noqa: BLE001 - any failure of the user's callable
        if state.get("checkpoint_error") is None:
            warnings.warn(f"'checkpoint' failed at iteration {state['it']} ({exc!r}); the run "
                          "continues and returns its best iterate.", UserWarning, stacklevel=2)
        state["checkpoint_error"] = f"iteration {state['it']}: {exc!r}"


def _optimise(train, val_error, U0, *, maxiter, patience, callback, bar, checkpoint,
              checkpoint_every, make_sequence, tol, maxcor=None, min_iterations=0, offset=0):
    """L-BFGS (:data:`OPTIMIZER`) on the normalised training objective, scoring iterates
    on validation.

    ``maxcor``: L-BFGS-B's correction pairs (None: :func:`lbfgs_memory` of ``s d``);
    ``min_iterations``: the validation stop (``patience``) ends no run before it;
    ``offset``: the iterations of the run this one resumes (the progress bar, the
    checkpoints and ``callback`` count the whole run; the stops count this one's).
    Returns a dict with the best validated iterate and the bookkeeping.
    """
    s, d = U0.shape
    if maxcor is None:
        maxcor = lbfgs_memory(s * d)
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
            bar.update(offset + it, tr, v, state["best_val"])
        if checkpoint is not None and checkpoint_every and (offset + it) % checkpoint_every == 0:
            _safe_checkpoint(checkpoint, make_sequence, state)
        if callback is not None and callback(offset + it, U.copy(), tr, v):
            state["reason"] = "callback requested stop"
            raise StopIteration
        if (patience is not None and it >= min_iterations and it - state["best_it"] >= patience
                and not still_falling(state["train_history"], patience)):
            state["reason"] = f"validation error not improved for {patience} iterations"
            raise StopIteration

    if maxiter == 0:
        state["reason"] = "maxiter = 0"
        return state
    try:
        res = OPTIMIZERS[OPTIMIZER](fun, U0.ravel().copy(), cb, maxiter=maxiter, tol=tol,
                                    maxcor=maxcor)
        if state["reason"] is None:
            if state["it"] >= maxiter:
                state["reason"] = f"maxiter ({maxiter}) reached"
            else:
                state["reason"] = f"converged: {res.message}"
    except (KeyboardInterrupt, SystemError) as exc:
        if not is_interrupt(exc):
            raise
        state["reason"] = "interrupted"
    return state


def _scipy_lbfgsb(fun, x0, callback, *, maxiter, tol, maxcor):
    """SciPy's L-BFGS-B without bounds (``gtol = ftol = tol``)."""
    return scipy.optimize.minimize(fun, x0, jac=True, method="L-BFGS-B", callback=callback,
                                   options={"maxiter": maxiter, "gtol": tol, "ftol": tol,
                                            "maxcor": maxcor})


def _own_lbfgs(fun, x0, callback, *, maxiter, tol, maxcor):
    """:func:`._lbfgs.minimize_lbfgs` with L-BFGS-B's stop rules (``gtol = ftol = tol``)."""
    return minimize_lbfgs(fun, x0, maxcor=maxcor, maxiter=maxiter, gtol=tol, ftol=tol,
                          callback=callback)


#: ``OPTIMIZER`` -> ``f(fun, x0, callback, *, maxiter, tol, maxcor)``, the result's
#: ``message`` read by :func:`_optimise`
OPTIMIZERS = {"l-bfgs-b": _scipy_lbfgsb, "lbfgs": _own_lbfgs}
