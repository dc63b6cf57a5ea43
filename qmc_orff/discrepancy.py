"""Moved to :mod:`qmc_orff.objectives.box` (issue 19); this old path forwards its names."""
from ._lazy import forward

__getattr__ = forward(__name__, {}, ('BoxDiscrepancy', 'box_from_data'), 'qmc_orff.objectives',
                      ('qmc_orff.objectives.box',))
