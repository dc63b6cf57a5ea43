"""Assemble ``examples/RESULTS.md`` from the files the example scripts wrote.

Every number in RESULTS.md comes from a CSV or JSON file under the output
folder (``examples/output/`` by default): nothing is typed by hand.  Published
reference values are quoted from the papers with their source.  The pieces:
``results_prose`` (section titles and the differences from the papers, with no
measured number), ``results_sections`` (each script's tables), ``paper_entries``
(the "Paper by paper" section); this module assembles them with the headline
lines and the record of the run.

Usage::

    python examples/make_results.py [--out examples/output] [--results examples/RESULTS.md]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402
import paper_entries  # noqa: E402
from results_prose import DIFFERENCES, TITLES  # noqa: E402
from results_sections import PUBLISHED, SECTIONS, md_table, header_block  # noqa: E402

SCRIPTS = ("demo", "gram_approximation", "gram_approximation_mnist",
           "gram_approximation_mnist_raw", "discrepancy_vs_error",
           "regression", "integration_error", "vector_fields", "operator_kernel_error",
           "scrambling_ratio", "adaptive_iterations_global", "adaptive_iterations_greedy",
           "orff_variance", "curl_free_reconstruction", "decomposable_rmse", "mnist_orff",
           "fig2_protocol", "fig4_sweep", "classification", "generation_time")
GRAM_SCRIPTS = ("gram_approximation", "gram_approximation_mnist", "gram_approximation_mnist_raw")


def at_a_glance(out_dir):
    """Headline lines computed from the outputs (each points to its section)."""
    lines = []
    for name in GRAM_SCRIPTS:
        path = out_dir / f"{name}.csv"
        if not path.exists():
            continue
        rows = C.read_csv(path)
        held_out = bool(rows) and "n_eval" in rows[0]
        summ = C.summarize(rows, ["dataset", "method", "s"], ["rel_frobenius"])
        for ds in dict.fromkeys(r["dataset"] for r in summ):
            sub = {r["method"]: r["rel_frobenius_mean"] for r in summ
                   if r["dataset"] == ds and r["s"] == 256 and np.isfinite(r["rel_frobenius_mean"])}
            if "orf" not in sub:
                continue
            orf = sub["orf"]
            feats = {m: v for m, v in sub.items() if m != "nystroem"}  # Fourier features only
            best = min(feats, key=feats.get)
            parts = [f"ORF {orf:.3g}"]
            for m in ("rbf_sampler", "halton"):
                if m in sub:
                    parts.append(f"{C.METHOD_LABELS[m].split(' (')[0]} {sub[m]:.3g} "
                                 f"({sub[m] / orf:.2g}x ORF)")
            if best != "orf":
                parts.append(f"best Fourier map {C.METHOD_LABELS[best]} {sub[best]:.3g} "
                             f"({sub[best] / orf:.2g}x ORF)")
            if "adaptive" in sub and best != "adaptive":
                parts.append(f"adaptive {sub['adaptive']:.3g} ({sub['adaptive'] / orf:.2g}x ORF)")
            if "nystroem" in sub:
                parts.append(f"Nystroem {sub['nystroem']:.3g} ({sub['nystroem'] / orf:.2g}x ORF)")
            lines.append(f"- Gram error at s = 256 (512 columns), {ds}"
                         f"{' (held-out rows)' if held_out else ''}: " + ", ".join(parts) + ".")
    path = out_dir / "operator_kernel_error.csv"
    if path.exists():
        rows = C.read_csv(path)
        if rows and "mean_pair_rel_frobenius" in rows[0]:
            summ = C.summarize([r for r in rows if r["setting"] == "minh" and r["sequence"] == "mc"],
                               ["kernel", "measure", "D"], ["mean_pair_rel_frobenius"])
            cells = within = 0
            for (kern, meas), ref in PUBLISHED["minh_table1"].items():
                for D, (m, sd) in ref.items():
                    got = [r for r in summ if r["kernel"] == kern and r["measure"] == meas
                           and r["D"] == D]
                    if got:
                        cells += 1
                        within += abs(got[0]["mean_pair_rel_frobenius_mean"] - m) <= sd
            if cells:
                lines.append(f"- Operator-valued kernels, Minh (2016) Table 1: our Monte Carlo "
                             f"errors (mean over pairs) lie within his reported ±1 std in "
                             f"{within} of {cells} cells.")
    path = out_dir / "integration_error.csv"
    if path.exists():
        rows = [r for r in C.read_csv(path) if r["method"] != "mc-expected"]
        dev = max(abs(r["mse_quadrature_b"] - r["normalized_D2_b"]) / r["normalized_D2_b"]
                  for r in rows)
        mc = np.mean([r["mse_quadrature_b"] for r in rows if r["method"] == "mc"])
        glob = [r["mse_quadrature_b"] for r in rows if r["method"] == "global"]
        if glob:
            lines.append(f"- Integration over the box: the global design's mean squared error is "
                         f"{mc / glob[0]:.3g} times below MC's; Theorem 12 holds to {dev:.1e} "
                         f"(quadrature against normalised D^2).")
    path = out_dir / "vector_fields.csv"
    if path.exists():
        summ = C.summarize([r for r in C.read_csv(path) if r["experiment"] == "mse_vs_D"],
                           ["field", "model", "D"], ["test_mse"])
        for field in sorted({r["field"] for r in summ}):
            Dmax = max(r["D"] for r in summ if r["field"] == field)
            sub = {r["model"]: r["test_mse_mean"] for r in summ
                   if r["field"] == field and r["D"] == Dmax}
            orff = min((m for m in sub if m.startswith("ORFF")), key=sub.get)
            indep = min((m for m in sub if m.startswith("indep")), key=sub.get)
            lines.append(f"- Vector fields ({field}, D = {Dmax}): best ORFF ({orff}) "
                         f"{sub[orff]:.3g}, best independent RFF ({indep}) {sub[indep]:.3g}, exact "
                         f"operator-valued kernel ridge {sub.get('exact OVK', float('nan')):.3g} "
                         f"(test MSE).")
    return lines


#: At-a-glance lines of each non-Gram script start with these words (for carrying them over).
GLANCE_PREFIX = {"operator_kernel_error": "- Operator-valued kernels",
                 "integration_error": "- Integration over the box",
                 "vector_fields": "- Vector fields"}
CARRIED = ("*Carried over unchanged from the previous RESULTS.md: this script was not rerun "
           "for the current version, and its outputs are not in the output folder.*")


def previous_sections(path):
    """``{heading: lines}`` of an existing RESULTS.md (``{}`` when there is none)."""
    path = Path(path)
    if not path.exists():
        return {}
    sections, head = {}, None
    for line in path.read_text().splitlines():
        if line.startswith("## "):
            head = line[3:].strip()
            sections[head] = []
        elif head is not None:
            sections[head].append(line)
    return sections


def run_record_lines(out_dir):
    """What ``run_all.json`` (written by ``run_all.py``) says about the run that made the outputs:
    a whole rebuild with its wall time, or a partial run (``[]`` when there is no record)."""
    path = Path(out_dir) / "run_all.json"
    if not path.exists():
        return []
    rec = json.loads(path.read_text())
    if rec.get("complete"):
        head = (f"Rebuilt whole by `make results` (`{rec['command'].strip()}`), started "
                f"{rec['started_utc']}: every script below ran in that one run, in "
                f"{rec['wall_s']:.0f} s of wall time on the 2-core development machine (budget "
                f"{rec['budget_s']} s).")
    else:
        what = "a --quick run" if rec.get("quick") else "a partial run"
        head = (f"The outputs come from {what} (`{rec['command'].strip()}`, started "
                f"{rec['started_utc']}, {rec['wall_s']:.0f} s): not a whole rebuild.")
        if rec.get("failed"):
            head += " Failed: " + ", ".join(f"`{n}`" for n in rec["failed"]) + "."
    per = ", ".join(f"{name} {s:.0f} s" for name, s in rec.get("scripts", {}).items())
    return [head + (f" Per script: {per}." if per else ""), ""]


def build(out_dir, results_path, *, carry_over=False):
    """Write RESULTS.md from the outputs in ``out_dir``.

    With ``carry_over=True``, the section of a script that has no output in
    ``out_dir`` is copied unchanged from the existing ``results_path`` (marked
    as carried over, with its at-a-glance line), so a partial rerun regenerates
    what it ran and keeps the rest; without it, such scripts are listed as not run.
    """
    out_dir = Path(out_dir)
    previous = previous_sections(results_path) if carry_over else {}
    parts = ["# Results of the examples", "",
             "Generated by `python examples/make_results.py` from the CSV and JSON files that the "
             "example scripts wrote (default folder `examples/output/`). **Do not edit by hand**: "
             "rerun the commands below, then this generator. Published values are quoted with "
             "their source; every other number is read from the scripts' outputs.", "",
             "To reproduce everything: `make results` (`python examples/run_all.py --fresh`: "
             "empties the output folder, runs each script with the arguments recorded below, "
             "then this generator). Each section gives its script's exact command; the scripts' "
             "`--help` lists their options.", ""]
    parts += run_record_lines(out_dir)
    glance = at_a_glance(out_dir)
    carried_glance = dict(GLANCE_PREFIX)
    if not any((out_dir / f"{name}.json").exists() for name in GRAM_SCRIPTS):
        carried_glance.update({name: "- Gram error at s = 256" for name in GRAM_SCRIPTS})
    prefixes = tuple(p for name, p in carried_glance.items()
                     if not (out_dir / f"{name}.json").exists() and TITLES[name] in previous)
    glance += [line for line in previous.get("At a glance", []) if prefixes
               and line.startswith(prefixes)]
    if glance:
        parts += ["## At a glance", ""] + glance + [""]
    shown = {name for name in SCRIPTS
             if (out_dir / f"{name}.json").exists() or TITLES[name] in previous}
    parts += paper_entries.section(out_dir, run_dates=shown)
    env = None
    missing = []
    for name in SCRIPTS:
        meta_path = out_dir / f"{name}.json"
        if not meta_path.exists():
            if TITLES[name] in previous:
                body = previous[TITLES[name]]
                while body and not body[-1].strip():
                    body = body[:-1]
                body = body[1:] if body and not body[0].strip() else body
                if CARRIED not in body:
                    body = [CARRIED, ""] + body
                parts += [f"## {TITLES[name]}", ""] + body + [""]
            else:
                missing.append(name)
            continue
        meta = json.loads(meta_path.read_text())
        env = env or meta.get("environment")
        parts += [f"## {TITLES[name]}", "", header_block(meta), ""]
        if name == "demo":
            table = out_dir / "demo_table.csv"
            p = meta["params"]

            def cells(rows, cols):
                return [[r.get(c, "") if not isinstance(r.get(c), float) else
                         ("n/a" if not np.isfinite(r[c]) else f"{r[c]:.4g}") for c in cols]
                        for r in rows]

            split = (f" ({p['n_train']} training rows, {p['n_eval']} held-out rows: every error "
                     f"is on the held-out rows)" if "n_eval" in p else "")
            if table.exists():
                rows = C.read_csv(table)
                cols = [c for c in ["method", "reps", "rel_spectral", "rel_frobenius",
                                    "ratio_to_orf", "D2(b)/E[MC]", "D2(b/4)/E[MC]",
                                    "D2(moment)/E[MC]"] if rows and c in rows[0]]
                info = p.get("dataset", {})
                parts += [f"{info.get('description', 'digits')}; n = {info.get('n')}{split}, d = "
                          f"{info.get('d')}; s = {p.get('s')}, sigma = "
                          f"{p.get('sigma', float('nan')):.4g} (median heuristic); "
                          f"catalogue entries at box_over_sigma = "
                          f"{p.get('catalogue_box_over_sigma')}. ratio_to_orf: the Frobenius "
                          f"error divided by ORF's mean (below 1: better than ORF). D^2 columns: "
                          f"the squared box discrepancy on the data-range box b, on b/4 and on the "
                          f"moment box, divided by its Monte Carlo expectation (below 1 beats MC). "
                          f"The demo's first table (generators against MC) is in "
                          f"`demo_generators.csv`.", "", md_table(cols, cells(rows, cols)), ""]
            table3 = out_dir / "demo_high_dim.csv"
            if table3.exists() and "high_dim" in p:
                rows = C.read_csv(table3)
                cols = ["s", "method", "reps", "rel_spectral", "rel_frobenius", "ratio_to_orf",
                        "fit_s"]
                hd = p["high_dim"]
                parts += [f"High dimension: {hd['dataset']['description']}; n = "
                          f"{hd['dataset']['n']} ({hd['n_train']} training, {hd['n_eval']} "
                          f"held-out rows), d = {hd['dataset']['d']}, sigma = {hd['sigma']:.4g}; "
                          f"fit_s is the fit time in seconds (2-core machine, noisy).", "",
                          md_table(cols, cells(rows, cols)), ""]
        else:
            csv_path = out_dir / f"{name}.csv"
            rows = C.read_csv(csv_path) if csv_path.exists() else []
            parts += SECTIONS[name](rows, meta)
        if meta.get("notes"):
            parts += ["Notes recorded by the run:", ""] + [f"- {n}" for n in meta["notes"]] + [""]
        diffs = DIFFERENCES.get(name, [])
        if diffs:
            parts += ["Differences from the paper:", ""] + [f"- {t}" for t in diffs] + [""]
        parts += [f"Figure: `{name}.png` in the output folder.", ""]
    if missing:
        parts += ["## Not run", "",
                  "No output was found for: " + ", ".join(f"`{m}`" for m in missing)
                  + ". Nothing is reported for them here.", ""]
    if env:
        parts += ["## Environment", "", ", ".join(f"{k} {v}" for k, v in env.items()), ""]
    Path(results_path).write_text("\n".join(parts).rstrip() + "\n")
    return Path(results_path)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=C.DEFAULT_OUT, help="folder with the scripts' outputs")
    p.add_argument("--results", type=Path, default=C.EXAMPLES_DIR / "RESULTS.md")
    p.add_argument("--carry-over", action="store_true",
                   help="copy the sections of scripts with no output in --out unchanged from the "
                        "existing RESULTS.md (a partial rerun)")
    args = p.parse_args(argv)
    path = build(args.out, args.results, carry_over=args.carry_over)
    print(f"wrote {path.resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
