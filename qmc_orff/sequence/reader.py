"""The hardened reader of sequence files (:func:`load_sequence`).

Every problem with a file is a ``ValueError`` ``"invalid sequence file '<path>': <what>."``;
what is read and inflated is bounded before any data is decompressed.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Iterable

import numpy as np

from .._validation import as_path
from ._format import _ARRAY_KEYS, _FORMAT_NAME, _HEADER_KEY, FORMAT_VERSION, KNOWN_DENSITIES
from .core import Sequence

__all__ = ["load_sequence", "MAX_HEADER_BYTES"]


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


def _check_densities_arg(densities):
    """The density names a file may carry: `KNOWN_DENSITIES` and those of ``densities``."""
    if isinstance(densities, str) or not hasattr(densities, "__iter__"):
        raise TypeError("'densities' must be a list of density names (str); got "
                        f"{densities!r}.")
    extra = list(densities)
    for name in extra:
        if not isinstance(name, str) or not name:
            raise TypeError(f"'densities' must contain non-empty strings; got {name!r}.")
    return frozenset(KNOWN_DENSITIES).union(extra)


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


def _parse_header(text, densities):
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
    density = meta.get("density")
    if density is not None and density not in densities:
        known = ", ".join(repr(k) for k in KNOWN_DENSITIES)
        raise _Invalid(f"meta 'density' {density[:40]!r} is not a known density (one of {known}, "
                       f"or null); to read a design for a density of your own, name it: "
                       f"load_sequence(path, densities=[{density[:40]!r}])")
    for key, value in (("s", s), ("d", d)):
        if key in meta and (type(meta[key]) is not int or meta[key] != value):
            raise _Invalid(f"meta s={meta.get('s')!r}, d={meta.get('d')!r} do not match the "
                           f"points' shape ({s}, {d})")
    _check_meta_fields(meta, d)
    try:  # a lone surrogate ("\ud800") parses, but is no text: refuse it here
        json.dumps(header, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise _Invalid("header holds a lone UTF-16 surrogate (not valid text)") from None
    return specs, shapes, meta


#: ``meta["box_over_sigma"]`` beyond this: the box discrepancy's products of ``b`` overflow.
_MAX_BOX_OVER_SIGMA = 1e154
#: ``meta["lattice_n"]``: at most :data:`qmc_orff.generators.lattice.MAX_N` points.
_MAX_LATTICE_N = 2 ** 32


def _check_meta_fields(meta, d):
    """The meta fields the library reads back: ``box_over_sigma`` (null, or finite positive
    numbers below 1e154: one, or one per coordinate) and a lattice's ``generating_vector`` /
    ``lattice_n`` (both or neither: ``d`` ints in ``[0, n)``, ``n`` in ``[1, 2**32]``)."""
    bos = meta.get("box_over_sigma")
    values = bos if isinstance(bos, list) else [bos]
    if bos is not None and not (
            (not isinstance(bos, list) or len(bos) == d)
            and all(type(v) in (int, float) and 0 < v < _MAX_BOX_OVER_SIGMA for v in values)):
        raise _Invalid(f"meta 'box_over_sigma' must be null or positive numbers below 1e154 (one, "
                       f"or {d}); got {str(bos)[:60]}")
    z, n = meta.get("generating_vector"), meta.get("lattice_n")
    if z is None and n is None:
        return
    if type(n) is not int or not 1 <= n <= _MAX_LATTICE_N:
        raise _Invalid(f"meta 'lattice_n' must be an int in [1, 2**32] with a generating vector; "
                       f"got {str(n)[:40]}")
    if (not isinstance(z, list) or len(z) != d
            or not all(type(v) is int and 0 <= v < n for v in z)):
        raise _Invalid(f"meta 'generating_vector' must be {d} ints in [0, lattice_n={n}); got "
                       f"{str(z)[:60]}")


def _load(path, data, densities):
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
        specs, shapes, meta = _parse_header(text, densities)
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


def load_sequence(path: str | os.PathLike, *, sha256: str | None = None,
                  densities: Iterable[str] = ()) -> Sequence:
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
    densities : list of str, default=()
        Density names accepted besides `~qmc_orff.sequence.KNOWN_DENSITIES`
        (``"gaussian"``, ``"laplacian"``, ``"matern"``, ``"skewed_chi2"``): the
        ``name`` of a `CharacteristicDensity` of your own whose designs you saved.

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
        declared sizes that disagree with the header, a density that is neither
        known nor in ``densities`` (the message lists the known ones), non-finite
        points or weights, negative weights, or a digest that differs from
        ``sha256``.
    TypeError
        If ``sha256`` is not a string, or ``densities`` not a list of strings.

    See Also
    --------
    Sequence : the type read; ``Sequence.save`` writes one.
    load_catalogue : the catalogue's sequences by dimension and size.

    Notes
    -----
    Nothing is inflated before it is checked: the zip directory's declared
    sizes and each member's ``.npy`` header (dtype, shape) are compared with
    the JSON header, and each member is read with that bound (a decompression
    bomb is rejected after reading at most its declared, consistent size; the
    JSON header itself is limited to ``qmc_orff.sequence.MAX_HEADER_BYTES``).  The whole
    file is read once into memory, so the checks and the data cannot
    disagree.

    Examples
    --------
    >>> import hashlib, os, tempfile
    >>> from qmc_orff import Sequence, load_sequence
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "eye.npz")
    >>> Sequence([[1.0, 0.0], [0.0, 1.0]]).save(path)
    >>> with open(path, "rb") as fh:
    ...     digest = hashlib.sha256(fh.read()).hexdigest()
    >>> load_sequence(path, sha256=digest).points
    array([[1., 0.],
           [0., 1.]])

    One byte appended, and the file is refused:

    >>> with open(path, "ab") as fh:
    ...     _ = fh.write(b"x")
    >>> load_sequence(path)
    Traceback (most recent call last):
    ...
    ValueError: invalid sequence file '...eye.npz': cannot be read ...
    >>> tmp.cleanup()
    """
    expected = _check_sha256_arg(sha256)
    accepted = _check_densities_arg(densities)
    path = as_path(path)
    try:
        data = _read_regular_file(path)
        if expected is not None and hashlib.sha256(data).hexdigest() != expected:
            raise _Invalid(f"its SHA-256 digest {hashlib.sha256(data).hexdigest()} differs "
                           f"from the expected {expected} (the file is corrupted or not the "
                           "one expected)")
        return _load(path, data, accepted)
    except _Invalid as exc:
        raise _bad(path, str(exc)) from None
    except _READ_ERRORS as exc:
        raise _bad(path, f"cannot be read ({type(exc).__name__}: {exc})") from None
    except RecursionError:
        raise _bad(path, "cannot be read (structure nested too deeply)") from None

