"""Building the catalogue: design every entry of the grid, score it, keep those that beat ORF.

:func:`build_catalogue` writes into a folder of the user's (:func:`user_catalogue_dir`),
never into the installed package; each file is written atomically and ``index.json`` /
``scores.json`` are merged under the folder's lock (:mod:`._concurrency`), so concurrent
or interrupted builds leave complete files and a consistent index.  :func:`score_entry`
is the held-out test that decides which entries are kept.
"""
from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

import numpy as np

from .._validation import as_points, as_weights, check_choice, check_int, check_positive_real
from ..sequence import Sequence, load_sequence, remove_stale_temps
from ..sources.frequencies import make_frequencies
from ._concurrency import (check_parent, merge_entries, merge_scores, sha256_of, tie_to_parent,
                           update_json)
from .index import (BOX_OVER_SIGMA, CATALOGUE_VERSION, D_VALUES, DENSITY, INDEX, METHODS,
                    S_VALUES, _INDEX_FIELDS, _checked_entry, _read_index, entry_name)

if TYPE_CHECKING:  # names used in type hints only
    from concurrent.futures import Executor
    from typing import Any, Callable, Iterable

__all__ = ["build_catalogue", "user_catalogue_dir", "score_entry", "default_maxiter"]

#: scoring: held-out points, ORF seeds, the seed of the scoring data
SCORE_POINTS = 1000
SCORE_ORF_SEEDS = 5
SCORE_SEED = 12345
#: an entry is kept when its Gram error is below ``KEEP_RATIO`` times ORF's mean
KEEP_RATIO = 1.0


def score_entry(points, weights, box_over_sigma, *, n_points=SCORE_POINTS,
                orf_seeds=SCORE_ORF_SEEDS, seed=SCORE_SEED):
    """Held-out Gram error of a unit-bandwidth design on the data it is meant for, and ORF's.

    The data: ``n_points`` draws of ``N(0, tau^2 I_d)`` with ``tau = box_over_sigma / sqrt(6)``,
    so that the moment box ``sqrt(6 var_j)`` of the data is the entry's box (``sigma = 1``);
    the points were never seen by the design.  Gaussian kernel of bandwidth 1.

    Parameters
    ----------
    points : ndarray of shape (s, d)
        Unit-bandwidth frequencies.
    weights : ndarray of shape (s,) or None
    box_over_sigma : float

    Returns
    -------
    dict
        ``gram_error`` (relative Frobenius error of the design's Gram matrix),
        ``orf_gram_error`` (mean over ``orf_seeds`` ORF draws of the same size),
        ``ratio_to_orf`` (their ratio; below 1 beats ORF) and ``scoring`` (the recipe).
    """
    W = as_points(points, "points")
    s, d = W.shape
    xi = np.full(s, 1.0 / s) if weights is None else as_weights(weights, s, "weights")
    box_over_sigma = check_positive_real(box_over_sigma, "box_over_sigma")
    rng = np.random.default_rng([seed, d, s, int(round(box_over_sigma * 1e6))])
    X = rng.standard_normal((n_points, d)) * (box_over_sigma / np.sqrt(6.0))
    sq = np.einsum("ij,ij->i", X, X)
    D2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * (X @ X.T), 0.0)
    K = np.exp(-0.5 * D2)
    nK = np.linalg.norm(K)

    def err(Wm, xim):
        P = X @ Wm.T
        a = np.sqrt(xim)
        Z = np.hstack([np.cos(P) * a, np.sin(P) * a])
        return float(np.linalg.norm(Z @ Z.T - K) / nK)

    own = err(W, xi)
    orf = float(np.mean([err(make_frequencies("gaussian", s, d, sequence="orf", seed=k)[0],
                             np.full(s, 1.0 / s)) for k in range(orf_seeds)]))
    return {"gram_error": own, "orf_gram_error": orf, "ratio_to_orf": own / orf,
            "scoring": {"data": "N(0, tau^2 I), tau = box_over_sigma / sqrt(6) (moment box)",
                        "n_points": n_points, "orf_seeds": orf_seeds, "seed": seed,
                        "sigma": 1.0, "norm": "relative Frobenius"}}


def default_maxiter(d, s):
    """Iteration cap of the ``"global"`` design (L-BFGS-B) for a catalogue entry.

    1000 for ``s <= 256``, 300 for ``s <= 512``, 150 above.  One iteration costs
    O(s^2 d) (about 0.2-0.8 s at s=1024, d=32 on the shared 2-core machine), so
    the whole build takes well under an hour there, inside the two-hour budget.
    """
    check_int(d, "d", minimum=1)
    if check_int(s, "s", minimum=1) <= 256:
        return 1000
    if s <= 512:
        return 300
    return 150


