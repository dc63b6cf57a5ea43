"""Designed frequency sequences and their file format.

A :class:`Sequence` holds ``s`` frequencies in ``d`` dimensions for a product
spectral density at *unit* bandwidth, optional nonnegative weights, and a
metadata dictionary.  A sequence designed for a box ``b`` and a bandwidth
``sigma`` is stored as ``points * sigma`` with ``box_over_sigma = b / sigma``,
so one file serves every bandwidth: :meth:`Sequence.frequencies` rescales.

File format (version 1)
-----------------------
A deflated ``.npz`` archive (``numpy.savez_compressed``) with
the members

``points``
    float64 ``(s, d)``, C order, little endian.
``weights``
    float64 ``(s,)`` (absent for uniform weights ``1/s``).
``header``
    uint8 ``(n,)``: UTF-8 JSON text ``{"format": "qmc_orff.sequence",
    "format_version": 1, "arrays": {name: {"shape": [...], "dtype": "<f8",
    "sha256": hex}}, "meta": {...}}``.

Nothing is pickled.  Reading is strict (:func:`load_sequence`): the file must
be exactly one zip archive (no leading or trailing data, members back to back,
stored or deflated, no data descriptors), with exactly these members; each
``.npy`` member must be a C-order little-endian array whose declared sizes (zip
directory, ``.npy`` header) agree with the JSON header *before* any data is
inflated, and is read with that bound; the JSON header must have exactly the
fields above (``format_version`` the integer 1, ``dtype`` ``"<f8"``, shapes of
positive integers) and at most :data:`MAX_HEADER_BYTES` bytes.  Every problem is
a ``ValueError`` ``"invalid sequence file '<path>': <what>."``.  The per-array
digests detect corruption; ``load_sequence(path, sha256=...)`` also pins the
whole file.  A digest is not a defence against tampering: whoever can change the
file can change a digest stored beside it.

Writes are atomic: the archive goes to a temporary file
``.<name>.<pid>@<host>.<random>.tmp`` in the target's directory, is flushed
and fsync'ed, and renamed over the target (``os.replace``); the directory is
then fsync'ed.  An interrupted save leaves the previous file (or no file) under
the target name, never a truncated one; the temporary file of a writer killed
outright (SIGKILL) is removed by the next write to the same target.

Lattice designs can also be exported in the LDData / LatNet Builder plain-text
lattice format (:meth:`Sequence.write_lattice`, :func:`read_lattice`).
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import re
import signal
import socket
import stat
import struct
import tempfile
import threading
import zipfile
import zlib
from dataclasses import dataclass, field

import numpy as np

from ._validation import as_points, as_positive, as_weights

__all__ = ["Sequence", "load_sequence", "read_lattice", "FORMAT_VERSION", "MAX_HEADER_BYTES",
           "MAX_LATTICE_BYTES"]

#: Version of the ``.npz`` layout written by :meth:`Sequence.save`.
FORMAT_VERSION = 1
_FORMAT_NAME = "qmc_orff.sequence"
_HEADER_KEY = "header"
_ARRAY_KEYS = ("points", "weights")


# --------------------------------------------------------------------------- helpers
def _json_default(obj):
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    raise TypeError(f"object of type {type(obj).__name__} is not JSON serialisable")


def _normalise_meta(meta):
    """Return a deep, JSON-compatible copy of ``meta`` (numpy scalars/arrays -> Python)."""
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise TypeError(f"'meta' must be a dict; got {type(meta).__name__}.")
    try:
        text = json.dumps(meta, default=_json_default, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"'meta' must be JSON-serialisable with finite numbers; {exc}.") from exc
    return json.loads(text)


def _digest(arr):
    """SHA-256 of the little-endian float64 C-order bytes of ``arr``."""
    data = np.ascontiguousarray(arr, dtype="<f8")
    return hashlib.sha256(data.tobytes()).hexdigest()


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


# --------------------------------------------------------------------------- Sequence
@dataclass(frozen=True, eq=False)
class Sequence:
    """Frequencies (and optional weights) for a product spectral density at unit bandwidth.

    Parameters
    ----------
    points : array_like of shape (s, d)
        Finite frequencies for the density at unit bandwidth.  Stored as a
        read-only float64 copy.
    weights : array_like of shape (s,) or None, default=None
        Nonnegative quadrature weights; ``None`` means uniform weights ``1/s``.
        Weights need not sum to one (Avron et al. 2016, section 5).
    meta : dict, default={}
        JSON-compatible metadata, stored as a deep copy.  The keys ``"s"`` and
        ``"d"`` are set from the points (a conflicting value is an error); the
        keys ``"method"`` (default ``"custom"``), ``"density"`` (default
        ``None``) and ``"box_over_sigma"`` (list of ``d`` floats, or ``None``;
        a scalar is broadcast) are always present.

    Attributes
    ----------
    s, d : int
        Number of points and dimension.

    Notes
    -----
    Sequences compare by identity (``==`` is ``is``); compare ``points``,
    ``weights`` and ``meta`` to compare contents.
    A sequence designed for box ``b`` and bandwidth ``sigma`` is stored with
    points ``W * sigma`` and ``box_over_sigma = b / sigma``: for a Gaussian
    kernel of bandwidth ``sigma`` the frequencies are ``points / sigma``
    (:meth:`frequencies`).
    """

    points: np.ndarray = field(repr=False)
    weights: np.ndarray | None = field(default=None, repr=False)
    meta: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        pts = np.array(as_points(self.points, "points"), dtype=np.float64, order="C", copy=True)
        pts.setflags(write=False)
        s, d = pts.shape
        w = None
        if self.weights is not None:
            w = np.array(as_weights(self.weights, s), dtype=np.float64, copy=True)
            w.setflags(write=False)
        meta = _normalise_meta(self.meta)
        for key, value in (("s", s), ("d", d)):
            if key in meta and meta[key] != value:
                raise ValueError(f"meta['{key}'] = {meta[key]!r} conflicts with the points' "
                                 f"{key} = {value}.")
            meta[key] = value
        meta.setdefault("method", "custom")
        meta.setdefault("density", None)
        bos = meta.get("box_over_sigma")
        if bos is not None:
            bos = as_positive(bos, "box_over_sigma", d=d)
            meta["box_over_sigma"] = [float(x) for x in np.broadcast_to(bos, (d,))]
        else:
            meta["box_over_sigma"] = None
        object.__setattr__(self, "points", pts)
        object.__setattr__(self, "weights", w)
        object.__setattr__(self, "meta", meta)

    def __reduce__(self):
        # copy, deepcopy (e.g. sklearn.clone of an estimator holding a Sequence) and
        # pickle rebuild through __post_init__, so the arrays stay read-only and checked
        return type(self), (self.points, self.weights, self.meta)

    # ------------------------------------------------------------------ properties
    @property
    def s(self) -> int:
        """Number of points."""
        return self.points.shape[0]

    @property
    def d(self) -> int:
        """Dimension."""
        return self.points.shape[1]

    @property
    def effective_weights(self) -> np.ndarray:
        """The weights, with ``None`` replaced by uniform weights ``1/s`` (a new array)."""
        if self.weights is None:
            return np.full(self.s, 1.0 / self.s)
        return self.weights.copy()

    def __repr__(self):
        bos = self.meta.get("box_over_sigma")
        bos_txt = "None" if bos is None else (
            f"{bos[0]:g}" if len(set(bos)) == 1 else "[" + ", ".join(f"{x:g}" for x in bos) + "]")
        return (f"Sequence(s={self.s}, d={self.d}, method={self.meta.get('method')!r}, "
                f"density={self.meta.get('density')!r}, box_over_sigma={bos_txt}, "
                f"weighted={self.weights is not None})")

    # ------------------------------------------------------------------ use
    def frequencies(self, sigma=1.0):
        """Frequencies for a kernel of bandwidth ``sigma``.

        Parameters
        ----------
        sigma : float or array_like of shape (d,), default=1.0
            Kernel bandwidth(s), all positive.

        Returns
        -------
        ndarray of shape (s, d)
            ``points / sigma`` (a new, writeable array).

        Raises
        ------
        ValueError
            If ``sigma`` is not positive and finite, or so small that
            ``points / sigma`` overflows float64.
        """
        sigma = as_positive(sigma, "sigma", d=self.d)
        with np.errstate(over="ignore"):
            W = self.points / sigma
        if not np.all(np.isfinite(W)):
            raise ValueError(f"'sigma' is too small: points / sigma overflows float64 "
                             f"(min sigma {float(np.min(sigma))!r}).")
        return W

    # ------------------------------------------------------------------ files
    def _header(self):
        arrays = {"points": self.points}
        if self.weights is not None:
            arrays["weights"] = self.weights
        return {
            "format": _FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "arrays": {k: {"shape": list(v.shape), "dtype": "<f8", "sha256": _digest(v)}
                       for k, v in arrays.items()},
            "meta": self.meta,
        }, arrays

    def save(self, path):
        """Write the sequence to ``path`` (``.npz``, atomically; see the module docstring).

        The name is used as given (no ``.npz`` is appended).
        """
        header, arrays = self._header()
        text = json.dumps(header, sort_keys=True, allow_nan=False).encode("utf-8")
        members = {k: np.ascontiguousarray(v, dtype="<f8") for k, v in arrays.items()}
        members[_HEADER_KEY] = np.frombuffer(text, dtype=np.uint8)
        atomic_write(path, lambda fh: np.savez_compressed(fh, **members))

    def write_lattice(self, path):
        """Export the generating vector of a lattice design in the LDData lattice format.

        The file starts with the line ``# lattice``, then comment lines (``#``)
        with the provenance and the shift, the dimension, the number of points
        ``n``, and the ``d`` generating-vector coordinates, one per line.  Point
        ``i`` of the (unshifted) lattice is ``frac(i * z / n)``.

        Raises
        ------
        ValueError
            If the sequence is not a lattice design (no ``generating_vector``
            in its metadata).
        """
        z = self.meta.get("generating_vector")
        n = self.meta.get("lattice_n")
        if z is None or n is None:
            raise ValueError("only lattice designs (meta with 'generating_vector' and "
                             f"'lattice_n') can be exported; this sequence's method is "
                             f"{self.meta.get('method')!r}.")
        shift = self.meta.get("lattice_shift")
        lines = ["# lattice",
                 f"# rank-1 lattice rule designed by qmc_orff (box discrepancy, density "
                 f"{self.meta.get('density')!r}, box_over_sigma "
                 f"{self.meta.get('box_over_sigma')})"]
        if shift is not None:
            lines.append("# shift (applied modulo 1 before the inverse CDF): "
                         + " ".join(repr(float(x)) for x in shift))
        lines.append(f"{len(z)}\t# {len(z)} dimensions")
        lines.append(f"{int(n)}\t# modulus = n = {int(n)} points")
        lines.append("# coordinates of the generating vector, starting at j=1")
        lines.extend(str(int(zj)) for zj in z)
        data = ("\n".join(lines) + "\n").encode("ascii")
        atomic_write(path, lambda fh: fh.write(data))


# --------------------------------------------------------------------------- loading
#: Largest JSON header accepted (bytes): far above any real file (a history of
#: 10^5 iterations takes about 4.4 MB), small enough to parse without harm.
MAX_HEADER_BYTES = 16 * 2 ** 20
_MAX_NPY_HEADER = 4096          # numpy writes about 118 bytes, padded to 128
_MAX_JSON_INT_DIGITS = 40       # seeds and lattice moduli have fewer
_DEFLATE_MAX_RATIO = 1032       # deflate cannot inflate more than this (RFC 1951 limit)
_NPY_MAGIC = b"\x93NUMPY\x01\x00"
# exactly what numpy (any version since 1.0) writes for a C-order 1-D or 2-D array
_NPY_HEADER = re.compile(rb"\{'descr': '(<f8|\|u1)', 'fortran_order': False, "
                         rb"'shape': \(([0-9]{1,19})(?:,|, ([0-9]{1,19}))\), \} *\n")
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
_ZIP_LOCAL = b"PK\x03\x04"
_ZIP_EOCD = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_EOCD = b"PK\x06\x06"
# errors that the zip, zlib and npy layers raise on damaged input
_READ_ERRORS = (OSError, EOFError, zipfile.BadZipFile, zlib.error, KeyError, NotImplementedError,
                RuntimeError, UnicodeDecodeError, struct.error, ValueError, OverflowError,
                MemoryError, IndexError)


class _Invalid(Exception):
    """Internal: a reason to reject the file (turned into the public ValueError)."""


def _bad(path, what):
    return ValueError(f"invalid sequence file '{os.fspath(path)}': {what}.")


def _check_sha256_arg(sha256):
    if sha256 is None:
        return None
    if not isinstance(sha256, str):
        raise TypeError(f"'sha256' must be a hex string or None; got {type(sha256).__name__}.")
    digest = sha256.strip().lower()
    if not _SHA256_HEX.fullmatch(digest):
        raise ValueError(f"'sha256' must be 64 hexadecimal digits; got {sha256!r}.")
    return digest


def _read_regular_file(path):
    """All bytes of the regular file ``path``, read with a bound (its size when opened)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise _Invalid("no such file") from None
    except (OSError, ValueError) as exc:  # ValueError: embedded NUL byte
        raise _Invalid(f"cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            # directories, FIFOs and devices (/dev/zero would never end)
            raise _Invalid("cannot be read (not a regular file)")
        size = st.st_size
        chunks, got = [], 0
        while got <= size:
            chunk = os.read(fd, min(size + 1 - got, 1 << 24))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got != size:
            raise _Invalid("cannot be read (the file changed size while it was read)")
        return b"".join(chunks)
    except OSError as exc:
        raise _Invalid(f"cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def _u16(data, off):
    return int.from_bytes(data[off:off + 2], "little")


def _u32(data, off):
    return int.from_bytes(data[off:off + 4], "little")


def _u64(data, off):
    return int.from_bytes(data[off:off + 8], "little")


def _zip_layout(data):
    """Check that ``data`` is exactly one zip archive: members back to back from byte 0,
    then the central directory, then the end record at the very end (no comment).

    Returns the central directory's offset.  Leading data, trailing data (e.g. a
    second archive appended), gaps between members, overlapping members and data
    descriptors are refused.
    """
    n = len(data)
    if n < 22 or data[n - 22:n - 18] != _ZIP_EOCD:
        raise _Invalid("cannot be read (not a zip archive, truncated, or followed by other "
                       "data: no end-of-central-directory record at the end)")
    eocd = n - 22
    if _u16(data, eocd + 20) != 0:
        raise _Invalid("cannot be read (zip comment)")
    if _u16(data, eocd + 4) != 0 or _u16(data, eocd + 6) != 0:
        raise _Invalid("cannot be read (multi-disk zip archive)")
    entries = _u16(data, eocd + 10)
    if entries != _u16(data, eocd + 8) or not 2 <= entries <= 1 + len(_ARRAY_KEYS):
        raise _Invalid(f"not a qmc_orff sequence file ({entries} zip members; expected "
                       f"'{_HEADER_KEY}', 'points' and optionally 'weights')")
    cd_size, cd_offset, cd_end = _u32(data, eocd + 12), _u32(data, eocd + 16), eocd
    if n >= 22 + 20 + 56 and data[eocd - 20:eocd - 16] == _ZIP64_LOCATOR:
        rec = eocd - 20 - 56
        if (data[rec:rec + 4] != _ZIP64_EOCD or _u64(data, eocd - 20 + 8) != rec
                or _u64(data, rec + 4) != 44):
            raise _Invalid("cannot be read (damaged zip64 end record)")
        if _u64(data, rec + 24) != entries or _u64(data, rec + 32) != entries:
            raise _Invalid("cannot be read (zip64 end record disagrees with the end record)")
        cd_size, cd_offset, cd_end = _u64(data, rec + 40), _u64(data, rec + 48), rec
    if cd_offset + cd_size != cd_end:
        raise _Invalid("cannot be read (data before the archive or between its central "
                       "directory and end record)")
    return cd_offset


def _check_members(data, infos, cd_offset):
    """Members must tile ``data[:cd_offset]`` exactly, in order, without encryption or
    data descriptors, stored or deflated."""
    pos = 0
    for info in sorted(infos, key=lambda i: i.header_offset):
        if info.header_offset != pos:
            raise _Invalid(f"cannot be read (member {info.filename!r} at byte "
                           f"{info.header_offset}, expected {pos}: gap or overlap)")
        if data[pos:pos + 4] != _ZIP_LOCAL:
            raise _Invalid(f"cannot be read (no local header for member {info.filename!r})")
        if info.flag_bits & 0x9:  # bit 0: encrypted, bit 3: data descriptor
            raise _Invalid(f"cannot be read (member {info.filename!r} is encrypted or has a "
                           "data descriptor)")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise _Invalid(f"cannot be read (member {info.filename!r} uses compression method "
                           f"{info.compress_type})")
        if info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
            raise _Invalid(f"cannot be read (stored member {info.filename!r} declares "
                           f"{info.file_size} bytes but holds {info.compress_size})")
        if info.file_size > _DEFLATE_MAX_RATIO * info.compress_size + 64:
            raise _Invalid(f"cannot be read (member {info.filename!r} declares {info.file_size} "
                           f"bytes from {info.compress_size} compressed: not a deflate stream)")
        pos += 30 + _u16(data, pos + 26) + _u16(data, pos + 28) + info.compress_size
    if pos != cd_offset:
        raise _Invalid(f"cannot be read (members end at byte {pos}, the central directory "
                       f"starts at {cd_offset})")


def _read_exact(fh, n):
    out = bytearray()
    while len(out) < n:
        chunk = fh.read(min(n - len(out), 1 << 24))
        if not chunk:
            raise _Invalid("cannot be read (member shorter than declared)")
        out += chunk
    return bytes(out)


def _read_npy(zf, info, name, descr, shape=None, max_items=None):
    """Read one ``.npy`` member with a bound: its declared sizes (zip directory, npy
    header) are checked against ``descr`` and ``shape`` (or ``max_items`` for the
    1-D header) before any data is read, and no more than declared is inflated."""
    itemsize = 8 if descr == "<f8" else 1
    if shape is not None:
        nbytes = math.prod(shape) * itemsize
        if not nbytes + len(_NPY_MAGIC) + 2 <= info.file_size <= nbytes + 10 + _MAX_NPY_HEADER:
            raise _Invalid(f"member '{name}' declares {info.file_size} bytes; the header's "
                           f"shape {list(shape)} needs {nbytes} bytes of data")
    elif info.file_size > max_items * itemsize + 10 + _MAX_NPY_HEADER:
        raise _Invalid(f"member '{name}' declares {info.file_size} bytes (at most "
                       f"{max_items * itemsize} allowed)")
    with zf.open(info) as fh:
        pre = _read_exact(fh, 10)
        if pre[:8] != _NPY_MAGIC:
            raise _Invalid(f"member '{name}' is not an .npy array (format version 1.0)")
        hlen = _u16(pre, 8)
        if hlen > _MAX_NPY_HEADER:
            raise _Invalid(f"member '{name}' has an .npy header of {hlen} bytes")
        m = _NPY_HEADER.fullmatch(_read_exact(fh, hlen))
        if m is None:
            raise _Invalid(f"member '{name}' is not a C-order 1-D or 2-D array of the "
                           f"expected dtype ({descr})")
        got_descr = m.group(1).decode()
        got_shape = tuple(int(g) for g in m.groups()[1:] if g is not None)
        if got_descr != descr:
            raise _Invalid(f"'{name}' has dtype {got_descr!r}, expected {descr!r}")
        if shape is not None and got_shape != tuple(shape):
            raise _Invalid(f"'{name}' has shape {got_shape}, the header says {list(shape)}")
        if shape is None and (len(got_shape) != 1 or got_shape[0] > max_items):
            raise _Invalid(f"'{name}' has shape {got_shape}; expected (n,) with n <= {max_items}")
        nbytes = math.prod(got_shape) * itemsize
        if info.file_size != 10 + hlen + nbytes:
            raise _Invalid(f"member '{name}' declares {info.file_size} bytes; its .npy header "
                           f"describes {10 + hlen + nbytes}")
        raw = _read_exact(fh, nbytes)
        if fh.read(1):  # also makes zipfile check the CRC-32
            raise _Invalid(f"member '{name}' is longer than declared")
    return raw, got_shape


def _json_int(text):
    if len(text.lstrip("-")) > _MAX_JSON_INT_DIGITS:
        raise ValueError(f"an integer with {len(text)} digits (at most {_MAX_JSON_INT_DIGITS})")
    return int(text)


def _json_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:30]} overflows float64")
    return value


