"""The seedless default map (the best of fixed draws of the ``"auto"`` source) and the fit-time
check of a supplied sequence, with the fixed row samples and Gram errors both rank maps by."""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from .._cos_sin import cos_sin_features
from .._validation import MAX_ELEMENTS, check_choice, check_phases
from ..kernels import OPERATOR_KERNELS, Gaussian
from ..sources._orthogonal import ORF_QMC_SEED
from ..sources.frequencies import _auto_source, make_frequencies
from ..threads import _blas_limited, _row_workers, get_num_threads
from ._params import _resolve_seed


# --------------------------------------------------------------------------- fit-time check
_CHECKS = ("warn", "raise", "off")
#: The fit-time check of a supplied sequence samples at most this many rows of ``X``
#: (at most ``CHECK_BLOCK_ROWS // p`` for an operator-valued map with ``p`` outputs).
CHECK_SAMPLES = 128
CHECK_BLOCK_ROWS = 512
#: ... and compares with the mean of this many seeded reference maps ...
CHECK_REFERENCE_SEEDS = 3
#: ... flagging the sequence when its Gram error exceeds the reference's by this factor
#: (the margin absorbs the sampling noise of a 256-row estimate; an ORF draw passed as an
#: array stays below it).
CHECK_MARGIN = 1.1


def _sample_indices(n, m):
    """The rows :func:`_sample_rows` takes from ``n`` rows: all, or ``m`` fixed ones (sorted)."""
    if n <= m:
        return np.arange(n)
    return np.sort(np.random.default_rng(0).choice(n, m, replace=False))


def _sample_rows(X, m):
    """A fixed sample (seed 0, sorted) of at most ``m`` rows of ``X``, dense float64."""
    if X.shape[0] > m:
        X = X[_sample_indices(X.shape[0], m)]
    return np.ascontiguousarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)


def _shuffled_sample(X, m):
    """:func:`_sample_rows` in a fixed random order (seed 1): its two halves are random
    halves whatever the order of the rows of ``X`` (the cross-block ranking of the
    default maps' draws)."""
    Xs = _sample_rows(X, m)
    return Xs[np.random.default_rng(1).permutation(Xs.shape[0])]


def _weighted_sample(X, m, sample_weight=None):
    """The rows and weights the seedless ORFF default ranks its draws on.

    The fixed sample of :func:`_sample_rows` (with its ``sample_weight``), its zero-weight
    rows dropped and equal rows merged into one of the summed weight, in a canonical order
    (sorted, then a fixed permutation, seed 1): rows repeated ``k`` times and one row of
    weight ``k`` give the same sample, whatever the order of the rows of ``X`` (when
    ``X`` has at most ``m`` rows), so the map sees weights as weights, not repeated rows.
    """
    idx = _sample_indices(X.shape[0], m)
    Xs = _sample_rows(X, m)
    w = np.ones(Xs.shape[0]) if sample_weight is None else \
        np.asarray(sample_weight, dtype=np.float64)[idx]
    Xs, w = Xs[w > 0], w[w > 0]
    U, inverse = np.unique(Xs, axis=0, return_inverse=True)
    wu = np.bincount(inverse.reshape(-1), weights=w, minlength=U.shape[0])
    perm = np.random.default_rng(1).permutation(U.shape[0])
    return np.ascontiguousarray(U[perm]), wu[perm]


# --------------------------------------------------------------------------- default bandwidth
#: ``sigma=None, gamma=None``: the median heuristic on a fixed sample of at most this many rows
#: of ``X`` (the rows of :func:`_sample_rows`; the seedless default's selection of
#: :class:`FourierFeatures` reads the same ones).
BANDWIDTH_SAMPLES = 512
#: Kernels whose default bandwidth is the median 1-norm distance (product kernels, whose
#: exponent is a sum over the coordinates), the others taking the Euclidean one.
_ONE_NORM = ("laplacian", "skewed_chi2")


