"""Adaptive QMC sequences: minimise the box discrepancy (Avron et al. 2016, section 5).

Four designs, each returning a :class:`~qmc_orff.sequence.Sequence`:

- :func:`global_sequence`: all ``s x d`` coordinates at once (nonlinear CG or
  L-BFGS-B), started from QMC points mapped through the inverse CDF;
- :func:`greedy_sequence`: one point at a time (eq. 15, herding), each step
  O(t d) per evaluation thanks to running sums;
- :func:`weighted_sequence`: QMC points with the optimal nonnegative weights
  (eq. 17);
- :func:`lattice_sequence`: a rank-1 lattice whose generating vector is chosen
  component by component to minimise the box discrepancy (the extension the
  paper proposes in section 5).

Frequencies are designed for the objective's density at the objective's
bandwidth ``sigma``; the returned sequence stores unit-bandwidth points
``W * sigma`` with ``box_over_sigma = b / sigma`` (so that
``seq.frequencies(sigma)`` gives back ``W``).

Points from the unit cube
-------------------------
``init="halton"`` (the default) and ``"sobol"`` use the *unscrambled*
sequences from index 1 on: index 0 is the origin, whose inverse CDF is
``-inf``.  Skipping it keeps the designs deterministic and reproduces the
reference values of the issue (Halton ``D^2 = 1.2e-3`` at d=4, s=64,
b/sigma=2).  ``"halton-rr2"`` uses the deterministic RR2-scrambled Halton
sequence (the paper's choice), also from index 1 (RR2 keeps the origin at
index 0); ``"random"`` uses i.i.d. uniform
points (``seed``).  As a last guard every unit coordinate is clipped into
``[2^-53, 1 - 2^-53]`` before the inverse CDF, so no frequency is ever infinite.
"""
from __future__ import annotations

import math
import sys
import time
from datetime import datetime, timezone

import numpy as np
import scipy.optimize

from . import __version__
from ._design_kernels import greedy_pair_sum, greedy_pair_sum_value
from ._validation import as_generator, check_choice, check_dimension, check_int, check_positive_real
from .sequence import Sequence
from .weights import optimal_weights

__all__ = ["global_sequence", "greedy_sequence", "weighted_sequence", "lattice_sequence",
           "unit_points", "to_frequencies"]

_INITS = ("halton", "halton-rr2", "sobol", "random")
_METHODS = ("cg", "l-bfgs-b")
_EPS_UNIT = 2.0 ** -53


# --------------------------------------------------------------------------- helpers
def _resolve_d(objective, d):
    od = getattr(objective, "d", None)
    if d is None:
        if od is None:
            raise ValueError("'d' is required: the objective does not fix the dimension "
                             "(give d=... or an objective with (d,) box/sigma or d=).")
        return int(od)
    d = check_dimension(d)
    if od is not None and od != d:
        raise ValueError(f"'d' = {d} conflicts with the objective's d = {od}.")
    return d


