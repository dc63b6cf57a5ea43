"""Our side of Avron et al. (2016) Tables 1 and 3 and the remarks on learning (regression,
the central box, classification, generation time), read from the example scripts' outputs.

Each ``ours_*`` returns ``(text, verdict, reason)`` or ``None`` when its script has no output
(see :mod:`paper_entries`).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

import _common as C
from _entries_base import _by_rep, _load, _mean, _share, _versus


#: Avron et al. (2016) Table 1 as printed (mean over 10 trials; MC's std in brackets):
#: (data set, s) -> {sequence: value}.
AVRON_TABLE1 = {
    ("cpu", 100): {"Halton": 0.0367, "Sobol'": 0.0383, "Lattice": 0.0374, "Digit": 0.0376,
                   "MC": 0.0383, "MC std": 0.0013},
    ("cpu", 500): {"Halton": 0.0339, "Sobol'": 0.0344, "Lattice": 0.0348, "Digit": 0.0343,
                   "MC": 0.0349, "MC std": 0.0009},
    ("cpu", 1000): {"Halton": 0.0334, "Sobol'": 0.0339, "Lattice": 0.0337, "Digit": 0.0335,
                    "MC": 0.0338, "MC std": 0.0005},
    ("census", 400): {"Halton": 0.0529, "Sobol'": 0.0747, "Lattice": 0.0801, "Digit": 0.0755,
                      "MC": 0.0791, "MC std": 0.0180},
    ("census", 1200): {"Halton": 0.0553, "Sobol'": 0.0588, "Lattice": 0.0694, "Digit": 0.0587,
                       "MC": 0.0670, "MC std": 0.0078},
    ("census", 1800): {"Halton": 0.0498, "Sobol'": 0.0613, "Lattice": 0.0608, "Digit": 0.0583,
                       "MC": 0.0600, "MC std": 0.0113}}
#: Avron et al. (2016) Table 3 as printed: (data set, s) -> values of Halton, Global b,
#: Global b/4, Greedy b, Greedy b/4, Weighted b, Weighted b/4.
AVRON_TABLE3_COLUMNS = ("Halton", "Global b", "Global b/4", "Greedy b", "Greedy b/4",
                        "Weighted b", "Weighted b/4")
AVRON_TABLE3 = {("cpu", 100): (0.0304, 0.0315, 0.0296, 0.0307, 0.0296, 0.0366, 0.0305),
                ("cpu", 300): (0.0303, 0.0278, 0.0293, 0.0274, 0.0269, 0.0290, 0.0302),
                ("cpu", 500): (0.0348, 0.0347, 0.0348, 0.0328, 0.0291, 0.0342, 0.0347),
                ("census", 400): (0.0529, 0.1034, 0.0997, 0.0598, 0.0655, 0.0512, 0.0926),
                ("census", 800): (0.0545, 0.0702, 0.0581, 0.0522, 0.0501, 0.0476, 0.0487),
                ("census", 1200): (0.0553, 0.0639, 0.0481, 0.0525, 0.0498, 0.0496, 0.0501),
                ("census", 1800): (0.0498, 0.0568, 0.0476, 0.0685, 0.0548, 0.0498, 0.0491),
                ("census", 2200): (0.0519, 0.0487, 0.0515, 0.0694, 0.0504, 0.0529, 0.0499)}


def _avron_table1_paper():
    parts = []
    for ds in ("cpu", "census"):
        keys = [k for k in AVRON_TABLE1 if k[0] == ds]

        def col(c):
            return " / ".join(f"{AVRON_TABLE1[k][c]:.4f}" for k in keys)
        parts.append(f"{ds} s = {' / '.join(str(k[1]) for k in keys)}: "
                     + ", ".join(f"{c} {col(c)}" for c in ("Halton", "Sobol'", "Lattice",
                                                           "Digit", "MC"))
                     + f" (MC std {col('MC std')})")
    gaps = [(v["MC"] - v["Halton"]) / v["MC std"] for v in AVRON_TABLE1.values()]
    beyond = sum(g > 2 / np.sqrt(10) for g in gaps)
    return ("regression error ||y^ - y|| / ||y||, 10 trials, mean (std): " + "; ".join(parts)
            + " (Digit: digital nets). \"for cpu, all the sequences behave similarly, with the "
            "Halton sequence yielding the lowest test error. For census, the advantage of using "
            "Halton sequence is significant (almost 20% reduction in generalization error) "
            "followed by Digital Nets and Sobol'.\" In the paper's own numbers Halton is below "
            f"MC by {min(gaps):.1f}-{max(gaps):.1f} MC standard deviations, beyond twice the "
            f"standard error of MC's mean of 10 in {beyond} of {len(gaps)} cells")


def _avron_table3_paper():
    def row(k):
        return " / ".join(f"{v:.4f}" for v in AVRON_TABLE3[k])
    return ("regression error of the designs, columns " + ", ".join(AVRON_TABLE3_COLUMNS)
            + ": " + "; ".join(f"{ds} s = {s}: {row((ds, s))}" for ds, s in AVRON_TABLE3)
            + ". \"For both cpu and census, at least one of the adaptive sequences sequences can "
            "yield lower test error for each sampling size\"; \"In some cases, adaptive sequences "
            "sometimes produce errors that are bigger than the unoptimized sequences.\"")


def _table3_central_pairs():
    """The paper's Table 3 pairs (data set, s, design): True where the b/4 design is below b."""
    out = {}
    for (ds, s), vals in AVRON_TABLE3.items():
        v = dict(zip(AVRON_TABLE3_COLUMNS, vals))
        for m in ("Global", "Greedy", "Weighted"):
            out[(ds, s, m)] = v[f"{m} b/4"] < v[f"{m} b"]
    return out


