"""The old module paths of moved code (private): a module ``__getattr__`` that forwards.

A module that moved leaves a shim at its old path whose ``__getattr__`` is
``forwarder(__name__, MOVES)``: every name the module used to define (public and
private) resolves to its new home; a public name also warns with a
``DeprecationWarning`` that says where to import it from, pointing at the code that
asked for it (not at the import machinery).  Requests from inside ``qmc_orff`` itself
do not warn: the library's own imports are rewired, not deprecated.
"""
from __future__ import annotations

import importlib
import sys
import warnings

__all__ = ["forwarder"]


def _caller():
    """``(stacklevel, module name)`` of the first frame outside this module and importlib."""
    level, frame = 2, sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
        level, frame = level + 1, frame.f_back
    return level, ("" if frame is None else frame.f_globals.get("__name__", ""))


def forwarder(old, moves, *, warn=True):
    """A module ``__getattr__`` for the shim ``old``.

    Parameters
    ----------
    old : str
        The shim's module name, e.g. ``"qmc_orff.features"``.
    moves : dict of str to str
        Old name -> ``"new.module"`` or ``"new.module:new_name"`` (a renamed name).
    warn : bool, default=True
        Whether public names warn (False for a private module).
    """
    def __getattr__(name):
        target = moves.get(name)
        if target is None:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        module, _, new = target.partition(":")
        new = new or name
        if warn and not name.startswith("_"):
            level, caller = _caller()
            if caller != "qmc_orff" and not caller.startswith("qmc_orff."):
                warnings.warn(f"{old} is deprecated; import {new} from {module}",
                              DeprecationWarning, stacklevel=level)
        return getattr(importlib.import_module(module), new)

    return __getattr__