def _is_interrupt(exc):
    """Whether ``exc`` is a ``KeyboardInterrupt`` or was raised from one.

    A Ctrl-C that lands while compiled (numba) code calls back into Python
    surfaces as a ``SystemError`` chained from the ``KeyboardInterrupt``.
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _check_optimizer_args(objective, d, s, method, maxiter, tol):
    """Checked ``(d, s, maxiter, tol)`` of the optimising designs (global, greedy)."""
    d = _resolve_d(objective, d)
    s = check_int(s, "s", minimum=1)
    check_choice(method, "method", _METHODS)
    maxiter = check_int(maxiter, "maxiter", minimum=0)
    return d, s, maxiter, check_positive_real(tol, "tol")


def unit_points(init, s, d, *, seed=None):
    """``s`` points in the open unit cube ``(0, 1)^d`` from the named generator.

    Parameters
    ----------
    init : {"halton", "halton-rr2", "sobol", "random"}
        ``"halton"``/``"sobol"``: unscrambled, from index 1 (index 0 is the
        origin); ``"halton-rr2"``: deterministic RR2-scrambled Halton, from
        index 1; ``"random"``: i.i.d. uniform (``seed``).
    s, d : int
    seed : None, int or Generator, default=None
        Used by ``"random"`` only.

    Returns
    -------
    ndarray of shape (s, d)
        Coordinates clipped into ``[2^-53, 1 - 2^-53]``.

    See Also
    --------
    qmc_orff.frequencies.unit_points : the feature maps' policy for the same
        generators, which keeps index 0 and centres unrandomised points by half a
        grid step instead (no point dropped, nets kept).  Designs skip index 0 so
        that their Halton reference values match Avron et al. and the issue.
    """
    check_choice(init, "init", _INITS)
    s = check_int(s, "s", minimum=1)
    d = check_dimension(d)
    if init == "random":
        t = as_generator(seed).random((s, d))
    else:
        from .generators import Halton, Sobol
        if init == "sobol":
            import warnings
            engine = Sobol(d, scramble=False)
            engine.fast_forward(1)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # balance: s need not be 2^m
                t = engine.random(s)
        else:
            engine = Halton(d, scramble=False if init == "halton" else "deterministic")
            engine.fast_forward(1)
            t = engine.random(s)
    return np.clip(np.asarray(t, dtype=np.float64), _EPS_UNIT, 1.0 - _EPS_UNIT)


def to_frequencies(t, density, sigma):
    """Map unit-cube points through the inverse CDF: ``w_j = ppf(t_j) / sigma_j``."""
    w = np.asarray(density.ppf(t), dtype=np.float64) / sigma
    if not np.all(np.isfinite(w)):
        raise ValueError("the inverse CDF produced non-finite frequencies; unit points must lie "
                         "strictly inside (0, 1).")
    return np.ascontiguousarray(w)


class _Unit:
    """The design problem at unit bandwidth.

    With ``u = sigma w`` and ``a = b / sigma``, ``D^2_{b, sigma}(W) = prod(sigma) D^2_{a, 1}(U)``
    (each of the pair, linear and constant terms carries one factor ``sigma_j`` per
    coordinate).  Every design optimises ``U`` for the unit-bandwidth objective, so a
    design at ``(b, sigma)`` is exactly the unit design at ``a = b / sigma``; values
    reported to the user are in the objective's units (times ``factor``).
    """

    def __init__(self, objective, d):
        from .discrepancy import BoxDiscrepancy

        self.objective = objective
        self.d = d
        b, self.sigma = objective.box_and_sigma(d)
        self.a = b / self.sigma
        self.density = objective.density
        self.obj = BoxDiscrepancy(self.a, kernel=objective.density, sigma=np.ones(d), d=d)
        self.factor = float(np.prod(self.sigma))

    def d2(self, U, weights=None):
        """``D^2`` of the frequencies ``U / sigma`` for the user's objective."""
        return self.factor * float(self.obj(U, weights))

    def halton_d2(self, s):
        return self.d2(to_frequencies(unit_points("halton", s, self.d), self.density, 1.0))

    def init_points(self, init, s, seed):
        """Initial unit-bandwidth points ``(s, d)`` and a description."""
        d = self.d
        if isinstance(init, Sequence):
            if init.s != s or init.d != d:
                raise ValueError(f"'init' sequence has shape ({init.s}, {init.d}); expected "
                                 f"({s}, {d}).")
            return np.array(init.points), "sequence:" + str(init.meta.get("method"))
        if isinstance(init, str):
            t = unit_points(init, s, d, seed=seed)
            return to_frequencies(t, self.density, 1.0), init
        W = np.asarray(init, dtype=np.float64)
        if W.shape != (s, d):
            raise ValueError(f"'init' must be a generator name ({', '.join(map(repr, _INITS))}), "
                             f"a Sequence or an array of shape ({s}, {d}); got shape {W.shape}.")
        if not np.all(np.isfinite(W)):
            raise ValueError("'init' must contain only finite values (no NaN or inf).")
        return np.ascontiguousarray(W * self.sigma), "array"

    def base_meta(self, s, method, init_name):
        return {
            "method": method,
            "init": init_name,
            "density": self.density.name,
            "box_over_sigma": [float(x) for x in self.a],
            "s": s,
            "d": self.d,
            "expected_mc": float(self.objective.expected_mc(s, d=self.d)),
            "library_version": __version__,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }

    def finish(self, U, weights, meta, d2):
        """The Sequence of unit-bandwidth points ``U`` with the final figures in ``meta``.

        ``d2`` and the other values in ``meta`` are in the objective's units.
        """
        meta = dict(meta)
        meta["d2"] = float(d2)
        meta["normalized_d2"] = float(self.objective.normalized(d2, d=self.d))
        if "halton_d2" not in meta:
            meta["halton_d2"] = self.halton_d2(U.shape[0])
        meta["ratio_to_halton"] = (float(d2) / meta["halton_d2"] if meta["halton_d2"] > 0
                                   else None)
        meta["sigma_product"] = self.factor
        return Sequence(U, weights, meta)


