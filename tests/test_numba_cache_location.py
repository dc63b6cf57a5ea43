"""Where numba keeps the compiled kernels (issue 22 item 5): never only in site-packages.

numba files a ``cache=True`` kernel in the package's ``__pycache__`` when that folder is
writable; else in its user-wide cache (``$XDG_CACHE_HOME/numba``); numba's locators decide
by creating a probe file with ``tempfile.TemporaryFile(dir=...)``.  The tests run as root,
for whom no permission bit stops a write, so a read-only folder is simulated where numba
probes it: the probe raises ``PermissionError`` for the folders a non-root user could not
write.  Where neither folder is writable (read-only install and home), ``qmc_orff._jit``
points numba at a folder in the temporary directory; without it ``import qmc_orff``
fails.  Each case runs in a fresh interpreter (numba reads its configuration and picks a
locator once per kernel)."""
import json
import os
import subprocess
import sys
from pathlib import Path


import qmc_orff

PACKAGE = Path(qmc_orff.__file__).resolve().parent

_SCRIPT = r'''
import json, os, sys, tempfile
import numba.core.caching as caching

read_only = [os.path.realpath(p) for p in json.loads(sys.argv[1])]
real = tempfile.TemporaryFile


class _ProbeRefused:
    """numba's view of tempfile, with the probe refused in the read-only folders."""

    def __getattr__(self, name):
        return getattr(tempfile, name)

    @staticmethod
    def TemporaryFile(*args, dir=None, **kwargs):
        path = os.path.realpath(dir) if dir is not None else ""
        if any(path == r or path.startswith(r + os.sep) for r in read_only):
            raise PermissionError(13, "Permission denied", dir)
        return real(*args, dir=dir, **kwargs)


caching.tempfile = _ProbeRefused()
import qmc_orff
from qmc_orff.generators import _halton

x = qmc_orff.Halton(3, scramble=False).random(64)
cache = _halton.halton_plain_serial._cache
files = sorted(os.listdir(cache._cache_path))
print(json.dumps({"locator": type(cache._impl.locator).__name__.lstrip("_"),
                  "path": cache._cache_path, "files": files, "sum": float(x.sum())}))
'''


def _run(tmp_path, read_only, numba_cache_dir=None):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"), HOME=str(tmp_path / "home"),
               TMPDIR=str(tmp_path / "tmp"))
    env.pop("NUMBA_CACHE_DIR", None)
    if numba_cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(numba_cache_dir)
    (tmp_path / "tmp").mkdir(exist_ok=True)
    proc = subprocess.run([sys.executable, "-c", _SCRIPT, json.dumps([str(p) for p in read_only])],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _inside(path, folder):
    return os.path.realpath(path).startswith(os.path.realpath(folder) + os.sep)


def test_writable_package_keeps_the_cache_beside_the_source(tmp_path):
    got = _run(tmp_path, read_only=[])
    assert got["locator"] == "InTreeCacheLocator"
    assert got["path"] == str(PACKAGE / "generators" / "__pycache__")


def test_read_only_package_caches_in_numbas_user_wide_folder(tmp_path):
    # numba's own fallback (_UserWideCacheLocator): nothing for qmc_orff to do
    got = _run(tmp_path, read_only=[PACKAGE])
    assert got["locator"] == "UserWideCacheLocator"
    assert _inside(got["path"], tmp_path / "xdg" / "numba")
    assert any(f.startswith("_halton.halton_plain_serial") and f.endswith(".nbi")
               for f in got["files"])


def test_read_only_package_and_home_cache_in_the_temporary_folder(tmp_path):
    # numba alone has no locator here: every cache=True decoration would raise
    got = _run(tmp_path, read_only=[PACKAGE, tmp_path / "xdg", tmp_path / "home"])
    assert got["locator"] == "UserProvidedCacheLocator"
    assert _inside(got["path"], tmp_path / "tmp")
    assert any(f.endswith(".nbi") for f in got["files"])
    # the same points as anywhere else
    assert got["sum"] == _run(tmp_path, read_only=[])["sum"]


def test_numba_cache_dir_is_obeyed(tmp_path):
    got = _run(tmp_path, read_only=[PACKAGE, tmp_path / "xdg"],
               numba_cache_dir=tmp_path / "chosen")
    assert got["locator"] == "UserProvidedCacheLocator"
    assert _inside(got["path"], tmp_path / "chosen")
