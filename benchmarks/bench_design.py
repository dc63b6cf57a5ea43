"""Benchmark of the adaptive designs against the quality and speed floors of issue 4.

Run: ``python benchmarks/bench_design.py`` (about a minute or two on two cores).

Every row compares with a reference computed in the same run: the unscrambled
Halton points (from index 1) through the inverse CDF for quality, and for
speed the slower path (cvxpy vs the NNLS weights; a full O(t^2 d) recompute
vs the greedy O(t d) incremental evaluation).  Timings on a shared machine
are noisy.
"""
from __future__ import annotations

import time

import numpy as np

from qmc_orff import BoxDiscrepancy
from qmc_orff import designs as design
from qmc_orff.designs._optimizer import UnitProblem
from qmc_orff.designs.greedy import _greedy_step
from qmc_orff.designs.start_points import initial_points, to_frequencies
from qmc_orff.objectives._box_greedy import BoxGreedyState
from qmc_orff.objectives.weights import solve_weights_qp


def box(r, d):
    return BoxDiscrepancy(np.full(d, float(r)), sigma=np.ones(d))


def halton(obj, s, d):
    return to_frequencies(initial_points("halton", s, d), obj.density, 1.0)


def timed(f, *a, **k):
    t0 = time.perf_counter()
    out = f(*a, **k)
    return out, time.perf_counter() - t0


def greedy_step_floor(t_pts=250, d=8, repeat=7, inner=20):
    """Issue 14 floor: one greedy step at t points costs at most a full value_and_grad at (t, d).

    One step = what ``greedy_sequence`` does to place point t+1 on top of its first t
    points (default method, maxiter, tol, starts): the local optimisation from the
    (t+1)-th Halton init point (``designs.greedy._greedy_step``) and the update of the running
    sums (``BoxGreedyState.add``, timed on a copy of the state).  The reference is
    ``obj.value_and_grad`` of the t points.  The two are timed interleaved in one run;
    each figure is the minimum over ``repeat`` rounds of the mean of ``inner`` calls, in
    wall time and in CPU time of the process (both run on one thread; CPU time is not
    inflated by other processes on a shared machine).
    """
    import copy

    obj = box(2.0, d)
    seq = design.greedy_sequence(obj, t_pts)
    W = seq.points
    P = UnitProblem(obj, d)
    U0, _ = P.init_points("halton", t_pts + 1, None)
    state = P.greedy_state(t_pts + 1)
    for w in W * P.sigma:
        state.add(np.ascontiguousarray(w))
    w_next, nit = _greedy_step(state, U0, t_pts, 1, 0, "cg", 50, 1e-8)
    steps, fulls, steps_cpu, fulls_cpu = [], [], [], []
    for _ in range(repeat):
        t_step = c_step = 0.0
        for _ in range(inner):
            st = copy.deepcopy(state)
            t0, c0 = time.perf_counter(), time.process_time()
            w, _ = _greedy_step(st, U0, t_pts, 1, 0, "cg", 50, 1e-8)
            st.add(np.ascontiguousarray(w))
            t_step += time.perf_counter() - t0
            c_step += time.process_time() - c0
        steps.append(t_step / inner)
        steps_cpu.append(c_step / inner)
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(inner):
            obj.value_and_grad(W)
        fulls.append((time.perf_counter() - t0) / inner)
        fulls_cpu.append((time.process_time() - c0) / inner)
    step, full = min(steps), min(fulls)
    print(f"greedy step at t={t_pts}, d={d} ({nit} CG iterations): {step * 1e3:.2f} ms; full "
          f"value_and_grad at (s={t_pts}, d={d}): {full * 1e3:.2f} ms; step / full = "
          f"{step / full:.2f} (floor <= 1: {'yes' if step <= full else 'NO'}); in CPU time "
          f"{min(steps_cpu) * 1e3:.2f} / {min(fulls_cpu) * 1e3:.2f} ms = "
          f"{min(steps_cpu) / min(fulls_cpu):.2f}")
    return step, full


