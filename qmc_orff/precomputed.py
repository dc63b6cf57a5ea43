"""The shipped catalogue of precomputed Gaussian-density sequences (``sequences/``).

The catalogue holds designs for the Gaussian kernel's density (unit bandwidth)
for ``d`` in {2, 4, 8, 16, 32}, ``s`` in {64, 128, 256, 512, 1024} and
``box_over_sigma`` (``b / sigma``) in {1, 2, 4}, with the methods ``"global"``
(:func:`~qmc_orff.global_sequence`, L-BFGS-B from Halton, iterations capped)
and ``"weighted"`` (:func:`~qmc_orff.weighted_sequence`, Halton points with the
optimal weights).  ``index.json`` lists every file with its metadata.

The files are package data of ``qmc_orff.sequences`` (the ``sequences/``
folder of a source checkout, installed with the wheel), read through
:mod:`importlib.resources`.  ``qmc-orff catalogue build`` (or
:func:`build_catalogue`) recomputes them; with ``resume=True`` it keeps the
files that are already complete and valid for the same settings.
"""
from __future__ import annotations

import json
import math
import os
import time
import warnings
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np

from ._validation import check_choice, check_dimension, check_int, check_positive_real
from .sequence import Sequence, atomic_write, load_sequence

if TYPE_CHECKING:  # names used in type hints only
    from concurrent.futures import Executor
    from typing import Any, Callable, Iterable

__all__ = ["catalogue", "load_catalogue", "build_catalogue", "default_maxiter",
           "D_VALUES", "S_VALUES", "BOX_OVER_SIGMA", "METHODS", "CATALOGUE_VERSION"]

D_VALUES = (2, 4, 8, 16, 32)
S_VALUES = (64, 128, 256, 512, 1024)
BOX_OVER_SIGMA = (1.0, 2.0, 4.0)
METHODS = ("global", "weighted")
DENSITY = "gaussian"
#: bump when the build recipe changes: resumed builds recompute older files.
CATALOGUE_VERSION = 1
INDEX = "index.json"
_PACKAGE = "qmc_orff.sequences"
# Fields copied from each file's metadata into index.json.
_INDEX_FIELDS = ("d", "s", "box_over_sigma", "method", "density", "init", "d2", "normalized_d2",
                 "halton_d2", "ratio_to_halton", "expected_mc", "maxiter", "iterations",
                 "stop_reason", "optimizer", "solver", "kkt_residual", "seconds",
                 "library_version", "created", "catalogue_version")


def entry_name(d, s, box_over_sigma, method):
    """File name of a catalogue entry, e.g. ``gaussian.d08.s0256.bos2.global.npz``."""
    return f"{DENSITY}.d{d:02d}.s{s:04d}.bos{box_over_sigma:g}.{method}.npz"


def default_maxiter(d, s):
    """Iteration cap of the ``"global"`` design (L-BFGS-B) for a catalogue entry.

    1000 for ``s <= 256``, 300 for ``s <= 512``, 150 above.  One iteration costs
    O(s^2 d) (about 0.2-0.8 s at s=1024, d=32 on the shared 2-core machine), so
    the whole build takes well under an hour there, inside the two-hour budget.
    """
    if s <= 256:
        return 1000
    if s <= 512:
        return 300
    return 150


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
    except json.JSONDecodeError as exc:
        raise ValueError(f"the catalogue index is not valid JSON ({exc}); rebuild it with "
                         "`qmc-orff catalogue build --resume`.") from exc
    return list(data.get("entries", []))


def catalogue(*, d: int | None = None, s: int | None = None,
              method: str | None = None) -> list[dict]:
    """List the entries of the shipped catalogue.

    Parameters
    ----------
    d, s : int or None, default=None
        Keep only entries of this dimension / size.
    method : str or None, default=None
        Keep only entries of this method.

    Returns
    -------
    list of dict
        One dict per file (``file``, ``d``, ``s``, ``box_over_sigma`` (float),
        ``method``, ``d2``, ``halton_d2``, ``maxiter``, ...), sorted by
        ``(method, d, s, box_over_sigma)``.  Empty when the catalogue has not
        been built.
    """
    out = []
    for e in _read_index():
        if d is not None and e.get("d") != d:
            continue
        if s is not None and e.get("s") != s:
            continue
        if method is not None and e.get("method") != method:
            continue
        out.append(dict(e))
    out.sort(key=lambda e: (e["method"], e["d"], e["s"], e["box_over_sigma"]))
    return out


