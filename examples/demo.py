"""End-to-end demo of qmc_orff (the job of ``make demo``).

1. Point generators: Halton, Sobol' and rank-1 lattice points from
   ``qmc_orff`` against plain Monte Carlo, measured by SciPy's L2-star and
   centered discrepancies (``scipy.stats.qmc.discrepancy``).
2. Random Fourier features on real data (scikit-learn's ``load_digits``,
   standardised, PCA to 8 dimensions so that a shipped catalogue dimension
   applies): frequencies from Monte Carlo, orthogonal random features (ORF),
   Halton, the library's default map (``FourierFeatures(n_components=s)``, nothing
   else given), the catalogue's designed sequences, the data-adaptive design
   (``sequence="adaptive"``, fitted to the training rows) and scikit-learn's
   ``Nystroem`` (2s landmarks, the data-dependent reference); a table of held-out
   Gram-matrix relative errors, each divided by ORF's, and box discrepancies at
   s = 256, and a plot of the Gram error against s.  The catalogue entry is the
   one whose ``box_over_sigma`` is log-nearest to the median of
   ``b_j / sigma`` for the "moment" box ``b_j = sqrt(6 var_j)`` (the box whose
   uniform distribution has the second moment of the data's differences; see
   examples/_common.py).
3. The same in 61 dimensions (all of digits' non-constant pixels, standardised):
   where box designs and Halton lose to ORF, the default and the adaptive map are
   set beside ORF, Halton and ``Nystroem``.

The adaptive designs use the library's defaults (``ADAPTIVE_OPTIONS`` is empty;
``--quick`` makes them smaller).

Every error is measured on held-out rows (a seeded split: a third of the rows,
at most 600); the bandwidth (the library's default: the median heuristic,
``FourierFeatures().fit(X_train).sigma_``), the boxes and the data-dependent maps see
the training rows only.  Run with ``python examples/demo.py [--out DIR]
[--quick]``; it says where its files went.  ``--quick`` (used by the test
suite) measures s in {64, 256} with two seeds only (and smaller adaptive designs).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

S_DEMO = 256
PCA_DIMS = 8
MC_REPS = 5
N_EVAL = 600  # held-out rows (at most a third of the data)
PART2_METHODS = ("default", "orf", "mc", "halton", "catalogue-global", "catalogue-weighted",
                 "adaptive", "nystroem")
PART2_COLUMNS = ["method", "reps", "rel_spectral", "rel_frobenius", "ratio_to_orf",
                 "D2(b)/E[MC]", "D2(b/4)/E[MC]", "D2(moment)/E[MC]"]
PART3_METHODS = ("default", "orf", "mc", "halton", "adaptive", "nystroem")
PART3_COLUMNS = ["method", "reps", "rel_spectral", "rel_frobenius", "ratio_to_orf", "fit_s"]
#: The demo's adaptive designs: the library's defaults (its validation stop ends them; the
#: whole demo fits in a few minutes on two cores).
ADAPTIVE_OPTIONS = {}
ADAPTIVE_OPTIONS_QUICK = {"n_train": 150, "maxiter": 20}
#: The library's default map in the tables and the figure (not one of _common's methods).
DEFAULT_LABEL = "default (FourierFeatures(n_components=s))"
DEFAULT_STYLE = dict(color="tab:red", marker="D", linestyle="-", linewidth=2)


def nystroem_maker(X_train, sigma):
    """scikit-learn's Nystroem at bandwidth ``sigma``: 2s landmarks from the training rows."""
    def make(s, seed):
        from sklearn.kernel_approximation import Nystroem

        return Nystroem(kernel="rbf", gamma=1.0 / (2.0 * sigma ** 2),
                        n_components=min(2 * s, len(X_train)), random_state=seed)
    return make


