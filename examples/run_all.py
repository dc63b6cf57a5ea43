"""Run every example, then regenerate RESULTS.md: one command for every figure.

Usage::

    python examples/run_all.py --fresh    # what `make results` runs: RESULTS.md rebuilt whole
    python examples/run_all.py --quick    # CI-sized runs (about 3 minutes on 2 cores)
    python examples/run_all.py --only gram_approximation regression --out /tmp/ex

Each script writes ``NAME.csv``, ``NAME.png`` and ``NAME.json`` into the output
folder; ``make_results.py`` then rebuilds ``examples/RESULTS.md`` from them (use
``--results`` to write it elsewhere).  The per-script arguments below are the
runs that fit ``BUDGET_S`` (two hours) together on the 2-core development
machine, so that RESULTS.md can be rebuilt whole in one sitting; each section
of RESULTS.md states its reductions from the paper's sizes, and each script's
defaults (``python examples/NAME.py --help``) are the paper-sized settings
where they differ.  ``--fresh`` first removes the outputs of every script from
the output folder, so that nothing of an earlier run is reported; the run's
timing is written to ``run_all.json`` there and quoted at the top of
RESULTS.md.
"""
from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _common as C  # noqa: E402
import make_results  # noqa: E402

#: The time the recorded runs must fit together on the 2-core machine (seconds).
BUDGET_S = 7200
#: The file in the output folder that records the last run_all run.
RUN_RECORD = "run_all.json"

#: Arguments of the recorded full runs (beyond --out).
FULL_ARGS = {
    "demo": [],
    "integration_error": [],
    "operator_kernel_error": [],
    "vector_fields": [],
    "regression": [],
    "discrepancy_vs_error": [],
    "gram_approximation": ["--datasets", "digits", "digits:pca8", "breast_cancer", "diabetes",
                           "--methods", "rbf_sampler", "mc", "orf", "halton", "sobol", "lattice",
                           "global", "weighted", "catalogue-global", "adaptive", "nystroem",
                           "--s", "32", "64", "128", "256", "512", "1024", "--reps", "10",
                           "--adaptive-reps", "3"],
    "gram_approximation_mnist": ["--tag", "mnist", "--datasets", "mnist",
                                 "--methods", "rbf_sampler", "mc", "orf", "halton", "sobol",
                                 "lattice", "global", "weighted", "adaptive", "nystroem",
                                 "--s", "32", "64", "128", "256", "512", "1024", "--reps",
                                 "10", "--adaptive-reps", "3"],
    "gram_approximation_mnist_raw": ["--tag", "mnist_raw", "--datasets", "mnist_raw",
                                     "--methods", "rbf_sampler", "mc", "orf", "halton", "sobol",
                                     "global", "weighted", "adaptive", "nystroem",
                                     "--s", "32", "64", "128", "256", "512", "1024",
                                     "--reps", "10", "--adaptive-reps", "3"],
    "scrambling_ratio": [],
    "adaptive_iterations_global": ["--design", "global"],
    "adaptive_iterations_greedy": ["--design", "greedy"],
    "orff_variance": [],
    "curl_free_reconstruction": [],
    "decomposable_rmse": [],
    "mnist_orff": [],
    "fig2_protocol": ["--n", "5000", "--s", "128", "256", "512", "1024", "2048", "--reps", "10",
                      "--sigma-factors", "0.5", "1", "2", "4", "--sweep-n", "1000",
                      "--sweep-s", "128", "512", "2048", "--sweep-reps", "10"],
    "fig4_sweep": [],
    "classification": [],
    "generation_time": [],
}
#: Outputs written by a script of another name, and the arguments they keep under --quick.
SCRIPT_OF = {"gram_approximation_mnist": "gram_approximation",
             "gram_approximation_mnist_raw": "gram_approximation",
             "adaptive_iterations_global": "adaptive_iterations",
             "adaptive_iterations_greedy": "adaptive_iterations"}
QUICK_KEEPS = {"adaptive_iterations_global": ["--design", "global"],
               "adaptive_iterations_greedy": ["--design", "greedy"]}


def clear_outputs(out):
    """Remove the files every script writes into ``out`` (``NAME.*``, ``NAME_*``), the run
    record and the designs the scripts cached (``cache/``: keyed by their parameters, not by
    the code that made them, so a whole rebuild designs them again); other files are left
    alone.  Returns how many files were removed."""
    out = Path(out)
    if not out.is_dir():
        return 0
    stems = set(make_results.SCRIPTS) | set(SCRIPT_OF.values()) | {Path(RUN_RECORD).stem}
    removed = 0
    cache = out / "cache"
    if cache.is_dir():
        for path in cache.iterdir():
            if path.is_file() and path.suffix == ".npz":
                path.unlink()
                removed += 1
    for path in out.iterdir():
        if path.is_file() and any(path.name.startswith((f"{s}.", f"{s}_")) for s in stems):
            path.unlink()
            removed += 1
    return removed


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", type=Path, default=C.DEFAULT_OUT)
    p.add_argument("--results", type=Path, default=C.EXAMPLES_DIR / "RESULTS.md")
    p.add_argument("--only", nargs="+", choices=sorted(FULL_ARGS), default=None)
    p.add_argument("--fresh", action="store_true",
                   help="remove every script's outputs from --out first (a whole rebuild)")
    args = p.parse_args(argv)
    names = args.only or list(FULL_ARGS)
    if args.fresh:
        removed = clear_outputs(args.out)
        print(f"removed {removed} earlier output files from {args.out}", flush=True)
    failed, seconds = [], {}
    started = datetime.datetime.now(datetime.timezone.utc)
    t_start = time.perf_counter()
    for name in names:
        script = SCRIPT_OF.get(name, name)
        extra = ["--quick", *QUICK_KEEPS.get(name, [])] if args.quick else FULL_ARGS[name]
        if args.quick and name.startswith("gram_approximation_"):
            continue  # --quick ignores --datasets: same as gram_approximation
        cmd = [sys.executable, str(HERE / f"{script}.py"), "--out", str(args.out), *extra]
        print(f"\n$ {' '.join(cmd)}", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.call(cmd, cwd=HERE.parent)
        seconds[name] = round(time.perf_counter() - t0, 1)
        print(f"[{name}: exit {rc}, {seconds[name]:.0f} s]", flush=True)
        if rc:
            failed.append(name)
    wall = time.perf_counter() - t_start
    record = {"command": "python examples/run_all.py " + " ".join(argv if argv is not None
                                                                   else sys.argv[1:]),
              "started_utc": started.strftime("%Y-%m-%d %H:%M:%S UTC"),
              "wall_s": round(wall, 1), "budget_s": BUDGET_S, "fresh": args.fresh,
              "quick": args.quick, "scripts": seconds, "failed": failed,
              "complete": args.fresh and not args.only and not failed}
    C.output_dir(args.out)
    (Path(args.out) / RUN_RECORD).write_text(json.dumps(record, indent=1) + "\n")
    print(f"\ntotal wall time {wall:.0f} s (budget {BUDGET_S} s)", flush=True)
    if wall > BUDGET_S and not args.quick:
        print(f"over the budget of {BUDGET_S} s: reduce the sizes in FULL_ARGS", flush=True)
    make_results.build(args.out, args.results)
    print(f"\nwrote {args.results}")
    if failed:
        print("failed: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
