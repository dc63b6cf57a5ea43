"""Moved to :mod:`qmc_orff.objectives.data` and :mod:`qmc_orff.objectives.operator_data` (issue 19); this old path forwards its names."""
from ._lazy import forward

__getattr__ = forward(__name__, {}, ('DataDiscrepancy', 'OperatorDataDiscrepancy', 'KERNELS', 'OPERATOR_KERNELS'), 'qmc_orff.objectives',
                      ('qmc_orff.objectives.data', 'qmc_orff.objectives.operator_data'))
