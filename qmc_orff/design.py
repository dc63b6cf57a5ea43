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

Objectives
----------
``global_sequence``, ``greedy_sequence`` and ``weighted_sequence`` take either
objective: a :class:`~qmc_orff.BoxDiscrepancy` (the paper's) or a
:class:`~qmc_orff.DataDiscrepancy` (the Gram error over a data set's pairwise
differences; see :mod:`qmc_orff._data_design` for its unit-bandwidth problem and
:func:`qmc_orff.adaptive_sequence` for the validated design built on it).  For
the data objective "normalised" means divided by ``||K||_F^2 / m^2`` (the squared
relative Gram error), ``box_over_sigma`` is None and ``halton_d2`` refers to
the unscrambled Halton points of the kernel's density.

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

Units and high dimension
------------------------
Every design optimises and compares the *normalised* discrepancy
``pi^d / prod(b) * D^2`` (the mean squared integration error over the box,
Theorem 12 of Avron et al.; ``BoxDiscrepancy(..., normalize=True)``), whose
factors all lie in ``[-1, 1]``: the designs work in any dimension (tested up
to d = 512), where ``prod(b / pi)`` under- or overflows float64.  The optimal
points are the same in either units (the two objectives differ by a positive
constant).  ``meta`` records both: ``normalized_d2``,
``normalized_halton_d2``, ``normalized_expected_mc`` (and
``normalized_history``, ``normalized_initial_d2`` where the design has them)
and, in the objective's units, ``d2``, ``halton_d2``, ``expected_mc``,
``history``, ``initial_d2``.  The latter are ``prod(b / pi)`` times the former
and, in high dimension, may underflow to 0.0 or, where the product overflows
float64, be ``None``.  ``ratio_to_halton`` is the ratio of the normalised
values (the same ratio, finite even where the raw values underflow).
``sigma_product`` (``prod(sigma)``) is likewise 0.0 or ``None`` where it under-
or overflows.
"""
from __future__ import annotations

import math
import sys
import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import numpy as np
import scipy.optimize

from . import __version__
from ._cg import minimize_cg
from ._density_kernels import gauss_nodes
from ._design_kernels import (greedy_candidate, greedy_candidate_gauss, greedy_pair_sum_t,
                              greedy_pair_sum_t_value, product_and_grad, tabulate_row)
from ._validation import as_generator, check_choice, check_dimension, check_int, check_positive_real
from ._validation import MAX_DESIGN_POINTS, check_size
from .densities import GaussianDensity
from .sequence import Sequence
from .weights import optimal_weights

if TYPE_CHECKING:  # names used in type hints only
    from typing import Any, Callable

    from numpy.typing import ArrayLike

    from .discrepancy import BoxDiscrepancy

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
    s = check_int(s, "s", minimum=1, maximum=MAX_DESIGN_POINTS)
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
    d = check_dimension(d)
    s = check_size(s, "s", minimum=1, width=d)   # an (s, d) array
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


def _scaled(value, log_scale):
    """``value * exp(log_scale)`` without forming ``exp(log_scale)`` (which may under- or
    overflow on its own).

    The result underflows to 0.0 only when the product itself does; where the
    product overflows float64 the result is None (meta must stay JSON-finite).
    """
    value = float(value)
    if value == 0.0 or not math.isfinite(value):
        return value
    e = math.log(abs(value)) + log_scale
    try:
        return math.copysign(math.exp(e), value)
    except OverflowError:
        return None


class _Unit:
    """The design problem at unit bandwidth, in normalised units.

    With ``u = sigma w`` and ``a = b / sigma``, the normalised discrepancy
    ``pi^d / prod(b) D^2`` (Theorem 12 of Avron et al.) is invariant under the
    change of bandwidth: ``normalized D^2_{b, sigma}(W) = normalized D^2_{a, 1}(U)``
    (every factor of the pair, linear and constant terms depends on ``b_j w_j``
    and ``a_j`` only).  Every design optimises ``U`` for the normalised
    unit-bandwidth objective, whose factors all lie in ``[-1, 1]``, so nothing
    underflows in high dimension; values in the objective's units
    (``D^2 = prod(b / pi) * normalised``) are formed only for reporting, and may
    underflow to 0.0 (or overflow) there.
    """

    def __init__(self, objective, d):
        from .discrepancy import BoxDiscrepancy

        self.objective = objective
        self.d = d
        b, self.sigma = objective.box_and_sigma(d)
        self.a = b / self.sigma
        self.density = objective.density
        self.obj = BoxDiscrepancy(self.a, kernel=objective.density, sigma=np.ones(d), d=d)
        #: prod(sigma) for meta["sigma_product"] (0.0 on underflow, None on overflow)
        self.factor = _scaled(1.0, float(np.sum(np.log(self.sigma))))
        #: log prod(b / pi): D^2 in the objective's units = normalised value * exp(log_scale)
        self.log_scale = float(np.sum(np.log(b / math.pi)))

    def raw(self, value):
        """A normalised value in the objective's units (``* prod(b / pi)``; may underflow)."""
        return _scaled(value, self.log_scale)

    #: evaluate D^2 on the value-and-gradient path (designs that need the gradient anyway):
    #: the same value, bit for bit, and one compiled pair kernel fewer on a first call
    via_gradient = False

    def nd2(self, U, weights=None):
        """Normalised ``D^2`` of the unit-bandwidth points ``U`` (= that of ``U / sigma``)."""
        if self.via_gradient:
            return float(self.obj.value_and_grad(U, weights, normalize=True)[0])
        return float(self.obj(U, weights, normalize=True))

    def d2(self, U, weights=None):
        """``D^2`` of the frequencies ``U / sigma`` in the objective's units."""
        return self.raw(self.nd2(U, weights))

    def halton_nd2(self, s):
        return self.nd2(to_frequencies(unit_points("halton", s, self.d), self.density, 1.0))

    def expected_mc_meta(self, s):
        """``{"expected_mc", "normalized_expected_mc"}`` for ``s`` points."""
        emc = float(self.obj.expected_mc(s, normalize=True))
        return {"expected_mc": self.raw(emc), "normalized_expected_mc": emc}

    def halton_meta(self, s):
        """``{"halton_d2", "normalized_halton_d2"}`` for the first ``s`` Halton points."""
        h = self.halton_nd2(s)
        return {"halton_d2": self.raw(h), "normalized_halton_d2": h}

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
        meta = {
            "method": method,
            "init": init_name,
            "density": self.density.name,
            "box_over_sigma": [float(x) for x in self.a],
            "s": s,
            "d": self.d,
        }
        return self.stamped(meta, s)

    def stamped(self, meta, s):
        """``meta`` with the Monte Carlo expectation, the library version and the time."""
        meta.update(self.expected_mc_meta(s))
        meta.update({
            "library_version": __version__,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        })
        return meta

    def greedy_state(self, s):
        """Running sums for :func:`greedy_sequence` (unit bandwidth, normalised units)."""
        return _GreedyState(self.obj, s, self.d)

    def finish(self, U, weights, meta, nd2):
        """The Sequence of unit-bandwidth points ``U`` with the final figures in ``meta``.

        ``nd2`` is the normalised ``D^2``; ``meta["d2"]`` gets it in the objective's
        units.  ``ratio_to_halton`` is the ratio of the normalised values (the same
        number, but finite even where the raw values underflow).
        """
        meta = dict(meta)
        meta["d2"] = self.raw(nd2)
        meta["normalized_d2"] = float(nd2)
        if "normalized_halton_d2" not in meta:
            meta.update(self.halton_meta(U.shape[0]))
        h = meta["normalized_halton_d2"]
        meta["ratio_to_halton"] = float(nd2) / h if h > 0 else None
        # never the only number (issue 10): also against the Monte Carlo expectation
        emc = meta.get("normalized_expected_mc")
        meta["ratio_to_mc"] = float(nd2) / emc if emc else None
        meta["sigma_product"] = self.factor
        return Sequence(U, weights, meta)


def _problem(objective, d):
    """The unit-bandwidth design problem of a box or a data objective."""
    from ._data_design import DataUnit, is_data_objective

    return DataUnit(objective, d) if is_data_objective(objective) else _Unit(objective, d)


def _box_only(objective, name):
    from ._data_design import is_data_objective

    if is_data_objective(objective):
        raise TypeError(f"{name} needs a BoxDiscrepancy 'objective' (it is built from the box's "
                        "one-dimensional factors); got a DataDiscrepancy.")
    return objective


class _Progress:
    """Progress on stderr: iteration, normalised D^2 and the ratio to Halton.

    On a terminal, one line redrawn in place (``\\r`` frames).  Otherwise (a log
    file, a pipe) plain lines: one every ``every`` iterations (default: about
    20 lines per run) or ``seconds`` seconds, whichever comes first, and the
    last state on :meth:`close`.  ``halton`` and the values passed to
    :meth:`update` are normalised (``pi^d / prod(b) D^2``).
    """

    def __init__(self, total, halton, stream=None, width=24, every=None, seconds=30.0):
        self.total = max(int(total), 1)
        self.halton = halton
        self.stream = sys.stderr if stream is None else stream
        self.width = width
        self.start = time.perf_counter()
        isatty = getattr(self.stream, "isatty", None)
        try:
            self.tty = bool(isatty()) if callable(isatty) else False
        except (OSError, ValueError):
            self.tty = False
        self.every = max(self.total // 20, 1) if every is None else max(int(every), 1)
        self.seconds = float(seconds)
        self.last_time = self.start
        self.pending = None  # the latest state not yet written (log mode)

    def update(self, it, d2):
        ratio = d2 / self.halton if self.halton > 0 else float("nan")
        self.show(it, f"normalised D^2={d2:.4e} ratio to Halton={ratio:.3g}")

    def show(self, it, what):
        """Show iteration ``it`` of ``total`` with the text ``what``."""
        frac = min(it / self.total, 1.0)
        filled = int(round(frac * self.width))
        now = time.perf_counter()
        text = f"{it}/{self.total} {what} ({now - self.start:.1f} s)"
        if self.tty:
            self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {text}")
        elif it % self.every == 0 or it >= self.total or now - self.last_time >= self.seconds:
            self.stream.write(f"progress: {text}\n")
            self.last_time, self.pending = now, None
        else:
            self.pending = text
            return
        self.stream.flush()

    def close(self):
        if self.tty:
            self.stream.write("\n")
        elif self.pending is not None:
            self.stream.write(f"progress: {self.pending}\n")
            self.pending = None
        self.stream.flush()


# --------------------------------------------------------------------------- global
def global_sequence(objective: BoxDiscrepancy | ArrayLike, s: int, *, d: int | None = None,
                    init: str | Sequence | ArrayLike = "halton", method: str = "cg",
                    maxiter: int = 200, tol: float = 1e-6, seed: Any = None,
                    callback: Callable | None = None, progress: bool = False) -> Sequence:
    """Minimise the squared box discrepancy over all ``s x d`` coordinates at once.

    Parameters
    ----------
    objective : BoxDiscrepancy
        Box, kernel density and bandwidth.
    s : int
        Number of points, ``1 <= s <= 8192`` (`MAX_DESIGN_POINTS`).
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
        ``d2``, ``normalized_d2``, ``expected_mc``, ``normalized_expected_mc``,
        ``halton_d2``, ``normalized_halton_d2``, ``ratio_to_halton``,
        ``initial_d2``, ``normalized_initial_d2``, ``history`` (``D^2`` after
        each iteration, starting with the initial value),
        ``normalized_history``, ``iterations``, ``stop_reason``, ``maxiter``,
        ``tol``, ``optimizer``.  Values without ``normalized_`` are in the
        objective's units and may underflow to 0.0 (or be ``None`` on
        overflow) in high dimension; see the module docstring.  A
        ``KeyboardInterrupt`` during the
        optimisation stops it and returns the best iterate with
        ``stop_reason = "interrupted"``.

    Notes
    -----
    ``D^2(S) = s^-2 sum_lm sinc_b(w_l, w_m) - 2 s^-1 sum_l prod_j g_j(w_lj) + prod_j C_j``
    (Avron et al. 2016, eq. 12) with its gradient (eq. 14), both evaluated in
    normalised units (times ``pi^d / prod(b)``).  The optimiser sees
    ``D^2 / expected_mc(s)`` (the same ratio in either units): raw values near
    1e-6 would otherwise sit below SciPy's default tolerances.
    """
    d, s, maxiter, tol = _check_optimizer_args(objective, d, s, method, maxiter, tol)
    if callback is not None and not callable(callback):
        raise TypeError(f"'callback' must be callable or None; got {type(callback).__name__}.")
    P = _problem(objective, d)
    P.via_gradient = True
    U0, init_name = P.init_points(init, s, seed)
    meta = P.base_meta(s, "global", init_name)
    # normalised units throughout (see _Unit); the optimiser sees D^2 / expected_mc(s),
    # the same ratio in either units
    scale = float(P.obj.expected_mc(s, normalize=True))
    if not scale > 0:   # 1 - prod(pi C_j / b_j) rounds to 0: every D^2 is 0 in float64
        raise ValueError("'objective' has a box too small for float64: its expected Monte "
                         "Carlo D^2 rounds to 0 (increase 'b').")
    meta.update(P.halton_meta(s))
    halton = meta["normalized_halton_d2"]

    best = {"d2": math.inf, "x": None}

    def fun(x):
        val, grad = P.obj.value_and_grad(x.reshape(s, d), normalize=True)
        val = float(val)
        if val < best["d2"]:
            best["d2"], best["x"] = val, x.copy()
        return val / scale, np.asarray(grad, dtype=np.float64).ravel() / scale

    x0 = U0.ravel().copy()
    nd2_0 = fun(x0)[0] * scale
    nhistory = [nd2_0]
    history = [P.raw(nd2_0)]
    bar = _Progress(maxiter, halton) if progress else None
    stop = {"reason": None}

    def cb(intermediate_result):
        xk = intermediate_result.x if hasattr(intermediate_result, "x") else intermediate_result
        fk = getattr(intermediate_result, "fun", None)
        nd2k = float(fk) * scale if fk is not None else P.nd2(xk.reshape(s, d))
        d2k = P.raw(nd2k)
        nhistory.append(nd2k)
        history.append(d2k)
        it = len(history) - 1
        if bar is not None:
            bar.update(it, best["d2"])
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
        "initial_d2": history[0],
        "normalized_initial_d2": nd2_0,
        "history": history,
        "normalized_history": nhistory,
        "iterations": len(history) - 1,
        "stop_reason": stop["reason"],
        "optimizer": method,
        "maxiter": maxiter,
        "tol": tol,
        "objective_scale": P.raw(scale),
        "seconds": time.perf_counter() - t0,
    })
    return P.finish(U, None, meta, best["d2"])


