"""In CI, a skip caused by a missing import fails the run (issue 13 item 2)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CASES = '''
import pytest

def test_needs_a_missing_module():
    pytest.importorskip("qmc_orff_no_such_module_xyz")

def test_plain_skip():
    pytest.skip("not applicable here")

def test_passes():
    assert True
'''
MODULE_LEVEL = '''
import pytest
pytest.importorskip("qmc_orff_no_such_module_xyz")

def test_never_runs():
    assert True
'''


def _run(tmp_path, ci, module_level=False):
    shutil.copy(Path(__file__).with_name("conftest.py"), tmp_path / "conftest.py")
    (tmp_path / "test_cases.py").write_text(CASES)
    if module_level:
        (tmp_path / "test_module_level.py").write_text(MODULE_LEVEL)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = "true"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-rs", str(tmp_path)], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)


def test_missing_import_skip_fails_in_ci(tmp_path):
    proc = _run(tmp_path, ci=True)
    assert proc.returncode == 1, proc.stdout
    assert "1 failed, 1 passed, 1 skipped" in proc.stdout
    assert "missing dependency, which is a failure in CI" in proc.stdout


def test_module_level_missing_import_fails_collection_in_ci(tmp_path):
    proc = _run(tmp_path, ci=True, module_level=True)
    assert proc.returncode != 0, proc.stdout
    assert "ERROR collecting test_module_level.py" in proc.stdout
    assert "missing dependency, which is a failure in CI" in proc.stdout


def test_missing_import_skip_is_a_skip_outside_ci(tmp_path):
    proc = _run(tmp_path, ci=False, module_level=True)
    assert proc.returncode == 0, proc.stdout
    assert "1 passed, 3 skipped" in proc.stdout


def test_this_run_has_the_cross_check_dependencies():
    if os.environ.get("CI", "").lower() not in ("1", "true", "yes"):
        pytest.skip("checked in CI only")  # a plain skip: not a missing import
    import pandas  # noqa: F401
    import qmcpy  # noqa: F401
