"""The greedy design's running state for the data objective.

``DataDiscrepancy.greedy_state`` builds a :class:`DataGreedyState`: each candidate
frequency is scored against the points chosen so far in ``O(m^2 + m d)``.
"""
from __future__ import annotations

import numpy as np

__all__ = ["DataGreedyState"]


class DataGreedyState:
    """Greedy running state for the data objective, uniform weights ``1/t``, normalised units.

    ``A = sum_l M_l`` (``M_l[i, j] = cos(w_l . (x_i - x_j))``) over the chosen
    points; with ``n = t + 1`` and ``R = A / n - K``, a candidate ``w`` (features
    ``c = cos(X w)``, ``s = sin(X w)``) gives
    ``m^2 L = ||R||^2 + (2/n)(c^T R c + s^T R s) + ((c.c)^2 + (s.s)^2 + 2 (c.s)^2) / n^2``:
    O(m^2 + m d) per evaluation.
    """

    def __init__(self, objective, s, d):
        self.obj = objective
        self.X = objective.X
        self.K = np.asarray(objective.K)
        self.norm = float(objective.m) ** 2 * objective.constant()  # ||K||_F^2
        self.W = np.zeros((s, d))
        self.t = 0
        self.A = np.zeros_like(self.K)
        self._R = None

    def _residual(self):
        if self._R is None or self._R[0] != self.t:
            R = self.A / (self.t + 1)
            R -= self.K
            self._R = (self.t, R, float(np.vdot(R, R)))
        return self._R[1], self._R[2]

    def candidate(self, w):
        n = self.t + 1
        R, rr = self._residual()
        p = self.X @ w
        c, s = np.cos(p), np.sin(p)
        Rc, Rs = R @ c, R @ s
        cc, ss, cs = c @ c, s @ s, c @ s
        val = rr + (2.0 / n) * (c @ Rc + s @ Rs) + (cc * cc + ss * ss + 2.0 * cs * cs) / n ** 2
        dp = (4.0 / n) * (Rs * c - Rc * s)
        dp += (4.0 / n ** 2) * ((ss - cc) * c * s + cs * (c * c - s * s))
        return val / self.norm, (self.X.T @ dp) / self.norm

    def scaled_candidate(self, w, scale, grad):
        val, g = self.candidate(w)
        grad[:] = g * scale
        return val * scale

    def add(self, w):
        p = self.X @ w
        c, s = np.cos(p), np.sin(p)
        self.A += np.outer(c, c)
        self.A += np.outer(s, s)
        self.W[self.t] = w
        self.t += 1
        self._R = None
        return self.value()

    def value(self):
        E = self.A / self.t - self.K
        return float(np.vdot(E, E)) / self.norm