def generator_table(d=8, n=1024, mc_reps=10, seed=0):
    """Issue 2's job: each family's points against plain Monte Carlo."""
    from scipy.stats import qmc

    import qmc_orff

    engines = [
        ("Halton", "plain", lambda: qmc_orff.Halton(d, scramble=False)),
        ("Halton", "RR2 (deterministic)", lambda: qmc_orff.Halton(d, scramble="deterministic")),
        ("Halton", "random scramble", lambda: qmc_orff.Halton(d, scramble=True, rng=seed)),
        ("Sobol'", "plain", lambda: qmc_orff.Sobol(d, scramble=False)),
        ("Sobol'", "scrambled (LMS + shift)", lambda: qmc_orff.Sobol(d, scramble=True, rng=seed)),
        ("Lattice", "Kuo's vector", lambda: qmc_orff.Lattice(d)),
        ("Lattice", "random shift", lambda: qmc_orff.Lattice(d, shift=True, rng=seed)),
    ]
    rng = np.random.default_rng(seed)
    mc = [rng.random((n, d)) for _ in range(mc_reps)]
    mc_l2 = np.array([qmc.discrepancy(p, method="L2-star") for p in mc])
    mc_cd = np.array([qmc.discrepancy(p, method="CD") for p in mc])
    rows = [{"family": "Monte Carlo", "variant": f"mean of {mc_reps} seeds",
             "L2-star": mc_l2.mean(), "CD": mc_cd.mean(), "L2-star / MC": 1.0, "CD / MC": 1.0}]
    for family, variant, make in engines:
        pts = make().random(n)
        l2 = qmc.discrepancy(pts, method="L2-star")
        cd = qmc.discrepancy(pts, method="CD")
        rows.append({"family": family, "variant": variant, "L2-star": l2, "CD": cd,
                     "L2-star / MC": l2 / mc_l2.mean(), "CD / MC": cd / mc_cd.mean()})
    return rows


def feature_rows(Xtr, Xev, sigma, K, seq_entries, s_values, seed=0, reps=MC_REPS,
                 adaptive_reps=1, extra=(), record=None, adaptive_options=None):
    """Held-out Gram errors for the default / MC / ORF / Halton / catalogue / adaptive maps
    at each s.

    Every map is fitted on ``Xtr`` and evaluated on ``Xev`` (``K`` is the exact
    Gram reference of ``Xev``; ``sigma`` is the default map's bandwidth on ``Xtr``).
    ``extra`` adds ``(label, make(s, rep))`` maps (e.g. scikit-learn's Nystroem) with
    ``reps`` repetitions.
    """
    import qmc_orff

    FF = qmc_orff.FourierFeatures
    rows = []
    for s in s_values:
        def ff(**kw):
            return lambda: FF("gaussian", sigma=sigma, n_components=s, **kw)

        methods = [("default", 0, lambda: FF(n_components=s))]  # nothing else given
        methods += [("orf", r, ff(sequence="orf", seed=seed + r)) for r in range(reps)]
        methods += [("mc", r, ff(sequence="mc", seed=seed + r)) for r in range(reps)]
        methods += [("halton", 0, ff(sequence="halton", scramble="deterministic"))]
        for label, load in seq_entries:
            seq = load(s)
            if seq is not None:
                methods.append((label, 0, ff(sequence=seq)))
        if not hasattr(qmc_orff, "adaptive_sequence"):
            if record is not None:
                record.note("adaptive skipped: qmc_orff.adaptive_sequence is not available")
        else:
            methods += [("adaptive", r, ff(sequence="adaptive", seed=seed + r,
                                           design_options=adaptive_options
                                           or ADAPTIVE_OPTIONS))
                        for r in range(adaptive_reps)]
        for label, make in extra:
            methods += [(label, r, (lambda m=make, r=r: m(s, seed + r))) for r in range(reps)]
        orf_errs = []
        for label, rep, make in methods:
            t0 = time.perf_counter()
            tr = make().fit(Xtr)
            fit_s = time.perf_counter() - t0
            if label == "default" and tr.sigma_ != sigma:
                raise AssertionError("the default map's bandwidth is not the demo's")
            Z = tr.transform(Xev)
            spec, fro = K.errors(Z, spectral=(s == S_DEMO))
            if label == "orf":
                orf_errs.append(fro)
            rows.append({"s": s, "method": label, "rep": rep, "rel_spectral": spec,
                         "rel_frobenius": fro, "fit_s": fit_s, "_ff": tr})
        for r in rows:
            if r["s"] == s:
                r["ratio_to_orf"] = r["rel_frobenius"] / float(np.mean(orf_errs))
    return rows


def ratio_table(rows, s, methods):
    """Mean held-out errors at ``s`` and their ratio to ORF's mean (below 1: better than ORF)."""
    table = []
    for method in methods:
        members = [r for r in rows if r["s"] == s and r["method"] == method]
        if not members:
            continue
        rec = {"method": method, "reps": len(members)}
        for key in ("rel_spectral", "rel_frobenius", "ratio_to_orf", "fit_s"):
            vals = np.array([m[key] for m in members])
            rec[key] = vals.mean()
            if key == "rel_frobenius":
                rec[key + "_std"] = vals.std(ddof=1) if len(vals) > 1 else 0.0
        table.append(rec)
    return table


