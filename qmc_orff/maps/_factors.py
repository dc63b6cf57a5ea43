"""The factors ``B(w)`` of the operator-valued kernels' spectral measures,
``A~(w) = B(w) B(w)^T`` (Brault et al. 2016; Minh 2016), for :class:`qmc_orff.ORFF`."""
from __future__ import annotations

import math

import numpy as np

from .._validation import MAX_ELEMENTS, as_points, shape_of

__all__ = ["householder_complement"]


def _orff_factors(kernel, measure, radial, W, xi, sig_arr, sigma, d, A):
    """ORFF amplitudes ``(s,)`` and factors ``B(w_j)`` ``(s, p, r)`` of frequencies ``W``.

    ``A~(w) = B(w) B(w)^T`` (Brault et al. 2016; Minh 2016): ``A`` for the decomposable
    kernel, ``w w^T`` (curl-free) and ``|w|^2 I - w w^T`` (div-free) in the spectral
    measure; the trace measure replaces ``|w|`` by ``sqrt(d) / sigma``.
    """
    amp = np.sqrt(xi)
    if measure == "bounded":
        # sqrt(rho_0 / rho) = 2^(d/4) exp(-sigma^2 |w|^2 / 8)
        amp = amp * 2.0 ** (d / 4.0) * np.exp(-np.sum((W * sig_arr) ** 2, axis=1) / 8.0)
    if kernel == "decomposable":
        lam, V = np.linalg.eigh(A)
        keep = lam > lam[-1] * A.shape[0] * np.finfo(np.float64).eps
        return amp, np.ascontiguousarray(V[:, keep] * np.sqrt(lam[keep]))
    norm = np.sqrt(np.sum(W * W, axis=1))
    if kernel == "curl_free":
        if radial:
            safe = np.where(norm > 0, norm, 1.0)
            B = (math.sqrt(d) / sigma) * (W / safe[:, None])
        else:
            B = W.copy()
        B = B[:, :, None]
    else:
        Q = _householder_complement(W)
        scale = np.full(W.shape[0], math.sqrt(d) / sigma) if radial else norm
        B = Q * scale[:, None, None]
    return amp, np.ascontiguousarray(B)



def householder_complement(W):
    """Orthonormal bases ``Q(w)`` of the complements ``w^perp``.

    Parameters
    ----------
    W : ndarray of shape (s, d), d >= 2

    Returns
    -------
    ndarray of shape (s, d, d - 1)
        ``Q[j]`` has orthonormal columns orthogonal to ``W[j]`` (for ``w = 0``:
        those orthogonal to ``e_1``).

    Notes
    -----
    Columns 2..d of the Householder reflection ``H = I - 2 v v^T / v^T v``,
    ``v = w^ + sign(w^_1) e_1``, which maps ``e_1`` to ``-sign(w^_1) w^``.  In
    2-D this is ``+-(-w_2, w_1) / |w|``.  ``O(d^2)`` per frequency.
    """
    shape = shape_of(W)
    if shape is not None and len(shape) == 2 and shape[0] * shape[1] ** 2 > MAX_ELEMENTS:
        raise ValueError(f"'W' of shape (s, d) must have s d^2 <= {MAX_ELEMENTS} (the (s, d, d) "
                         f"reflections are formed; pass it in pieces); got shape {shape}.")
    W = as_points(W, "W")
    if W.shape[1] < 2:
        raise ValueError(f"'W' must have d >= 2 columns; got shape {W.shape}.")
    # each row scaled by a power of two (exact: the result is the same) to a largest entry
    # in [0.5, 1), so that |w|^2 neither overflows nor underflows for extreme rows
    _, e = np.frexp(np.max(np.abs(W), axis=1))
    return _householder_complement(np.ldexp(W, -e[:, None]))


def _householder_complement(W):
    """:func:`householder_complement` of a checked, finite ``W`` (s, d) of moderate scale."""
    s, d = W.shape
    norm = np.sqrt(np.sum(W * W, axis=1))
    U = np.zeros_like(W)
    ok = norm > 0
    U[ok] = W[ok] / norm[ok, None]
    U[~ok, 0] = 1.0
    sign = np.where(U[:, 0] >= 0, 1.0, -1.0)
    V = U.copy()
    V[:, 0] += sign
    vv = np.sum(V * V, axis=1)  # = 2 (1 + |u_1|) >= 2
    H = np.eye(d)[None] - (2.0 / vv)[:, None, None] * V[:, :, None] * V[:, None, :]
    return np.ascontiguousarray(H[:, :, 1:])