class _Progress:
    """A one-line progress bar on stderr: iteration, D^2 and the ratio to Halton."""

    def __init__(self, total, halton, stream=None, width=24):
        self.total = max(int(total), 1)
        self.halton = halton
        self.stream = sys.stderr if stream is None else stream
        self.width = width
        self.start = time.perf_counter()

    def update(self, it, d2):
        frac = min(it / self.total, 1.0)
        filled = int(round(frac * self.width))
        ratio = d2 / self.halton if self.halton > 0 else float("nan")
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {it}/{self.total} "
                          f"D^2={d2:.4e} ratio to Halton={ratio:.3g} "
                          f"({time.perf_counter() - self.start:.1f} s)")
        self.stream.flush()

    def close(self):
        self.stream.write("\n")
        self.stream.flush()


# --------------------------------------------------------------------------- global
def global_sequence(objective, s, *, d=None, init="halton", method="cg", maxiter=200,
                    tol=1e-6, seed=None, callback=None, progress=False):
    """Minimise the squared box discrepancy over all ``s x d`` coordinates at once.

    Parameters
    ----------
    objective : BoxDiscrepancy
        Box, kernel density and bandwidth.
    s : int
        Number of points.
    d : int or None, default=None
        Dimension; required when ``objective.d`` is None, else must agree.
    init : str, Sequence or array_like of shape (s, d), default="halton"
        Starting points: a generator name (see :func:`unit_points`; mapped
        through the inverse CDF), a :class:`Sequence` (its frequencies at the
        objective's bandwidth; used to resume), or frequencies.
    method : {"cg", "l-bfgs-b"}, default="cg"
        SciPy optimiser: nonlinear conjugate gradient (the paper) or L-BFGS-B.
    maxiter : int, default=200
        Iteration cap.
    tol : float, default=1e-6
        Gradient tolerance on the *scaled* objective ``D^2 / expected_mc(s)``
        (``gtol`` for both methods; L-BFGS-B also stops when the relative
        decrease falls below ``ftol = tol * 1e-3``).
    seed : None, int or Generator, default=None
        Used by ``init="random"`` only.
    callback : callable or None, default=None
        ``callback(iteration, W, d2)`` after each iteration with the current
        iterate (frequencies at the objective's bandwidth) and its ``D^2``;
        returning ``True`` stops the optimisation.
    progress : bool, default=False
        Print a progress bar (iteration, ``D^2``, ratio to Halton) on stderr.

    Returns
    -------
    Sequence
        The best iterate seen (never worse than the start).  ``meta`` holds
        ``d2``, ``normalized_d2``, ``expected_mc``, ``halton_d2``,
        ``initial_d2``, ``history`` (``D^2`` after each iteration, starting with
        the initial value), ``iterations``, ``stop_reason``, ``maxiter``,
        ``tol``, ``optimizer``.  A ``KeyboardInterrupt`` during the
        optimisation stops it and returns the best iterate with
        ``stop_reason = "interrupted"``.

    Notes
    -----
    ``D^2(S) = s^-2 sum_lm sinc_b(w_l, w_m) - 2 s^-1 sum_l prod_j g_j(w_lj) + prod_j C_j``
    (Avron et al. 2016, eq. 12) with its gradient (eq. 14).  The optimiser sees
    ``D^2 / expected_mc(s)``: raw values near 1e-6 would otherwise sit below
    SciPy's default tolerances.
    """
    d, s, maxiter, tol = _check_optimizer_args(objective, d, s, method, maxiter, tol)
    if callback is not None and not callable(callback):
        raise TypeError(f"'callback' must be callable or None; got {type(callback).__name__}.")
    P = _Unit(objective, d)
    U0, init_name = P.init_points(init, s, seed)
    meta = P.base_meta(s, "global", init_name)
    scale = float(P.obj.expected_mc(s))  # unit-bandwidth units, like the values below
    factor = P.factor
    halton = P.halton_d2(s)
    meta["halton_d2"] = halton

    best = {"d2": math.inf, "x": None}

    def fun(x):
        val, grad = P.obj.value_and_grad(x.reshape(s, d))
        val = float(val)
        if val < best["d2"]:
            best["d2"], best["x"] = val, x.copy()
        return val / scale, np.asarray(grad, dtype=np.float64).ravel() / scale

    x0 = U0.ravel().copy()
    d2_0 = fun(x0)[0] * scale * factor
    history = [d2_0]
    bar = _Progress(maxiter, halton) if progress else None
    stop = {"reason": None}

    def cb(intermediate_result):
        xk = intermediate_result.x if hasattr(intermediate_result, "x") else intermediate_result
        fk = getattr(intermediate_result, "fun", None)
        d2k = factor * (float(fk) * scale if fk is not None else float(P.obj(xk.reshape(s, d))))
        history.append(d2k)
        it = len(history) - 1
        if bar is not None:
            bar.update(it, factor * best["d2"])
        if callback is not None and callback(it, xk.reshape(s, d) / P.sigma, d2k):
            stop["reason"] = "callback requested stop"
            raise StopIteration

    options = {"maxiter": maxiter, "gtol": tol}
    if method == "l-bfgs-b":
        options["ftol"] = tol * 1e-3
    t0 = time.perf_counter()
    message = None
    if maxiter > 0:
        try:
            res = scipy.optimize.minimize(fun, x0, jac=True, method="CG" if method == "cg"
                                          else "L-BFGS-B", callback=cb, options=options)
            message = str(res.message)
            success = bool(res.success)
            nit = int(res.nit)
        except (KeyboardInterrupt, SystemError) as exc:
            if not _is_interrupt(exc):
                raise
            stop["reason"] = "interrupted"
            success, nit = False, len(history) - 1
    else:
        success, nit = True, 0
        stop["reason"] = "maxiter = 0"
    if bar is not None:
        bar.close()
    if stop["reason"] is None:
        if nit >= maxiter and not success:
            stop["reason"] = f"maxiter ({maxiter}) reached"
        elif success:
            stop["reason"] = f"converged: {message}"
        else:
            stop["reason"] = f"stopped: {message}"
    U = best["x"].reshape(s, d)
    meta.update({
        "initial_d2": d2_0,
        "history": history,
        "iterations": len(history) - 1,
        "stop_reason": stop["reason"],
        "optimizer": method,
        "maxiter": maxiter,
        "tol": tol,
        "objective_scale": scale * factor,
        "seconds": time.perf_counter() - t0,
    })
    return P.finish(U, None, meta, factor * best["d2"])


