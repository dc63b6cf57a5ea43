"""Moved to :mod:`qmc_orff.objectives.weights` (issue 19); this old path forwards its names."""
from ._lazy import forward

__getattr__ = forward(__name__, {}, ('optimal_weights', 'solve_weights_qp', 'WeightsResult'), 'qmc_orff.objectives',
                      ('qmc_orff.objectives.weights',))
