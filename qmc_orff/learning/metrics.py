"""Quality of a fitted feature map: its Gram error on data.

Users choose a feature map for its accuracy on *their* data, so the measure
is the relative error of the approximate Gram matrix against the exact
kernel, on a sample of points (pass held-out points, never the points a
design was fitted on).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._validation import as_float_array, as_generator, check_choice, check_int
from .. import _array_api as _xp
from ..threads import _blas_limited

if TYPE_CHECKING:  # names used in type hints only
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["gram_error"]

_NORMS = ("fro", "spectral")


def _sample_rows(X, n_samples, seed, xp=None):
    """Rows of ``X`` (all, or ``n_samples`` drawn without replacement, in order); ``xp``: ``X``
    is an array of that namespace (the indices are drawn on the host)."""
    n = X.shape[0]
    if n <= n_samples:
        return X
    idx = np.sort(as_generator(seed).choice(n, size=n_samples, replace=False))
    if xp is None:
        return X[idx]
    return xp.take(X, xp.asarray(idx, device=_xp.device(X)), axis=0)


def _gram_of_features(Z, n):
    """``Z Z^T`` as a float64 NumPy array; for features of another namespace (array API
    dispatch), formed in that namespace (on the device) in its widest float dtype."""
    ns = _xp.foreign(Z)
    if ns is not None and Z.ndim == 2 and Z.shape[0] == n:
        Z = ns[0].astype(Z, _xp.float_dtype(*ns))
        return np.asarray(_xp.to_numpy(Z @ Z.T), dtype=np.float64)
    Z = np.asarray(Z if ns is None else _xp.to_numpy(Z), dtype=np.float64)
    if Z.ndim != 2 or Z.shape[0] != n:
        raise ValueError(f"'feature_map.transform' must return an array of shape (n, D); "
                         f"got shape {Z.shape} for n={n}.")
    return Z @ Z.T


def _exact_and_approximate(feature_map, X, kernel, X_host=None):
    """Exact and approximate Gram matrices of the rows of ``X`` (float64 NumPy arrays, same
    shape); ``X_host``: ``X`` on the host when ``X`` is of another namespace (the exact kernels
    are NumPy functions)."""
    X_host = X if X_host is None else X_host
    if kernel is None:
        kernel = getattr(feature_map, "kernel_", None)
        if kernel is None:
            raise TypeError(
                "'kernel' must be given for a feature map without a 'kernel_' attribute "
                f"(got {type(feature_map).__name__}); pass e.g. kernel=qmc_orff.kernels.Gaussian(sigma)."
            )
    if not callable(kernel):
        raise TypeError(f"'kernel' must be a callable kernel K(X); got {kernel!r}.")
    if hasattr(feature_map, "approximate_kernel") and hasattr(kernel, "block"):
        # operator-valued: the (n p, n p) block matrices
        approx = feature_map.approximate_kernel(X, block=True)
        if X_host is not X:
            approx = np.asarray(_xp.to_numpy(approx), dtype=np.float64)
        exact = kernel.block(X_host)
    else:
        if not hasattr(feature_map, "transform"):
            raise TypeError(f"'feature_map' must have a transform method; got {feature_map!r}.")
        approx = _gram_of_features(feature_map.transform(X), X.shape[0])
        exact = np.asarray(kernel(X_host), dtype=np.float64)
    if exact.shape != approx.shape:
        raise ValueError(f"the exact kernel's Gram matrix has shape {exact.shape} but the map's "
                         f"has shape {approx.shape}.")
    return exact, approx


def _checked(X):
    if X.shape[0] < 2 or X.shape[1] < 1:
        raise ValueError(f"'X' must have at least 2 rows and 1 column; got shape "
                         f"{tuple(X.shape)}.")
    return X


def _on_device(feature_map, X, n_samples, seed, kernel, ns):
    """``(exact, approx)`` of :func:`gram_error` for ``X`` of namespace ``ns = (xp, device)``."""
    from sklearn.utils.validation import check_array

    xp, device = ns
    X = _checked(check_array(X, dtype=_xp.input_dtypes(xp, device), input_name="X"))
    Xs = _sample_rows(X, n_samples, seed, xp)
    Xs_host = np.asarray(_xp.to_numpy(Xs), dtype=np.float64)
    try:
        return _exact_and_approximate(feature_map, Xs, kernel, Xs_host)
    except ValueError as exc:  # a map fitted on NumPy arrays: measured on the host copy
        if "must use the same namespace" not in str(exc):
            raise
    return _exact_and_approximate(feature_map, Xs_host, kernel)


def gram_error(feature_map: Any, X: ArrayLike, *, n_samples: int = 1000, norm: str = "fro",
               kernel: Any = None, seed: Any = 0) -> float:
    r"""Relative error of a fitted feature map's Gram matrix on (a sample of) ``X``.

    :math:`\lVert K - \tilde K\rVert / \lVert K\rVert` with :math:`K` the exact kernel's
    Gram matrix of the sampled rows and :math:`\tilde K` the map's: :math:`Z Z^\top` with
    :math:`Z` = ``transform(X)`` for a scalar map, :math:`\Phi(X)^\top \Phi(X)` as the
    :math:`(np, np)` block matrix for an :class:`~qmc_orff.ORFF` map.

    Parameters
    ----------
    feature_map : fitted transformer
        A :class:`~qmc_orff.FourierFeatures` or :class:`~qmc_orff.ORFF` map,
        or any transformer whose ``transform(X) @ transform(X).T``
        approximates ``kernel`` (scikit-learn's ``RBFSampler``, ``Nystroem``).
    X : array_like of shape (n, d)
        Points to measure on: held-out points, not those a design was fitted on.  Under
        scikit-learn's ``array_api_dispatch``, an array of another namespace (torch, CuPy,
        ...) is sampled and transformed where it lives, the map's Gram matrix formed there;
        the sampled rows and that matrix are then copied to the host, where the exact kernel
        and the norms are computed (a map fitted on NumPy arrays measures a host copy).
    n_samples : int, default=1000
        At most this many rows of ``X`` are used (drawn without replacement; of a NumPy
        array only they are converted and checked, so ``X`` may be of any size);
        the cost is ``O(n_samples^2 D)`` for the product and ``O(n_samples^3)``
        for the spectral norm.
    norm : {"fro", "spectral"}, default="fro"
        Frobenius norm, or the spectral norm (largest absolute eigenvalue).
    kernel : callable, default=None
        The exact kernel ``K(X) -> (n, n)`` (or an operator-valued kernel with
        ``block``); ``None`` takes ``feature_map.kernel_``.
    seed : None, int, SeedSequence or Generator, default=0
        Randomness of the row sample (unused when :math:`n \le` ``n_samples``).  The fixed
        seed 0 by default: two calls on the same ``X`` measure the same rows, so comparing
        two maps compares them on one sample; ``None`` draws fresh rows on every call.

    Returns
    -------
    float
        The relative error (0 for an exact map).

    See Also
    --------
    FourierFeatures, ORFF : the maps it measures.
    DataDiscrepancy : the same Gram error as a differentiable objective of the frequencies.

    Examples
    --------
    >>> import numpy as np
    >>> from qmc_orff import FourierFeatures, gram_error
    >>> X = np.random.default_rng(0).normal(size=(200, 3))
    >>> ff = FourierFeatures(sigma=2.0, n_components=256, sequence="orf", seed=0).fit(X)
    >>> gram_error(ff, X) < 0.1
    True
    """
    norm = check_choice(norm, "norm", _NORMS)
    n_samples = check_int(n_samples, "n_samples", minimum=2)
    ns = _xp.foreign(X)
    with _blas_limited(1):  # one BLAS thread: the same bits whatever the thread count
        if ns is not None:
            exact, approx = _on_device(feature_map, X, n_samples, seed, kernel, ns)
        else:
            if isinstance(X, np.ndarray) and X.ndim == 2:  # the sample converted, not all
                X = _sample_rows(X, n_samples, seed)      # of X (of any size)
            Xs = _sample_rows(_checked(as_float_array(X, "X", ndim=2)), n_samples, seed)
            exact, approx = _exact_and_approximate(feature_map, Xs, kernel)
        approx -= exact
        if norm == "fro":
            num, den = np.linalg.norm(approx), np.linalg.norm(exact)
        else:
            num = np.max(np.abs(np.linalg.eigvalsh(approx)))
            den = np.max(np.abs(np.linalg.eigvalsh(exact)))
    if not np.isfinite(num):
        raise ValueError("the feature map returned non-finite features on 'X'.")
    return float(num / den)