def user_catalogue_dir() -> str:
    """The folder :func:`build_catalogue` writes into by default (created there, not here).

    ``$QMC_ORFF_CATALOGUE_DIR`` when set; otherwise ``sequences`` in
    ``platformdirs.user_data_dir("qmc_orff")``: ``$XDG_DATA_HOME/qmc_orff`` or
    ``~/.local/share/qmc_orff`` (Linux and other POSIX systems; a relative
    ``$XDG_DATA_HOME`` is ignored), ``~/Library/Application Support/qmc_orff``
    (macOS), ``%LOCALAPPDATA%\\qmc_orff`` (Windows).

    Returns
    -------
    str
        An absolute path.

    See Also
    --------
    build_catalogue : writes the catalogue files there.
    list_catalogue, load_catalogue : read them (``directory=``).

    Examples
    --------
    >>> from unittest import mock
    >>> import qmc_orff
    >>> with mock.patch.dict("os.environ", {"QMC_ORFF_CATALOGUE_DIR": "/data/qmc"}):
    ...     qmc_orff.user_catalogue_dir()
    '/data/qmc'
    """
    env = os.environ.get("QMC_ORFF_CATALOGUE_DIR")
    if env:
        return os.path.abspath(os.path.expanduser(env))
    import platformdirs

    # platformdirs >= 4.12 ignores a relative $XDG_DATA_HOME, as the XDG spec asks
    base = platformdirs.user_data_dir("qmc_orff", appauthor=False, roaming=False)
    return os.path.join(os.path.abspath(base), "sequences")


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


def _index_entry(name, seq, path=None):
    entry = {"file": name}
    if path is not None:
        entry["sha256"] = sha256_of(path)
    for key in _INDEX_FIELDS:
        if key in seq.meta:
            entry[key] = seq.meta[key]
    entry["box_over_sigma"] = float(seq.meta["box_over_sigma"][0])
    return entry


def _accepted(k, e):
    try:
        return _checked_entry(k, e) is e
    except ValueError:
        return False


def _write_index(directory, entries):
    """Merge ``entries`` (this build's, by file name) into ``index.json`` under the folder's
    lock (:func:`~qmc_orff.catalogue._concurrency.merge_entries`): other builds' entries stay."""
    def merge(old):
        old = old.get("entries") if isinstance(old, dict) else None
        merged = merge_entries(directory, old, entries, _accepted)
        return {"format": "qmc_orff.catalogue", "format_version": 1, "density": DENSITY,
                "catalogue_version": CATALOGUE_VERSION,
                "entries": sorted(merged.values(), key=lambda e: (e["method"], e["d"], e["s"],
                                                                  e["box_over_sigma"]))}

    update_json(directory, INDEX, merge)


def _write_scores(directory, scores, keep_ratio):
    """Merge this build's ``scores`` (by file name) into ``scores.json``, under the lock."""
    def name_of(r):
        return entry_name(r["d"], r["s"], r["box_over_sigma"], r["method"])

    update_json(directory, "scores.json", lambda old: {
        "catalogue_version": CATALOGUE_VERSION, "keep_ratio": keep_ratio,
        "scores": merge_scores(old, scores, name_of)})


def _index_written(directory, todo, entries, since):
    """Add to ``entries`` the files of ``todo`` that this build's tasks wrote (modified at or
    after ``since``, complete and valid for their settings) but whose results never arrived
    (an interrupted build)."""
    for _k, name, d, s, r, method, mi in todo:
        path = os.path.join(directory, name)
        if name in entries or not os.path.isfile(path):
            continue
        try:
            if os.stat(path).st_mtime < since:
                continue
        except OSError:
            continue
        seq = _valid_existing(path, d, s, r, method, mi)
        if seq is not None and "ratio_to_orf" in seq.meta:
            entries[name] = _index_entry(name, seq, path)


