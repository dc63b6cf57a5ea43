"""End-to-end demo of qmc_orff (the job of ``make demo``).

1. Point generators: Halton, Sobol' and rank-1 lattice points from
   ``qmc_orff`` against plain Monte Carlo, measured by SciPy's L2-star and
   centered discrepancies (``scipy.stats.qmc.discrepancy``).
2. Random Fourier features on real data (scikit-learn's ``load_digits``,
   standardised, PCA to 8 dimensions so that a shipped catalogue dimension
   applies): frequencies from Monte Carlo, orthogonal random features, Halton
   and the catalogue's designed sequences at s = 256; a table of Gram-matrix
   relative errors and box discrepancies, and a plot of the Gram error
   against s.  The catalogue entry is the one whose ``box_over_sigma`` is
   log-nearest to the median of ``b_j / sigma`` for the "moment" box
   ``b_j = sqrt(6 var_j)`` (the box whose uniform distribution has the second
   moment of the data's differences; see examples/_common.py).

Run with ``python examples/demo.py [--out DIR] [--quick]``; it takes well
under two minutes on two cores and says where its files went.  ``--quick``
(used by the test suite) measures s in {64, 256} with two seeds only.
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


def generator_table(d=8, n=1024, mc_reps=10, seed=0):
    """Issue 2's job: each family's points against plain Monte Carlo."""
    from scipy.stats import qmc

    import qmc_orff

    engines = [
        ("Halton", "plain", lambda: qmc_orff.Halton(d)),
        ("Halton", "RR2 (deterministic)", lambda: qmc_orff.Halton(d, scramble="deterministic")),
        ("Halton", "random scramble", lambda: qmc_orff.Halton(d, scramble=True, rng=seed)),
        ("Sobol'", "plain", lambda: qmc_orff.Sobol(d)),
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


def feature_rows(X, sigma, K, seq_entries, s_values, seed=0, reps=MC_REPS):
    """Gram errors for MC / ORF / Halton / catalogue maps at each s."""
    import qmc_orff

    rows = []
    for s in s_values:
        methods = [("mc", r, dict(sequence="mc", seed=seed + r)) for r in range(reps)]
        methods += [("orf", r, dict(sequence="orf", seed=seed + r)) for r in range(reps)]
        methods += [("halton", 0, dict(sequence="halton", scramble="deterministic"))]
        for label, load in seq_entries:
            seq = load(s)
            if seq is not None:
                methods.append((label, 0, dict(sequence=seq)))
        for label, rep, kw in methods:
            ff = qmc_orff.FourierFeatures("gaussian", sigma=sigma, n_components=s, **kw)
            Z = ff.fit_transform(X)
            spec, fro = K.errors(Z, spectral=(s == S_DEMO))
            rows.append({"s": s, "method": label, "rep": rep, "rel_spectral": spec,
                         "rel_frobenius": fro, "_ff": ff})
    return rows


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
    sigma = C.median_heuristic(X)
    d = X.shape[1]
    b = np.asarray(qmc_orff.box_from_data(X), dtype=float)
    b_mom = C.data_box(X, kind="moment")
    ratio = float(np.median(b_mom / sigma))
    r_cat = C.log_nearest(ratio, C.CATALOGUE_BOXES)
    record.params.update(dataset=info, sigma=sigma, moment_box_over_sigma_median=ratio,
                         catalogue_box_over_sigma=r_cat, s=S_DEMO, mc_reps=reps,
                         s_values=list(s_values))
    print(f"\n== 2. Random Fourier features on {info['description']} ==")
    print(f"   n={info['n']}, d={d}; Gaussian kernel, sigma = {sigma:.4g} (median heuristic);"
          f"\n   median sqrt(6 var_j)/sigma = {ratio:.3g} -> catalogue entries with"
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
    K = C.GramReference(X, sigma)
    rows = feature_rows(X, sigma, K, seq_entries, s_values, seed=args.seed, reps=reps)

    # discrepancies at s = 256 on b, b/4 and the moment box, relative to the MC expectation
    boxes = {"b": b, "b/4": b / 4, "moment": b_mom}
    disc = {k: qmc_orff.BoxDiscrepancy(bk, sigma=sigma) for k, bk in boxes.items()}
    expected = {k: o.expected_mc(S_DEMO, normalize=True) for k, o in disc.items()}
    table = []
    for method in ["mc", "orf", "halton", "catalogue-global", "catalogue-weighted"]:
        members = [r for r in rows if r["s"] == S_DEMO and r["method"] == method]
        if not members:
            continue
        rec = {"method": method, "reps": len(members)}
        for key in ("rel_spectral", "rel_frobenius"):
            vals = np.array([m[key] for m in members])
            rec[key] = vals.mean()
            rec[key + "_std"] = vals.std(ddof=1) if len(vals) > 1 else 0.0
        for k, obj in disc.items():
            vals = [obj(*C.frequencies_and_weights(m["_ff"]), normalize=True) for m in members]
            rec[f"D2({k})/E[MC]"] = float(np.mean(vals)) / expected[k]
        table.append(rec)
    print(f"Gram matrix relative errors and squared box discrepancies D^2 at s = {S_DEMO}"
          f" (mc/orf: mean of {reps} seeds);\nD^2 on the data-range box b, on b/4 and on the moment"
          " box, as a ratio to its Monte Carlo expectation\n(Corollary 15; below 1 beats MC)\n")
    print(C.format_table(table, ["method", "reps", "rel_spectral", "rel_frobenius",
                                 "D2(b)/E[MC]", "D2(b/4)/E[MC]", "D2(moment)/E[MC]"]))
    print("\nE[MC] normalised (mean squared integration error over the box): "
          + ", ".join(f"{k}: {v:.3g}" for k, v in expected.items()))
    record.params["expected_mc_normalized"] = expected

    csv_rows = [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]
    csv_path = C.write_csv(out / "demo.csv", csv_rows)
    C.write_csv(out / "demo_table.csv", table)
    record.files.append(out / "demo_table.csv")

    # ---------------------------------------------------------------- plot
    plt = C.pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    summary = C.summarize(csv_rows, ["method", "s"], ["rel_frobenius"])
    for method, style in [("mc", "o-"), ("orf", "s-"), ("halton", "^-"),
                          ("catalogue-global", "D-"), ("catalogue-weighted", "v-")]:
        pts = sorted((r["s"], r["rel_frobenius_mean"], r["rel_frobenius_std"])
                     for r in summary if r["method"] == method)
        if not pts:
            continue
        s_, m_, e_ = map(np.array, zip(*pts))
        ax.errorbar(s_, m_, yerr=e_, fmt=style, capsize=3, label=method)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("s (number of frequencies; 2s feature columns)")
    ax.set_ylabel(r"$\|K - \tilde K\|_F / \|K\|_F$")
    ax.set_title(f"digits (PCA {d}), Gaussian kernel, sigma={sigma:.3g}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    png_path = C.save_figure(fig, out / "demo.png")

    print(f"\ntotal time {time.perf_counter() - t_start:.1f} s")
    C.finish(record, out, csv_path=csv_path, png_path=png_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
