"""The tables of each script's section of ``examples/RESULTS.md``, built from the script's
CSV rows and JSON metadata (``SECTIONS``: script name -> ``section(rows, meta)``, a list of
Markdown lines).  :mod:`make_results` assembles them."""
from __future__ import annotations

import numpy as np

import _common as C


PUBLISHED = {
    # Minh (2016), Table 1: relative Frobenius error, mean (std) over 10 runs
    "minh_table1": {
        ("curl_free", "bounded"): {100: (0.2811, 0.0606), 500: (0.1011, 0.0216), 1000: (0.0906, 0.0172)},
        ("curl_free", "spectral"): {100: (0.3315, 0.0638), 500: (0.1363, 0.0227), 1000: (0.0984, 0.0207)},
        ("div_free", "bounded"): {100: (0.2223, 0.0605), 500: (0.1006, 0.0221), 1000: (0.0680, 0.0114)},
        ("div_free", "spectral"): {100: (0.2826, 0.0567), 500: (0.1386, 0.0388), 1000: (0.0842, 0.0167)},
    },
    # issue 6: scikit-learn 1.9 RBFSampler on digits, relative Frobenius error by output columns
    "digits_rbf": {128: 0.110, 512: 0.053, 2048: 0.029},
}


def sequence_order(label):
    """Sort key for 'method [box]' labels: methods in C.METHODS order, then boxes."""
    order = ["exact-krr"] + list(C.METHODS) + ["mc-expected"]
    boxes = ["", "[b]", "[b/2]", "[b/4]", "[moment]"]
    method, _, box = label.partition(" ")
    return (order.index(method) if method in order else len(order),
            boxes.index(box) if box in boxes else len(boxes), box)


def pm(mean, std, reps, fmt="{:.4g}"):
    if mean is None or not np.isfinite(mean):
        return "n/a"
    txt = fmt.format(mean)
    if reps and int(reps) > 1:
        txt += " ± " + "{:.2g}".format(std)
    return txt


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def pivot(summary, row_key, col_key, value, *, cols=None, fmt="{:.4g}"):
    """Markdown table: one row per ``row_key`` value, one column per ``col_key``."""
    rows_v = sorted({r[row_key] for r in summary})
    cols = cols or sorted({r[col_key] for r in summary}, key=str)
    cells = {(r[row_key], r[col_key]): r for r in summary}
    body = []
    for rv in rows_v:
        line = [rv]
        for cv in cols:
            r = cells.get((rv, cv))
            line.append("—" if r is None else pm(r[f"{value}_mean"], r[f"{value}_std"], r["reps"], fmt))
        body.append(line)
    return md_table([row_key] + [str(c) for c in cols], body)


def header_block(meta):
    command = meta["command"].replace(str(C.REPO_ROOT) + "/", "")
    lines = [f"Command: `{command}`  ",
             f"Run: {meta['started_utc']}, wall time {meta['wall_s']:.0f} s"
             f"{' (**--quick**: CI-sized, not the full experiment)' if meta.get('quick') else ''}."]
    if not meta.get("complete", True):
        done = meta.get("params", {}).get("completed_datasets", [])
        sizes = meta.get("params", {}).get("completed_s", {})
        part = "; ".join(f"{k}: s = {', '.join(map(str, v))}" for k, v in sizes.items()
                         if k not in done)
        lines.append(f"\n**Partial run: it was stopped before the end**; data sets completed: "
                     f"{', '.join(done) if done else 'none'}"
                     + (f"; sizes completed in the others: {part}" if part else "") + ".")
    return "\n".join(lines)


