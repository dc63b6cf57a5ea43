"""The global design: all ``s x d`` coordinates optimised at once (Avron et al. 2016, section 5).

Nonlinear CG or L-BFGS-B on the normalised objective over the unit-bandwidth
points, started from QMC points mapped through the inverse CDF (see
:mod:`qmc_orff.designs` for the units and the objectives).
"""
from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import numpy as np
import scipy.optimize

from ..objectives.protocol import Objective
from ..sequence import Sequence
from ._optimizer import (UnitProblem, _check_checkpoint, _check_optimizer_args, _check_resume,
                         _Progress, is_interrupt)

if TYPE_CHECKING:  # names used in type hints only
    from typing import Any, Callable

    from numpy.typing import ArrayLike

__all__ = ["global_sequence"]


def global_sequence(objective: Objective, s: int, *, d: int | None = None,
                    init: str | Sequence | ArrayLike = "halton", method: str = "cg",
                    maxiter: int = 200, tol: float = 1e-6, seed: Any = None,
                    callback: Callable | None = None, progress: bool = False,
                    checkpoint: Callable | None = None, checkpoint_every: int | None = None,
                    resume: Sequence | None = None) -> Sequence:
    r"""Minimise the squared box discrepancy over all :math:`s \times d` coordinates at once.

    Parameters
    ----------
    objective : BoxDiscrepancy
        Box, kernel density and bandwidth.
    s : int
        Number of points, :math:`1 \le s \le 8192` (`MAX_DESIGN_POINTS`).
    d : int or None, default=None
        Dimension; required when ``objective.d`` is None, else must agree.
    init : str, Sequence or array_like of shape (s, d), default="halton"
        Starting points: a generator name (``"halton"`` or ``"sobol"``:
        unscrambled, from index 1, as index 0 is the origin; ``"halton-rr2"``: the
        deterministic RR2-scrambled Halton; ``"random"``: i.i.d. uniform), mapped
        through the inverse CDF; a :class:`Sequence` (its frequencies at the
        objective's bandwidth; used to resume); or frequencies.
    method : {"cg", "l-bfgs-b"}, default="cg"
        SciPy optimiser: nonlinear conjugate gradient (the paper) or L-BFGS-B.
    maxiter : int, default=200
        Iteration cap.
    tol : float, default=1e-6
        Gradient tolerance on the *scaled* objective :math:`D^2 / E[D^2_{\mathrm{MC}}]`
        (``expected_mc(s)``)
        (``gtol`` for both methods; L-BFGS-B also stops when the relative
        decrease falls below ``ftol = tol * 1e-3``).
    seed : None, int or Generator, default=None
        Used by ``init="random"`` only.
    callback : callable or None, default=None
        ``callback(iteration, W, d2)`` after each iteration with the current
        iterate (frequencies at the objective's bandwidth) and its :math:`D^2`;
        returning ``True`` stops the optimisation.
    progress : bool, default=False
        Print a progress bar (iteration, :math:`D^2`, ratio to Halton) on stderr;
        with ``resume``, over the whole run (iteration ``k`` of ``maxiter``).
    checkpoint : callable or None, default=None
        ``checkpoint(partial)`` receives the current iterate (a Sequence with
        ``meta["checkpoint"] = True``, ``stop_reason="checkpoint"`` and the
        history so far) every ``checkpoint_every`` iterations of the whole run.
    checkpoint_every : int or None, default=None
    resume : Sequence or None, default=None
        A checkpoint or result of an earlier ``global_sequence`` run of the
        same ``s`` and ``d``: the design continues from its points (``init`` is
        not used), ``maxiter`` counts the whole run (the iterations of
        ``resume`` included), and ``history``, ``iterations`` and
        ``stop_reason`` describe the whole run.  The optimiser's own state
        (CG's direction, L-BFGS-B's memory) restarts, so a resumed run need not
        equal an uninterrupted one after the resume point.

    Returns
    -------
    Sequence
        The best iterate seen (never worse than the start).  ``meta`` holds
        ``d2``, ``normalized_d2``, ``expected_mc``, ``normalized_expected_mc``,
        ``halton_d2``, ``normalized_halton_d2``, ``ratio_to_halton``,
        ``initial_d2``, ``normalized_initial_d2``, ``history`` (:math:`D^2` after
        each iteration, starting with the initial value),
        ``normalized_history``, ``iterations``, ``stop_reason``, ``maxiter``,
        ``tol``, ``optimizer``.  Values without ``normalized_`` are in the
        objective's units and may underflow to 0.0 (or be ``None`` on
        overflow) in high dimension; see :ref:`ug-designs-units`.  A
        ``KeyboardInterrupt`` during the
        optimisation stops it and returns the best iterate with
        ``stop_reason = "interrupted"``.

    See Also
    --------
    greedy_sequence, weighted_sequence, lattice_sequence : the other designs of an objective.
    BoxDiscrepancy : the usual objective.
    load_catalogue : precomputed designs.

    Notes
    -----
    .. math::

       D^2(S) = \frac{1}{s^2} \sum_{l,m} \mathrm{sinc}_b(w_l, w_m)
       - \frac{2}{s} \sum_l \prod_j g_j(w_{lj}) + \prod_j C_j

    (Avron et al. 2016, eq. 12) with its gradient (eq. 14), both evaluated in
    normalised units (times :math:`\pi^d / \prod_j b_j`).  The optimiser sees
    :math:`D^2 / E[D^2_{\mathrm{MC}}]` (``expected_mc(s)``; the same ratio in either units):
    raw values near :math:`10^{-6}` would otherwise sit below SciPy's default tolerances.

    Examples
    --------
    >>> from qmc_orff import BoxDiscrepancy, global_sequence
    >>> seq = global_sequence(BoxDiscrepancy(2.0, d=2), 16, maxiter=20)
    >>> seq.s, seq.d, seq.meta["method"]
    (16, 2, 'global')

    :math:`D^2` over that of the Halton start:

    >>> bool(seq.meta["ratio_to_halton"] < 0.5)
    True
    """
    d, s, maxiter, tol = _check_optimizer_args(objective, d, s, method, maxiter, tol)
    every = _check_checkpoint(checkpoint, checkpoint_every, callback=callback)
    P = UnitProblem(objective, d)
    P.via_gradient = True
    done, history0, nhistory0 = 0, None, None
    if resume is not None:
        done, history0, nhistory0 = _resumed(resume, s, d)
        U0, init_name = P.init_points(resume, s, seed)
    else:
        U0, init_name = P.init_points(init, s, seed)
    meta = P.base_meta(s, "global", init_name)
    # normalised units throughout (see UnitProblem); the optimiser sees D^2 / expected_mc(s),
    # the same ratio in either units
    scale = float(P.obj.expected_mc(s, normalize=True))
    if not scale > 0:   # 1 - prod(pi C_j / b_j) rounds to 0: every D^2 is 0 in float64
        raise ValueError("'objective' has a box too small for float64: its expected Monte "
                         "Carlo D^2 rounds to 0 (increase 'b').")
    meta.update(P.halton_meta(s))
    halton = meta["normalized_halton_d2"]
    remaining = max(maxiter - done, 0)

    best = {"d2": math.inf, "x": None}

    def fun(x):
        val, grad = P.obj.value_and_grad(x.reshape(s, d), normalize=True)
        val = float(val)
        if val < best["d2"]:
            best["d2"], best["x"] = val, x.copy()
        return val / scale, np.asarray(grad, dtype=np.float64).ravel() / scale

    x0 = U0.ravel().copy()
    nd2_0 = fun(x0)[0] * scale
    # the whole run's histories: the resumed file's (when consistent), then this run's
    nhistory = list(nhistory0) if nhistory0 else [nd2_0]
    history = list(history0) if history0 else [P.raw(nd2_0)]
    first = len(history) - 1  # the iteration at which this run starts, in the histories
    shown = [min([x for x in nhistory if x is not None], default=math.inf)]
    bar = _Progress(maxiter, halton) if progress and remaining > 0 else None
    stop = {"reason": None}

    def cb(intermediate_result):
        xk = intermediate_result.x if hasattr(intermediate_result, "x") else intermediate_result
        fk = getattr(intermediate_result, "fun", None)
        nd2k = float(fk) * scale if fk is not None else P.nd2(xk.reshape(s, d))
        d2k = P.raw(nd2k)
        nhistory.append(nd2k)
        history.append(d2k)
        it = len(history) - 1 - first
        shown[0] = min(shown[0], best["d2"])
        if bar is not None:
            bar.update(done + it, shown[0])
        if checkpoint is not None and every and (done + it) % every == 0:
            checkpoint(Sequence(xk.reshape(s, d).copy(), None, {
                **meta, "iterations": done + it, "maxiter": maxiter, "d2": d2k,
                "normalized_d2": nd2k, "history": list(history),
                "normalized_history": list(nhistory), "stop_reason": "checkpoint",
                "checkpoint": True}))
        if callback is not None and callback(it, xk.reshape(s, d) / P.sigma, d2k):
            stop["reason"] = "callback requested stop"
            raise StopIteration

    options = {"maxiter": remaining, "gtol": tol}
    if method == "l-bfgs-b":
        options["ftol"] = tol * 1e-3
    t0 = time.perf_counter()
    message = None
    if remaining > 0:
        try:
            res = scipy.optimize.minimize(fun, x0, jac=True, method="CG" if method == "cg"
                                          else "L-BFGS-B", callback=cb, options=options)
            message = str(res.message)
            success = bool(res.success)
            nit = int(res.nit)
        except (KeyboardInterrupt, SystemError) as exc:
            if not is_interrupt(exc):
                raise
            stop["reason"] = "interrupted"
            success, nit = False, len(history) - 1 - first
    else:
        success, nit = True, 0
        # the cap of the whole run: reached by the resumed file, or zero
        stop["reason"] = f"maxiter ({maxiter}) reached" if done else "maxiter = 0"
    if bar is not None:
        bar.close()
    if stop["reason"] is None:
        if nit >= remaining and not success:
            stop["reason"] = f"maxiter ({maxiter}) reached"
        elif success:
            stop["reason"] = f"converged: {message}"
        else:
            stop["reason"] = f"stopped: {message}"
    U = best["x"].reshape(s, d)
    meta.update({
        "initial_d2": history[0],
        "normalized_initial_d2": nhistory[0],
        "history": history,
        "normalized_history": nhistory,
        "iterations": done + len(history) - 1 - first,
        "stop_reason": stop["reason"],
        "optimizer": method,
        "maxiter": maxiter,
        "tol": tol,
        "objective_scale": P.raw(scale),
        "seconds": time.perf_counter() - t0,
    })
    if resume is not None:
        meta["resumed_iterations"] = done
    return P.finish(U, None, meta, best["d2"])


def _resumed(resume, s, d):
    """``(iterations, history, normalized_history)`` of the global design ``resume``
    continues.  The histories continue only when they are consistent (``iterations + 1``
    numbers each); otherwise they are None (the normalised one alone may be None)."""
    done, m = _check_resume(resume, "global", s, d)

    def series(key):
        h = m.get(key)
        ok = (isinstance(h, list) and len(h) == done + 1
              and all(x is None or type(x) in (int, float) for x in h))
        return list(h) if ok else None

    history = series("history")
    return done, history, series("normalized_history") if history else None