def load_catalogue(d: int, s: int, box_over_sigma: float = 2.0,
                   method: str = "global") -> Sequence:
    """Load the catalogue sequence nearest to the request.

    Parameters
    ----------
    d : int
        Dimension (must be one of the catalogue's, :data:`D_VALUES`).
    s : int
        Number of points (one of :data:`S_VALUES`).
    box_over_sigma : float, default=2.0
        Box half-width over the kernel bandwidth; the entry with the nearest
        value on a log scale is chosen (ties go to the larger box).
    method : {"global", "weighted"}, default="global"

    Returns
    -------
    Sequence
        Unit-bandwidth frequencies; use ``seq.frequencies(sigma)``.
        ``seq.meta["catalogue"]`` records the chosen ``file``, the
        ``requested_box_over_sigma`` and the ``chosen_box_over_sigma``.

    Warns
    -----
    UserWarning
        When the chosen ``box_over_sigma`` differs from the requested one.

    Raises
    ------
    ValueError
        If ``d``, ``s`` or ``method`` is not in the catalogue (the message lists
        what is), or the catalogue has not been built.
    """
    d = check_dimension(d)
    s = check_int(s, "s", minimum=1)
    check_choice(method, "method", METHODS)
    r = check_positive_real(box_over_sigma, "box_over_sigma")
    entries = catalogue(method=method)
    if not entries:
        raise ValueError("the catalogue is empty; build it with `qmc-orff catalogue build`.")
    ds = sorted({e["d"] for e in entries})
    if d not in ds:
        raise ValueError(f"'d' must be one of the catalogue's dimensions {ds}; got {d}.")
    ss = sorted({e["s"] for e in entries if e["d"] == d})
    if s not in ss:
        raise ValueError(f"'s' must be one of the catalogue's sizes {ss} for d={d}; got {s}.")
    cands = [e for e in entries if e["d"] == d and e["s"] == s]
    best = min(cands, key=lambda e: (abs(math.log(e["box_over_sigma"] / r)), -e["box_over_sigma"]))
    chosen = float(best["box_over_sigma"])
    if not math.isclose(chosen, r, rel_tol=1e-12):
        warnings.warn(f"no catalogue entry with box_over_sigma={r:g} for d={d}, s={s}, "
                      f"method={method!r}; using the log-nearest, box_over_sigma={chosen:g} "
                      f"({best['file']}).", UserWarning, stacklevel=2)
    with resources.as_file(_package_dir().joinpath(best["file"])) as path:
        seq = load_sequence(path)
    meta = dict(seq.meta)
    meta["catalogue"] = {"file": best["file"], "requested_box_over_sigma": r,
                         "chosen_box_over_sigma": chosen}
    return Sequence(seq.points, seq.weights, meta)


# --------------------------------------------------------------------------- building
def _default_directory():
    """The writable ``sequences/`` folder (source checkout or installed package)."""
    with resources.as_file(_package_dir()) as path:
        return os.fspath(path)


def _valid_existing(path, d, s, r, method, maxiter):
    try:
        seq = load_sequence(path)
    except ValueError:
        return None
    m = seq.meta
    ok = (m.get("d") == d and m.get("s") == s and m.get("method") == method
          and m.get("box_over_sigma") == [r] * d and m.get("density") == DENSITY
          and m.get("catalogue_version") == CATALOGUE_VERSION
          and (method != "global" or m.get("maxiter") == maxiter))
    return seq if ok else None


def _index_entry(name, seq):
    entry = {"file": name}
    for key in _INDEX_FIELDS:
        if key in seq.meta:
            entry[key] = seq.meta[key]
    entry["box_over_sigma"] = float(seq.meta["box_over_sigma"][0])
    return entry


def _write_index(directory, entries):
    data = {"format": "qmc_orff.catalogue", "format_version": 1, "density": DENSITY,
            "catalogue_version": CATALOGUE_VERSION,
            "entries": sorted(entries.values(),
                              key=lambda e: (e["method"], e["d"], e["s"], e["box_over_sigma"]))}
    text = (json.dumps(data, indent=1, sort_keys=True) + "\n").encode("utf-8")
    atomic_write(os.path.join(directory, INDEX), lambda fh: fh.write(text))


def _build_entry(directory, name, d, s, r, method, mi):
    """Design one catalogue entry and write its file atomically; return ``(entry, seconds)``.

    A module-level function, so that an executor's worker process can run it.
    """
    from .design import global_sequence, weighted_sequence
    from .discrepancy import BoxDiscrepancy

    t0 = time.perf_counter()
    obj = BoxDiscrepancy(np.full(d, r), kernel=DENSITY, sigma=np.ones(d), d=d)
    if method == "global":
        seq = global_sequence(obj, s, method="l-bfgs-b", maxiter=mi)
    else:
        seq = weighted_sequence(obj, s, solver="nnls")
    if seq.meta.get("stop_reason") == "interrupted":
        raise KeyboardInterrupt
    meta = dict(seq.meta)
    meta["catalogue_version"] = CATALOGUE_VERSION
    if method != "global":
        meta["maxiter"] = None  # no iterations: the weights QP is solved exactly
    seq = Sequence(seq.points, seq.weights, meta)
    seq.save(os.path.join(directory, name))
    return _index_entry(name, seq), time.perf_counter() - t0


