"""The designs' shared plumbing: the unit-bandwidth problem, argument checks, progress, Ctrl-C.

Every design (:mod:`.global_design`, :mod:`.greedy`, :mod:`.weighted`,
:mod:`.lattice`) works on a :class:`UnitProblem`: the objective's problem at
unit bandwidth (:meth:`~qmc_orff.objectives.protocol.Objective.unit_bandwidth`),
in normalised units, with the start points, the ``meta`` entries and the
final :class:`~qmc_orff.Sequence`.  It takes any objective of the protocol
and never asks for its type.
"""
from __future__ import annotations

import math
import sys
import time
from datetime import datetime, timezone

import numpy as np

from .._version import __version__
from .._validation import (MAX_DESIGN_POINTS, MAX_ELEMENTS, as_float_array, check_choice,
                           check_dimension, check_int, check_positive_real)
from ..sequence import Sequence
from .start_points import _INITS, start_frequencies

__all__ = ["UnitProblem", "is_interrupt", "MAX_DESIGN_POINTS", "MAX_ELEMENTS"]

_METHODS = ("cg", "l-bfgs-b")


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


def is_interrupt(exc):
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


def _check_checkpoint(checkpoint, checkpoint_every, **callables):
    """Checked ``checkpoint_every`` (None or an int >= 1); ``checkpoint`` and the other
    ``callables`` must be callable or None."""
    for name, fn in {"checkpoint": checkpoint, **callables}.items():
        if fn is not None and not callable(fn):
            raise TypeError(f"'{name}' must be callable or None; got {type(fn).__name__}.")
    if checkpoint_every is None:
        return None
    return check_int(checkpoint_every, "checkpoint_every", minimum=1)


def _check_resume(resume, method, s, d):
    """``(iterations, meta)`` of the design ``resume`` continues: a Sequence of ``method``
    ("global", "adaptive") and shape ``(s, d)`` with a whole ``iterations`` count."""
    if not isinstance(resume, Sequence):
        raise TypeError(f"'resume' must be a Sequence (a checkpoint or result) or None; got "
                        f"{type(resume).__name__}.")
    m = resume.meta
    if m.get("method") != method:
        raise ValueError(f"'resume' must hold {'an' if method[0] in 'aeiou' else 'a'} "
                         f"{method!r} design; got {m.get('method')!r}.")
    if resume.s != s or resume.d != d:
        raise ValueError(f"'resume' has shape ({resume.s}, {resume.d}); expected ({s}, {d}).")
    done = m.get("iterations", 0)
    if type(done) is not int or done < 0:
        raise ValueError(f"'resume' has a malformed 'iterations' entry (an int >= 0); got "
                         f"{done!r}.")
    return done, m


def _check_optimizer_args(objective, d, s, method, maxiter, tol):
    """Checked ``(d, s, maxiter, tol)`` of the optimising designs (global, greedy)."""
    d = _resolve_d(objective, d)
    s = check_int(s, "s", minimum=1, maximum=MAX_DESIGN_POINTS)
    check_choice(method, "method", _METHODS)
    maxiter = check_int(maxiter, "maxiter", minimum=0)
    return d, s, maxiter, check_positive_real(tol, "tol")


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


class UnitProblem:
    """The design problem of any objective at unit bandwidth, in normalised units.

    Built from the objective's :meth:`~qmc_orff.objectives.protocol.Objective.unit_bandwidth`:
    for the box discrepancy, with ``u = sigma w`` and ``a = b / sigma``, the
    normalised discrepancy ``pi^d / prod(b) D^2`` (Theorem 12 of Avron et al.) is
    invariant under the change of bandwidth,
    ``normalized D^2_{b, sigma}(W) = normalized D^2_{a, 1}(U)``; for the data
    discrepancy ``L_{X, sigma}(W) = L_{X / sigma, 1}(sigma W)``.  Every design
    optimises ``U`` for the normalised unit-bandwidth objective (for the box, every
    factor lies in ``[-1, 1]``, so nothing underflows in high dimension); values in
    the objective's units (normalised times ``objective.normalizer()``) are formed
    only for reporting, and may underflow to 0.0 (or overflow) there.

    Parameters
    ----------
    objective : Objective
    d : int
    """

    def __init__(self, objective, d):
        unit = objective.unit_bandwidth(d)
        self.objective = objective
        self.d = d
        self.unit = unit
        self.sigma = unit.sigma
        #: b / sigma for the box discrepancy (None for other objectives)
        self.a = unit.box_over_sigma
        self.density = unit.density
        self.obj = unit.objective
        #: prod(sigma) for meta["sigma_product"] (0.0 on underflow, None on overflow)
        self.factor = _scaled(1.0, float(np.sum(np.log(self.sigma))))
        #: log of the objective's normaliser: value in its units = normalised * exp(log_scale)
        self.log_scale = unit.log_normalizer

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
        return self.nd2(start_frequencies("halton", s, self.unit))

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
            sources = self.unit.sources
            if init not in _INITS and sources:
                if init not in sources:
                    names = ", ".join(map(repr, _INITS + sources))
                    raise ValueError(f"'init' must be one of {names}, a Sequence or an array; "
                                     f"got {init!r}.")
                if init == "orf" and self.unit.kernel != "gaussian":
                    raise ValueError(f"'init'='orf' needs the Gaussian kernel; got "
                                     f"{self.unit.kernel!r}.")
            return start_frequencies(init, s, self.unit, seed), init
        W = as_float_array(init, "init", finite=False)  # sparse, complex, str: a TypeError
        if W.shape != (s, d):
            raise ValueError(f"'init' must be a generator name ({', '.join(map(repr, _INITS))}), "
                             f"a Sequence or an array of shape ({s}, {d}); got shape {W.shape}.")
        if not np.all(np.isfinite(W)):
            raise ValueError("'init' must contain only finite values (no NaN or inf).")
        return np.ascontiguousarray(W * self.sigma), "array"

    def base_meta(self, s, method, init_name):
        meta = {"method": method, "init": init_name, **self.unit.meta, "s": s, "d": self.d}
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
        """Running sums for :func:`~qmc_orff.greedy_sequence` (unit bandwidth, normalised units)."""
        return self.obj.greedy_state(s, self.d)

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
        # never the only number: also against the Monte Carlo expectation
        emc = meta.get("normalized_expected_mc")
        meta["ratio_to_mc"] = float(nd2) / emc if emc else None
        meta["sigma_product"] = self.factor
        return Sequence(U, weights, meta)


