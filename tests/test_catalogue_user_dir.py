"""``catalogue build`` writes into a folder of the user's, never into the installed package,
and ``catalogue``/``load_catalogue`` read such a folder (issue 22 item 5)."""
import json
import os
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

import qmc_orff
from qmc_orff import catalogue as cat
from qmc_orff.cli import main

GRID = dict(d_values=[2], s_values=[8], box_over_sigma=[1.0], methods=["global", "weighted"],
            maxiter=3)


def _package_snapshot():
    with resources.as_file(resources.files("qmc_orff.sequences")) as root:
        return {p.name: (p.stat().st_mtime_ns, p.stat().st_size)
                for p in Path(root).iterdir() if p.is_file()}


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for name in ("QMC_ORFF_CATALOGUE_DIR", "XDG_DATA_HOME", "LOCALAPPDATA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


LINUX = sys.platform.startswith("linux")


@pytest.mark.skipif(not LINUX, reason="the Linux/XDG layout")
def test_user_catalogue_dir_follows_xdg(clean_env, monkeypatch):
    home = clean_env / "home"
    assert cat.user_catalogue_dir() == str(home / ".local" / "share" / "qmc_orff" / "sequences")
    monkeypatch.setenv("XDG_DATA_HOME", str(clean_env / "data"))
    assert cat.user_catalogue_dir() == str(clean_env / "data" / "qmc_orff" / "sequences")
    monkeypatch.setenv("XDG_DATA_HOME", "relative/data")   # the spec says: ignore it
    assert cat.user_catalogue_dir() == str(home / ".local" / "share" / "qmc_orff" / "sequences")
    monkeypatch.setenv("QMC_ORFF_CATALOGUE_DIR", str(clean_env / "mine"))
    assert cat.user_catalogue_dir() == str(clean_env / "mine")
    assert qmc_orff.user_catalogue_dir is cat.user_catalogue_dir


def test_build_defaults_to_the_user_folder_and_reads_back(clean_env, monkeypatch):
    before = _package_snapshot()
    entries = cat.build_catalogue(keep_ratio=None, **GRID)
    folder = clean_env / "home" / ".local" / "share" / "qmc_orff" / "sequences"
    if LINUX:
        assert (folder / "index.json").is_file()
    folder = Path(cat.user_catalogue_dir())
    assert sorted(p.name for p in folder.glob("*.npz")) == sorted(e["file"] for e in entries)
    assert _package_snapshot() == before                  # the package is untouched
    # read back with directory=: the built entries, not the shipped ones
    listed = cat.list_catalogue(directory=folder)
    assert [e["file"] for e in listed] == sorted(e["file"] for e in entries)
    assert cat.list_catalogue(directory=str(folder), method="weighted")[0]["s"] == 8
    seq = qmc_orff.load_catalogue(2, 8, 1.0, "global", directory=folder)
    assert seq.s == 8 and seq.meta["catalogue"]["file"] == "gaussian.d02.s0008.bos1.global.npz"
    np.testing.assert_array_equal(
        seq.points, qmc_orff.load_sequence(folder / seq.meta["catalogue"]["file"]).points)
    # the shipped catalogue has no s = 8: the default still reads the package's
    with pytest.raises(ValueError, match="'s' must be one of the catalogue's sizes"):
        qmc_orff.load_catalogue(2, 8, 1.0, "global")
    with pytest.raises(ValueError, match="the catalogue in .* is empty"):
        qmc_orff.load_catalogue(2, 8, directory=clean_env / "nothing-here")


def test_cli_build_defaults_to_the_user_folder(clean_env, monkeypatch, capsys):
    monkeypatch.setenv("QMC_ORFF_CATALOGUE_DIR", str(clean_env / "mine"))
    before = _package_snapshot()
    assert main(["catalogue", "build", "--d-values", "2", "--s-values", "8", "--box-values", "1",
                 "--maxiter", "3"]) == 0
    out = capsys.readouterr().out
    assert f"building the catalogue in {clean_env / 'mine'}" in out
    assert f"catalogue list --dir {clean_env / 'mine'}" in out
    index = json.loads((clean_env / "mine" / "index.json").read_text())
    assert _package_snapshot() == before
    assert main(["catalogue", "list", "--json", "--dir", str(clean_env / "mine")]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert sorted(e["file"] for e in listed) == sorted(e["file"] for e in index["entries"])
    # --out is build's other name for --dir; list and show, which read, take --dir only
    with pytest.raises(SystemExit) as exc:
        main(["catalogue", "list", "--json", "--out", str(clean_env / "mine")])
    assert exc.value.code == 2 and "unrecognized arguments: --out" in capsys.readouterr().err


def test_make_catalogue_rebuilds_the_shipped_folder():
    makefile = (Path(__file__).resolve().parents[1] / "Makefile").read_text()
    recipe = makefile.split("\ncatalogue:", 1)[1].split("\n\n", 1)[0]
    assert "catalogue build" in recipe and "--dir sequences" in recipe
