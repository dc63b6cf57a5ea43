"""Nonlinear conjugate gradients for the greedy design's many small problems (private).

``minimize_cg(fun, x0, gtol=..., maxiter=...)`` takes the same steps as
``scipy.optimize.minimize(fun, x0, jac=True, method="CG", options={"gtol": gtol,
"maxiter": maxiter})`` (SciPy >= 1.15: Polak-Ribiere+ with the sufficient-descent
check of Gilbert and Nocedal, the strong-Wolfe line search DCSRCH of MINPACK-2 with
``c1 = 1e-4``, ``c2 = 0.4``, and SciPy's ``line_search`` (Wolfe 2) as fallback): the
same floating-point operations in the same order, hence bit-identical iterates.  It
leaves out SciPy's per-call bookkeeping (``ScalarFunction`` copies and compares every
point, memoises value and gradient separately, wraps callbacks), which at d = 8
costs several times the objective itself.  DCSRCH runs compiled
(:func:`~qmc_orff.designs._line_search_kernels.dcsrch_iterate`); the vector updates use
the same
NumPy calls as SciPy (``np.dot``, ``np.linalg.norm``).  The structure follows
``scipy/optimize/_optimize.py::_minimize_cg`` (BSD-3-Clause).
"""
from __future__ import annotations

import warnings

import numpy as np

from ._line_search_kernels import (LS_ERROR, LS_FG, LS_SIZE, LS_WARNING, dcsrch_iterate,
                                   dcsrch_start)

__all__ = ["minimize_cg"]


class _LineSearchError(RuntimeError):
    pass


def _wolfe1(fun, xk, pk, gfk, old_fval, old_old_fval, c1, c2, amin, amax, xtol=1e-14):
    """SciPy's ``line_search_wolfe1``: ``(stp, fval, old_fval, gval)``, ``stp`` None on failure."""
    gval = gfk
    derphi0 = np.dot(gfk, pk)
    phi0 = old_fval
    if old_old_fval is not None and derphi0 != 0:
        alpha1 = min(1.0, 1.01 * 2 * (phi0 - old_old_fval) / derphi0)
        if alpha1 < 0:
            alpha1 = 1.0
    else:
        alpha1 = 1.0
    st = np.empty(LS_SIZE)
    phi1 = phi0
    stp, task = dcsrch_start(st, alpha1, phi0, derphi0, c1, c2, xtol, amin, amax)
    for i in range(100):
        if i > 0:
            stp, task = dcsrch_iterate(st, stp, phi1, derphi1)
        if not np.isfinite(stp):
            return None, phi1, phi0, gval
        if task == LS_FG:
            phi1, gval = fun(xk + stp * pk)
            derphi1 = np.dot(gval, pk)
        else:
            break
    else:
        return None, phi1, phi0, gval
    if task == LS_ERROR or task == LS_WARNING:
        return None, phi1, phi0, gval
    return stp, phi1, phi0, gval


def minimize_cg(fun, x0, *, gtol, maxiter, c1=1e-4, c2=0.4):
    """Minimise ``fun`` (returning ``(value, gradient)``) from ``x0`` by nonlinear CG.

    Returns ``(x, value, iterations)``, those of ``scipy.optimize.minimize(...,
    method="CG")`` with the same options (``norm=inf``).
    """
    x0 = np.asarray(x0).flatten()
    last = [None, None, None]

    def fg(x):
        f, g = fun(x)
        last[0], last[1], last[2] = x, f, g
        return f, g

    old_fval, gfk = fg(x0)
    k = 0
    xk = x0
    old_old_fval = old_fval + np.linalg.norm(gfk) / 2
    pk = -gfk
    gnorm = np.amax(np.abs(gfk))
    sigma_3 = 0.01
    while (gnorm > gtol) and (k < maxiter):
        deltak = np.dot(gfk, gfk)
        cached_step = [None]

        def polak_ribiere_powell_step(alpha, gfkp1=None, xk=xk, pk=pk, gfk=gfk, deltak=deltak):
            xkp1 = xk + alpha * pk
            if gfkp1 is None:
                gfkp1 = fg(xkp1)[1]
            yk = gfkp1 - gfk
            beta_k = max(0, np.dot(yk, gfkp1) / deltak)
            pkp1 = -gfkp1 + beta_k * pk
            gnorm = np.amax(np.abs(gfkp1))
            return (alpha, xkp1, pkp1, gfkp1, gnorm)

        def descent_condition(alpha, xkp1, fp1, gfkp1):
            cached_step[:] = polak_ribiere_powell_step(alpha, gfkp1)
            alpha, xk, pk, gfk, gnorm = cached_step
            if gnorm <= gtol:
                return True
            return np.dot(pk, gfk) <= -sigma_3 * np.dot(gfk, gfk)

        stp, fval, prev, gval = _wolfe1(fg, xk, pk, gfk, old_fval, old_old_fval, c1, c2,
                                        1e-100, 1e100)
        if stp is not None and not descent_condition(stp, xk + stp * pk, fval, gval):
            stp = None
        if stp is None:
            ret = _wolfe2(fg, last, xk, pk, gfk, old_fval, old_old_fval, c1, c2,
                          descent_condition)
            if ret[0] is None:
                break  # SciPy: _LineSearchError, warnflag 2
            stp, fval, prev, gval = ret[0], ret[3], ret[4], ret[5]
        alpha_k, old_fval, old_old_fval, gfkp1 = stp, fval, prev, gval
        if alpha_k == cached_step[0]:
            alpha_k, xk, pk, gfk, gnorm = cached_step
        else:
            alpha_k, xk, pk, gfk, gnorm = polak_ribiere_powell_step(alpha_k, gfkp1)
        k += 1
    return xk, old_fval, k


def _wolfe2(fg, last, xk, pk, gfk, old_fval, old_old_fval, c1, c2, extra_condition):
    """The fallback of SciPy's ``_line_search_wolfe12``: ``scipy.optimize.line_search``."""
    from scipy.optimize import line_search

    def value(x):
        return fg(x)[0]

    def grad(x):
        if last[0] is not None and np.all(x == last[0]):
            return last[2]
        return fg(x)[1]

    # SciPy's LineSearchWarning (a failed search: handled by the caller) is silenced, every
    # other warning passed on; the class lives in a private module, so it is recognised by
    # its name instead of imported
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = line_search(value, grad, xk, pk, gfk, old_fval, old_old_fval,
                             extra_condition=extra_condition, c1=c1, c2=c2, amax=1e100)
    for w in caught:
        if not (issubclass(w.category, RuntimeWarning)
                and w.category.__name__ == "LineSearchWarning"):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return result