#: One line of progress: ``iteration/total``, the caller's text and tqdm's
#: ``[elapsed<remaining, rate]``.
_LINE = "{n_fmt}/{total_fmt} {desc} [{elapsed}<{remaining}, {rate_fmt}]"


class _Progress:
    """Progress on stderr: iteration, the caller's text, elapsed time, ETA and rate (tqdm).

    On a terminal, a ``tqdm`` bar redrawn in place (at most one frame every
    ``mininterval`` seconds, the last state on :meth:`close`; tqdm pads each frame
    over the previous one and fits it to the terminal's width).  Otherwise (a log
    file, a pipe) plain lines, never ``\\r``: ``progress: `` and tqdm's
    ``format_meter`` of the state, one every ``every`` iterations (default: about
    20 lines per run) or ``seconds`` seconds, whichever comes first, and the last
    state on :meth:`close` (tqdm itself would write ``\\r`` frames into the log).
    The rate is the mean over this run (the iterations since the first update
    over the time since then, tqdm's ``initial``: a resumed run counts only its
    own), the remaining time ``(total - it) / rate``.  ``halton`` and the values passed to :meth:`update` are
    normalised (``pi^d / prod(b) D^2``).
    """

    def __init__(self, total, halton, stream=None, width=24, every=None, seconds=30.0,
                 mininterval=0.1):
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
        self.mininterval = float(mininterval)
        self.last_time = self.start
        self.pending = None  # the latest log line not yet written
        self.base = None     # the iteration count before the first update
        self.bar = None      # the terminal's tqdm bar, made at the first update

    def update(self, it, d2):
        ratio = d2 / self.halton if self.halton > 0 else float("nan")
        self.show(it, f"normalised D^2={d2:.4e} ratio to Halton={ratio:.3g}")

    def show(self, it, what):
        """Show iteration ``it`` of ``total`` with the text ``what``."""
        from tqdm import tqdm

        if self.base is None:
            self.base = max(it - 1, 0)
        if self.tty:
            if self.bar is None:  # tqdm's clock starts here: the rate counts what follows
                self.bar = tqdm(total=self.total, initial=it, file=self.stream,
                                mininterval=self.mininterval, miniters=1, smoothing=0,
                                delay=1e-9,  # no empty frame before the first update
                                dynamic_ncols=True, ascii=".#", leave=True,
                                bar_format=f"[{{bar:{self.width}}}] {_LINE}")
                self.bar.set_description_str(what)  # the first frame
                return
            self.bar.set_description_str(what, refresh=False)
            self.bar.update(it - self.bar.n)
            return
        now = time.perf_counter()
        text = tqdm.format_meter(it, self.total, now - self.start, prefix=what,
                                 bar_format=_LINE, initial=self.base)
        if it % self.every == 0 or it >= self.total or now - self.last_time >= self.seconds:
            self.stream.write(f"progress: {text}\n")
            self.stream.flush()
            self.last_time, self.pending = now, None
        else:
            self.pending = text

    def close(self):
        if self.bar is not None:
            self.bar.close()  # draws the last state, then the newline
            self.bar = None
        elif self.pending is not None:
            self.stream.write(f"progress: {self.pending}\n")
            self.pending = None
        self.stream.flush()
