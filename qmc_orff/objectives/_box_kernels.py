"""Numba kernels for the pair term of the box discrepancy (private).

All kernels work in NORMALISED units: with ``z_j = b_j (u_j - v_j)`` the pair
factor is ``prod_j sinc(z_j)``, ``sinc(z) = sin(z) / z`` (so ``sinc(0) = 1``);
the public wrapper multiplies by ``prod_j (b_j / pi)`` to get
``sinc_b(u, v) = pi^-d prod_j sin(b_j (u_j - v_j)) / (u_j - v_j)``.  Keeping every
factor in [-1, 1] avoids the underflow of ``prod_j b_j / pi`` in high dimension.

No transcendental function is called in the O(s^2 d) loops: ``sin(b_j w_lj)`` and
``cos(b_j w_lj)`` are tabulated once (``S``, ``Co``) and the angle-addition
identities give ``sin z`` and ``cos z`` for a pair.  Where ``|z| < TAU`` that
form loses relative accuracy to cancellation, so ``sinc(z)`` and its derivative
are taken from their Taylor polynomials there instead (exact to rounding for
``|z| < 0.5``; the angle-addition form then has relative error at most about
``eps (1 + |b_j w_lj| + |b_j w_mj|) / TAU``).

The kernels take plain C-contiguous float64 arrays and check nothing: the
public wrappers in :mod:`qmc_orff.objectives.box` validate first.

Parallel schedule of the pair sums (race-free, deterministic, no barrier between tasks):
rows are cut into at most ``MAX_BLOCKS`` blocks and every unordered block pair
``(I, J)`` is one task, which visits each unordered point pair once and adds
the pair's contribution to both rows (``+`` to row l, ``-`` to row m for the
gradient, since ``d sinc_b / d u = -d sinc_b / d v``).  The tasks, listed row
by row (``(0, 0), (0, 1), ..., (1, 1), ...``), are cut into ``V`` contiguous
groups of about equal work; ``V`` (at most ``MAX_GROUPS``) depends on ``(s, d)``
only, never on the number of threads.  Each group adds its tasks, in order, into
accumulators of its own (group 0 into the outputs, the others into zeroed
partial sums), so groups need no synchronisation: one parallel region runs
one worker per thread, and each worker claims the next unclaimed group (an
atomic counter: numba's OpenMP and workqueue layers hand out a ``prange`` in
fixed per-thread chunks whatever the chunk size) until none is left -- a
preempted thread holds back at most the group it is running, where the
former round-robin rounds (a barrier each) stalled every round.  A second
parallel loop then adds the partial sums to the outputs, entry by entry, in
the fixed order ``v = 1, 2, ..., V - 1``.  Which thread runs which group
changes nothing: every accumulator receives the same additions in the same
order, so results are bit-identical across runs, thread counts and the
serial and parallel builds (and between the value-only and
value-and-gradient paths).  Small problems (``< SERIAL_WORK``
pair-dimensions) form one group and run on the calling thread; listed row by
row, the tasks then give every accumulator its terms in the order of a single
block (partners ascending), whatever the block size.  The extra partial sums
are capped at ``PARTIALS_BYTES`` (but ``V >= 2`` above ``SERIAL_WORK``).
Inside a task a row ``l`` meets the rows ``m`` of a tile at once, every step
vectorised over ``m`` (transposed tables; :func:`_task_grad`), for every ``d``; a row
receives its terms in an order fixed by the pairs alone, so the bits are those of
the former pair-by-pair loops (tests/_pair_reference.py).
``fastmath`` is off: the discrepancy subtracts nearly equal terms.
"""
from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic

from .._jit import renamed

__all__ = ["TAU", "pair_value_grad", "pair_values", "pair_matrix", "sinc_taylor"]

