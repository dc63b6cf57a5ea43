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
public wrappers in :mod:`qmc_orff.discrepancy` validate first.

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
Inside a task the pairs are visited row by row; for ``d < TILED_MAX_D`` the
loops run over the rows ``m`` of a tile (transposed tables, vectorised over
``m``), otherwise over the coordinates ``j`` of one pair: the same operations
per pair and the same order per accumulator, hence the same bits.
``fastmath`` is off: the discrepancy subtracts nearly equal terms.
"""
from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic

from ._jit import renamed

__all__ = ["TAU", "pair_value_grad", "pair_values", "pair_matrix", "sinc_taylor"]

#: below this |z| the Taylor polynomials replace the angle-addition form
TAU = 0.5
#: schedule of the pair loops: at most MAX_BLOCKS row blocks of at least
#: MIN_BLOCK_ROWS rows, and few enough blocks that a task (block pair) holds about
#: TASK_WORK pair-dimensions or more; inside a block pair, tiles of TILE rows
MAX_BLOCKS = 32
MIN_BLOCK_ROWS = 16
TASK_WORK = 50_000
#: at most MAX_GROUPS task groups (each a partial sum of its own), and at least two
#: tasks per group; the partial sums of groups 1.. take at most PARTIALS_BYTES
#: (but there are at least two groups above SERIAL_WORK)
MAX_GROUPS = 16
PARTIALS_BYTES = 64 << 20
TILE = 32
#: below this dimension the pair loops run vectorised over the rows m of a tile of
#: TILE_T rows (_task_tiled) instead of over the coordinates j (_task): faster for
#: small d (about 2.5x at d = 8), slower for large d; both give the same bits (the
#: same operations per pair, each accumulator in the same order)
TILED_MAX_D = 32
TILE_T = 64
#: below this many unordered pair-dimensions (several ms of work) the kernels run
#: on the calling thread (one task group).
SERIAL_WORK = 2_000_000

# sinc(z) = sum_k (-1)^k z^(2k) / (2k+1)!, k = 0..8 (truncation < 1e-19 at |z| = 0.5)
_S0 = 1.0
_S1 = -1.0 / 6.0
_S2 = 1.0 / 120.0
_S3 = -1.0 / 5040.0
_S4 = 1.0 / 362880.0
_S5 = -1.0 / 39916800.0
_S6 = 1.0 / 6227020800.0
_S7 = -1.0 / 1307674368000.0
_S8 = 1.0 / 355687428096000.0
# sinc'(z) = z * sum_{k>=1} (-1)^k 2k z^(2k-2) / (2k+1)!, k = 1..9
_D1 = -2.0 / 6.0
_D2 = 4.0 / 120.0
_D3 = -6.0 / 5040.0
_D4 = 8.0 / 362880.0
_D5 = -10.0 / 39916800.0
_D6 = 12.0 / 6227020800.0
_D7 = -14.0 / 1307674368000.0
_D8 = 16.0 / 355687428096000.0
_D9 = -18.0 / 121645100408832000.0


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


@njit(cache=True, inline="always", error_model="numpy")
def _factors(W, b, S, Co, l, m, fbuf, dbuf, zbuf):
    """``fbuf[j] = sinc(z_j)``, ``dbuf[j] = b_j sinc'(z_j)``, ``z_j = b_j (W[l, j] - W[m, j])``.

    Two passes: the angle-addition form for every ``j`` (a branch-free loop the
    compiler vectorises; ``1 / z`` is inf at ``z = 0``), then the Taylor
    polynomials only where ``|z_j| < TAU``.  Each factor is the same expression of
    the same operands as in the former branch-free select, so the values agree bitwise.
    """
    d = W.shape[1]
    for j in range(d):
        bj = b[j]
        z = bj * (W[l, j] - W[m, j])
        sz = S[l, j] * Co[m, j] - Co[l, j] * S[m, j]
        cz = Co[l, j] * Co[m, j] + S[l, j] * S[m, j]
        inv = 1.0 / z
        f_far = sz * inv
        fbuf[j] = f_far
        dbuf[j] = bj * ((cz - f_far) * inv)
        zbuf[j] = z
    for j in range(d):
        z = zbuf[j]
        if abs(z) < TAU:
            z2 = z * z
            fbuf[j] = _sinc_poly(z2)
            dbuf[j] = b[j] * (z * _dsinc_poly(z2))


@njit(cache=True, inline="always")
def _prod2(fbuf, d):
    """Product of fbuf[:d] as two interleaved chains (first half, second half)."""
    h = d >> 1
    pa = 1.0
    pb = 1.0
    for k in range(h):
        pa *= fbuf[k]
        pb *= fbuf[h + k]
    if d & 1:
        pb *= fbuf[d - 1]
    return pa, pb


@njit(cache=True, inline="always")
def _prefix_suffix(fbuf, pre, suf, d):
    """Exclusive prefix / suffix products within each half of fbuf[:d].

    On return ``pre[j] = prod_{q<j} f_q`` and ``suf[j] = prod_{q>j} f_q`` where
    both products run over the half that holds ``j`` (``[0, h)`` or ``[h, d)``,
    ``h = d // 2``); four independent multiplication chains run side by side.
    Returns the two half products of :func:`_prod2` (the same multiplications in
    the same order), so that the value-and-gradient path needs one pass only.
    """
    h = d >> 1
    pa = 1.0
    pb = 1.0
    sa = 1.0
    sb = 1.0
    odd = d & 1
    if odd:
        suf[d - 1] = 1.0
        sb = fbuf[d - 1]
    for k in range(h):
        pre[k] = pa
        pa *= fbuf[k]
        pre[h + k] = pb
        pb *= fbuf[h + k]
        ka = h - 1 - k
        suf[ka] = sa
        sa *= fbuf[ka]
        kb = h + ka
        suf[kb] = sb
        sb *= fbuf[kb]
    if odd:
        pre[d - 1] = pb
        pb *= fbuf[d - 1]
    return pa, pb


@njit(cache=True, inline="always", error_model="numpy")
def _product(W, b, S, Co, l, m, fbuf, zbuf):
    """``prod_j sinc(b_j (W[l, j] - W[m, j]))``.

    The factors are computed by the same operations as in :func:`_factors`, so
    the value-only and value-and-gradient paths agree bitwise.
    """
    d = W.shape[1]
    for j in range(d):
        z = b[j] * (W[l, j] - W[m, j])
        sz = S[l, j] * Co[m, j] - Co[l, j] * S[m, j]
        inv = 1.0 / z
        fbuf[j] = sz * inv
        zbuf[j] = z
    for j in range(d):
        z = zbuf[j]
        if abs(z) < TAU:
            fbuf[j] = _sinc_poly(z * z)
    pa, pb = _prod2(fbuf, d)
    return pa * pb


@njit(cache=True, inline="always")
def _pair_grad(W, b, S, Co, xi, grad, r, l, m, fbuf, dbuf, pre, suf, zbuf):
    """Add the contribution of the unordered pair (l, m), l != m, to r and grad."""
    d = W.shape[1]
    h = d >> 1
    xl = xi[l]
    xm = xi[m]
    _factors(W, b, S, Co, l, m, fbuf, dbuf, zbuf)
    pa, pb = _prefix_suffix(fbuf, pre, suf, d)
    p = pa * pb
    r[l] += xm * p
    r[m] += xl * p
    c = 2.0 * xl * xm
    if c == 0.0:
        return
    cb = c * pb  # first half: the suffix also spans the whole second half
    for j in range(h):
        t = (cb * suf[j]) * (dbuf[j] * pre[j])
        grad[l, j] += t
        grad[m, j] -= t
    ca = c * pa  # second half: the prefix also spans the whole first half
    for j in range(h, d):
        t = (ca * pre[j]) * (dbuf[j] * suf[j])
        grad[l, j] += t
        grad[m, j] -= t


@njit(cache=True, error_model="numpy")
def _task(W, b, S, Co, xi, grad, r, I, J, block, with_grad):
    """All unordered pairs (l in block I, m in block J), l < m when I == J.

    The loops run over tiles of TILE rows so that the rows of block J in use
    stay in cache; the order of the pairs is fixed by (I, J, block) alone.
    """
    s, d = W.shape
    buf = np.empty((5, d))
    fbuf = buf[0]
    dbuf = buf[1]
    pre = buf[2]
    suf = buf[3]
    zbuf = buf[4]
    l0 = I * block
    l1 = min(l0 + block, s)
    m0 = J * block
    m1 = min(m0 + block, s)
    for lt in range(l0, l1, TILE):
        for mt in range(m0, m1, TILE):
            if I == J and mt + TILE <= lt:
                continue
            for l in range(lt, min(lt + TILE, l1)):
                for m in range(max(mt, l + 1) if I == J else mt, min(mt + TILE, m1)):
                    if with_grad:
                        _pair_grad(W, b, S, Co, xi, grad, r, l, m, fbuf, dbuf, pre, suf, zbuf)
                    else:
                        p = _product(W, b, S, Co, l, m, fbuf, zbuf)
                        r[l] += xi[m] * p
                        r[m] += xi[l] * p


@njit(cache=True, error_model="numpy")
def _task_tiled(W, b, S, Co, xi, grad, r, I, J, block, with_grad, WT, ST, CT, F, D, PRE, SUF,
                vec):
    """:func:`_task` for small ``d``, vectorised over the rows ``m`` instead of ``j``.

    For one row ``l`` and the rows ``m`` of a tile (TILE_T rows of block J), every
    step runs over ``m`` on the transposed tables ``WT, ST, CT`` (d, s), with
    the operations of :func:`_pair_grad` for each pair in the same order.  Each
    accumulator receives its contributions in the order of the pair-by-pair
    loop (row ``l``: ``m`` ascending; row ``m``: ``l`` ascending; within a
    diagonal task a row gets all its ``-`` terms before its ``+`` terms), which
    does not depend on TILE_T: the results are bit-identical to the pair-by-pair
    kernel.  ``grad`` is transposed (d, s).  Scratch: ``F, D, PRE, SUF`` of shape
    (d, TILE_T), ``vec`` of shape (4, TILE_T).  No array views are created in the
    loops (each would cost reference-count updates).
    """
    s, d = W.shape
    h = d >> 1
    odd = d & 1
    l0 = I * block
    l1 = min(l0 + block, s)
    m0 = J * block
    m1 = min(m0 + block, s)
    for lt in range(l0, l1, TILE_T):
        for mt in range(m0, m1, TILE_T):
            if I == J and mt + TILE_T <= lt:
                continue
            for l in range(lt, min(lt + TILE_T, l1)):
                ms = max(mt, l + 1) if I == J else mt
                n = min(mt + TILE_T, m1) - ms
                if n <= 0:
                    continue
                # factors (angle-addition form), then the Taylor polynomials where |z| < TAU
                for j in range(d):
                    bj = b[j]
                    wl = W[l, j]
                    sl = S[l, j]
                    cl = Co[l, j]
                    for k in range(n):
                        z = bj * (wl - WT[j, ms + k])
                        sz = sl * CT[j, ms + k] - cl * ST[j, ms + k]
                        inv = 1.0 / z
                        f_far = sz * inv
                        F[j, k] = f_far
                        if with_grad:
                            cz = cl * CT[j, ms + k] + sl * ST[j, ms + k]
                            D[j, k] = bj * ((cz - f_far) * inv)
                    for k in range(n):
                        z = bj * (wl - WT[j, ms + k])
                        if abs(z) < TAU:
                            z2 = z * z
                            F[j, k] = _sinc_poly(z2)
                            if with_grad:
                                D[j, k] = bj * (z * _dsinc_poly(z2))
                # products: two chains (halves); prefix products within each half
                for k in range(n):
                    vec[0, k] = 1.0
                    vec[1, k] = 1.0
                for q in range(h):
                    for k in range(n):
                        PRE[q, k] = vec[0, k]
                        vec[0, k] *= F[q, k]
                        PRE[h + q, k] = vec[1, k]
                        vec[1, k] *= F[h + q, k]
                if odd:
                    for k in range(n):
                        PRE[d - 1, k] = vec[1, k]
                        vec[1, k] *= F[d - 1, k]
                xl = xi[l]
                rl = r[l]
                for k in range(n):
                    p = vec[0, k] * vec[1, k]
                    vec[2, k] = p
                    rl += xi[ms + k] * p
                r[l] = rl
                for k in range(n):
                    r[ms + k] += xl * vec[2, k]
                if not with_grad:
                    continue
                # suffix products within each half (vec[2], vec[3]: the running products)
                for k in range(n):
                    vec[3, k] = 1.0
                if odd:
                    for k in range(n):
                        SUF[d - 1, k] = 1.0
                        vec[2, k] = F[d - 1, k]
                else:
                    for k in range(n):
                        vec[2, k] = 1.0
                for q in range(h):
                    ka = h - 1 - q
                    kb = h + ka
                    for k in range(n):
                        SUF[ka, k] = vec[3, k]
                        vec[3, k] *= F[ka, k]
                        SUF[kb, k] = vec[2, k]
                        vec[2, k] *= F[kb, k]
                # t = (c pb suf_j) (df_j pre_j) (first half), (c pa pre_j) (df_j suf_j)
                # (second half), c = 2 xi_l xi_m; into D
                for k in range(n):
                    c = 2.0 * xl * xi[ms + k]
                    vec[2, k] = c * vec[1, k]
                    vec[3, k] = c * vec[0, k]
                for j in range(h):
                    for k in range(n):
                        D[j, k] = (vec[2, k] * SUF[j, k]) * (D[j, k] * PRE[j, k])
                for j in range(h, d):
                    for k in range(n):
                        D[j, k] = (vec[3, k] * PRE[j, k]) * (D[j, k] * SUF[j, k])
                for j in range(d):
                    acc = grad[j, l]
                    for k in range(n):
                        acc += D[j, k]
                    grad[j, l] = acc
                    for k in range(n):
                        grad[j, ms + k] -= D[j, k]


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


# One driver per loop order (tiled or pairwise), each in a parallel and a serial build
# (renamed: a cache file of its own), chosen in Python so that a call compiles only the
# build it runs (a runtime flag would compile both task kernels).  ``workers`` workers
# (one per thread; 1 in the serial build, where ``prange`` is ``range``) claim the task
# groups ``pairs[offsets[v]:offsets[v + 1]]`` in turn; group 0 adds into the outputs,
# group v > 0 into the partial sums ``R[v - 1]``, ``G[v - 1]``, which are then added to
# the outputs in the order v = 1, 2, ...: the same bits for any number of workers.
def _tiled_body(W, b, S, Co, xi, block, pairs, offsets, with_grad, workers):  # pragma: no cover
    s, d = W.shape
    groups = offsets.shape[0] - 1
    r = xi.copy()
    WT = np.ascontiguousarray(W.T)
    ST = np.ascontiguousarray(S.T)
    CT = np.ascontiguousarray(Co.T)
    gs = s if with_grad else 0
    gradT = np.zeros((d, gs))
    R = np.zeros((groups - 1, s))
    G = np.zeros((groups - 1, d, gs))
    scratch = np.empty((workers, 4, d, TILE_T))
    vecs = np.empty((workers, 4, TILE_T))
    counter = np.zeros(1, dtype=np.int64)
    for w in prange(workers):
        while True:
            v = _claim(counter)
            if v >= groups:
                break
            rv = r if v == 0 else R[v - 1]
            gv = gradT if v == 0 else G[v - 1]
            for t in range(offsets[v], offsets[v + 1]):
                _task_tiled(W, b, S, Co, xi, gv, rv, pairs[t, 0], pairs[t, 1], block, with_grad,
                            WT, ST, CT, scratch[w, 0], scratch[w, 1], scratch[w, 2],
                            scratch[w, 3], vecs[w])
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
    return r, np.ascontiguousarray(gradT.T) if with_grad else np.zeros((0, d))


def _pairwise_body(W, b, S, Co, xi, block, pairs, offsets, with_grad,
                   workers):  # pragma: no cover
    s, d = W.shape
    groups = offsets.shape[0] - 1
    r = xi.copy()
    gs = s if with_grad else 0
    grad = np.zeros((gs, d))
    R = np.zeros((groups - 1, s))
    G = np.zeros((groups - 1, gs, d))
    counter = np.zeros(1, dtype=np.int64)
    for w in prange(workers):
        while True:
            v = _claim(counter)
            if v >= groups:
                break
            rv = r if v == 0 else R[v - 1]
            gv = grad if v == 0 else G[v - 1]
            for t in range(offsets[v], offsets[v + 1]):
                _task(W, b, S, Co, xi, gv, rv, pairs[t, 0], pairs[t, 1], block, with_grad)
    # the partial sums, added in the order v = 1, 2, ... (parallel over entries)
    for k in prange(s):
        acc = r[k]
        for v in range(groups - 1):
            acc += R[v, k]
        r[k] = acc
    n = grad.size
    gflat = grad.reshape(n)
    parts = G.reshape((groups - 1, n))
    for k in prange(n):
        acc = gflat[k]
        for v in range(groups - 1):
            acc += parts[v, k]
        gflat[k] = acc
    return r, grad if with_grad else np.zeros((0, d))



_run_tiled = njit(cache=True, parallel=True, error_model="numpy")(
    renamed(_tiled_body, "_run_tiled"))
_run_tiled_serial = njit(cache=True, error_model="numpy")(
    renamed(_tiled_body, "_run_tiled_serial"))
_run_pairwise = njit(cache=True, parallel=True, error_model="numpy")(
    renamed(_pairwise_body, "_run_pairwise"))
_run_pairwise_serial = njit(cache=True, error_model="numpy")(
    renamed(_pairwise_body, "_run_pairwise_serial"))


def _run_schedule(W, b, S, Co, xi, block, pairs, offsets, with_grad, tiled):
    """The parallel driver of the loop order ``tiled``: one worker per thread (at most one
    per task group) claims groups in turn; bit-identical to :func:`_run_schedule_serial`."""
    run = _run_tiled if tiled else _run_pairwise
    workers = max(1, min(numba.get_num_threads(), offsets.shape[0] - 1))
    return run(W, b, S, Co, xi, block, pairs, offsets, with_grad, workers)


def _run_schedule_serial(W, b, S, Co, xi, block, pairs, offsets, with_grad, tiled):
    """The serial driver of the loop order ``tiled`` (the same groups and reduction)."""
    run = _run_tiled_serial if tiled else _run_pairwise_serial
    return run(W, b, S, Co, xi, block, pairs, offsets, with_grad, 1)


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
    return run(W, b, S, Co, xi, block, pairs, offsets, True, W.shape[1] < TILED_MAX_D)


def pair_values(W, b, S, Co, xi):
    """``r_l = sum_m xi_m K_lm`` without the gradient (same order, bit-identical ``r``)."""
    block, pairs, offsets = schedule(*W.shape)
    run = _run_schedule_serial if _serial(*W.shape) else _run_schedule
    return run(W, b, S, Co, xi, block, pairs, offsets, False, W.shape[1] < TILED_MAX_D)[0]


@njit(cache=True, error_model="numpy")
def _matrix_row(W, b, S, Co, H, l):
    s, d = W.shape
    fbuf = np.empty(d)
    zbuf = np.empty(d)
    H[l, l] = 1.0
    for m in range(l + 1, s):
        p = _product(W, b, S, Co, l, m, fbuf, zbuf)
        H[l, m] = p
        H[m, l] = p


@njit(cache=True, error_model="numpy")
def _pair_matrix_serial(W, b, S, Co):
    s = W.shape[0]
    H = np.empty((s, s))
    for l in range(s):
        _matrix_row(W, b, S, Co, H, l)
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
    for i in prange((s + 1) // 2):
        _matrix_row(W, b, S, Co, H, i)
        if s - 1 - i != i:
            _matrix_row(W, b, S, Co, H, s - 1 - i)
    return H
