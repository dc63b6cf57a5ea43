"""Array-API namespaces of the inputs, under scikit-learn's ``array_api_dispatch``.

Built on scikit-learn's own helpers (``sklearn.utils._array_api``: private, but the route
scikit-learn-compatible estimators take): ``get_namespace_and_device``, ``_is_numpy_namespace``,
``_max_precision_float_dtype``, ``device``, ``move_to`` and ``check_same_namespace`` where this
scikit-learn has them (1.9 does; the floor, 1.6, has neither: ``_convert_to_numpy`` and a copy
of the namespace check and its message stand in).

The rule of the maps and of :class:`~qmc_orff.ORFFRidge`: :func:`namespace` resolves
``(xp, device)`` once, and one body runs in ``xp``.  Without dispatch, or for NumPy arrays
(and sparse matrices, lists, data frames), ``xp`` is NumPy (:func:`is_numpy`) and the
leaves take the NumPy route: the compiled ``cos_sin`` kernel (:func:`cos_sin`), SciPy's
solvers.  For arrays of another namespace (torch, CuPy, array-api-strict) ``fit`` chooses the
frequencies on the host with NumPy, then :func:`move_fitted` puts the fitted arrays on
``device`` once, in the device's widest float dtype.
"""
from __future__ import annotations

import functools
import inspect

import numpy as np
import sklearn
from sklearn.utils import _array_api
from sklearn.utils.validation import _check_sample_weight

from ._cos_sin import cos_sin_features
from ._dask import is_dask_collection
from ._validation import check_phases, check_weight_values

__all__ = ["map_tags", "foreign", "namespace", "is_numpy", "device", "move", "to_numpy",
           "to_device", "host", "einsum", "sample_weights", "move_fitted", "check_same", "float_dtype", "input_dtypes", "cos_sin"]


def map_tags(tags):
    """scikit-learn tags of the feature maps: float32 and float64 kept, sparse input, array API."""
    tags.transformer_tags.preserves_dtype = ["float64", "float32"]
    tags.input_tags.sparse = True
    tags.array_api_support = True
    return tags


def _compat():
    """``array_api_compat``: vendored by recent scikit-learn (1.9); the package otherwise (the
    dispatch of scikit-learn 1.6 needs it)."""
    try:
        from sklearn.externals import array_api_compat as compat
    except ImportError:  # pragma: no cover - scikit-learn 1.6
        import array_api_compat as compat
    return compat


def foreign(*arrays):
    """``(xp, device)`` of ``arrays`` (``None`` entries skipped) when ``array_api_dispatch`` is on
    and they are arrays of a namespace other than NumPy; ``None`` otherwise."""
    if not sklearn.get_config().get("array_api_dispatch", False):
        return None
    compat = _compat()
    # torch tensors have no __array_namespace__: array_api_compat knows them; Dask arrays keep
    # their own path (qmc_orff._dask)
    arrays = [a for a in arrays if a is not None and not isinstance(a, np.ndarray)
              and compat.is_array_api_obj(a) and not compat.is_dask_array(a)]
    if not arrays:
        return None
    xp, is_array_api, device = _array_api.get_namespace_and_device(*arrays)
    if not is_array_api or _array_api._is_numpy_namespace(xp):
        return None
    return xp, device


class _NumPy1Namespace:
    """NumPy < 2 through scikit-learn 1.6's wrapper lacks two array-API forms used here:
    ``permute_dims`` (NumPy's ``transpose``, the same view) and ``clip`` with keyword bounds;
    every other name is the wrapper's."""

    def __init__(self, xp):
        self._xp = xp

    def __getattr__(self, name):
        return getattr(self._xp, name)

    @staticmethod
    def permute_dims(x, axes):
        return np.transpose(x, axes)

    @staticmethod
    def clip(x, /, min=None, max=None):
        return np.clip(x, min, max)


@functools.cache
def _numpy_namespace():
    """The NumPy namespace scikit-learn hands out without dispatch (array-API names such as
    ``concat`` and ``permute_dims`` on every supported NumPy, the values NumPy's own)."""
    with sklearn.config_context(array_api_dispatch=False):
        xp = _array_api.get_namespace(np.zeros(1))[0]
    return xp if np.lib.NumpyVersion(np.__version__) >= "2.0.0" else _NumPy1Namespace(xp)


def namespace(*arrays):
    """``(xp, device)`` of ``arrays``: :func:`foreign`'s answer, else NumPy's namespace on
    ``"cpu"``; resolved once at the top of a method, whose body then runs in ``xp``."""
    return foreign(*arrays) or (_numpy_namespace(), "cpu")