def _json_constant(name):
    raise ValueError(f"{name} is not allowed")


def _json_object(pairs):
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise ValueError("duplicate keys")
    return obj


def _parse_header(text):
    try:
        header = json.loads(text.decode("utf-8"), parse_int=_json_int, parse_float=_json_float,
                            parse_constant=_json_constant, object_pairs_hook=_json_object)
    except UnicodeDecodeError as exc:
        raise _Invalid(f"header is not valid UTF-8 JSON ({exc})") from None
    except RecursionError:
        raise _Invalid("header is not valid UTF-8 JSON (nested too deeply)") from None
    except (ValueError, MemoryError) as exc:  # JSONDecodeError is a ValueError
        raise _Invalid(f"header is not valid UTF-8 JSON ({exc})") from None
    if not isinstance(header, dict) or header.get("format") != _FORMAT_NAME:
        raise _Invalid(f"header does not describe a '{_FORMAT_NAME}' file")
    version = header.get("format_version")
    if type(version) is not int or version != FORMAT_VERSION:
        raise _Invalid(f"format version {version!r} is not supported (this library reads "
                       f"version {FORMAT_VERSION}, the integer)")
    expected = {"format", "format_version", "arrays", "meta"}
    if set(header) != expected:
        raise _Invalid(f"header has the fields {sorted(header)}; expected {sorted(expected)}")
    specs, meta = header["arrays"], header["meta"]
    if not isinstance(specs, dict) or not isinstance(meta, dict):
        raise _Invalid("header 'arrays' and 'meta' must be JSON objects")
    if "points" not in specs or not set(specs) <= set(_ARRAY_KEYS):
        raise _Invalid(f"header lists the arrays {sorted(specs)}; expected 'points' and "
                       "optionally 'weights'")
    shapes = {}
    for name, spec in specs.items():
        if not isinstance(spec, dict) or set(spec) != {"shape", "dtype", "sha256"}:
            raise _Invalid(f"header entry of '{name}' must have exactly the fields 'dtype', "
                           "'shape' and 'sha256'")
        if spec["dtype"] != "<f8":
            raise _Invalid(f"header gives '{name}' the dtype {spec['dtype']!r}; expected '<f8'")
        shape, ndim = spec["shape"], 2 if name == "points" else 1
        if (not isinstance(shape, list) or len(shape) != ndim
                or not all(type(k) is int and 1 <= k < 2 ** 53 for k in shape)):
            raise _Invalid(f"header gives '{name}' the shape {shape!r}; expected {ndim} "
                           "positive integers")
        if not isinstance(spec["sha256"], str) or not _SHA256_HEX.fullmatch(spec["sha256"]):
            raise _Invalid(f"header gives '{name}' a malformed SHA-256 digest")
        shapes[name] = tuple(shape)
    s, d = shapes["points"]
    if "weights" in shapes and shapes["weights"] != (s,):
        raise _Invalid(f"'weights' has shape {shapes['weights']}, expected ({s},)")
    if not isinstance(meta.get("method", ""), str) or not isinstance(meta.get("density"),
                                                                        (str, type(None))):
        raise _Invalid(f"meta 'method' and 'density' must be strings (density may be null); "
                       f"got {str(meta.get('method'))[:40]!r}, {str(meta.get('density'))[:40]!r}")
    for key, value in (("s", s), ("d", d)):
        if key in meta and (type(meta[key]) is not int or meta[key] != value):
            raise _Invalid(f"meta s={meta.get('s')!r}, d={meta.get('d')!r} do not match the "
                           f"points' shape ({s}, {d})")
    return specs, shapes, meta


