"""The catalogue of precomputed designed sequences (Gaussian density, shipped in ``sequences/``).

- :mod:`.index`: the grid, listing (:func:`list_catalogue`) and loading
  (:func:`load_catalogue`) the shipped catalogue or one built into a folder;
- :mod:`.build`: :func:`build_catalogue` (design, score against ORF, keep the winners)
  and :func:`user_catalogue_dir`;
- :mod:`._concurrency`: the folder lock, index merges and worker processes tied to a build.

Names are imported on first use (PEP 562).
"""
from __future__ import annotations

from .._lazy import lazy

_LAZY = {
    "index": ("list_catalogue", "load_catalogue", "entry_name", "D_VALUES", "S_VALUES",
              "BOX_OVER_SIGMA", "METHODS", "CATALOGUE_VERSION"),
    "build": ("build_catalogue", "user_catalogue_dir", "score_entry", "default_maxiter"),
}

__all__ = sorted(name for names in _LAZY.values() for name in names)
__getattr__, __dir__ = lazy(__name__, _LAZY)
