"""What every exact kernel of :mod:`qmc_orff.kernels` shares: the checks of the two sets of
rows, the pairwise distances (the numba kernels of :mod:`qmc_orff._distances`, in parallel
where the work pays, for NumPy; the same sums in the array namespace ``xp`` otherwise), the
positive semi-definite output matrix, and the evaluation that checks the result is finite.

The formulas are written once over ``xp``: NumPy is passed as the module ``numpy`` itself, so
the NumPy path keeps its bits, and :func:`_like` puts a NumPy constant (a bandwidth, ``A``,
the identity) beside arrays of another namespace."""
from __future__ import annotations

import numpy as np

from . import _distances
from ._jit import parallel_pays
from ._validation import as_float_array, check_finite_output

# --------------------------------------------------------------------------- helpers
_EXTREME = ("'X', 'Z' or the kernel's parameters are too extreme for float64 (rescale the "
            "data or the bandwidth).")


def _check_pair(X, Z):
    """Validate ``X`` (n, d) and ``Z`` (m, d) (``Z=None`` means ``Z = X``)."""
    X = as_float_array(X, "X", ndim=2)
    if X.shape[1] < 1:
        raise ValueError(f"'X' must have at least one column; got shape {X.shape}.")
    if Z is None:
        return X, X
    Z = as_float_array(Z, "Z", ndim=2)
    if Z.shape[1] != X.shape[1]:
        raise ValueError(f"'Z' must have {X.shape[1]} columns like 'X'; got shape {Z.shape}.")
    return X, Z


def _check_scale_length(scale, d, name):
    if scale.ndim == 1 and scale.shape[0] != d:
        raise ValueError(f"'{name}' must be a scalar or have length d={d}; "
                         f"got length {scale.shape[0]}.")


#: pairwise work ``n m d`` from which the distances run on numba's threads
PARALLEL_DISTANCE_WORK = 2 ** 20


def _device(X):
    """The device of ``X``, an array of a namespace other than NumPy.  The namespace helpers
    (and so scikit-learn) are imported here, off the NumPy path: the designs import these
    kernels, and load neither."""
    from ._array_api import device

    return device(X)


def _namespace(xp):
    """``np`` for NumPy or a NumPy-compatible wrapper of it, else ``xp``."""
    if xp is np:
        return np
    from ._array_api import is_numpy

    return np if is_numpy(xp) else xp


def _like(value, X, xp):
    """The NumPy ``value`` as it is for ``xp = numpy``, else as an array of ``xp`` in the dtype
    and on the device of ``X``."""
    return value if xp is np else xp.asarray(value, dtype=X.dtype, device=_device(X))


def _outer(v, xp):
    """``v v^T`` over the last axis of ``v`` (..., d): shape (..., d, d)."""
    return xp.expand_dims(v, axis=-1) * xp.expand_dims(v, axis=-2)


def _as_matrices(k, xp):
    """``k`` (...) as (..., 1, 1), to scale the matrices of an operator-valued kernel."""
    return xp.expand_dims(xp.expand_dims(k, axis=-1), axis=-1)


def _dists(X, Z, which, xp=np):
    """``(n, m)`` distances of the rows of float64 ``X`` and ``Z`` by the numba kernel
    ``which`` ("sq" or "abs"; :mod:`qmc_orff._distances`), the parallel build where the work
    pays for it (the same bits either way); for arrays of another namespace ``xp``, the same
    sums over the coordinates, in their order, in ``xp`` (in ``X``'s dtype)."""
    if xp is not np:
        out = xp.zeros((X.shape[0], Z.shape[0]), dtype=X.dtype, device=_device(X))
        for k in range(X.shape[1]):
            t = X[:, k:k + 1] - xp.permute_dims(Z[:, k:k + 1], (1, 0))
            out = out + (xp.abs(t) if which == "abs" else t * t)
        return out
    n, m = X.shape[0], Z.shape[0]
    out = np.empty((n, m))
    if out.size == 0:
        return out
    parallel = parallel_pays(n * m * X.shape[1], PARALLEL_DISTANCE_WORK)
    kernel = getattr(_distances, f"{which}_dists" + ("" if parallel else "_serial"))
    kernel(np.ascontiguousarray(X, dtype=np.float64), np.ascontiguousarray(Z.T, dtype=np.float64),
           out)
    return out


