"""Data-adaptive frequency designs: minimise the Gram error on the data itself.

:func:`adaptive_sequence` starts from an ORF draw (or any source) and runs
L-BFGS on the data discrepancy (:class:`~qmc_orff.DataDiscrepancy`, the squared
Gram error over all pairs of a training subsample of ``X``); a disjoint
validation subsample scores every iterate and the best validated iterate is
returned (never worse than the start on validation).  :func:`adaptive_operator_sequence`
is the operator-valued analogue (:class:`~qmc_orff.objectives.operator_data.OperatorDataDiscrepancy`).

The box discrepancy of Avron et al. (2016) measures the error over the
uniform measure on a box of differences ``x - z``; in high dimension a data
set's differences look nothing like that box, and the box designs lose to
orthogonal random features.  The data discrepancy measures the error where the
data's differences actually lie (Avron et al. close their paper with this open
problem: "incorporating stronger data-dependence in the estimation of adaptive
sequences").

Everything is optimised in unit-bandwidth coordinates, ``U = sigma W`` against
``X / sigma`` (the curvature then does not depend on sigma); the returned
:class:`~qmc_orff.Sequence` holds ``U`` (``seq.frequencies(sigma)`` gives ``W``).
The cost depends on the subsample sizes, not on ``n``: each evaluation is
``O(m s d + m^2 s)`` for ``m`` training points.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .._validation import check_int, check_positive_real
from ..objectives.data import GRAM_ARRAYS, KERNELS, DataDiscrepancy, data_sha256
from ..objectives.operator_data import (OPERATOR_GRAM_ARRAYS, OPERATOR_KERNELS,
                                        OperatorDataDiscrepancy, check_operator_frequencies)
from ..sequence import Sequence
from ..sources.frequencies import make_frequencies
from ._adaptive_data import _check_X, _init_points, _orthogonal_unit, median_heuristic
from ._adaptive_driver import AdaptiveFace, run_adaptive
from ._early_stopping import lbfgs_memory

if TYPE_CHECKING:  # names used in type hints only
    from typing import Any, Callable

    from numpy.typing import ArrayLike

__all__ = ["adaptive_sequence", "adaptive_operator_sequence", "median_heuristic", "data_sha256"]

#: the fewest training rows (``n_train="auto"`` takes more where an iteration is cheap and
#: at s > 250), the validation
#: subsample, iteration cap and patience of the scalar design, measured with
#: ``benchmarks/bench_vs_nystroem.py`` at s = 32..512 on digits, breast cancer, diamonds and
#: raw MNIST.  The validation stop decides the length: the cap of 1000 is reached only where
#: the validation error still falls (diamonds, d = 9, with L-BFGS-B's 100 correction pairs
#: there, :func:`lbfgs_memory`).  Over the four data sets 1.97x Nystroem's held-out error
#: against 2.19x with a cap of 100 (geometric mean, four seeds).  On MNIST's 64 principal
#: components at s = 256 the design fits in 14.8x Nystroem.fit and at s = 1024 on raw MNIST
#: in 14.5 s (153 iterations).  Patience 10 stopped too early on noisy validation curves
#: (diamonds s = 512: 7.15x)
N_TRAIN = 500
N_VALIDATION = 250
#: ``n_train="auto"`` (``auto_n_train``): the training rows grow with the map's width,
#: ``ROWS_PER_FREQUENCY * s`` (its ``2 s`` columns), from :data:`N_TRAIN` to
#: :data:`N_TRAIN_MAX`, while one iteration costs at most :data:`ITERATION_BUDGET`
#: multiply-adds, counted as ``m s (m + d)`` for ``m`` rows (the features and the Gram
#: product).  With 500 rows the 1024 columns of s = 512 fit the training Gram far better
#: than held-out rows (diamonds, d = 9: training error 2e-4, validation 9.4e-4); 1000 rows
#: there gave 2.42x Nystroem's held-out error against 3.34x (four seeds), raw MNIST at
#: s = 512 (803 rows) 2.22x against 2.41x (two seeds), digits 1.78x against 1.79x (798 rows,
#: all its pool allows).  The budget is about the 500-row design at s = 1024 on raw MNIST
#: (d = 630-655: 512-505 rows), the fit-time floor's cell: about 95 ms an iteration on one
#: core, 14.5 s for its 153 iterations
ROWS_PER_FREQUENCY = 2
N_TRAIN_MAX = 1000
ITERATION_BUDGET = 6e8
#: where ``s d`` is small an iteration on ``2 s`` rows is cheap: ``n_train="auto"`` takes, up
#: to :data:`N_TRAIN_MAX`, the rows an iteration of this many multiply-adds affords, the cost
#: of one at the fit-time floor's cell (s = 256 on MNIST's 64 principal components, 512 rows:
#: 256 * 512 * 576), which keeps its rows.  Held-out error over Nystroem's (two seeds,
#: ``benchmarks/bench_vs_nystroem.py``'s splits): standardised MNIST pixels at s = 64 2.82x ->
#: 2.60x (803 rows), raw pixels at s = 64 2.26x -> 2.06x (803), 9 x 9 photo patches at
#: s = 32 and 128 3.46x -> 3.12x (1000) and 4.18x -> 3.62x (726), digits at s = 64 and 128
#: 2.34x -> 2.21x and 2.24x -> 2.13x; the fit 1.0-2.2x longer.  More iterations instead
#: (the validation stop's floor and patience scaled to the same work) changed nothing:
#: the best validated iterate came before the default stop
CHEAP_ITERATION = 7.5e7
MAXITER = 1000
PATIENCE = 20
#: the validation stop ends no design before this many iterations: on small validation
#: subsamples the early validation curve is noisy, and patience alone stopped designs at
#: 20-40 iterations (breast cancer, 57 validation rows, s = 64: 2.21x Nystroem's held-out
#: error over 8 seeds, 1.92x with this floor; digits s = 128, 4 seeds: 2.48x, 2.41x)
MIN_ITERATIONS = 100
#: fraction of the training rows drawn to cover the data (k-means++ seeding in the kernel's
#: distance, :mod:`._coverage`), the rest uniform.  Over the four data sets above (four seeds)
#: 2.01x Nystroem's held-out error against 2.08x with uniform rows, worst cell 3.72x against
#: 4.47x (diamonds, s = 512, 500 training rows); with ``n_train="auto"`` 1.97x against 2.09x,
#: diamonds at s = 512 2.42x against 4.49x; digits: better at s >= 128, 2.05x against
#: 1.97x at s = 32.  Half the rows covering (0.5) was better on diamonds and worse on
#: digits (2.49x against 2.29x at s = 64, three seeds).  Synthetic, standardised, 3000 rows,
#: s = 64 and 256, four seeds: Student t3 (d = 5) 1.83x -> 1.57x and 1.32x -> 1.15x,
#: lognormal (d = 6) 2.22x -> 1.98x and 1.61x -> 1.57x, a two-cluster Gaussian mixture
#: (d = 8) 2.44x -> 2.45x and 9.76x -> 9.63x
COVERAGE = 0.25

#: The defaults of the two public faces, one row per option they share:
#: ``option: (adaptive_sequence, adaptive_operator_sequence)``.  The signatures read them
#: from here.  Where the two differ, the reason is beside the row: the scalar design's
#: values were measured (the constants above); the operator design's were set when it was
#: written and have not been measured since (``benchmarks/bench_operator_vs_nystroem.py``
#: is where to measure them), so they stay where its results are known.
DEFAULTS = {
    # operator: "auto"'s budget counts the scalar objective's m s (m + d) multiply-adds, not
    # the operator's m^2 s + m s^2 + s^2 d; 400 rows, not measured against other sizes
    "n_train": ("auto", 400),
    # operator: not measured
    "n_validation": (N_VALIDATION, 200),
    # operator: not measured
    "maxiter": (MAXITER, 300),
    # operator: not measured
    "patience": (PATIENCE, 30),
    # operator: 0, the floor was measured on scalar designs only (no floor keeps its results)
    "min_iterations": (MIN_ITERATIONS, 0),
    # operator: 0, the covering rows were measured on scalar designs only (uniform rows keep
    # its results); the cover uses the distance of the scalar Gaussian k_0 of its kernels
    "coverage": (COVERAGE, 0.0),
    # operator: False, and True is refused: OperatorDataDiscrepancy has no weights QP terms
    "weights": (False, False),
    "init": ("orf", "orf"),
    "tol": (1e-12, 1e-12),
    "checkpoint_every": (None, None),
}
_SCALAR, _OPERATOR = 0, 1
#: BLAS threads of the designs (numpy's and scipy's OpenBLAS alike, through threadpoolctl,
#: restored after): the bits do not depend on the BLAS thread count, and on 2 cores the
#: design runs 2.3x faster than with OpenBLAS's default 2 threads (the products are too
#: small to share and scipy's and numpy's pools spin against each other and numba's)
BLAS_THREADS = 1
#: precision of the optimiser's training evaluations (:class:`~qmc_orff.DataDiscrepancy`'s
#: ``dtype``): float32 halves the objective's cost (s = 1024 on MNIST's 630 pixels, 500
#: rows: 40 ms instead of 82 ms, one core) for a relative error near 1e-6 of the gradient;
#: the iterates' validation scores are in the same precision (250 rows, s = 256, d = 80:
#: 0.73 ms instead of 1.31 ms, against 6.0 ms for the training value and gradient; one
#: core), and the chosen iterate is re-scored in float64: every error in ``meta`` is float64
TRAIN_DTYPE = "float32"


def _default(option, face):
    return DEFAULTS[option][face]


# --------------------------------------------------------------------------- checks
def auto_n_train(s, d):
    """The training rows of ``n_train="auto"`` for ``s`` frequencies in ``d`` dimensions.

    ``ROWS_PER_FREQUENCY * s`` rows (as many as the map has columns), or more where an
    iteration on them costs under :data:`CHEAP_ITERATION` multiply-adds (counted as
    ``m s (m + d)`` for ``m`` rows): the most rows that cost affords.  Then clipped to
    ``[N_TRAIN, N_TRAIN_MAX]`` and to the most rows whose iteration costs at most
    :data:`ITERATION_BUDGET`, never below :data:`N_TRAIN`: 1000 for s <= 64 in up to 80
    dimensions, 803 at s = 64 and d = 655, 512 at s = 256 and d = 64, 1000 at s = 512 for
    d <= 171 (803 at d = 655), 505 at s = 1024 for d = 655, 500 from s = 2048 in hundreds
    of dimensions.
    """
    s, d = int(s), int(d)

    def fits(budget):  # the most rows m with m (m + d) s <= budget
        return math.floor((math.sqrt(d * d + 4.0 * budget / s) - d) / 2.0)

    wanted = max(ROWS_PER_FREQUENCY * s, fits(CHEAP_ITERATION))
    return int(max(N_TRAIN, min(wanted, N_TRAIN_MAX, fits(ITERATION_BUDGET))))


# --------------------------------------------------------------------------- scalar
def adaptive_sequence(X: ArrayLike, s: int, *, kernel: str = "gaussian",
                      sigma: float | ArrayLike | str, nu: float = 1.5,
                      init: str | Sequence | ArrayLike = _default("init", _SCALAR),
                      weights: bool = _default("weights", _SCALAR),
                      n_train: int | str = _default("n_train", _SCALAR),
                      n_validation: int = _default("n_validation", _SCALAR),
                      maxiter: int = _default("maxiter", _SCALAR),
                      patience: int | None = _default("patience", _SCALAR),
                      min_iterations: int = _default("min_iterations", _SCALAR),
                      coverage: float = _default("coverage", _SCALAR),
                      tol: float = _default("tol", _SCALAR), seed: Any = None,
                      callback: Callable | None = None, progress: bool = False,
                      checkpoint: Callable | None = None,
                      checkpoint_every: int | None = _default("checkpoint_every", _SCALAR),
                      resume: Sequence | None = None) -> Sequence:
    r"""Frequencies designed on data: minimise the Gram error on a training subsample of ``X``.

    The frequencies :math:`w_l` (and, with ``weights=True``, the weights :math:`\xi_l`)
    minimise :math:`\lVert K - Z Z^\top\rVert_F^2 / m^2` on :math:`m` training rows
    (:class:`~qmc_orff.DataDiscrepancy`), from the start ``init``, by L-BFGS; the iterate
    with the lowest error on separate validation rows is returned.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Data (finite, at least 2 rows).  Only ``n_train + n_validation`` rows
        are used: the cost does not grow with ``n``.
    s : int
        Number of frequencies (the feature map has ``2 s`` columns).
    kernel : {"gaussian", "laplacian", "matern"}, default="gaussian"
    sigma : float, array_like of shape (d,) or "median"
        Bandwidth (Matern length scale); ``"median"``: the median distance
        between rows (on at most 1000 rows of ``X``, Jaakkola's heuristic).
    nu : float, default=1.5
        Matern smoothness.
    init : {"orf", "mc", "halton", "sobol", "lattice"}, Sequence or array_like of shape (s, d), default="orf"
        Start: orthogonal random features (Gaussian and Matern only), i.i.d.
        draws, a QMC source (as :func:`qmc_orff.make_frequencies`, seeded), a
        :class:`~qmc_orff.Sequence` (e.g. a checkpoint, to resume) or
        unit-bandwidth frequencies (like ``Sequence.points``).
    weights : bool, default=False
        After the frequencies, fit nonnegative weights by the QP of the data
        discrepancy (:func:`qmc_orff.optimal_weights`, the weighted designs'
        solver) on the training subsample; kept only if they lower the
        validation error.
    n_train : int or "auto", default="auto"
        Training subsample size: the objective sums over all its pairs (each
        evaluation costs :math:`O(m s (m + d))` for :math:`m` = ``n_train``).
        ``"auto"``: ``2 s`` rows, as many as the map has
        columns, or more where an iteration is cheap (under ``7.5e7`` multiply-adds,
        counted as ``m s (m + d)``), at least 500 and at most 1000, fewer (never under
        500) where an iteration would cost over ``6e8``: 1000 at s <= 64 in up to 80
        dimensions, 803 at s = 64 in 655, 512 at s = 256 in 64, 1000 at s = 512 in up
        to 171 dimensions.  With fewer rows than columns the design fits its training
        rows far better than held-out ones (:func:`auto_n_train`).
        ``meta["n_train"]`` holds the rows used.
    n_validation : int, default=250
        Disjoint validation subsample size (at most ``n // 5``: training data
        matter more, measured on digits; with ``n < 4`` the training points
        validate).
    maxiter : int, default=1000
        L-BFGS iteration cap (the validation stop, ``patience``, usually ends
        the design well before it).
    patience : int or None, default=20
        Stop when the validation error has not improved for this many
        iterations (None: run to ``maxiter`` or convergence), unless the
        training error fell by more than 10% over those iterations (the
        optimiser's early, large steps; the stop waits for the fall to slow).
    min_iterations : int, default=100
        The validation stop (``patience``) ends no design before this many
        iterations (``maxiter`` and convergence still do): the early
        validation curve is noisy on small validation subsamples.
    coverage : float in [0, 1], default=0.25
        Fraction of the ``n_train`` training rows drawn to cover the data,
        the rest uniform: k-means++ (D^2) seeding in the kernel's distance
        :math:`1 - k(x, y)`, from up to 8 uniform candidate rows per covered
        row outside the validation rows.  A uniform subsample leaves sparse
        regions of ``X`` without training rows, and the held-out error
        concentrates on their differences.  The validation rows stay
        uniform.  0: every training row uniform.
    tol : float, default=1e-12
        ``gtol`` and ``ftol`` of the L-BFGS optimiser on the training objective normalised
        to 1 at the start.
    seed : None, int or Generator, default=None
        Randomness of the subsamples, of the start and of the ORF reference.
        The same seed and inputs give bit-identical sequences.
    callback : callable or None, default=None
        ``callback(iteration, U, train_error, validation_error)`` after each
        iteration (``U`` unit-bandwidth frequencies); returning True stops.
    progress : bool, default=False
        A progress line on stderr (training and validation error, ratio of the
        best validation error to the start's).
    checkpoint : callable or None, default=None
        ``checkpoint(sequence)`` receives the best validated iterate so far
        every ``checkpoint_every`` iterations (of the whole run, with ``resume``).
    checkpoint_every : int or None, default=None
    resume : Sequence or None, default=None
        A checkpoint or result of an earlier run on the same ``X`` (its
        ``data_sha256``), to continue: give that run's ``seed``, ``n_train``,
        ``n_validation`` and ``coverage`` (the same subsamples; the sizes and
        ``coverage`` are checked).  The design continues from its points
        (``init`` is not used); ``maxiter`` and ``min_iterations`` count the
        whole run, and ``iterations``, ``best_iteration``, the histories, the
        start errors, the ORF reference and ``stop_reason`` describe it
        (``resume_validation_error``: the resumed iterate's).  L-BFGS's
        memory restarts at the resumed iterate, so later iterates differ from
        those of a run that was never stopped.

    Returns
    -------
    Sequence
        Unit-bandwidth frequencies ``U`` (``seq.frequencies(sigma)`` gives the
        map's), weights when ``weights=True`` and they helped.  ``meta``:
        ``method="adaptive"``, ``density`` (the kernel), ``kernel``, ``sigma``,
        ``nu``, ``n``, ``n_train``, ``n_validation``, ``coverage``, ``n_cover``
        (training rows drawn to cover ``X``), ``data_sha256`` (of all of ``X``),
        ``start_validation_error``, ``validation_error`` (the result's),
        ``orf_validation_error`` (a fresh ORF draw of the same size; None for
        the Laplacian kernel), ``train_error``, ``start_train_error``,
        ``iterations``, ``best_iteration``, ``stop_reason``, ``seconds``,
        ``validation_history``, ``train_history``.  Errors are relative
        Frobenius Gram errors :math:`\lVert K - Z Z^\top\rVert_F / \lVert K\rVert_F` on the subsample.
        A Ctrl-C (``KeyboardInterrupt``) stops the optimisation and returns the
        best validated iterate (``stop_reason="interrupted"``).

    See Also
    --------
    adaptive_operator_sequence : the same for operator-valued maps.
    DataDiscrepancy : the objective it minimises.
    FourierFeatures : ``sequence="adaptive"`` runs it at ``fit``.

    Notes
    -----
    The objective is the data discrepancy ``||K - Z Z^T||_F^2 / m^2`` on all
    pairs of the training subsample (:class:`~qmc_orff.DataDiscrepancy`), a
    training loss: the validation subsample, never trained on, decides which
    iterate is returned (early stopping), so the result is never worse than
    its start there.

    The design runs numpy's and scipy's BLAS on ``BLAS_THREADS`` (one)
    thread, through threadpoolctl, and restores the limits after (the
    ``callback`` and ``checkpoint`` callables run under that limit): the
    result does not depend on ``OPENBLAS_NUM_THREADS``.  The optimiser evaluates the
    training objective in float32 (``TRAIN_DTYPE``; :class:`~qmc_orff.DataDiscrepancy`'s
    ``dtype``), about twice as fast, and scores every iterate on the validation rows in
    the same precision (``meta["validation_history"]``); the chosen iterate is re-scored
    in float64, and every error in ``meta`` is float64.  The optimiser, the library's own
    L-BFGS (``meta["optimizer"]``), keeps ``meta["maxcor"]`` correction pairs: 20, fewer
    only where ``s d`` exceeds 52,428, and up to 100 in low dimension, where their update
    is cheap against the objective (about ``900 / d`` at 500 training rows: 100 at
    d = 9).  The defaults trade
    some accuracy for time (``benchmarks/bench_vs_nystroem.py``):
    ``n_train=1000, n_validation=500, maxiter=300, patience=30`` gave a
    held-out Gram error 1.54x Nystroem's instead of 1.77x (geometric mean,
    digits and breast cancer, s = 32..512, with ``maxiter=100, patience=10``)
    at 3.75x the fit time.

    The defaults and why they differ from :func:`adaptive_operator_sequence`'s:
    ``qmc_orff.designs.adaptive.DEFAULTS``.

    Examples
    --------
    >>> import numpy as np
    >>> from qmc_orff import adaptive_sequence
    >>> X = np.random.default_rng(0).normal(size=(300, 5))
    >>> seq = adaptive_sequence(X, 16, sigma=2.0, maxiter=20, seed=0)
    >>> seq.meta["validation_error"] <= seq.meta["start_validation_error"]
    True
    """
    if not isinstance(kernel, str) or kernel not in KERNELS:
        raise ValueError(f"'kernel' must be one of {', '.join(map(repr, KERNELS))}; got {kernel!r}.")
    X = _check_X(X)
    d = X.shape[1]
    if isinstance(n_train, str):
        if n_train != "auto":
            raise ValueError(f"'n_train' must be an integer >= 2 or 'auto'; got {n_train!r}.")
        n_train = auto_n_train(check_int(s, "s", minimum=1), d)
    if kernel == "matern":
        nu = check_positive_real(nu, "nu")
    fast = None if TRAIN_DTYPE == "float64" else (
        lambda Xs: DataDiscrepancy(Xs, kernel=kernel, sigma=1.0, nu=nu, dtype=TRAIN_DTYPE))
    face = AdaptiveFace(
        make=lambda Xs: DataDiscrepancy(Xs, kernel=kernel, sigma=1.0, nu=nu),
        start=lambda init, s, d, rng: _init_points(init, s, d, kernel, nu, rng, kernel),
        gram_arrays=GRAM_ARRAYS, extra_per_frequency=lambda m: 0,
        maxcor=lambda s, d, m: lbfgs_memory(s * d, d=d, n_train=m),
        meta={"method": "adaptive", "density": kernel, "kernel": kernel,
              "nu": float(nu) if kernel == "matern" else None},
        make_fast=fast, train_dtype=TRAIN_DTYPE, reference_kernel=kernel, nu=nu,
        blas_threads=BLAS_THREADS)
    return run_adaptive(face, X, s, n_train, sigma=sigma, init=init, weights=weights,
                        n_validation=n_validation, maxiter=maxiter, patience=patience,
                        min_iterations=min_iterations, coverage=coverage, tol=tol, seed=seed,
                        callback=callback, progress=progress, checkpoint=checkpoint,
                        checkpoint_every=checkpoint_every, resume=resume)


# --------------------------------------------------------------------------- operator-valued
def adaptive_operator_sequence(X: ArrayLike, s: int, *, kernel: str = "curl_free",
                               sigma: float | str, A: ArrayLike | None = None,
                               measure: str = "spectral",
                               init: str | Sequence | ArrayLike = _default("init", _OPERATOR),
                               weights: bool = _default("weights", _OPERATOR),
                               n_train: int = _default("n_train", _OPERATOR),
                               n_validation: int = _default("n_validation", _OPERATOR),
                               maxiter: int = _default("maxiter", _OPERATOR),
                               patience: int | None = _default("patience", _OPERATOR),
                               min_iterations: int = _default("min_iterations", _OPERATOR),
                               coverage: float = _default("coverage", _OPERATOR),
                               tol: float = _default("tol", _OPERATOR), seed: Any = None,
                               callback: Callable | None = None, progress: bool = False,
                               checkpoint: Callable | None = None,
                               checkpoint_every: int | None = _default("checkpoint_every",
                                                                       _OPERATOR),
                               resume: Sequence | None = None) -> Sequence:
    """Frequencies for an operator-valued map designed on data (block Gram error).

    The operator-valued analogue of :func:`adaptive_sequence`: L-BFGS on
    :class:`~qmc_orff.OperatorDataDiscrepancy`, the squared
    Frobenius error of the ``(m p) x (m p)`` block Gram matrix over all pairs
    of a training subsample, with the best iterate on a disjoint validation
    subsample returned.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Data (finite, at least 2 rows); only ``n_train + n_validation`` rows are used.
    s : int
        Number of frequencies.
    kernel : {"decomposable", "curl_free", "div_free"}, default="curl_free"
        The Gaussian operator-valued kernel (as :class:`qmc_orff.ORFF`).
    sigma : float or "median"
        Bandwidth of the scalar Gaussian ``k_0``; ``"median"`` as in
        :func:`adaptive_sequence`.
    A : array_like of shape (p, p) or None, default=None
        Decomposable kernel's output matrix (identity of size ``d`` when None).
    measure : {"spectral", "trace"}, default="spectral"
        The ``A~(w)`` of the map (as :class:`qmc_orff.ORFF`).  The design
        optimises the frequencies freely, so the result is no longer a sample
        of that measure: only the matrix function ``A~`` is kept.
    init : {"orf", "mc", "halton", "sobol", "lattice"}, Sequence or array_like, default="orf"
        Unit-bandwidth start (Gaussian spectral measure; for ``measure="trace"``
        with a named source, the trace measure's radial law ``chi(d + 2)``).
    weights : bool, default=False
        Refused when True: the weights QP needs the objective's pair matrix and
        linear term, which :class:`~qmc_orff.OperatorDataDiscrepancy` does not
        provide (the option is here so that both designs take the same options).
    n_train : int, default=400
        Training subsample size (each evaluation costs :math:`O(m^2 s + m s^2 + s^2 d)`,
        :math:`m` = ``n_train``).  No ``"auto"``: its cost budget counts the scalar
        objective's operations.
    n_validation : int, default=200
        Disjoint validation subsample size (as in :func:`adaptive_sequence`).
    maxiter : int, default=300
        Iteration cap of the L-BFGS optimiser.
    patience : int or None, default=30
        Early stopping: stop after this many iterations without a lower
        validation error (None: run to ``maxiter`` or convergence), as in
        :func:`adaptive_sequence` (waiting while the training error falls by
        more than 10% over them).
    min_iterations : int, default=0
        The validation stop ends no design before this many iterations (as in
        :func:`adaptive_sequence`, whose default of 100 was measured on scalar
        kernels only).
    coverage : float in [0, 1], default=0.0
        Fraction of the training rows drawn to cover the data, in the distance
        of the scalar Gaussian :math:`k_0` (as in :func:`adaptive_sequence`,
        whose default of 0.25 was measured on scalar kernels only).
    tol : float, default=1e-12
        L-BFGS's ``gtol`` and ``ftol``, on the training objective scaled to 1
        at the start.
    seed : None, int or Generator, default=None
        Draws the subsamples, the start and the ORF reference (bit-identical
        sequences for the same seed and inputs).
    callback : callable or None, default=None
        Called as ``callback(iteration, U, train_error, validation_error)``
        (``U``: unit-bandwidth frequencies) after each iteration; True stops.
    progress : bool, default=False
        Print a progress line on stderr.
    checkpoint : callable or None, default=None
        ``checkpoint(sequence)`` receives the best validated iterate so far
        every ``checkpoint_every`` iterations (as in :func:`adaptive_sequence`).
    checkpoint_every : int or None, default=None
    resume : Sequence or None, default=None
        A checkpoint or result to continue, as in :func:`adaptive_sequence`.

    Returns
    -------
    Sequence
        Unit-bandwidth frequencies; ``meta`` as :func:`adaptive_sequence`
        (errors are relative Frobenius errors of the block Gram matrix) plus
        ``measure`` and ``operator_kernel``.

    See Also
    --------
    adaptive_sequence : the scalar-kernel design.
    OperatorDataDiscrepancy : the objective it minimises.
    ORFF : ``sequence="adaptive"`` runs it at ``fit``.

    Notes
    -----
    The defaults and why they differ from :func:`adaptive_sequence`'s:
    ``qmc_orff.designs.adaptive.DEFAULTS``.

    Examples
    --------
    >>> import numpy as np
    >>> from qmc_orff import ORFF, adaptive_operator_sequence
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(200, 2))
    >>> seq = adaptive_operator_sequence(X, 8, sigma=1.0, n_train=60,
    ...                                  n_validation=40, maxiter=10, seed=0)
    >>> meta = seq.meta
    >>> meta["operator_kernel"]
    'curl_free'
    >>> bool(meta["validation_error"] <= meta["start_validation_error"])
    True
    >>> orff = ORFF("curl_free", sigma=1.0, n_components=8, sequence=seq)
    >>> orff = orff.fit(X)
    >>> orff.transform(X[:3]).shape
    (3, 16, 2)
    """
    if not isinstance(kernel, str) or kernel not in OPERATOR_KERNELS:
        raise ValueError(f"'kernel' must be one of {', '.join(map(repr, OPERATOR_KERNELS))}; "
                         f"got {kernel!r}.")
    if not isinstance(weights, (bool, np.bool_)):
        raise TypeError(f"'weights' must be a bool; got {type(weights).__name__}.")
    if weights:
        raise ValueError("'weights'=True is not available for operator-valued designs: the "
                         "weights QP needs a pair matrix and linear term that "
                         "OperatorDataDiscrepancy does not provide; got weights=True.")
    X = _check_X(X)
    # unit bandwidth: X / sigma, U = sigma W; A~ scales by sigma^-2 (spectral and trace alike),
    # a constant factor that the normalised objective does not see
    face = AdaptiveFace(
        make=lambda Xs: OperatorDataDiscrepancy(Xs, kernel=kernel, sigma=1.0, A=A,
                                                measure=measure),
        start=lambda init, s, d, rng: _operator_start(init, s, d, kernel, measure, rng),
        gram_arrays=OPERATOR_GRAM_ARRAYS,
        # curl / div: k @ [C, S, C a, S a, C a^2, S a^2] and its product, 12 (m, s) entries per
        # frequency beyond the scalar design's, and (s, s) arrays
        extra_per_frequency=lambda m: 0 if kernel == "decomposable" else 12 * m,
        check_s=None if kernel == "decomposable" else (
            lambda s: check_operator_frequencies(s, "s")),
        maxcor=lambda s, d, m: lbfgs_memory(s * d),
        meta={"method": "adaptive", "density": "gaussian", "operator_kernel": kernel,
              "measure": measure},
        scalar_sigma=True, blas_threads=BLAS_THREADS)
    return run_adaptive(face, X, s, n_train, sigma=sigma, init=init, weights=False,
                        n_validation=n_validation, maxiter=maxiter, patience=patience,
                        min_iterations=min_iterations, coverage=coverage, tol=tol, seed=seed,
                        callback=callback, progress=progress, checkpoint=checkpoint,
                        checkpoint_every=checkpoint_every, resume=resume)


def _operator_start(init, s, d, kernel, measure, rng):
    """Unit-bandwidth start of :func:`adaptive_operator_sequence` and its description."""
    if measure == "trace" and kernel != "decomposable" and isinstance(init, str):
        # the trace measure's law: radius sigma |w| ~ chi(d + 2), uniform direction
        if init == "orf":
            U0 = _orthogonal_unit("gaussian", s, d, 1.5, rng)
            U0 *= (np.sqrt(rng.chisquare(d + 2, size=s)) / np.linalg.norm(U0, axis=1))[:, None]
        else:
            U0, _ = make_frequencies("gaussian", s, d, sigma=1.0, sequence=init, seed=rng,
                                     measure="radial")
        return U0, init
    return _init_points(init, s, d, kernel, 1.5, rng, "gaussian")