def main():
    rows = []

    # warm the numba kernels so that compilation is not timed
    design.global_sequence(box(2.0, 2), 8, maxiter=2)
    design.greedy_sequence(box(2.0, 2), 4, maxiter=2)

    # 1. global, d=4, s=64, b/sigma=2: D^2 <= 0.1 x Halton
    seq, t = timed(design.global_sequence, box(2.0, 4), 64, method="cg", maxiter=200)
    m = seq.meta
    rows.append(("global cg  d=4 s=64 b/s=2", m["d2"], m["halton_d2"], 0.1,
                 m["d2"] <= 0.1 * m["halton_d2"], t, f"{m['iterations']} it"))

    # 2. weighted, d=8, s=128, b/sigma=4: D^2 <= 1e-3 x Halton
    seq, t = timed(design.weighted_sequence, box(4.0, 8), 128)
    m = seq.meta
    rows.append(("weighted   d=8 s=128 b/s=4", m["d2"], m["halton_d2"], 1e-3,
                 m["d2"] <= 1e-3 * m["halton_d2"], t, f"kkt {m['kkt_residual']:.1e}"))

    # 3. weighted, d=16, s=512, b/sigma=2: D^2 <= 1e-2 x Halton
    seq, t = timed(design.weighted_sequence, box(2.0, 16), 512)
    m = seq.meta
    rows.append(("weighted   d=16 s=512 b/s=2", m["d2"], m["halton_d2"], 1e-2,
                 m["d2"] <= 1e-2 * m["halton_d2"], t, f"kkt {m['kkt_residual']:.1e}"))

    # 4. greedy beats Halton at every prefix >= 32 (d=4, b/sigma=2)
    obj = box(2.0, 4)
    s = 128
    seq, t = timed(design.greedy_sequence, obj, s)
    H = halton(obj, s, 4)
    hal = np.array([obj(H[:n]) for n in range(1, s + 1)])
    ratio = np.array(seq.meta["history"]) / hal
    worst = float(ratio[31:].max())
    rows.append((f"greedy     d=4 s={s} b/s=2", seq.meta["d2"], seq.meta["halton_d2"], 1.0,
                 worst < 1.0, t, f"worst prefix ratio {worst:.3f}"))

    # 5. global, d=8, s=256, 200 iterations in under 60 s
    seq, t = timed(design.global_sequence, box(2.0, 8), 256, method="cg", maxiter=200, tol=1e-12)
    m = seq.meta
    rows.append(("global cg  d=8 s=256 200 it", m["d2"], m["halton_d2"], None, t < 60.0, t,
                 f"{m['iterations']} it, floor 60 s"))
    seq, t = timed(design.global_sequence, box(2.0, 8), 256, method="l-bfgs-b", maxiter=200,
                   tol=1e-12)
    m = seq.meta
    rows.append(("global lbfgs d=8 s=256 200 it", m["d2"], m["halton_d2"], None, t < 60.0, t,
                 f"{m['iterations']} it, floor 60 s"))

    print(f"{'case':32s} {'D^2':>11s} {'Halton':>11s} {'ratio':>9s} {'floor':>7s} "
          f"{'ok':>4s} {'time s':>8s}  note")
    for name, d2, hal, floor, ok, t, note in rows:
        fl = "-" if floor is None else f"{floor:g}"
        print(f"{name:32s} {d2:11.4e} {hal:11.4e} {d2 / hal:9.3g} {fl:>7s} "
              f"{'yes' if ok else 'NO':>4s} {t:8.2f}  {note}")

    # speed references
    print()
    for d, s, r in ((8, 256, 2.0), (16, 512, 2.0)):
        obj = box(r, d)
        W = halton(obj, s, d)
        H, v = obj.pair_matrix(W), obj.linear_term(W)
        solve_weights_qp(H, v, solver="cvxpy")  # import cvxpy outside the timing
        t_fast = min(timed(solve_weights_qp, H, v, solver="nnls")[1] for _ in range(3))
        t_slow = min(timed(solve_weights_qp, H, v, solver="cvxpy")[1] for _ in range(3))
        r_fast = solve_weights_qp(H, v, solver="nnls")
        r_slow = solve_weights_qp(H, v, solver="cvxpy")
        print(f"weights QP d={d} s={s}: nnls {t_fast:.3f} s, cvxpy ({r_slow.solver}) "
              f"{t_slow:.3f} s, speed-up {t_slow / t_fast:.1f}x; |objective difference| "
              f"{abs(r_fast.objective - r_slow.objective):.2e} (D^2 constant "
              f"{obj.constant():.2e}); KKT nnls {r_fast.kkt_residual:.1e}, cvxpy "
              f"{r_slow.kkt_residual:.1e}")

    obj = box(2.0, 8)
    t_pts = 1000
    P = halton(obj, t_pts + 1, 8)
    state = BoxGreedyState(obj, t_pts + 1, 8)
    for w in P[:t_pts]:
        state.add(np.ascontiguousarray(w))
    w = np.ascontiguousarray(P[t_pts])
    reps = 200
    t0 = time.perf_counter()
    for _ in range(reps):
        state.candidate(w)
    t_inc = (time.perf_counter() - t0) / reps
    t0 = time.perf_counter()
    for _ in range(5):
        obj.value_and_grad(P)
    t_full = (time.perf_counter() - t0) / 5
    print(f"greedy step evaluation at t={t_pts}, d=8: incremental O(t d) {t_inc * 1e3:.3f} ms, "
          f"full O(t^2 d) value+grad {t_full * 1e3:.2f} ms, ratio {t_full / t_inc:.0f}x")


if __name__ == "__main__":
    import sys
    if "--greedy-floor" in sys.argv:
        design.greedy_sequence(box(2.0, 2), 4, maxiter=2)  # compile outside the timing
        greedy_step_floor()
    else:
        main()
