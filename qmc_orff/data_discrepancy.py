"""Moved to :mod:`qmc_orff.objectives.data` and :mod:`qmc_orff.objectives.operator_data`
(issue 19); this old path forwards their names.
"""
from ._lazy import forward

_RENAMED = {}
_PUBLIC = ("DataDiscrepancy", "OperatorDataDiscrepancy", "KERNELS", "OPERATOR_KERNELS")
_MODULES = ("qmc_orff.objectives.data", "qmc_orff.objectives.operator_data")

__getattr__ = forward(__name__, _RENAMED, _PUBLIC, "qmc_orff.objectives", _MODULES)