def is_numpy(xp):
    """Whether ``xp`` is NumPy (the leaves that need NumPy and SciPy run there only)."""
    return xp is np or _array_api._is_numpy_namespace(xp)


def host(array):
    """``array`` for the NumPy path: an array of another namespace (dispatch off) as a NumPy copy
    in its own dtype (scikit-learn's ``check_array`` would make a float32 one float64; its
    ``RBFSampler`` and ``Nystroem`` keep float32); anything else as it is."""
    foreign_array = hasattr(array, "__array_namespace__") \
        or type(array).__module__.partition(".")[0] == "torch"  # torch has no such method
    if isinstance(array, np.ndarray) or not foreign_array or is_dask_collection(array):
        return array
    return to_numpy(array)


#: scikit-learn >= 1.7 refuses all-zero weights itself, in its own words: the one rule says it
#: here (scikit-learn 1.6 has no such argument)
_ALL_ZERO = ({"allow_all_zero_weights": True} if "allow_all_zero_weights"
             in inspect.signature(_check_sample_weight).parameters else {})


def sample_weights(sample_weight, X, xp=None, device="cpu", *, allow_all_zero=False):
    """Validated ``sample_weight`` of the rows ``X`` (``None`` stays ``None``; a number is one
    weight for every row), under the one rule of
    :func:`qmc_orff._validation.check_weight_values`: float64 on the NumPy path, else an
    array of ``xp`` on ``device`` in ``X``'s dtype."""
    if sample_weight is None:
        return None
    numpy = xp is None or is_numpy(xp)
    # validated on the host, in scikit-learn's words whatever the namespace (its own check of
    # arrays of another namespace differs between versions): the weights are n floats
    rows = X if numpy else np.empty((X.shape[0], 0))
    w = _check_sample_weight(host(sample_weight), rows, dtype=np.float64, **_ALL_ZERO)
    check_weight_values(float(np.min(w)), float(np.sum(w)), allow_all_zero)
    return w if numpy else xp.asarray(w, dtype=X.dtype, device=device)


def einsum(subscripts, a, b, xp):
    """``numpy.einsum(subscripts, a, b)`` (two operands, explicit ``->``) in namespace ``xp``:
    NumPy's own (its bits) where ``xp`` is NumPy, else a broadcast product summed over the
    contracted indices (the standard has no ``einsum``)."""
    if is_numpy(xp):
        return np.einsum(subscripts, a, b)
    inputs, out = subscripts.split("->")
    sa, sb = inputs.split(",")
    letters = list(dict.fromkeys(sa + sb))

    def spread(x, sx):  # x with one axis per letter, in the order of ``letters``
        x = xp.permute_dims(x, tuple(sx.index(c) for c in letters if c in sx))
        return xp.reshape(x, tuple(x.shape[[c for c in letters if c in sx].index(c)]
                                   if c in sx else 1 for c in letters))

    total = spread(a, sa) * spread(b, sb)
    summed = tuple(i for i, c in enumerate(letters) if c not in out)
    total = xp.sum(total, axis=summed) if summed else total
    kept = [c for c in letters if c in out]
    return xp.permute_dims(total, tuple(kept.index(c) for c in out))


#: the device of arrays (scikit-learn's ``device``)
device = _array_api.device


def move(array, xp, device):
    """``array`` (any namespace, array-like, None) as an array of ``xp`` on ``device``, its dtype
    kept; returned as it is when it is one already."""
    if array is None:
        return None
    ns = foreign(array)
    if ns is not None and ns[0] == xp and ns[1] == device:
        return array
    host = to_numpy(array) if ns is not None else np.asarray(array)
    return xp.asarray(host, device=device)


def to_numpy(array):
    """A NumPy array on the host with the values of ``array`` (any namespace, any device); its
    own memory, never a view of the caller's array (``fit`` may work in place)."""
    if array is None or isinstance(array, np.ndarray):
        return array
    xp = _compat().array_namespace(array)
    if xp.__name__.endswith("array_api_strict"):  # its arrays live on a named device
        array = xp.asarray(array, device=xp.Device("CPU_DEVICE"))
    move_to = getattr(_array_api, "move_to", None)  # not in scikit-learn 1.6
    if move_to is not None:
        out = move_to(array, xp=np, device="cpu")
    else:
        out = _array_api._convert_to_numpy(array, xp)
    out = np.asarray(out)
    return out if out.flags.owndata and out.flags.writeable else np.array(out, copy=True)


