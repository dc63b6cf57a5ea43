"""Atomic file writes: a temporary file in the target directory, fsync'ed and renamed over it.

An interrupted write leaves the previous file (or no file) under the target
name, never a truncated one; the temporary file of a writer killed outright
(SIGKILL) is removed by the next write to the same target.
"""
from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import tempfile
import threading

__all__ = ["atomic_write"]


def _fsync_dir(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # e.g. Windows: directories cannot be opened
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def _deferred_sigint():
    """Hold back Ctrl-C (SIGINT) until the block ends, then deliver it.

    A ``KeyboardInterrupt`` inside ``zipfile`` can turn into an unrelated error; a
    save interrupted by Ctrl-C therefore completes first.  Only in the main thread
    (signal handlers cannot be set elsewhere) and only when SIGINT has a Python
    handler (the default one, or e.g. the command line's); that handler is
    called once after the block, so Python's default raises
    ``KeyboardInterrupt`` there.
    """
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield
        return
    caught = []
    signal.signal(signal.SIGINT, lambda signum, frame: caught.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        previous(signal.SIGINT, caught[0])


def _host_tag():
    """This machine's name reduced to ``[A-Za-z0-9-]`` (part of temporary file names)."""
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:40] or "host"


def _temp_prefix(path):
    return "." + os.path.basename(path) + "."


def _remove_stale_temps(path, directory):
    """Remove temporary files of earlier writes to ``path`` whose writer is dead.

    A killed process (SIGKILL, power loss) cannot clean up after
    :func:`atomic_write`; its temporary file is named
    ``.<name>.<pid>@<host>.<random>.tmp``, and the next write to the same
    target removes it when that process no longer runs on this machine (POSIX
    only; files of live processes, other machines and other names are kept).
    """
    if os.name != "posix":
        return
    prefix = _temp_prefix(path)
    pattern = re.compile(r"([0-9]{1,10})@([A-Za-z0-9-]{1,40})\.[A-Za-z0-9_]+\.tmp")
    host = _host_tag()
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if not name.startswith(prefix):
            continue
        m = pattern.fullmatch(name[len(prefix):])
        if m is None or m.group(2) != host:
            continue
        pid = int(m.group(1))
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
            continue  # alive (another writer)
        except ProcessLookupError:
            pass
        except (PermissionError, OverflowError):  # alive under another user / not a pid
            continue
        try:
            os.unlink(os.path.join(directory, name))
        except OSError:
            pass


def atomic_write(path, write):
    """Write a file atomically: ``write(fileobj)`` fills a temporary file in the
    target directory, which is fsync'ed and renamed over ``path``.

    On any exception (including ``KeyboardInterrupt``) the temporary file is
    removed and the target is left as it was.  Ctrl-C during the write is held
    back until the file is complete (then ``KeyboardInterrupt`` is raised).
    Temporary files left by killed earlier writes to the same ``path`` are
    removed first (see :func:`_remove_stale_temps`).
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    with _deferred_sigint():
        _remove_stale_temps(path, directory)
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp",
                                   prefix=f"{_temp_prefix(path)}{os.getpid()}@{_host_tag()}.")
        _atomic_write(path, write, fd, tmp, directory)


def _atomic_write(path, write, fd, tmp, directory):
    try:
        # mkstemp creates the file 0600; give it the usual mode (0666 less the umask)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(directory)