def operator_default_bandwidth(X, kernel, sample_weight=None):
    """:func:`median_bandwidth` (Gaussian) of the rows ``X`` for the operator-valued kernel
    ``kernel`` (a key of :data:`qmc_orff.kernels.OPERATOR_KERNELS`), inside the kernel's
    ``sigma_range``: else a `ValueError` naming ``'X'``, whose scale gave it (the user passed
    no ``sigma``)."""
    sigma = median_bandwidth(X, "gaussian", sample_weight)
    lo, hi = getattr(OPERATOR_KERNELS[kernel], "sigma_range", (0.0, math.inf))
    if not lo < sigma < hi:
        interval = f"({lo:g}, {hi:g})".replace("e+", "e")
        raise ValueError(f"'X' must have a scale whose default bandwidth (the median heuristic) "
                         f"lies in {interval} for kernel={kernel!r}; got sigma={sigma!r} from "
                         "the data: rescale X or pass 'sigma'.")
    return sigma


def median_bandwidth(X, kernel="gaussian", sample_weight=None):
    """The default bandwidth: the median distance between the rows of a fixed sample of ``X``.

    The median heuristic (Jaakkola et al. 1999; Garreau et al. 2017) on at most
    :data:`BANDWIDTH_SAMPLES` fixed rows of ``X`` (:func:`_weighted_sample`): the Euclidean
    distance, or the 1-norm for the Laplacian and skewed chi-squared kernels (whose exponent
    is ``|x - z|_1 / sigma``-like), so that ``k(x, z)`` is ``exp(-1/2)`` (Gaussian) or
    ``exp(-1)`` (Laplacian) at the median pair.  With ``sample_weight``, the median of the
    pair distances weighted by ``w_i w_j`` (and ``w_i (w_i - 1)`` at distance 0 for a row
    with itself, the pairs among ``w_i`` repeated copies): integer weights and repeated
    rows give the same bandwidth.  A median of 0 (most sampled pairs equal) falls back to
    the median of the positive distances, and 1.0 when all sampled rows are equal.

    Scale-equivariant: the distances are computed on the sample divided by the power of
    two ``2**e`` that brings its largest spread (``max - min`` of a column) into
    [0.5, 1), and the median multiplied back.  A power of two scales every difference,
    square, sum and square root exactly (outside the subnormal range), so the bits are
    those of the unscaled computation wherever that neither overflows nor underflows,
    and ``X * 2**k`` gives exactly ``2**k`` times the bandwidth of ``X`` at any scale at
    which ``X`` is representable.  A `ValueError` naming ``X`` where the bandwidth itself
    is not representable (the median distance overflows float64 or is below its smallest
    normal number).
    """
    from scipy.spatial.distance import pdist

    U, w = _weighted_sample(X, BANDWIDTH_SAMPLES, sample_weight)
    m = U.shape[0]
    if m < 2:  # the sampled rows are all equal (U holds distinct rows)
        return 1.0
    # halved first: the spread of columns near +-1.8e308 overflows
    e = math.frexp(float(np.max(np.ptp(np.ldexp(U, -1), axis=0))))[1] + 1
    U = np.ldexp(U, -e)
    dist = pdist(U, "cityblock" if kernel in _ONE_NORM else "euclidean")
    i, j = np.triu_indices(m, 1)
    weight = w[i] * w[j]
    dist = np.concatenate([np.zeros(m), dist])  # a row with its own copies
    weight = np.concatenate([np.maximum(w * (w - 1.0), 0.0) / 2.0, weight])
    pos = dist > 0
    med = _weighted_median(dist, weight)
    if not med > 0 and np.any(pos):
        med = _weighted_median(dist[pos], weight[pos])
    with np.errstate(over="ignore", under="ignore"):
        sigma = float(np.ldexp(med, e)) if med > 0 else 0.0
    if not (math.isfinite(sigma) and sigma >= np.finfo(np.float64).tiny):
        raise ValueError(
            "the default bandwidth (the median distance between the rows of 'X') is not "
            f"representable in float64 for these rows (columns spread over less than 2**{e}, "
            f"median distance {sigma!r}): rescale 'X' (e.g. "
            "sklearn.preprocessing.StandardScaler) or pass sigma= explicitly.")
    return sigma


def _weighted_median(values, weights):
    """The midpoint of the lower and upper weighted medians (``np.median`` for unit weights)."""
    order = np.argsort(values, kind="stable")
    v, cum = values[order], np.cumsum(weights[order])
    half = 0.5 * cum[-1]
    lo = v[min(int(np.searchsorted(cum, half, side="left")), v.size - 1)]
    hi = v[min(int(np.searchsorted(cum, half, side="right")), v.size - 1)]
    return float(0.5 * (lo + hi))


