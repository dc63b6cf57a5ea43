"""Quasi-Monte Carlo point generators.

Three families, all subclasses of `scipy.stats.qmc.QMCEngine` (so ``random``,
``reset``, ``fast_forward``, ``integers``, ``qmc.discrepancy`` and ``qmc.scale``
work as in SciPy), plus the construction of lattice generating vectors:

- `Halton`: plain (equal to SciPy's), RR2-permuted or randomly scrambled.
- `Sobol`: Joe-Kuo direction numbers (equal to SciPy's unscrambled points),
  or LMS + digital shift scrambling.
- `Lattice`: rank-1 lattice rules, Kuo's extensible vector by default.
- `cbc_lattice`: fast component-by-component construction (Nuyens-Cools).
"""
from .cbc import cbc_lattice, worst_case_error
from .halton import Halton
from .lattice import Lattice
from .sobol import Sobol

__all__ = ["Halton", "Sobol", "Lattice", "cbc_lattice", "worst_case_error"]
