"""Optimal nonnegative quadrature weights for a fixed point set (Avron et al. 2016, eq. 17).

With the points fixed, the weighted squared box discrepancy is a convex
quadratic in the weights ``xi``::

    D^2(S, xi) = C - 2 v^T xi + xi^T H xi,     H_lm = sinc_b(w_l, w_m),  v_l = prod_j g_j(w_lj)

and the optimal nonnegative weights solve the QP ``min xi^T H xi - 2 v^T xi``
subject to ``xi >= 0``.  ``H`` is a Gram matrix (PSD) that is numerically
singular for clustered or many points.

By default the weights are also constrained to ``sum(xi) = 1``: the approximate
kernel at zero, ``sum_l xi_l cos(0) = sum(xi)``, then equals ``k(0) = 1``, so every
diagonal entry of the approximate Gram matrix is exact.  The unconstrained QP of the
paper (``sum_to_one=False``) lets the weights shrink whenever that lowers the
discrepancy's off-diagonal part -- in high dimension or for large boxes to sums of
0.03-0.5 with most weights exactly zero, a Gram error near 1 -- and warns when the
sum is far from 1.  The constraint is objective-agnostic: it acts on ``(H, v)``, so
any quadratic objective (the box discrepancy, a data discrepancy) inherits it.

Two solvers:

``"cvxpy"``
    The QP through cvxpy with Clarabel (falling back to OSQP when Clarabel is
    unavailable or fails), on the problem scaled so that ``max diag H = 1`` and
    written as ``||L xi||^2 - 2 v^T xi`` with ``H = L^T L`` from the
    eigendecomposition (eigenvalues below ``1e-15 max eig`` dropped).
    cvxpy is imported only when this solver runs.
``"nnls"``
    Exact and fast: with ``H + delta I = R^T R`` (Cholesky, ``delta`` the
    jitter below) the QP equals ``min ||R xi - R^-T v||^2`` up to a constant,
    a nonnegative least-squares problem solved by Lawson-Hanson
    (:func:`scipy.optimize.nnls`).  The weights are then polished on the
    unjittered problem by solving ``H_FF xi_F = v_F`` on the free set ``F``
    (least squares, so a singular ``H_FF`` is fine) and kept only if it stays
    nonnegative and lowers the true objective (or matches it to rounding,
    1e-12 relative, with a smaller KKT residual).  Jitter:
    ``delta = 1e-13 * s * max(diag H)`` (about ``s`` times machine precision
    relative to ``H``), raised 100-fold up to twice if the factorisation fails;
    it moves the objective by at most ``delta ||xi||^2``.
    With ``sum(xi) = 1``: the row ``sqrt(M) (1^T xi - 1)`` (``M = 1e6`` on the scaled
    problem) is appended to the least-squares system (Lawson and Hanson's weighting
    method for equality constraints), then a primal active-set loop on the exact
    problem -- the KKT system ``[H_FF 1; 1^T 0] [xi_F; nu] = [v_F; 1]`` on the free
    set ``F``, stepping back to the boundary when an entry turns negative and freeing
    the bound with the most negative multiplier -- finishes at the exact optimum; the
    weights are finally divided by their sum (a change of order 1e-16).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg
import scipy.optimize

from .._validation import as_float_array, as_points, check_choice, check_real
from .protocol import Objective

if TYPE_CHECKING:  # names used in type hints only
    from numpy.typing import ArrayLike

__all__ = ["WeightsResult", "optimal_weights", "solve_weights_qp"]

_SOLVERS = ("cvxpy", "nnls")
#: relative jitter (times s * max diag H) added before the Cholesky factorisation in "nnls".
JITTER = 1e-13


@dataclass(frozen=True)
class WeightsResult:
    """Result of :func:`optimal_weights` / :func:`solve_weights_qp`.

    Attributes
    ----------
    weights : ndarray of shape (s,)
        The nonnegative weights ``xi``.
    objective : float
        ``xi^T H xi - 2 v^T xi`` (the QP objective of eq. 17).
    d2 : float or None
        The weighted squared box discrepancy ``C + objective`` (``None`` when
        the constant ``C`` is unknown, i.e. from :func:`solve_weights_qp`
        without ``constant``).
    kkt_residual : float
        ``|| min(xi / sum(xi), (H xi - v) / ||v||_inf) ||_inf``: the natural-map
        residual of the KKT conditions (``xi >= 0``, ``H xi - v >= 0``,
        complementarity) with both sides made dimensionless; 0 exactly at the
        optimum.
    solver : str
        The solver that produced the weights (``"nnls"``, ``"clarabel"``, ``"osqp"``).
    status : str
        ``"optimal"`` or the solver's status (e.g. ``"optimal_inaccurate"``).
    n_active : int
        Number of weights that are exactly zero.
    sum_to_one : bool
        Whether the weights were constrained to ``sum(xi) = 1``.
    """

    weights: np.ndarray
    objective: float
    d2: float | None
    kkt_residual: float
    solver: str
    status: str
    n_active: int
    sum_to_one: bool = False


def _kkt(H, v, xi, sum_to_one=False):
    """Natural-map KKT residual (dimensionless); with ``sum_to_one`` the gradient is
    shifted by the equality's multiplier ``nu = -xi^T (H xi - v) / sum(xi)``."""
    g = H @ xi - v
    total = float(np.sum(xi))
    if sum_to_one:
        if total > 0:
            g = g - float(xi @ g) / total
        scale = max(float(np.max(np.abs(v))), float(np.max(np.abs(H @ xi))),
                    np.finfo(float).tiny)
    else:
        scale = max(float(np.max(np.abs(v))), np.finfo(float).tiny)
    xs = xi / total if total > 0 else xi
    return float(np.max(np.abs(np.minimum(xs, g / scale))))


