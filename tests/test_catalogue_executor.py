"""build_catalogue on a concurrent.futures.Executor (issue 12 item 3): same files as the serial
build, each written atomically by its task, resumable after an interruption; the CLI's --workers."""
import json
import multiprocessing
import os
from concurrent.futures import Executor, Future, ProcessPoolExecutor

import numpy as np
import pytest

import qmc_orff.catalogue as cat
from qmc_orff.cli import main
from qmc_orff.sequence import load_sequence

GRID = dict(d_values=[2], s_values=[8, 16], box_over_sigma=[1.0], methods=["global", "weighted"],
            maxiter=3)


class InlineExecutor(Executor):
    """Runs each task at submit; the ``fail_at``-th task raises ``error`` instead."""

    def __init__(self, fail_at=None, error=KeyboardInterrupt):
        self.calls = 0
        self.fail_at = fail_at
        self.error = error

    def submit(self, fn, /, *args, **kwargs):
        self.calls += 1
        fut = Future()
        if self.calls == self.fail_at:
            fut.set_exception(self.error())
            return fut
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, as an executor does
            fut.set_exception(exc)
        return fut


def _files(folder):
    return sorted(f for f in os.listdir(folder) if f.endswith(".npz"))


def _same_designs(a, b):
    for name in _files(a):
        x, y = load_sequence(os.path.join(a, name)), load_sequence(os.path.join(b, name))
        np.testing.assert_array_equal(x.points, y.points)
        if x.weights is None:
            assert y.weights is None
        else:
            np.testing.assert_array_equal(x.weights, y.weights)
        assert x.meta["d2"] == y.meta["d2"]


def test_process_pool_build_equals_serial_build(tmp_path):
    serial, pooled = tmp_path / "serial", tmp_path / "pooled"
    ref = cat.build_catalogue(serial, **GRID)
    lines = []
    # spawn, as the CLI does: fork after numba's OpenMP threads ran is unsafe
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
        got = cat.build_catalogue(pooled, executor=pool, log=lines.append, **GRID)
    assert _files(serial) == _files(pooled) and len(_files(pooled)) == 4
    _same_designs(serial, pooled)
    # files carry their creation time, so their digests differ; _same_designs compared contents
    strip = lambda es: [{k: v for k, v in e.items()  # noqa: E731
                         if k not in ("seconds", "created", "sha256")} for e in es]
    assert strip(got) == strip(ref)
    index = json.loads((pooled / "index.json").read_text())
    assert [e["file"] for e in index["entries"]] == [e["file"] for e in ref]
    assert len(lines) == 4 and all("D^2=" in line for line in lines)
    assert not [f for f in os.listdir(pooled) if f.endswith(".tmp")]


def test_interrupted_executor_build_resumes(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        cat.build_catalogue(tmp_path, executor=InlineExecutor(fail_at=3), **GRID)
    # the three tasks that ran (the inline executor runs task 4 before the result of task 3
    # is read) left complete files, all listed in the index
    index = json.loads((tmp_path / "index.json").read_text())
    assert len(_files(tmp_path)) == 3 and len(index["entries"]) == 3
    # a task that wrote its file but never reached the index is found on resume
    os.unlink(tmp_path / "index.json")
    lines = []
    executor = InlineExecutor()
    entries = cat.build_catalogue(tmp_path, executor=executor, resume=True, log=lines.append,
                                  **GRID)
    assert executor.calls == 1  # only the missing entry was submitted
    assert sum("kept" in line for line in lines) == 3 and len(entries) == 4
    ref = tmp_path / "ref"
    cat.build_catalogue(ref, **GRID)
    _same_designs(ref, tmp_path)


def test_task_error_propagates(tmp_path):
    with pytest.raises(RuntimeError):
        cat.build_catalogue(tmp_path, executor=InlineExecutor(fail_at=1, error=RuntimeError),
                            **GRID)


def test_executor_is_checked(tmp_path):
    with pytest.raises(TypeError, match="'executor' must be a concurrent.futures.Executor"):
        cat.build_catalogue(tmp_path, executor=object(), **GRID)


def test_cli_workers(tmp_path, capsys):
    args = ["catalogue", "build", "--out", str(tmp_path), "--d-values", "2", "--s-values", "8",
            "16", "--box-values", "1", "--maxiter", "3"]
    assert main(args + ["--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert len(_files(tmp_path)) == 4 and out.count("D^2=") == 4
    assert main(args + ["--workers", "2", "--resume", "--quiet"]) == 0
    assert capsys.readouterr().out == ""
    with pytest.raises(SystemExit) as exc:
        main(args + ["--workers", "0"])
    assert exc.value.code == 2


class LostResultsExecutor(Executor):
    """Runs each task at submit (unless ``run`` is false), but the results of the first
    ``lost`` tasks never arrive (their futures stay pending, as when Ctrl-C reaches the build
    between a worker's write and its result); task ``fail_at`` raises KeyboardInterrupt."""

    def __init__(self, lost, fail_at, run=True):
        self.calls, self.lost, self.fail_at, self.run = 0, lost, fail_at, run

    def submit(self, fn, /, *args, **kwargs):
        self.calls += 1
        fut = Future()
        if self.calls == self.fail_at:
            fut.set_exception(KeyboardInterrupt())
            return fut
        if not self.run:
            return fut
        result = fn(*args, **kwargs)
        if self.calls > self.lost:
            fut.set_result(result)
        return fut


def test_interrupted_build_indexes_files_whose_results_were_lost(tmp_path):
    # issue 29, item 9: Ctrl-C of `catalogue build --workers 2` left finished files out of
    # index.json until --resume; the interrupted build now finds them on disk
    old = tmp_path / "old"
    cat.build_catalogue(old, **dict(GRID, s_values=[8]))   # files of an earlier build
    with pytest.raises(KeyboardInterrupt):
        cat.build_catalogue(tmp_path, executor=LostResultsExecutor(lost=2, fail_at=3), **GRID)
    # tasks 1 and 2 (results lost) and 4 (submitted before the interrupt was seen) wrote
    # their files: all three are indexed (without the disk scan only task 4's was)
    index = json.loads((tmp_path / "index.json").read_text())
    assert len(_files(tmp_path)) == 3
    assert sorted(e["file"] for e in index["entries"]) == _files(tmp_path)
    # files older than the build (not written by it) are not taken for its own
    stale = tmp_path / "stale"
    stale.mkdir()
    for name in _files(old):
        os.link(old / name, stale / name)
    with pytest.raises(KeyboardInterrupt):   # no task runs: the first is interrupted
        cat.build_catalogue(stale, executor=LostResultsExecutor(lost=0, fail_at=1, run=False),
                            **GRID)
    index = json.loads((stale / "index.json").read_text())
    assert _files(stale) and index["entries"] == []