# --------------------------------------------------------------------------- greedy
class _GreedyState:
    """Running sums for the greedy design, uniform weights ``1/t``.

    ``pair`` = sum over ordered pairs (diagonal included) of ``sinc_b`` among the
    chosen points, ``lin`` = sum of ``v_l = prod_j g_j(w_lj)``; then
    ``D^2(S_t) = pair / t^2 - 2 lin / t + C``.
    """

    def __init__(self, objective, s, d):
        self.b, self.sigma = objective.box_and_sigma(d)
        self.a = self.b / self.sigma
        self.density = objective.density
        self.diag = float(np.prod(self.b / np.pi))  # sinc_b(w, w)
        self.C = float(objective.constant(d))
        self.W = np.zeros((s, d))
        self.t = 0
        self.pair = 0.0
        self.lin = 0.0

    def v_and_grad(self, w):
        g, dg = self.density.g_and_derivative(self.sigma * w, self.a)
        g = np.asarray(g, dtype=np.float64) * self.sigma
        dg = np.asarray(dg, dtype=np.float64) * self.sigma ** 2
        d = g.shape[0]
        prefix = np.concatenate(([1.0], np.cumprod(g)))
        suffix = np.concatenate((np.cumprod(g[::-1])[::-1], [1.0]))
        grad = dg * prefix[:d] * suffix[1:]
        return float(prefix[d]), grad

    def candidate(self, w):
        """``D^2(S_t + {w})`` and its gradient in ``w`` in O(t d)."""
        n = self.t + 1
        grad_pair = np.empty_like(w)
        S = greedy_pair_sum(w, self.W, self.t, self.b, grad_pair)
        v, grad_v = self.v_and_grad(w)
        val = (self.pair + 2.0 * S + self.diag) / n ** 2 - 2.0 * (self.lin + v) / n + self.C
        grad = 2.0 * grad_pair / n ** 2 - 2.0 * grad_v / n
        return val, grad

    def add(self, w):
        S = greedy_pair_sum_value(w, self.W, self.t, self.b)
        v, _ = self.v_and_grad(w)
        self.W[self.t] = w
        self.pair += 2.0 * S + self.diag
        self.lin += v
        self.t += 1
        return self.value()

    def value(self):
        n = self.t
        return self.pair / n ** 2 - 2.0 * self.lin / n + self.C


