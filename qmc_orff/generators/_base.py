"""Bookkeeping shared by the QMC engines (``rng``/``seed`` handling, size and index checks)."""
from __future__ import annotations

import numbers

import numpy as np
from scipy.stats import qmc

from .._validation import as_generator, check_int, check_size

__all__ = ["IndexedEngine", "init_engine", "check_n", "engine_rng", "integers_like_scipy"]


def engine_rng(rng=None, seed=None, owner="engine"):
    """What `scipy.stats.qmc.QMCEngine` receives for ``rng=`` / ``seed=`` (SciPy >= 1.15, SPEC 7).

    - ``rng`` (the new keyword): anything ``numpy.random.default_rng`` accepts
      (None, an int, a SeedSequence, a BitGenerator, a Generator); the engine
      owns a generator *spawned* from it.  A legacy ``RandomState`` is a
      `TypeError` (SciPy fails on it too, less clearly).
    - ``seed`` (the legacy keyword, SciPy's meaning kept so that
      ``Sobol(d, seed=42)`` gives the points of ``scipy.stats.qmc.Sobol(d,
      seed=42)``): None or an int -> ``numpy.random.default_rng(seed)`` used
      directly (not spawned, hence a different stream than ``rng=42``); a
      Generator -> spawned as with ``rng``; a ``RandomState`` -> used as is.
      A SeedSequence or BitGenerator is a `TypeError` here (SciPy's legacy
      path rejects them too): pass it as ``rng``.

    Giving both is SciPy's `TypeError`: ``"<owner>() got multiple values for
    argument now known as `rng`"`` (``owner``: the engine's class name).
    """
    if seed is None:
        if isinstance(rng, np.random.RandomState):
            raise TypeError("'rng' must be None, an int, a SeedSequence, a BitGenerator or a "
                            "numpy Generator; a legacy RandomState is accepted only as 'seed' "
                            "(SciPy's legacy keyword).")
        return as_generator(rng, "rng")
    if rng is not None:
        # SciPy's own message (scipy._lib._util._transition_to_rng), which its tests match
        raise TypeError(f"{owner}() got multiple values for argument now known as `rng` "
                        "('seed' is SciPy's legacy keyword; give only one of them).")
    if isinstance(seed, (np.random.Generator, np.random.RandomState)):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError("'seed' must be None, an int, a numpy Generator or RandomState "
                        f"(SciPy's legacy keyword; use 'rng' for a SeedSequence or BitGenerator); "
                        f"got {seed!r}.")
    if seed < 0:
        raise ValueError(f"'seed' must be a nonnegative int; got {seed!r}.")
    # An int is handed to SciPy as is: its `check_random_state` makes
    # `default_rng(seed)` and uses it without spawning (a Generator would be spawned).
    return int(seed)


def init_engine(engine: qmc.QMCEngine, d: int, *, rng=None, seed=None, optimization=None) -> None:
    """Initialise the `scipy.stats.qmc.QMCEngine` part of ``engine``.

    ``rng``/``seed`` as in `engine_rng`; SciPy then spawns a child of a
    Generator (never of a legacy int ``seed`` or a RandomState), keeps a copy for
    `reset`, sets ``num_generated = 0`` and picks the ``optimization``
    post-processing ("random-cd", "lloyd": SciPy's own).
    """
    if optimization is not None and not isinstance(optimization, str):
        raise TypeError("'optimization' must be None, 'random-cd' or 'lloyd'; "
                        f"got {optimization!r}.")
    gen = engine_rng(rng, seed, owner=type(engine).__name__)
    if hasattr(engine, "_initialize"):  # SciPy >= 1.15
        engine._initialize(d, optimization=optimization, rng=gen)
    else:  # pragma: no cover - older SciPy: the base __init__ takes ``seed``
        qmc.QMCEngine.__init__(engine, d=d, optimization=optimization, seed=gen)


def integers_like_scipy(rng, high, size, dtype):
    """``scipy._lib._util.rng_integers(rng, high, size=size, dtype=dtype)``: ints in ``[0, high)``.

    Generator -> ``integers``; legacy RandomState -> ``randint`` (the same draws
    as SciPy's engines make).
    """
    if isinstance(rng, np.random.Generator):
        return rng.integers(0, high, size=size, dtype=dtype)
    return rng.randint(0, high, size=size, dtype=dtype)


def check_n(n, name: str = "n", *, width: int = 1) -> int:
    """Return the point count ``n`` as an int >= 0 (``n * width`` at most 2**28 entries)."""
    return check_size(n, name, width=width)


