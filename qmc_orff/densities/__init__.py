"""Product spectral densities at unit bandwidth and the box discrepancy's 1-D integrals.

:mod:`qmc_orff.densities.product` defines them (:mod:`qmc_orff.densities.characteristic`
those given by a characteristic function); the compiled integrals live in
:mod:`qmc_orff.densities._kernels`.
"""
from __future__ import annotations

from .characteristic import CharacteristicDensity
from .product import CauchyDensity, GaussianDensity, ProductDensity, get_density

__all__ = ["ProductDensity", "GaussianDensity", "CauchyDensity", "CharacteristicDensity",
           "get_density"]