def _selection_rows(p):
    """Rows of ``X`` the seedless ORFF default ranks its draws on (``p`` outputs)."""
    return max(2, CHECK_BLOCK_ROWS // max(1, p))


def _check_rows(p):
    """Rows of ``X`` the fit-time check samples for a map with ``p`` outputs."""
    return min(CHECK_SAMPLES, _selection_rows(p))


def _orff_fit_rows(orff, p):
    """How many rows of ``X`` fitting ``orff`` (``p`` outputs) reads: the fixed sample of its
    seedless default's selection or of its fit-time check, else 1 (the column count only).

    A fit on those rows (:func:`_sample_rows` of ``X``) gives the same map as a fit on ``X``:
    how :class:`~qmc_orff.ORFFRidge` fits the map to a Dask array without computing it.
    """
    if orff.sigma is None and orff.gamma is None:  # the default bandwidth: ORFF.fit reads
        return BANDWIDTH_SAMPLES                     # these rows only (sample_bandwidth_rows)
    sequence = orff.sequence
    if isinstance(sequence, str):
        seeded = _resolve_seed(orff.seed, orff.random_state) is not None
        return _selection_rows(p) if sequence == "auto" and not seeded else 1
    return 1 if orff.check == "off" else _check_rows(p)


def _gram_errors(Y, K, maps, cross=False):
    """Relative Gram errors ``||Z Z^T - K||_F / ||K||_F`` of several scalar maps on the same rows.

    ``Y`` (m, d) rows (after the map's input transform), ``K`` (m, m) their exact Gram
    matrix, ``maps`` a list of ``(W, xi)``.  One feature pass for all maps; each map's
    Gram matrix ``C C^T + S S^T`` from its cosine and sine columns.  ``cross=True``: the
    error of the block between the first ``h = m // 2`` rows and the others only
    (``Z_A Z_B^T`` against ``K[:h, h:]``): ``h (m - h)`` distinct pairs, half of all, for a
    quarter of the products (the diagonal, ``sum(xi)`` for every map, is left out; a way to
    rank maps with normalised weights, not a Gram error).  Single-threaded BLAS
    (see :func:`qmc_orff._cos_sin.cos_sin_features`); the maps are shared among
    the library's threads, each error computed by the same operations whatever their number.
    Where the kernel block underflows to 0 (rows many bandwidths apart) the absolute errors
    ``||Z_A Z_B^T - K_AB||_F`` are returned: the same ranking, no division by 0.
    """
    W = np.concatenate([w for w, _ in maps])
    scale = np.sqrt(np.concatenate([xi for _, xi in maps]))
    total = W.shape[0]
    Z = cos_sin_features(Y, W, scale)
    h = Y.shape[0] // 2 if cross else Y.shape[0]
    A, B = (slice(0, h), slice(h, None)) if cross else (slice(None), slice(None))
    K = K[A, B]
    nK = _frobenius(K)
    offsets = np.cumsum([0] + [w.shape[0] for w, _ in maps])

    def error(c):
        C = Z[:, offsets[c]:offsets[c + 1]]
        S = Z[:, total + offsets[c]:total + offsets[c + 1]]
        G = C[A] @ C[B].T
        G += S[A] @ S[B].T
        G -= K
        return _relative(_frobenius(G), nK)

    n_threads = min(get_num_threads(), len(maps))
    with _blas_limited(1):
        if n_threads == 1:
            return [error(c) for c in range(len(maps))]
        return list(_row_workers().map(error, range(len(maps))))


def _frobenius(A):
    """``||A||_F`` by NumPy's pairwise sum of the squares: the same bits whatever the thread
    counts (``np.linalg.norm`` ravels and calls BLAS ``dot``, whose threaded reduction --
    where no BLAS thread limit applies -- may round differently)."""
    return math.sqrt(float(np.sum(np.square(A))))


def _relative(err, nK):
    """``err / nK``, or ``err`` where the exact block ``K`` is 0 (it underflowed: rows more
    than about 38 bandwidths apart): dividing every candidate by the same ``nK`` leaves the
    ranking unchanged, so the absolute error ranks them as well."""
    return err / nK if nK > 0 else err


def _median_distance(XA, XB):
    """Median Euclidean distance between the rows of ``XA`` and those of ``XB``."""
    with np.errstate(over="ignore", invalid="ignore"):
        D2 = (np.einsum("ij,ij->i", XA, XA)[:, None] + np.einsum("ij,ij->i", XB, XB)[None, :]
              - 2.0 * (XA @ XB.T))
    return float(np.sqrt(max(float(np.median(D2)), 0.0)))


def _warn_vanishing_kernel(K_AB, XA, XB, sigma, name="sigma"):
    """Warn when the exact kernel is numerically 0 (below 1e-12) between every pair of
    sampled rows: the bandwidth is far below the data's scale, and every random-feature map
    then approximates the kernel on the diagonal only (``Z Z^T ~ I``)."""
    import warnings

    if K_AB.size == 0 or float(np.max(np.abs(K_AB))) >= 1e-12:
        return
    dist = _median_distance(XA, XB)
    sig = np.asarray(sigma, dtype=np.float64)
    sig_text = f"{float(sig):.3g}" if sig.ndim == 0 else f"{float(np.max(sig)):.3g} (max)"
    warnings.warn(
        f"the kernel with {name}={sig_text} is numerically 0 between every pair of the "
        f"{XA.shape[0] + XB.shape[0]} sampled rows of X (median distance {dist:.3g}): "
        "the bandwidth is far below the data's scale, and any random-feature map then "
        "approximates the kernel only on its diagonal. Standardise X (e.g. "
        f"sklearn.preprocessing.StandardScaler) or pass {name}= near the median distance "
        f"(e.g. {name}={dist:.3g}, the median heuristic).", UserWarning, stacklevel=4)


def _check_supplied_sequence(fitted, X, reference, p=1, Y=None):
    """The fit-time check of :class:`FourierFeatures` / :class:`ORFF` (``check`` != "off").

    ``fitted`` was built from a user-supplied Sequence or array; compare its Gram error on a
    sample of the rows of ``X`` with that of the same map drawn from ``reference``
    (``"orf"`` where defined, else ``"mc"``), mean of ``CHECK_REFERENCE_SEEDS`` seeds.
    ``Y``: the rows the scalar map reads (``X`` after its input transform; default ``X``).
    Returns ``(error, reference_error, n_rows)``; warns or raises when the sequence is worse.
    """
    import warnings

    check = check_choice(fitted.check, "check", _CHECKS)
    if check == "off" or X.shape[0] < 2:
        return None
    m = min(X.shape[0], _check_rows(p))
    Xs = _sample_rows(X, m)  # the same rows on every fit: reproducible verdicts
    s = fitted.frequencies_.shape[0]
    if hasattr(fitted, "approximate_kernel"):  # operator-valued: the (m p, m p) block Gram matrix
        from sklearn.base import clone

        with _blas_limited(1):
            K = fitted.kernel_.block(Xs)
            nK = _frobenius(K)
            errors = [_frobenius(fm.approximate_kernel(Xs, block=True) - K) / nK
                      for fm in [fitted] + [
                          clone(fitted).set_params(sequence=reference, n_components=s, seed=k,
                                                   random_state=None, check="off").fit(Xs)
                          for k in range(CHECK_REFERENCE_SEEDS)]]
    else:
        Ys = Xs if Y is None else _sample_rows(Y, m)
        kernel = fitted.kernel_
        with _blas_limited(1):  # small LAPACK/BLAS calls: one thread (see _gram_errors)
            maps = [(fitted.frequencies_, fitted.weights_)] + [
                make_frequencies(kernel.name, s, X.shape[1], sigma=fitted.sigma_,
                                 sequence=reference, seed=k, nu=fitted.nu)
                for k in range(CHECK_REFERENCE_SEEDS)]
            errors = _gram_errors(Ys, _exact_gram(kernel, Xs), maps)
    own = errors[0]
    ref_err = float(np.mean(errors[1:]))
    if own > CHECK_MARGIN * ref_err:
        msg = (f"the supplied 'sequence' gives a Gram error of {own:.3g} on {m} rows of X, worse "
               f"than {reference!r} frequencies of the same size ({ref_err:.3g}, mean of "
               f"{CHECK_REFERENCE_SEEDS} seeds): it was designed for other data (box, dimension "
               "or bandwidth). Use the default sequence, or pass check='off' to keep it silently.")
        msg += _unit_cube_hint(fitted.sequence)
        if check == "raise":
            raise ValueError(msg)
        warnings.warn(msg, UserWarning, stacklevel=4)  # past fit and its _fit_context
    return own, ref_err, m


def _unit_cube_hint(sequence):
    """A hint for an array of unit-cube points given as frequencies (all entries in [0, 1]:
    e.g. ``Sobol(d, scramble=False).random(s)``, whose rows are then frequencies, the
    first the zero frequency), else ``""``."""
    from scipy.stats import qmc

    from ..sequence import Sequence

    if isinstance(sequence, (str, Sequence, qmc.QMCEngine)):
        return ""
    U = np.asarray(sequence)
    if U.size == 0 or not np.issubdtype(U.dtype, np.number) or \
            not (np.min(U) >= 0.0 and np.max(U) <= 1.0):
        return ""
    return (" Its entries all lie in [0, 1]: an array is taken as unit-bandwidth frequencies, "
            "not unit-cube points; to map unit-cube points by the inverse CDF pass the engine "
            "itself (e.g. sequence=qmc_orff.Sobol(d, scramble=False), centred off the "
            "boundary).")


def _exact_gram(kernel, X):
    """The exact Gram matrix of the rows of ``X``; the Gaussian one by one BLAS product.

    ``|x|^2 + |z|^2 - 2 x.z`` loses digits for nearby points (the library's kernels form
    the differences instead), but the check and the selection compare errors of order
    1e-3..1: a relative error of 1e-12 in ``K`` does not matter, and ``O(m^2 d)``
    difference tensors would cost more than everything else at d in the hundreds.
    """
    if isinstance(kernel, Gaussian):
        Y = X / np.asarray(kernel.sigma, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            sq = np.einsum("ij,ij->i", Y, Y)
            D2 = sq[:, None] + sq[None, :] - 2.0 * (Y @ Y.T)
        if not np.all(np.isfinite(D2)):  # rows over 1e154 bandwidths out: the differences
            return np.asarray(kernel(X), dtype=np.float64)
        np.maximum(D2, 0.0, out=D2)
        np.fill_diagonal(D2, 0.0)
        return np.exp(-0.5 * D2)
    return np.asarray(kernel(X), dtype=np.float64)


# --------------------------------------------------------------------------- the default map
#: ``sequence="auto"`` without a seed: the number of fixed seeded draws of the rule's source
#: whose Gram errors on a sample of the training rows are compared (the lowest is kept).
DEFAULT_CANDIDATES = 8
#: ... on at most this many rows of ``X`` (a fixed sample: the same map on every fit).
DEFAULT_SAMPLES = 512
#: With very many components the rows scored are cut to keep one candidate's ``(m, 2 s)``
#: features within the size policy (``m <= 2**26 / s``); below this many rows the first
#: draw is kept unscored (``s > 2**22``: every draw's Gram error is then small anyway).
SELECTION_MIN_ROWS = 16


def _progress(verbose, name, k, error):
    """One line on stderr per candidate draw of the default selection when ``verbose``."""
    if verbose:
        import sys

        print(f"[{name}] default map: candidate {k + 1}/{DEFAULT_CANDIDATES}, "
              f"Gram error {error:.4g}", file=sys.stderr, flush=True)


def _select_default(kernel, n_components, X, exact, *, sigma, nu, verbose=0):
    """The default map's frequencies: the best of ``DEFAULT_CANDIDATES`` fixed draws.

    ``"auto"`` resolves to a randomisable source (``"orf-qmc"`` or scrambled Sobol');
    ``DEFAULT_CANDIDATES`` draws with the fixed seeds ``0..K-1`` are scored by their Gram
    error on a fixed sample of at most ``DEFAULT_SAMPLES`` rows of ``X`` (the block between
    two random halves of the sample: :func:`_gram_errors` with ``cross=True``) and the best
    is kept: deterministic given ``X``, no seed needed.  A single draw of orthogonal random
    features is within about +-15% of their mean error; the selection removes the bad
    draws (see ``benchmarks/bench_default_map.py``).  All candidates are scored in one pass
    when their features fit the 2**28-entry policy, else one at a time on at most
    ``2**26 / s`` rows (none below ``SELECTION_MIN_ROWS``: the first draw is kept).
    Where the kernel is numerically 0 between the sampled rows (a bandwidth far below the
    data's scale) a UserWarning gives the median distance.  Returns ``(None, None)`` when the
    rule is deterministic (Halton for the Laplacian and skewed chi-squared kernels) or
    ``X`` has fewer than 2 rows.
    """
    if n_components is None or X.shape[0] < 2:
        return None, None
    d = X.shape[1]
    source = _auto_source(kernel, "spectral", int(n_components), d)
    if source not in ("orf-qmc", "sobol"):
        return None, None
    s = int(n_components)
    Xs = _shuffled_sample(X, DEFAULT_SAMPLES)

    def draw(k):
        return make_frequencies(kernel, s, d, sigma=sigma, sequence="auto",
                                seed=ORF_QMC_SEED + k, nu=nu)

    with _blas_limited(1):  # small LAPACK/BLAS calls: one thread (see _gram_errors)
        first = draw(0)
        check_phases(Xs, first[0])  # 'X' too large: the error before any overflow
        if Xs.shape[0] * 2 * s * DEFAULT_CANDIDATES <= MAX_ELEMENTS:
            candidates = [first] + [draw(k) for k in range(1, DEFAULT_CANDIDATES)]
            K = _exact_gram(exact, Xs)
            errors = _gram_errors(Xs, K, candidates, cross=True)
            for k, e in enumerate(errors):
                _progress(verbose, "FourierFeatures", k, e)
            best = candidates[int(np.argmin(errors))]  # the first of equal errors, as before
        else:  # many components: one candidate at a time, on fewer rows (the size policy)
            Xs = Xs[:MAX_ELEMENTS // (4 * s)]
            if Xs.shape[0] < SELECTION_MIN_ROWS:  # too few to rank draws whose errors are
                return first                      # all small: the first, as on ties
            K = _exact_gram(exact, Xs)
            best, best_err = first, _gram_errors(Xs, K, [first], cross=True)[0]
            _progress(verbose, "FourierFeatures", 0, best_err)
            for k in range(1, DEFAULT_CANDIDATES):
                cand = draw(k)
                err = _gram_errors(Xs, K, [cand], cross=True)[0]
                _progress(verbose, "FourierFeatures", k, err)
                if err < best_err:  # the first of equal errors
                    best, best_err = cand, err
    h = Xs.shape[0] // 2
    _warn_vanishing_kernel(K[:h, h:], Xs[:h], Xs[h:], sigma)
    return best


def _select_default_operator(est, exact, X, factors, sigma, measure, sample_weight=None):
    """ORFF's default map without a seed: the best of ``DEFAULT_CANDIDATES`` fixed draws.

    As :func:`_select_default`, scored by the operator-valued Gram error: the block
    ``K~(X_A, X_B)`` between two random halves of a fixed sample of at most
    ``CHECK_BLOCK_ROWS // p`` rows (``p`` outputs), against ``K(X_A, X_B)``, weighted by
    ``sample_weight`` (the sample of :func:`_weighted_sample`: integer weights and
    repeated rows select the same map).  Returns
    ``(None, None)`` when the rule is deterministic or ``X`` has fewer than 2 rows.
    """
    import copy

    d = X.shape[1]
    if est.n_components is None or X.shape[0] < 2:
        return None, None
    if _auto_source("gaussian", measure, int(est.n_components), d) not in ("orf-qmc", "sobol"):
        return None, None
    p = exact.output_dim(d)
    Xs, w = _weighted_sample(X, _selection_rows(p), sample_weight)
    if Xs.shape[0] < 2:
        return None, None
    h = Xs.shape[0] // 2
    XA, XB = Xs[:h], Xs[h:]
    scale = np.sqrt(np.repeat(w[:h], p))[:, None] * np.sqrt(np.repeat(w[h:], p))[None, :]
    K = exact.block(XA, XB) * scale
    nK = _frobenius(K)
    _warn_vanishing_kernel(K, XA, XB, sigma)
    best, best_err = (None, None), np.inf
    with _blas_limited(1):
        for k in range(DEFAULT_CANDIDATES):
            W, xi = make_frequencies("gaussian", est.n_components, d, sigma=sigma,
                                     sequence="auto", seed=ORF_QMC_SEED + k, measure=measure)
            cand = copy.copy(est)
            cand.frequencies_, cand.weights_ = W, xi
            cand.amplitudes_, cand.factors_ = factors(W, xi)
            cand.n_outputs_, cand.rank_, cand.kernel_ = p, cand.factors_.shape[-1], exact
            e = _relative(_frobenius(cand.approximate_kernel(XA, XB, block=True) * scale - K),
                          nK)
            _progress(getattr(est, "verbose", 0), "ORFF", k, e)
            if e < best_err:  # the first of equal errors
                best, best_err = (W, xi), e
    return best
