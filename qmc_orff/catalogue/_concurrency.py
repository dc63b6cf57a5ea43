"""What a catalogue build shares with other builds and with its worker processes.

* :func:`update_json`: ``index.json`` and ``scores.json`` are read, merged and
  written under an exclusive lock of the folder (``.index.lock``), so that
  builds into one folder keep each other's entries.
* :func:`tie_to_parent`: the initializer of a build's worker processes; a
  worker ends with the build's process, even when that one is killed outright.
"""
from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import threading

from ..sequence import atomic_write, exclusive_lock

LOCK = ".index.lock"

#: the build's process id, in a worker started with :func:`tie_to_parent` (None elsewhere)
_PARENT = {"pid": None}


def update_json(directory, name, merge):
    """Replace the JSON file ``name`` of ``directory`` by ``merge(old)``, under the lock.

    ``old`` is the file's parsed content, or None when it is missing or not valid
    JSON; ``merge`` returns the new content, written atomically before the lock of
    ``directory/.index.lock`` (:func:`~qmc_orff.sequence.exclusive_lock`) is released.
    """
    path = os.path.join(directory, name)
    with exclusive_lock(os.path.join(directory, LOCK)):
        try:
            with open(path, encoding="utf-8") as fh:
                old = json.load(fh)
        except (OSError, ValueError, RecursionError):
            old = None
        text = (json.dumps(merge(old), indent=1, sort_keys=True) + "\n").encode("utf-8")
        atomic_write(path, lambda fh: fh.write(text))


def sha256_of(path):
    """The SHA-256 hex digest of the file ``path``."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def merge_entries(directory, old, ours, accept):
    """The entries of an index after merging this build's ``ours`` into the ``old`` ones.

    Parameters
    ----------
    directory : str
    old : list
        The entries read from ``index.json`` (anything else: none); an entry is
        kept when ``accept(k, entry)`` is true (the index's checks).
    ours : dict
        This build's entries by file name.

    Returns
    -------
    dict
        By file name: ``old``'s entries updated with ``ours``, except where
        another build indexed a file of the same name since and the file on disk
        is its version (SHA-256), not ours; only names whose file exists.
    """
    merged = {}
    for k, e in enumerate(old if isinstance(old, list) else []):
        if accept(k, e):
            merged[e["file"]] = e
    for name, e in ours.items():
        had = merged.get(name)
        path = os.path.join(directory, name)
        if (had is None or had.get("sha256") == e.get("sha256") or not os.path.isfile(path)
                or sha256_of(path) == e.get("sha256")):
            merged[name] = e
    return {name: e for name, e in merged.items()
            if os.path.isfile(os.path.join(directory, name))}


def merge_scores(old, scores, name_of):
    """The records of ``scores.json`` after merging this build's ``scores`` (by file name;
    ``name_of(record)`` names an old record) into ``old`` (its parsed content or None)."""
    merged = {}
    for rec in old.get("scores", []) if isinstance(old, dict) else []:
        try:
            merged[name_of(rec)] = rec
        except (TypeError, KeyError, ValueError):
            continue
    merged.update(scores)
    return [merged[k] for k in sorted(merged)]


# --------------------------------------------------------------------------- workers
def tie_to_parent(parent_pid):
    """Initializer of a build's worker processes: end this process when ``parent_pid`` dies.

    Linux: ``prctl(PR_SET_PDEATHSIG, SIGTERM)`` (the kernel sends SIGTERM the
    moment the parent ends, SIGKILL included); then, for a parent that died
    before the call took effect, ``os.getppid()`` is compared with
    ``parent_pid``.  Other POSIX systems: a daemon thread compares it every
    second.  Everywhere :func:`check_parent` (called before each entry) does.
    The parent is the process that started the worker (a ``"spawn"`` pool's
    creator; with ``"forkserver"`` it would be the server, so do not pass this
    initializer there).  Windows: no check (a worker there ends when the pipe of
    its pool breaks, after its current entry).
    """
    _PARENT["pid"] = int(parent_pid)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # no libc or no prctl: the thread below
            _start_watch()
    elif os.name == "posix":
        _start_watch()
    check_parent()


def check_parent():
    """End this worker (``os._exit(1)``) when the build that started it is gone."""
    pid = _PARENT["pid"]
    if pid is not None and os.name == "posix" and os.getppid() != pid:
        os._exit(1)


def _start_watch():
    def watch():
        while not _stop.wait(1.0):
            check_parent()

    threading.Thread(target=watch, name="qmc_orff-parent-watch", daemon=True).start()


_stop = threading.Event()