# --------------------------------------------------------------------------- greedy
class _GreedyState:
    """Running sums for the greedy design, uniform weights ``1/t``, in normalised units.

    ``pair`` = sum over ordered pairs (diagonal included) of the normalised
    ``sinc_b`` (``prod_j sin(b_j x_j) / (b_j x_j)``, 1 on the diagonal) among the
    chosen points, ``lin`` = sum of the normalised ``v_l = prod_j pi g_j(w_lj) / b_j``;
    then ``pi^d / prod(b) D^2(S_t) = pair / t^2 - 2 lin / t + C`` with the normalised
    constant ``C``.  Every factor lies in ``[-1, 1]``: nothing underflows in high
    dimension.
    """

    def __init__(self, objective, s, d):
        self.b, self.sigma = objective.box_and_sigma(d)
        self.a = self.b / self.sigma
        self.density = objective.density
        self.diag = 1.0  # normalised sinc_b(w, w)
        self.C = float(objective.constant(d, normalize=True))
        self.W = np.zeros((s, d))
        # transposed tables of the chosen points (rows: W, sin(b W), cos(b W)), so that the
        # O(t d) loops of the kernels run over contiguous memory; scratch for the kernels
        self.tab = np.zeros((3, d, s))
        self.work = np.empty((3 * d + 1, s))
        self.coef = np.array([math.pi / self.a, math.pi * self.sigma / self.a])
        self.t = 0
        self.pair = 0.0
        self.lin = 0.0
        # Gaussian density: the candidates' g, g' in the same compiled call where every
        # coordinate is in the quadrature branch (tables of the nodes' terms in a)
        self.gauss_nodes = (gauss_nodes(self.a) if isinstance(self.density, GaussianDensity)
                            else None)

    def v_and_grad(self, w):
        """Normalised ``v(w) = prod_j pi g_j(w_j) / b_j`` and its gradient in ``w``."""
        g, dg = self._g(w)
        g = g * self.coef[0]  # pi / a
        dg = dg * self.coef[1]  # pi sigma / a
        grad = np.empty_like(g)
        return product_and_grad(g, dg, grad), grad

    def _g(self, w):
        x = self.sigma * w
        if not np.isfinite(x).all():
            raise ValueError("'x' must contain only finite values (no NaN or inf).")
        g, dg = self.density._g_and_derivative_flat(x, self.a)
        return np.asarray(g, dtype=np.float64), np.asarray(dg, dtype=np.float64)

    def candidate(self, w):
        """Normalised ``D^2(S_t + {w})`` and its gradient in ``w`` in O(t d)."""
        grad = np.empty_like(w)
        val = self.scaled_candidate(w, 1.0, grad)
        return val, grad

    def scaled_candidate(self, w, scale, grad):
        """``scale * D^2(S_t + {w})`` (normalised); ``scale`` times its gradient into ``grad``.

        One compiled call (:func:`~qmc_orff._design_kernels.greedy_candidate`) after the
        density's ``g`` (for the Gaussian density, where the quadrature branch applies, one
        call in all: ``greedy_candidate_gauss``, the same bits); the same operations as the
        former NumPy expression
        ``(pair + 2 S + 1) / n^2 - 2 (lin + v) / n + C`` times ``scale``.
        """
        sums = np.array([self.pair, self.lin, self.diag, self.C])
        if self.gauss_nodes is not None:
            val, done = greedy_candidate_gauss(w, self.sigma, self.a, *self.gauss_nodes, self.tab,
                                               self.t, self.b, self.work, self.coef, sums,
                                               self.t + 1, scale, grad)
            if done:
                return val
        g, dg = self._g(w)
        return greedy_candidate(w, self.tab, self.t, self.b, self.work, g, dg, self.coef, sums,
                                self.t + 1, scale, grad)

    def add(self, w):
        S = greedy_pair_sum_t_value(w, self.tab, self.t, self.b, self.work)
        v, _ = self.v_and_grad(w)
        self.W[self.t] = w
        self.tab[0, :, self.t] = w
        tabulate_row(w, self.b, self.tab[1, :, self.t], self.tab[2, :, self.t])
        self.pair += 2.0 * S + self.diag
        self.lin += v
        self.t += 1
        return self.value()

    def value(self):
        n = self.t
        return self.pair / n ** 2 - 2.0 * self.lin / n + self.C