def _build_entry(directory, name, d, s, r, method, mi, keep_ratio):
    """Design one catalogue entry, score it (:func:`score_entry`) and, when it is kept, write
    its file atomically; return ``(entry or None, score record, seconds)``.

    A module-level function, so that an executor's worker process can run it.
    """
    from ..designs.global_design import global_sequence
    from ..designs.weighted import weighted_sequence
    from ..objectives.box import BoxDiscrepancy

    check_parent()  # a worker whose build was killed stops here
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
    meta.update(score_entry(seq.points, seq.weights, r))
    if method == "weighted":  # the same points with uniform weights, on the same data
        meta["start_gram_error"] = score_entry(seq.points, None, r)["gram_error"]
    seq = Sequence(seq.points, seq.weights, meta)
    # kept: beats ORF, and a weighted entry also beats its own uniform-weight start
    keep = keep_ratio is None or (meta["ratio_to_orf"] < keep_ratio and
                                  meta["gram_error"] <= meta.get("start_gram_error", np.inf))
    path = os.path.join(directory, name)
    record = {"d": d, "s": s, "box_over_sigma": r, "method": method, "kept": bool(keep),
              "ratio_to_orf": meta["ratio_to_orf"], "gram_error": meta["gram_error"],
              "orf_gram_error": meta["orf_gram_error"],
              "ratio_to_halton": meta.get("ratio_to_halton"),
              "weights_sum": meta.get("weights_sum"),
              "start_gram_error": meta.get("start_gram_error")}
    entry = None
    if keep:
        seq.save(path)
        entry = _index_entry(name, seq, path)
    elif os.path.exists(path):
        os.unlink(path)
    return entry, record, time.perf_counter() - t0


