"""Moved to :mod:`qmc_orff.objectives._greedy_kernels` and
:mod:`qmc_orff.designs._line_search_kernels` (issue 19); this old path forwards their names.
"""
from ._lazy import forward

_RENAMED = {}
_PUBLIC = ()
_MODULES = ("qmc_orff.objectives._greedy_kernels", "qmc_orff.designs._line_search_kernels")

__getattr__ = forward(__name__, _RENAMED, _PUBLIC, "qmc_orff.objectives._greedy_kernels", _MODULES)