_POOL = 8  # greedy: extra starts are the best of the next _POOL init points


def _greedy_step(state, U0, t, starts, pool, method, maxiter, tol):
    """Point ``t + 1`` of :func:`greedy_sequence` (not yet added to ``state``): ``(w, iterations)``."""
    n = t + 1
    scale = n * n / 2.0  # the pair sum's new diagonal term 1 / n^2 -> 1/2

    def fun(w):
        grad = np.empty(w.shape)
        return state.scaled_candidate(w, scale, grad), grad

    w0 = U0[t].copy()
    if maxiter <= 0:
        return w0, 0
    f0 = fun(w0)[0]
    x_starts = [w0]
    extra = U0[t + 1:t + 1 + pool]
    if starts > 1 and extra.shape[0] > 0:
        vals = np.array([fun(np.ascontiguousarray(c))[0] for c in extra])
        x_starts += [extra[i].copy() for i in np.argsort(vals)[:starts - 1]]
    w, fw = w0, f0
    total_iter = 0
    for x0 in x_starts:
        if method == "cg":  # SciPy's CG steps without its per-call bookkeeping (qmc_orff._cg)
            rx, rfun, nit = minimize_cg(fun, x0, gtol=tol, maxiter=maxiter)
        else:
            res = scipy.optimize.minimize(fun, x0, jac=True, method="L-BFGS-B",
                                          options={"maxiter": maxiter, "gtol": tol})
            rx, rfun, nit = res.x, res.fun, res.nit
        total_iter += int(nit)
        if np.all(np.isfinite(rx)) and rfun < fw:
            w, fw = rx, float(rfun)
    return w, total_iter


