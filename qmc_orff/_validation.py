"""Input checks shared by the public API.

Every public function converts and checks its inputs here, once, before any
compiled code runs.  Messages follow one shape: they name the parameter, say
what was expected and show what was given, e.g.
``"'b' must be positive; got -1.0."``.

Type policy (one for the whole library): a parameter of the wrong type raises
`TypeError` naming it, a value of the right type out of range `ValueError`.
In particular complex input is never truncated to its real part (`TypeError`,
not NumPy's ``ComplexWarning``), strings are not parsed as numbers, and a bool
is not accepted where a number is expected (``sigma=True``, ``b=True``,
``n=True`` are all `TypeError`).  Data arrays (``X``, ``W``) may be boolean.

Size policy: every public size argument has a documented maximum, checked
before anything is allocated.  A single output array holds at most
`MAX_ELEMENTS` (2**28) float64 entries (`check_size`), a dimension is at most
`MAX_DIMENSION` (2**20) unless a tighter limit is documented.
"""
from __future__ import annotations

import math
import numbers
import os

import numpy as np

__all__ = [
    "MAX_ELEMENTS",
    "MAX_DIMENSION",
    "MAX_DESIGN_POINTS",
    "check_int",
    "check_size",
    "check_positive_real",
    "check_real",
    "check_finite_output",
    "check_dimension",
    "as_float_array",
    "as_points",
    "check_map_rows",
    "as_positive",
    "as_path",
    "as_weights",
    "as_generator",
    "check_choice",
    "check_phases",
    "check_weight_values",
    "shape_of",
    "check_entries",
]


def check_int(value, name, *, minimum=None, maximum=None):
    """Return ``value`` as a Python int, checking type and bounds."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"'{name}' must be an integer; got {value!r}.")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"'{name}' must be >= {minimum}; got {value}.")
    if maximum is not None and value > maximum:
        raise ValueError(f"'{name}' must be <= {maximum}; got {value}.")
    return value


#: Largest number of entries of one output array a public function allocates
#: (2**28 float64 entries = 2 GiB); larger requests raise ValueError first.
#: The QMC engines stream (consecutive ``random(n)`` calls continue the
#: sequence), so larger sets are drawn in pieces.
MAX_ELEMENTS = 2 ** 28
#: Largest number of entries of a feature map's input ``X`` or output (2**36 float64 entries,
#: 512 GiB): the maps' arrays are the user's data and features, not working arrays, so only
#: sizes no single machine holds are refused, from the shape, before any pass over ``X``
#: (``transform`` of 100000 rows into 4096 columns, 3.3 GB, must run); larger data go
#: through Dask.
MAX_MAP_ELEMENTS = 2 ** 36
#: Largest dimension ``d`` accepted where no tighter documented limit applies.
MAX_DIMENSION = 2 ** 20
#: Largest number of points of a designed sequence (`qmc_orff.design`): the
#: designs form ``(s, s)`` matrices or ``O(s^2 d)`` pair sums per evaluation.
MAX_DESIGN_POINTS = 2 ** 13


def check_size(n, name, *, width=1, minimum=0, maximum=None):
    """Return the count ``n`` as an int, checked before an ``(n, width)`` array is allocated.

    ``n`` must be an integer in ``[minimum, maximum]`` and ``n * width`` at most
    `MAX_ELEMENTS`; the check is arithmetic only (nothing is allocated).
    """
    n = check_int(n, name, minimum=minimum, maximum=maximum)
    width = max(int(width), 1)
    if n * width > MAX_ELEMENTS:
        limit = MAX_ELEMENTS // width
        shape = f" for rows of width {width}" if width > 1 else ""
        raise ValueError(f"'{name}' must be <= {limit}{shape} (at most 2**28 float64 entries, "
                         f"2 GiB, per array; draw larger sets in pieces); got {n}.")
    return n


def check_positive_real(value, name):
    """Return ``value`` as a positive finite Python float (a real number, not a bool)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"'{name}' must be a positive finite number; got {value!r}.")
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"'{name}' must be a positive finite number; got {value!r}.")
    return value


def check_real(value, name):
    """Return ``value`` as a finite Python float (a real number, not a bool or a string)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"'{name}' must be a finite real number; got {value!r}.")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"'{name}' must be a finite real number; got {value!r}.")
    return value


def as_real_scalar(value, name):
    """Return ``value`` as a finite Python float: a real number or a 0-d array (not a bool,
    a complex number or a string); an array of other shape is a `ValueError`."""
    if isinstance(value, (bool, np.bool_, complex, np.complexfloating, str, bytes)):
        raise TypeError(f"'{name}' must be a real number; got {value!r}.")
    if np.ndim(value) != 0:
        raise ValueError(f"'{name}' must be a real number; got {value!r}.")
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"'{name}' must be a real number; got {value!r}.") from None
    if not math.isfinite(value):
        raise ValueError(f"'{name}' must be finite; got {value!r}.")
    return value


def check_fraction(value, name):
    """Return ``value`` as a Python float in [0, 1] (a real number, not a bool)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"'{name}' must be a number in [0, 1]; got {value!r}.")
    value = float(value)
    if not 0.0 <= value <= 1.0:  # NaN fails too
        raise ValueError(f"'{name}' must be a number in [0, 1]; got {value!r}.")
    return value