def _central_paper():
    pairs = _table3_central_pairs()
    return ("\"In most cases, the adaptive sequence on the central part of the bounding box "
            "outperforms the adaptive sequence on the entire box. This is likely due to the "
            "non-uniformity phenomena discussed earlier.\" (after Table 3, where the central part "
            f"is b/4; in the table's own numbers the b/4 design is below the b design in "
            f"{sum(pairs.values())} of {len(pairs)} pairs: cpu "
            f"{sum(v for k, v in pairs.items() if k[0] == 'cpu')} of "
            f"{sum(k[0] == 'cpu' for k in pairs)}, census "
            f"{sum(v for k, v in pairs.items() if k[0] == 'census')} of "
            f"{sum(k[0] == 'census' for k in pairs)}; single values, no trials)")


def _regression_runs(out_dir):
    """``regression`` outputs: ``(rows, points)``, ``points[(dataset, sequence, s)]`` the squared
    errors at the test points in order (deterministic predictors only); ``None`` if absent."""
    meta, rows = _load(out_dir, "regression")
    path = Path(out_dir) / "regression_points.csv"
    if rows is None or not path.exists():
        return None
    points = {}
    for r in sorted(C.read_csv(path), key=lambda r: r["point"]):
        seq = r["method"] + (f" [{r['design_box']}]" if r["design_box"] else "")
        points.setdefault((r["dataset"], seq, r["s"]), []).append(r["sq_error"])
    return rows, points


def _cells(rows):
    return list(dict.fromkeys((r["dataset"], r["s"]) for r in sorted(
        rows, key=lambda r: (r["dataset"], r["s"]))))


