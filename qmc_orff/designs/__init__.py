"""Frequency designs: sequences that minimise an objective (:mod:`qmc_orff.objectives`).

Each design returns a :class:`~qmc_orff.Sequence` of unit-bandwidth points:

- :func:`global_sequence` (:mod:`.global_design`): all ``s x d`` coordinates at
  once (nonlinear CG or L-BFGS-B), started from QMC points mapped through the
  inverse CDF;
- :func:`greedy_sequence` (:mod:`.greedy`): one point at a time (eq. 15,
  herding), each step O(t d) per evaluation thanks to running sums;
- :func:`weighted_sequence` (:mod:`.weighted`): QMC points with the optimal
  nonnegative weights (eq. 17);
- :func:`lattice_sequence` (:mod:`.lattice`): a rank-1 lattice whose generating
  vector is chosen component by component to minimise the box discrepancy (the
  extension the paper proposes in section 5);
- :func:`adaptive_sequence`, :func:`adaptive_operator_sequence`
  (:mod:`.adaptive`): the data discrepancy with early stopping on a
  validation subsample.

Frequencies are designed for the objective's density at the objective's
bandwidth ``sigma``; the returned sequence stores unit-bandwidth points
``W * sigma`` (so that ``seq.frequencies(sigma)`` gives back ``W``); for the
box discrepancy ``meta["box_over_sigma"] = b / sigma``.

Objectives
----------
``global_sequence``, ``greedy_sequence`` and ``weighted_sequence`` take any
objective of the protocol (:class:`~qmc_orff.objectives.protocol.Objective`): a
:class:`~qmc_orff.BoxDiscrepancy` (the paper's) or a
:class:`~qmc_orff.DataDiscrepancy` (the Gram error over a data set's pairwise
differences).  For the data objective "normalised" means divided by
``||K||_F^2 / m^2`` (the squared relative Gram error), ``box_over_sigma`` is None
and ``halton_d2`` refers to the unscrambled Halton points of the kernel's density.

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

``is_interrupt(exc)`` tells whether an exception is a Ctrl-C (also one that surfaced
through compiled code as a ``SystemError``); ``MAX_DESIGN_POINTS`` is the most points a
design takes (8192) and ``MAX_ELEMENTS`` the most entries of one array the library builds
or reads (2**28), the size policy that every design checks before it allocates.

Start points: see :mod:`qmc_orff.designs.start_points`.  Names are imported on
first use (PEP 562).
"""
from __future__ import annotations

from .._lazy import lazy

_LAZY = {
    "global_design": ("global_sequence",),
    "greedy": ("greedy_sequence",),
    "weighted": ("weighted_sequence",),
    "lattice": ("lattice_sequence",),
    "adaptive": ("adaptive_sequence", "adaptive_operator_sequence", "median_heuristic"),
    "start_points": ("initial_points", "to_frequencies"),
    "_optimizer": ("is_interrupt", "MAX_DESIGN_POINTS", "MAX_ELEMENTS"),
}

__all__ = sorted(name for names in _LAZY.values() for name in names)
__getattr__, __dir__ = lazy(__name__, _LAZY)