def check_finite_output(values, what, fix, *, xp=np):
    """Raise `ValueError` where a computed result is not finite (never a silent NaN/inf);
    ``xp``: the array namespace of ``values``."""
    if not bool(xp.all(xp.isfinite(values))):
        raise ValueError(f"{what} is not finite for these inputs: {fix}")
    return values


def check_dimension(d, name="d", *, maximum=None):
    """Return the dimension ``d`` as an int >= 1 (and <= ``maximum``, default `MAX_DIMENSION`)."""
    if isinstance(d, (bool, np.bool_)) or not isinstance(d, numbers.Integral):
        raise TypeError(f"'{name}' must be an integer >= 1; got {d!r}.")
    d = int(d)
    if d < 1:
        raise ValueError(f"'{name}' must be >= 1; got {d}.")
    if maximum is not None and d > maximum:
        raise ValueError(
            f"'{name}' must be <= {maximum} (the largest dimension of the shipped data); got {d}."
        )
    if d > MAX_DIMENSION:
        raise ValueError(f"'{name}' must be <= 2**20 = {MAX_DIMENSION}; got {d}.")
    return d


def as_float_array(x, name, *, ndim=None, finite=True, dtype=np.float64, allow_bool=True):
    """Convert ``x`` to a C-contiguous float array and check its rank and values.

    Complex, string and (unless ``allow_bool``) boolean input raise `TypeError`
    naming ``name``: nothing is truncated or parsed.
    """
    raw = None
    try:
        raw = np.asarray(x)
        kind = raw.dtype.kind
        if kind == "c" or (kind == "O" and any(isinstance(v, complex) for v in raw.flat)):
            raise TypeError(f"'{name}' must be real; got complex values (the imaginary part "
                            "is not dropped silently: pass x.real if that is what you mean).")
        if kind in "USV" or (kind == "b" and not allow_bool):
            what = "a bool" if kind == "b" else f"dtype {raw.dtype}"
            raise TypeError(f"'{name}' must be a real number or an array of real numbers; "
                            f"got {what}.")
        arr = np.asarray(raw, dtype=dtype)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, TypeError) and str(exc).startswith(f"'{name}'"):
            raise
        if _holds_pandas_na(raw):
            raise ValueError(f"'{name}' must contain only finite values; got missing values "
                             f"(pandas NA) in a {type(x).__name__}: drop or impute them first "
                             "(e.g. .dropna() or sklearn.impute.SimpleImputer).") from None
        raise TypeError(f"'{name}' must be an array of real numbers; "
                        f"got {type(x).__name__}.") from exc
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"'{name}' must be a {ndim}-D array; got shape {arr.shape}.")
    if finite and not np.all(np.isfinite(arr)):
        raise ValueError(f"'{name}' must contain only finite values (no NaN or inf).")
    return np.asarray(arr, order="C")  # keeps 0-D arrays 0-D (ascontiguousarray would not)


def _holds_pandas_na(raw):
    """Whether the object array ``raw`` holds pandas' ``NA`` (of a nullable dtype such as
    ``Float64``; NumPy converts such a frame to objects), without importing pandas."""
    return (isinstance(raw, np.ndarray) and raw.dtype.kind == "O"
            and any(type(v).__name__ == "NAType" for v in raw.flat))


def shape_of(x):
    """``x.shape`` as a tuple of ints where ``x`` has one (arrays, DataFrames, sparse
    matrices), else None: the size checks read it before anything is converted (a
    ``np.broadcast_to`` view of 2**40 rows holds no memory; its conversion would)."""
    shape = getattr(x, "shape", None)
    if not isinstance(shape, tuple) or \
            not all(isinstance(k, numbers.Integral) and not isinstance(k, bool) for k in shape):
        return None
    return tuple(int(k) for k in shape)


def check_entries(x, name):
    """Refuse ``x`` (``ValueError`` naming ``name``) where its shape alone puts it above
    `MAX_ELEMENTS` entries, before it is converted or read."""
    shape = shape_of(x)
    if shape is not None and math.prod(shape) > MAX_ELEMENTS:
        raise ValueError(f"'{name}' must have at most {MAX_ELEMENTS} entries (2**28 float64 "
                         f"entries, 2 GiB, per array: pass it in pieces); got shape {shape}.")


