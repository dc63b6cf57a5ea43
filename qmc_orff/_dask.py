"""Dask support: lazy transforms and chunk-wise reductions (``pip install qmc_orff[dask]``).

Dask is optional: nothing here imports it until a Dask array is actually
passed (:func:`is_dask_collection` looks in ``sys.modules`` only), so the
library imports and works without it.

Every task runs under :func:`qmc_orff.threads.task_threads` with the count of
:func:`qmc_orff.threads.get_dask_task_threads` (default 1), read when the graph
is built and carried in it, so that the scheduler's workers and the library's
numba and BLAS threads do not oversubscribe the cores.
"""
from __future__ import annotations

import math
import sys

import numpy as np

from . import threads as _threads

__all__ = ["is_dask_collection", "map_rows", "reduce_blocks", "ridge_inputs", "first_block"]


def is_dask_collection(x):
    """True when ``x`` is a ``dask.array.Array`` or a Dask DataFrame / Series (without
    importing dask)."""
    module = sys.modules.get("dask.array")
    return (module is not None and isinstance(x, module.Array)) or is_dask_frame(x)


def is_dask_frame(x):
    """True when ``x`` is a Dask DataFrame or Series."""
    module = sys.modules.get("dask.dataframe")
    return module is not None and isinstance(x, (module.DataFrame, module.Series))


def as_dask_array(x, lengths=None):
    """A Dask DataFrame / Series as a Dask array, lazily (``lengths=True`` computes the
    partition lengths only, never the data); other inputs unchanged."""
    return x.to_dask_array(lengths=lengths or None) if is_dask_frame(x) else x


def _check_columns(estimator, X):
    """A Dask DataFrame's column names against those seen in ``fit`` (as scikit-learn does
    for pandas; no warning when ``fit`` saw none)."""
    seen = getattr(estimator, "feature_names_in_", None)
    if seen is not None and [str(c) for c in X.columns] != [str(c) for c in seen]:
        raise ValueError(f"The feature names should match those that were passed during fit: "
                         f"got {list(X.columns)}, expected {list(seen)}.")


def _plain(estimator):
    """A shallow copy without ``set_output``'s configuration (the blocks give ndarrays) and
    without the feature names (checked once, on the whole input: the blocks have none)."""
    import copy

    est = copy.copy(estimator)
    est.__dict__.pop("_sklearn_output_config", None)
    est.__dict__.pop("feature_names_in_", None)
    return est


def _output_kind(estimator, method):
    if method != "transform":
        return "default"
    from sklearn.utils._set_output import _get_output_config

    return _get_output_config("transform", estimator)["dense"]


def lazy_transform(cls):
    """Class decorator: ``transform`` of a Dask input bypasses scikit-learn's ``set_output``
    wrapping (which would build a pandas DataFrame in memory) and stays lazy:
    :func:`map_rows`, which gives a Dask DataFrame for ``set_output(transform="pandas")``."""
    import functools

    wrapped = cls.transform

    @functools.wraps(wrapped)
    def transform(self, X, *args, **kwargs):
        if is_dask_collection(X):
            from sklearn.utils.validation import check_is_fitted

            check_is_fitted(self)
            return map_rows(self, "transform", X)
        return wrapped(self, X, *args, **kwargs)

    cls.transform = transform
    return cls


def _known(chunks):
    return all(not math.isnan(c) for c in chunks)


def _apply_method(block, estimator, method, n_threads):
    with _threads.task_threads(n_threads):
        return getattr(estimator, method)(block)


def map_rows(estimator, method, X):
    """``estimator.method`` applied lazily to each row chunk of a 2-D Dask array.

    The output's trailing shape and dtype are read from the method's output on
    one row of zeros (no computation on ``X``); its row chunks are ``X``'s.
    Column chunks of ``X`` are merged first (features need whole rows).  A Dask DataFrame
    is read as a Dask array (its column names checked against ``fit``'s); with
    ``set_output(transform="pandas")`` the result is a Dask DataFrame with the names of
    ``get_feature_names_out``.
    """
    kind = _output_kind(estimator, method)
    if kind not in ("default", "pandas"):
        raise ValueError(f"set_output(transform={kind!r}) cannot be applied lazily to a Dask "
                         "input; use 'pandas' (a Dask DataFrame) or 'default' (a Dask array).")
    if is_dask_frame(X):
        _check_columns(estimator, X)
        X = as_dask_array(X)
    out = _map_array(_plain(estimator), method, X)
    if kind == "pandas":
        if out.ndim != 2:
            raise ValueError("set_output(transform='pandas') needs a 2-D output; pass "
                             "flatten=True for ORFF.")
        import dask.dataframe as dd

        return dd.from_dask_array(out, columns=list(estimator.get_feature_names_out()))
    return out


def _map_array(estimator, method, X):
    if X.ndim != 2:
        raise ValueError(f"'X' must be 2-D; got a Dask array of shape {X.shape}.")
    d = X.shape[1]
    expected = getattr(estimator, "n_features_in_", d)
    if d != expected:
        raise ValueError(f"X has {d} features, but {type(estimator).__name__} is expecting "
                         f"{expected} features as input.")
    if X.numblocks[1] != 1:
        X = X.rechunk({1: -1})
    probe_dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
    probe = getattr(estimator, method)(np.zeros((1, d), dtype=probe_dtype))
    tail = probe.shape[1:]
    kwargs = {}
    if probe.ndim == 1:
        kwargs["drop_axis"] = 1
    elif probe.ndim > 2:
        kwargs["new_axis"] = list(range(2, probe.ndim))
    chunks = (X.chunks[0],) + tuple((k,) for k in tail)
    return X.map_blocks(_apply_method, estimator, method, _threads.get_dask_task_threads(),
                        dtype=probe.dtype, chunks=chunks,
                        meta=np.empty((0,) * probe.ndim, dtype=probe.dtype), **kwargs)


