"""Parameter helpers shared by the feature maps."""
from __future__ import annotations

import numpy as np


def _resolve_seed(seed, random_state):
    """scikit-learn's ``random_state`` when given, else ``seed``.

    ``random_state`` takes precedence, as scikit-learn's tools expect (its
    ``check_estimator`` sets ``random_state`` on any estimator that has one).
    A ``numpy.random.RandomState`` (scikit-learn's legacy convention) is drawn
    from once, 128 bits that seed a ``SeedSequence``: it advances, as it would
    in a scikit-learn estimator, and the same state gives the same map.
    """
    if random_state is None:
        return seed
    if isinstance(random_state, np.random.RandomState):
        return np.random.SeedSequence(
            [int(v) for v in random_state.randint(0, 2 ** 32, size=4, dtype=np.uint64)])
    return random_state


# --------------------------------------------------------------------------- scikit-learn's constraints
# The types of the maps' parameters, checked by scikit-learn's ``_validate_params`` at the start
# of ``fit`` (an ``InvalidParameterError``, a ValueError and a TypeError, naming the parameter).
# Only types: limits (positive sigma, n_components >= 1, ...) are checked afterwards by the
# library's own checks, whose messages say how to fix them.
def _seed_constraints(legacy):
    from numbers import Integral

    kinds = [None, Integral, np.random.SeedSequence, np.random.BitGenerator,
             np.random.Generator, "array-like"]
    return kinds + [np.random.RandomState] if legacy else kinds


def _sequence_constraints(names):
    from scipy.stats import qmc
    from sklearn.utils._param_validation import StrOptions

    from ..sequence import Sequence

    return [StrOptions(set(names)), Sequence, qmc.QMCEngine, "array-like"]


def _common_constraints(sources):
    """Constraints shared by :class:`FourierFeatures` and :class:`ORFF`."""
    from numbers import Integral, Real

    from sklearn.utils._param_validation import StrOptions

    return {
        "sigma": [Real, "array-like", None],
        "gamma": [Real, "array-like", StrOptions({"scale"}), None],
        "n_components": [Integral, None],
        "sequence": _sequence_constraints(sources),
        "seed": _seed_constraints(legacy=False),
        "random_state": _seed_constraints(legacy=True),
        "scramble": ["boolean", StrOptions({"auto", "deterministic"})],
        "check": [StrOptions({"warn", "raise", "off"})],
        "design_options": [dict, None],
        "verbose": ["verbose"],
    }


def _gamma_scale(X, sample_weight=None):
    """RBFSampler's ``gamma="scale"``: ``1 / (d X.var())`` (the variance of all the entries
    of ``X``, dense or sparse), or 1.0 when that variance is 0.

    With ``sample_weight`` (shape (n,)), each row's entries count with its weight, so that
    integer weights and repeated rows give the same ``gamma`` (scikit-learn's sample-weight
    equivalence)."""
    import scipy.sparse as sp

    if sample_weight is None:
        if sp.issparse(X):
            var = float(X.multiply(X).mean() - X.mean() ** 2)
        else:
            var = float(np.var(X, dtype=np.float64))
    else:
        w = np.asarray(sample_weight, dtype=np.float64)
        total = float(np.sum(w)) * X.shape[1]
        if sp.issparse(X):
            mean = float(np.sum(X.T @ w)) / total
            var = float(np.sum(X.multiply(X).T @ w)) / total - mean ** 2
        else:
            mean = float(np.sum(w @ X)) / total
            var = float(w @ np.sum((X - mean) ** 2, axis=1, dtype=np.float64)) / total
    return 1.0 / (X.shape[1] * var) if var > 0 and np.isfinite(var) else 1.0


def _sigma_from_gamma(kernel, sigma, gamma, X=None, sample_weight=None):
    """The bandwidth from ``sigma`` or RBFSampler's ``gamma = 1 / (2 sigma^2)`` (not both);
    ``gamma="scale"`` is ``1 / (d X.var())`` on the training rows ``X`` (weighted by
    ``sample_weight`` when given)."""
    if gamma is None:
        return 1.0 if sigma is None else sigma
    if sigma is not None:
        raise ValueError(f"give 'sigma' or 'gamma' (gamma = 1 / (2 sigma^2)), not both; got "
                         f"sigma={sigma!r}, gamma={gamma!r}.")
    if kernel != "gaussian":
        raise ValueError(f"'gamma' applies to the Gaussian kernel (kernel='gaussian' or 'rbf') "
                         f"only; use 'sigma' for kernel={kernel!r}.")
    if isinstance(gamma, str) and gamma == "scale":
        gamma = _gamma_scale(X, sample_weight)
    if isinstance(gamma, (bool, np.bool_)):
        raise ValueError(f"'gamma' must be a positive real number or array; got {gamma!r}.")
    try:
        g = np.asarray(gamma, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"'gamma' must be a positive real number or array; got {gamma!r}.") \
            from None
    if g.ndim > 1 or g.size == 0 or not np.all(np.isfinite(g)) or not np.all(g > 0):
        raise ValueError(f"'gamma' must be positive and finite (a scalar or one per "
                         f"coordinate); got {gamma!r}.")
    sig = 1.0 / np.sqrt(2.0 * g)
    return float(sig) if g.ndim == 0 else sig


def _check_second_rows(estimator, Z, name="Z"):
    """Refuse a second set of rows ``Z`` (``approximate_kernel(X, Z)``) with messages that name
    it: scikit-learn's ``validate_data`` calls every array ``X``.  Arrays of another namespace
    (torch, CuPy) are left to the map's own path (no host copy here)."""
    from sklearn.utils.validation import check_array

    from .. import _array_api as _xp

    if _xp.foreign(Z) is not None:
        return
    Z = check_array(Z, input_name=name, accept_sparse=("csr", "csc"), dtype="numeric")
    n = getattr(estimator, "n_features_in_", None)
    if n is not None and Z.shape[1] != n:
        raise ValueError(f"{name} has {Z.shape[1]} features, but {type(estimator).__name__} is "
                         f"expecting {n} features as input.")