def greedy_sequence(objective: BoxDiscrepancy | ArrayLike, s: int, *, d: int | None = None,
                    init: str | ArrayLike = "halton", method: str = "cg", maxiter: int = 50,
                    tol: float = 1e-8, starts: int = 1, seed: Any = None,
                    progress: bool = False, prefix: Sequence | ArrayLike | None = None,
                    checkpoint: Callable | None = None,
                    checkpoint_every: int | None = None) -> Sequence:
    """Greedy adaptive sequence: point ``t+1`` minimises ``D^2(S_t + {w})`` (eq. 15).

    Parameters
    ----------
    objective : BoxDiscrepancy
    s : int
        Number of points, ``1 <= s <= 8192`` (`MAX_DESIGN_POINTS`).
    d : int or None, default=None
        Dimension; required when ``objective.d`` is None.
    init : str, Sequence or array_like of shape (s, d), default="halton"
        Point ``t+1`` is optimised from the ``(t+1)``-th init point.
    method : {"cg", "l-bfgs-b"}, default="cg"
        Optimiser for each step (the paper: nonlinear CG).  ``"cg"`` takes the
        steps of ``scipy.optimize.minimize(method="CG")`` (Polak-Ribiere+, strong
        Wolfe line search; bit-identical iterates) through a lean driver
        (:mod:`qmc_orff._cg`): SciPy's per-call bookkeeping would cost more than
        the O(t d) objective.  ``"l-bfgs-b"`` calls SciPy.
    maxiter : int, default=50
        Iteration cap per local optimisation.
    tol : float, default=1e-8
        ``gtol`` on the per-step normalised objective scaled by ``n^2 / 2``
        (``n = t + 1``; the same as ``D^2`` scaled by ``n^2 / (2 prod(b / pi))``).
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
        ``meta["history"]`` holds ``D^2`` of each prefix ``S_1, ..., S_s``
        (``meta["normalized_history"]`` the normalised values; the raw ones may
        underflow to 0.0 in high dimension, see the module docstring).

    Notes
    -----
    With uniform weights ``1/n`` (``n = t + 1``)::

        D^2(S_t + {w}) = (P_t + 2 sum_l sinc_b(w, w_l) + prod_j b_j/pi) / n^2
                         - 2 (L_t + prod_j g_j(w_j)) / n + prod_j C_j

    where ``P_t`` and ``L_t`` are the running pair and linear sums of ``S_t``:
    each evaluation costs O(t d), not O(t^2 d).  A step never accepts a point
    worse than its init point.  The running sums are kept in normalised units
    (every term divided by ``prod_j b_j / pi``: the diagonal term becomes 1 and
    each sinc factor ``sin(b_j x) / (b_j x)`` lies in ``[-1, 1]``), so they never
    underflow in high dimension.
    """
    d, s, maxiter, tol = _check_optimizer_args(objective, d, s, method, maxiter, tol)
    starts = check_int(starts, "starts", minimum=1)
    pool = _POOL if starts > 1 else 0
    P = _problem(objective, d)
    if pool and isinstance(init, str):
        U0, init_name = P.init_points(init, s + pool, seed)
    else:
        U0, init_name = P.init_points(init, s, seed)
    meta = P.base_meta(s, "greedy", init_name)
    state = P.greedy_state(s)  # unit bandwidth, normalised units (see _Unit)
    nhistory = []
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
            nhistory.append(state.add(np.ascontiguousarray(w)))
        meta["resumed_points"] = int(pre.shape[0])
    if checkpoint is not None and not callable(checkpoint):
        raise TypeError(f"'checkpoint' must be callable or None; got {type(checkpoint).__name__}.")
    every = None if checkpoint_every is None else check_int(checkpoint_every, "checkpoint_every",
                                                            minimum=1)
    meta.update(P.halton_meta(s))
    bar = _Progress(s, meta["normalized_halton_d2"]) if progress else None
    total_iter = 0
    t0 = time.perf_counter()
    interrupted = False
    try:
        for t in range(state.t, s):
            n = t + 1
            w, nit = _greedy_step(state, U0, t, starts, pool, method, maxiter, tol)
            total_iter += nit
            nhistory.append(state.add(np.ascontiguousarray(w, dtype=np.float64)))
            if bar is not None:
                bar.update(n, nhistory[-1])
            if checkpoint is not None and every and n % every == 0 and n < s:
                checkpoint(Sequence(state.W[:n].copy(), None, {
                    "method": "greedy", "density": meta["density"],
                    "box_over_sigma": meta["box_over_sigma"], "d2": P.raw(nhistory[-1]),
                    "normalized_d2": nhistory[-1], "history": [P.raw(x) for x in nhistory],
                    "normalized_history": list(nhistory), "stop_reason": "checkpoint",
                    "checkpoint": True}))
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
        "history": [P.raw(x) for x in nhistory],
        "normalized_history": nhistory,
        "iterations": total_iter,
        "stop_reason": "interrupted" if interrupted else "all points placed",
        "optimizer": method,
        "maxiter": maxiter,
        "tol": tol,
        "starts": starts,
        "seconds": time.perf_counter() - t0,
    })
    if interrupted:
        meta.update(P.expected_mc_meta(state.t))
        meta.update(P.halton_meta(state.t))
    return P.finish(U, None, meta, nhistory[-1])


