"""Moved to :mod:`qmc_orff.objectives._box_kernels` (issue 19); this old path forwards."""
from ._lazy import forward

_RENAMED = {}
_PUBLIC = ()
_MODULES = ("qmc_orff.objectives._box_kernels",)

__getattr__ = forward(__name__, _RENAMED, _PUBLIC, "qmc_orff.objectives._box_kernels", _MODULES)