#: below this |z| the Taylor polynomials replace the angle-addition form
TAU = 0.5
#: schedule of the pair loops: at most MAX_BLOCKS row blocks of at least
#: MIN_BLOCK_ROWS rows, and few enough blocks that a task (block pair) holds about
#: TASK_WORK pair-dimensions or more
MAX_BLOCKS = 32
MIN_BLOCK_ROWS = 16
TASK_WORK = 50_000
#: at most MAX_GROUPS task groups (each a partial sum of its own), and at least two
#: tasks per group; the partial sums of groups 1.. take at most PARTIALS_BYTES
#: (but there are at least two groups above SERIAL_WORK)
MAX_GROUPS = 16
PARTIALS_BYTES = 64 << 20
#: inside a block pair, a row l of a tile of TILE_L rows meets the TILE_M rows m of a
#: tile of the other block at once (each step vectorised over m); the scratch is
#: 3 d TILE_M doubles.  The results do not depend on either size.
TILE_L = 32
TILE_M = 64
#: below this many unordered pair-dimensions (several ms of work) the kernels run
#: on the calling thread (one task group).
SERIAL_WORK = 2_000_000

# sinc(z) = sum_k (-1)^k z^(2k) / (2k+1)!, k = 0..8 (truncation < 1e-19 at |z| = 0.5):
# the coefficients as float((-1)^k) / float((2k+1)!) (the literals -1.0 / 6.0, ...)
_S0, _S1, _S2, _S3, _S4, _S5, _S6, _S7, _S8 = (
    float((-1) ** k) / float(math.factorial(2 * k + 1)) for k in range(9))
# sinc'(z) = z * sum_{k>=1} (-1)^k 2k z^(2k-2) / (2k+1)!, k = 1..9
_D1, _D2, _D3, _D4, _D5, _D6, _D7, _D8, _D9 = (
    float((-1) ** k * 2 * k) / float(math.factorial(2 * k + 1)) for k in range(1, 10))


@njit(cache=True, inline="always")
def _sinc_poly(z2):
    return _S0 + z2 * (_S1 + z2 * (_S2 + z2 * (_S3 + z2 * (_S4 + z2 * (
        _S5 + z2 * (_S6 + z2 * (_S7 + z2 * _S8)))))))


@njit(cache=True, inline="always")
def _dsinc_poly(z2):
    return _D1 + z2 * (_D2 + z2 * (_D3 + z2 * (_D4 + z2 * (_D5 + z2 * (
        _D6 + z2 * (_D7 + z2 * (_D8 + z2 * _D9)))))))


@njit(cache=True, error_model="numpy")
def sinc_taylor(z):
    """``(sinc(z), sinc'(z))`` by the Taylor polynomials (valid for ``|z| < TAU``)."""
    z2 = z * z
    return _sinc_poly(z2), z * _dsinc_poly(z2)


@njit(cache=True, error_model="numpy")
def _tile_factors(W, b, S, Co, l, WT, ST, CT, mu, n, F, D, PRE, vec, with_grad):
    """Factors of the pairs ``(l, mu + k)``, ``k < n``, vectorised over ``k``.

    ``sinc(z)`` of ``z = b_j (W[l, j] - W[m, j])`` by the angle-addition form (``1 / z`` is
    inf at ``z = 0``), or by its Taylor polynomial where ``|z| < TAU``, chosen per element
    by a select (both are computed: a branch would mispredict on about one element in
    seven, and the loop would not vectorise).  On return ``vec[0, k]`` and ``vec[1, k]``
    are the products over the halves ``[0, h)`` and ``[h, d)``, ``h = d // 2``, each a chain
    in ascending ``j``.  With ``with_grad`` also ``F[j, k] = sinc(z)``,
    ``D[j, k] = b_j sinc'(z)`` and ``PRE[j, k]``, the product of the factors before ``j`` in
    ``j``'s half.  The row ``m`` is indexed as an unsigned integer: with a signed one numba
    wraps negative indices, and the loads become gathers.  The callers pass ``with_grad``
    as a constant: LLVM inlines this function and folds it.  (numba's own inlining,
    ``inline="always"``, gives the same code but made numba 0.58 compile for 30 s.)
    """
    d = W.shape[1]
    h = d >> 1
    for k in range(n):
        vec[0, k] = 1.0
        vec[1, k] = 1.0
    for j in range(d):
        bj = b[j]
        wl = W[l, j]
        sl = S[l, j]
        cl = Co[l, j]
        c = 0 if j < h else 1
        for k in range(n):
            m = mu + np.uint64(k)
            wm = WT[j, m]
            sm = ST[j, m]
            cm = CT[j, m]
            z = bj * (wl - wm)
            sz = sl * cm - cl * sm
            inv = 1.0 / z
            f_far = sz * inv
            z2 = z * z
            small = abs(z) < TAU
            f = _sinc_poly(z2) if small else f_far
            if with_grad:
                cz = cl * cm + sl * sm
                D[j, k] = bj * (z * _dsinc_poly(z2)) if small else bj * ((cz - f_far) * inv)
                F[j, k] = f
                PRE[j, k] = vec[c, k]
            vec[c, k] *= f


