"""Names imported on first use (PEP 562): the subpackages' re-exports.

A package sets ``__getattr__, __dir__ = lazy(__name__, {submodule: names})``: its
public names are imported on first access (``import qmc_orff.objectives`` loads
no numba kernel).
"""
from __future__ import annotations

import importlib


def lazy(package, table):
    """``(__getattr__, __dir__)`` for ``package`` whose names live in its submodules.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    table : dict of str to tuple of str
        Submodule (relative to ``package``) -> the public names it defines.
    """
    namespace = importlib.import_module(package).__dict__
    table = {name: module for module, names in table.items() for name in names}

    def __getattr__(name):
        if name in table:
            value = getattr(importlib.import_module(f"{package}.{table[name]}"), name)
            namespace[name] = value
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__
