"""What the scalar and the operator-valued data objectives share: the checked rows ``X`` and
their count against the size policy, the dtype, the refusal of a non-finite result, the
normalisation, and the quadratic term of the Gram-error expansion."""
from __future__ import annotations

import math

import numpy as np

from .._validation import MAX_ELEMENTS, as_float_array, check_finite_output

def _check_data(X, name="X", arrays=None):
    """``X`` as a C-contiguous float64 ``(m, d)`` array, ``m >= 2``; with ``arrays``, ``m`` is
    checked by :func:`check_rows` first, from the shape alone (a ``broadcast_to`` view of
    2**40 rows is refused before it is converted or copied)."""
    shape = getattr(X, "shape", None)
    if arrays is not None and isinstance(shape, tuple) and len(shape) == 2:
        check_rows(int(shape[0]), name, arrays)
    X = as_float_array(X, name, ndim=2)
    if X.shape[0] < 2:
        raise ValueError(f"'{name}' must have at least 2 rows (points); got shape {X.shape}.")
    if X.shape[1] < 1:
        raise ValueError(f"'{name}' must have at least one column; got shape {X.shape}.")
    return np.ascontiguousarray(X)


#: The data objectives hold a few ``(m, m)`` arrays (the Gram matrix, the error ``E``, the
#: kernel's temporaries): ``m`` is bounded so that they fit the size policy together.
GRAM_ARRAYS = 4


def max_rows(arrays=GRAM_ARRAYS):
    """The most rows ``m`` a data objective holding ``arrays`` ``(m, m)`` float64 arrays
    accepts: ``arrays * m^2 <= MAX_ELEMENTS`` (2**28 entries, 2 GiB, in all)."""
    return math.isqrt(MAX_ELEMENTS // arrays)


def check_rows(m, name="X", arrays=GRAM_ARRAYS):
    """Refuse ``m`` rows (``ValueError`` naming ``name``) before any ``(m, m)`` array."""
    limit = max_rows(arrays)
    if m > limit:
        what = f"have at most {limit} rows" if name == "X" else f"be at most {limit}"
        raise ValueError(f"'{name}' must {what} for a data objective (it holds {arrays} "
                         "(m, m) float64 arrays for m rows: at most 2**28 entries, 2 GiB, in "
                         f"all; subsample the data); got {m}.")
    return m


def check_scaled_rows(Y, name="X"):
    """Refuse rows whose squared norm (at unit bandwidth, ``Y = X / sigma``) overflows: the
    kernel's squared distances and the phases would."""
    with np.errstate(over="ignore", invalid="ignore"):
        finite = bool(np.all(np.isfinite(np.einsum("ij,ij->i", Y, Y))))
    if not finite:
        raise ValueError(f"'{name}' is too large for the bandwidth: |{name} / sigma|^2 overflows "
                         f"float64; rescale '{name}' or raise 'sigma'.")


def finite_result(values):
    """``values`` (a float or a tuple of arrays), refused where any is not finite."""
    for v in values if isinstance(values, tuple) else (values,):
        check_finite_output(v, "the data discrepancy", "rescale 'X', 'W' or 'weights'.")
    return values


def cos_product_sums(Gcc, Gcs, Gss):
    """``R[l, k] = sum_ij cos(w_l . (x_i - x_j)) cos(w_k . (x_i - x_j))`` (s, s), from the
    blocks ``Gcc = C^T C``, ``Gcs = C^T S``, ``Gss = S^T S`` of the features ``C = cos(X W^T)``,
    ``S = sin(X W^T)``: ``cos(a - b) = cos a cos b + sin a sin b`` gives
    ``R = Gcc o Gcc + Gss o Gss + Gcs o Gcs + Gcs^T o Gcs^T`` (elementwise squares).  The
    quadratic term of the scalar and the operator-valued data discrepancies."""
    R = Gcc * Gcc
    R += Gss * Gss
    R += Gcs * Gcs
    R += Gcs.T * Gcs.T
    return R


def normalization(normalize, norm2):
    """The factor of a data objective's value: ``1 / norm2`` (``norm2 = ||K||_F^2 / m^2``)
    when ``normalize``, else 1."""
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(f"'normalize' must be a bool; got {type(normalize).__name__}.")
    return 1.0 / norm2 if normalize else 1.0


def _check_dtype(dtype):
    """``dtype`` as ``np.dtype("float64")`` or ``np.dtype("float32")``."""
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = None
    if name not in ("float64", "float32"):
        raise ValueError(f"'dtype' must be 'float64' or 'float32'; got {dtype!r}.")
    return np.dtype(name)