def _objective(H, v, xi):
    return float(xi @ (H @ xi) - 2.0 * (v @ xi))


def _scaled_problem(H, v):
    """``(Hs, vs, c)``: ``Hs = H / max diag H``, ``vs = v / (c max diag H)`` with ``c`` chosen
    so that ``max |vs| = 1`` (``c = 1`` when ``v = 0``).

    The QP ``min xi^T H xi - 2 v^T xi``, ``xi >= 0`` is positively homogeneous: its
    solution for ``(H, v)`` is ``c`` times its solution for ``(Hs, vs)``.  Both scalings
    keep the solvers' absolute tolerances meaningful whatever the units (in high
    dimension ``v`` can be far below ``diag H``).
    """
    hmax = float(np.max(np.diag(H)))
    if not hmax > 0:
        raise ValueError("'H' must have a positive diagonal (a Gram matrix of distinct points).")
    Hs = H / hmax
    vs = v / hmax
    c = float(np.max(np.abs(vs)))
    if not c > 0:
        return Hs, vs, 1.0
    return Hs, vs / c, c


def _least_squares_form(Hs, vs):
    """``R, c`` with ``R^T R = Hs + delta I`` (Cholesky, smallest working jitter) and
    ``R^T c = vs``: ``xi^T Hs xi - 2 vs^T xi = |R xi - c|^2 - |c|^2`` up to the jitter,
    the NNLS form of the QP."""
    s = Hs.shape[0]
    delta = JITTER * s
    for _ in range(3):  # 1e-13 s, 1e-11 s, 1e-9 s: beyond that H is not a Gram matrix
        try:
            R = scipy.linalg.cholesky(Hs + delta * np.eye(s), lower=False, check_finite=False)
            break
        except np.linalg.LinAlgError:
            delta *= 100.0
    else:
        raise ValueError("'H' is not positive semidefinite (Cholesky failed even with jitter).")
    return R, scipy.linalg.solve_triangular(R, vs, trans="T", lower=False, check_finite=False)


def _solve_nnls(H, v):
    s = H.shape[0]
    Hs, vs, vscale = _scaled_problem(H, v)
    R, c = _least_squares_form(Hs, vs)
    xi, _ = scipy.optimize.nnls(R, c, maxiter=50 * s)
    best = _objective(Hs, vs, xi)
    # polish on the unjittered problem: solve H_FF xi_F = v_F on the free set
    free = xi > 0
    if np.any(free):
        sol, *_ = scipy.linalg.lstsq(Hs[np.ix_(free, free)], vs[free], check_finite=False,
                                     lapack_driver="gelsy")
        if np.all(sol >= 0):
            cand = np.zeros(s)
            cand[free] = sol
            val = _objective(Hs, vs, cand)
            # objectives equal to rounding (1e-12 relative): keep the smaller KKT residual
            # (deciding on rounding noise alone left residuals of 1e-11 instead of 1e-16)
            tie = val <= best + 1e-12 * max(abs(best), abs(val))
            if val < best or (tie and _kkt(Hs, vs, cand) < _kkt(Hs, vs, xi)):
                xi, best = cand, val
    return xi * vscale, "nnls", "optimal"


