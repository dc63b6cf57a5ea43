"""The designs' unit-bandwidth problem for the data objective (:class:`~qmc_orff.DataDiscrepancy`).

:func:`qmc_orff.global_sequence`, :func:`qmc_orff.greedy_sequence` and
:func:`qmc_orff.weighted_sequence` work on a problem object (``design._Unit``
for the box discrepancy); :class:`DataUnit` is the same interface for the data
discrepancy: the objective rebuilt on ``X / sigma`` at unit bandwidth (the
same values: ``L_{X, sigma}(W) = L_{X / sigma, 1}(sigma W)``), values
normalised by ``||K||_F^2 / m^2``, and a greedy state with running sums.
"""
from __future__ import annotations

import math

import numpy as np

from .data_discrepancy import DataDiscrepancy
from .design import _INITS, _GreedyState, _Unit, _scaled, to_frequencies, unit_points

__all__ = ["DataUnit", "is_data_objective"]


def is_data_objective(objective):
    return isinstance(objective, DataDiscrepancy)


class DataUnit(_Unit):
    """:class:`design._Unit` for a :class:`~qmc_orff.DataDiscrepancy` (see the module docstring)."""

    def __init__(self, objective, d):  # noqa: D107 - deliberately not calling _Unit.__init__
        from .densities import get_density

        self.objective = objective
        self.d = d
        self.sigma = np.ascontiguousarray(np.broadcast_to(np.asarray(objective.sigma, float), (d,)))
        self.kernel = objective.density_name
        self.nu = objective.nu
        self.density = get_density(self.kernel) if self.kernel in ("gaussian", "laplacian") else None
        self.obj = DataDiscrepancy(objective.X / self.sigma, kernel=self.kernel, sigma=1.0,
                                   nu=1.5 if self.nu is None else self.nu)
        self.a = None
        self.factor = _scaled(1.0, float(np.sum(np.log(self.sigma))))
        #: raw = normalised * ||K||_F^2 / m^2
        self.log_scale = math.log(objective.constant())

    def greedy_state(self, s):
        return _DataGreedyState(self.obj, s, self.d)

    def halton_nd2(self, s):
        return self.nd2(self._named("halton", s, None))

    def _named(self, init, s, seed):
        if self.density is not None and init in _INITS:
            return to_frequencies(unit_points(init, s, self.d, seed=seed), self.density, 1.0)
        from .frequencies import make_frequencies

        if init == "halton-rr2":
            init, scramble = "halton", "deterministic"
        elif init == "random":
            init, scramble = "mc", True
        else:
            scramble = False if init in ("halton", "sobol") else True
        W, _ = make_frequencies(self.kernel, s, self.d, sigma=1.0, sequence=init, seed=seed,
                                scramble=scramble, nu=1.5 if self.nu is None else self.nu)
        return W

    def init_points(self, init, s, seed):
        if isinstance(init, str) and init not in _INITS:
            if init not in ("orf", "mc", "lattice"):
                raise ValueError(f"'init' must be one of {', '.join(map(repr, _INITS))}, 'orf', "
                                 f"'mc', 'lattice', a Sequence or an array; got {init!r}.")
            if init == "orf" and self.kernel != "gaussian":
                raise ValueError(f"'init'='orf' needs the Gaussian kernel; got {self.kernel!r}.")
            return self._named(init, s, seed), init
        if isinstance(init, str):
            return self._named(init, s, seed), init
        return super().init_points(init, s, seed)

    def base_meta(self, s, method, init_name):
        from .adaptive import data_sha256

        meta = {
            "method": method,
            "objective": "data",
            "init": init_name,
            "density": self.kernel,
            "box_over_sigma": None,
            "sigma": [float(x) for x in self.sigma],
            "n_train": int(self.objective.m),
            "data_sha256": data_sha256(self.objective.X),
            "s": s,
            "d": self.d,
        }
        return self.stamped(meta, s)


class _DataGreedyState(_GreedyState):
    """Greedy running state for the data objective, uniform weights ``1/t``, normalised units.

    ``A = sum_l M_l`` (``M_l[i, j] = cos(w_l . (x_i - x_j))``) over the chosen
    points; with ``n = t + 1`` and ``R = A / n - K``, a candidate ``w`` (features
    ``c = cos(X w)``, ``s = sin(X w)``) gives
    ``m^2 L = ||R||^2 + (2/n)(c^T R c + s^T R s) + ((c.c)^2 + (s.s)^2 + 2 (c.s)^2) / n^2``:
    O(m^2 + m d) per evaluation.
    """

    def __init__(self, objective, s, d):  # noqa: D107 - not the box state's set-up
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
