"""Running sums of the greedy design for the box discrepancy (Avron et al. 2016, eq. 15).

``BoxDiscrepancy.greedy_state`` builds a :class:`BoxGreedyState`: each candidate
point costs O(t d) (compiled in :mod:`qmc_orff.objectives._greedy_kernels`).
"""
from __future__ import annotations

import math

import numpy as np

from ..densities import GaussianDensity
from ..densities._kernels import gauss_nodes
from ._greedy_kernels import (greedy_candidate, greedy_candidate_gauss, greedy_pair_sum_t_value,
                              product_and_grad, tabulate_row)

__all__ = ["BoxGreedyState"]


class BoxGreedyState:
    """Running sums for the greedy design, uniform weights ``1/t``, in normalised units.

    ``pair`` = sum over ordered pairs (diagonal included) of the normalised
    ``sinc_b`` (``prod_j sin(b_j x_j) / (b_j x_j)``, 1 on the diagonal) among the
    chosen points, ``lin`` = sum of the normalised ``v_l = prod_j pi g_j(w_lj) / b_j``;
    then ``pi^d / prod(b) D^2(S_t) = pair / t^2 - 2 lin / t + C`` with the normalised
    constant ``C``.  Every factor lies in ``[-1, 1]``: nothing underflows in high
    dimension.
    """

    def __init__(self, objective, s, d):
        self.b, self.sigma = objective.box_and_sigma(d)
        self.a = self.b / self.sigma
        self.density = objective.density
        self.diag = 1.0  # normalised sinc_b(w, w)
        self.C = float(objective.constant(d, normalize=True))
        self.W = np.zeros((s, d))
        # transposed tables of the chosen points (rows: W, sin(b W), cos(b W)), so that the
        # O(t d) loops of the kernels run over contiguous memory; scratch for the kernels
        self.tab = np.zeros((3, d, s))
        self.work = np.empty((3 * d + 1, s))
        self.coef = np.array([math.pi / self.a, math.pi * self.sigma / self.a])
        self.t = 0
        self.pair = 0.0
        self.lin = 0.0
        # Gaussian density: the candidates' g, g' in the same compiled call where every
        # coordinate is in the quadrature branch (tables of the nodes' terms in a)
        self.gauss_nodes = (gauss_nodes(self.a) if isinstance(self.density, GaussianDensity)
                            else None)

    def v_and_grad(self, w):
        """Normalised ``v(w) = prod_j pi g_j(w_j) / b_j`` and its gradient in ``w``."""
        g, dg = self._g(w)
        g = g * self.coef[0]  # pi / a
        dg = dg * self.coef[1]  # pi sigma / a
        grad = np.empty_like(g)
        return product_and_grad(g, dg, grad), grad

    def _g(self, w):
        x = self.sigma * w
        if not np.isfinite(x).all():
            raise ValueError("'x' must contain only finite values (no NaN or inf).")
        g, dg = self.density._g_and_derivative_flat(x, self.a)
        return np.asarray(g, dtype=np.float64), np.asarray(dg, dtype=np.float64)

    def candidate(self, w):
        """Normalised ``D^2(S_t + {w})`` and its gradient in ``w`` in O(t d)."""
        grad = np.empty_like(w)
        val = self.scaled_candidate(w, 1.0, grad)
        return val, grad

    def scaled_candidate(self, w, scale, grad):
        """``scale * D^2(S_t + {w})`` (normalised); ``scale`` times its gradient into ``grad``.

        One compiled call (:func:`~qmc_orff.objectives._greedy_kernels.greedy_candidate`) after the
        density's ``g`` (for the Gaussian density, where the quadrature branch applies, one
        call in all: ``greedy_candidate_gauss``, the same bits); the same operations as the
        former NumPy expression
        ``(pair + 2 S + 1) / n^2 - 2 (lin + v) / n + C`` times ``scale``.
        """
        sums = np.array([self.pair, self.lin, self.diag, self.C])
        if self.gauss_nodes is not None:
            val, done = greedy_candidate_gauss(w, self.sigma, self.a, *self.gauss_nodes, self.tab,
                                               self.t, self.b, self.work, self.coef, sums,
                                               self.t + 1, scale, grad)
            if done:
                return val
        g, dg = self._g(w)
        return greedy_candidate(w, self.tab, self.t, self.b, self.work, g, dg, self.coef, sums,
                                self.t + 1, scale, grad)

    def add(self, w):
        S = greedy_pair_sum_t_value(w, self.tab, self.t, self.b, self.work)
        v, _ = self.v_and_grad(w)
        self.W[self.t] = w
        self.tab[0, :, self.t] = w
        tabulate_row(w, self.b, self.tab[1, :, self.t], self.tab[2, :, self.t])
        self.pair += 2.0 * S + self.diag
        self.lin += v
        self.t += 1
        return self.value()

    def value(self):
        n = self.t
        return self.pair / n ** 2 - 2.0 * self.lin / n + self.C