#: weight (times max diag H = 1) of the sum-to-one row appended to the NNLS system
SUM_PENALTY = 1e6


def _equality_kkt_solve(H, v, free):
    """``xi_F, nu`` solving ``[H_FF 1; 1^T 0] [xi_F; nu] = [v_F; 1]`` (least squares)."""
    k = int(np.count_nonzero(free))
    A = np.zeros((k + 1, k + 1))
    A[:k, :k] = H[np.ix_(free, free)]
    A[:k, k] = 1.0
    A[k, :k] = 1.0
    rhs = np.append(v[free], 1.0)
    sol, *_ = scipy.linalg.lstsq(A, rhs, check_finite=False, lapack_driver="gelsy")
    return sol[:k], sol[k]


def _active_set_sum_to_one(H, v, xi, maxiter):
    """Primal active-set method for ``min xi^T H xi - 2 v^T xi``, ``xi >= 0``, ``sum(xi) = 1``,
    from the feasible ``xi``; returns the final feasible iterate."""
    s = xi.shape[0]
    free = xi > 0
    tol = 1e-13
    for _ in range(maxiter):
        x_f, nu = _equality_kkt_solve(H, v, free)
        cand = np.zeros(s)
        cand[free] = x_f
        if np.all(x_f >= 0):
            xi = cand
            # multipliers of the bounds: g = H xi - v + nu must be >= 0 on the active set
            g = H @ xi - v + nu
            scale = max(float(np.max(np.abs(v))), float(np.max(np.abs(H @ xi))), 1e-300)
            bound = ~free
            if not np.any(bound) or np.min(g[bound]) >= -tol * scale:
                return xi
            j = np.flatnonzero(bound)[np.argmin(g[bound])]
            free[j] = True
            continue
        # step from xi towards cand until the first free entry hits zero
        dirn = cand - xi
        neg = free & (dirn < 0)
        steps = xi[neg] / -dirn[neg]
        alpha = float(min(1.0, np.min(steps)))
        xi = xi + alpha * dirn
        hit = np.flatnonzero(neg)[steps <= alpha * (1 + 1e-12)]
        xi[hit] = 0.0
        xi = np.maximum(xi, 0.0)
        free = xi > 0
    return xi


def _solve_nnls_sum_to_one(H, v):
    s = H.shape[0]
    hmax = float(np.max(np.diag(H)))
    if not hmax > 0:
        raise ValueError("'H' must have a positive diagonal (a Gram matrix of distinct points).")
    Hs, vs = H / hmax, v / hmax
    R, c = _least_squares_form(Hs, vs)
    root = np.sqrt(SUM_PENALTY)
    xi, _ = scipy.optimize.nnls(np.vstack([R, np.full((1, s), root)]), np.append(c, root),
                                maxiter=50 * s)
    total = float(np.sum(xi))
    xi = xi / total if total > 0 else np.full(s, 1.0 / s)
    start = _objective(Hs, vs, xi)
    polished = np.maximum(_active_set_sum_to_one(Hs, vs, xi.copy(), maxiter=3 * s + 10), 0.0)
    polished /= np.sum(polished)
    if _objective(Hs, vs, polished) <= start + 1e-12 * abs(start):
        xi = polished
    return xi, "nnls", "optimal"