def _as_rows_like(X, a, name):
    """``a`` (Dask, array_like or None) as a Dask array with ``X``'s row chunks, one column
    chunk."""
    import dask.array as da

    if a is None:
        return None
    if not is_dask_collection(a):
        a = np.asarray(a)
        if a.ndim not in (1, 2) or a.shape[0] != X.shape[0]:
            raise ValueError(f"'{name}' must have {X.shape[0]} rows; got shape {a.shape}.")
        if not _known(X.chunks[0]):
            raise ValueError(f"'X' has unknown chunk sizes: call X.compute_chunk_sizes() or "
                             f"pass '{name}' as a Dask array chunked like 'X'.")
        return da.from_array(a, chunks=(X.chunks[0],) + a.shape[1:])
    if a.ndim not in (1, 2):
        raise ValueError(f"'{name}' must be 1-D or 2-D; got shape {a.shape}.")
    if a.ndim == 2 and a.numblocks[1] != 1:
        a = a.rechunk({1: -1})
    if _known(X.chunks[0]) and _known(a.chunks[0]):
        if a.shape[0] != X.shape[0]:
            raise ValueError(f"'{name}' must have {X.shape[0]} rows; got {a.shape[0]}.")
        if a.chunks[0] != X.chunks[0]:
            a = a.rechunk({0: X.chunks[0]})
    elif a.numblocks[0] != X.numblocks[0]:
        raise ValueError(f"'{name}' must have as many row chunks as 'X' when chunk sizes are "
                         f"unknown; got {a.numblocks[0]} and {X.numblocks[0]}.")
    return a


def ridge_inputs(X, y, sample_weight):
    """Check and align the Dask inputs of a ridge fit; ``(X, Y, w, y_1d, d)``, ``Y`` 2-D."""
    import dask.array as da

    X, y, sample_weight = (as_dask_array(a, lengths=True) for a in (X, y, sample_weight))
    if not is_dask_collection(X):
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"'X' must be 2-D; got shape {X.shape}.")
        X = da.from_array(X, chunks=(min(max(X.shape[0], 1), 100_000), -1))
    if X.ndim != 2:
        raise ValueError(f"'X' must be 2-D; got a Dask array of shape {X.shape}.")
    if not np.issubdtype(X.dtype, np.number) or np.issubdtype(X.dtype, np.complexfloating):
        raise ValueError(f"'X' must hold real numbers; got dtype {X.dtype}.")
    if X.numblocks[1] != 1:
        X = X.rechunk({1: -1})
    if y is None:
        raise ValueError("'y' must be given (requires y to be passed, but the target y is None).")
    Y = _as_rows_like(X, y, "y")
    y_1d = Y.ndim == 1
    if y_1d:
        Y = Y[:, None]
    if not np.issubdtype(Y.dtype, np.number) or np.issubdtype(Y.dtype, np.complexfloating):
        raise ValueError(f"'y' must hold real numbers; got dtype {Y.dtype}.")
    w = _as_rows_like(X, sample_weight, "sample_weight")
    if w is not None and w.ndim != 1:
        raise ValueError(f"'sample_weight' must be 1-D; got shape {w.shape}.")
    return X, Y, w, y_1d, X.shape[1]


def first_block(X):
    """The first row of ``X`` (the first chunk if its size is unknown), computed.

    Enough to fit a feature map that reads only the column count; with unknown chunk
    sizes :class:`~qmc_orff.ORFFRidge` fits its map on the first chunk, so the default
    bandwidth and the seedless default map are then chosen on that chunk's rows (known
    sizes: on the fixed sample an in-memory fit reads).
    """
    if _known(X.chunks[0]) and X.shape[0] > 0:
        return np.asarray(X[:1].compute())
    return np.asarray(X.blocks[0].compute())


def _block_task(func, n_threads, args, *blocks):
    with _threads.task_threads(n_threads):
        return func(*args, *blocks)


def reduce_blocks(func, merge, arrays, *args):
    """``merge``-reduce ``func(*args, *row_blocks)`` over the row chunks, on the active scheduler.

    ``arrays`` are Dask arrays with the same row chunks (or None, passed as
    None).  One task per chunk, then a binary tree of ``merge`` tasks; only
    the root's result comes back to the client.
    """
    import dask
    from dask import delayed

    n_threads = _threads.get_dask_task_threads()
    columns = []
    for a in arrays:
        if a is None:
            columns.append(None)
        else:
            columns.append(a.to_delayed().reshape(-1))
    n_blocks = len(next(c for c in columns if c is not None))
    task = delayed(_block_task, pure=True)
    parts = [task(func, n_threads, args,
                  *(None if c is None else c[i] for c in columns)) for i in range(n_blocks)]
    combine = delayed(merge, pure=True)
    while len(parts) > 1:
        parts = [combine(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i]
                 for i in range(0, len(parts), 2)]
    (result,) = dask.compute(parts[0])
    return result
