"""What the subcommands share: exit statuses, the error type, argument types, output
paths and reading points."""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np


EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class _CliError(Exception):
    """An error to report on one line with exit status 2."""


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter; an epilog of examples keeps its lines (command lines are not
    wrapped), the description is wrapped as usual."""

    def _fill_text(self, text, width, indent):
        if text.startswith("example"):
            return "\n".join(indent + line for line in text.splitlines())
        return super()._fill_text(text, width, indent)


class _Parser(argparse.ArgumentParser):
    """argparse's parser with one-line errors and no abbreviated options (``--max`` is not
    ``--maxiter``: an abbreviation that a later option would make ambiguous breaks scripts)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):  # one line, status 2 (argparse prints usage + error)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        sys.exit(EXIT_USAGE)


def _int_at_least(minimum, what, maximum=None, words=()):
    """An argparse type: an integer >= ``minimum`` (and <= ``maximum``; ``what`` names it in
    the error), or one of the strings ``words`` as given."""
    def parse(text):
        if text in words:
            return text
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"expected {what}; got {text!r}")
        return value
    return parse


_positive_int = _int_at_least(1, "a positive integer")
_nonneg_int = _int_at_least(0, "an integer >= 0")


def _positive_float(text):
    """An argparse type: one positive finite number."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (np.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive number; got {text!r}")
    return value


def _fraction(text):
    """An argparse type: one number in [0, 1]."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:  # NaN fails too
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1]; got {text!r}")
    return value


def _design_size():
    """``--s`` of the designs: 1 .. MAX_DESIGN_POINTS (checked before any work)."""
    from ..designs import MAX_DESIGN_POINTS

    return _int_at_least(1, f"an integer in [1, {MAX_DESIGN_POINTS}]", MAX_DESIGN_POINTS)


def _positive_floats(text):
    """A positive float, or a comma-separated list of them (one per coordinate)."""
    try:
        values = [float(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number or a comma-separated "
                                         f"list of them; got {text!r}") from None
    if not values or not all(np.isfinite(v) and v > 0 for v in values):
        raise argparse.ArgumentTypeError(f"expected positive finite numbers; got {text!r}")
    return values[0] if len(values) == 1 else np.asarray(values)


_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def _scramble_arg(text):
    """``--scramble`` value: a boolean spelt any usual way, ``random`` or ``deterministic``."""
    low = text.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    if low in ("random", "deterministic"):
        return low
    raise argparse.ArgumentTypeError(f"expected true, false, random or deterministic; got {text!r}")


def _check_suffix(path, option, suffixes):
    """Refuse an output name whose suffix is not one of ``suffixes`` (``-o x.txt`` must not
    silently receive a zip archive)."""
    if not str(path).endswith(suffixes):
        raise _CliError(f"{option} {str(path)!r} must end in {' or '.join(suffixes)} (the "
                        "format is chosen by the suffix)")


def _check_output_path(path, option, inputs=()):
    """Fail early (one line, exit 2) when ``path`` cannot be written.

    Checked: ``path`` is not a folder, its folder exists, a file can be created
    there (a probe file is created and removed: ``os.access`` says yes to root
    on read-only mounts), and it is not one of the ``inputs`` files.  Temporary
    files of killed earlier writes to ``path`` whose process is gone are removed.
    """
    import tempfile

    from ..sequence import remove_stale_temps

    if os.path.isdir(path):
        raise _CliError(f"{option} {path!r} is a directory; give a file name")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise _CliError(f"{option} {path!r}: folder {folder!r} does not exist")
    for other in inputs:
        if other is None:
            continue
        same = os.path.abspath(other) == os.path.abspath(path) or (
            os.path.exists(other) and os.path.exists(path) and os.path.samefile(path, other))
        if same:
            raise _CliError(f"{option} {path!r} is the same file as {other!r} (an input or "
                            "another output); give another name")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".qmc-orff-probe.", suffix=".tmp")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise _CliError(f"{option} {path!r}: folder {folder!r} is not writable "
                        f"({exc.strerror or exc})") from None
    remove_stale_temps(folder, path)


def _saver(out):
    """``save(seq, final)``: write ``seq`` to ``out`` marked complete or not; a failed
    checkpoint (``final=False``) warns once and the design goes on."""
    from ..sequence import Sequence

    warned = []

    def save(seq, final):
        meta = dict(seq.meta)
        meta["complete"] = bool(final)
        result = Sequence(seq.points, seq.weights, meta)
        try:
            result.save(out)
        except OSError as exc:
            if final:
                raise
            if not warned:  # a failed checkpoint must not end the run
                warned.append(exc)
                sys.stderr.write(f"\nqmc-orff: warning: cannot write the checkpoint {out!r} "
                                 f"({exc.strerror or exc}); going on\n")

    return save


def _fallback_paths(path):
    """Places for a result whose output file could not be written: the working folder,
    the temporary folder and the home folder, in turn."""
    import tempfile

    base = os.path.basename(path) or "design.npz"
    stem = base[:-4] if base.endswith(".npz") else base
    name = f"{stem}.qmc-orff-fallback-{os.getpid()}.npz"
    for folder in (os.getcwd(), tempfile.gettempdir(), os.path.expanduser("~")):
        yield os.path.join(folder, name)


def _save_result(seq, out, save, interrupted):
    """``save(seq, final)`` the result (the best iterate when interrupted) to ``out``; where
    that fails (``OSError``: a full disk, a read-only folder), write it to the first
    fallback place that takes it.  Either failure ends in a one-line ``_CliError`` saying
    where the result went, or that it is lost (nowhere could be written)."""
    from ..sequence import Sequence

    try:
        save(seq, final=not interrupted)
        return
    except OSError as exc:
        reason = exc.strerror or str(exc)
    meta = dict(seq.meta)
    meta["complete"] = not interrupted
    result = Sequence(seq.points, seq.weights, meta)
    for fallback in _fallback_paths(out):
        try:
            result.save(fallback)
        except OSError:
            continue
        raise _CliError(f"cannot write {out!r} ({reason}); saved the "
                        f"{'best iterate' if interrupted else 'result'} to {fallback}")
    raise _CliError(f"cannot write {out!r} ({reason}), nor a fallback file: the result is lost")


def _read_points(path):
    """A Sequence from ``.npz``, or a frequency matrix from ``.npy``/``.txt``/``.csv``."""
    from ..sequence import Sequence, load_sequence

    if not os.path.exists(path):
        raise _CliError(f"cannot read {path!r}: no such file")
    if path.endswith(".npz"):
        return load_sequence(path)
    if not os.path.isfile(path):  # e.g. /dev/zero or a FIFO would be read without end
        raise _CliError(f"cannot read {path!r}: not a regular file")
    try:
        if path.endswith(".npy"):
            # memory-mapped: a header claiming more data than the file holds is an error,
            # not an allocation of the claimed size
            W = np.array(np.load(path, mmap_mode="r", allow_pickle=False))
        else:
            W = np.loadtxt(path, delimiter="," if path.endswith(".csv") else None, ndmin=2)
    except (OSError, ValueError, EOFError, MemoryError, OverflowError, TypeError) as exc:
        raise _CliError(f"cannot read {path!r}: {exc}") from None
    return Sequence(W)
