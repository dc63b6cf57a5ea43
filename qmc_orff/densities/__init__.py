"""Product spectral densities at unit bandwidth and the box discrepancy's 1-D integrals.

:mod:`qmc_orff.densities.product` defines them; the compiled integrals live in
:mod:`qmc_orff.densities._kernels`.
"""
from __future__ import annotations

from .product import (CauchyDensity, CharacteristicDensity, GaussianDensity,  # noqa: F401
                      ProductDensity,
                      get_density)

from .product import __all__  # noqa: F401 - the same public names
