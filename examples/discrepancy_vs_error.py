"""Box discrepancy against Gram error (Avron et al. 2016, Figure 4 and Table 2).

For each data set and number of frequencies ``s``, every sequence's normalised
squared box discrepancy ``pi^d / prod(b) * D^2`` (the mean squared integration
error over the box, Theorem 12) is measured on the full data box ``b`` and on
its central parts ``b/2`` and ``b/4``, next to the relative Frobenius error of
the Gram matrix it gives.  Sequences: Monte Carlo (and its expectation,
Corollary 15), Halton, scrambled Sobol', shifted lattice, and the global /
greedy / weighted designs optimised on ``b`` and on ``b/4`` (Table 2's
columns).

The paper's data (cpu, 21 dims; census, 119 dims) are not available offline;
the defaults use diabetes (10 dims) and breast cancer (30 dims), standardised,
bandwidth by the median heuristic.  Held-out evaluation: the bandwidth, the box
``b`` and the designs come from a training part of the rows; the Gram error is
measured on the other ``min(--n-eval, n // 3)`` rows (``_common.split_train_eval``).

Outputs: ``discrepancy_vs_error.csv`` (one row per data set, sequence, design
box, s and repetition), ``discrepancy_vs_error.png`` (Figure 4: D^2 on b/2
against s, and Gram error against D^2 on b/2), ``discrepancy_vs_error.json``.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

NAME = "discrepancy_vs_error"
BOXES = {"b": 1.0, "b/2": 0.5, "b/4": 0.25}
PLAIN = ("mc", "orf", "halton", "sobol", "lattice")
DESIGNS = ("global", "greedy", "weighted")


def parse(argv=None):
    p = C.make_parser(__doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=["diabetes", "breast_cancer"],
                   choices=["digits", "breast_cancer", "diabetes", "mnist"])
    p.add_argument("--s", nargs="+", type=int, default=[100, 300, 500])
    p.add_argument("--reps", type=int, default=10, help="repetitions of randomised sequences")
    p.add_argument("--design-maxiter", type=int, default=50)
    p.add_argument("--design-budget", type=float, default=5e6,
                   help="skip on-the-fly global/greedy designs with s^2 d above this")
    p.add_argument("--design-fractions", nargs="+", type=float, default=[1.0, 0.25],
                   help="boxes (as fractions of b) the designs are optimised on")
    p.add_argument("--n-eval", type=int, default=800,
                   help="held-out rows for the Gram error (at most a third of the rows)")
    args = p.parse_args(argv)
    if args.quick:
        args.datasets = ["diabetes"]
        args.s = [16, 48]
        args.reps = 2
        args.design_maxiter = 20
    return args


def frac_label(frac):
    for k, v in BOXES.items():
        if abs(v - frac) < 1e-12:
            return k
    return f"{frac:g}b"


def run(args, record):
    rows = []
    for name in args.datasets:
        X, _, info = C.load_dataset(name, seed=args.seed)
        Xtr, Xev = C.split_train_eval(X, args.n_eval, seed=args.seed)
        sigma = C.median_heuristic(Xtr, seed=args.seed)
        b = C.data_box(Xtr)
        fac = C.FrequencyFactory(d=X.shape[1], sigma=sigma, b=b,
                                 design_maxiter=args.design_maxiter,
                                 design_budget=args.design_budget,
                                 cache=args.out / "cache", tag=f"{name}{X.shape[0]}-train{len(Xtr)}")
        objs = {k: fac.objective(v) for k, v in BOXES.items()}
        ref = C.GramReference(Xev, sigma)
        record.params.setdefault("datasets", {})[name] = {**info, "sigma": sigma,
                                                          "n_train": len(Xtr), "n_eval": len(Xev)}
        print(f"\n{name}: {info['description']}; n={info['n']}, d={info['d']}, sigma={sigma:.4g}")
        for s in args.s:
            exp = {f"D2_{k}": o.expected_mc(s, normalize=True) for k, o in objs.items()}
            rows.append({"dataset": name, "method": "mc-expected", "design_box": "", "s": s,
                         "rep": 0, **exp, "rel_frobenius": float("nan")})
            jobs = [(m, None) for m in PLAIN] + [(m, f) for m in DESIGNS
                                                 for f in args.design_fractions]
            for method, frac in jobs:
                reps = args.reps if method in C.RANDOMIZED else 1
                for rep in range(reps):
                    t0 = time.perf_counter()
                    try:
                        tr = fac.transformer(method, s, seed=args.seed + rep, fraction=frac)
                        Z = tr.fit(Xtr).transform(Xev)  # fitted on training rows only
                    except C.Skip as exc:
                        record.note(f"{name}: {exc}")
                        break
                    except Exception as exc:  # a failing method is reported, not fatal to the run
                        C.report_failure(record, f"{name}: {method} at s={s}", exc)
                        break
                    W, xi = C.frequencies_and_weights(tr)
                    row = {"dataset": name, "method": method,
                           "design_box": "" if frac is None else frac_label(frac),
                           "s": s, "rep": rep}
                    for k, o in objs.items():
                        row[f"D2_{k}"] = o(W, xi, normalize=True)  # pi^d / prod(b) * D^2
                    row["rel_frobenius"] = ref.errors(Z, spectral=False)[1]
                    row["seconds"] = time.perf_counter() - t0
                    rows.append(row)
                last = [r for r in rows if r["dataset"] == name and r["s"] == s
                        and r["method"] == method and r["design_box"] == ("" if frac is None
                                                                           else frac_label(frac))]
                if last:
                    print(f"  s={s:4d} {method:9s} {last[0]['design_box']:4s} "
                          f"D2(b)={np.mean([r['D2_b'] for r in last]):.3g} "
                          f"D2(b/2)={np.mean([r['D2_b/2'] for r in last]):.3g} "
                          f"D2(b/4)={np.mean([r['D2_b/4'] for r in last]):.3g} "
                          f"gram={np.mean([r['rel_frobenius'] for r in last]):.4g}", flush=True)
    return rows


def label(method, box):
    return C.METHOD_LABELS.get(method, method) + (f" [{box}]" if box else "")


def plot(rows, args, path):
    from scipy.stats import spearmanr

    plt = C.pyplot()
    names = [n for n in args.datasets if any(r["dataset"] == n for r in rows)]
    fig, axes = plt.subplots(2, len(names), figsize=(6.0 * len(names), 8.5), squeeze=False)
    summary = C.summarize(rows, ["dataset", "method", "design_box", "s"], ["D2_b/2", "rel_frobenius"])
    series = sorted({(r["method"], r["design_box"]) for r in rows},
                    key=lambda mb: (list(C.METHODS + ("mc-expected",)).index(mb[0]), mb[1]))
    for j, name in enumerate(names):
        ax_top, ax_bot = axes[0, j], axes[1, j]
        for method, box in series:
            pts = sorted((r["s"], r["D2_b/2_mean"], r["rel_frobenius_mean"]) for r in summary
                         if r["dataset"] == name and r["method"] == method
                         and r["design_box"] == box)
            if not pts:
                continue
            s_, d_, e_ = map(np.array, zip(*pts))
            style = dict(C.METHOD_STYLES.get(method, dict(color="k", linestyle=":", marker="")))
            if box == "b/4":
                style["linestyle"] = ":"
            ax_top.plot(s_, d_, label=label(method, box), **style)
            if np.all(np.isfinite(e_)):
                ax_bot.plot(d_, e_, label=label(method, box), **style)
        ax_top.set_xscale("log")
        ax_top.set_yscale("log")
        ax_top.set_xlabel("s")
        ax_top.set_ylabel(r"normalised $D^2$ on b/2")
        ax_top.set_title(f"{name}: box discrepancy vs s", fontsize=10)
        ax_top.grid(True, which="both", alpha=0.3)
        pairs = [(r["D2_b/2_mean"], r["rel_frobenius_mean"]) for r in summary
                 if r["dataset"] == name and np.isfinite(r["rel_frobenius_mean"])]
        rho = spearmanr(*zip(*pairs)).statistic if len(pairs) > 2 else float("nan")
        ax_bot.set_xscale("log")
        ax_bot.set_yscale("log")
        ax_bot.set_xlabel(r"normalised $D^2$ on b/2")
        ax_bot.set_ylabel("relative Frobenius Gram error")
        ax_bot.set_title(f"{name}: Gram error vs $D^2$ on b/2 (Spearman {rho:.2f})", fontsize=10)
        ax_bot.grid(True, which="both", alpha=0.3)
    axes[0, -1].legend(fontsize=6)
    return C.save_figure(fig, path)


def main(argv=None):
    args = parse(argv)
    args.out = C.output_dir(args.out)
    record = C.RunRecord(NAME, args)
    record.params.update(s=args.s, reps=args.reps, design_maxiter=args.design_maxiter,
                         design_fractions=args.design_fractions)
    rows = run(args, record)
    csv_path = C.write_csv(args.out / f"{NAME}.csv", rows)
    png_path = plot(rows, args, args.out / f"{NAME}.png")
    C.finish(record, args.out, csv_path=csv_path, png_path=png_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
