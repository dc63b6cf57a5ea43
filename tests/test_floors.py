"""Declared lower bounds, licence, changelog and version (issue 13 item 1, issue 12 item 12).

The floors of pyproject.toml are pinned in .ci/constraints-min.txt; `make test-min` installs the
pins in a second venv and runs the core tests there with QMC_ORFF_EXPECT_MIN=1, which makes
test_installed_versions_are_the_floors check that they really are what is installed.
"""
import importlib.metadata
import importlib.resources
import os
import re
from pathlib import Path

import pytest

import qmc_orff

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11 (CI's)

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
CORE = ("numpy", "scipy", "numba", "cvxpy", "scikit-learn")


def _floors(requirements):
    out = {}
    for req in requirements:
        m = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)\s*>=\s*([0-9][0-9.]*)\s*", req)
        if m:
            out[m.group(1).lower()] = m.group(2)
    return out


def _v(text):
    """A version as a tuple, trailing zeros dropped (1.25 == 1.25.0)."""
    parts = [int(x) for x in text.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def _pins():
    pins = {}
    for line in (ROOT / ".ci" / "constraints-min.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[name.strip().lower()] = version.strip()
    return pins


def test_every_core_dependency_has_a_pinned_floor():
    floors = _floors(PYPROJECT["project"]["dependencies"])
    assert set(CORE) <= set(floors), "every core dependency needs a >= floor"
    assert len(floors) == len(PYPROJECT["project"]["dependencies"])
    pins = _pins()
    for name in CORE:
        assert _v(pins[name]) == _v(floors[name]), \
            f"{name}: pinned {pins[name]}, declared >={floors[name]}"
    test_floors = _floors(PYPROJECT["project"]["optional-dependencies"]["test"])
    for name in ("qmcpy", "pandas"):
        assert _v(pins[name]) == _v(test_floors[name]), name


@pytest.mark.skipif(not os.environ.get("QMC_ORFF_EXPECT_MIN"),
                    reason="run by `make test-min` (the venv with the declared minimums)")
def test_installed_versions_are_the_floors():
    for name, version in _pins().items():
        installed = importlib.metadata.version(name)
        assert installed == version, f"{name} {installed} installed; the floor is {version}"


def test_licence_matches_pyproject():
    assert PYPROJECT["project"]["license"] == "BSD-3-Clause"  # an SPDX expression (PEP 639)
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License")
    assert "Redistributions in binary form must reproduce" in text
    assert "Neither the name of the copyright holder" in text


def test_changelog_has_the_current_version():
    text = (ROOT / "CHANGELOG.md").read_text()
    version = PYPROJECT["project"]["version"]
    assert re.search(rf"^## \[?{re.escape(version)}\]?", text, re.M), version


def test_version_is_the_installed_metadata():
    assert qmc_orff.__version__ == importlib.metadata.version("qmc_orff")
    assert qmc_orff.__version__ == PYPROJECT["project"]["version"]
    assert "__version__ =" not in (ROOT / "qmc_orff" / "__init__.py").read_text().replace(
        "__version__ = importlib.metadata", "").replace('__version__ = "0+unknown"', "")


def test_py_typed_is_package_data():
    assert importlib.resources.files("qmc_orff").joinpath("py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["qmc_orff"]
