"""The wheel carries everything an installed user needs: code, shipped data and the catalogue."""
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
           "--quiet", "-w", str(out), str(ROOT)]
    subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=300)
    (wheel,) = out.glob("qmc_orff-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        return set(zf.namelist())


def test_wheel_has_every_module(wheel_names):
    for path in ROOT.joinpath("qmc_orff").rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        assert rel in wheel_names, f"{rel} missing from the wheel"


def test_wheel_has_lattice_data(wheel_names):
    from qmc_orff.generators.lattice import NAMED_VECTORS

    assert "qmc_orff/data/kuo.lattice-33002-1024-1048576.9125.npy" in wheel_names
    for file, _, _ in NAMED_VECTORS.values():
        assert f"qmc_orff/data/{file}" in wheel_names
    assert "qmc_orff/data/README.md" in wheel_names


def test_wheel_has_the_catalogue(wheel_names):
    index = ROOT / "sequences" / "index.json"
    if not index.exists():
        pytest.fail("sequences/index.json is missing from the source tree")
    assert "qmc_orff/sequences/index.json" in wheel_names
    entries = json.loads(index.read_text())
    entries = entries["entries"] if isinstance(entries, dict) else entries
    files = {e["file"] for e in entries}
    assert files, "the catalogue index lists no files"
    for name in files:
        assert f"qmc_orff/sequences/{name}" in wheel_names, f"catalogue file {name} not in the wheel"


def test_wheel_has_py_typed_and_licence(wheel_names):
    assert "qmc_orff/py.typed" in wheel_names
    assert any(name.endswith(".dist-info/LICENSE") or "/licenses/LICENSE" in name
               for name in wheel_names), sorted(n for n in wheel_names if "dist-info" in n)


def test_metadata_builds_without_deprecation_warnings(tmp_path):
    # The TOML-table `project.license` made setuptools print a deprecation banner on every
    # install; the SPDX string (PEP 639) does not.  Building the metadata shows the backend's own
    # warnings, which pip hides.
    code = ("import sys, setuptools.build_meta as b; "
            "print(b.prepare_metadata_for_build_wheel(sys.argv[1]))")
    out = subprocess.run([sys.executable, "-W", "always", "-c", code, str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300, check=True)
    assert "deprecat" not in (out.stdout + out.stderr).lower(), out.stderr
    (meta,) = tmp_path.glob("*.dist-info/METADATA")
    text = meta.read_text()
    assert "License-Expression: BSD-3-Clause" in text
    assert "Classifier: Intended Audience :: Science/Research" in text
    assert "Classifier: Typing :: Typed" in text


def test_citation_file_matches_the_package():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11 (CI's)
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    text = (ROOT / "CITATION.cff").read_text()
    assert text.startswith("cff-version: 1.2.0\n")
    assert f"\nversion: {version}\n" in text, "CITATION.cff's version differs from pyproject.toml's"
    assert "\nlicense: BSD-3-Clause\n" in text
    assert "Quasi-Monte Carlo feature maps for shift-invariant kernels" in text