def check_map_rows(x, width, name="X"):
    """Refuse ``x`` (``ValueError`` naming ``name``) where its shape alone shows that ``x``, or
    an array of ``width`` entries for each of its rows (a transform's output), would hold more
    than `MAX_MAP_ELEMENTS` entries: before it is validated, converted or read (scikit-learn's
    finiteness pass over a ``np.broadcast_to`` view of 2**40 rows would take minutes and then
    run out of memory)."""
    shape = shape_of(x)
    if shape is None or len(shape) < 1:
        return
    per_row = max(int(width), math.prod(shape[1:]), 1)
    if shape[0] * per_row > MAX_MAP_ELEMENTS:
        raise ValueError(f"'{name}' must have at most {MAX_MAP_ELEMENTS // per_row} rows here "
                         f"({per_row} float64 entries per row, at most 2**36 entries, 512 GiB, "
                         f"per array: pass it in pieces or as a Dask array); got shape {shape}.")


def as_points(x, name="W", *, d=None):
    """Return a finite C-contiguous float64 array of shape ``(s, d)``, ``s, d >= 1``
    (at most `MAX_ELEMENTS` entries, checked from the shape first)."""
    check_entries(x, name)
    arr = as_float_array(x, name, ndim=2)
    if arr.shape[0] < 1:
        raise ValueError(f"'{name}' must contain at least one point; got shape {arr.shape}.")
    if arr.shape[1] < 1:
        raise ValueError(f"'{name}' must have at least one column; got shape {arr.shape}.")
    if d is not None and arr.shape[1] != d:
        raise ValueError(f"'{name}' must have {d} columns (d={d}); got shape {arr.shape}.")
    return arr


def as_positive(x, name, *, d=None):
    """Return a positive, finite scalar or ``(d,)`` array (float64).

    Scalars stay 0-D; 1-D arrays must have length ``d`` when ``d`` is given.
    """
    arr = as_float_array(x, name, allow_bool=False)
    if arr.ndim > 1:
        raise ValueError(f"'{name}' must be a scalar or a 1-D array; got shape {arr.shape}.")
    if arr.ndim == 1:
        if arr.size == 0:
            raise ValueError(f"'{name}' must not be empty.")
        if d is not None and arr.shape[0] != d:
            raise ValueError(f"'{name}' must have length d={d}; got length {arr.shape[0]}.")
    if np.any(arr <= 0):
        bad = arr if arr.ndim == 0 else arr[arr <= 0][0]
        raise ValueError(f"'{name}' must be positive; got {float(bad)!r}.")
    return arr


def as_weights(weights, s, name="weights", *, max_sum=None):
    """Return nonnegative finite weights of shape ``(s,)`` (float64).

    With ``max_sum``, the weights must also sum to at most ``max_sum`` (a bound
    under which the quantities computed from them stay finite).
    """
    w = as_float_array(weights, name, ndim=1, allow_bool=False)
    if w.shape[0] != s:
        raise ValueError(f"'{name}' must have shape ({s},) to match the {s} points; got {w.shape}.")
    if np.any(w < 0):
        raise ValueError(f"'{name}' must be nonnegative; got minimum {float(w.min())!r}.")
    if max_sum is not None:
        with np.errstate(over="ignore"):
            total = float(np.sum(w))
        if not total <= max_sum:
            raise ValueError(f"'{name}' must sum to at most {max_sum:g}; got sum {total!r}.")
    return w