# --------------------------------------------------------------------------- sections
def section_gram(rows, meta):
    out = []
    summ = C.summarize(rows, ["dataset", "method", "s"], ["rel_spectral", "rel_frobenius"])
    infos = meta["params"].get("datasets", {})
    order = list(infos)  # data sets in run order; a partial run shows what it finished
    for name in order:
        info = infos[name]
        sub = [r for r in summ if r["dataset"] == name]
        if not sub:
            continue
        methods = [m for m in C.METHODS if any(r["method"] == m for r in sub)]
        split = (f" ({info['n_train']} training rows, {info['n_eval']} held-out evaluation rows: "
                 f"every error below is on the evaluation rows)" if "n_eval" in info else "")
        out.append(f"**{name}** — {info['description']}; n = {info['n']}{split}, d = {info['d']}, "
                   f"sigma = {info['sigma']:.4g} (median heuristic), catalogue box_over_sigma = "
                   f"{info['catalogue_box_over_sigma']:g}.\n")
        for key, label in (("rel_frobenius", "relative Frobenius error"),
                           ("rel_spectral", "relative spectral error")):
            if all(not np.isfinite(r[f"{key}_mean"]) for r in sub):
                continue
            out.append(f"{label} (mean ± std over repetitions; columns = 2s):\n")
            out.append(pivot(sub, "s", "method", key, cols=methods))
            out.append("")
        # each method against ORF (issue 10: where data exist, ratios point at ORF)
        orf = {r["s"]: r["rel_frobenius_mean"] for r in sub if r["method"] == "orf"}
        if orf:
            s_vals = sorted(orf)
            body = []
            for m in methods:
                if m == "orf":
                    continue
                got = {r["s"]: r["rel_frobenius_mean"] for r in sub if r["method"] == m}
                body.append([C.METHOD_LABELS[m]] + [
                    f"{got[sv] / orf[sv]:.3g}" if sv in got and orf[sv] > 0 else "—"
                    for sv in s_vals])
            out.append("Each method's Frobenius error divided by ORF's (`sequence=\"orf\"`, mean "
                       "over seeds; below 1: better than ORF):\n")
            out.append(md_table(["method"] + [f"s={sv}" for sv in s_vals], body))
            out.append("")
        nys = {r["s"]: r["rel_frobenius_mean"] for r in sub if r["method"] == "nystroem"}
        ada = {r["s"]: r["rel_frobenius_mean"] for r in sub if r["method"] == "adaptive"}
        common = [sv for sv in sorted(ada) if sv in nys and nys[sv] > 0]
        if common:
            out.append("Adaptive map against scikit-learn's Nystroem (2s landmarks, same training "
                       "rows): error ratio " + "; ".join(f"s={sv}: {ada[sv] / nys[sv]:.3g}"
                                                         for sv in common) + ".\n")
        # error ratios against the two random baselines (above 1: the method is better)
        for base, label in (("rbf_sampler", "scikit-learn's RBFSampler"), ("mc", "MC (cos/sin pairs)")):
            ref_err = {r["s"]: r["rel_frobenius_mean"] for r in sub if r["method"] == base}
            if not ref_err:
                continue
            s_vals = sorted(ref_err)
            body = []
            for m in methods:
                if m == base:
                    continue
                got = {r["s"]: r["rel_frobenius_mean"] for r in sub if r["method"] == m}
                body.append([C.METHOD_LABELS[m]] + [
                    f"{ref_err[sv] / got[sv]:.2f}" if sv in got and got[sv] > 0 else "—"
                    for sv in s_vals])
            out.append(f"Frobenius error of {label} divided by each method's (above 1: better "
                       f"than {label}):\n")
            out.append(md_table(["method"] + [f"s={sv}" for sv in s_vals], body))
            out.append("")
        best = []
        for sv in sorted({r["s"] for r in sub}):
            cand = [r for r in sub if r["s"] == sv and np.isfinite(r["rel_frobenius_mean"])]
            if cand:
                r0 = min(cand, key=lambda r: r["rel_frobenius_mean"])
                best.append(f"s={sv}: {C.METHOD_LABELS[r0['method']]}")
        if best:
            out.append("Lowest Frobenius error at each s: " + "; ".join(best) + ".\n")
        if name == "digits":
            ref = PUBLISHED["digits_rbf"]
            got = {r["s"] * 2: r["rel_frobenius_mean"] for r in sub if r["method"] == "rbf_sampler"}
            common = [c for c in ref if c in got]
            if common:
                out.append("RBFSampler against the issue's reference points (scikit-learn 1.9, "
                           "bandwidth not stated there): "
                           + "; ".join(f"{c} columns: here {got[c]:.3g}, reference {ref[c]:.3f}"
                                       for c in common) + ".\n")
    return out