def _load(path, data):
    cd_offset = _zip_layout(data)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        infos = zf.infolist()
        if zf.start_dir != cd_offset:
            raise _Invalid("cannot be read (inconsistent central directory)")
        _check_members(data, infos, cd_offset)
        by_name = {i.filename: i for i in infos}
        names = {n[:-4] if n.endswith(".npy") else n for n in by_name}
        if len(by_name) != len(infos) or not all(n.endswith(".npy") for n in by_name):
            raise _Invalid(f"unexpected or repeated members {sorted(i.filename for i in infos)}")
        if _HEADER_KEY not in names or "points" not in names:
            raise _Invalid(f"not a qmc_orff sequence file (members {sorted(names)}, expected "
                           f"'points' and '{_HEADER_KEY}')")
        extra = names - {_HEADER_KEY, *_ARRAY_KEYS}
        if extra:
            raise _Invalid(f"unexpected members {sorted(extra)}")
        text, _ = _read_npy(zf, by_name[_HEADER_KEY + ".npy"], _HEADER_KEY, "|u1",
                            max_items=MAX_HEADER_BYTES)
        specs, shapes, meta = _parse_header(text)
        present = names - {_HEADER_KEY}
        if set(specs) != present:
            raise _Invalid(f"arrays {sorted(present)} do not match the header's {sorted(specs)}")
        arrays = {}
        for name in sorted(present):
            raw, shape = _read_npy(zf, by_name[name + ".npy"], name, "<f8", shapes[name])
            if hashlib.sha256(raw).hexdigest() != specs[name]["sha256"]:
                raise _Invalid(f"'{name}' does not match its SHA-256 digest (the file is "
                               "corrupted)")
            arrays[name] = np.frombuffer(raw, dtype="<f8").reshape(shape).astype(np.float64)
    points, weights = arrays["points"], arrays.get("weights")
    if not np.all(np.isfinite(points)):
        raise _Invalid("'points' contains non-finite values")
    if weights is not None:
        if not np.all(np.isfinite(weights)):
            raise _Invalid("'weights' contains non-finite values")
        if np.any(weights < 0):
            raise _Invalid("'weights' contains negative values")
    try:
        return Sequence(points, weights, meta)
    except (TypeError, ValueError, OverflowError, RecursionError, MemoryError) as exc:
        raise _Invalid(str(exc).rstrip(".")) from None