_POOL = 8  # greedy: extra starts are the best of the next _POOL init points


def greedy_sequence(objective, s, *, d=None, init="halton", method="cg", maxiter=50,
                    tol=1e-8, starts=1, seed=None, progress=False, prefix=None, checkpoint=None,
                    checkpoint_every=None):
    """Greedy adaptive sequence: point ``t+1`` minimises ``D^2(S_t + {w})`` (eq. 15).

    Parameters
    ----------
    objective : BoxDiscrepancy
    s : int
        Number of points.
    d : int or None, default=None
        Dimension; required when ``objective.d`` is None.
    init : str, Sequence or array_like of shape (s, d), default="halton"
        Point ``t+1`` is optimised from the ``(t+1)``-th init point.
    method : {"cg", "l-bfgs-b"}, default="cg"
        SciPy optimiser for each step (the paper: nonlinear CG).
    maxiter : int, default=50
        Iteration cap per local optimisation.
    tol : float, default=1e-8
        ``gtol`` on the per-step objective scaled by ``t^2 / (2 prod(b / pi))``.
    starts : int, default=1
        Local optimisations per step: one from the ``(t+1)``-th init point
        (the paper's algorithm, ``starts=1``) and ``starts - 1`` more from the
        best (lowest objective) of the next 8 init points, a cheap guard
        against the poor local minima of eq. 15.  At d=4, b/sigma=2, s=128 the
        worst prefix ratio to Halton (prefixes >= 32) is 0.46 with one start
        and 0.40 with two.
    seed : None, int or Generator, default=None
        Used by ``init="random"`` only.
    progress : bool, default=False
        Progress bar on stderr.
    prefix : Sequence, array_like of shape (t0, d) or None, default=None
        Points already chosen (a Sequence, or frequencies at the objective's
        bandwidth), ``t0 <= s``: the design continues after them (used to
        resume an interrupted greedy design).
    checkpoint : callable or None, default=None
        ``checkpoint(partial)`` receives the partial design (a Sequence) every
        ``checkpoint_every`` points.
    checkpoint_every : int or None, default=None

    Returns
    -------
    Sequence
        Points in the order chosen: every prefix is itself a greedy design.
        ``meta["history"]`` holds ``D^2`` of each prefix ``S_1, ..., S_s``.

    Notes
    -----
    With uniform weights ``1/n`` (``n = t + 1``)::

        D^2(S_t + {w}) = (P_t + 2 sum_l sinc_b(w, w_l) + prod_j b_j/pi) / n^2
                         - 2 (L_t + prod_j g_j(w_j)) / n + prod_j C_j

    where ``P_t`` and ``L_t`` are the running pair and linear sums of ``S_t``:
    each evaluation costs O(t d), not O(t^2 d).  A step never accepts a point
    worse than its init point.
    """
    d, s, maxiter, tol = _check_optimizer_args(objective, d, s, method, maxiter, tol)
    starts = check_int(starts, "starts", minimum=1)
    pool = _POOL if starts > 1 else 0
    P = _Unit(objective, d)
    factor = P.factor
    if pool and isinstance(init, str):
        U0, init_name = P.init_points(init, s + pool, seed)
    else:
        U0, init_name = P.init_points(init, s, seed)
    meta = P.base_meta(s, "greedy", init_name)
    state = _GreedyState(P.obj, s, d)  # unit bandwidth: values times `factor` for the user
    history = []
    if prefix is not None:
        if isinstance(prefix, Sequence):
            pre = np.array(prefix.points)
        else:
            pre = np.asarray(prefix, dtype=np.float64)
            if pre.ndim == 2 and pre.shape[1] == d:
                pre = pre * P.sigma
        if pre.ndim != 2 or pre.shape[1] != d or pre.shape[0] > s or not np.all(np.isfinite(pre)):
            raise ValueError(f"'prefix' must be finite with shape (t0, {d}), t0 <= {s}; got "
                             f"shape {pre.shape}.")
        for w in pre:
            history.append(factor * state.add(np.ascontiguousarray(w)))
        meta["resumed_points"] = int(pre.shape[0])
    if checkpoint is not None and not callable(checkpoint):
        raise TypeError(f"'checkpoint' must be callable or None; got {type(checkpoint).__name__}.")
    every = None if checkpoint_every is None else check_int(checkpoint_every, "checkpoint_every",
                                                            minimum=1)
    halton = P.halton_d2(s)
    meta["halton_d2"] = halton
    bar = _Progress(s, halton) if progress else None
    total_iter = 0
    t0 = time.perf_counter()
    interrupted = False
    scipy_method = "CG" if method == "cg" else "L-BFGS-B"
    try:
        for t in range(state.t, s):
            n = t + 1
            scale = n * n / (2.0 * state.diag)

            def fun(w):
                val, grad = state.candidate(w)
                return val * scale, grad * scale

            w0 = U0[t].copy()
            f0 = fun(w0)[0]
            if maxiter > 0:
                x_starts = [w0]
                extra = U0[t + 1:t + 1 + pool]
                if starts > 1 and extra.shape[0] > 0:
                    vals = np.array([fun(np.ascontiguousarray(c))[0] for c in extra])
                    x_starts += [extra[i].copy() for i in np.argsort(vals)[:starts - 1]]
                w, fw = w0, f0
                for x0 in x_starts:
                    res = scipy.optimize.minimize(fun, x0, jac=True, method=scipy_method,
                                                  options={"maxiter": maxiter, "gtol": tol})
                    total_iter += int(res.nit)
                    if np.all(np.isfinite(res.x)) and res.fun < fw:
                        w, fw = res.x, float(res.fun)
            else:
                w = w0
            history.append(factor * state.add(np.ascontiguousarray(w, dtype=np.float64)))
            if bar is not None:
                bar.update(n, history[-1])
            if checkpoint is not None and every and n % every == 0 and n < s:
                checkpoint(Sequence(state.W[:n].copy(), None, {
                    "method": "greedy", "density": meta["density"],
                    "box_over_sigma": meta["box_over_sigma"], "d2": history[-1],
                    "history": history, "stop_reason": "checkpoint", "checkpoint": True}))
    except (KeyboardInterrupt, SystemError) as exc:
        if not _is_interrupt(exc):
            raise
        interrupted = True
    if bar is not None:
        bar.close()
    if state.t == 0:
        raise KeyboardInterrupt
    U = state.W[:state.t].copy()
    meta.update({
        "s": state.t,
        "history": history,
        "iterations": total_iter,
        "stop_reason": "interrupted" if interrupted else "all points placed",
        "optimizer": method,
        "maxiter": maxiter,
        "tol": tol,
        "starts": starts,
        "seconds": time.perf_counter() - t0,
    })
    if interrupted:
        meta["expected_mc"] = float(objective.expected_mc(state.t, d=d))
        meta["halton_d2"] = P.halton_d2(state.t)
    return P.finish(U, None, meta, history[-1])


