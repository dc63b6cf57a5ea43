"""The :class:`Sequence` type: frequencies, optional weights and metadata, and its writers."""
from __future__ import annotations

import io
import json
from dataclasses import dataclass, field

import numpy as np

from .._validation import as_points, as_positive, as_weights
from ._format import _FORMAT_NAME, _HEADER_KEY, FORMAT_VERSION, _digest, _normalise_meta
from .atomic import atomic_write

__all__ = ["Sequence"]


@dataclass(frozen=True, eq=False)
class Sequence:
    r"""Frequencies (and optional weights) for a product spectral density at unit bandwidth.

    Parameters
    ----------
    points : array_like of shape (s, d)
        Finite frequencies for the density at unit bandwidth.  Stored as a
        read-only float64 copy.
    weights : array_like of shape (s,) or None, default=None
        Nonnegative quadrature weights; ``None`` means uniform weights :math:`1/s`.
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

    See Also
    --------
    load_sequence : read one from a file.
    load_catalogue : the shipped and built designs.
    FourierFeatures, ORFF : pass one as ``sequence=``.

    Notes
    -----
    Sequences compare by identity (``==`` is ``is``); compare ``points``,
    ``weights`` and ``meta`` to compare contents.
    A sequence designed for box :math:`b` and bandwidth :math:`\sigma` is stored with
    points :math:`W \sigma` and ``box_over_sigma`` :math:`= b / \sigma`: for a Gaussian
    kernel of bandwidth :math:`\sigma` the frequencies are :math:`\mathrm{points} / \sigma`
    (:meth:`frequencies`).

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from qmc_orff import Sequence, load_sequence
    >>> seq = Sequence([[0.5, -1.0], [1.5, 0.25]], meta={"box_over_sigma": 2})
    >>> seq.s, seq.d, seq.meta["box_over_sigma"]
    (2, 2, [2.0, 2.0])
    >>> seq.frequencies(sigma=2.0)
    array([[ 0.25 , -0.5  ],
           [ 0.75 ,  0.125]])
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "two.npz")
    >>> seq.save(path)
    >>> back = load_sequence(path)
    >>> np.array_equal(back.points, seq.points), back.meta == seq.meta
    (True, True)
    >>> tmp.cleanup()
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
        """The weights, with ``None`` replaced by uniform weights :math:`1/s` (a new array)."""
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
        r"""Frequencies for a kernel of bandwidth ``sigma``.

        Parameters
        ----------
        sigma : float or array_like of shape (d,), default=1.0
            Kernel bandwidth(s), all positive.

        Returns
        -------
        ndarray of shape (s, d)
            :math:`\mathrm{points} / \sigma` (a new, writeable array).

        Raises
        ------
        ValueError
            If ``sigma`` is not positive and finite, or so small that
            :math:`\mathrm{points} / \sigma` overflows float64.
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
        """Write the sequence to ``path`` as an ``.npz`` file, atomically.

        The file is written under a temporary name in the same folder and renamed
        over ``path``: an interrupted save leaves the previous file (or none),
        never a truncated one.  :func:`qmc_orff.load_sequence` reads it back.

        Parameters
        ----------
        path : str or os.PathLike
            The file name, used as given (no ``.npz`` is appended).
        """
        header, arrays = self._header()
        text = json.dumps(header, sort_keys=True, allow_nan=False).encode("utf-8")
        members = {k: np.ascontiguousarray(v, dtype="<f8") for k, v in arrays.items()}
        members[_HEADER_KEY] = np.frombuffer(text, dtype=np.uint8)
        # the archive is built in memory (a sequence is small) and written in one call: a
        # failing write (a full disk) then leaves no half-open ZipFile for the garbage collector
        # to close onto the dead file (numpy < 2 does not close it, and Python then prints
        # "Exception ignored in ZipFile.__del__" tracebacks)
        def write(fh):
            archive = io.BytesIO()
            np.savez_compressed(archive, **members)
            fh.write(archive.getbuffer())

        atomic_write(path, write)

    def write_lattice(self, path):
        """Export the generating vector of a lattice design in the LDData lattice format.

        The file starts with the line ``# lattice``, then comment lines (``#``)
        with the provenance and the shift, the dimension, the number of points
        ``n``, and the ``d`` generating-vector coordinates, one per line.  Point
        ``i`` of the (unshifted) lattice is ``frac(i * z / n)``.

        Parameters
        ----------
        path : str or os.PathLike
            The text file to write (atomically, as :meth:`save`).

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