@njit(cache=True, error_model="numpy")
def _tile_grad(xi, gradT, l, mu, n, F, D, PRE, vec):
    """Add the gradient terms of the pairs ``(l, mu + k)`` to ``gradT`` (d, s).

    ``t_j = c prod_{q != j} f_q b_j sinc'(z_j)``, ``c = 2 xi_l xi_m``, as the product of
    the prefix ``PRE``, the suffix (a running product, descending ``j`` within each half)
    and the other half's product: ``(c pb suf_j) (D_j pre_j)`` in the first half,
    ``(c pa pre_j) (D_j suf_j)`` in the second.  Row ``m`` gets ``-t`` (``d/du = -d/dv``),
    row ``l`` the sum of ``t`` over ``k`` ascending.  (A function of its own: compiled
    into the task body its loops ran about 10% slower.)
    """
    d = D.shape[0]
    h = d >> 1
    xl = xi[l]
    for k in range(n):
        c = 2.0 * xl * xi[mu + np.uint64(k)]
        vec[2, k] = c * vec[1, k]
        vec[3, k] = c * vec[0, k]
        vec[0, k] = 1.0
        vec[1, k] = 1.0
    for j in range(d - 1, h - 1, -1):
        for k in range(n):
            sb = vec[1, k]
            t = (vec[3, k] * PRE[j, k]) * (D[j, k] * sb)
            vec[1, k] = sb * F[j, k]
            D[j, k] = t
            gradT[j, mu + np.uint64(k)] -= t
    for j in range(h - 1, -1, -1):
        for k in range(n):
            sa = vec[0, k]
            t = (vec[2, k] * sa) * (D[j, k] * PRE[j, k])
            vec[0, k] = sa * F[j, k]
            D[j, k] = t
            gradT[j, mu + np.uint64(k)] -= t
    for j in range(d):
        acc = gradT[j, l]
        for k in range(n):
            acc += D[j, k]
        gradT[j, l] = acc


def _task_body(W, b, S, Co, xi, gradT, r, I, J, block, WT, ST, CT):  # pragma: no cover
    """All unordered pairs (l in block I, m in block J), l < m when I == J.

    Adds ``xi_m K_lm`` to ``r[l]`` and ``xi_l K_lm`` to ``r[m]`` and, in the gradient build
    (``WITH_GRAD``), the gradient terms to ``gradT`` (d, s), transposed (the value build
    leaves ``gradT`` alone).  For a row ``l`` of a tile of TILE_L rows the pairs with the
    rows ``m`` of a tile of TILE_M rows of block J are computed together, each step
    vectorised over ``m`` on the transposed tables ``WT, ST, CT`` (d, s).  Row ``l``
    receives its terms in ascending ``m``, row ``m`` in ascending ``l``, and within a
    diagonal task a row gets all its terms as ``m`` before those as ``l``: an order fixed by
    the pairs alone, not by the tile sizes (the former pair-by-pair kernel, kept in
    tests/_pair_reference.py, gives the same bits).
    """
    s, d = W.shape
    width = TILE_M if WITH_GRAD else 0
    F = np.empty((d, width))
    D = np.empty((d, width))
    PRE = np.empty((d, width))
    vec = np.empty((4, TILE_M))
    l0 = I * block
    l1 = min(l0 + block, s)
    m0 = J * block
    m1 = min(m0 + block, s)
    for lt in range(l0, l1, TILE_L):
        for mt in range(m0, m1, TILE_M):
            if I == J and mt + TILE_M <= lt:
                continue
            for l in range(lt, min(lt + TILE_L, l1)):
                ms = max(mt, l + 1) if I == J else mt
                n = min(mt + TILE_M, m1) - ms
                if n <= 0:
                    continue
                mu = np.uint64(ms)
                _tile_factors(W, b, S, Co, l, WT, ST, CT, mu, n, F, D, PRE, vec, WITH_GRAD)
                xl = xi[l]
                rl = r[l]
                for k in range(n):
                    m = mu + np.uint64(k)
                    p = vec[0, k] * vec[1, k]
                    rl += xi[m] * p
                    r[m] += xl * p
                r[l] = rl
                if WITH_GRAD:
                    _tile_grad(xi, gradT, l, mu, n, F, D, PRE, vec)


