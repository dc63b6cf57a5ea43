"""Reading the catalogue: the shipped precomputed Gaussian-density sequences (``sequences/``)
or one built into a folder of the user's (:mod:`qmc_orff.catalogue.build`).

The catalogue holds designs for the Gaussian kernel's density (unit bandwidth)
built on the grid ``d`` in {2, 4, 8, 16}, ``s`` in {64, 128, 256, 512, 1024} and
``box_over_sigma`` (``b / sigma``) in {0.125, 0.25, 0.5, 1} -- the moment-box ratios
``sqrt(6 var_j) / sigma`` real data sets produce -- with the methods ``"global"``
(:func:`~qmc_orff.global_sequence`, L-BFGS-B from Halton, iterations capped)
and ``"weighted"`` (:func:`~qmc_orff.weighted_sequence`, Halton points with the
optimal weights, ``sum(xi) = 1``).  Every built entry is scored on the data it is
meant for (:func:`score_entry`: Gaussian data whose moment box is the entry's box,
held-out Gram error against orthogonal random features); only the entries that beat
ORF are kept.  ``index.json`` lists every kept file with its metadata, its score and
the SHA-256 digest of its bytes (field ``"sha256"``, 64 lowercase hex digits).

Loading (:func:`load_catalogue`) trusts nothing in the index: an entry's
``file`` must be a plain file name inside the catalogue folder (no ``../``, no
absolute path, no symlink leading out), the file's bytes must have the entry's
SHA-256 and its ``d``, ``s``, ``box_over_sigma`` and ``method`` must be the
entry's; a malformed entry is a ``ValueError``.  The digest detects corruption
and mix-ups, not tampering: whoever can rewrite the files can rewrite
``index.json`` too.

The files are package data of ``qmc_orff.sequences`` (the ``sequences/``
folder of a source checkout, installed with the wheel), read through
:mod:`importlib.resources`.  ``qmc-orff catalogue build`` (or
:func:`build_catalogue`) computes a catalogue into a folder of the user's
(:func:`user_catalogue_dir`: ``$QMC_ORFF_CATALOGUE_DIR``, else the platform's user
data folder), never into the installed package; :func:`list_catalogue` and
:func:`load_catalogue` read it with ``directory=``.  With ``resume=True`` a build
keeps the files that are already complete and valid for the same settings.
"""

from __future__ import annotations

import json
import math
import os
import pathlib
import re
import warnings
from importlib import resources

from .._validation import check_choice, check_dimension, check_int, check_positive_real
from ..sequence import Sequence, load_sequence

__all__ = ["list_catalogue", "load_catalogue", "entry_name", "D_VALUES", "S_VALUES",
           "BOX_OVER_SIGMA", "METHODS", "CATALOGUE_VERSION"]

D_VALUES = (2, 4, 8, 16)
S_VALUES = (64, 128, 256, 512, 1024)
BOX_OVER_SIGMA = (0.125, 0.25, 0.5, 1.0)
METHODS = ("global", "weighted")
DENSITY = "gaussian"
#: bump when the build recipe changes: resumed builds recompute older files.
CATALOGUE_VERSION = 2
#: ``load_catalogue`` refuses a request whose ``box_over_sigma`` is more than this factor
#: away from every entry of its ``(d, s, method)``
MAX_BOX_FACTOR = 2.0
INDEX = "index.json"
_PACKAGE = "qmc_orff.sequences"
# Fields copied from each file's metadata into index.json.
_INDEX_FIELDS = ("d", "s", "box_over_sigma", "method", "density", "init", "d2", "normalized_d2",
                 "halton_d2", "ratio_to_halton", "expected_mc", "maxiter", "iterations",
                 "stop_reason", "optimizer", "solver", "kkt_residual", "seconds",
                 "library_version", "created", "catalogue_version", "weights_sum",
                 "gram_error", "orf_gram_error", "ratio_to_orf", "start_gram_error", "scoring")


def entry_name(d, s, box_over_sigma, method):
    """File name of a catalogue entry, e.g. ``gaussian.d08.s0256.bos2.global.npz``."""
    d, s = check_int(d, "d", minimum=1), check_int(s, "s", minimum=1)
    box_over_sigma = check_positive_real(box_over_sigma, "box_over_sigma")
    return f"{DENSITY}.d{d:02d}.s{s:04d}.bos{box_over_sigma:g}.{method}.npz"




def _package_dir():
    return resources.files(_PACKAGE)


def _read_index(directory=None):
    try:
        if directory is None:
            text = _package_dir().joinpath(INDEX).read_text(encoding="utf-8")
        else:
            with open(os.path.join(directory, INDEX), encoding="utf-8") as fh:
                text = fh.read()
    except (OSError, FileNotFoundError):
        return []
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, huge integers, deep nesting
        raise ValueError(f"the catalogue index is not valid JSON ({type(exc).__name__}: "
                         f"{str(exc)[:200]}); rebuild it with `qmc-orff catalogue build "
                         "--resume`.") from None
    if not isinstance(data, dict) or not isinstance(data.get("entries", []), list):
        raise ValueError("the catalogue index must be a JSON object with a list 'entries'; "
                         "rebuild it with `qmc-orff catalogue build --resume`.")
    return list(data.get("entries", []))


_FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,200}\.npz")
_HEX64 = re.compile(r"[0-9a-f]{64}")


def _checked_entry(k, e, *, for_loading=False):
    """Entry ``k`` of ``index.json``, checked: a plain file name in the catalogue folder,
    integer ``d``, ``s``, a positive ``box_over_sigma``, a ``method`` string and (to
    load it) a SHA-256 digest.  Raises ValueError naming the entry."""
    def bad(what):
        return ValueError(f"the catalogue index's entry {k} is malformed: {what}; rebuild it "
                          "with `qmc-orff catalogue build --resume`.")

    if not isinstance(e, dict):
        raise bad(f"expected a JSON object, got {type(e).__name__}")
    name = e.get("file")
    # a bare file name: no directory part ('../', absolute paths), no hidden files
    if not isinstance(name, str) or not _FILE_NAME.fullmatch(name) or ".." in name:
        raise bad(f"'file' must be a plain .npz file name in the catalogue folder; got {name!r}")
    for key in ("d", "s"):
        if type(e.get(key)) is not int or e[key] < 1:
            raise bad(f"{key!r} must be a positive integer; got {e.get(key)!r}")
    r = e.get("box_over_sigma")
    if type(r) not in (int, float) or not (math.isfinite(r) and r > 0):
        raise bad(f"'box_over_sigma' must be a positive finite number; got {r!r}")
    if not isinstance(e.get("method"), str):
        raise bad(f"'method' must be a string; got {e.get('method')!r}")
    if for_loading and (not isinstance(e.get("sha256"), str) or not _HEX64.fullmatch(e["sha256"])):
        raise bad(f"'sha256' must be the 64 lowercase hex digits of the file's SHA-256; got "
                  f"{e.get('sha256')!r}")
    return e


def _load_entry(e, directory=None):
    """Load the file of a checked index entry, confined to the catalogue folder
    (``directory``, None: the package's), pinned to the entry's SHA-256 and checked
    against the entry's ``d``, ``s``, ``box_over_sigma`` and ``method``."""
    e = _checked_entry("chosen", e, for_loading=True)
    name = e["file"]
    folder = _package_dir() if directory is None else pathlib.Path(directory)
    with resources.as_file(folder) as root:
        root = os.path.realpath(os.fspath(root))
        path = os.path.join(root, name)
        # a symlink (or anything else) that leads out of the folder is refused
        if os.path.dirname(os.path.realpath(path)) != root:
            raise ValueError(f"catalogue file {name!r} resolves outside the catalogue folder "
                             f"{root!r}; refusing to follow it.")
        seq = load_sequence(path, sha256=e["sha256"])
    m = seq.meta
    want = {"d": e["d"], "s": e["s"], "method": e["method"], "density": DENSITY,
            "box_over_sigma": [float(e["box_over_sigma"])] * e["d"]}
    got = {k: m.get(k) for k in want}
    if got != want:
        diff = ", ".join(f"{k}={got[k]!r} (index: {want[k]!r})" for k in want if got[k] != want[k])
        raise ValueError(f"catalogue file {name!r} does not match its index entry: {diff}.")
    return seq


def list_catalogue(*, d: int | None = None, s: int | None = None,
              method: str | None = None,
              directory: str | os.PathLike | None = None) -> list[dict]:
    """List the entries of the shipped catalogue, or of one built into ``directory``.

    Parameters
    ----------
    d, s : int or None, default=None
        Keep only entries of this dimension / size.
    method : str or None, default=None
        Keep only entries of this method.
    directory : str, path or None, default=None
        A folder written by :func:`build_catalogue` (e.g. :func:`user_catalogue_dir`);
        ``None`` reads the catalogue shipped with the package.

    Returns
    -------
    list of dict
        One dict per file (``file``, ``d``, ``s``, ``box_over_sigma`` (float),
        ``method``, ``d2``, ``halton_d2``, ``maxiter``, ...), sorted by
        ``(method, d, s, box_over_sigma)``.  Empty when the catalogue has not
        been built.

    See Also
    --------
    load_catalogue : load one of the entries as a Sequence.
    build_catalogue : build a catalogue into a folder.

    Examples
    --------
    >>> from qmc_orff import list_catalogue
    >>> entries = list_catalogue(d=2, s=64, method="global")
    >>> [e["box_over_sigma"] for e in entries]
    [0.125, 0.25, 0.5, 1.0]
    >>> all(e["ratio_to_orf"] < 1.0 for e in entries)  # each beats ORF
    True
    """
    out = []
    directory = None if directory is None else os.fspath(directory)
    for k, e in enumerate(_read_index(directory)):
        e = _checked_entry(k, e)
        if d is not None and e.get("d") != d:
            continue
        if s is not None and e.get("s") != s:
            continue
        if method is not None and e.get("method") != method:
            continue
        out.append(dict(e))
    out.sort(key=lambda e: (e["method"], e["d"], e["s"], e["box_over_sigma"]))
    return out


