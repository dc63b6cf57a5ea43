"""Frequency sources: any point source to frequencies and weights of a kernel.

The floor below the objectives, the designs and the maps: each of them starts from these
frequencies (the designs from ORF starts, the catalogue scores against ORF, the maps draw
their frequencies here), and this package imports none of them.

Modules
-------
``frequencies``
    :func:`make_frequencies` (any point source -> frequencies and weights, by the inverse
    CDF of the kernel's spectral density) and :func:`source_points` (low-discrepancy points
    in the unit cube).
``_orthogonal``
    The orthogonal draws of ``"orf"`` and ``"orf-qmc"``.
``_engine_cube``
    The rule that keeps a QMC engine's unit-cube points off the cube's boundary.

The names are imported lazily (PEP 562), as in the other subpackages.
"""
from __future__ import annotations

from .._lazy import lazy

_LAZY = {"frequencies": ("make_frequencies", "source_points", "SOURCES")}

__all__ = sorted(name for names in _LAZY.values() for name in names)
__getattr__, __dir__ = lazy(__name__, _LAZY)
