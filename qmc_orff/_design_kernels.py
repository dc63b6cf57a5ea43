"""Moved to :mod:`qmc_orff.objectives._greedy_kernels` and :mod:`qmc_orff.designs._line_search_kernels` (issue 19); this old path forwards its names."""
from ._lazy import forward

__getattr__ = forward(__name__, {}, (), 'qmc_orff.objectives._greedy_kernels',
                      ('qmc_orff.objectives._greedy_kernels', 'qmc_orff.designs._line_search_kernels'))
