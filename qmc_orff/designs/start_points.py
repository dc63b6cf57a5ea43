"""Start points of the designs: the unit cube and its map to frequencies.

``init="halton"`` (the default) and ``"sobol"`` use the *unscrambled*
sequences from index 1 on: index 0 is the origin, whose inverse CDF is
``-inf``.  Skipping it keeps the designs deterministic and reproduces the
published reference values (Halton ``D^2 = 1.2e-3`` at d=4, s=64,
b/sigma=2).  ``"halton-rr2"`` uses the deterministic RR2-scrambled Halton
sequence (the paper's choice), also from index 1 (RR2 keeps the origin at
index 0); ``"random"`` uses i.i.d. uniform points (``seed``).  As a last guard
every unit coordinate is clipped into ``[2^-53, 1 - 2^-53]`` before the
inverse CDF, so no frequency is ever infinite.
"""
from __future__ import annotations

import numpy as np

from .._validation import as_generator, check_choice, check_dimension, check_size
from ..sources.frequencies import make_frequencies

__all__ = ["initial_points", "to_frequencies", "start_frequencies"]

_INITS = ("halton", "halton-rr2", "sobol", "random")
_EPS_UNIT = 2.0 ** -53


def initial_points(init, s, d, *, seed=None):
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
    qmc_orff.sources.frequencies.source_points : the feature maps' policy for the same
        generators, which keeps index 0 and centres unrandomised points by half a
        grid step instead (no point dropped, nets kept).  Designs skip index 0 so
        that their Halton reference values match Avron et al.
    """
    check_choice(init, "init", _INITS)
    d = check_dimension(d)
    s = check_size(s, "s", minimum=1, width=d)   # an (s, d) array
    if init == "random":
        t = as_generator(seed).random((s, d))
    else:
        from ..generators import Halton, Sobol
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


def to_frequencies(t, density, sigma, *, clip=False):
    """Map unit-cube points through the inverse CDF: ``w_j = ppf(t_j) / sigma_j``.

    ``clip=True`` first clips ``t`` into ``[2^-53, 1 - 2^-53]`` (as the designs' start
    points are), so that points on the cube's faces (an unscrambled sequence's origin)
    give finite frequencies instead of an error.
    """
    if clip:
        t = np.clip(np.asarray(t, dtype=np.float64), _EPS_UNIT, 1.0 - _EPS_UNIT)
    w = np.asarray(density.ppf(t), dtype=np.float64) / sigma
    if not np.all(np.isfinite(w)):
        raise ValueError("the inverse CDF produced non-finite frequencies; unit points must lie "
                         "strictly inside (0, 1).")
    return np.ascontiguousarray(w)


def start_frequencies(init, s, unit, seed=None):
    """Unit-bandwidth frequencies ``(s, d)`` of the named start ``init`` for a unit problem.

    ``unit`` is an objective's :class:`~qmc_orff.objectives.protocol.UnitBandwidth`:
    the unit-cube starts (:data:`_INITS`) go through its density's inverse CDF;
    where it has no product density, or for its other ``sources``, the points
    come from :func:`qmc_orff.make_frequencies` for its ``kernel``.
    """
    d = unit.sigma.shape[0]
    if unit.kernel is None or (unit.density is not None and init in _INITS):
        return to_frequencies(initial_points(init, s, d, seed=seed), unit.density, 1.0)
    if init == "halton-rr2":
        init, scramble = "halton", "deterministic"
    elif init == "random":
        init, scramble = "mc", True
    else:
        scramble = False if init in ("halton", "sobol") else True
    W, _ = make_frequencies(unit.kernel, s, d, sigma=1.0, sequence=init, seed=seed,
                            scramble=scramble, nu=unit.nu)
    return W
