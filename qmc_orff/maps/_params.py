"""Parameter helpers shared by the feature maps."""
from __future__ import annotations

import math
import numpy as np


def _scalar_param(value, name):
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
        "n_components": [Integral, None],
        "sequence": _sequence_constraints(sources),
        "seed": _seed_constraints(legacy=False),
        "random_state": _seed_constraints(legacy=True),
        "scramble": ["boolean", StrOptions({"auto", "deterministic"})],
        "check": [StrOptions({"warn", "raise", "off"})],
        "design_options": [dict, None],
        "verbose": ["verbose"],
    }
