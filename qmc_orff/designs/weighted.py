"""The weighted design: QMC points with the optimal nonnegative weights (eq. 17)."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from .._validation import MAX_DESIGN_POINTS, check_int
from ..objectives.protocol import Objective
from ..objectives.weights import optimal_weights
from ._optimizer import UnitProblem, _resolve_d

if TYPE_CHECKING:  # names used in type hints only
    from typing import Any

    from numpy.typing import ArrayLike

    from ..sequence import Sequence

__all__ = ["weighted_sequence"]


def weighted_sequence(objective: Objective, s: int, *, d: int | None = None,
                      init: str | Sequence | ArrayLike = "halton", solver: str = "nnls",
                      seed: Any = None, sum_to_one: bool = True) -> Sequence:
    r"""QMC points with the optimal nonnegative weights of eq. 17, summing to 1 by default.

    Parameters
    ----------
    objective : BoxDiscrepancy
    s : int
        Number of points, :math:`1 \le s \le 8192` (the ``(s, s)`` QP matrix).
    d : int or None, default=None
    init : str, Sequence or array_like of shape (s, d), default="halton"
        The points (see :func:`global_sequence`).
    solver : {"nnls", "cvxpy"}, default="nnls"
        See :func:`qmc_orff.optimal_weights`.
    seed : None, int or Generator, default=None
        Used by ``init="random"`` only.
    sum_to_one : bool, default=True
        Constrain :math:`\sum_l \xi_l = 1`, so that the map keeps :math:`k(0) = 1` (the diagonal of
        its Gram matrix exact).  ``False`` is the paper's problem, whose weights can sum
        to far below 1 (it warns then); see :func:`qmc_orff.optimal_weights`.

    Returns
    -------
    Sequence
        With ``weights``; ``meta`` records ``d2`` (the weighted :math:`D^2`),
        ``normalized_d2``, ``uniform_d2`` and ``normalized_uniform_d2`` (same
        points, weights :math:`1/s`), ``kkt_residual``, ``solver``,
        ``n_zero_weights``.  In high dimension the optimal weights can be tiny
        (the linear term :math:`v` is a product of :math:`d` factors below 1) and the
        raw values may underflow to 0.0; see :ref:`ug-designs-units`.

    See Also
    --------
    optimal_weights : the weights alone, for given points.
    global_sequence, greedy_sequence, lattice_sequence : the other designs.

    Notes
    -----
    The weights solve :math:`\min_{\xi \ge 0} D^2(S, \xi) = C - 2 v^\top \xi + \xi^\top H \xi`
    (Avron et al. 2016, eq. 17) for the fixed points :math:`S`, with
    :math:`\sum_l \xi_l = 1` unless ``sum_to_one=False``.

    Examples
    --------
    >>> from qmc_orff import BoxDiscrepancy, weighted_sequence
    >>> seq = weighted_sequence(BoxDiscrepancy(2.0, d=2), 16)
    >>> round(float(seq.weights.sum()), 12)
    1.0
    >>> bool(seq.meta["d2"] < seq.meta["uniform_d2"])  # weights 1/s
    True
    """
    d = _resolve_d(objective, d)
    s = check_int(s, "s", minimum=1, maximum=MAX_DESIGN_POINTS)   # (s, s) QP matrix
    P = UnitProblem(objective, d)
    U, init_name = P.init_points(init, s, seed)
    meta = P.base_meta(s, "weighted", init_name)
    t0 = time.perf_counter()
    # the unit problem in normalised units is the objective's QP divided by prod(b / pi):
    # the same optimal weights
    res = optimal_weights(P.obj, U, solver=solver, normalize=True, sum_to_one=sum_to_one)
    nuniform = P.nd2(U)
    meta.update({
        "uniform_d2": P.raw(nuniform),
        "normalized_uniform_d2": nuniform,
        "kkt_residual": res.kkt_residual,
        "solver": res.solver,
        "solver_status": res.status,
        "n_zero_weights": res.n_active,
        "weights_sum": float(np.sum(res.weights)),
        "sum_to_one": bool(res.sum_to_one),
        "stop_reason": res.status,
        "iterations": 0,
        "seconds": time.perf_counter() - t0,
    })
    return P.finish(U, res.weights, meta, P.nd2(U, res.weights))