def ours_table1(out_dir):
    """Avron Table 1 from ``regression``: Halton against the MC seeds (Halton's single value
    set against each), and against the exact kernel ridge (both deterministic: paired by test point)."""
    got = _regression_runs(out_dir)
    if got is None:
        return None
    rows, points = got
    parts, below, exact_raw, exact_calls, gaps, gains = [], [], [], [], [], []
    reps = len({r["rep"] for r in rows if r["method"] == "mc"})
    for ds, sv in _cells(rows):
        mc = _by_rep(rows, "test_rel_error", dataset=ds, s=sv, method="mc")
        halton = _mean(rows, "test_rel_error", dataset=ds, s=sv, method="halton")
        exact = _mean(rows, "test_rel_error", dataset=ds, s=sv, method="exact-krr")
        c_mc = _versus([halton], mc)
        c_exact = _versus(points[(ds, "halton", sv)], points[(ds, "exact-krr", sv)])
        others = {m: _versus(_by_rep(rows, "test_rel_error", dataset=ds, s=sv, method=m), mc)
                  for m in ("sobol", "lattice", "orf")}
        gap = (halton - np.mean(mc)) / np.std(mc, ddof=1)  # negative: Halton below
        gaps.append(gap)
        below.append(c_mc == "below")
        exact_raw.append(halton < exact)
        exact_calls.append(c_exact)
        gains.append(100 * (1 - halton / exact))
        parts.append(f"{ds} s = {sv}: Halton {halton:.4f}, MC {np.mean(mc):.4f} "
                     f"({np.std(mc, ddof=1):.4f}), exact {exact:.4f}; Halton against MC {c_mc} "
                     f"({gap:+.1f} MC std), against exact {c_exact}; "
                     + ", ".join(f"{m} against MC {c}" for m, c in others.items()))
    text = (f"MC, ORF, Sobol' and lattice over {reps} seeds, Halton and the exact kernel ridge "
            "deterministic; a difference called beyond twice its standard error (Halton's value "
            "against the MC seeds; Halton against the exact kernel ridge paired by test point: "
            "the test set's noise), else within noise: " + "; ".join(parts)
            + f". Halton below MC's mean in {sum(below)} of {len(below)} cells (Halton minus "
            f"MC's mean: {min(gaps):+.1f} to {max(gaps):+.1f} MC standard deviations, inside "
            f"MC's seed-to-seed spread); Halton below the exact kernel ridge in "
            f"{sum(exact_raw)} of {len(exact_raw)} cells (exact minus Halton: {min(gains):+.1f} "
            f"to {max(gains):+.1f} % of exact's), beyond the test set's noise in "
            f"{exact_calls.count('below')}")
    verdict = _share(below)
    reason = []
    if verdict != "agrees":
        reason.append(f"Halton is below MC beyond noise in {sum(below)} of {len(below)} cells")
    if sum(exact_raw) * 2 > len(exact_raw):
        reason.append(f"Halton is below the exact kernel ridge too ({sum(exact_raw)} of "
                      f"{len(exact_raw)} cells; MC's mean sits at the exact value), so its edge "
                      "over MC here is not a better approximation of the kernel, the question of "
                      "the paper's section")
        verdict = "partly" if verdict == "agrees" else verdict
    if reason:
        reason.append("census's 20 % gain has no counterpart on these small sets")
    return text, verdict, "; ".join(reason)


def _design_calls(points, ds, sv, against):
    """``{design: call}``: every design of the cell against the deterministic ``against``,
    paired by test point."""
    seqs = sorted({q for (d, q, s) in points if d == ds and s == sv and "[" in q})
    return {q: _versus(points[(ds, q, sv)], points[(ds, against, sv)]) for q in seqs}


def _rel_change(points, key, ref):
    """Relative change (%) of ``||y_hat - y||`` from ``ref`` to ``key`` on the same test points."""
    return 100 * (np.sqrt(np.sum(points[key]) / np.sum(points[ref])) - 1)


def ours_table3(out_dir):
    """Avron Table 3 from ``regression``: each design against Halton, paired by test point;
    the lowest of the designs is a selection (the lowest of several), so the verdict rests on
    the calls beyond noise."""
    got = _regression_runs(out_dir)
    if got is None:
        return None
    rows, points = got
    parts, any_below, any_above, lowest = [], [], [], []
    counts = {"below": 0, "above": 0, "within noise": 0}
    for ds, sv in _cells(rows):
        calls = _design_calls(points, ds, sv, "halton")
        change = {q: _rel_change(points, (ds, q, sv), (ds, "halton", sv)) for q in calls}
        best = min(change, key=change.get)
        lowest.append(change[best])
        for c in calls.values():
            counts[c] += 1
        any_below.append("below" in calls.values())
        any_above.append("above" in calls.values())
        parts.append(f"{ds} s = {sv}: Halton "
                     f"{_mean(rows, 'test_rel_error', dataset=ds, s=sv, method='halton'):.4f}, "
                     f"lowest design {best} {change[best]:+.2f} %, designs above Halton "
                     f"{sum(v > 0 for v in change.values())} of {len(change)}; beyond noise: "
                     + ", ".join(f"{sum(c == k for c in calls.values())} {k}"
                                 for k in ("below", "above", "within noise")))
    n = sum(counts.values())
    text = ("every design deterministic (RR2 Halton start), so each is compared with Halton paired "
            "by test point (a difference called beyond twice its standard error over the test "
            "points, else within noise): " + "; ".join(parts)
            + f". The lowest design is below Halton in {sum(v < 0 for v in lowest)} of "
            f"{len(lowest)} cells ({min(lowest):+.2f} to {max(lowest):+.2f} %), but the lowest "
            f"of {n // len(lowest)} is below one value by selection alone; beyond noise, over all "
            f"cells: {counts['below']} below, {counts['above']} above, {counts['within noise']} "
            f"within noise of {n}")
    if all(any_below):
        verdict, reason = "agrees", (
            "each cell holds a design below Halton beyond noise; with several designs per cell "
            "some such calls are expected by chance (up to about one cell in five at twice the "
            "standard error), so the support is weak")
    elif not any(any_below) and any(any_above):
        verdict, reason = "differs", "no design is below Halton beyond noise in any cell"
    else:
        verdict = "partly"
        reason = (f"a design is below Halton beyond the test set's noise in {sum(any_below)} of "
                  f"{len(any_below)} cells; the lowest design's raw edge is a lowest-of-several "
                  "selection and lies within that noise, so the table's claim is neither "
                  "confirmed nor contradicted here")
    return text, verdict, reason


