"""Objectives: what a frequency design minimises.

- :class:`BoxDiscrepancy` (:mod:`.box`): the box discrepancy of Avron et al. (2016);
- :class:`DataDiscrepancy` (:mod:`.data`): the Gram error on a data set;
- :class:`OperatorDataDiscrepancy` (:mod:`.operator_data`): its operator-valued analogue;
- :func:`optimal_weights` (:mod:`.weights`): the weights QP over any of them.

Every design takes any object with the methods of
:class:`~qmc_orff.objectives.protocol.Objective`.  Names are imported on first
use (PEP 562): the box discrepancy does not load the data objectives' kernels.
"""
from __future__ import annotations

from .._lazy import lazy

_LAZY = {
    "box": ("BoxDiscrepancy", "box_from_data"),
    "data": ("DataDiscrepancy", "KERNELS"),
    "operator_data": ("OperatorDataDiscrepancy", "OPERATOR_KERNELS"),
    "protocol": ("Objective", "UnitBandwidth"),
    "weights": ("optimal_weights", "solve_weights_qp", "WeightsResult"),
}

__all__ = sorted(name for names in _LAZY.values() for name in names)
__getattr__, __dir__ = lazy(__name__, _LAZY)
