"""Orthogonal frequencies: orthogonal random features and orthogonal directions with
stratified radii (``"orf"`` and ``"orf-qmc"`` of :func:`qmc_orff.make_frequencies`), at unit
bandwidth."""
from __future__ import annotations

import functools

import numpy as np
from scipy import stats

from .._validation import as_generator
from ..generators.halton import _n_digits
from ._engine_cube import T_EPS

__all__ = ["ORF_QMC_SEED"]


def _haar_rows(G):
    """The first ``k`` rows of Haar-random orthogonal matrices from Gaussian ``G`` of shape
    ``(..., d, k)``: ``Q^T`` of its (reduced, stacked) QR with the signs of ``diag(R)`` moved
    into ``Q``, shape ``(..., k, d)``."""
    Q, R = np.linalg.qr(G)  # stacked: LAPACK per matrix, as one by one
    Q = Q * np.where(np.diagonal(R, axis1=-2, axis2=-1) < 0, -1.0, 1.0)[..., None, :]
    return np.swapaxes(Q, -1, -2)


def _orthogonal(s, d, rng):
    """Orthogonal random features (Yu et al. 2016) at unit bandwidth.

    Blocks of ``d`` rows ``S Q``: ``Q`` uniform on the orthogonal group (QR of a
    Gaussian matrix with the signs of ``diag(R)`` moved into ``Q``), ``S``
    diagonal with independent chi(d) entries, so that each row is marginally
    ``N(0, I)``; ``floor(s / d)`` independent blocks, then the ``m = s mod d`` rows left:
    the first ``m`` rows of such a block, from the reduced QR of a ``d x m`` Gaussian
    matrix (the same law; ``O(d m^2)`` work and ``O(d m)`` memory, not a ``d x d`` block:
    14 ms instead of 3.9 s at d = 3136, s = 64).
    """
    nfull, m = divmod(s, d)
    G = np.empty((nfull, d, d))
    norms = np.empty((nfull, d))
    for b in range(nfull):  # the draws in the order of one block after the other
        G[b] = rng.standard_normal((d, d))
        norms[b] = np.sqrt(rng.chisquare(d, size=d))
    blocks = []
    if nfull:
        blocks.append((norms[:, :, None] * _haar_rows(G)).reshape(nfull * d, d))
    if m:
        G = rng.standard_normal((d, m))
        blocks.append(np.sqrt(rng.chisquare(d, size=m))[:, None] * _haar_rows(G))
    return np.ascontiguousarray(np.concatenate(blocks, axis=0))


# --------------------------------------------------------------------------- orthogonal QMC
#: Candidate direction sets tried by ``"orf-qmc"`` (the best under the isotropic criterion is kept).
ORF_QMC_CANDIDATES = 8
#: Root seed of the fixed direction sets of ``"orf-qmc"`` when no seed is given.
ORF_QMC_SEED = 20161128


def _van_der_corput(s):
    """The first ``s`` base-2 radical inverses, centred by half a grid step (in ``(0, 1)``)."""
    i = np.arange(s, dtype=np.int64)
    t = np.zeros(s)
    f = 0.5
    while np.any(i):
        t += f * (i & 1)
        i >>= 1
        f *= 0.5
    return t + 0.5 * 2.0 ** -_n_digits(s - 1, 2)


def _radius_ppf(t, kernel, measure, nu, d):
    """Inverse CDF of ``|w|`` at unit bandwidth for the radial measures."""
    if measure == "radial":
        return np.sqrt(stats.chi2.ppf(t, d + 2))
    if kernel == "gaussian":
        return np.sqrt(stats.chi2.ppf(t, d))
    # matern (multivariate t): |w|^2 / d = (chi2_d / d) / (chi2_2nu / 2 nu) ~ F(d, 2 nu)
    return np.sqrt(d * stats.f.ppf(t, d, 2.0 * nu))


def _isotropic_criterion(U):
    """Data-free error of the unit-bandwidth frequencies ``U`` (s, d), uniform weights.

    ``E_delta (k(delta) - mean_j cos<u_j, delta>)^2`` for ``k(delta) = exp(-|delta|^2 / 2)``
    and ``delta ~ N(0, I / d)`` (differences at the median-heuristic scale, ``E|delta|^2 = 1``),
    up to the constant ``E k^2``::

        mean_jl [exp(-|u_j - u_l|^2 / 2d) + exp(-|u_j + u_l|^2 / 2d)] / 2
        - 2 (1 + 1/d)^(-d/2) mean_j exp(-|u_j|^2 / (2 (d + 1)))
    """
    s, d = U.shape
    sq = np.einsum("ij,ij->i", U, U)
    G = U @ U.T
    base = (sq[:, None] + sq[None, :]) / (2.0 * d)
    G /= d
    pair = 0.5 * (np.exp(-(base - G)) + np.exp(-(base + G)))
    lin = (1.0 + 1.0 / d) ** (-d / 2.0) * np.exp(-sq / (2.0 * (d + 1.0)))
    return float(pair.mean() - 2.0 * lin.mean())


def _orthogonal_directions(s, d, rng):
    """``ceil(s / d)`` Haar-random orthonormal blocks of ``d`` unit rows, truncated to ``s``.

    The last block has ``m = s - d floor(s / d)`` rows: the first ``m`` columns of a Haar
    orthogonal matrix, from the reduced QR of a ``d x m`` Gaussian matrix (``O(d m^2)``).
    """
    nfull, m = divmod(s, d)
    blocks = []
    if nfull:
        blocks.append(_haar_rows(rng.standard_normal((nfull, d, d))).reshape(nfull * d, d))
    if m:
        blocks.append(_haar_rows(rng.standard_normal((d, m))))
    return np.ascontiguousarray(np.concatenate(blocks, axis=0))


def _orf_qmc(s, d, kernel, measure, nu, seed):
    """Orthogonal directions with stratified (QMC) radii; see :func:`make_frequencies`."""
    if seed is None:
        return _orf_qmc_fixed(s, d, kernel, measure, float(nu)).copy()
    return _orf_qmc_draw(s, d, kernel, measure, nu, as_generator(seed))


def _orf_qmc_draw(s, d, kernel, measure, nu, rng):
    t = _van_der_corput(s)
    # a random rotation of the radii in [0, 1) (Cranley-Patterson): each radius stays
    # marginally exact, the set stays stratified
    t = np.mod(t + rng.random(), 1.0)
    np.clip(t, T_EPS, 1.0 - T_EPS, out=t)
    return _radius_ppf(t, kernel, measure, nu, d)[:, None] * _orthogonal_directions(s, d, rng)


@functools.lru_cache(maxsize=32)
def _orf_qmc_fixed(s, d, kernel, measure, nu):
    """The seedless ``"orf-qmc"`` frequencies: the best of a few fixed draws (cached)."""
    r = _radius_ppf(_van_der_corput(s), kernel, measure, nu, d)
    best, best_val = None, np.inf
    for rng in (np.random.default_rng(c) for c in
                np.random.SeedSequence(ORF_QMC_SEED).spawn(ORF_QMC_CANDIDATES)):
        U = r[:, None] * _orthogonal_directions(s, d, rng)
        val = _isotropic_criterion(U)
        if val < best_val:
            best, best_val = U, val
    best.setflags(write=False)
    return best
