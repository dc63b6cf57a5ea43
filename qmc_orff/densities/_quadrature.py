"""Composite Gauss-Legendre quadrature of the box discrepancy's one-dimensional integrals
``g_1(x; a)`` and ``C_1(a)`` (see :mod:`qmc_orff.densities.product`) for any density known by
its characteristic function: the fallback of :class:`~qmc_orff.densities.ProductDensity`
(used by :class:`~qmc_orff.CharacteristicDensity`).

Panels of ``[0, a]`` are bisected until the 16- and 32-point rules agree on ``phi_1`` and
``phi_1^2``, and split further for ``g_1`` so that ``x t`` moves by at most 2 on each.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

__all__ = []


@lru_cache(maxsize=8)
def _gauss_legendre(n):
    """Gauss-Legendre nodes and weights on [0, 1] (read-only arrays)."""
    x, w = np.polynomial.legendre.leggauss(n)
    x = 0.5 * (x + 1.0)
    w = 0.5 * w
    x.setflags(write=False)
    w.setflags(write=False)
    return x, w


_GL_N = 16
_MAX_DEPTH = 40
_MAX_SPLIT = float(1 << 20)  # at most 2^20 sub-panels per panel (|x| h <= 2 each)
_CHUNK = 1 << 21  # elements x nodes per vectorised block


def _char_values(density, t):
    """``phi_1(t)`` as float64, checked finite (a NaN would refine panels without end)."""
    f = np.asarray(density.char_fn(t), dtype=np.float64)
    if not np.all(np.isfinite(f)):
        bad = float(np.broadcast_to(t, f.shape)[~np.isfinite(f)].ravel()[0])
        raise ValueError(f"'char_fn' of density {density.name!r} must return finite values; "
                         f"got {float(f[~np.isfinite(f)].ravel()[0])!r} at t={bad!r}.")
    return f


def _panels(density, a):
    """Panel edges on [0, a] that resolve phi_1 and phi_1^2 (cached per density and a)."""
    cache = getattr(density, "_panel_cache", None)
    if cache is None:
        cache = density._panel_cache = {}
    key = float(a)
    if key in cache:
        return cache[key]
    n0 = max(1, int(math.ceil(a)))
    stack = [(a * i / n0, a * (i + 1) / n0, 0) for i in range(n0)][::-1]
    x16, w16 = _gauss_legendre(_GL_N)
    x32, w32 = _gauss_legendre(2 * _GL_N)

    def rules(lo, hi):
        h = hi - lo
        f16 = _char_values(density, lo + h * x16)
        f32 = _char_values(density, lo + h * x32)
        return (h * np.dot(w16, f16), h * np.dot(w32, f32),
                h * np.dot(w16, f16 * f16), h * np.dot(w32, f32 * f32), h * np.dot(w32, np.abs(f32)))

    # scale: int_0^a |phi| (at least the first panel's mass, so tails do not over-refine)
    scale = sum(rules(lo, hi)[4] for lo, hi, _ in stack)
    scale = max(scale, 1e-300)
    edges = []
    while stack:
        lo, hi, depth = stack.pop()
        i16, i32, q16, q32, _ = rules(lo, hi)
        ok = abs(i16 - i32) <= 1e-15 * scale and abs(q16 - q32) <= 1e-15 * scale
        if ok or depth >= _MAX_DEPTH:
            edges.append((lo, hi))
        else:
            mid = 0.5 * (lo + hi)
            stack.append((mid, hi, depth + 1))
            stack.append((lo, mid, depth + 1))
    edges.sort()
    out = np.array(edges, dtype=np.float64)
    cache[key] = out
    return out


def _quad_C(density, a):
    edges = _panels(density, a)
    x32, w32 = _gauss_legendre(2 * _GL_N)
    h = edges[:, 1] - edges[:, 0]
    t = edges[:, :1] + h[:, None] * x32[None, :]
    f = _char_values(density, t)
    return float(np.sum(h[:, None] * w32[None, :] * f * f)) / math.pi


def _quad_g(density, x, a, *, derivative):
    """Composite Gauss-Legendre ``g_1`` (and ``g_1'``) for broadcast arrays x, a."""
    g = np.empty(x.shape)
    dg = np.empty(x.shape) if derivative else None
    xf = x.ravel()
    af = a.ravel()
    gf = g.reshape(-1)
    dgf = dg.reshape(-1) if derivative else None
    nodes, weights = _gauss_legendre(_GL_N)
    for av in np.unique(af):
        sel_a = np.flatnonzero(af == av)
        edges = _panels(density, float(av))
        hmax = float(np.max(edges[:, 1] - edges[:, 0]))
        # level L: every base panel split into 2^L pieces so that |x| h <= 2
        need = np.abs(xf[sel_a]) * hmax / 2.0
        if np.any(need > _MAX_SPLIT):
            raise ValueError(f"'x' is too large for the quadrature of density {density.name!r}: "
                             f"|x| = {float(np.max(np.abs(xf[sel_a])))!r} with a = {float(av)!r} "
                             f"(|x| a must stay below about {_MAX_SPLIT:.0e}).")
        level = np.where(need > 1.0, np.ceil(np.log2(np.maximum(need, 1.0))), 0.0).astype(np.int64)
        for L in np.unique(level):
            idx = sel_a[level == L]
            k = 1 << int(L)
            lo = edges[:, 0]
            h = (edges[:, 1] - edges[:, 0]) / k
            sub_lo = (lo[:, None] + h[:, None] * np.arange(k)[None, :]).ravel()
            sub_h = np.repeat(h, k)
            t = (sub_lo[:, None] + sub_h[:, None] * nodes[None, :]).ravel()
            wt = (sub_h[:, None] * weights[None, :]).ravel()
            phi = _char_values(density, t)
            wphi = wt * phi
            wtphi = wphi * t
            step = max(1, _CHUNK // t.size)
            for start in range(0, idx.size, step):
                ii = idx[start:start + step]
                xt = np.multiply.outer(xf[ii], t)
                gf[ii] = np.cos(xt) @ wphi / math.pi
                if derivative:
                    dgf[ii] = -(np.sin(xt) @ wtphi) / math.pi
    return g, dg


# --------------------------------------------------------------------------- lookup