def main(argv=None):
    parser = C.make_parser(__doc__.splitlines()[0])
    args = parser.parse_args(argv)
    reps = 2 if args.quick else MC_REPS
    s_values = (64, S_DEMO) if args.quick else C.CATALOGUE_SIZES
    out = C.output_dir(args.out)
    record = C.RunRecord("demo", args)
    t_start = time.perf_counter()

    # ---------------------------------------------------------------- part 1
    n_gen = 256 if args.quick else 1024
    print(f"== 1. QMC point generators against Monte Carlo (d=8, n={n_gen}) ==")
    print("   SciPy's L2-star and centered (CD) discrepancies; lower is better,"
          " ratios below 1 beat plain Monte Carlo\n")
    gen_rows = generator_table(n=n_gen, seed=args.seed)
    print(C.format_table(gen_rows, ["family", "variant", "L2-star", "CD", "L2-star / MC", "CD / MC"]))
    C.write_csv(out / "demo_generators.csv", gen_rows)
    record.files.append(out / "demo_generators.csv")

    # ---------------------------------------------------------------- part 2
    import qmc_orff

    X, _, info = C.load_dataset("digits", pca=PCA_DIMS)
    Xtr, Xev = C.split_train_eval(X, N_EVAL, seed=args.seed)
    sigma = qmc_orff.FourierFeatures(n_components=1).fit(Xtr).sigma_  # the default bandwidth
    d = X.shape[1]
    b = np.asarray(qmc_orff.box_from_data(Xtr), dtype=float)
    b_mom = C.data_box(Xtr, kind="moment")
    ratio = float(np.median(b_mom / sigma))
    r_cat = C.log_nearest(ratio, C.CATALOGUE_BOXES)
    record.params.update(adaptive_options=ADAPTIVE_OPTIONS_QUICK if args.quick
                         else ADAPTIVE_OPTIONS)
    record.params.update(dataset=info, sigma=sigma, moment_box_over_sigma_median=ratio,
                         catalogue_box_over_sigma=r_cat, s=S_DEMO, mc_reps=reps,
                         s_values=list(s_values), n_train=len(Xtr), n_eval=len(Xev))
    print(f"\n== 2. Random Fourier features on {info['description']} ==")
    print(f"   n={info['n']} ({len(Xtr)} training rows, {len(Xev)} held-out rows for every "
          f"error), d={d};\n   Gaussian kernel, sigma = {sigma:.4g} (the default bandwidth: "
          f"median heuristic on the training rows);\n   median sqrt(6 var_j)/sigma = {ratio:.3g} -> catalogue entries with"
          f" box_over_sigma = {r_cat:g}\n")

    def catalogue_loader(method):
        failed = []

        def load(s):
            if failed:  # the catalogue is empty or lacks d: said once already
                return None
            try:
                return qmc_orff.load_catalogue(d, s, r_cat, method)
            except ValueError as exc:  # entry missing from the catalogue: say so, skip the row
                record.note(f"catalogue {method} d={d} s={s} skipped: {exc}")
                if "empty" in str(exc) or "'d' must be" in str(exc):
                    failed.append(True)
                return None
        return load

    seq_entries = [("catalogue-global", catalogue_loader("global")),
                   ("catalogue-weighted", catalogue_loader("weighted"))]
    K = C.GramReference(Xev, sigma)
    ada = ADAPTIVE_OPTIONS_QUICK if args.quick else ADAPTIVE_OPTIONS
    rows = feature_rows(Xtr, Xev, sigma, K, seq_entries, s_values, seed=args.seed, reps=reps,
                        extra=[("nystroem", nystroem_maker(Xtr, sigma))], record=record,
                        adaptive_options=ada)
    for r in rows:
        r["dataset"] = f"digits:pca{PCA_DIMS}"

    # discrepancies at s = 256 on b, b/4 and the moment box, relative to the MC expectation
    boxes = {"b": b, "b/4": b / 4, "moment": b_mom}
    disc = {k: qmc_orff.BoxDiscrepancy(bk, sigma=sigma) for k, bk in boxes.items()}
    expected = {k: o.expected_mc(S_DEMO, normalize=True) for k, o in disc.items()}
    table = ratio_table(rows, S_DEMO, PART2_METHODS)
    for rec in table:
        members = [r for r in rows if r["s"] == S_DEMO and r["method"] == rec["method"]]
        rec["dataset"] = f"digits:pca{PCA_DIMS}"
        if not hasattr(members[0]["_ff"], "frequencies_"):  # Nystroem: no frequencies
            continue
        for k, obj in disc.items():
            vals = [obj(*C.frequencies_and_weights(m["_ff"]), normalize=True) for m in members]
            rec[f"D2({k})/E[MC]"] = float(np.mean(vals)) / expected[k]
    print(f"Held-out Gram matrix relative errors, their ratio to ORF's (below 1: better than ORF)"
          f" and squared box\ndiscrepancies D^2 at s = {S_DEMO} (mc/orf: mean of {reps} seeds);"
          f" D^2 on the data-range box b, on b/4\nand on the moment box, as a ratio to its Monte"
          f" Carlo expectation (Corollary 15; below 1 beats MC)\n")
    print(C.format_table(table, PART2_COLUMNS))
    print("\nE[MC] normalised (mean squared integration error over the box): "
          + ", ".join(f"{k}: {v:.3g}" for k, v in expected.items()))
    record.params["expected_mc_normalized"] = expected

    # ---------------------------------------------------------------- part 3
    X3, _, info3 = C.load_dataset("digits")
    Xtr3, Xev3 = C.split_train_eval(X3, N_EVAL, seed=args.seed)
    sigma3 = qmc_orff.FourierFeatures(n_components=1).fit(Xtr3).sigma_
    s3 = (64,) if args.quick else (64, S_DEMO)
    record.params["high_dim"] = {"dataset": info3, "sigma": sigma3, "s_values": list(s3),
                                 "n_train": len(Xtr3), "n_eval": len(Xev3)}
    print(f"\n== 3. The same in high dimension: {info3['description']} ==")
    print(f"   n={info3['n']} ({len(Xtr3)} training, {len(Xev3)} held-out rows), "
          f"d={X3.shape[1]}, sigma = {sigma3:.4g};\n   the default and the adaptive map beside "
          f"ORF, Halton and scikit-learn's Nystroem (2s landmarks on the training rows)\n")

    K3 = C.GramReference(Xev3, sigma3)
    rows3 = feature_rows(Xtr3, Xev3, sigma3, K3, [], s3, seed=args.seed, reps=reps,
                         extra=[("nystroem", nystroem_maker(Xtr3, sigma3))], record=record,
                         adaptive_options=ada)
    for r in rows3:
        r["dataset"] = "digits"
    table3 = []
    for s in s3:
        for rec in ratio_table(rows3, s, PART3_METHODS):
            table3.append({"dataset": "digits", "s": s, **rec})
    print(C.format_table(table3, ["s"] + PART3_COLUMNS))

    csv_rows = [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows + rows3]
    csv_path = C.write_csv(out / "demo.csv", csv_rows)
    C.write_csv(out / "demo_table.csv", table)
    C.write_csv(out / "demo_high_dim.csv", table3)
    record.files += [out / "demo_table.csv", out / "demo_high_dim.csv"]

    # ---------------------------------------------------------------- plot
    plt = C.pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11.0, 4.4))
    for ax, ds, title in ((axes[0], f"digits:pca{PCA_DIMS}", f"digits (PCA {d}), sigma={sigma:.3g}"),
                          (axes[1], "digits", f"digits (d={X3.shape[1]}), sigma={sigma3:.3g}")):
        summary = C.summarize([r for r in csv_rows if r["dataset"] == ds], ["method", "s"],
                              ["rel_frobenius"])
        for method in ("default",) + C.METHODS:
            pts = sorted((r["s"], r["rel_frobenius_mean"], r["rel_frobenius_std"])
                         for r in summary if r["method"] == method)
            if not pts:
                continue
            s_, m_, e_ = map(np.array, zip(*pts))
            label = DEFAULT_LABEL if method == "default" else C.METHOD_LABELS[method]
            style = DEFAULT_STYLE if method == "default" else C.METHOD_STYLES[method]
            ax.errorbar(s_, m_, yerr=e_, capsize=3, label=label, **style)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("s (number of frequencies; 2s feature columns)")
        ax.set_ylabel(r"held-out $\|K - \tilde K\|_F / \|K\|_F$")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    png_path = C.save_figure(fig, out / "demo.png")

    print(f"\ntotal time {time.perf_counter() - t_start:.1f} s")
    C.finish(record, out, csv_path=csv_path, png_path=png_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