# --------------------------------------------------------------------------- weighted
def weighted_sequence(objective: BoxDiscrepancy | ArrayLike, s: int, *, d: int | None = None,
                      init: str | Sequence | ArrayLike = "halton", solver: str = "nnls",
                      seed: Any = None, sum_to_one: bool = True) -> Sequence:
    """QMC points with the optimal nonnegative weights of eq. 17, summing to 1 by default.

    Parameters
    ----------
    objective : BoxDiscrepancy
    s : int
        Number of points, ``1 <= s <= 8192`` (the ``(s, s)`` QP matrix).
    d : int or None, default=None
    init : str, Sequence or array_like of shape (s, d), default="halton"
        The points (see :func:`global_sequence`).
    solver : {"nnls", "cvxpy"}, default="nnls"
        See :func:`qmc_orff.optimal_weights`.
    seed : None, int or Generator, default=None
        Used by ``init="random"`` only.
    sum_to_one : bool, default=True
        Constrain ``sum(xi) = 1``, so that the map keeps ``k(0) = 1`` (the diagonal of
        its Gram matrix exact).  ``False`` is the paper's problem, whose weights can sum
        to far below 1 (it warns then); see :func:`qmc_orff.solve_weights_qp`.

    Returns
    -------
    Sequence
        With ``weights``; ``meta`` records ``d2`` (the weighted ``D^2``),
        ``normalized_d2``, ``uniform_d2`` and ``normalized_uniform_d2`` (same
        points, weights ``1/s``), ``kkt_residual``, ``solver``,
        ``n_zero_weights``.  In high dimension the optimal weights can be tiny
        (the linear term ``v`` is a product of ``d`` factors below 1) and the
        raw values may underflow to 0.0; see the module docstring.
    """
    d = _resolve_d(objective, d)
    s = check_int(s, "s", minimum=1, maximum=MAX_DESIGN_POINTS)   # (s, s) QP matrix
    P = _problem(objective, d)
    U, init_name = P.init_points(init, s, seed)
    meta = P.base_meta(s, "weighted", init_name)
    t0 = time.perf_counter()
    # the unit problem in normalised units is the objective's QP divided by prod(b / pi):
    # the same optimal weights
    res = optimal_weights(P.obj, U, solver=solver, normalize=True, sum_to_one=sum_to_one)
    nuniform = P.nd2(U)
    meta.update({
        "uniform_d2": P.raw(nuniform),
        "normalized_uniform_d2": nuniform,
        "kkt_residual": res.kkt_residual,
        "solver": res.solver,
        "solver_status": res.status,
        "n_zero_weights": res.n_active,
        "weights_sum": float(np.sum(res.weights)),
        "sum_to_one": bool(res.sum_to_one),
        "stop_reason": res.status,
        "iterations": 0,
        "seconds": time.perf_counter() - t0,
    })
    return P.finish(U, res.weights, meta, P.nd2(U, res.weights))


