"""The former round-robin schedule of the pair kernel (tests and benchmarks only).

Until the pair sums moved to task groups with private partial sums
(:func:`qmc_orff.objectives._box_kernels.schedule`), every unordered block pair was
one task and the tasks ran in the rounds of the circle method, one ``prange``
(hence one barrier) per round, all writing the shared accumulators.  Kept here,
calling the library's task kernels unchanged, as the reference the grouped
schedule must match to rounding (tests/test_discrepancy.py) and as the "old"
driver of ``benchmarks/bench_discrepancy.py --pair-floor``.
"""
import numpy as np
from numba import njit, prange

from qmc_orff.objectives._box_kernels import _task_grad, _task_values

MAX_BLOCKS = 32
MIN_BLOCK_ROWS = 16
ROUND_WORK = 1_000_000


def schedule_rounds(s, d=1):
    """``(block, pairs, offsets)``: round ``k`` is ``pairs[offsets[k]:offsets[k+1]]``."""
    work = s * (s - 1) // 2 * d
    nb = max(1, min(MAX_BLOCKS, s // MIN_BLOCK_ROWS, work // ROUND_WORK))
    block = -(-s // nb)
    nb = -(-s // block)
    rounds = [[(i, i) for i in range(nb)]]
    n = nb + (nb & 1)
    for k in range(n - 1):
        rnd = []
        for i in range(n // 2):
            u = (k + i) % (n - 1)
            v = n - 1 if i == 0 else (k - i) % (n - 1)
            if u < nb and v < nb:
                rnd.append((min(u, v), max(u, v)))
        rounds.append(rnd)
    offsets = np.zeros(len(rounds) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(rnd) for rnd in rounds])
    pairs = np.array([pq for rnd in rounds for pq in rnd], dtype=np.int64).reshape(-1, 2)
    return block, pairs, offsets


@njit(cache=True, parallel=True, error_model="numpy")
def _run_rounds(W, b, S, Co, xi, block, pairs, offsets, with_grad):
    s, d = W.shape
    r = xi.copy()
    WT = np.ascontiguousarray(W.T)
    ST = np.ascontiguousarray(S.T)
    CT = np.ascontiguousarray(Co.T)
    gradT = np.zeros((d, s)) if with_grad else np.zeros((d, 0))
    for rnd in range(offsets.shape[0] - 1):
        lo = offsets[rnd]
        for t in prange(offsets[rnd + 1] - lo):
            if with_grad:
                _task_grad(W, b, S, Co, xi, gradT, r, pairs[lo + t, 0], pairs[lo + t, 1], block,
                           WT, ST, CT)
            else:
                _task_values(W, b, S, Co, xi, gradT, r, pairs[lo + t, 0], pairs[lo + t, 1],
                             block, WT, ST, CT)
    return r, np.ascontiguousarray(gradT.T) if with_grad else np.zeros((0, d))


def run_rounds(W, b, S, Co, xi, block, pairs, offsets, with_grad):
    """The former parallel driver (one ``prange`` per round)."""
    return _run_rounds(W, b, S, Co, xi, block, pairs, offsets, with_grad)


def pair_value_grad_rounds(W, b, S, Co, xi, with_grad=True):
    """The former ``pair_value_grad`` result (r, grad) by the round-robin schedule."""
    return run_rounds(W, b, S, Co, xi, *schedule_rounds(*W.shape), with_grad)