# --------------------------------------------------------------------------- weighted
def weighted_sequence(objective, s, *, d=None, init="halton", solver="nnls", seed=None):
    """QMC points with the optimal nonnegative weights of eq. 17.

    Parameters
    ----------
    objective : BoxDiscrepancy
    s : int
    d : int or None, default=None
    init : str, Sequence or array_like of shape (s, d), default="halton"
        The points (see :func:`global_sequence`).
    solver : {"nnls", "cvxpy"}, default="nnls"
        See :func:`qmc_orff.optimal_weights`.
    seed : None, int or Generator, default=None
        Used by ``init="random"`` only.

    Returns
    -------
    Sequence
        With ``weights``; ``meta`` records ``d2`` (the weighted ``D^2``),
        ``uniform_d2`` (same points, weights ``1/s``), ``kkt_residual``,
        ``solver``, ``n_zero_weights``.
    """
    d = _resolve_d(objective, d)
    s = check_int(s, "s", minimum=1)
    P = _Unit(objective, d)
    U, init_name = P.init_points(init, s, seed)
    meta = P.base_meta(s, "weighted", init_name)
    t0 = time.perf_counter()
    # H and v of the unit problem are those of the objective divided by prod(sigma):
    # the same optimal weights
    res = optimal_weights(P.obj, U, solver=solver)
    meta.update({
        "uniform_d2": P.d2(U),
        "kkt_residual": res.kkt_residual,
        "solver": res.solver,
        "solver_status": res.status,
        "n_zero_weights": res.n_active,
        "weights_sum": float(np.sum(res.weights)),
        "stop_reason": res.status,
        "iterations": 0,
        "seconds": time.perf_counter() - t0,
    })
    return P.finish(U, res.weights, meta, P.d2(U, res.weights))