# --------------------------------------------------------------------------- lattice
def _lattice_unit(z, s, shift):
    i = np.arange(s, dtype=np.int64)[:, None]
    return np.mod((i * np.asarray(z, dtype=np.int64)[None, :]) % s / s + shift, 1.0)


def lattice_sequence(objective: BoxDiscrepancy | ArrayLike, s: int, *, d: int | None = None,
                     shift: Any = None, candidates: int | None = None) -> Sequence:
    """Rank-1 lattice whose generating vector minimises the box discrepancy, component by component.

    Parameters
    ----------
    objective : BoxDiscrepancy
    s : int
        Number of points, the lattice modulus, ``2 <= s <= 8192`` (the ``(s, s)``
        factor matrices take ``8 s^2`` bytes each; checked before any work).
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
        ``lattice_shift`` and the ``D^2`` of the ``j``-dimensional projection
        after each component ``j`` in ``history`` (normalised by its own
        ``prod_{i <= j} b_i / pi`` in ``normalized_history``);
        :meth:`Sequence.write_lattice` exports it in the LDData lattice format.

    Notes
    -----
    Point ``i`` is ``w_i = F^-1(frac(i z / s + shift)) / sigma``.  Component ``j``
    is chosen with components ``1..j-1`` fixed, minimising the box discrepancy
    of the ``j``-dimensional projection (box ``b_1..b_j``).  The pair term is a
    product over coordinates, so the ``(s, s)`` product of the chosen
    coordinates' normalised sinc factors ``sin(b_j x) / (b_j x)`` is kept: each
    candidate costs O(s^2).  Comparing the normalised values (all factors in
    ``[-1, 1]``) picks the same component as the raw ones, which differ by the
    positive factor ``prod_{i <= j} b_i / pi`` common to all candidates.
    """
    d = _resolve_d(objective, d)
    s = check_int(s, "s", minimum=2, maximum=MAX_DESIGN_POINTS)   # (s, s) factor matrices
    prob = _Unit(_box_only(objective, 'lattice_sequence'), d)
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
    # pair factors as products over coordinates; v and C likewise; all normalised (each
    # coordinate's factor divided by b_j / pi, so in [-1, 1]: nothing underflows in high d)
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
        y = b[j] * (x[:, None] - x[None, :])
        with np.errstate(invalid="ignore", divide="ignore"):
            F = np.where(y == 0.0, 1.0, np.sin(y) / np.where(y == 0.0, 1.0, y))
        g = np.asarray(density.g(sigma[j] * x, b[j] / sigma[j]), dtype=np.float64) * (
            math.pi * sigma[j] / b[j])
        Cj = float(density.C(b[j] / sigma[j])) * (math.pi * sigma[j] / b[j])
        return F, g, Cj

    # history in the objective's units: the j-dimensional projection's normalised value
    # times prod_{i <= j} (a_i / pi), times prod(sigma) (unit-bandwidth convention)
    log_proj = float(np.sum(np.log(prob.sigma)))
    nhistory = []

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
        log_proj += math.log(b[j] / math.pi)
        nhistory.append(val)
        history.append(_scaled(val, log_proj))
    t = _lattice_unit(z, s, shift)
    U = to_frequencies(t, density, 1.0)
    meta = prob.base_meta(s, "lattice", "lattice")
    meta.update({
        "generating_vector": z,
        "lattice_n": s,
        "lattice_shift": [float(x) for x in shift],
        "n_candidates": int(cand.size),
        "history": history,
        "normalized_history": nhistory,
        "iterations": d,
        "stop_reason": "all components chosen",
    })
    return prob.finish(U, None, meta, prob.nd2(U))