def build_catalogue(directory: str | os.PathLike | None = None, *,
                    d_values: Iterable[int] = D_VALUES, s_values: Iterable[int] = S_VALUES,
                    box_over_sigma: Iterable[float] = BOX_OVER_SIGMA,
                    methods: Iterable[str] = METHODS,
                    maxiter: int | Callable[[int, int], int] | None = None,
                    resume: bool = False, log: Callable[[str], Any] | None = None,
                    executor: Executor | None = None) -> list[dict]:
    """(Re)build catalogue files and ``index.json`` in ``directory``.

    Parameters
    ----------
    directory : str or None, default=None
        Output folder; ``None`` means the package's ``sequences/`` folder.
    d_values, s_values, box_over_sigma, methods : sequences
        The grid (defaults: the full catalogue).
    maxiter : int, callable or None, default=None
        Iteration cap of the global design: an int, ``maxiter(d, s)``, or
        ``None`` for :func:`default_maxiter`.  Recorded in each file.
    resume : bool, default=False
        Keep files that are complete and valid for the same settings
        (checked by loading them); otherwise recompute every file.
    log : callable or None, default=None
        ``log(str)`` for one line per entry (e.g. ``print``).
    executor : concurrent.futures.Executor or None, default=None
        Design the entries as tasks of this executor (a
        ``ProcessPoolExecutor``, a ``distributed`` client's
        ``get_executor()``, ...; with numba's OpenMP threads, create process
        pools with the ``"spawn"`` start method, not ``"fork"``); each task
        writes its own file atomically in
        ``directory`` (which the workers must see), and this process rewrites
        ``index.json`` as results arrive.  ``None`` builds them here, one after
        the other.  The executor is not shut down.

    Returns
    -------
    list of dict
        The index entries written.

    Notes
    -----
    Entries are built (or submitted) in order of increasing cost (``s``,
    then ``d``), each file written atomically and ``index.json`` rewritten
    after each file, so an interrupted build leaves only complete files and a
    consistent index; ``resume=True`` continues it (a file finished by a
    worker but missing from the index is found and kept).  The files are the
    same with or without an executor (each design is deterministic).
    """
    directory = _default_directory() if directory is None else os.fspath(directory)
    os.makedirs(directory, exist_ok=True)
    # temporary files of a build killed mid-write (SIGKILL skips the clean-up in atomic_write)
    for name in os.listdir(directory):
        if name.startswith(f".{DENSITY}.") and name.endswith(".tmp"):
            os.unlink(os.path.join(directory, name))
    for m in methods:
        check_choice(m, "methods", METHODS)
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise TypeError(f"'executor' must be a concurrent.futures.Executor (with a submit "
                        f"method) or None; got {type(executor).__name__}.")
    if maxiter is None:
        cap = default_maxiter
    elif callable(maxiter):
        cap = maxiter
    else:
        fixed = check_int(maxiter, "maxiter", minimum=0)
        cap = lambda d, s: fixed  # noqa: E731
    log = log or (lambda msg: None)
    entries = {}
    if resume:
        for e in _read_index(directory):
            if os.path.exists(os.path.join(directory, e.get("file", ""))):
                entries[e["file"]] = e
    grid = [(s, d, float(r), m) for s in s_values for d in d_values for r in box_over_sigma
            for m in methods]
    todo = []
    for k, (s, d, r, method) in enumerate(grid, 1):
        name = entry_name(d, s, r, method)
        path = os.path.join(directory, name)
        mi = int(cap(d, s))
        if resume:
            seq = _valid_existing(path, d, s, r, method, mi)
            if seq is not None:
                entries[name] = _index_entry(name, seq)
                log(f"[{k}/{len(grid)}] {name}: kept (D^2={seq.meta['d2']:.4e})")
                continue
        todo.append((k, name, d, s, r, method, mi))

    def done(k, name, entry, seconds):
        entries[name] = entry
        _write_index(directory, entries)
        log(f"[{k}/{len(grid)}] {name}: D^2={entry['d2']:.4e} (Halton {entry['halton_d2']:.4e}, "
            f"ratio {entry['ratio_to_halton']:.3g}) in {seconds:.1f} s")

    if executor is None:
        for k, name, *task in todo:
            done(k, name, *_build_entry(directory, name, *task))
    else:
        import concurrent.futures as cf

        futures = {}
        try:
            for k, name, *task in todo:
                futures[executor.submit(_build_entry, directory, name, *task)] = (k, name)
            for fut in cf.as_completed(futures):
                k, name = futures.pop(fut)
                done(k, name, *fut.result())
        except BaseException:  # an error or Ctrl-C: drop the queued tasks, index what is done
            for fut in futures:
                fut.cancel()
            for fut, (k, name) in futures.items():
                if fut.done() and not fut.cancelled() and fut.exception() is None:
                    done(k, name, *fut.result())
            raise
    _write_index(directory, entries)
    return sorted(entries.values(), key=lambda e: (e["method"], e["d"], e["s"], e["box_over_sigma"]))
