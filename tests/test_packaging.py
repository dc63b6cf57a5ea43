"""The wheel carries everything an installed user needs: code, shipped data and the catalogue;
the sdist carries the whole source tree (docs, examples, tests, changelog) and builds that wheel."""
import json
import re
import shutil
import subprocess
import sys
import tarfile
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
    # one classifier per supported minor version, from requires-python's floor to 3.13
    floor = re.search(r"^Requires-Python: >=3\.(\d+)$", text, re.M)
    assert floor is not None, "Requires-Python is not of the form >=3.N"
    version = r"^Classifier: Programming Language :: Python :: 3\.(\d+)$"
    listed = {int(m) for m in re.findall(version, text, re.M)}
    assert listed == set(range(int(floor[1]), 14)), sorted(listed)
    assert sys.version_info.minor in listed, "the Python running the tests is not a listed one"


# What the builds write and the sdist must leave out.
BUILD_OUTPUTS = ("docs/_build/", "docs/auto_examples/", "docs/generated/", "docs/api/generated/",
                 "docs/_cli/", "examples/output/", "benchmarks/output/")


@pytest.fixture(scope="module")
def sdist(tmp_path_factory):
    out = tmp_path_factory.mktemp("sdist")
    code = "import sys, setuptools.build_meta as b; print(b.build_sdist(sys.argv[1]))"
    subprocess.run([sys.executable, "-c", code, str(out)], cwd=ROOT, check=True,
                   capture_output=True, text=True, timeout=300)
    (archive,) = out.glob("qmc_orff-*.tar.gz")
    with tarfile.open(archive) as tf:
        names = {name.split("/", 1)[1] for name in tf.getnames() if "/" in name}
    return archive, names


def _tracked_files():
    """The files git tracks, or None outside a git checkout (an unpacked sdist)."""
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        return None
    out = subprocess.run([git, "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return {name for name in out.stdout.decode().split("\0") if name}


def test_sdist_has_the_whole_source_tree(sdist):
    _, names = sdist
    for path in ("CHANGELOG.md", "CITATION.cff", "LICENSE", "Makefile", "README.md",
                 "MANIFEST.in", "pyproject.toml", ".ci/constraints-min.txt", "docs/conf.py",
                 "docs/index.rst", "docs/user_guide/which_map.rst", "docs/gallery/README.rst",
                 "docs/_static/qmc_orff.css", "examples/which_map.py", "examples/RESULTS.md",
                 "tests/test_packaging.py", "tests/conftest.py", "benchmarks/bench_vs_nystroem.py",
                 "sequences/index.json", "qmc_orff/__init__.py"):
        assert path in names, f"{path} missing from the sdist"
    for folder in ("docs", "examples", "tests"):  # every file of these folders, not a sample
        for path in (ROOT / folder).rglob("*"):
            rel = path.relative_to(ROOT).as_posix()
            if (path.is_file() and "__pycache__" not in path.parts
                    and not rel.startswith(BUILD_OUTPUTS) and path.suffix not in (".pyc", ".pyo")
                    and rel != "docs/sg_execution_times.rst"):
                assert rel in names, f"{rel} missing from the sdist"
    tracked = _tracked_files()
    if tracked is not None:
        missing = sorted(tracked - names)
        assert not missing, f"tracked files missing from the sdist: {missing}"


def test_sdist_leaves_out_build_outputs(sdist):
    _, names = sdist
    leaked = sorted(n for n in names if n.startswith(BUILD_OUTPUTS) or "__pycache__" in n
                    or n.endswith((".pyc", ".pyo")) or n.startswith((".venv", "build/", "dist/")))
    assert not leaked, leaked


def test_wheel_built_from_the_sdist_matches(sdist, wheel_names, tmp_path):
    # the sdist is enough to build the package: the same wheel as from the checkout
    archive, _ = sdist
    safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # 3.10.12+, 3.11.4+
    with tarfile.open(archive) as tf:
        tf.extractall(tmp_path, **safe)
    (source,) = tmp_path.glob("qmc_orff-*")
    out = tmp_path / "wheel"
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
           "--quiet", "-w", str(out), str(source)]
    subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=300)
    (wheel,) = out.glob("qmc_orff-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        from_sdist = set(zf.namelist())
    assert from_sdist == wheel_names, sorted(from_sdist ^ wheel_names)


def test_citation_file_matches_the_package():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11 (CI's)
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    text = (ROOT / "CITATION.cff").read_text()
    assert text.startswith("cff-version: 1.2.0\n")
    assert f"\nversion: {version}\n" in text, "CITATION.cff's version differs from pyproject.toml's"
    assert "\nlicense: BSD-3-Clause\n" in text
    assert "Quasi-Monte Carlo feature maps for shift-invariant kernels" in text
