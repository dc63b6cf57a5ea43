"""The lattice design: a rank-1 lattice chosen component by component for the box discrepancy.

The extension Avron et al. (2016, section 5) propose: each component of the
generating vector minimises the box discrepancy of the projection so far.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .._validation import MAX_DESIGN_POINTS, check_int
from ..objectives.protocol import Objective
from ._optimizer import UnitProblem, _resolve_d, _scaled
from .start_points import to_frequencies

if TYPE_CHECKING:  # names used in type hints only
    from typing import Any

    from ..sequence import Sequence

__all__ = ["lattice_sequence"]


def _lattice_unit(z, s, shift):
    i = np.arange(s, dtype=np.int64)[:, None]
    return np.mod((i * np.asarray(z, dtype=np.int64)[None, :]) % s / s + shift, 1.0)


def lattice_sequence(objective: Objective, s: int, *, d: int | None = None,
                     shift: Any = None, candidates: int | None = None) -> Sequence:
    r"""Rank-1 lattice whose generating vector minimises the box discrepancy, component by component.

    Parameters
    ----------
    objective : BoxDiscrepancy
    s : int
        Number of points, the lattice modulus, :math:`2 \le s \le 8192` (the ``(s, s)``
        factor matrices take :math:`8 s^2` bytes each; checked before any work).
    d : int or None, default=None
    shift : None or array_like of shape (d,), default=None
        Shift modulo 1 applied to the lattice before the inverse CDF.  ``None``
        means :math:`1 / (2 s)` in every coordinate: the centred lattice, whose
        points :math:`(k + 1/2) / s` avoid 0 and are symmetric about 1/2 in each
        coordinate.  Must keep every point away from 0.
    candidates : None or int, default=None
        Candidate values for each generating-vector component: all integers in
        :math:`[1, s/2]` coprime with :math:`s` (``None``; with the centred shift
        :math:`z` and :math:`s - z` give mirror-image, equally good points), or at most
        this many of them, evenly spaced.

    Returns
    -------
    Sequence
        ``meta`` holds ``generating_vector`` (:math:`z_1 = 1`), ``lattice_n`` (:math:`= s`),
        ``lattice_shift`` and the :math:`D^2` of the :math:`j`-dimensional projection
        after each component :math:`j` in ``history`` (normalised by its own
        :math:`\prod_{i \le j} b_i / \pi` in ``normalized_history``);
        :meth:`Sequence.write_lattice` exports it in the LDData lattice format.

    See Also
    --------
    cbc_lattice : a lattice for a function space, not a kernel.
    global_sequence, greedy_sequence, weighted_sequence : the other designs.

    Notes
    -----
    Point :math:`i` is :math:`w_i = F^{-1}\bigl(\{i z / s + \Delta\}\bigr) / \sigma`
    (:math:`\{\cdot\}` the fractional part, :math:`\Delta` the shift).  Component :math:`j`
    is chosen with components :math:`1, \dots, j-1` fixed, minimising the box discrepancy
    of the :math:`j`-dimensional projection (box :math:`b_1, \dots, b_j`).  The pair term is a
    product over coordinates, so the ``(s, s)`` product of the chosen
    coordinates' normalised sinc factors :math:`\sin(b_j x) / (b_j x)` is kept: each
    candidate costs :math:`O(s^2)`.  Comparing the normalised values (all factors in
    :math:`[-1, 1]`) picks the same component as the raw ones, which differ by the
    positive factor :math:`\prod_{i \le j} b_i / \pi` common to all candidates.

    Examples
    --------
    >>> from qmc_orff import BoxDiscrepancy, lattice_sequence
    >>> seq = lattice_sequence(BoxDiscrepancy(2.0, d=2), 16)
    >>> seq.meta["generating_vector"], seq.meta["lattice_shift"]
    ([1, 7], [0.03125, 0.03125])
    """
    d = _resolve_d(objective, d)
    s = check_int(s, "s", minimum=2, maximum=MAX_DESIGN_POINTS)   # (s, s) factor matrices
    prob = UnitProblem(objective, d)
    if prob.a is None:
        raise TypeError("lattice_sequence needs a BoxDiscrepancy 'objective' (it is built from the "
                        f"box's one-dimensional factors); got a {type(objective).__name__}.")
    b, sigma = prob.a, np.ones(d)  # unit bandwidth
    if shift is None:
        shift = np.full(d, 0.5 / s)
    else:
        shift = np.asarray(shift, dtype=np.float64)
        if shift.shape != (d,) or not np.all(np.isfinite(shift)):
            raise ValueError(f"'shift' must be a finite array of shape ({d},); got {shift.shape}.")
        shift = np.mod(shift, 1.0)
    cand = np.array([z for z in range(1, s // 2 + 1) if math.gcd(z, s) == 1], dtype=np.int64)
    if candidates is not None:
        k = check_int(candidates, "candidates", minimum=1)
        if k < cand.size:
            cand = cand[np.unique(np.round(np.linspace(0, cand.size - 1, k)).astype(np.int64))]
    density = objective.density
    # pair factors as products over coordinates; v and C likewise; all normalised (each
    # coordinate's factor divided by b_j / pi, so in [-1, 1]: nothing underflows in high d)
    P = np.ones((s, s))
    v = np.ones(s)
    C = 1.0
    z = []
    history = []

    def coord(zj, j):
        tj = np.mod((np.arange(s, dtype=np.int64) * zj) % s / s + shift[j], 1.0)
        if np.any(tj <= 0.0) or np.any(tj >= 1.0):
            raise ValueError("'shift' puts a lattice point at 0; choose a shift with no "
                             "coordinate a multiple of 1/s.")
        return np.asarray(density.ppf(tj), dtype=np.float64) / sigma[j]

    def factors(x, j):
        y = b[j] * (x[:, None] - x[None, :])
        with np.errstate(invalid="ignore", divide="ignore"):
            F = np.where(y == 0.0, 1.0, np.sin(y) / np.where(y == 0.0, 1.0, y))
        g = np.asarray(density.g(sigma[j] * x, b[j] / sigma[j]), dtype=np.float64) * (
            math.pi * sigma[j] / b[j])
        Cj = float(density.C(b[j] / sigma[j])) * (math.pi * sigma[j] / b[j])
        return F, g, Cj

    # history in the objective's units: the j-dimensional projection's normalised value
    # times prod_{i <= j} (a_i / pi), times prod(sigma) (unit-bandwidth convention)
    log_proj = float(np.sum(np.log(prob.sigma)))
    nhistory = []

    for j in range(d):
        best = None
        for zj in ([1] if j == 0 else cand):
            x = coord(int(zj), j)
            F, g, Cj = factors(x, j)
            val = float(np.sum(P * F)) / s ** 2 - 2.0 * float(np.sum(v * g)) / s + C * Cj
            if best is None or val < best[0]:
                best = (val, int(zj), F, g, Cj)
        val, zj, F, g, Cj = best
        z.append(zj)
        P *= F
        v *= g
        C *= Cj
        log_proj += math.log(b[j] / math.pi)
        nhistory.append(val)
        history.append(_scaled(val, log_proj))
    t = _lattice_unit(z, s, shift)
    U = to_frequencies(t, density, 1.0)
    meta = prob.base_meta(s, "lattice", "lattice")
    meta.update({
        "generating_vector": z,
        "lattice_n": s,
        "lattice_shift": [float(x) for x in shift],
        "n_candidates": int(cand.size),
        "history": history,
        "normalized_history": nhistory,
        "iterations": d,
        "stop_reason": "all components chosen",
    })
    return prob.finish(U, None, meta, prob.nd2(U))
