"""Atomic file writes: a temporary file in the target directory, fsync'ed and renamed over it.

An interrupted write leaves the previous file (or no file) under the target
name, never a truncated one.  On Linux the temporary file has no name while it
is written (``O_TMPFILE``): a writer killed outright (SIGKILL, power loss)
leaves nothing behind; it is named ``.<name>.<pid>@<host>.<random>.tmp`` only
for the instant between its last byte and the rename.  Elsewhere (or on a file
system without ``O_TMPFILE``) it carries that name throughout, and the temporary
file of a killed writer is removed by the next write to the same target
(:func:`remove_stale_temps`).  :func:`exclusive_lock` serialises the
read-modify-write of a file shared by several processes.
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import tempfile
import threading

__all__ = ["atomic_write", "exclusive_lock", "remove_stale_temps"]


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


_TEMP_TAIL = re.compile(r"([0-9]{1,10})@([A-Za-z0-9-]{1,40})\.[A-Za-z0-9_]+\.tmp")


def _writer_is_dead(pid):
    """True when no process ``pid`` runs on this machine (POSIX ``kill(pid, 0)``)."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):  # alive under another user / not a pid
        return False
    return False


def remove_stale_temps(directory, target=None):
    """Remove the temporary files of killed :func:`atomic_write` calls in ``directory``.

    A killed process (SIGKILL, power loss) cannot clean up after
    :func:`atomic_write`; a temporary file it left is named
    ``.<name>.<pid>@<host>.<random>.tmp``.  It is removed when that process no
    longer runs on this machine; files of live processes (a write in progress),
    of other machines and names of other shapes are kept.  ``target``: only the
    temporary files of that target file name (a path's base name is used);
    ``None``: those of every target in ``directory``.  POSIX only (elsewhere a
    no-op); errors (a folder that cannot be listed, a file gone already) are
    ignored.
    """
    if os.name != "posix":
        return
    prefix = "." if target is None else _temp_prefix(os.fspath(target))
    host = _host_tag()
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        tail = name[len(prefix):]
        if target is None:  # the target's name may itself contain dots
            m = next(filter(None, (_TEMP_TAIL.fullmatch(tail[k + 1:])
                                   for k in range(len(tail)) if tail[k] == ".")), None)
        else:
            m = _TEMP_TAIL.fullmatch(tail)
        if m is None or m.group(2) != host or not _writer_is_dead(int(m.group(1))):
            continue
        try:
            os.unlink(os.path.join(directory, name))
        except OSError:
            pass


def _remove_stale_temps(path, directory):
    """:func:`remove_stale_temps` for the target ``path``."""
    remove_stale_temps(directory, os.path.basename(path))


@contextlib.contextmanager
def exclusive_lock(path):
    """Hold an exclusive lock on the lock file ``path`` for the ``with`` block.

    ``filelock.FileLock``: ``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows;
    waits for the holder.  The lock file is created when missing and may stay in
    the folder afterwards (an empty file; whether it is removed on release depends
    on the filelock version).  The lock is advisory: it orders the processes (and
    threads) that take it, nothing else.
    """
    import filelock

    with filelock.FileLock(os.fspath(path)):
        yield


def atomic_write(path, write):
    """Write a file atomically: ``write(fileobj)`` fills a temporary file in the
    target directory, which is fsync'ed and renamed over ``path``.

    On any exception (including ``KeyboardInterrupt``) the temporary file is
    removed and the target is left as it was.  Ctrl-C during the write is held
    back until the file is complete (then ``KeyboardInterrupt`` is raised).
    Temporary files left by killed earlier writes to the same ``path`` are
    removed first (see :func:`remove_stale_temps`).  On Linux the temporary file
    is unnamed (``O_TMPFILE``) until it is complete, so a killed writer leaves
    none.
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    with _deferred_sigint():
        _remove_stale_temps(path, directory)
        fd = _unnamed_temp(directory)
        if fd is not None:
            _atomic_write_unnamed(path, write, fd, directory)
            return
        fd, tmp = _named_temp(path, directory)
        _atomic_write(path, write, fd, tmp, directory)


def _named_temp(path, directory):
    return tempfile.mkstemp(dir=directory, suffix=".tmp",
                            prefix=f"{_temp_prefix(path)}{os.getpid()}@{_host_tag()}.")


def _unnamed_temp(directory):
    """A file descriptor of a new unnamed file in ``directory`` (Linux ``O_TMPFILE``, mode
    0666 less the umask), or None where that is not available."""
    if not hasattr(os, "O_TMPFILE") or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(directory, os.O_TMPFILE | os.O_RDWR, 0o666)
    except OSError:  # EOPNOTSUPP / EISDIR / EINVAL: a file system or kernel without it
        return None


def _atomic_write_unnamed(path, write, fd, directory):
    with os.fdopen(fd, "w+b") as fh:  # an exception here leaves nothing: the file has no name
        write(fh)
        fh.flush()
        os.fsync(fh.fileno())
        tmp = _link_unnamed(fh, path, directory)
        if tmp is None:  # linking refused: the bytes go through a named temporary file

            def copy(out):
                fh.seek(0)
                shutil.copyfileobj(fh, out)

            _atomic_write(path, copy, *_named_temp(path, directory), directory)
            return
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(directory)


def _link_unnamed(fh, path, directory):
    """Give the complete unnamed file ``fh`` a temporary name beside ``path`` (``linkat``
    through ``/proc/self/fd``) and return it; None where that is refused."""
    prefix = f"{_temp_prefix(path)}{os.getpid()}@{_host_tag()}."
    try:  # a dir_fd makes os.link call linkat(..., AT_SYMLINK_FOLLOW) (plain link(2) does not
        # follow the /proc magic link: EXDEV)
        dir_fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return None
    try:
        for _ in range(100):
            name = f"{prefix}{os.urandom(6).hex()}.tmp"
            try:
                os.link(f"/proc/self/fd/{fh.fileno()}", name, dst_dir_fd=dir_fd,
                        follow_symlinks=True)
                return os.path.join(directory, name)
            except FileExistsError:
                continue
            except (OSError, NotImplementedError):
                return None
    finally:
        os.close(dir_fd)
    return None


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


