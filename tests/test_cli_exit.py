"""The exit status of the ``qmc-orff`` program (issue 21, L11): a Ctrl-C that arrives after the
command finished but before the status is written gives 130, through ``python -m`` and the
console script alike; the program's output is complete when it ends through ``os._exit``."""
import os
import subprocess
import sys

import pytest

from qmc_orff.sequence import load_sequence

#: SIGINT after ``main`` returned its status, before the process exits
_AFTER_MAIN = """
import signal
import qmc_orff.cli as cli

real = cli.main


def main(argv=None):
    status = real(argv)
    signal.raise_signal(signal.SIGINT)
    return status


cli.main = main
"""

#: SIGINT while the exit handlers run (registered first, so it runs last)
_IN_ATEXIT = """
import atexit
import signal

atexit.register(signal.raise_signal, signal.SIGINT)
"""

_LAUNCHERS = {
    "python -m qmc_orff": ["-m", "qmc_orff"],
    "python -m qmc_orff.cli": ["-m", "qmc_orff.cli"],
    # what pip's console script runs (pyproject [project.scripts])
    "console script": ["-c", "import sys; from qmc_orff.cli import entry_point; "
                             "sys.argv[0] = 'qmc-orff'; sys.exit(entry_point())"],
}


def _run(tmp_path, launcher, hook, *argv):
    env = dict(os.environ)
    if hook is not None:
        folder = tmp_path / "hook"
        folder.mkdir(exist_ok=True)
        (folder / "sitecustomize.py").write_text(hook)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(folder)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    return subprocess.run([sys.executable, *_LAUNCHERS[launcher], *map(str, argv)],
                          capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.parametrize("hook", [_AFTER_MAIN, _IN_ATEXIT], ids=["after-main", "in-atexit"])
@pytest.mark.parametrize("launcher", list(_LAUNCHERS))
def test_a_late_ctrl_c_exits_130(tmp_path, launcher, hook):
    # 3 of 7 runs interrupted near their end exited 0: SIGINT was ignored once main returned
    out = tmp_path / "h.npz"
    proc = _run(tmp_path, launcher, hook, "generate", "halton", "--d", 2, "--n", 8, "-o", out)
    assert proc.returncode == 130, (proc.returncode, proc.stderr[-2000:])
    assert proc.stderr.endswith("qmc-orff: interrupted\n") and "Traceback" not in proc.stderr
    assert load_sequence(out).points.shape == (8, 2)  # the command itself completed


@pytest.mark.parametrize("launcher", list(_LAUNCHERS))
def test_the_program_exits_with_the_command_status_and_all_its_output(tmp_path, launcher):
    proc = _run(tmp_path, launcher, None, "catalogue", "list", "--d", 2, "--s", 64, "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.rstrip().endswith("]") and '"file"' in proc.stdout
    proc = _run(tmp_path, launcher, None, "discrepancy", tmp_path / "missing.npz", "--box", 1)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr


def test_the_console_script_goes_through_the_exit_path():
    tomllib = pytest.importorskip("tomllib")

    root = os.path.join(os.path.dirname(__file__), "..")
    with open(os.path.join(root, "pyproject.toml"), "rb") as fh:
        scripts = tomllib.load(fh)["project"]["scripts"]
    assert scripts == {"qmc-orff": "qmc_orff.cli:entry_point"}
