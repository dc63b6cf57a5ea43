"""Moved to :mod:`qmc_orff.designs._cg` (issue 19); this old path forwards its names."""
from ._lazy import forward

_RENAMED = {}
_PUBLIC = ()
_MODULES = ("qmc_orff.designs._cg",)

__getattr__ = forward(__name__, _RENAMED, _PUBLIC, "qmc_orff.designs._cg", _MODULES)