def _solve_cvxpy(H, v, sum_to_one=False):
    import warnings

    import cvxpy as cp  # heavy, imported lazily

    s = H.shape[0]
    Hs, vs, vscale = _scaled_problem(H, v)
    if sum_to_one:  # not homogeneous any more: only the common scale of H and v
        vs, vscale = vs * vscale, 1.0
    Hs = 0.5 * (Hs + Hs.T)
    # Least-squares form ||L x||^2 with H = L^T L from the eigendecomposition (eigenvalues
    # below 1e-15 * max dropped): interior-point solvers handle this far better than a
    # numerically singular quadratic form (Clarabel fails on quad_form for such H).
    lam, Q = np.linalg.eigh(Hs)
    keep = lam > 1e-15 * lam[-1]
    L = np.sqrt(lam[keep])[:, None] * Q[:, keep].T
    x = cp.Variable(s, nonneg=True)
    problem = cp.Problem(cp.Minimize(cp.sum_squares(L @ x) - 2.0 * (vs @ x)),
                         [cp.sum(x) == 1] if sum_to_one else [])
    installed = cp.installed_solvers()
    attempts = []
    if "CLARABEL" in installed:
        attempts.append(("clarabel", dict(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12,
                                          tol_feas=1e-12, max_iter=500)))
    if "OSQP" in installed:
        attempts.append(("osqp", dict(solver="OSQP", eps_abs=1e-12, eps_rel=1e-12,
                                      max_iter=200000, polishing=True)))
    if not attempts:
        raise ValueError("solver='cvxpy' needs Clarabel or OSQP installed; use solver='nnls'.")
    errors = []
    for name, opts in attempts:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the status below says "optimal_inaccurate"
                problem.solve(**opts)
        except (cp.error.SolverError, ValueError, ArithmeticError) as exc:
            errors.append(f"{name}: {exc}")
            continue
        if problem.status in ("optimal", "optimal_inaccurate") and x.value is not None:
            xi = np.maximum(np.asarray(x.value, dtype=np.float64), 0.0)
            if sum_to_one:
                xi = xi / np.sum(xi)
            return xi * vscale, name, problem.status
        errors.append(f"{name}: status {problem.status}")
    raise ValueError("the weights QP could not be solved with cvxpy (" + "; ".join(errors) + ").")


#: ``sum_to_one=False`` warns when ``|sum(xi) - 1|`` exceeds this.
SUM_WARN_TOLERANCE = 0.05


def _warn_sum(xi):
    import warnings

    total = float(np.sum(xi))
    if abs(total - 1.0) > SUM_WARN_TOLERANCE:
        warnings.warn(f"the unconstrained optimal weights sum to {total:.3g}, not 1 "
                      f"({int(np.count_nonzero(xi == 0))} of {xi.shape[0]} are zero): a feature "
                      f"map with them approximates k(0) = 1 by {total:.3g}, so every diagonal "
                      "entry of its Gram matrix is off by that much. The default "
                      "sum_to_one=True keeps k(0) = 1.", UserWarning, stacklevel=3)


def solve_weights_qp(H, v, *, solver="nnls", constant=None, sum_to_one=True):
    """Solve ``min xi^T H xi - 2 v^T xi`` subject to ``xi >= 0`` and ``sum(xi) = 1`` (eq. 17).

    Parameters
    ----------
    H : array_like of shape (s, s)
        Symmetric positive semidefinite matrix (``BoxDiscrepancy.pair_matrix``).
    v : array_like of shape (s,)
        Linear term (``BoxDiscrepancy.linear_term``).
    solver : {"nnls", "cvxpy"}, default="nnls"
        See the module docstring.
    constant : float or None, default=None
        The constant ``C`` of ``D^2 = C - 2 v^T xi + xi^T H xi``; when given,
        the result's ``d2`` is ``C + objective``.
    sum_to_one : bool, default=True
        Constrain ``sum(xi) = 1`` (``k(0) = 1`` stays exact).  ``False`` solves the
        paper's problem with ``xi >= 0`` only, and warns when the weights sum to
        more than 5% away from 1.

    Returns
    -------
    WeightsResult
    """
    check_choice(solver, "solver", _SOLVERS)
    constant = None if constant is None else check_real(constant, "constant")
    H = as_float_array(H, "H", ndim=2)
    v = as_float_array(v, "v", ndim=1)
    s = v.shape[0]
    if H.shape != (s, s):
        raise ValueError(f"'H' must have shape ({s}, {s}) to match 'v'; got {H.shape}.")
    if s == 0:
        raise ValueError("'v' must not be empty.")
    if not isinstance(sum_to_one, (bool, np.bool_)):
        raise TypeError(f"'sum_to_one' must be a bool; got {type(sum_to_one).__name__}.")
    if sum_to_one and solver == "nnls":
        xi, name, status = _solve_nnls_sum_to_one(H, v)
    elif solver == "nnls":
        xi, name, status = _solve_nnls(H, v)
    else:
        xi, name, status = _solve_cvxpy(H, v, sum_to_one=bool(sum_to_one))
    if not sum_to_one:
        _warn_sum(xi)
    objective = _objective(H, v, xi)
    d2 = None if constant is None else float(constant) + objective
    return WeightsResult(weights=xi, objective=objective, d2=d2,
                         kkt_residual=_kkt(H, v, xi, bool(sum_to_one)), solver=name,
                         status=status, n_active=int(np.count_nonzero(xi == 0)),
                         sum_to_one=bool(sum_to_one))


