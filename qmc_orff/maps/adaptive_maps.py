"""``sequence="adaptive"`` of the feature maps: frequencies designed on the training rows."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._params import _resolve_seed


def _is_adaptive(sequence):
    return isinstance(sequence, str) and sequence == "adaptive"


def _design_options(options, forbidden):
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"'design_options' must be a dict or None; got {type(options).__name__}.")
    bad = sorted(set(options) & set(forbidden))
    if bad:
        raise ValueError(f"'design_options' must not set {', '.join(map(repr, bad))}: they are "
                         "parameters of the feature map itself.")
    return dict(options)


def _check_pairs(X):
    """The designs fit the kernel on pairs of rows: refuse one row in scikit-learn's words."""
    if X.shape[0] < 2:
        raise ValueError("sequence='adaptive' designs the frequencies on pairs of rows of 'X' "
                         f"and needs at least 2 samples; got n_samples={X.shape[0]}.")


def _adaptive_frequencies(est, kernel, X, sigma, seed):
    """``sequence="adaptive"``: design the frequencies on ``X`` (:func:`qmc_orff.adaptive_sequence`)."""
    from ..designs.adaptive import adaptive_sequence

    if kernel not in ("gaussian", "laplacian", "matern"):
        raise ValueError(f"sequence='adaptive' needs kernel 'gaussian', 'laplacian' or 'matern'; "
                         f"got {kernel!r}.")
    if est.n_components is None:
        raise ValueError("'n_components' must be an integer for sequence='adaptive'; got None.")
    _check_pairs(X)
    opts = _design_options(est.design_options, ("X", "s", "kernel", "sigma", "nu", "seed"))
    opts.setdefault("init", "orf" if kernel != "laplacian" else "mc")
    opts.setdefault("progress", bool(getattr(est, "verbose", 0)))
    X = X.toarray() if sp.issparse(X) else X  # the design works on dense rows
    seq = adaptive_sequence(np.asarray(X, dtype=np.float64), est.n_components, kernel=kernel,
                            sigma=sigma, nu=est.nu, seed=seed, **opts)
    sigma = seq.meta["sigma"]
    return seq.frequencies(sigma), seq.effective_weights, seq


def _adaptive_operator_frequencies(est, kernel, measure, X, sigma, A):
    """ORFF ``sequence="adaptive"``: :func:`qmc_orff.adaptive_operator_sequence` on ``X``."""
    from ..designs.adaptive import adaptive_operator_sequence

    if measure == "bounded":
        raise ValueError("sequence='adaptive' needs measure='spectral' or 'trace'; got 'bounded'.")
    if np.ndim(sigma) != 0:
        raise ValueError("'sigma' must be a scalar for sequence='adaptive'; got an array.")
    if est.n_components is None:
        raise ValueError("'n_components' must be an integer for sequence='adaptive'; got None.")
    _check_pairs(X)
    opts = _design_options(est.design_options, ("X", "s", "kernel", "sigma", "A", "measure", "seed"))
    X = X.toarray() if sp.issparse(X) else X  # the design works on dense rows
    opts.setdefault("progress", bool(getattr(est, "verbose", 0)))
    seq = adaptive_operator_sequence(X, est.n_components, kernel=kernel, sigma=sigma, A=A,
                                     measure=measure,
                                     seed=_resolve_seed(est.seed, est.random_state), **opts)
    return seq.frequencies(sigma), seq.effective_weights, seq