# --------------------------------------------------------------------------- lattice
def _lattice_unit(z, s, shift):
    i = np.arange(s, dtype=np.int64)[:, None]
    return np.mod((i * np.asarray(z, dtype=np.int64)[None, :]) % s / s + shift, 1.0)


def lattice_sequence(objective, s, *, d=None, shift=None, candidates=None):
    """Rank-1 lattice whose generating vector minimises the box discrepancy, component by component.

    Parameters
    ----------
    objective : BoxDiscrepancy
    s : int
        Number of points, the lattice modulus (>= 2).
    d : int or None, default=None
    shift : None or array_like of shape (d,), default=None
        Shift modulo 1 applied to the lattice before the inverse CDF.  ``None``
        means ``1 / (2 s)`` in every coordinate: the centred lattice, whose
        points ``(k + 1/2) / s`` avoid 0 and are symmetric about 1/2 in each
        coordinate.  Must keep every point away from 0.
    candidates : None or int, default=None
        Candidate values for each generating-vector component: all integers in
        ``[1, s/2]`` coprime with ``s`` (``None``; with the centred shift
        ``z`` and ``s - z`` give mirror-image, equally good points), or at most
        this many of them, evenly spaced.

    Returns
    -------
    Sequence
        ``meta`` holds ``generating_vector`` (``z_1 = 1``), ``lattice_n = s``,
        ``lattice_shift`` and the ``D^2`` after each component in
        ``history``; :meth:`Sequence.write_lattice` exports it in the LDData
        lattice format.

    Notes
    -----
    Point ``i`` is ``w_i = F^-1(frac(i z / s + shift)) / sigma``.  Component ``j``
    is chosen with components ``1..j-1`` fixed, minimising the box discrepancy
    of the ``j``-dimensional projection (box ``b_1..b_j``).  The pair term is a
    product over coordinates, so the ``(s, s)`` product of the chosen
    coordinates' sinc factors is kept: each candidate costs O(s^2).
    """
    d = _resolve_d(objective, d)
    s = check_int(s, "s", minimum=2)
    prob = _Unit(objective, d)
    b, sigma = prob.a, np.ones(d)  # unit bandwidth
    if shift is None:
        shift = np.full(d, 0.5 / s)
    else:
        shift = np.asarray(shift, dtype=np.float64)
        if shift.shape != (d,) or not np.all(np.isfinite(shift)):
            raise ValueError(f"'shift' must be a finite array of shape ({d},); got {shift.shape}.")
        shift = np.mod(shift, 1.0)
    cand = np.array([z for z in range(1, s // 2 + 1) if math.gcd(z, s) == 1], dtype=np.int64)
    if candidates is not None:
        k = check_int(candidates, "candidates", minimum=1)
        if k < cand.size:
            cand = cand[np.unique(np.round(np.linspace(0, cand.size - 1, k)).astype(np.int64))]
    density = objective.density
    # pair factors as products over coordinates; v and C likewise
    P = np.ones((s, s))
    v = np.ones(s)
    C = 1.0
    z = []
    history = []

    def coord(zj, j):
        tj = np.mod((np.arange(s, dtype=np.int64) * zj) % s / s + shift[j], 1.0)
        if np.any(tj <= 0.0) or np.any(tj >= 1.0):
            raise ValueError("'shift' puts a lattice point at 0; choose a shift with no "
                             "coordinate a multiple of 1/s.")
        return np.asarray(density.ppf(tj), dtype=np.float64) / sigma[j]

    def factors(x, j):
        diff = x[:, None] - x[None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            F = np.where(diff == 0.0, b[j], np.sin(b[j] * diff) / np.where(diff == 0.0, 1.0, diff))
        F /= np.pi
        g = np.asarray(density.g(sigma[j] * x, b[j] / sigma[j]), dtype=np.float64) * sigma[j]
        Cj = float(density.C(b[j] / sigma[j])) * sigma[j]
        return F, g, Cj

    for j in range(d):
        best = None
        for zj in ([1] if j == 0 else cand):
            x = coord(int(zj), j)
            F, g, Cj = factors(x, j)
            val = float(np.sum(P * F)) / s ** 2 - 2.0 * float(np.sum(v * g)) / s + C * Cj
            if best is None or val < best[0]:
                best = (val, int(zj), F, g, Cj)
        val, zj, F, g, Cj = best
        z.append(zj)
        P *= F
        v *= g
        C *= Cj
        history.append(prob.factor * val)
    t = _lattice_unit(z, s, shift)
    U = to_frequencies(t, density, 1.0)
    meta = prob.base_meta(s, "lattice", "lattice")
    meta.update({
        "generating_vector": z,
        "lattice_n": s,
        "lattice_shift": [float(x) for x in shift],
        "n_candidates": int(cand.size),
        "history": history,
        "iterations": d,
        "stop_reason": "all components chosen",
    })
    return prob.finish(U, None, meta, prob.d2(U))