# The task kernel in two builds (renamed, WITH_GRAD a compile-time constant): one body, and
# each build free of the other's work.  Both take ``gradT``; the value build ignores it.
WITH_GRAD = True
_task_grad = njit(cache=True, error_model="numpy")(
    renamed(_task_body, "_task_grad", WITH_GRAD=True))
_task_values = njit(cache=True, error_model="numpy")(
    renamed(_task_body, "_task_values", WITH_GRAD=False))


@intrinsic
def _claim(typingctx, counter):
    """``counter[0] += 1`` atomically (sequentially consistent); returns the old value.

    The workers of a parallel region take task groups in turn with it: numba's
    threading layers (OpenMP, workqueue) split a ``prange`` into fixed per-thread
    chunks, whatever ``numba.set_parallel_chunksize`` says, so a preempted thread
    would hold back its whole chunk.
    """
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
        return None
    sig = types.int64(counter)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        one = context.get_constant(types.int64, 1)
        return builder.atomic_rmw("add", ary.data, one, "seq_cst")

    return sig, codegen


# The driver, built parallel and serial and for each path (renamed, with WITH_GRAD a
# compile-time constant: a cache file each, and a call compiles only the task kernel it
# runs), chosen in Python.  ``workers`` workers (one per thread; 1 in the serial build,
# where ``prange`` is ``range``) claim the task groups ``pairs[offsets[v]:offsets[v + 1]]``
# in turn; group 0 adds into the outputs, group v > 0 into the partial sums ``R[v - 1]``,
# ``G[v - 1]``, which are then added to the outputs in the order v = 1, 2, ...: the same
# bits for any number of workers, in either build.
def _driver_body(W, b, S, Co, xi, block, pairs, offsets, workers):  # pragma: no cover
    s, d = W.shape
    groups = offsets.shape[0] - 1
    r = xi.copy()
    WT = np.ascontiguousarray(W.T)
    ST = np.ascontiguousarray(S.T)
    CT = np.ascontiguousarray(Co.T)
    gs = s if WITH_GRAD else 0
    gradT = np.zeros((d, gs))
    R = np.zeros((groups - 1, s))
    G = np.zeros((groups - 1, d, gs))
    counter = np.zeros(1, dtype=np.int64)
    for _w in prange(workers):  # one worker per iteration
        while True:
            v = _claim(counter)
            if v >= groups:
                break
            rv = r if v == 0 else R[v - 1]
            gv = gradT if v == 0 else G[v - 1]
            for t in range(offsets[v], offsets[v + 1]):
                if WITH_GRAD:
                    _task_grad(W, b, S, Co, xi, gv, rv, pairs[t, 0], pairs[t, 1], block,
                               WT, ST, CT)
                else:
                    _task_values(W, b, S, Co, xi, gv, rv, pairs[t, 0], pairs[t, 1], block, WT,
                                 ST, CT)
    # the partial sums, added in the order v = 1, 2, ... (parallel over entries)
    for k in prange(s):
        acc = r[k]
        for v in range(groups - 1):
            acc += R[v, k]
        r[k] = acc
    n = gradT.size
    gflat = gradT.reshape(n)
    parts = G.reshape((groups - 1, n))
    for k in prange(n):
        acc = gflat[k]
        for v in range(groups - 1):
            acc += parts[v, k]
        gflat[k] = acc
    return r, np.ascontiguousarray(gradT.T)


