"""Numba kernels of the lean nonlinear CG driver (:mod:`qmc_orff.designs._cg`): no input checks.

The Moré-Thuente line search of MINPACK-2 (DCSRCH), in reverse communication.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import _jit  # noqa: F401  (numba's cache location, before the line-search kernels)

# ---------------------------------------------------------------- line search (MINPACK DCSRCH)
# The Moré-Thuente line search of MINPACK-2 as SciPy (>= 1.13) writes it in Python
# (scipy/optimize/_dcsrch.py, BSD-3-Clause): the same operations in the same order on
# float64 scalars, so that :func:`qmc_orff.designs._cg.minimize_cg` takes the same steps as
# ``scipy.optimize.minimize(method="CG")``.  Reverse communication: the state lives in a
# float64 array of _LS_SIZE entries; each call returns the next step and a task code.
LS_FG, LS_CONVERGED, LS_WARNING, LS_ERROR = 0, 1, 2, 3
(_BRACKT, _STAGE, _GINIT, _GTEST, _GX, _GY, _FINIT, _FX, _FY, _STX, _STY, _STMIN, _STMAX,
 _WIDTH, _WIDTH1, _FTOL, _GTOLW, _XTOL, _STPMIN, _STPMAX, _TWO) = range(21)
LS_SIZE = 21


@njit(cache=True, inline="always")
def _pymax(a, b):
    # Python's max(a, b): the first argument unless the second compares greater
    return b if b > a else a


@njit(cache=True, inline="always")
def _pymin(a, b):
    return b if b < a else a


@njit(cache=True, inline="always")
def _npclip(x, lo, hi):
    # numpy.clip on scalars: minimum(maximum(x, lo), hi), NaN propagating
    if not (x >= lo or x != x):
        x = lo
    if not (x <= hi or x != x):
        x = hi
    return x


@njit(cache=True, inline="always")
def _npsign(x):
    if x > 0.0:
        return 1.0
    if x < 0.0:
        return -1.0
    return x  # 0.0 or NaN (only its comparisons are used)


@njit(cache=True, error_model="numpy")
def _dcstep(stx, fx, dx, sty, fy, dy, stp, fp, dp, brackt, stpmin, stpmax, two):
    # ``x ** 2`` of the SciPy code is C's pow(x, 2.0), which can differ from x * x in the
    # last bit; ``two`` (= 2.0) comes from memory so that LLVM keeps the pow call
    sgnd = _npsign(dp) * _npsign(dx)
    if fp > fx:
        theta = 3.0 * (fx - fp) / (stp - stx) + dx + dp
        s = _pymax(_pymax(abs(theta), abs(dx)), abs(dp))
        gamma = s * np.sqrt(math.pow(theta / s, two) - (dx / s) * (dp / s))
        if stp < stx:
            gamma *= -1
        p = (gamma - dx) + theta
        q = ((gamma - dx) + gamma) + dp
        r = p / q
        stpc = stx + r * (stp - stx)
        stpq = stx + ((dx / ((fx - fp) / (stp - stx) + dx)) / 2.0) * (stp - stx)
        if abs(stpc - stx) <= abs(stpq - stx):
            stpf = stpc
        else:
            stpf = stpc + (stpq - stpc) / 2.0
        brackt = True
    elif sgnd < 0.0:
        theta = 3 * (fx - fp) / (stp - stx) + dx + dp
        s = _pymax(_pymax(abs(theta), abs(dx)), abs(dp))
        gamma = s * np.sqrt(math.pow(theta / s, two) - (dx / s) * (dp / s))
        if stp > stx:
            gamma *= -1
        p = (gamma - dp) + theta
        q = ((gamma - dp) + gamma) + dx
        r = p / q
        stpc = stp + r * (stx - stp)
        stpq = stp + (dp / (dp - dx)) * (stx - stp)
        if abs(stpc - stp) > abs(stpq - stp):
            stpf = stpc
        else:
            stpf = stpq
        brackt = True
    elif abs(dp) < abs(dx):
        theta = 3 * (fx - fp) / (stp - stx) + dx + dp
        s = _pymax(_pymax(abs(theta), abs(dx)), abs(dp))
        gamma = s * np.sqrt(_pymax(0.0, math.pow(theta / s, two) - (dx / s) * (dp / s)))
        if stp > stx:
            gamma = -gamma
        p = (gamma - dp) + theta
        q = (gamma + (dx - dp)) + gamma
        r = p / q
        if r < 0 and gamma != 0:
            stpc = stp + r * (stx - stp)
        elif stp > stx:
            stpc = stpmax
        else:
            stpc = stpmin
        stpq = stp + (dp / (dp - dx)) * (stx - stp)
        if brackt:
            if abs(stpc - stp) < abs(stpq - stp):
                stpf = stpc
            else:
                stpf = stpq
            if stp > stx:
                stpf = _pymin(stp + 0.66 * (sty - stp), stpf)
            else:
                stpf = _pymax(stp + 0.66 * (sty - stp), stpf)
        else:
            if abs(stpc - stp) > abs(stpq - stp):
                stpf = stpc
            else:
                stpf = stpq
            stpf = _npclip(stpf, stpmin, stpmax)
    else:
        if brackt:
            theta = 3.0 * (fp - fy) / (sty - stp) + dy + dp
            s = _pymax(_pymax(abs(theta), abs(dy)), abs(dp))
            gamma = s * np.sqrt(math.pow(theta / s, two) - (dy / s) * (dp / s))
            if stp > sty:
                gamma = -gamma
            p = (gamma - dp) + theta
            q = ((gamma - dp) + gamma) + dy
            r = p / q
            stpc = stp + r * (sty - stp)
            stpf = stpc
        elif stp > stx:
            stpf = stpmax
        else:
            stpf = stpmin
    if fp > fx:
        sty = stp
        fy = fp
        dy = dp
    else:
        if sgnd < 0:
            sty = stx
            fy = fx
            dy = dx
        stx = stp
        fx = fp
        dx = dp
    return stx, fx, dx, sty, fy, dy, stpf, brackt


@njit(cache=True, error_model="numpy")
def dcsrch_start(st, stp, f, g, ftol, gtol, xtol, stpmin, stpmax):
    """The START task of DCSRCH: check, initialise ``st``; return ``(stp, task)``."""
    if stp < stpmin or stp > stpmax or g >= 0 or ftol < 0 or gtol < 0 or xtol < 0 \
            or stpmin < 0 or stpmax < stpmin:
        return stp, LS_ERROR
    st[_FTOL] = ftol
    st[_TWO] = 2.0
    st[_GTOLW] = gtol
    st[_XTOL] = xtol
    st[_STPMIN] = stpmin
    st[_STPMAX] = stpmax
    st[_BRACKT] = 0.0
    st[_STAGE] = 1.0
    st[_FINIT] = f
    st[_GINIT] = g
    st[_GTEST] = ftol * g
    st[_WIDTH] = stpmax - stpmin
    st[_WIDTH1] = st[_WIDTH] / 0.5
    st[_STX] = 0.0
    st[_FX] = f
    st[_GX] = g
    st[_STY] = 0.0
    st[_FY] = f
    st[_GY] = g
    st[_STMIN] = 0.0
    st[_STMAX] = stp + 4.0 * stp
    return stp, LS_FG


@njit(cache=True, error_model="numpy")
def dcsrch_iterate(st, stp, f, g):
    """One DCSRCH iteration after an evaluation ``(f, g) = (phi(stp), phi'(stp))``."""
    p5 = 0.5
    p66 = 0.66
    xtrapl = 1.1
    xtrapu = 4.0
    brackt = st[_BRACKT] != 0.0
    gtest = st[_GTEST]
    ftest = st[_FINIT] + stp * gtest
    if st[_STAGE] == 1.0 and f <= ftest and g >= 0:
        st[_STAGE] = 2.0
    task = LS_FG
    if brackt and (stp <= st[_STMIN] or stp >= st[_STMAX]):
        task = LS_WARNING
    if brackt and st[_STMAX] - st[_STMIN] <= st[_XTOL] * st[_STMAX]:
        task = LS_WARNING
    if stp == st[_STPMAX] and f <= ftest and g <= gtest:
        task = LS_WARNING
    if stp == st[_STPMIN] and (f > ftest or g >= gtest):
        task = LS_WARNING
    if f <= ftest and abs(g) <= st[_GTOLW] * -st[_GINIT]:
        task = LS_CONVERGED
    if task != LS_FG:
        return stp, task
    if st[_STAGE] == 1.0 and f <= st[_FX] and f > ftest:
        fm = f - stp * gtest
        fxm = st[_FX] - st[_STX] * gtest
        fym = st[_FY] - st[_STY] * gtest
        gm = g - gtest
        gxm = st[_GX] - gtest
        gym = st[_GY] - gtest
        stx, fxm, gxm, sty, fym, gym, stp, brackt = _dcstep(
            st[_STX], fxm, gxm, st[_STY], fym, gym, stp, fm, gm, brackt, st[_STMIN], st[_STMAX],
            st[_TWO])
        st[_STX] = stx
        st[_STY] = sty
        st[_FX] = fxm + stx * gtest
        st[_FY] = fym + sty * gtest
        st[_GX] = gxm + gtest
        st[_GY] = gym + gtest
    else:
        stx, fx, gx, sty, fy, gy, stp, brackt = _dcstep(
            st[_STX], st[_FX], st[_GX], st[_STY], st[_FY], st[_GY], stp, f, g, brackt,
            st[_STMIN], st[_STMAX], st[_TWO])
        st[_STX] = stx
        st[_FX] = fx
        st[_GX] = gx
        st[_STY] = sty
        st[_FY] = fy
        st[_GY] = gy
    stx = st[_STX]
    sty = st[_STY]
    if brackt:
        if abs(sty - stx) >= p66 * st[_WIDTH1]:
            stp = stx + p5 * (sty - stx)
        st[_WIDTH1] = st[_WIDTH]
        st[_WIDTH] = abs(sty - stx)
    if brackt:
        st[_STMIN] = _pymin(stx, sty)
        st[_STMAX] = _pymax(stx, sty)
    else:
        st[_STMIN] = stp + xtrapl * (stp - stx)
        st[_STMAX] = stp + xtrapu * (stp - stx)
    stp = _npclip(stp, st[_STPMIN], st[_STPMAX])
    if (brackt and (stp <= st[_STMIN] or stp >= st[_STMAX])
            or (brackt and st[_STMAX] - st[_STMIN] <= st[_XTOL] * st[_STMAX])):
        stp = stx
    st[_BRACKT] = 1.0 if brackt else 0.0
    return stp, LS_FG
