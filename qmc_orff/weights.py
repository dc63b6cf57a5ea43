"""Moved to :mod:`qmc_orff.objectives.weights` (issue 19); this old path forwards its names."""
from ._lazy import forward

_RENAMED = {}
_PUBLIC = ("optimal_weights", "solve_weights_qp", "WeightsResult")
_MODULES = ("qmc_orff.objectives.weights",)

__getattr__ = forward(__name__, _RENAMED, _PUBLIC, "qmc_orff.objectives", _MODULES)