_run_grad = njit(cache=True, parallel=True, error_model="numpy")(
    renamed(_driver_body, "_run_grad", WITH_GRAD=True))
_run_grad_serial = njit(cache=True, error_model="numpy")(
    renamed(_driver_body, "_run_grad_serial", WITH_GRAD=True))
_run_values = njit(cache=True, parallel=True, error_model="numpy")(
    renamed(_driver_body, "_run_values", WITH_GRAD=False))
_run_values_serial = njit(cache=True, error_model="numpy")(
    renamed(_driver_body, "_run_values_serial", WITH_GRAD=False))
_DRIVERS = {(True, True): _run_grad, (True, False): _run_grad_serial,
            (False, True): _run_values, (False, False): _run_values_serial}


def _run_schedule(W, b, S, Co, xi, block, pairs, offsets, with_grad):
    """The parallel driver: ``(r, grad)``; one worker per thread (at most one per task
    group) claims groups in turn; bit-identical to :func:`_run_schedule_serial`."""
    workers = max(1, min(numba.get_num_threads(), offsets.shape[0] - 1))
    return _DRIVERS[with_grad, True](W, b, S, Co, xi, block, pairs, offsets, workers)


def _run_schedule_serial(W, b, S, Co, xi, block, pairs, offsets, with_grad):
    """The serial driver (the same groups and reduction, bit-identical): ``(r, grad)``."""
    return _DRIVERS[with_grad, False](W, b, S, Co, xi, block, pairs, offsets, 1)


def _serial(s, d):
    return s * (s - 1) // 2 * d < SERIAL_WORK or numba.get_num_threads() == 1