def as_generator(seed, name="seed"):
    """Turn ``seed`` (None, int, SeedSequence, BitGenerator or Generator) into a Generator.

    ``numpy.random.default_rng`` semantics; a negative int is a `ValueError`,
    anything else (a bool, a float, a string, a legacy ``RandomState``) a `TypeError`.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.RandomState):
        raise TypeError(f"'{name}' must be None, an int, a SeedSequence or a numpy Generator; "
                        "legacy RandomState is not accepted.")
    if isinstance(seed, (bool, np.bool_)) or not (
            seed is None or isinstance(seed, (numbers.Integral, np.random.SeedSequence,
                                              np.random.BitGenerator))
            or (isinstance(seed, (list, tuple, np.ndarray))
                and np.asarray(seed).dtype.kind in "iu")):
        raise TypeError(f"'{name}' must be None, an int, a SeedSequence or a numpy Generator; "
                        f"got {seed!r}.")
    try:
        return np.random.default_rng(seed)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"'{name}' must be None, a nonnegative int, a SeedSequence or a numpy "
                         f"Generator; got {seed!r}.") from exc


#: Phases ``|x . w|`` beyond this (2**52) are refused by the data objectives: a float64 phase
#: there no longer resolves one period (its spacing exceeds 1 rad), so cos and sin of it are
#: noise.  (The maps refuse only phases that may overflow: their features are then finite.)
MAX_PHASE = 2.0 ** 52


def check_phases(X, W, name="X", *, max_row_l1=None, limit=None, xp=None):
    """Check the phases ``X @ W.T`` against a limit, from the bound ``|x . w| <= ||x||_1 max|w|``
    (no product is formed).

    ``limit=None``: the phases must not overflow ``X``'s float type, so that ``cos``/``sin``
    of them are finite (the maps: inputs near the float maximum raise `ValueError` naming
    ``name`` instead of giving NaN features).  A number (:data:`MAX_PHASE` for the data
    objectives): the bound must not exceed it.
    ``max_row_l1``: ``max_i ||x_i||_1`` (float64) when the caller has it (the maps compute it
    compiled, :func:`qmc_orff._cos_sin.max_row_l1`); else it is computed here in blocks of
    rows, so that no temporary as large as ``X`` is made.  ``xp``: the array namespace of
    ``X`` and ``W`` when they are not NumPy arrays (both numbers are then reduced in ``xp``).
    """
    if xp is not None:
        if X.shape[0] == 0 or W.shape[0] == 0:
            return
        w_max = float(xp.max(xp.abs(W)))
        if max_row_l1 is None:
            max_row_l1 = float(xp.max(xp.sum(xp.abs(X), axis=1, dtype=W.dtype)))
        bound = max_row_l1 * w_max
        dtype = X.dtype
        big = float(xp.finfo(dtype).max)
    else:
        X = np.asarray(X) if max_row_l1 is None else X
        if 0 in X.shape or np.size(W) == 0:
            return
        dtype = X.dtype if X.dtype.kind == "f" else np.dtype(np.float64)
        big = float(np.finfo(dtype).max)
        with np.errstate(over="ignore"):
            W = np.asarray(W)
            w_max = (float(max(np.max(W), -np.min(W))) if W.dtype.kind == "f"  # no temporary
                     else float(np.max(np.abs(W))))
            if max_row_l1 is None:
                max_row_l1 = _blocked_max_row_l1(X)
            bound = float(max_row_l1) * w_max
    if limit is not None:
        if not bound <= limit:
            raise ValueError(f"'{name}' is too large for 'X': the phases X @ W.T reach "
                             f"{bound:.3g}, beyond 2**52, where a float64 phase no longer "
                             f"resolves a period of cos and sin; rescale '{name}' or 'X'.")
    elif not (bound < big and w_max < big):
        raise ValueError(f"'{name}' is too large for these frequencies: the phases X @ W.T may "
                         f"overflow {X.dtype} (max row 1-norm of '{name}' times max |W| = "
                         f"{bound:.3g}); rescale '{name}'.")


#: Elements per block of :func:`_blocked_max_row_l1` (2 MiB of float64).
_ROW_CHECK_BLOCK = 1 << 18


def _blocked_max_row_l1(X):
    """``max_i sum_j |X_ij|`` accumulated in float64, ``|X|`` formed a block of rows at a time."""
    rows = max(1, _ROW_CHECK_BLOCK // max(1, X.shape[1]))
    return max(float(np.max(np.sum(np.abs(X[a:a + rows]), axis=1, dtype=np.float64)))
               for a in range(0, X.shape[0], rows))


def check_weight_values(w_min, w_sum, allow_all_zero=False):
    """The one rule of ``sample_weight`` (every estimator that takes it), from the minimum and
    the sum of the (finite) weights: non-negative, a finite sum, not all zero (unless
    ``allow_all_zero``: a later :meth:`~qmc_orff.ORFFRidge.partial_fit` batch, skipped)."""
    if not (w_min >= 0 and math.isfinite(w_sum) and (allow_all_zero or w_sum > 0)):
        raise ValueError("'sample_weight' must be finite, non-negative and not all zero; got "
                         f"min {w_min!r}, sum {w_sum!r}.")


def as_path(path, name="path"):
    """``os.fspath(path)``: a ``str`` or ``bytes`` path, else a `TypeError` naming ``name``."""
    try:
        return os.fspath(path)
    except TypeError:
        raise TypeError(f"'{name}' must be a str, bytes or os.PathLike path; got "
                        f"{type(path).__name__}.") from None


def check_choice(value, name, options):
    """Check that ``value`` is one of ``options`` (strings) and return it."""
    if not isinstance(value, str) or value not in options:
        opts = ", ".join(repr(o) for o in options)
        raise ValueError(f"'{name}' must be one of {opts}; got {value!r}.")
    return value
