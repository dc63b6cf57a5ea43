"""Moved to :mod:`qmc_orff.densities._kernels` (issue 19); this old path forwards its names."""
from ._lazy import forward

__getattr__ = forward(__name__, {}, (), 'qmc_orff.densities._kernels',
                      ('qmc_orff.densities._kernels',))