def schedule(s, d=1):
    """Block size and the task groups of the pair sums for ``s`` rows in dimension ``d``.

    Returns ``(block, pairs, offsets)``: group ``v`` is ``pairs[offsets[v]:offsets[v+1]]``,
    an (n, 2) int64 list of block pairs ``(I, J)``, ``I <= J``.  The pairs are listed row
    by row (``(0, 0), (0, 1), ..., (0, nb - 1), (1, 1), ...``: every unordered pair of
    blocks once) and cut into ``V`` contiguous groups of about equal work (point pairs):
    ``V = 1`` below ``SERIAL_WORK`` pair-dimensions, else the largest of at most
    ``MAX_GROUPS`` groups, at least two tasks per group and ``(V - 1) (s (d + 1))``
    float64 partial sums within ``PARTIALS_BYTES`` -- but at least two groups.  Depends
    on ``(s, d)`` only, never on the number of threads.
    """
    work = s * (s - 1) // 2 * d
    nb = max(1, min(MAX_BLOCKS, s // MIN_BLOCK_ROWS, math.isqrt(2 * work // TASK_WORK)))
    block = -(-s // nb)
    nb = -(-s // block)
    sizes = [min(block, s - i * block) for i in range(nb)]
    pairs = np.array([(i, j) for i in range(nb) for j in range(i, nb)],
                     dtype=np.int64).reshape(-1, 2)
    cost = np.array([sizes[i] * (sizes[i] - 1) // 2 if i == j else sizes[i] * sizes[j]
                     for i, j in pairs.tolist()], dtype=np.int64)
    if work < SERIAL_WORK:
        groups = 1
    else:
        fit = 1 + PARTIALS_BYTES // (8 * s * (d + 1))
        groups = max(min(2, len(pairs)), min(MAX_GROUPS, len(pairs) // 2, fit))
    # cut where the running work first reaches v / groups of the total (v = 1 .. groups - 1),
    # never leaving a group empty
    ends = np.cumsum(cost)
    offsets = np.empty(groups + 1, dtype=np.int64)
    offsets[0] = 0
    offsets[groups] = len(pairs)
    for v in range(1, groups):
        cut = int(np.searchsorted(ends, ends[-1] * v / groups)) + 1
        offsets[v] = min(max(cut, offsets[v - 1] + 1), len(pairs) - (groups - v))
    return block, pairs, offsets


def pair_value_grad(W, b, S, Co, xi):
    """Normalised pair sums and their gradient.

    Parameters
    ----------
    W : (s, d) float64, points.
    b : (d,) float64, box half-widths.
    S, Co : (s, d) float64, ``sin(b_j W[l, j])`` and ``cos(b_j W[l, j])``.
    xi : (s,) float64, weights.

    Returns
    -------
    r : (s,) float64
        ``r_l = sum_m xi_m K_lm`` (diagonal ``K_ll = 1`` included),
        ``K_lm = prod_j sinc(b_j (W[l, j] - W[m, j]))``.
    grad : (s, d) float64
        ``d/dW[l, j]`` of ``sum_{l, m} xi_l xi_m K_lm``.
    """
    block, pairs, offsets = schedule(*W.shape)
    run = _run_schedule_serial if _serial(*W.shape) else _run_schedule
    return run(W, b, S, Co, xi, block, pairs, offsets, True)


def pair_values(W, b, S, Co, xi):
    """``r_l = sum_m xi_m K_lm`` without the gradient (same order, bit-identical ``r``)."""
    block, pairs, offsets = schedule(*W.shape)
    run = _run_schedule_serial if _serial(*W.shape) else _run_schedule
    return run(W, b, S, Co, xi, block, pairs, offsets, False)[0]


@njit(cache=True, error_model="numpy")
def _matrix_row(W, b, S, Co, H, l, WT, ST, CT, vec):
    """Row and column ``l`` of ``H`` from the diagonal on, by tiles of TILE_M rows ``m``."""
    s = W.shape[0]
    H[l, l] = 1.0
    for mt in range(l + 1, s, TILE_M):
        n = min(TILE_M, s - mt)
        mu = np.uint64(mt)
        _tile_factors(W, b, S, Co, l, WT, ST, CT, mu, n, vec, vec, vec, vec, False)
        for k in range(n):
            p = vec[0, k] * vec[1, k]
            H[l, mt + k] = p
            H[mt + k, l] = p


@njit(cache=True, error_model="numpy")
def _pair_matrix_serial(W, b, S, Co):
    s = W.shape[0]
    H = np.empty((s, s))
    WT = np.ascontiguousarray(W.T)
    ST = np.ascontiguousarray(S.T)
    CT = np.ascontiguousarray(Co.T)
    vec = np.empty((4, TILE_M))
    for l in range(s):
        _matrix_row(W, b, S, Co, H, l, WT, ST, CT, vec)
    return H


def pair_matrix(W, b, S, Co):
    """``H[l, m] = prod_j sinc(b_j (W[l, j] - W[m, j]))`` (normalised, ``H[l, l] = 1``)."""
    if _serial(*W.shape):
        return _pair_matrix_serial(W, b, S, Co)
    return _pair_matrix_parallel(W, b, S, Co)


@njit(cache=True, parallel=True, error_model="numpy")
def _pair_matrix_parallel(W, b, S, Co):
    """``H[l, m] = prod_j sinc(b_j (W[l, j] - W[m, j]))`` (normalised, ``H[l, l] = 1``).

    Iteration ``i`` fills row ``i`` and row ``s - 1 - i`` from the diagonal on
    (and the mirrored columns), which balances the triangle; every entry is
    written by exactly one iteration.
    """
    s = W.shape[0]
    H = np.empty((s, s))
    WT = np.ascontiguousarray(W.T)
    ST = np.ascontiguousarray(S.T)
    CT = np.ascontiguousarray(Co.T)
    for i in prange((s + 1) // 2):
        vec = np.empty((4, TILE_M))
        _matrix_row(W, b, S, Co, H, i, WT, ST, CT, vec)
        if s - 1 - i != i:
            _matrix_row(W, b, S, Co, H, s - 1 - i, WT, ST, CT, vec)
    return H