def load_sequence(path: str | os.PathLike, *, sha256: str | None = None) -> Sequence:
    """Read a :class:`Sequence` written by :meth:`Sequence.save`.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.npz`` file (a regular file).
    sha256 : str or None, default=None
        Expected SHA-256 digest (64 hex digits) of the whole file's bytes,
        checked before anything is parsed.  A digest detects corruption and
        accidental substitution; it is *not* a protection against tampering
        by someone who can also change where the digest is kept.

    Returns
    -------
    Sequence

    Raises
    ------
    ValueError
        ``"invalid sequence file '<path>': <what>."`` for anything that is not
        a complete, consistent sequence file: missing, not a regular file,
        truncated, bit flips (every array carries its SHA-256 digest; the zip
        layer checks CRC-32s), leading or trailing data (e.g. another file
        appended), members other than ``header``, ``points`` and ``weights``,
        a header that is not strict JSON with exactly the documented fields
        (``format_version`` the integer 1, dtype ``"<f8"``, integer shapes),
        declared sizes that disagree with the header, non-finite points or
        weights, negative weights, or a digest that differs from ``sha256``.
    TypeError
        If ``sha256`` is not a string.

    Notes
    -----
    Nothing is inflated before it is checked: the zip directory's declared
    sizes and each member's ``.npy`` header (dtype, shape) are compared with
    the JSON header, and each member is read with that bound (a decompression
    bomb is rejected after reading at most its declared, consistent size; the
    JSON header itself is limited to :data:`MAX_HEADER_BYTES`).  The whole
    file is read once into memory, so the checks and the data cannot
    disagree.
    """
    expected = _check_sha256_arg(sha256)
    path = os.fspath(path)
    try:
        data = _read_regular_file(path)
        if expected is not None and hashlib.sha256(data).hexdigest() != expected:
            raise _Invalid(f"its SHA-256 digest {hashlib.sha256(data).hexdigest()} differs "
                           f"from the expected {expected} (the file is corrupted or not the "
                           "one expected)")
        return _load(path, data)
    except _Invalid as exc:
        raise _bad(path, str(exc)) from None
    except _READ_ERRORS as exc:
        raise _bad(path, f"cannot be read ({type(exc).__name__}: {exc})") from None
    except RecursionError:
        raise _bad(path, "cannot be read (structure nested too deeply)") from None