def _grid(values, name, check):
    """The values of one axis of the grid, each checked (``check(v, name)``; sizes >= 1)
    before anything is created."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"'{name}' must be a sequence of numbers; got {values!r}.")
    kw = {"minimum": 1} if check is check_int else {}
    return [check(v, name, **kw) for v in values]


def build_catalogue(directory: str | os.PathLike | None = None, *,
                    d_values: Iterable[int] = D_VALUES, s_values: Iterable[int] = S_VALUES,
                    box_over_sigma: Iterable[float] = BOX_OVER_SIGMA,
                    methods: Iterable[str] = METHODS,
                    maxiter: int | Callable[[int, int], int] | None = None,
                    resume: bool = False, log: Callable[[str], Any] | None = None,
                    executor: Executor | None = None, workers: int = 1,
                    keep_ratio: float | None = KEEP_RATIO) -> list[dict]:
    """(Re)build catalogue files and ``index.json`` in ``directory``.

    Parameters
    ----------
    directory : str, path or None, default=None
        Output folder; ``None`` means :func:`user_catalogue_dir` (never the installed
        package; ``make catalogue`` passes the checkout's ``sequences/``).
    d_values, s_values, box_over_sigma, methods : sequences
        The grid (defaults: the full catalogue).
    maxiter : int, callable or None, default=None
        Iteration cap of the global design: an int, ``maxiter(d, s)``, or
        ``None`` for the catalogue's own caps (``qmc_orff.catalogue.build.default_maxiter``).
        Recorded in each file.
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
        the other (or on ``workers`` spawned processes).  The executor is not shut down.
    workers : int, default=1
        Without ``executor``: the number of worker processes (``"spawn"``) to use.
    keep_ratio : float or None, default=1.0
        Keep an entry only when its held-out Gram error on its scoring data (Gaussian data
        whose moment box is the entry's box; ``qmc_orff.catalogue.build.score_entry``)
        is below ``keep_ratio`` times ORF's (and, for a weighted entry, at most that of
        its own points with uniform weights, ``start_gram_error``); the file of a
        dropped entry is deleted.
        ``None`` keeps every entry.

    Returns
    -------
    list of dict
        The index entries written (kept entries), each with ``ratio_to_orf`` and
        ``sha256``.  The scores of all built entries, dropped ones included, are in
        ``scores.json`` beside ``index.json``.

    See Also
    --------
    user_catalogue_dir : the default folder.
    global_sequence, weighted_sequence : the designs of the entries.
    load_catalogue : load a built entry (``directory=``).

    Notes
    -----
    Entries are built (or submitted) in order of increasing cost (``s``,
    then ``d``), each file written atomically and ``index.json`` rewritten
    after each file, so an interrupted build leaves only complete files and a
    consistent index; ``resume=True`` continues it (a file finished by a
    worker but missing from the index is found and kept).  The files are the
    same with or without an executor (each design is deterministic).

    Several builds may write into one folder at once: ``index.json`` and
    ``scores.json`` are updated under an exclusive lock of the folder
    (``filelock.FileLock`` of ``.index.lock``: ``fcntl.flock``, on Windows
    ``msvcrt.locking``), each merging its entries by file name into what is
    there, so every build's entries stay (entries whose file is gone are
    dropped).  The worker processes of ``workers > 1`` end with this process,
    even when it is killed outright (Linux: ``PR_SET_PDEATHSIG``; other POSIX
    systems: a check of the parent every second); those of an ``executor`` are
    the executor's business.

    Examples
    --------
    One small entry, built into a temporary folder:

    >>> import os, tempfile
    >>> from qmc_orff import build_catalogue
    >>> tmp = tempfile.TemporaryDirectory()
    >>> index = build_catalogue(tmp.name, d_values=[2], s_values=[64],
    ...                         box_over_sigma=[0.5], methods=["global"],
    ...                         maxiter=20)
    >>> [e["file"] for e in index], bool(index[0]["ratio_to_orf"] < 1.0)
    (['gaussian.d02.s0064.bos0.5.global.npz'], True)
    >>> sorted(f for f in os.listdir(tmp.name) if not f.startswith("."))  # .index.lock may stay
    ['gaussian.d02.s0064.bos0.5.global.npz', 'index.json', 'scores.json']
    >>> tmp.cleanup()
    """
    d_values = _grid(d_values, "d_values", check_int)
    s_values = _grid(s_values, "s_values", check_int)
    box_over_sigma = _grid(box_over_sigma, "box_over_sigma", check_positive_real)
    directory = user_catalogue_dir() if directory is None else os.fspath(directory)
    os.makedirs(directory, exist_ok=True)
    # temporary files of a build killed mid-write whose process is gone (not another
    # build's live ones)
    remove_stale_temps(directory)
    for m in methods:
        check_choice(m, "methods", METHODS)
    workers = check_int(workers, "workers", minimum=1)
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
    scores = {}
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
            if seq is not None and "ratio_to_orf" in seq.meta:
                entries[name] = _index_entry(name, seq, path)
                log(f"[{k}/{len(grid)}] {name}: kept (D^2={seq.meta['d2']:.4e})")
                continue
        entries.pop(name, None)
        todo.append((k, name, d, s, r, method, mi))

    def done(k, name, entry, record, seconds):
        scores[name] = dict(record, seconds=seconds)
        if entry is not None:
            entries[name] = entry
        else:
            entries.pop(name, None)
        _write_index(directory, entries)
        status = (f"shipped (D^2={entry['d2']:.4e})" if entry is not None else "dropped")
        log(f"[{k}/{len(grid)}] {name}: ratio to ORF {record['ratio_to_orf']:.3g} -> {status}, "
            f"ratio to Halton {record['ratio_to_halton']:.3g}, in {seconds:.1f} s")

    own_pool = None
    if executor is None and workers > 1 and len(todo) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # spawn: forking after numba's OpenMP threads ran is unsafe
        executor = own_pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
            initializer=tie_to_parent, initargs=(os.getpid(),))
    if executor is None:
        for k, name, *task in todo:
            done(k, name, *_build_entry(directory, name, *task, keep_ratio))
    else:
        import concurrent.futures as cf

        futures = {}
        started = time.time()
        try:
            # largest jobs first: a pool then ends together
            for k, name, d, s, r, method, mi in sorted(
                    todo, key=lambda j: -(j[3] ** 2 * j[2] * (j[6] or 1))):
                fut = executor.submit(_build_entry, directory, name, d, s, r, method, mi,
                                      keep_ratio)
                futures[fut] = (k, name)
            for fut in cf.as_completed(futures):
                k, name = futures.pop(fut)
                done(k, name, *fut.result())
        except BaseException:  # an error or Ctrl-C: drop the queued tasks, index what is done
            for fut in futures:
                fut.cancel()
            if own_pool is not None:  # the running entries end (Ctrl-C reached them too)
                own_pool.shutdown(wait=True, cancel_futures=True)
                own_pool = None
            for fut, (k, name) in futures.items():
                if fut.done() and not fut.cancelled() and fut.exception() is None:
                    done(k, name, *fut.result())
            # a worker may have written its file without its result reaching us
            _index_written(directory, todo, entries, started)
            _write_index(directory, entries)
            raise
        finally:
            if own_pool is not None:
                own_pool.shutdown(cancel_futures=True)
    _write_index(directory, entries)
    if scores:
        _write_scores(directory, scores, keep_ratio)
    return sorted(entries.values(), key=lambda e: (e["method"], e["d"], e["s"], e["box_over_sigma"]))
