"""Intersphinx inventories written offline, from the installed packages.

``make docs`` never fetches anything, so the ``objects.inv`` files that intersphinx would
download from python.org, numpy.org, scipy.org and scikit-learn.org are written here instead:
the public names of the installed NumPy, SciPy and scikit-learn (and of the builtins and a few
standard-library modules), each with the address of its page in that project's online
documentation, which follows one naming rule per project (the pages autosummary generates).
The links then point to the online pages; the build itself reads only local files.

A module (not code in conf.py) so that tests/test_docs.py can check that every external name
the docs and docstrings reference is in an inventory.
"""
import builtins
import importlib
import inspect
import os
import pkgutil
import sys
import warnings
import zlib

#: (inventory name, package, online documentation root); the root is where the links go.
PROJECTS = [
    ("python", "python", "https://docs.python.org/3/"),
    ("numpy", "numpy", "https://numpy.org/doc/stable/"),
    ("scipy", "scipy", "https://docs.scipy.org/doc/scipy/"),
    ("sklearn", "sklearn", "https://scikit-learn.org/stable/"),
]

#: standard-library modules whose names the docs may mention (library/<module>.html pages)
STDLIB = ["os", "pathlib", "tempfile", "typing", "numbers", "warnings", "json", "functools",
          "collections", "collections.abc", "concurrent.futures", "contextlib", "io",
          "importlib.resources", "multiprocessing", "threading", "pickle", "zlib"]

#: numpy.random's pages do not follow numpy's reference/generated/ rule
_NUMPY_RANDOM_PAGES = {
    "Generator": "reference/random/generator.html",
    "default_rng": "reference/random/generator.html",
    "RandomState": "reference/random/legacy.html",
    "SeedSequence": "reference/random/bit_generators/generated/numpy.random.SeedSequence.html",
    "BitGenerator": "reference/random/bit_generators/generated/numpy.random.BitGenerator.html",
    "MT19937": "reference/random/bit_generators/mt19937.html",
    "PCG64": "reference/random/bit_generators/pcg64.html",
    "PCG64DXSM": "reference/random/bit_generators/pcg64dxsm.html",
    "Philox": "reference/random/bit_generators/philox.html",
    "SFC64": "reference/random/bit_generators/sfc64.html",
}


def _public(name):
    return not any(part.startswith("_") or part in ("tests", "conftest", "setup")
                   for part in name.split("."))


def _submodules(package):
    """``package`` and its public submodules, two levels deep (``scipy.stats.qmc``)."""
    found = [package]
    for level in range(2):
        for module in list(found):
            path = getattr(module, "__path__", None)
            if path is None or module.__name__.count(".") != level:
                continue
            for info in pkgutil.iter_modules(path):
                name = f"{module.__name__}.{info.name}"
                if not _public(name):
                    continue
                try:
                    found.append(importlib.import_module(name))
                except Exception:  # noqa: BLE001 -- optional dependencies, removed modules
                    continue
    return found


def _members(module):
    """The public objects of ``module``: its ``__all__``, else what it defines itself."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items()
                 if not n.startswith("_")
                 and str(getattr(v, "__module__", None)).startswith(module.__name__)
                 and (inspect.isclass(v) or callable(v))]
    for name in names:
        if not isinstance(name, str) or name.startswith("_"):
            continue
        try:
            value = getattr(module, name)
        except AttributeError:
            continue
        if not inspect.ismodule(value):
            yield name, value


def _role(value):
    if inspect.isclass(value):
        return "class"
    routine = inspect.isroutine(value) or type(value).__name__ == "ufunc"
    return "function" if routine else "data"


def _scalar_type(value):
    """NumPy's scalar types share one page and have no member pages."""
    numpy = sys.modules.get("numpy")
    return numpy is not None and issubclass(value, numpy.generic)


def _entries(modules):
    """(full name, role, owner) for each module, public object and public class member."""
    for module in modules:
        yield module.__name__, "module", None
        for name, value in _members(module):
            full = f"{module.__name__}.{name}"
            role = _role(value)
            yield full, role, None
            if role == "class" and not _scalar_type(value):
                for attr in dir(value):
                    if attr.startswith("_"):
                        continue
                    member = inspect.getattr_static(value, attr, None)
                    if isinstance(member, property):
                        yield f"{full}.{attr}", "attribute", full
                    elif callable(member) or isinstance(member, (classmethod, staticmethod)):
                        yield f"{full}.{attr}", "method", full