class IndexedEngine(qmc.QMCEngine):
    """A `scipy.stats.qmc.QMCEngine` whose points depend on their index alone.

    Skipping ahead therefore computes nothing.  ``random(n)`` checks ``n``
    (an int, ``0 <= n`` and ``n * d <= 2**28``, `~qmc_orff._validation.MAX_ELEMENTS`)
    and the index range before anything is allocated; subclasses with a bounded
    index range override ``_room()`` so that ``_check_room(n)`` raises before it is
    exceeded.

    Point ``i`` of the engine's set is index ``skip + i (leap + 1)`` of the
    sequence (`sequence_index`; MATLAB's ``'Skip'`` and ``'Leap'``, the origin
    counting as index 0); ``skip = leap = 0`` unless a subclass sets them
    through ``_init_skip_leap``.
    """

    skip = 0
    leap = 0

    def _init_skip_leap(self, skip, leap):
        """Check and store ``skip`` and ``leap`` (ints in ``[0, limit - 1]``, ``limit``
        the index range of ``_room()``); call after what ``_room()`` reads is set."""
        skip = check_int(skip, "skip", minimum=0)
        leap = check_int(leap, "leap", minimum=0)
        room = self._room()
        if room is not None:
            last = room[0] - 1
            for name, value in (("skip", skip), ("leap", leap)):
                if value > last:
                    raise ValueError(
                        f"'{name}' must be <= {last}: the sequence's indices run from 0 to "
                        f"{last} ({type(self).__name__} with these settings); got {value}.")
        self.skip, self.leap = skip, leap

    def sequence_index(self, i):
        """Index in the sequence of point ``i`` of this engine's set.

        Parameters
        ----------
        i : int
            Position in the set (``num_generated`` counts these), ``i >= 0``.

        Returns
        -------
        index : int
            ``skip + i (leap + 1)``.
        """
        return self.skip + i * (self.leap + 1)

    def _room(self):
        """``(limit, text, hint)``: indices below ``limit`` only; ``text`` opens the
        error message and ``hint`` closes it.  None (the default): unbounded."""
        return None

    def _check_room(self, n):
        room = self._room()
        if room is None:
            return
        limit, text, hint = room
        count, leaped = limit, ""
        if self.skip or self.leap:
            count = (limit - 1 - self.skip) // (self.leap + 1) + 1
            leaped = (f" With skip={self.skip} and leap={self.leap} (indices skip + i (leap + 1)) "
                      f"that is {count} points.")
        total = self.num_generated + n
        if total > count:
            raise ValueError(
                f"{text}{leaped} {self.num_generated} points have been previously generated, "
                f"then: n={self.num_generated}+{n}={total}.{hint}")

    def _empty(self, n):
        """Checked ``n`` and an empty ``(n, d)`` float64 block, allocated after the room check."""
        n = check_n(n, width=self.d)
        self._check_room(n)           # before anything is allocated
        return n, np.empty((n, self.d), dtype=np.float64)

    def random(self, n=1, *, workers=1):
        r"""Draw :math:`n` points in :math:`[0, 1)^d`.

        Parameters
        ----------
        n : int, default=1
            Number of points, :math:`n \ge 0` and :math:`n d \le 2^{28}` (2 GiB; consecutive
            calls continue the sequence, so draw more in pieces), and within the
            engine's index range (checked before anything is allocated).
        workers : int, default=1
            Accepted for SciPy compatibility; the kernels run on numba's
            threads (``numba.set_num_threads``).

        Returns
        -------
        sample : ndarray of shape (n, d)
        """
        n = check_n(n, width=self.d)
        self._check_room(n)
        return super().random(n, workers=workers)

    def _random_base2(self, m, max_m, limit_text, hint, family):
        """``random(2**m)`` after SciPy's `~scipy.stats.qmc.Sobol.random_base2` checks:
        ``0 <= m <= max_m`` (else ``"'m' must be <= {limit_text}; got m.{hint}"``) and
        ``num_generated + 2**m`` a power of 2, both before anything is allocated."""
        m = check_int(m, "m", minimum=0)
        if m > max_m:
            raise ValueError(f"'m' must be <= {limit_text}; got {m}.{hint}")
        n = 2 ** m
        total = self.num_generated + n
        if total & (total - 1) != 0:
            raise ValueError(
                f"The balance properties of {family} points require n to be a power of 2. "
                f"{self.num_generated} points have been previously generated, then: "
                f"n={self.num_generated}+2**{m}={total}. If you still want to do this, "
                f"the function '{type(self).__name__}.random()' can be used.")
        return self.random(n)

    def fast_forward(self, n):
        r"""Skip the next :math:`n` points (no points are computed).

        Parameters
        ----------
        n : int
            Number of points to skip, :math:`n \ge 0`, within the index range.

        Returns
        -------
        engine : QMCEngine
            The engine itself.
        """
        n = check_int(n, "n", minimum=0)
        self._check_room(n)
        self.num_generated += n
        return self