def optimal_weights(objective: Objective, W: ArrayLike, *, solver: str = "cvxpy",
                    normalize: bool = False, sum_to_one: bool = True) -> WeightsResult:
    r"""Optimal nonnegative weights for the points ``W`` under a quadratic objective (eq. 17).

    Parameters
    ----------
    objective : BoxDiscrepancy, DataDiscrepancy or any Objective
        The objective: its QP terms ``pair_matrix``, ``linear_term``, ``constant``
        and ``normalizer`` (the protocol ``qmc_orff.objectives.protocol.Objective``).
    W : array_like of shape (s, d)
        Frequencies (at the objective's bandwidth).
    solver : {"cvxpy", "nnls"}, default="cvxpy"
        ``"cvxpy"``: Clarabel (OSQP fallback) through cvxpy; ``"nnls"``: the
        fast exact path (NNLS on a jittered Cholesky factor, then polished).
        Both agree to about 1e-10 relative in the objective value.
    normalize : bool, default=False
        Report ``objective`` and ``d2`` in normalised units (divided by
        ``objective.normalizer()``: times :math:`\pi^d / \prod_j b_j` for the box, Theorem 12),
        as ``BoxDiscrepancy(..., normalize=True)`` does.  The weights are the same either way.  Needed in high dimension,
        where :math:`\prod_j b_j / \pi` under- or overflows float64 (the unnormalised
        result then raises ``ValueError``).
    sum_to_one : bool, default=True
        Constrain :math:`\sum_l \xi_l = 1` so the map keeps :math:`k(0) = 1`; ``False`` is the
        paper's problem (warns when the sum is far from 1).

    Returns
    -------
    WeightsResult
        ``weights`` (s,), the QP ``objective``, ``d2`` (the weighted :math:`D^2`,
        :math:`C + \xi^\top H \xi - 2 v^\top \xi`), ``kkt_residual``,
        ``solver``, ``status``, ``n_active``.

    See Also
    --------
    weighted_sequence : points and their optimal weights.
    BoxDiscrepancy, DataDiscrepancy : objectives it takes.

    Notes
    -----
    .. math::

        D^2(S, \xi) = C - 2 v^\top \xi + \xi^\top H \xi,
        \qquad \xi \ge 0, \quad \textstyle\sum_l \xi_l = 1 \text{ (by default)},

    with :math:`H` = ``objective.pair_matrix(W)``, :math:`v` = ``objective.linear_term(W)``
    and :math:`C` = ``objective.constant`` (Avron et al. 2016, section 5, eq. 17).
    With ``sum_to_one=False`` the weights need not sum to one.  The QP is always solved in normalised
    units (:math:`H`, :math:`v`, :math:`C` times :math:`\pi^d / \prod_j b_j`, so that :math:`H_{ll} = 1`):
    the same QP up to a positive factor, hence the same weights, and every
    term representable whatever :math:`d`; the solvers further rescale :math:`v` to
    :math:`\max_l |v_l| = 1` (the solution is positively homogeneous in ``v``).

    Examples
    --------
    >>> import numpy as np
    >>> from qmc_orff import BoxDiscrepancy, optimal_weights
    >>> disc = BoxDiscrepancy(2.0, d=3)
    >>> W = np.random.default_rng(0).standard_normal((32, 3))
    >>> res = optimal_weights(disc, W, solver="nnls")
    >>> res.status, bool(np.isclose(res.weights.sum(), 1.0))
    ('optimal', True)
    >>> bool(res.d2 < disc(W))          # below the weights 1/s
    True
    """
    if not all(callable(getattr(objective, m, None))
               for m in ("pair_matrix", "linear_term", "constant", "normalizer")):
        raise TypeError(f"'objective' must be a BoxDiscrepancy; got {type(objective).__name__}.")
    check_choice(solver, "solver", _SOLVERS)
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(f"'normalize' must be a bool; got {type(normalize).__name__}.")
    W = as_points(W, "W", d=getattr(objective, "d", None))
    d = W.shape[1]
    if not normalize:  # the objective's raw / normalised factor (prod(b / pi) for the box);
        scale = objective.normalizer(d)  # ValueError where it is not representable
    H = objective.pair_matrix(W, normalize=True)
    v = objective.linear_term(W, normalize=True)
    constant = objective.constant(d, normalize=True)
    res = solve_weights_qp(H, v, solver=solver, constant=constant, sum_to_one=sum_to_one)
    if normalize:
        return res
    return replace(res, objective=scale * res.objective, d2=scale * res.d2)