def _sklearn_uri(name, role, owner):
    if role == "module":
        parts = name.split(".")
        page = ".".join(parts[:2])
        return f"api/{page}.html#module-{name}"
    page = owner or name
    return f"modules/generated/{page}.html#{name}"


def _scipy_uri(name, role, owner):
    if role == "module":
        return f"reference/{name.removeprefix('scipy.') or 'index'}.html#module-{name}"
    return f"reference/generated/{name}.html#{name}"


def _numpy_uri(name, role, owner):
    import numpy

    if role == "module":
        if name == "numpy":
            return "reference/index.html#module-numpy"
        sub = name.removeprefix("numpy.")
        if sub == "random":
            return "reference/random/index.html#module-numpy.random"
        if sub == "typing":
            return "reference/typing.html#module-numpy.typing"
        return f"reference/routines.{sub}.html#module-{name}"
    top = (owner or name).split(".")
    if top[:2] == ["numpy", "random"]:
        base = top[2]
        if owner is not None and base in ("Generator", "RandomState"):
            return f"reference/random/generated/{name}.html#{name}"
        page = _NUMPY_RANDOM_PAGES.get(base, f"reference/random/generated/numpy.random.{base}.html")
        return f"{page}#{name}"
    if top[:2] == ["numpy", "typing"]:
        return f"reference/typing.html#{name}"
    value = getattr(numpy, top[1], None) if len(top) == 2 else None
    if inspect.isclass(value) and issubclass(value, numpy.generic):
        return f"reference/arrays.scalars.html#{name}"
    return f"reference/generated/{name}.html#{name}"


#: built-in types documented on library/stdtypes.html (the others on library/functions.html)
_STDTYPES = {"str", "list", "dict", "tuple", "set", "frozenset", "bytes", "bytearray", "range",
             "memoryview"}


def _python_entries():
    for name, value in vars(builtins).items():
        if name.startswith("_"):
            continue
        if inspect.isclass(value) and issubclass(value, BaseException):
            yield name, "exception", f"library/exceptions.html#{name}"
        elif name in ("None", "True", "False", "Ellipsis", "NotImplemented"):
            yield name, "data", f"library/constants.html#{name}"
        elif name in _STDTYPES:
            yield name, "class", f"library/stdtypes.html#{name}"
        elif inspect.isclass(value) or callable(value):
            yield name, _role(value), f"library/functions.html#{name}"
    for module_name in STDLIB:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        page = f"library/{module_name}.html"
        for name, role, _ in _entries([module]):
            anchor = f"module-{name}" if role == "module" else name
            yield name, role, f"{page}#{anchor}"


_URI = {"numpy": _numpy_uri, "scipy": _scipy_uri, "sklearn": _sklearn_uri}


def inventory_entries(name):
    """(full name, role, address relative to the project's root) of project ``name``."""
    if name == "python":
        yield from _python_entries()
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated modules still import
        modules = _submodules(importlib.import_module(name))
        for full, role, owner in _entries(modules):
            yield full, role, _URI[name](full, role, owner)


def write_inventory(path, project, version, entries):
    """Write ``entries`` as a Sphinx inventory (format 2: a header, then zlib-compressed lines)."""
    header = ("# Sphinx inventory version 2\n"
              f"# Project: {project}\n"
              f"# Version: {version}\n"
              "# The remainder of this file is compressed using zlib.\n")
    seen = set()
    lines = []
    for full, role, uri in entries:
        if (full, role) in seen or any(c.isspace() for c in full):
            continue
        seen.add((full, role))
        lines.append(f"{full} py:{role} 1 {uri} -\n")
    with open(path, "wb") as f:
        f.write(header.encode("utf-8"))
        f.write(zlib.compress("".join(sorted(lines)).encode("utf-8")))


def write_inventories(folder):
    """Write one inventory per project of ``PROJECTS`` into ``folder``.

    Returns
    -------
    dict
        ``intersphinx_mapping``: ``{name: (online root, local inventory path)}``.
    """
    os.makedirs(folder, exist_ok=True)
    mapping = {}
    for name, package, root in PROJECTS:
        if package == "python":
            version = ".".join(map(str, sys.version_info[:2]))
        else:
            version = importlib.import_module(package).__version__
        path = os.path.join(os.path.abspath(folder), f"{name}.inv")
        write_inventory(path, name, version, inventory_entries(name))
        mapping[name] = (root, path)
    return mapping
