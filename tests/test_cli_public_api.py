"""The command line is built on the library's public API only (read from the source, AST):
no module of ``qmc_orff.cli`` imports a private module or a private name of another
package of ``qmc_orff``, function-level imports included."""
from __future__ import annotations

import ast
import pathlib

CLI = pathlib.Path(__file__).resolve().parents[1] / "qmc_orff" / "cli"


def _private(part):
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def _imports(path):
    """``(line, module, names)`` of every import in the cli module at ``path``."""
    package = ["qmc_orff", "cli"]  # every cli module, __init__ included, is in this package
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            yield node.lineno, module, tuple(alias.name for alias in node.names)


def _violations(path):
    found = []
    for line, module, names in _imports(path):
        parts = module.split(".")
        if parts[0] != "qmc_orff" or parts[:2] == ["qmc_orff", "cli"]:
            continue  # outside the library, or the command line's own modules
        if any(_private(p) for p in parts[1:]):
            found.append(f"{path.name}:{line} imports the private module {module}")
        for name in names:
            if _private(name):
                found.append(f"{path.name}:{line} imports the private name {module}.{name}")
    return found


def test_cli_imports_only_public_names_of_other_packages():
    paths = sorted(CLI.glob("*.py"))
    assert len(paths) >= 5
    found = [v for path in paths for v in _violations(path)]
    assert not found, "\n".join(found)


def test_the_check_sees_private_imports(tmp_path):
    # the rule itself: each kind of private import is reported, public and own ones are not
    bad = tmp_path / "x.py"
    bad.write_text("from ..designs._optimizer import UnitProblem\n"
                   "from ..designs import _scaled, is_interrupt\n"
                   "from .. import _version, __version__\n"
                   "import qmc_orff._validation\n"
                   "from ._common import _CliError\n"
                   "from . import design\n", encoding="utf-8")
    found = _violations(bad)
    assert len(found) == 4, found
    assert all(("_optimizer" in f) or ("_scaled" in f) or ("_version" in f and "__version__" not in f)
               or ("_validation" in f) for f in found), found