#: Largest lattice file :func:`read_lattice` reads (bytes).
MAX_LATTICE_BYTES = 16 * 2 ** 20


def read_lattice(path):
    """Read an LDData / LatNet Builder lattice file (``# lattice`` header).

    Returns
    -------
    n : int
        Number of points (the modulus), ``1 <= n < 2**63``.
    z : ndarray of shape (d,), dtype int64
        Generating vector, entries in ``[0, n)``.

    Raises
    ------
    ValueError
        If the file cannot be read, is larger than :data:`MAX_LATTICE_BYTES`
        (what is read is bounded: ``/dev/zero`` is refused after that many
        bytes), or is not in the lattice format.
    """
    name = os.fspath(path)
    try:
        if stat.S_ISFIFO(os.stat(name).st_mode):  # open() would wait for a writer
            raise ValueError(f"cannot read lattice file '{name}': a FIFO.")
        with open(name, "rb") as fh:
            raw = fh.read(MAX_LATTICE_BYTES + 1)
    except (OSError, ValueError) as exc:
        if str(exc).startswith("cannot read lattice file"):
            raise
        raise ValueError(f"cannot read lattice file '{name}': {exc}.") from exc
    if len(raw) > MAX_LATTICE_BYTES:
        raise ValueError(f"invalid lattice file '{name}': larger than {MAX_LATTICE_BYTES} bytes.")
    try:
        lines = raw.decode("ascii").splitlines()
    except UnicodeDecodeError as exc:
        raise ValueError(f"cannot read lattice file '{name}': {exc}.") from exc
    if not lines or lines[0].strip() != "# lattice":
        raise ValueError(f"invalid lattice file '{name}': the first line must be "
                         "'# lattice'.")
    values = []
    for line in lines[1:]:
        body = line.split("#", 1)[0].strip()
        if body:
            if not re.fullmatch(r"[0-9]{1,19}", body):
                raise ValueError(f"invalid lattice file '{name}': {body[:40]!r} is not "
                                 "an integer in [0, 2^63).") from None
            values.append(int(body))
    if len(values) < 2 or len(values) != 2 + values[0]:
        raise ValueError(f"invalid lattice file '{name}': expected the dimension, "
                         "the number of points and that many generating-vector entries.")
    n, z = values[1], values[2:]
    if not 1 <= n < 2 ** 63 or not z or any(zj >= n for zj in z):
        raise ValueError(f"invalid lattice file '{name}': expected d >= 1, n >= 1 and "
                         f"generating-vector entries in [0, n); got d={len(z)}, n={n}.")
    return n, np.asarray(z, dtype=np.int64)