def load_catalogue(d: int, s: int, box_over_sigma: float = 0.5,
                   method: str = "global", *,
                   directory: str | os.PathLike | None = None) -> Sequence:
    """Load the catalogue sequence nearest to the request.

    Parameters
    ----------
    d : int
        Dimension (one of the catalogue's: 2, 4, 8, 16; see :func:`list_catalogue`).
    s : int
        Number of points (one of the catalogue's: 64, 128, 256, 512, 1024).
    box_over_sigma : float, default=0.5
        Box half-width over the kernel bandwidth; the entry with the nearest
        value on a log scale is chosen (ties go to the larger box).  The default
        is a grid value typical of real data at the median-heuristic bandwidth.
    method : {"global", "weighted"}, default="global"
    directory : str, path or None, default=None
        Read the catalogue built into this folder by :func:`build_catalogue`
        (e.g. :func:`user_catalogue_dir`); ``None``: the one shipped with the package.

    Returns
    -------
    Sequence
        Unit-bandwidth frequencies; use ``seq.frequencies(sigma)``.
        ``seq.meta["catalogue"]`` records the chosen ``file``, the
        ``requested_box_over_sigma`` and the ``chosen_box_over_sigma``.

    Warns
    -----
    UserWarning
        When the chosen ``box_over_sigma`` differs from the requested one (with the
        entry's measured ratio to ORF).

    Raises
    ------
    ValueError
        If ``d``, ``s`` or ``method`` is not in the catalogue (the message lists
        what is; entries that did not beat ORF were dropped), if the requested
        ``box_over_sigma`` is more than ``MAX_BOX_FACTOR`` (2) times away from every
        entry, or the catalogue has not been built; if the index is
        malformed, or the chosen file lies outside the catalogue folder, does
        not have the SHA-256 recorded in the index or does not match its entry
        (``d``, ``s``, ``box_over_sigma``, ``method``).

    See Also
    --------
    list_catalogue : the entries shipped and built.
    build_catalogue : build entries into a folder of yours.
    FourierFeatures : pass the result as ``sequence=``.

    Examples
    --------
    >>> from qmc_orff import load_catalogue
    >>> seq = load_catalogue(4, 64, box_over_sigma=0.5)
    >>> seq.meta["catalogue"]["file"]
    'gaussian.d04.s0064.bos0.5.global.npz'
    >>> seq.frequencies(sigma=2.0).shape      # a kernel of bandwidth 2
    (64, 4)
    """
    d = check_dimension(d)
    s = check_int(s, "s", minimum=1)
    check_choice(method, "method", METHODS)
    r = check_positive_real(box_over_sigma, "box_over_sigma")
    directory = None if directory is None else os.fspath(directory)
    entries = list_catalogue(method=method, directory=directory)
    if not entries:
        where = "" if directory is None else f" in {directory!r}"
        raise ValueError(f"the catalogue{where} is empty; build it with `qmc-orff catalogue "
                         "build`.")
    ds = sorted({e["d"] for e in entries})
    if d not in ds:
        raise ValueError(f"'d' must be one of the catalogue's dimensions {ds}; got {d}.")
    ss = sorted({e["s"] for e in entries if e["d"] == d})
    if s not in ss:
        raise ValueError(f"'s' must be one of the catalogue's sizes {ss} for d={d}; got {s}.")
    cands = [e for e in entries if e["d"] == d and e["s"] == s]
    best = min(cands, key=lambda e: (abs(math.log(e["box_over_sigma"] / r)), -e["box_over_sigma"]))
    chosen = float(best["box_over_sigma"])
    score = ""
    if best.get("ratio_to_orf") is not None:
        score = (f"; on its own scoring data its Gram error is {best['ratio_to_orf']:.3g}x "
                 "that of orthogonal random features")
    if max(chosen / r, r / chosen) > MAX_BOX_FACTOR:
        have = sorted(e["box_over_sigma"] for e in cands)
        raise ValueError(f"'box_over_sigma'={r:g} is more than {MAX_BOX_FACTOR:g}x away from every "
                         f"catalogue entry for d={d}, s={s}, method={method!r} (entries: {have}); "
                         "a design for another box can be worse than orthogonal random features. "
                         "Use FourierFeatures' default sequence, or design one for your box.")
    if not math.isclose(chosen, r, rel_tol=1e-12):
        warnings.warn(f"no catalogue entry with box_over_sigma={r:g} for d={d}, s={s}, "
                      f"method={method!r}; using the log-nearest, box_over_sigma={chosen:g} "
                      f"({best['file']}){score}.", UserWarning, stacklevel=2)
    seq = _load_entry(best, directory)
    meta = dict(seq.meta)
    meta["catalogue"] = {"file": best["file"], "requested_box_over_sigma": r,
                         "chosen_box_over_sigma": chosen}
    return Sequence(seq.points, seq.weights, meta)
