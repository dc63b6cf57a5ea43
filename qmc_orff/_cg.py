"""Moved to :mod:`qmc_orff.designs._cg` (issue 19); this old path forwards its names."""
from ._lazy import forward

__getattr__ = forward(__name__, {}, (), 'qmc_orff.designs._cg',
                      ('qmc_orff.designs._cg',))