def ours_central_box(out_dir):
    """The b/4 design against the b design (same method, data set and s), paired by test point."""
    got = _regression_runs(out_dir)
    if got is None:
        return None
    rows, points = got
    calls, raw = [], []
    for ds, sv in _cells(rows):
        for m in ("global", "greedy", "weighted"):
            quarter, full = (ds, f"{m} [b/4]", sv), (ds, f"{m} [b]", sv)
            if quarter in points and full in points:
                calls.append((ds, sv, m, _versus(points[quarter], points[full])))
                raw.append(_rel_change(points, quarter, full))
    if not calls:
        return None
    below = sum(c == "below" for *_, c in calls)
    above = sum(c == "above" for *_, c in calls)
    text = ("the design on b/4 against the same design on b, change of the test error: "
            + "; ".join(f"{ds} s = {sv} {m} {x:+.2f} %" for (ds, sv, m, _), x in zip(calls, raw))
            + f". b/4 lower than b in {sum(x < 0 for x in raw)} of {len(raw)} pairs as measured; "
            "deterministic designs, so paired by test point (a difference called beyond twice "
            f"its standard error, else within noise): b/4 below b in {below}, above in {above}, "
            f"within noise in {len(calls) - below - above} of {len(calls)}")
    if 2 * below > len(calls):
        verdict, reason = "agrees", ""
    elif above > below:
        verdict, reason = "differs", (f"the b/4 design is above the b design beyond noise in "
                                      f"{above} of {len(calls)} pairs, below in {below}")
    else:
        verdict = "partly"
        reason = (f"the b/4 design is lower in {sum(x < 0 for x in raw)} of {len(raw)} pairs as "
                  f"measured (not most), and beyond the test set's noise below in {below} and "
                  f"above in {above}: the paper's 'most cases' is not seen, nor its opposite")
    return text, verdict, reason


def _versus_mc(rows, value, methods, **where):
    """``{(cell..., method): call}`` of each method against MC in each (data set, s) cell
    (deterministic Halton: its one value against each MC seed, as ``_versus`` does)."""
    calls = {}
    for ds, sv in _cells([r for r in rows if all(r.get(k) == v for k, v in where.items())]):
        mc = _by_rep(rows, value, dataset=ds, s=sv, method="mc", **where)
        for m in methods:
            got = _by_rep(rows, value, dataset=ds, s=sv, method=m, **where)
            if got and mc:
                calls[(ds, sv, m)] = _versus(got, mc)
    return calls


