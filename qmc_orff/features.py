"""Deprecated path: the feature maps moved to :mod:`qmc_orff.maps` (``FourierFeatures``,
``ORFF``, ``householder_complement``); the names this module defined are forwarded there."""
from __future__ import annotations

from ._lazy import forward

_MOVES = {
    '_SCALAR_KERNELS': 'qmc_orff.maps.fourier_features',
    '_KERNEL_ALIASES': 'qmc_orff.maps.fourier_features',
    '_ORFF_KERNELS': 'qmc_orff.maps.orff',
    '_ORFF_MEASURES': 'qmc_orff.maps.orff',
    '_scalar_param': 'qmc_orff.maps._params',
    '_CHECKS': 'qmc_orff.maps.default_source',
    'CHECK_SAMPLES': 'qmc_orff.maps.default_source',
    'CHECK_BLOCK_ROWS': 'qmc_orff.maps.default_source',
    'CHECK_REFERENCE_SEEDS': 'qmc_orff.maps.default_source',
    'CHECK_MARGIN': 'qmc_orff.maps.default_source',
    '_sample_indices': 'qmc_orff.maps.default_source',
    '_sample_rows': 'qmc_orff.maps.default_source',
    '_shuffled_sample': 'qmc_orff.maps.default_source',
    '_selection_rows': 'qmc_orff.maps.default_source',
    '_check_rows': 'qmc_orff.maps.default_source',
    '_orff_fit_rows': 'qmc_orff.maps.default_source',
    '_gram_errors': 'qmc_orff.maps.default_source',
    '_check_supplied_sequence': 'qmc_orff.maps.default_source',
    '_exact_gram': 'qmc_orff.maps.default_source',
    'DEFAULT_CANDIDATES': 'qmc_orff.maps.default_source',
    'DEFAULT_SAMPLES': 'qmc_orff.maps.default_source',
    '_select_default': 'qmc_orff.maps.default_source',
    '_resolve_seed': 'qmc_orff.maps._params',
    '_sigma_from_gamma': 'qmc_orff.maps.fourier_features',
    'FourierFeatures': 'qmc_orff.maps.fourier_features',
    '_orff_factors': 'qmc_orff.maps.orff',
    '_select_default_operator': 'qmc_orff.maps.default_source',
    '_is_adaptive': 'qmc_orff.maps.adaptive_maps',
    '_design_options': 'qmc_orff.maps.adaptive_maps',
    '_adaptive_frequencies': 'qmc_orff.maps.adaptive_maps',
    '_adaptive_operator_frequencies': 'qmc_orff.maps.adaptive_maps',
    'householder_complement': 'qmc_orff.maps.orff',
    'ORFF': 'qmc_orff.maps.orff',
    '_FeatureOperator': 'qmc_orff.maps.operators',
    '_AdjointOperator': 'qmc_orff.maps.operators',
}
__getattr__ = forward(__name__, _MOVES, [n for n in _MOVES if not n.startswith("_")], "qmc_orff.maps")