def float_dtype(xp, device):
    """The widest float dtype of ``xp`` on ``device`` (float64, or float32 where the device has
    no float64): the dtype of the fitted arrays and of the ridge statistics."""
    return _array_api._max_precision_float_dtype(xp, device)


def input_dtypes(xp, device):
    """The input dtypes kept, widest first (``validate_data``'s ``dtype=``): float64 and float32,
    or float32 alone where the device has no float64."""
    widest = float_dtype(xp, device)
    return [widest] if widest == xp.float32 else [xp.float64, xp.float32]


def to_device(array, xp, device, dtype=None):
    """The NumPy ``array`` as an array of ``xp`` on ``device`` (float arrays in ``dtype``,
    default the device's widest float dtype); other values are returned as they are."""
    if not isinstance(array, np.ndarray):
        return array
    if dtype is None and array.dtype.kind == "f":
        dtype = float_dtype(xp, device)
    return xp.asarray(array, dtype=dtype, device=device)


def move_fitted(estimator, names, ns):
    """Move the fitted NumPy arrays ``names`` of ``estimator`` to ``ns = (xp, device)``."""
    xp, device = ns
    for name in names:
        value = getattr(estimator, name, None)
        if isinstance(value, np.ndarray):
            setattr(estimator, name, to_device(value, xp, device))


def check_same(X, estimator, attribute, method):
    """Under dispatch, ``ValueError`` when ``X`` is not of the namespace and device of the fitted
    ``attribute`` (scikit-learn's ``check_same_namespace``, whose message it repeats)."""
    check = getattr(_array_api, "check_same_namespace", None)  # not in scikit-learn 1.6
    if check is not None:
        check(X, estimator, attribute=attribute, method=method)
        return
    if not sklearn.get_config().get("array_api_dispatch", False):
        return
    a_xp, _, a_device = _array_api.get_namespace_and_device(getattr(estimator, attribute))
    x_xp, _, x_device = _array_api.get_namespace_and_device(X)
    if (a_xp == x_xp and a_device == x_device) or (
            _array_api._is_numpy_namespace(a_xp) and _array_api._is_numpy_namespace(x_xp)):
        return
    raise ValueError(
        f"Inputs passed to {type(estimator).__name__}.{method}() must use the same namespace "
        f"and the same device as those passed to fit(). Array namespaces used during fit "
        f"({a_xp.__name__}, {a_device}) and {method} ({x_xp.__name__}, {x_device}) differ.")


def _cos_sin_writing_into(xp):
    """torch's or CuPy's own ``(cos, sin)``, which take ``out=`` (a strided view of the output),
    for their namespaces; ``None`` for others (the standard has no ``out=``)."""
    compat = _compat()
    if compat.is_torch_namespace(xp):
        import torch
        return torch.cos, torch.sin
    if compat.is_cupy_namespace(xp):  # pragma: no cover - CuPy needs a GPU
        import cupy
        return cupy.cos, cupy.sin
    return None


def cos_sin(X, W, scale, xp, name="X"):
    """``[scale * cos(X W^T), scale * sin(X W^T)]`` of shape ``(n, 2 s)`` in ``X``'s dtype
    (``W`` and ``scale`` are cast to it), the phases checked
    (:func:`qmc_orff._validation.check_phases`: a ``ValueError`` naming ``name``).

    The one feature entry point of the maps, with two leaves: NumPy's (dense or sparse ``X``)
    is the compiled kernel :func:`qmc_orff._cos_sin.cos_sin_features`; other namespaces
    evaluate ``xp.cos`` and ``xp.sin``.  torch and CuPy write them straight into the output's
    halves (their ``out=``): the same values as the standard's ``concat([cos(P), sin(P)])``,
    one pass over the output fewer (on a GPU the transform is memory-bound: measured 1.51x
    the bare ``GEMM + cos + sin + concat`` with the concatenation, H100, ``bench_gpu.py``)."""
    if is_numpy(xp):
        return cos_sin_features(X, np.ascontiguousarray(W, dtype=X.dtype),
                                np.ascontiguousarray(scale, dtype=X.dtype), name=name)
    check_phases(X, W, name, xp=xp)
    P = X @ xp.permute_dims(xp.astype(W, X.dtype), (1, 0))
    native = _cos_sin_writing_into(xp)
    if native is None:
        out = xp.concat([xp.cos(P), xp.sin(P)], axis=1)
    else:
        n, s = P.shape
        out = xp.empty((n, 2 * s), dtype=X.dtype, device=device(X))
        native[0](P, out=out[:, :s])
        native[1](P, out=out[:, s:])
    out *= xp.astype(xp.concat([scale, scale]), X.dtype)  # in place: no third (n, 2 s) array
    return out