def section_disc(rows, meta):
    out = []
    summ = C.summarize(rows, ["dataset", "method", "design_box", "s"],
                       ["D2_b", "D2_b/2", "D2_b/4", "rel_frobenius"])
    for name, info in meta["params"].get("datasets", {}).items():
        sub = [r for r in summ if r["dataset"] == name]
        if not sub:
            continue
        split = (f" ({info['n_train']} training rows for sigma, b and the designs; the Gram "
                 f"error on {info['n_eval']} held-out rows)" if "n_eval" in info else "")
        out.append(f"**{name}** — {info['description']}; n = {info['n']}{split}, d = {info['d']}, "
                   f"sigma = {info['sigma']:.4g}.\n")
        for r in sub:
            r["sequence"] = r["method"] + (f" [{r['design_box']}]" if r["design_box"] else "")
        seqs = sorted({r["sequence"] for r in sub}, key=sequence_order)
        for key, label in (("D2_b", "normalised D^2 on b"), ("D2_b/4", "normalised D^2 on b/4"),
                           ("D2_b/2", "normalised D^2 on b/2"),
                           ("rel_frobenius", "relative Frobenius Gram error")):
            out.append(f"{label}:\n")
            out.append(pivot(sub, "s", "sequence", key, cols=seqs, fmt="{:.3g}"))
            out.append("")
        pairs = [(r["D2_b/2_mean"], r["rel_frobenius_mean"]) for r in sub
                 if np.isfinite(r["rel_frobenius_mean"]) and np.isfinite(r["D2_b/2_mean"])]
        if len(pairs) > 2:
            from scipy.stats import spearmanr

            rho = spearmanr(*zip(*pairs)).statistic
            out.append(f"Spearman rank correlation between D^2 on b/2 and the Gram error over "
                       f"all sequences and s: {rho:.3f} ({len(pairs)} points).\n")
    return out


def section_regression(rows, meta):
    out = []
    summ = C.summarize(rows, ["dataset", "method", "design_box", "s"], ["test_rel_error"])
    for name, info in meta["params"].get("datasets", {}).items():
        sub = [r for r in summ if r["dataset"] == name]
        if not sub:
            continue
        out.append(f"**{name}** — {info['description']}; train {info['n_train']}, test "
                   f"{info['n_test']}; CV: sigma = {info['sigma']:.4g}, alpha = {info['alpha']:.3g}.\n")
        for r in sub:
            r["sequence"] = r["method"] + (f" [{r['design_box']}]" if r["design_box"] else "")
        seqs = sorted({r["sequence"] for r in sub}, key=sequence_order)
        out.append("test error ||y_hat - y|| / ||y|| (mean ± std over repetitions):\n")
        out.append(pivot(sub, "s", "sequence", "test_rel_error", cols=seqs))
        out.append("")
    return out


def section_integration(rows, meta):
    summ = C.summarize([r for r in rows if r["method"] != "mc-expected"], ["method"],
                       ["mse_quadrature_b", "normalized_D2_b", "mse_quadrature_b/2",
                        "normalized_D2_b/2"])
    exp = {k: r[k] for r in rows if r["method"] == "mc-expected"
           for k in ("normalized_D2_b", "normalized_D2_b/2") if r.get(k, "") != ""}
    p = meta["params"]
    out = [f"Density {p['density']}, s = {p['s']}, box B = {p['B'] if 'B' in p else p['box']:.4g}.\n"]
    body = []
    for r in summ:
        body.append([r["method"], r["reps"],
                     pm(r["mse_quadrature_b_mean"], r["mse_quadrature_b_std"], r["reps"], "{:.4g}"),
                     pm(r["normalized_D2_b_mean"], r["normalized_D2_b_std"], r["reps"], "{:.4g}"),
                     pm(r["mse_quadrature_b/2_mean"], r["mse_quadrature_b/2_std"], r["reps"], "{:.4g}"),
                     pm(r["normalized_D2_b/2_mean"], r["normalized_D2_b/2_std"], r["reps"], "{:.4g}")])
    body.append(["E[MC] (Corollary 15)", "", "", f"{exp.get('normalized_D2_b', float('nan')):.4g}",
                 "", f"{exp.get('normalized_D2_b/2', float('nan')):.4g}"])
    out.append(md_table(["sequence", "reps", "MSE on b (quadrature)", "normalized D^2 on b",
                         "MSE on b/2 (quadrature)", "normalized D^2 on b/2"], body))
    dev = [abs(r["mse_quadrature_b"] - r["normalized_D2_b"]) / r["normalized_D2_b"]
           for r in rows if r["method"] != "mc-expected"]
    if dev:
        out.append(f"\nTheorem 12 check: largest relative difference between the quadrature MSE "
                   f"and normalized(D^2) over all point sets: {max(dev):.2e}.\n")
    return out


