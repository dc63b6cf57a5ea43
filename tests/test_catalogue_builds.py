"""Builds into one folder and builds that are killed (issue 21, L6 and L9): every build's entries
stay in index.json (merged under a lock), the worker processes end with a killed build, and a
build removes only the temporary files of writers that are gone."""
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import qmc_orff.catalogue as cat
from qmc_orff.catalogue import _concurrency as cb
from qmc_orff.sequence import _host_tag, exclusive_lock

SMALL = dict(s_values=[8], box_over_sigma=[1.0], methods=["global"], maxiter=3)


def _index_files(folder):
    with open(os.path.join(folder, "index.json"), encoding="utf-8") as fh:
        return sorted(e["file"] for e in json.load(fh)["entries"])


def test_a_build_that_finishes_inside_another_keeps_its_entries(tmp_path):
    # build A (d=2, 4) runs build B (d=3) to completion after its first entry; A's later
    # index writes used to drop B's entry (the last writer won)
    inner = []

    def log(msg):
        if not inner:
            inner.append(cat.build_catalogue(tmp_path, d_values=[3], **SMALL))

    outer = cat.build_catalogue(tmp_path, d_values=[2, 4], log=log, **SMALL)
    names = [cat.entry_name(d, 8, 1.0, "global") for d in (2, 3, 4)]
    assert _index_files(tmp_path) == sorted(names)
    assert [e["file"] for e in inner[0]] == [names[1]]
    assert sorted(e["file"] for e in outer) == [names[0], names[2]]
    with open(tmp_path / "scores.json", encoding="utf-8") as fh:
        assert sorted(r["d"] for r in json.load(fh)["scores"]) == [2, 3, 4]
    for d in (2, 3, 4):
        cat.load_catalogue(d, 8, 1.0, directory=tmp_path)
    # no temporary file left (the lock file, empty, may stay: filelock's choice)
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".") and f != cb.LOCK]


def test_a_later_build_without_resume_keeps_other_entries_and_drops_gone_files(tmp_path):
    cat.build_catalogue(tmp_path, d_values=[2, 3], **SMALL)
    os.unlink(tmp_path / cat.entry_name(3, 8, 1.0, "global"))
    cat.build_catalogue(tmp_path, d_values=[4], **SMALL)
    assert _index_files(tmp_path) == sorted(cat.entry_name(d, 8, 1.0, "global") for d in (2, 4))


def test_a_corrupt_index_is_replaced_by_the_merge(tmp_path):
    (tmp_path / "index.json").write_text("{not json")
    cat.build_catalogue(tmp_path, d_values=[2], **SMALL)
    assert _index_files(tmp_path) == [cat.entry_name(2, 8, 1.0, "global")]


def test_the_index_waits_for_the_lock_of_another_process(tmp_path):
    ready, release = tmp_path / "ready", tmp_path / "release"
    code = ("import os, sys, time\n"
            "from qmc_orff.sequence import exclusive_lock\n"
            f"with exclusive_lock({str(tmp_path / cb.LOCK)!r}):\n"
            f"    open({str(ready)!r}, 'w').close()\n"
            f"    while not os.path.exists({str(release)!r}):\n"
            "        time.sleep(0.01)\n")
    holder = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert holder.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        done = threading.Event()
        writer = threading.Thread(target=lambda: (cb.update_json(str(tmp_path), "x.json",
                                                                 lambda old: {"v": 1}),
                                                  done.set()))
        writer.start()
        assert not done.wait(0.5)  # blocked by the holder
        assert not (tmp_path / "x.json").exists()
        release.touch()
        assert done.wait(60)
        writer.join()
    finally:
        release.touch()
        holder.wait(60)
    assert json.loads((tmp_path / "x.json").read_text()) == {"v": 1}


def test_exclusive_lock_is_reentrant_across_sequential_holders(tmp_path):
    lock = tmp_path / ".l"
    for _ in range(3):
        with exclusive_lock(lock):
            assert lock.exists()


def test_exclusive_lock_orders_threads(tmp_path):
    # each holder's read-modify-write of a shared counter file is whole: no update lost
    lock, counter = tmp_path / ".l", tmp_path / "n"
    counter.write_text("0")

    def bump():
        for _ in range(20):
            with exclusive_lock(lock):
                value = int(counter.read_text())
                time.sleep(0.001)
                counter.write_text(str(value + 1))

    workers = [threading.Thread(target=bump) for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert counter.read_text() == "60"


@pytest.mark.skipif(os.name != "posix", reason="stale temp files are recognised on POSIX")
def test_a_build_removes_the_temp_files_of_dead_writers_only(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        name = cat.entry_name(2, 8, 1.0, "global")
        stale = tmp_path / f".{name}.{dead.pid}@{_host_tag()}.abc123.tmp"
        busy = tmp_path / f".{name}.{live.pid}@{_host_tag()}.def456.tmp"  # another build's
        for p in (stale, busy):
            p.write_bytes(b"PK partial")
        cat.build_catalogue(tmp_path, d_values=[4], **SMALL)
        assert busy.exists() and not stale.exists()
    finally:
        live.kill()
        live.wait()


def _children(pid):
    """Process ids whose parent is ``pid`` (Linux /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry))
    return out


def _running(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().decode(errors="replace")
    except OSError:
        return ""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigkill_of_a_build_ends_its_workers(tmp_path):
    # issue 21, L6: the spawned workers of `catalogue build --workers 2` kept running
    argv = [sys.executable, "-m", "qmc_orff", "catalogue", "build", "--out", str(tmp_path),
            "--d-values", "2", "3", "4", "--s-values", "256", "--box-values", "1",
            "--methods", "global", "--maxiter", "2000", "--workers", "2", "--quiet"]
    proc = subprocess.Popen(argv, start_new_session=True, stderr=subprocess.DEVNULL)
    workers = []
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
            workers = [p for p in _children(proc.pid) if "spawn_main" in _cmdline(p)]
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 20
        while any(map(_running, workers)) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = [p for p in workers if _running(p)]
        assert not left
    finally:
        for pid in workers:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.skipif(os.name != "posix", reason="POSIX parent ids")
def test_a_worker_whose_parent_is_gone_exits_before_an_entry(tmp_path):
    # the race: the build died before prctl took effect (or between entries elsewhere)
    def run(calls):
        code = ("from qmc_orff.catalogue import _concurrency as cb\n"
                "import os\n" + calls + "print('still running')\n")
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=60)

    proc = run("cb.tie_to_parent(os.getppid() + 1)\n")
    assert proc.returncode == 1 and proc.stdout == ""
    proc = run("cb.tie_to_parent(os.getppid())\ncb.check_parent()\n")
    assert proc.returncode == 0 and proc.stdout == "still running\n"
