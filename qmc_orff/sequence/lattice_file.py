"""The LDData / LatNet Builder plain-text lattice format (``# lattice`` header): :func:`read_lattice`."""
from __future__ import annotations

import os
import re
import stat

import numpy as np

from .._validation import as_path

__all__ = ["read_lattice", "MAX_LATTICE_BYTES"]


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
    name = as_path(path)
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
