"""The installed distribution's version (``pyproject.toml``), never a second copy of it."""
from __future__ import annotations

import importlib.metadata

try:
    __version__ = importlib.metadata.version("qmc_orff")
except importlib.metadata.PackageNotFoundError:  # a source tree on sys.path, not installed
    __version__ = "0+unknown"
