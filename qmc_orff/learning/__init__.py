"""Learning with the feature maps, and measuring them.

- :mod:`.ridge`: :class:`ORFFRidge`, operator-valued kernel ridge regression on an ORFF map
  (``Phi^T Phi`` and ``Phi^T Y`` accumulated over batches, chunks or Dask blocks);
- :mod:`._structure`: how a fitted map enters the normal equations (factored ORFF structure,
  or dense features of any operator map);
- :mod:`._statistics`: the sufficient statistics, one batch and the pairwise merge;
- :mod:`._solvers`: the Stein, direct (minimum-norm) and conjugate-gradient solves;
- :mod:`.metrics`: :func:`gram_error`, a map's Gram-matrix error against the exact kernel.

Names are imported on first use (PEP 562).
"""
from __future__ import annotations

from .._lazy import lazy

_LAZY = {
    "ridge": ("ORFFRidge",),
    "metrics": ("gram_error",),
}

__all__ = sorted(name for names in _LAZY.values() for name in names)
__getattr__, __dir__ = lazy(__name__, _LAZY)
