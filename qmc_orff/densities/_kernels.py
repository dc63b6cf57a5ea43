"""Numba kernels of the one-dimensional box integrals (private; no input checks).

:mod:`qmc_orff.densities` validates and broadcasts; these kernels take flat,
C-contiguous float64 arrays and fill the outputs in one pass over all points
and coordinates (no Python loop over nodes or coordinates).

* :func:`gauss_near` -- the Gaussian ``g_1`` / ``g_1'`` where the closed form
  cancels (``a <= 2`` and ``|x| a <= 4``): 24-point Gauss-Legendre quadrature of
  ``pi^-1 int_0^a exp(-t^2/2) cos(x t) dt`` and ``-pi^-1 int_0^a t exp(-t^2/2) sin(x t) dt``,
  the same nodes and the same order of operations as the former numpy loop.
  It returns the indices of the other ("far") elements.
* :func:`gauss_nodes`, :func:`gauss_near_row` -- the quadrature branch for one point, from
  tables of the nodes' terms that depend on ``a`` only (the greedy design's candidates).
* :func:`gauss_far` -- the closed form through the Faddeeva function, given
  ``w(y + i A)`` (computed by :func:`scipy.special.wofz` on the far elements only).
* :func:`cauchy_g` -- the Cauchy (Laplacian-kernel) ``g_1`` and ``g_1'`` in closed form.

Every kernel is compiled lazily on first call (no eager signatures).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import _jit  # noqa: F401  (numba's cache location, before the density kernels)

_SQRT2 = math.sqrt(2.0)
_SQRT2PI = math.sqrt(2.0 * math.pi)
_x, _w = np.polynomial.legendre.leggauss(24)
#: 24-point Gauss-Legendre nodes and weights on [0, 1] (as densities._gauss_legendre(24))
GL24_NODES = 0.5 * (_x + 1.0)
GL24_WEIGHTS = 0.5 * _w
del _x, _w
# h(u) = sum_k (-1)^k (k + 1) / (k + 2)! u^k, k = 0..22 (Horner from k = 22 down)
_H_COEF = np.array([((-1) ** k) * (k + 1) / math.factorial(k + 2) for k in range(23)])


@njit(cache=True)
def gauss_near(x, a, g, dg, derivative):
    """Quadrature branch for every element with ``a <= 2`` and ``|x| a <= 4``; returns the others' indices."""
    n = x.shape[0]
    far = np.empty(n, dtype=np.int64)
    nfar = 0
    nodes = GL24_NODES
    weights = GL24_WEIGHTS
    for i in range(n):
        xi = x[i]
        ai = a[i]
        if ai <= 2.0 and abs(xi) * ai <= 4.0:
            acc = 0.0
            dacc = 0.0
            for k in range(24):
                t = nodes[k] * ai
                wphi = weights[k] * math.exp(-0.5 * t * t)
                xt = xi * t
                acc += wphi * math.cos(xt)
                if derivative:
                    dacc -= wphi * t * math.sin(xt)
            g[i] = acc * ai / math.pi
            if derivative:
                dg[i] = dacc * ai / math.pi
        else:
            far[nfar] = i
            nfar += 1
    return far[:nfar]


@njit(cache=True)
def gauss_nodes(a):
    """Tables ``t[j, k] = x_k a_j`` and ``wphi[j, k] = w_k exp(-t^2 / 2)`` (d, 24) of
    :func:`gauss_near` for the coordinates' ``a`` (the same operations, hence the same bits)."""
    d = a.shape[0]
    t = np.empty((d, 24))
    wphi = np.empty((d, 24))
    for j in range(d):
        for k in range(24):
            tk = GL24_NODES[k] * a[j]
            t[j, k] = tk
            wphi[j, k] = GL24_WEIGHTS[k] * math.exp(-0.5 * tk * tk)
    return t, wphi


@njit(cache=True)
def gauss_near_row(x, a, t, wphi, g, dg):
    """:func:`gauss_near` (with the derivative) for one ``x[j]`` per coordinate, from the
    tables of :func:`gauss_nodes`; the same bits.  Returns False, leaving ``g`` and ``dg``
    partly filled, if some element is not in the quadrature branch (or not finite)."""
    for j in range(x.shape[0]):
        xj = x[j]
        aj = a[j]
        if not (aj <= 2.0 and abs(xj) * aj <= 4.0):
            return False
        acc = 0.0
        dacc = 0.0
        for k in range(24):
            tk = t[j, k]
            wp = wphi[j, k]
            xt = xj * tk
            acc += wp * math.cos(xt)
            dacc -= wp * tk * math.sin(xt)
        g[j] = acc * aj / math.pi
        dg[j] = dacc * aj / math.pi
    return True


@njit(cache=True)
def gauss_far(x, a, idx, wre, wim, g, dg, derivative):
    """Closed form at the elements ``idx`` given ``w(y + i A) = wre + i wim`` there."""
    for k in range(idx.shape[0]):
        i = idx[k]
        xf = x[i]
        af = a[i]
        A = af / _SQRT2
        y = xf / _SQRT2
        ax = af * xf
        sin_ax = math.sin(ax)
        re = math.cos(ax) * wre[k] - sin_ax * wim[k]
        gf = (math.exp(-y * y) - math.exp(-A * A) * re) / _SQRT2PI
        g[i] = gf
        if derivative:
            # integration by parts; the two terms cancel to a factor ~ min(|x|, 1/a) at most
            dg[i] = math.exp(-0.5 * af * af) * sin_ax / math.pi - xf * gf


@njit(cache=True)
def cauchy_g(x, a, g, dg, derivative):
    """Cauchy ``g_1`` (and ``g_1'``); the formulas of :class:`qmc_orff.densities.CauchyDensity`."""
    coef = _H_COEF
    for i in range(x.shape[0]):
        xi = x[i]
        ai = a[i]
        ea = math.exp(-ai)
        ax = ai * xi
        s = math.sin(0.5 * ax)
        num = -math.expm1(-ai) + 2.0 * ea * s * s + xi * ea * math.sin(ax)
        g[i] = num / (math.pi * (1.0 + xi * xi))  # 1 + x^2 = inf for |x| > 1e154: g = 0
        if derivative:
            u = complex(ai, -ai * xi)
            if abs(u) <= 1.0:
                acc = 0j
                for k in range(22, -1, -1):
                    acc = acc * u + coef[k]
                h = acc
            else:
                v = 1.0 / u  # h = v (v - e^-u (1 + v)): no overflow for huge |x|
                h = v * (v - np.exp(-u) * (1.0 + v))
            dg[i] = -(ai * ai / math.pi) * h.imag
