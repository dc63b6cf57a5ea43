"""Unit-cube points of a QMC engine given as ``sequence=``, kept off the cube's boundary.

The inverse CDF is infinite at 0 and 1, and every unrandomised low-discrepancy sequence
starts at the origin.  The named sources (:func:`qmc_orff.sources.frequencies.source_points`)
and an engine passed as ``sequence=`` follow one rule:

* unrandomised points of a known grid -- :class:`qmc_orff.Sobol` and
  `scipy.stats.qmc.Sobol` with ``scramble=False``, :class:`qmc_orff.Halton` with
  ``scramble=False`` or ``"deterministic"`` and `scipy.stats.qmc.Halton` with
  ``scramble=False``, :class:`qmc_orff.Lattice` without a shift -- are *centred*: shifted
  by half a grid step, ``t <- t + b^-D / 2`` (``b`` the coordinate's base, ``D`` the number
  of base-``b`` digits of the last index drawn; ``1 / (2 n_max)`` for a lattice in natural
  order);
* the points of a randomised engine of these kinds are clipped to ``[T_EPS, 1 - T_EPS]``
  (a scrambled coordinate of finitely many digits can be exactly 0);
* any other engine's points are used as drawn; a coordinate outside ``(0, 1)`` is refused
  with a message that says what to pass.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import qmc

from ..generators import Halton, Lattice, Sobol
from ..generators.halton import _n_digits

__all__ = ["centre", "engine_cube_points", "T_EPS"]

#: Safety clip of unit-cube coordinates: ``t`` is clipped to ``[T_EPS, 1 - T_EPS]``
#: before the inverse CDF (``2**-53``, the spacing of doubles just below 1).
T_EPS = 2.0 ** -53


def centre(t, bases, last):
    """Shift the points ``t`` (n, dim) in place by half a grid step per column and clip them.

    ``bases``: the base of each column (an int sequence of length ``dim``); ``last``: the
    largest index among the points drawn (their grid is ``b^-D Z``, ``D`` the number of
    base-``b`` digits of ``last``).  Returns ``t``.
    """
    for j, b in enumerate(bases):
        t[:, j] += 0.5 * float(b) ** (-_n_digits(last, int(b)))
    return np.clip(t, T_EPS, 1.0 - T_EPS, out=t)


def _grid(engine):
    """``("centre", bases)``, ``("natural", n_max)``, ``("clip", None)`` or ``(None, None)``
    (an engine of unknown kind) for ``engine``."""
    d = engine.d
    if isinstance(engine, Halton):  # False / "deterministic": digits of a known base
        randomised = engine._mode == "random"
        return ("clip", None) if randomised else ("centre", engine.base.tolist())
    if isinstance(engine, Sobol):
        return ("clip", None) if engine.scramble else ("centre", [2] * d)
    if isinstance(engine, Lattice):
        if engine.shift is not None:
            return "clip", None
        return ("centre", [2] * d) if engine.order == "radical_inverse" \
            else ("natural", engine.n_max)
    if isinstance(engine, (qmc.Sobol, qmc.Halton)):
        if getattr(engine, "scramble", True):
            return "clip", None
        bases = [2] * d if isinstance(engine, qmc.Sobol) else [int(b) for b in engine.base]
        return "centre", bases
    return None, None


def engine_cube_points(engine, s):
    """The next ``s`` points of ``engine`` (``engine.random(s)``), in ``(0, 1)^d`` float64.

    Unrandomised engines of a known grid are centred by half a grid step (as the named
    sources with ``scramble=False``: the same points for an engine that has drawn nothing
    yet), randomised ones clipped to ``[T_EPS, 1 - T_EPS]``; see the module docstring.
    """
    kind, grid = _grid(engine)
    start = int(getattr(engine, "num_generated", 0))
    t = np.array(engine.random(s), dtype=np.float64)
    if kind == "centre":
        return centre(t, grid, getattr(engine, "sequence_index", int)(max(start + s - 1, 0)))
    if kind == "natural":
        t += 0.5 / float(grid)
        return np.clip(t, T_EPS, 1.0 - T_EPS, out=t)
    if kind == "clip":
        return np.clip(t, T_EPS, 1.0 - T_EPS, out=t)
    bad = ~((t > 0.0) & (t < 1.0))
    if np.any(bad):
        i, j = (int(v[0]) for v in np.nonzero(bad))
        raise ValueError(
            f"'sequence' (a {type(engine).__name__} engine) gave the point {i} a coordinate "
            f"{float(t[i, j])!r} (column {j}), on or outside the boundary of the unit cube, "
            "where the inverse CDF is infinite. Pass a randomised engine (e.g. scramble=True), "
            "an unrandomised Sobol, Halton or Lattice engine of qmc_orff or SciPy (centred by "
            "half a grid step, as sequence='sobol' with scramble=False), or shift the points "
            "into (0, 1) yourself.")
    return t