def section_generic(rows, meta, *, keys, value, row_key, col_key, fmt="{:.4g}", label=""):
    out = []
    summ = C.summarize(rows, keys, [value])
    groups = sorted({tuple(r[k] for k in keys if k not in (row_key, col_key)) for r in summ})
    for g in groups:
        sub = [r for r in summ if tuple(r[k] for k in keys if k not in (row_key, col_key)) == g]
        title = ", ".join(f"{k} = {v}" for k, v in zip([k for k in keys if k not in (row_key, col_key)], g))
        out.append(f"{label}{' — ' + title if title else ''}:\n")
        out.append(pivot(sub, row_key, col_key, value, fmt=fmt))
        out.append("")
    return out


def section_vector_fields(rows, meta):
    out = []
    mse = [r for r in rows if r.get("experiment") == "mse_vs_D"]
    if mse:
        out += section_generic(mse, meta, keys=["field", "model", "D"], value="test_mse",
                               row_key="D", col_key="model", label="test MSE against D")
        summ = C.summarize(mse, ["field", "model", "D"], ["test_mse"])
        for field in sorted({r["field"] for r in summ}):
            Dmax = max(r["D"] for r in summ if r["field"] == field)
            ranked = sorted((r for r in summ if r["field"] == field and r["D"] == Dmax),
                            key=lambda r: r["test_mse_mean"])
            out.append(f"Ranking at D = {Dmax} ({field}, lowest test MSE first): "
                       + ", ".join(f"{r['model']} ({r['test_mse_mean']:.3g})" for r in ranked)
                       + ".\n")
    tim = [r for r in rows if r.get("experiment") == "time_vs_N"]
    if tim:
        out += section_generic(tim, meta, keys=["field", "model", "N"], value="fit_seconds",
                               row_key="N", col_key="model", fmt="{:.3g}",
                               label="fit time (s; 2-core machine, noisy) against N")
    return out


def section_operator(rows, meta):
    out = []
    for setting, key, label in (("minh", "rel_frobenius", "relative Frobenius error of the block "
                                 "Gram matrix (Minh's metric)"),
                                ("brault", "max_pair_spectral", "largest spectral-norm error over "
                                 "all pairs (Brault et al.'s metric)")):
        sub = [dict(r, case=f"{r['kernel']}, {r['measure']}, D={r['D']}") for r in rows
               if r["setting"] == setting]
        if not sub:
            continue
        summ = C.summarize(sub, ["case", "kernel", "measure", "D", "sequence"], [key])
        summ.sort(key=lambda r: (r["kernel"], r["measure"], r["D"]))
        cases = list(dict.fromkeys(r["case"] for r in summ))
        seqs = [q for q in ("mc", "halton", "sobol") if any(r["sequence"] == q for r in summ)]
        cells = {(r["case"], r["sequence"]): r for r in summ}
        body = [[c] + [pm(cells[(c, q)][f"{key}_mean"], cells[(c, q)][f"{key}_std"],
                          cells[(c, q)]["reps"]) if (c, q) in cells else "—" for q in seqs]
                for c in cases]
        out.append(f"Setting `{setting}`: {label}, mean ± std over repetitions:\n")
        out.append(md_table(["kernel, measure, D"] + seqs, body))
        out.append("")
    pub = PUBLISHED["minh_table1"]
    lines = []
    has_pair = bool(rows) and "mean_pair_rel_frobenius" in rows[0]
    summ = C.summarize([r for r in rows if r["setting"] == "minh"],
                       ["kernel", "measure", "sequence", "D"],
                       ["rel_frobenius"] + (["mean_pair_rel_frobenius"] if has_pair else []))
    for (kern, meas), ref in pub.items():
        for D, (m, s) in ref.items():
            got = {r["sequence"]: r for r in summ if r["kernel"] == kern and r["measure"] == meas
                   and r["D"] == D}
            if "mc" in got:
                g = got["mc"]
                q = got.get("halton")
                pair = (pm(g["mean_pair_rel_frobenius_mean"], g["mean_pair_rel_frobenius_std"],
                           g["reps"]) if has_pair else "not recorded")
                lines.append(f"| {kern} | {meas} | {D} | {m} ({s}) | "
                             f"{pm(g['rel_frobenius_mean'], g['rel_frobenius_std'], g['reps'])} | "
                             f"{pair} | {pm(q['rel_frobenius_mean'], 0, 1) if q else '—'} |")
    if lines:
        out.append("Against Minh (2016), Table 1 (mean (std) of 10 runs; his 'unbounded' map is "
                   "our 'spectral' measure):\n")
        out.append("| kernel | measure | D | Minh Table 1 (MC) | ours, MC, whole matrix | "
                   "ours, MC, mean over pairs | ours, Halton, whole matrix |\n"
                   "|---|---|---|---|---|---|---|")
        out.extend(lines)
        out.append("")
    return out


