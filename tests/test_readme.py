"""The README's code runs as written, from any folder, and leaves no file behind."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_python_blocks():
    assert len(BLOCKS) >= 2, "the README has lost its quickstart or its Dask block"


def test_quickstart_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(compile(BLOCKS[0], str(README), "exec"), namespace)
    assert namespace["Z"].shape == (500, 512)
    assert list(tmp_path.iterdir()) == [], "the quickstart left files in the working folder"


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_block_runs_verbatim_in_a_fresh_process(index, tmp_path):
    # A fresh interpreter in an empty folder: the block imports what it uses, writes nothing
    # where it runs, and (where it prints a score) scores what it promises.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, "-c", BLOCKS[index]], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert list(tmp_path.iterdir()) == [], "the block left files in the working folder"
    m = re.search(r"test R\^2 = ([0-9.]+)", out.stdout)
    if "test R^2" in BLOCKS[index]:
        assert m is not None, out.stdout
        assert float(m.group(1)) >= 0.95, out.stdout
