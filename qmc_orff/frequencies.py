"""Deprecated path: :func:`make_frequencies` moved to :mod:`qmc_orff.maps.frequencies`
(``unit_points`` is now ``source_points``); the names this module defined are forwarded there."""
from __future__ import annotations

from ._lazy import forward

_MOVES = {
    'KERNELS': 'qmc_orff.maps.frequencies',
    'SOURCES': 'qmc_orff.maps.frequencies',
    '_MEASURES': 'qmc_orff.maps.frequencies',
    'T_EPS': 'qmc_orff.maps.frequencies',
    '_engine': 'qmc_orff.maps.frequencies',
    '_check_scramble': 'qmc_orff.maps.frequencies',
    '_resolve_scramble': 'qmc_orff.maps.frequencies',
    'unit_points': 'qmc_orff.maps.frequencies:source_points',
    '_ppf_cauchy': 'qmc_orff.maps.frequencies',
    '_ppf_sech': 'qmc_orff.maps.frequencies',
    '_ppf_gaussian': 'qmc_orff.maps.frequencies',
    '_from_unit': 'qmc_orff.maps.frequencies',
    '_radial': 'qmc_orff.maps.frequencies',
    '_sample': 'qmc_orff.maps.frequencies',
    '_orthogonal': 'qmc_orff.maps.frequencies',
    'WEIGHTS_SUM_TOLERANCE': 'qmc_orff.maps.frequencies',
    'ORF_QMC_CANDIDATES': 'qmc_orff.maps.frequencies',
    'ORF_QMC_SEED': 'qmc_orff.maps.frequencies',
    'AUTO_SOBOL_MAX_D': 'qmc_orff.maps.frequencies',
    'AUTO_SOBOL_MIN_S_OVER_D': 'qmc_orff.maps.frequencies',
    '_van_der_corput': 'qmc_orff.maps.frequencies',
    '_radius_ppf': 'qmc_orff.maps.frequencies',
    '_isotropic_criterion': 'qmc_orff.maps.frequencies',
    '_orthogonal_directions': 'qmc_orff.maps.frequencies',
    '_orf_qmc': 'qmc_orff.maps.frequencies',
    '_orf_qmc_draw': 'qmc_orff.maps.frequencies',
    '_orf_qmc_fixed': 'qmc_orff.maps.frequencies',
    '_auto_source': 'qmc_orff.maps.frequencies',
    '_quiet_sobol': 'qmc_orff.maps.frequencies',
    'make_frequencies': 'qmc_orff.maps.frequencies',
}
__getattr__ = forward(__name__, _MOVES, [n for n in _MOVES if not n.startswith("_")], "qmc_orff.maps")