def section_iterations(rows, key):
    out = []
    metrics = ("D2", "rel_frobenius", "rel_spectral", "mean_sq_error", "max_sq_error")
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        for box in dict.fromkeys(r["design_box"] for r in rows if r["dataset"] == ds):
            sub = sorted((r for r in rows if r["dataset"] == ds and r["design_box"] == box),
                         key=lambda r: r[key])
            out.append(f"**{ds}**, design box {box} (D2: normalised squared box discrepancy on "
                       f"the design box; errors of the Gram matrix of the rows used):\n")
            out.append(md_table([key, *metrics], [[r[key]] + [f"{r[m]:.3g}" for m in metrics]
                                                  for r in sub]))
            out.append("")
    return out


def section_fig2(rows, meta):
    out = []
    for protocol, cv in meta["params"].get("cv", {}).items():
        out.append(f"{protocol}: 5-fold CV accuracy of ridge classification on MC features "
                   f"(median distance {cv['median']:.4g}): "
                   + ", ".join(f"sigma {k}: {v:.3f}" for k, v in cv["scores"].items())
                   + f"; chosen sigma {cv['chosen']:.4g}.\n")
    out.append("Columns: ours (mc, orf, halton = RR2 Halton from index 0, halton-random, sobol = "
               "scrambled Sobol' from index 0, lattice = Kuo's, shifted) and the authors' "
               "(halton-authors = RR2 Halton, sobol-authors = scrambled Sobol', both skip 1000 "
               "and leap 700; lattice-ckn = the exod2_base2_m20_CKN lattice, shifted).\n")
    rows = [dict(r, n=r.get("n", meta["params"]["n"])) for r in rows]
    summ = C.summarize(rows, ["n", "protocol", "sigma_label", "method", "s"],
                       ["rel_frobenius", "rel_spectral"])
    for (n, protocol, sig) in dict.fromkeys((r["n"], r["protocol"], r["sigma_label"])
                                            for r in summ):
        sub = [r for r in summ if (r["n"], r["protocol"], r["sigma_label"]) == (n, protocol, sig)]
        for key in ("rel_frobenius", "rel_spectral"):
            out.append(f"n = {n}, {protocol}, sigma = {sig}: "
                       f"{key.replace('rel_', 'relative ')} error (mean ± std over trials):\n")
            out.append(pivot(sub, "s", "method", key,
                             cols=list(dict.fromkeys(r["method"] for r in sub))))
            out.append("")
    return out


