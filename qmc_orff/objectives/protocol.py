"""The objective protocol: what every design asks of an objective.

An objective scores frequencies ``W`` (shape ``(s, d)``) with optional weights
``xi``: the box discrepancy of Avron et al. (2016, eq. 12;
:class:`~qmc_orff.BoxDiscrepancy`) or the Gram error on data
(:class:`~qmc_orff.DataDiscrepancy`).  The designs of :mod:`qmc_orff.designs`
take any object with the methods of :class:`Objective` and never ask for its
type: a new objective that implements them composes with every design.

Units
-----
Every objective has *raw* values and *normalised* ones (``normalize=True``):
``raw = normalised * normalizer(d)``, a positive factor that does not depend
on ``W`` (``prod(b / pi)`` for the box, Theorem 12; ``||K||_F^2 / m^2`` for
the data).  The designs optimise the normalised values, which never under- or
overflow, and report raw ones beside them.

Unit bandwidth
--------------
The designs work at unit bandwidth: ``U = sigma W`` against the objective
rebuilt for ``sigma = 1`` (the same normalised values).  :meth:`Objective.unit_bandwidth`
returns that problem as a :class:`UnitBandwidth`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # names used in type hints only
    import numpy as np
    from numpy.typing import ArrayLike

    from ..densities import ProductDensity

__all__ = ["Objective", "GreedyState", "UnitBandwidth"]


@runtime_checkable
class Objective(Protocol):
    """What a design needs of an objective (structural: no base class to inherit).

    Attributes
    ----------
    d : int or None
        The dimension the objective fixes (None: any, given to each call).
    """

    d: int | None

    def __call__(self, W: ArrayLike, weights: ArrayLike | None = None, *,
                 normalize: bool = False) -> float:
        """The value at frequencies ``W`` of shape (s, d) (weights ``1/s`` when None)."""

    def value_and_grad(self, W: ArrayLike, weights: ArrayLike | None = None, *,
                       normalize: bool = False) -> tuple[float, np.ndarray]:
        """The value and its gradient in ``W`` (an ndarray of shape (s, d))."""

    # ---- the weights QP (Avron et al. eq. 17): value(W, xi) = C - 2 v^T xi + xi^T H xi
    def pair_matrix(self, W: ArrayLike, *, normalize: bool = False) -> np.ndarray:
        """``H`` of shape (s, s), symmetric positive semidefinite."""

    def linear_term(self, W: ArrayLike, *, normalize: bool = False) -> np.ndarray:
        """``v`` of shape (s,)."""

    def constant(self, d: int | None = None, *, normalize: bool = False) -> float:
        """``C``, the value of the empty design."""

    def normalizer(self, d: int | None = None) -> float:
        """The positive factor ``raw / normalised`` (``ValueError`` where it is not a float64)."""

    def expected_mc(self, s: int, *, d: int | None = None, normalize: bool = False) -> float:
        """The expected value for ``s`` i.i.d. frequencies of the kernel's density."""

    # ---- what the designs build on
    def unit_bandwidth(self, d: int) -> UnitBandwidth:
        """The problem at unit bandwidth in ``d`` dimensions."""

    def greedy_state(self, s: int, d: int) -> GreedyState:
        """Running sums for adding up to ``s`` points one at a time (uniform weights)."""


class GreedyState(Protocol):
    """Running sums of a greedy design (uniform weights ``1/t``, normalised units).

    Attributes
    ----------
    W : ndarray of shape (s, d)
        The points added so far in its first ``t`` rows.
    t : int
        How many points have been added.
    """

    W: np.ndarray
    t: int

    def candidate(self, w: np.ndarray) -> tuple[float, np.ndarray]:
        """The value with ``w`` added, and its gradient in ``w``."""

    def scaled_candidate(self, w: np.ndarray, scale: float, grad: np.ndarray) -> float:
        """``scale`` times the value with ``w`` added; ``scale`` times its gradient into
        ``grad``."""

    def add(self, w: np.ndarray) -> float:
        """Add ``w``; return the new value."""

    def value(self) -> float:
        """The value of the points added so far."""


@dataclass(frozen=True)
class UnitBandwidth:
    """An objective's design problem at unit bandwidth (``U = sigma W``).

    Attributes
    ----------
    objective : Objective
        The objective rebuilt for ``sigma = 1``: its normalised value at ``U``
        equals the original's at ``W = U / sigma``.
    sigma : ndarray of shape (d,)
        The bandwidth.
    log_normalizer : float
        ``log normalizer(d)`` of the original objective (raw = normalised times
        its exponential; kept as a logarithm, which never overflows).
    meta : dict
        The objective's entries of a design's ``meta`` (after ``method``).
    density : ProductDensity or None
        The density whose inverse CDF maps unit-cube points to frequencies, or
        None where it is not a product density (then ``kernel`` names the source).
    box_over_sigma : ndarray of shape (d,) or None
        ``b / sigma`` for the box discrepancy.
    kernel : str or None
        The kernel name for :func:`qmc_orff.make_frequencies` where the start
        points of other sources are drawn from it (None: unit-cube points only).
    nu : float or None
        The Matern smoothness that goes with ``kernel``.
    sources : tuple of str
        Named starts beyond the unit-cube ones (e.g. ``"orf"``, ``"mc"``).
    """

    objective: Any
    sigma: np.ndarray
    log_normalizer: float
    meta: dict = field(default_factory=dict)
    density: ProductDensity | None = None
    box_over_sigma: np.ndarray | None = None
    kernel: str | None = None
    nu: float | None = None
    sources: tuple = ()
