"""Names imported on first use (PEP 562): the subpackages' re-exports and the old module paths.

A package sets ``__getattr__, __dir__ = lazy(__name__, {submodule: names})``: its
public names are imported on first access (``import qmc_orff.objectives`` loads
no numba kernel).  A shim module at an old path (say ``qmc_orff.design``) sets
``__getattr__ = forward(...)``: each name it used to define is looked up, on
first access, in its new home; public names emit a ``DeprecationWarning`` that
names the new import.
"""
from __future__ import annotations

import importlib
import sys
import warnings


def _stacklevel():
    """The ``stacklevel`` of the code that asked for a name: the first frame past this module
    and importlib's (``from old import name`` goes through importlib's frames)."""
    level, frame = 3, sys._getframe(3)
    while frame is not None and "importlib" in frame.f_code.co_filename:
        level, frame = level + 1, frame.f_back
    return level


def forward(old, homes, public, new, modules=()):
    """A module ``__getattr__`` for the old path ``old``.

    Parameters
    ----------
    old : str
        The old module's name (``__name__`` of the shim).
    homes : dict of str to str
        Name -> module now defining it, or ``"module:new_name"`` where the name
        changed too.
    public : iterable of str
        The names that warn (the old module's public API).
    new : str
        The public package that exports the moved public names (for the message, which
        names the defining module when the package does not export the name).
    modules : tuple of str, default=()
        Modules searched, in order, for a name not in ``homes`` (the private
        names of a module that moved whole).
    """
    public = frozenset(public)

    def __getattr__(name):
        new_name = name
        if name in homes:
            module, _, renamed = homes[name].partition(":")
            new_name = renamed or name
            value = getattr(importlib.import_module(module), new_name)
        else:
            for module in modules:
                mod = importlib.import_module(module)
                if hasattr(mod, name) and not name.startswith("__"):
                    value = getattr(mod, name)
                    break
            else:
                raise AttributeError(f"module {old!r} has no attribute {name!r}")
        if name in public:
            exported = hasattr(importlib.import_module(new), new_name)
            warnings.warn(f"{old} is deprecated; import {new_name} from "
                          f"{new if exported else module}", DeprecationWarning,
                          stacklevel=_stacklevel())
        return value

    return __getattr__


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