def section_fig4(rows, meta):
    """Two tables: each model tuned at its own D, then tuned once with the exact kernels."""
    out = []
    at_d = [r for r in rows if r.get("tuning") == "at D"]
    if at_d:
        out += section_generic(at_d, meta, keys=["noise", "N", "model", "D"], value="test_mse",
                               row_key="D", col_key="model", fmt="{:.3g}",
                               label="each model tuned at its own D (sigma and lambda on the "
                                     "grid): test MSE, noise-free targets (mean ± std over maps)")
        chosen = {(r["noise"], r["N"], r["model"], r["D"]): (r["sigma_value"], r["alpha"])
                  for r in at_d}
        for noise, N in dict.fromkeys(k[:2] for k in chosen):
            out.append(f"(sigma, lambda) chosen at each D, noise = {noise}, N = {N}: " + "; ".join(
                f"{m}: " + ", ".join(f"D={D} ({v[0]:g}, {v[1]:g})" for (n2, N2, m2, D), v
                                     in chosen.items() if (n2, N2, m2) == (noise, N, m))
                for m in dict.fromkeys(k[2] for k in chosen)) + ".\n")
    exact = [dict(r, model=f"{r['model']} ({r['sigma']} sigma)") for r in rows
             if r.get("tuning", "exact kernel") == "exact kernel"]
    return out + section_generic(
        exact, meta, keys=["noise", "N", "model", "D"], value="test_mse", row_key="D",
        col_key="model", fmt="{:.3g}", label="sigma and lambda tuned once with the exact kernels, "
        "reused at every D: test MSE, noise-free targets (mean ± std over maps)")


def section_demo(rows, meta):
    return [C.format_table(rows, [k for k in rows[0].keys()]) if rows else ""]


def section_generation_time(rows, meta):
    p = meta["params"]
    best = {m: min(r["seconds"] for r in rows if r["method"] == m)
            for m in dict.fromkeys(r["method"] for r in rows)}
    mc = best.get("mc", float("nan"))
    body = [[m, f"{v:.3g}", f"{v / mc:.3g}" if m != "mc features + ridge" else ""]
            for m, v in best.items()]
    return [f"d = {p['d']}, s = {p['s']}; generation: best of {p['repeats']} calls after an "
            f"untimed one; the downstream fit (MC features + Ridge on {p['n']} synthetic rows) "
            "timed once; a shared 2-core machine.\n",
            md_table(["source", "seconds", "over MC"], body), ""]


def _generic(keys, value, row_key, col_key, label, fmt="{:.4g}"):
    return lambda rows, meta: section_generic(rows, meta, keys=keys, value=value,
                                              row_key=row_key, col_key=col_key, label=label,
                                              fmt=fmt)


SECTIONS = {
    "scrambling_ratio": _generic(["dataset", "sequence", "s"], "ratio", "s", "sequence",
                                 "scrambled / unscrambled relative Frobenius Gram error "
                                 "(mean ± std over trials; below 1: scrambling helps)", "{:.3g}"),
    "adaptive_iterations_global": lambda rows, meta: section_iterations(rows, "iteration"),
    "adaptive_iterations_greedy": lambda rows, meta: section_iterations(rows, "points"),
    "orff_variance": _generic(["kernel", "series", "D"], "value", "D", "series",
                              "spectral norm of the estimator's variance", "{:.3g}"),
    "curl_free_reconstruction": _generic(["model", "D"], "rmse", "D", "model",
                                         "RMSE over the grid (mean ± std over runs)"),
    "decomposable_rmse": _generic(["noise", "model", "N"], "rmse", "N", "model",
                                  "test RMSE (mean ± std over runs)", "{:.3g}"),
    "mnist_orff": lambda rows, meta: (
        _generic(["experiment", "model", "D"], "test_error_pct", "D", "model",
                 "test error (%, ORFF: mean ± std over the maps)", "{:.3g}")(
            [r for r in rows if r["experiment"] == "error_vs_D"], meta)
        + _generic(["experiment", "model", "N"], "fit_seconds", "N", "model",
                   "fit seconds (2-core machine, one fit each)", "{:.3g}")(
            [r for r in rows if r["experiment"] == "time_vs_N"], meta)),
    "fig2_protocol": lambda rows, meta: section_fig2(rows, meta),
    "fig4_sweep": lambda rows, meta: section_fig4(rows, meta),
    "classification": _generic(["dataset", "method", "s"], "test_error_pct", "s", "method",
                               "test error (%) (mean ± std over repetitions)", "{:.3g}"),
    "generation_time": section_generation_time,
    "gram_approximation": section_gram,
    "gram_approximation_mnist": section_gram,
    "gram_approximation_mnist_raw": section_gram,
    "discrepancy_vs_error": section_disc,
    "regression": section_regression,
    "integration_error": section_integration,
    "vector_fields": section_vector_fields,
    "operator_kernel_error": section_operator,
}
