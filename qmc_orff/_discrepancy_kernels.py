"""Moved to :mod:`qmc_orff.objectives._box_kernels` (issue 19); this old path forwards its names."""
from ._lazy import forward

__getattr__ = forward(__name__, {}, (), 'qmc_orff.objectives._box_kernels',
                      ('qmc_orff.objectives._box_kernels',))
