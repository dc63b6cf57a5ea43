"""Run every example, then regenerate RESULTS.md: one command for every figure.

Usage::

    python examples/run_all.py            # the settings recorded in RESULTS.md
    python examples/run_all.py --quick    # CI-sized runs (about 3 minutes on 2 cores)
    python examples/run_all.py --only gram_approximation regression --out /tmp/ex

Each script writes ``NAME.csv``, ``NAME.png`` and ``NAME.json`` into the output
folder; ``make_results.py`` then rebuilds ``examples/RESULTS.md`` from them (use
``--results`` to write it elsewhere).  The per-script arguments below are the
full runs that fit the time available on the 2-core development machine; each
script's defaults (``python examples/NAME.py --help``) are the paper-sized
settings where they differ.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _common as C  # noqa: E402
import make_results  # noqa: E402

#: Arguments of the recorded full runs (beyond --out).
FULL_ARGS = {
    "demo": [],
    "integration_error": [],
    "operator_kernel_error": ["--D", "16", "64", "100", "256", "500", "1000"],
    "vector_fields": [],
    "regression": [],
    "discrepancy_vs_error": [],
    "gram_approximation": ["--datasets", "digits", "digits:pca8", "breast_cancer", "diabetes"],
    "gram_approximation_mnist": ["--tag", "mnist", "--datasets", "mnist",
                                 "--methods", "rbf_sampler", "mc", "orf", "halton", "sobol",
                                 "lattice", "global", "weighted", "adaptive", "nystroem"],
    "gram_approximation_mnist_raw": ["--tag", "mnist_raw", "--datasets", "mnist_raw",
                                     "--methods", "rbf_sampler", "mc", "orf", "halton", "sobol",
                                     "global", "weighted", "adaptive", "nystroem"],
    "scrambling_ratio": [],
    "adaptive_iterations_global": ["--design", "global"],
    "adaptive_iterations_greedy": ["--design", "greedy"],
    "orff_variance": [],
    "curl_free_reconstruction": [],
    "decomposable_rmse": ["--N", "100", "300", "1000"],
    "mnist_orff": ["--time-N", "100", "300", "1000", "2000"],
    "fig2_protocol": ["--n", "1000", "--s", "128", "512", "2048", "--reps", "3",
                      "--sigma-factors", "0.5", "1", "2", "4"],
    "fig4_sweep": ["--D", "32", "128", "256", "--tune-maps", "2"],
}
#: Outputs written by a script of another name, and the arguments they keep under --quick.
SCRIPT_OF = {"gram_approximation_mnist": "gram_approximation",
             "gram_approximation_mnist_raw": "gram_approximation",
             "adaptive_iterations_global": "adaptive_iterations",
             "adaptive_iterations_greedy": "adaptive_iterations"}
QUICK_KEEPS = {"adaptive_iterations_global": ["--design", "global"],
               "adaptive_iterations_greedy": ["--design", "greedy"]}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", type=Path, default=C.DEFAULT_OUT)
    p.add_argument("--results", type=Path, default=C.EXAMPLES_DIR / "RESULTS.md")
    p.add_argument("--only", nargs="+", choices=sorted(FULL_ARGS), default=None)
    args = p.parse_args(argv)
    names = args.only or list(FULL_ARGS)
    failed = []
    for name in names:
        script = SCRIPT_OF.get(name, name)
        extra = ["--quick", *QUICK_KEEPS.get(name, [])] if args.quick else FULL_ARGS[name]
        if args.quick and name.startswith("gram_approximation_"):
            continue  # --quick ignores --datasets: same as gram_approximation
        cmd = [sys.executable, str(HERE / f"{script}.py"), "--out", str(args.out), *extra]
        print(f"\n$ {' '.join(cmd)}", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.call(cmd, cwd=HERE.parent)
        print(f"[{name}: exit {rc}, {time.perf_counter() - t0:.0f} s]", flush=True)
        if rc:
            failed.append(name)
    make_results.build(args.out, args.results)
    print(f"\nwrote {args.results}")
    if failed:
        print("failed: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