def _sq_dists(X, Z, xp=np):
    """Squared Euclidean distances ``|x_i - z_j|^2`` without cancellation.

    The expansion ``|x|^2 + |z|^2 - 2 x.z`` loses all digits for nearby
    points, so the differences are formed explicitly, each sum in the order of the
    coordinates (:func:`qmc_orff._distances.sq_dists`).
    """
    return _dists(X, Z, "sq", xp)


def _abs_dists(X, Z, xp=np):
    """L1 distances ``|x_i - z_j|_1`` (:func:`qmc_orff._distances.abs_dists`)."""
    return _dists(X, Z, "abs", xp)


def check_psd_matrix(A, name="A", *, rtol=1e-10):
    """Return ``A`` as a symmetric positive semi-definite float64 ``(p, p)`` array.

    Symmetry is checked to ``rtol * max|A|``; an eigenvalue below
    ``-rtol * max(eigenvalue)`` is an error.  The matrix returned is the
    symmetrised ``(A + A^T) / 2``.
    """
    A = as_float_array(A, name, ndim=2)
    if A.shape[0] != A.shape[1] or A.shape[0] < 1:
        raise ValueError(f"'{name}' must be a square (p, p) matrix; got shape {A.shape}.")
    scale = float(np.max(np.abs(A))) if A.size else 0.0
    if scale == 0.0:
        raise ValueError(f"'{name}' must be positive semi-definite and nonzero; got the zero matrix.")
    with np.errstate(over="ignore"):  # entries near the float64 maximum: inf, asymmetric
        asymmetry = float(np.max(np.abs(A - A.T)))
        S = 0.5 * (A + A.T)
    if asymmetry > rtol * scale:
        raise ValueError(f"'{name}' must be symmetric; got max |A - A^T| = {asymmetry!r}.")
    if not np.all(np.isfinite(S)):  # A + A^T overflowed: halve first (exact but subnormals)
        S = 0.5 * A + 0.5 * A.T
    A = S
    lam = np.linalg.eigvalsh(A)
    if lam[0] < -rtol * max(lam[-1], 0.0) * A.shape[0] or lam[-1] <= 0:
        raise ValueError(f"'{name}' must be positive semi-definite; got smallest eigenvalue "
                         f"{float(lam[0])!r}.")
    return np.ascontiguousarray(A)


# --------------------------------------------------------------------------- evaluation
class _PairFunction:
    """Evaluation shared by the scalar and the operator-valued kernels: the checks, then
    the subclass's ``_evaluate(X, Z, xp)`` on validated float arrays of the namespace ``xp``
    (float64 NumPy arrays and ``xp = numpy`` from :meth:`__call__`)."""

    _what = "values"

    def _check_d(self, d):
        """Hook: raise ValueError if inputs of dimension ``d`` are not allowed."""

    def __call__(self, X, Z=None):
        """Kernel values ``k(x_i, z_j)``: the Gram matrix of a scalar kernel.

        Parameters
        ----------
        X : array_like of shape (n, d)
        Z : array_like of shape (m, d), default=None
            ``None`` means ``Z = X``.

        Returns
        -------
        ndarray of shape (n, m), or (n, m, p, p) for an operator-valued kernel
        """
        return self._values_in(*_check_pair(X, Z), np)

    def _values_in(self, X, Z, xp):
        """The values for the validated float arrays ``X`` (n, d) and ``Z`` (m, d) of the
        namespace ``xp``, computed in ``xp`` on their device and in their dtype (NumPy: the
        bits of :meth:`__call__`).  The Gaussian kernels are written over ``xp``; the others
        (Matern, skewed chi-squared) take NumPy arrays only."""
        xp = _namespace(xp)
        self._check_d(X.shape[1])
        with np.errstate(all="ignore"):   # over/underflow is checked on the result
            V = self._evaluate(X, Z, xp)
        return check_finite_output(V, f"{self!r}'s {self._what}", _EXTREME, xp=xp)
