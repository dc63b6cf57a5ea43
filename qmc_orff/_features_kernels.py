"""Moved to :mod:`qmc_orff._cos_sin` (the cosine/sine kernels of the feature maps and the data
objectives); this module forwards the names it used to define."""
from __future__ import annotations

import importlib

_NEW_HOME = "qmc_orff._cos_sin"


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(importlib.import_module(_NEW_HOME), name)
