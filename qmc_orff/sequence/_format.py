"""The version-1 file format's names and the helpers that the writer and the reader share."""
from __future__ import annotations

import hashlib
import json

import numpy as np

#: Version of the ``.npz`` layout written by :meth:`Sequence.save`.
FORMAT_VERSION = 1
_FORMAT_NAME = "qmc_orff.sequence"
_HEADER_KEY = "header"
_ARRAY_KEYS = ("points", "weights")
#: The densities a sequence file may name (``meta["density"]``, or null): the kernels whose
#: frequencies the library's maps and designs read from a Sequence.  Another name is refused
#: by ``load_sequence`` unless the caller lists it (``densities=``).
KNOWN_DENSITIES = ("gaussian", "laplacian", "matern", "skewed_chi2")


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

