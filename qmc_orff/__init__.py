"""qmc_orff: quasi-Monte Carlo sequence design for (operator-valued) random Fourier features.

Public names are imported lazily (PEP 562), so ``import qmc_orff`` stays cheap
and optional heavy imports (cvxpy, the numba kernels) happen on first use.
"""
from __future__ import annotations

import importlib

from ._version import __version__

# public name -> module that defines it
_LAZY = {
    # generators
    "Halton": "qmc_orff.generators",
    "Sobol": "qmc_orff.generators",
    "Lattice": "qmc_orff.generators",
    "cbc_lattice": "qmc_orff.generators",
    "worst_case_error": "qmc_orff.generators",
    # densities
    "GaussianDensity": "qmc_orff.densities",
    "CauchyDensity": "qmc_orff.densities",
    "CharacteristicDensity": "qmc_orff.densities",
    "get_density": "qmc_orff.densities",
    # objectives
    "BoxDiscrepancy": "qmc_orff.objectives.box",
    "box_from_data": "qmc_orff.objectives.box",
    "DataDiscrepancy": "qmc_orff.objectives.data",
    "OperatorDataDiscrepancy": "qmc_orff.objectives.operator_data",
    # sequence design and files
    "Sequence": "qmc_orff.sequence",
    "load_sequence": "qmc_orff.sequence",
    "optimal_weights": "qmc_orff.objectives.weights",
    "global_sequence": "qmc_orff.designs.global_design",
    "greedy_sequence": "qmc_orff.designs.greedy",
    "weighted_sequence": "qmc_orff.designs.weighted",
    "lattice_sequence": "qmc_orff.designs.lattice",
    "adaptive_sequence": "qmc_orff.designs.adaptive",
    "adaptive_operator_sequence": "qmc_orff.designs.adaptive",
    "list_catalogue": "qmc_orff.catalogue.index",
    "load_catalogue": "qmc_orff.catalogue.index",
    "build_catalogue": "qmc_orff.catalogue.build",
    "user_catalogue_dir": "qmc_orff.catalogue.build",
    # feature maps and learning
    "make_frequencies": "qmc_orff.sources.frequencies",
    "FourierFeatures": "qmc_orff.maps.fourier_features",
    "ORFF": "qmc_orff.maps.orff",
    "OperatorNystroem": "qmc_orff.maps.operator_nystroem",
    "ORFFRidge": "qmc_orff.learning.ridge",
    # measuring a map
    "gram_error": "qmc_orff.learning.metrics",
    # threads of the compiled kernels
    "set_num_threads": "qmc_orff.threads",
    "get_num_threads": "qmc_orff.threads",
    "num_threads": "qmc_orff.threads",
}
_SUBMODULES = {"generators", "densities", "kernels", "sources", "objectives", "designs",
               "sequence", "catalogue", "maps", "learning", "cli", "threads"}

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        module = importlib.import_module(f"qmc_orff.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'qmc_orff' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | _SUBMODULES)
