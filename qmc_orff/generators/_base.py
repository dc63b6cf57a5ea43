"""Bookkeeping shared by the QMC engines (seed handling, index checks)."""
from __future__ import annotations

from scipy.stats import qmc

from .._validation import as_generator, check_int

__all__ = ["IndexedEngine", "init_engine", "check_n"]


def init_engine(engine: qmc.QMCEngine, d: int, seed) -> None:
    """Initialise the `scipy.stats.qmc.QMCEngine` part of ``engine``.

    ``seed`` is turned into a `numpy.random.Generator` with
    ``numpy.random.default_rng`` semantics (what SciPy's ``rng`` keyword
    accepts); SciPy then spawns a child generator that the engine owns, keeps a
    copy for `reset`, and sets ``num_generated = 0``.  With the same ``seed`` an
    engine therefore draws the same random numbers as the SciPy engine built with
    ``rng=seed``.
    """
    rng = as_generator(seed)
    if hasattr(engine, "_initialize"):  # SciPy >= 1.15
        engine._initialize(d, rng=rng)
    else:  # pragma: no cover - older SciPy: the base __init__ takes ``seed``
        qmc.QMCEngine.__init__(engine, d=d, seed=rng)


def check_n(n, name: str = "n") -> int:
    """Return the number of points ``n`` as an int >= 0."""
    return check_int(n, name, minimum=0)


class IndexedEngine(qmc.QMCEngine):
    """A `scipy.stats.qmc.QMCEngine` whose points depend on their index alone.

    Skipping ahead therefore computes nothing.  Subclasses with a bounded
    index range override ``_check_room(n)`` to raise before it is exceeded.
    """

    def _check_room(self, n):  # noqa: ARG002 - unbounded by default
        return None

    def fast_forward(self, n):
        """Skip the next ``n`` points (no points are computed).

        Parameters
        ----------
        n : int
            Number of points to skip, ``n >= 0``.

        Returns
        -------
        engine : QMCEngine
            The engine itself.
        """
        n = check_n(n)
        self._check_room(n)
        self.num_generated += n
        return self
