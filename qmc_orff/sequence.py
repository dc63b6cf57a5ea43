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

Nothing is pickled: files are read with ``allow_pickle=False``.  Writes are
atomic: the archive goes to a temporary file in the target's directory, is
flushed and fsync'ed, and renamed over the target (``os.replace``); the
directory is then fsync'ed.  An interrupted save leaves the previous file (or
no file) under the target name, never a truncated one.

Lattice designs can also be exported in the LDData / LatNet Builder plain-text
lattice format (:meth:`Sequence.write_lattice`, :func:`read_lattice`).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import struct
import tempfile
import threading
import zipfile
import zlib
from dataclasses import dataclass, field

import numpy as np

from ._validation import as_points, as_positive, as_weights

__all__ = ["Sequence", "load_sequence", "read_lattice", "FORMAT_VERSION"]

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
    """Hold back Ctrl-C (SIGINT) until the block ends, then raise ``KeyboardInterrupt``.

    A ``KeyboardInterrupt`` inside ``zipfile`` can turn into an unrelated error; a
    save interrupted by Ctrl-C therefore completes first.  Only in the main thread
    (signal handlers cannot be set elsewhere); a no-op when SIGINT is not handled
    by Python's default handler.
    """
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def atomic_write(path, write):
    """Write a file atomically: ``write(fileobj)`` fills a temporary file in the
    target directory, which is fsync'ed and renamed over ``path``.

    On any exception (including ``KeyboardInterrupt``) the temporary file is
    removed and the target is left as it was.  Ctrl-C during the write is held
    back until the file is complete (then ``KeyboardInterrupt`` is raised).
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    with _deferred_sigint():
        fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                                   suffix=".tmp")
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
def _bad(path, what):
    return ValueError(f"invalid sequence file '{os.fspath(path)}': {what}.")


def load_sequence(path: str | os.PathLike) -> Sequence:
    """Read a :class:`Sequence` written by :meth:`Sequence.save`.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.npz`` file.

    Returns
    -------
    Sequence

    Raises
    ------
    ValueError
        If the file cannot be read (missing, truncated, corrupted), is not a
        sequence file, has another format version, or its arrays do not match
        their recorded SHA-256 digests, shapes, finiteness or sign rules.  The
        message says which.
    """
    try:
        with np.load(os.fspath(path), allow_pickle=False) as npz:
            names = set(npz.files)
            if _HEADER_KEY not in names or "points" not in names:
                raise _bad(path, f"not a qmc_orff sequence file (members {sorted(names)}, "
                                 f"expected 'points' and '{_HEADER_KEY}')")
            extra = names - {_HEADER_KEY, *_ARRAY_KEYS}
            if extra:
                raise _bad(path, f"unexpected members {sorted(extra)}")
            raw = {name: npz[name] for name in names}
    except ValueError as exc:
        if str(exc).startswith("invalid sequence file"):
            raise
        raise _bad(path, f"cannot be read ({exc})") from exc
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error, KeyError, NotImplementedError,
            RuntimeError, UnicodeDecodeError, struct.error) as exc:
        # zipfile raises NotImplementedError (unknown compression method), RuntimeError
        # (encrypted member) and struct.error on mangled headers
        if isinstance(exc, FileNotFoundError):
            raise ValueError(f"cannot read sequence file '{os.fspath(path)}': no such file.") from exc
        raise _bad(path, f"cannot be read ({type(exc).__name__}: {exc})") from exc

    hdr = raw[_HEADER_KEY]
    if hdr.dtype != np.uint8 or hdr.ndim != 1:
        raise _bad(path, f"header must be a 1-D uint8 array; got {hdr.dtype} {hdr.shape}")
    try:
        header = json.loads(hdr.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _bad(path, f"header is not valid UTF-8 JSON ({exc})") from exc
    if not isinstance(header, dict) or header.get("format") != _FORMAT_NAME:
        raise _bad(path, f"header does not describe a '{_FORMAT_NAME}' file")
    version = header.get("format_version")
    if version != FORMAT_VERSION:
        raise _bad(path, f"format version {version!r} is not supported (this library reads "
                         f"version {FORMAT_VERSION})")
    specs = header.get("arrays")
    meta = header.get("meta")
    if not isinstance(specs, dict) or not isinstance(meta, dict):
        raise _bad(path, "header lacks the 'arrays' or 'meta' entries")
    present = set(raw) - {_HEADER_KEY}
    if set(specs) != present:
        raise _bad(path, f"arrays {sorted(present)} do not match the header's {sorted(specs)}")
    for name in sorted(present):
        arr, spec = raw[name], specs[name]
        if arr.dtype != np.dtype("<f8"):
            raise _bad(path, f"'{name}' has dtype {arr.dtype}, expected float64")
        if list(arr.shape) != spec.get("shape"):
            raise _bad(path, f"'{name}' has shape {arr.shape}, the header says {spec.get('shape')}")
        if _digest(arr) != spec.get("sha256"):
            raise _bad(path, f"'{name}' does not match its SHA-256 digest (the file is corrupted)")
    points = raw["points"]
    if points.ndim != 2 or points.shape[0] < 1 or points.shape[1] < 1:
        raise _bad(path, f"'points' must have shape (s, d) with s, d >= 1; got {points.shape}")
    if not np.all(np.isfinite(points)):
        raise _bad(path, "'points' contains non-finite values")
    weights = raw.get("weights")
    if weights is not None:
        if weights.shape != (points.shape[0],):
            raise _bad(path, f"'weights' has shape {weights.shape}, expected ({points.shape[0]},)")
        if not np.all(np.isfinite(weights)):
            raise _bad(path, "'weights' contains non-finite values")
        if np.any(weights < 0):
            raise _bad(path, "'weights' contains negative values")
    if meta.get("s", points.shape[0]) != points.shape[0] or meta.get("d", points.shape[1]) != points.shape[1]:
        raise _bad(path, f"meta s={meta.get('s')}, d={meta.get('d')} do not match the points' "
                         f"shape {points.shape}")
    try:
        return Sequence(points, weights, meta)
    except (TypeError, ValueError) as exc:
        raise _bad(path, str(exc).rstrip(".")) from exc


def read_lattice(path):
    """Read an LDData / LatNet Builder lattice file (``# lattice`` header).

    Returns
    -------
    n : int
        Number of points (the modulus).
    z : ndarray of shape (d,), dtype int64
        Generating vector.

    Raises
    ------
    ValueError
        If the file cannot be read or is not in the lattice format.
    """
    try:
        with open(os.fspath(path), encoding="ascii") as fh:
            lines = fh.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read lattice file '{os.fspath(path)}': {exc}.") from exc
    if not lines or lines[0].strip() != "# lattice":
        raise ValueError(f"invalid lattice file '{os.fspath(path)}': the first line must be "
                         "'# lattice'.")
    values = []
    for line in lines[1:]:
        body = line.split("#", 1)[0].strip()
        if body:
            try:
                values.append(int(body))
            except ValueError:
                raise ValueError(f"invalid lattice file '{os.fspath(path)}': {body!r} is not "
                                 "an integer.") from None
    if len(values) < 2 or len(values) != 2 + values[0]:
        raise ValueError(f"invalid lattice file '{os.fspath(path)}': expected the dimension, "
                         "the number of points and that many generating-vector entries.")
    return values[1], np.asarray(values[2:], dtype=np.int64)
