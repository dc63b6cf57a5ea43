"""Unconstrained L-BFGS in the compact form (Byrd, Nocedal and Schnabel 1994), for the designs.

SciPy's L-BFGS-B pays, even without bounds, for its generalised Cauchy point and its
subspace minimisation: several passes over its ``2 m`` stored vectors of ``n`` entries per
iteration.  Here the ``m`` newest pairs ``(s_i, y_i)`` sit in one preallocated ring buffer
``W`` of shape ``(m, 2, n)``, so that ``H g`` costs two matrix-vector products (``W g`` and
``W^T c``) and ``O(m^2)`` small algebra; the new pair's products ``S^T y`` and ``Y^T y``
are differences of ``W g`` after and before the step, with no third pass.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.optimize

__all__ = ["minimize_lbfgs"]

#: the strong Wolfe constants of the line search (sufficient decrease, curvature)
C1, C2 = 1e-4, 0.9
#: the most evaluations of one line search (L-BFGS-B's ``maxls``)
MAXLS = 20
_EPS = np.finfo(np.float64).eps


class _Memory:
    """The ``m`` newest correction pairs, ``W[i] = (s_i, y_i)``, with ``SY[i, j] = s_i^T y_j``
    (slot ``i`` older than ``j``), ``YY[i, j] = y_i^T y_j`` and ``Wg = W g`` at the current
    gradient; ``order`` lists the filled slots oldest first (slots ``0 .. len(order) - 1``)."""

    def __init__(self, m, n):
        self.W = np.empty((m, 2, n))
        self.SY = np.zeros((m, m))
        self.YY = np.zeros((m, m))
        self.Wg = np.zeros((0, 2))
        self.order = []
        self.gamma = 1.0

    def reset(self):
        self.order, self.Wg = [], np.zeros((0, 2))

    def _times(self, v):
        """``W v`` over the filled slots, shape (k, 2): one matrix-vector product."""
        k = len(self.order)
        return (self.W[:k].reshape(2 * k, v.size) @ v).reshape(k, 2)

    def direction(self, g):
        """``-H g``: ``H = gamma I + [S, gamma Y] M [S, gamma Y]^T`` (BNS Theorem 2.2),
        ``M = [[R^-T (D + gamma Y^T Y) R^-1, -R^-T], [-R^-1, 0]]``, ``R`` the upper
        triangle of ``S^T Y`` in chronological order and ``D`` its diagonal."""
        k, o, gamma = len(self.order), self.order, self.gamma
        if k == 0:
            return -g
        R = np.triu(self.SY[np.ix_(o, o)])
        p, q = self.Wg[o, 0], self.Wg[o, 1]
        v = scipy.linalg.solve_triangular(R, p)  # R^-1 S^T g
        a = scipy.linalg.solve_triangular(
            R, np.diag(R) * v + gamma * (self.YY[np.ix_(o, o)] @ v) - gamma * q, trans="T")
        coef = np.empty((k, 2))
        coef[o, 0], coef[o, 1] = a, -gamma * v
        Hg = self.W[:k].reshape(2 * k, g.size).T @ coef.ravel()
        Hg += gamma * g
        return -Hg

    def update(self, s, y, g_new):
        """Take the pair ``(s, y)`` (the step and the gradient change that ends at ``g_new``)
        unless its curvature ``s^T y <= eps y^T y``; ``Wg`` becomes ``W g_new`` either way."""
        t = self._times(g_new)
        sy, yy = float(s @ y), float(y @ y)
        if not sy > _EPS * yy:
            self.Wg = t
            return
        Wy = t - self.Wg  # W y = W g_new - W g for the pairs held before this one
        m = self.SY.shape[0]
        k = len(self.order)
        if k < m:
            slot = k
            self.order.append(slot)
            t = np.vstack([t, np.zeros((1, 2))])
            Wy = np.vstack([Wy, np.zeros((1, 2))])
        else:
            slot = self.order.pop(0)
            self.order.append(slot)
        others = self.order[:-1]
        self.SY[others, slot] = Wy[others, 0]
        self.YY[others, slot] = self.YY[slot, others] = Wy[others, 1]
        self.SY[slot, slot], self.YY[slot, slot] = sy, yy
        self.W[slot, 0], self.W[slot, 1] = s, y
        t[slot] = float(s @ g_new), float(y @ g_new)
        self.Wg, self.gamma = t, sy / yy


def _line_search(fun, x, f0, p, slope0, counter):
    """A step along ``p`` that meets the strong Wolfe conditions: ``(x_new, f_new, g_new)``,
    or None after :data:`MAXLS` evaluations (Nocedal and Wright, Algorithms 3.5 and 3.6:
    the first trial is 1, doubled while the value falls and the slope stays negative,
    then a bracket shrunk by safeguarded cubic interpolation; ``slope0 = g^T p < 0``)."""
    def phi(a):
        xa = x + a * p
        fa, ga = fun(xa)
        counter[0] += 1
        ga = np.asarray(ga, dtype=np.float64).ravel()
        return (a, float(fa), float(ga @ p)), (xa, float(fa), ga)

    lo, hi, trial = (0.0, f0, slope0), None, 1.0  # lo: Armijo, the lowest value so far
    for _ in range(MAXLS):
        point, found = phi(trial)
        a, fa, da = point
        if not fa <= f0 + C1 * a * slope0 or fa >= lo[1]:  # also when fa is not finite
            hi = point
        elif abs(da) <= -C2 * slope0:
            return found
        else:
            if da >= 0 if hi is None else da * (hi[0] - lo[0]) >= 0:
                hi = lo
            lo = point
        trial = 2.0 * lo[0] if hi is None else _cubic(lo, hi)
    return None


def _cubic(lo, hi):
    """The minimiser of the cubic through ``(a, f, f')`` at ``lo`` and ``hi`` (Nocedal and
    Wright, eq. 3.59), kept 10% of the bracket away from its ends; else the midpoint."""
    (a0, f0, d0), (a1, f1, d1) = lo, hi
    e1 = d0 + d1 - 3.0 * (f0 - f1) / (a0 - a1)
    root = e1 * e1 - d0 * d1
    low, high = min(a0, a1), max(a0, a1)
    margin = 0.1 * (high - low)
    if np.isfinite(root) and root >= 0.0:
        e2 = np.copysign(np.sqrt(root), a1 - a0)
        denominator = d1 - d0 + 2.0 * e2
        if denominator != 0.0:
            a = a1 - (a1 - a0) * (d1 + e2 - e1) / denominator
            if low + margin <= a <= high - margin:
                return float(a)
    return 0.5 * (low + high)


def minimize_lbfgs(fun, x0, *, maxcor=10, maxiter=15000, gtol=1e-5, ftol=2.2204460492503131e-09,
                   callback=None):
    """Minimise ``fun`` (value and gradient: ``f, g = fun(x)``) from ``x0`` by L-BFGS.

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (float, ndarray of shape (n,))``.
    x0 : array_like of shape (n,)
    maxcor : int, default=10
        Correction pairs kept.
    maxiter, gtol, ftol : int, float, float
        Stop after ``maxiter`` iterations, when ``max |g| <= gtol``, or when
        ``(f_k - f_{k+1}) / max(|f_k|, |f_{k+1}|, 1) <= ftol`` (L-BFGS-B's rules).
    callback : callable or None, default=None
        ``callback(intermediate_result)`` after each iteration, with ``.x`` and ``.fun``;
        raising ``StopIteration`` ends the run.

    Returns
    -------
    scipy.optimize.OptimizeResult
        ``x``, ``fun``, ``jac``, ``nit``, ``nfev``, ``status`` (0 converged, 1 ``maxiter``,
        2 line search failed, 99 stopped by ``callback``), ``success``, ``message``.

    Notes
    -----
    The first step (and the first after a reset) is ``1 / ||g||`` along ``-g``; later ones
    start at 1 with ``H_0 = (s^T y / y^T y) I``.  A failed line search or an uphill
    direction discards the pairs and retries along ``-g``; a failure then ends the run.
    """
    x = np.array(x0, dtype=np.float64).ravel()
    f, g = fun(x)
    f, g = float(f), np.asarray(g, dtype=np.float64).ravel()
    counter, nit = [1], 0
    mem = _Memory(int(maxcor), x.size)
    status, message = 0, "CONVERGENCE: NORM OF GRADIENT <= GTOL"
    if np.max(np.abs(g), initial=0.0) <= gtol:  # False where g is not finite: no convergence
        return _result(x, f, g, nit, counter, status, message)
    while True:
        if nit >= maxiter:
            status, message = 1, "STOP: TOTAL NO. OF ITERATIONS REACHED LIMIT"
            break
        step = None
        for fresh in (False, True):
            p = None if fresh or not mem.order else mem.direction(g)
            if p is None or not g @ p < 0:
                mem.reset()
                p = -g / np.linalg.norm(g)
            step = _line_search(fun, x, f, p, float(g @ p), counter)
            if step is not None or not len(mem.order):
                break
        if step is None:
            status, message = 2, "ABNORMAL: LINE SEARCH FAILED"
            break
        x_new, f_new, g_new = step
        mem.update(x_new - x, g_new - g, g_new)
        x, f_old, f, g = x_new, f, f_new, g_new
        nit += 1
        if callback is not None:
            try:
                callback(scipy.optimize.OptimizeResult(x=x, fun=f))
            except StopIteration:
                status, message = 99, "`callback` raised `StopIteration`."
                break
        if nit >= maxiter:
            continue
        if np.max(np.abs(g)) <= gtol:
            break
        if f_old - f <= ftol * max(abs(f_old), abs(f), 1.0):
            message = "CONVERGENCE: RELATIVE REDUCTION OF F <= FTOL"
            break
    return _result(x, f, g, nit, counter, status, message)


def _result(x, f, g, nit, counter, status, message):
    return scipy.optimize.OptimizeResult(x=x, fun=f, jac=g, nit=nit, nfev=counter[0],
                                         status=status, success=status == 0, message=message)
