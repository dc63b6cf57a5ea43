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
positive integers), a ``meta["density"]`` that is null or one of
:data:`KNOWN_DENSITIES` (or a name the caller passes as ``densities=``), and at
most :data:`MAX_HEADER_BYTES` bytes.  Every problem is
a ``ValueError`` ``"invalid sequence file '<path>': <what>."``.  The per-array
digests detect corruption; ``load_sequence(path, sha256=...)`` also pins the
whole file.  A digest is not a defence against tampering: whoever can change the
file can change a digest stored beside it.

Writes are atomic: the archive goes to a temporary file in the target's
directory, is flushed and fsync'ed, and renamed over the target
(``os.replace``); the directory is then fsync'ed.  An interrupted save leaves
the previous file (or no file) under the target name, never a truncated one.
On Linux the temporary file has no name until it is complete (``O_TMPFILE``),
so a writer killed outright (SIGKILL) leaves nothing; elsewhere it is
``.<name>.<pid>@<host>.<random>.tmp``, and the one a killed writer left is
removed by the next write to the same target (or the next ``qmc-orff`` command
or catalogue build writing into that folder) once no process ``<pid>`` runs.

Lattice designs can also be exported in the LDData / LatNet Builder plain-text
lattice format (:meth:`Sequence.write_lattice`, :func:`read_lattice`).
"""
from __future__ import annotations

import numpy as np  # noqa: F401  (tests patch np.savez_compressed through this module)

# the private names are re-exported for code written against the single module this was
from ._format import (_ARRAY_KEYS, _FORMAT_NAME, _HEADER_KEY, FORMAT_VERSION, KNOWN_DENSITIES,
                      _digest, _json_default, _normalise_meta)
from .atomic import (_atomic_write, _deferred_sigint, _fsync_dir, _host_tag,
                     _remove_stale_temps, _temp_prefix, atomic_write, exclusive_lock,
                     remove_stale_temps)
from .core import Sequence
from .lattice_file import MAX_LATTICE_BYTES, read_lattice
from .reader import MAX_HEADER_BYTES, load_sequence

__all__ = ["Sequence", "load_sequence", "read_lattice", "FORMAT_VERSION", "MAX_HEADER_BYTES",
           "MAX_LATTICE_BYTES", "KNOWN_DENSITIES"]