def ours_classification(out_dir):
    """The classification remark from ``classification``: each QMC sequence against MC,
    beside the same calls on ``regression``'s test errors when that output is present."""
    meta, rows = _load(out_dir, "classification")
    if rows is None:
        return None
    qmc = ("halton", "sobol", "lattice")
    calls = _versus_mc(rows, "test_error_pct", qmc)
    parts = []
    for ds, sv in _cells(rows):
        err = {m: _mean(rows, "test_error_pct", dataset=ds, s=sv, method=m) for m in ("mc", *qmc)}
        parts.append(f"{ds} s = {sv}: MC {err['mc']:.2f} %, " + ", ".join(
            f"{m} {err[m]:.2f} % ({calls[(ds, sv, m)]})" for m in qmc if (ds, sv, m) in calls))
    share = sum(c == "below" for c in calls.values()) / len(calls)
    text = (f"test error (% misclassified), MC / ORF / Sobol' / lattice over "
            f"{meta['params']['reps']} seeds, RR2 Halton deterministic; each QMC sequence against "
            "MC (a difference called beyond twice its standard error, else within noise): "
            + "; ".join(parts) + f". QMC below MC in {sum(c == 'below' for c in calls.values())}, "
            f"above in {sum(c == 'above' for c in calls.values())} of {len(calls)} cells")
    reg = _load(out_dir, "regression")[1]
    if reg is None:
        verdict = "agrees" if share < 0.5 else "differs"
        return (text, verdict, "judged on classification alone (no regression output to set "
                "it against): " + ("QMC is not below MC in most cells" if share < 0.5 else
                                   "QMC is below MC in most cells"))
    rcalls = _versus_mc(reg, "test_rel_error", qmc)
    rshare = sum(c == "below" for c in rcalls.values()) / len(rcalls)
    text += (f"; the same calls on regression's test errors: QMC below MC in "
             f"{sum(c == 'below' for c in rcalls.values())}, above in "
             f"{sum(c == 'above' for c in rcalls.values())} of {len(rcalls)} cells")
    verdict = ("agrees" if share < rshare else "differs" if share > rshare else "partly")
    reason = ("" if verdict == "agrees" else
              f"QMC beats MC beyond noise in {100 * share:.0f} % of the classification cells "
              f"and {100 * rshare:.0f} % of the regression cells: "
              + ("no less consistent than in regression" if verdict == "differs" else
                 "equally (in)consistent in both, so the contrast the remark draws is not seen"))
    return text, verdict, reason


#: The paper's generation times for census (d = 119, s = 2000), seconds.
AVRON_GENERATION = {"qmc": 0.2, "mc": 0.01, "krr": 120.0}


def ours_generation(out_dir):
    """The generation-time remark from ``generation_time``: ratios, not seconds."""
    meta, rows = _load(out_dir, "generation_time")
    if rows is None:
        return None
    best = {m: min(r["seconds"] for r in rows if r["method"] == m)
            for m in dict.fromkeys(r["method"] for r in rows)}
    down = best.pop("mc features + ridge")
    mc = best["mc"]
    qmc = {m: v for m, v in best.items() if m not in ("mc", "orf")}
    p = meta["params"]
    paper_ratio = AVRON_GENERATION["qmc"] / AVRON_GENERATION["mc"]
    text = (f"best of {p['repeats']} calls of make_frequencies at d = {p['d']} (census's), s = "
            f"{p['s']}: " + ", ".join(f"{m} {v:.2g} s" for m, v in best.items())
            + f"; one MC-features + ridge fit on {p['n']} synthetic rows: {down:.3g} s. Over MC: "
            + ", ".join(f"{m} {v / mc:.0f}x" for m, v in best.items() if m != "mc")
            + f" (paper: QMC about {paper_ratio:.0f}x). Largest QMC generation over the ridge "
            f"fit: {100 * max(qmc.values()) / down:.2g} % (paper: 0.2 s against more than 2 "
            f"minutes, under {100 * AVRON_GENERATION['qmc'] / AVRON_GENERATION['krr']:.1g} %)")
    # the paper gives one time for "the QMC sequences": compared with the median of ours
    typical = float(np.median([v / mc for v in qmc.values()]))
    text += (f"; the QMC sources' median ratio to MC {typical:.1f}x against the paper's "
             f"{paper_ratio:.0f}x")
    negligible = max(qmc.values()) < 0.01 * down
    near = paper_ratio / 10 <= typical <= paper_ratio * 10
    verdict = "agrees" if negligible and near else "partly" if negligible else "differs"
    reason = ("" if verdict == "agrees" else
              "QMC generation is not negligible against the downstream fit here" if not negligible
              else "QMC generation is negligible against the downstream fit, as in the paper, but "
                   "its typical ratio to MC is more than an order of magnitude from the paper's")
    return text, verdict, reason
