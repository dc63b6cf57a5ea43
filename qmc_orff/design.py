"""Moved to :mod:`qmc_orff.designs` (issue 19); this old path forwards its names."""
from ._lazy import forward

_RENAMED = {
    "unit_points": "qmc_orff.designs.start_points:initial_points",
    "_Unit": "qmc_orff.designs._optimizer:UnitProblem",
    "_problem": "qmc_orff.designs._optimizer:UnitProblem",
    "_GreedyState": "qmc_orff.objectives._box_greedy:BoxGreedyState",
}
_PUBLIC = (
    "global_sequence",
    "greedy_sequence",
    "weighted_sequence",
    "lattice_sequence",
    "unit_points",
    "to_frequencies",
)
_MODULES = (
    "qmc_orff.designs.global_design",
    "qmc_orff.designs.greedy",
    "qmc_orff.designs.weighted",
    "qmc_orff.designs.lattice",
    "qmc_orff.designs._optimizer",
    "qmc_orff.designs.start_points",
)

__getattr__ = forward(__name__, _RENAMED, _PUBLIC, "qmc_orff.designs", _MODULES)
