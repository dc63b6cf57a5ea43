"""Moved to :mod:`qmc_orff.designs.adaptive` (issue 19); this old path forwards its names."""
from ._lazy import forward

_RENAMED = {
    "_Progress": "qmc_orff.designs._early_stopping:_ValidationProgress",
    "data_sha256": "qmc_orff.objectives.data:data_sha256",
}
_PUBLIC = ("adaptive_sequence", "adaptive_operator_sequence", "median_heuristic", "data_sha256")
_MODULES = (
    "qmc_orff.designs.adaptive",
    "qmc_orff.designs._adaptive_data",
    "qmc_orff.designs._early_stopping",
)

__getattr__ = forward(__name__, _RENAMED, _PUBLIC, "qmc_orff.designs", _MODULES)
