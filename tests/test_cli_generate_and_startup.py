"""``qmc-orff --version``/``--help`` answer without numba; ``generate`` fails as the design
commands do (one line, status 2, nothing half-written) and passes on the engines' warnings."""
from __future__ import annotations

import errno
import os
import subprocess
import sys

import numpy as np
import pytest

from qmc_orff.cli import main


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["-h"], []])
def test_version_and_help_do_not_import_numba(argv):
    code = ("import sys\nfrom qmc_orff.cli import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit as exc:\n    status = exc.code\n"
            "print(status, 'numba' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.stdout.splitlines()[-1] == f"{2 if not argv else 0} False", proc.stderr


def test_a_command_still_gets_its_full_parser(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["design", "global", "--help"])
    assert exc.value.code == 0
    assert "--maxiter" in capsys.readouterr().out  # the library's defaults are read


def _generate_under_a_size_limit(tmp_path, out):
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))

    return subprocess.run([sys.executable, "-m", "qmc_orff.cli", "generate", "sobol", "--d", "8",
                           "--n", "16384", "--seed", "1", "-o", str(tmp_path / out)],
                          capture_output=True, text=True, timeout=120, preexec_fn=limit)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE semantics")
@pytest.mark.parametrize("out", ["W.csv", "W.npz", "W.npy"])
def test_generate_past_the_file_size_limit_is_one_line_and_status_2(tmp_path, out):
    proc = _generate_under_a_size_limit(tmp_path, out)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"qmc-orff: error: cannot write {str(tmp_path / out)!r} ")
    assert os.listdir(tmp_path) == []  # nothing half-written, no temporary file


def test_generate_on_a_full_disk_keeps_the_old_file(tmp_path, monkeypatch, capsys):
    import qmc_orff.sequence.atomic as atomic

    out = tmp_path / "W.npy"
    np.save(out, np.zeros(3))
    real = os.fsync

    def full(fd):
        real(fd)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic.os, "fsync", full)
    status = main(["generate", "halton", "--d", "2", "--n", "8", "-o", str(out)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1, err
    assert "No space left on device" in err and "nothing was written" in err
    np.testing.assert_array_equal(np.load(out), np.zeros(3))
    assert sorted(os.listdir(tmp_path)) == ["W.npy"]


@pytest.mark.parametrize("n, warns", [(10, True), (16, False)])
def test_generate_sobol_gives_scipys_balance_warning(tmp_path, capsys, n, warns):
    assert main(["generate", "sobol", "--d", "2", "--n", str(n), "-o",
                 str(tmp_path / "W.npy")]) == 0
    err = capsys.readouterr().err
    message = ("qmc-orff: warning: The balance properties of Sobol' points require n to be a "
               "power of 2.\n")
    assert err == (message if warns else "")
