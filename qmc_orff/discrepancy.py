"""Moved to :mod:`qmc_orff.objectives.box` (issue 19); this old path forwards its names."""
from ._lazy import forward

_RENAMED = {}
_PUBLIC = ("BoxDiscrepancy", "box_from_data")
_MODULES = ("qmc_orff.objectives.box",)

__getattr__ = forward(__name__, _RENAMED, _PUBLIC, "qmc_orff.objectives", _MODULES)
