"""Time to generate the frequencies (Avron et al. 2016, section 6.1's remark on census).

The paper: for census (18,000 x 119) and s = 2000, kernel ridge regression on
the features takes more than 2 minutes, "while the time of generating the QMC
sequences is only around 0.2 seconds ... and that of MC sequence is around
0.01 seconds".  Here: the wall time of ``qmc_orff.make_frequencies`` (points,
scrambling and the Gaussian inverse CDF: the ``(s, d)`` frequency matrix) at
census's d = 119 and s = 2000 for MC, ORF, RR2 Halton, randomly scrambled
Halton, scrambled Sobol' and the shifted lattice, best of ``--repeats`` after
one untimed call (numba's compilation and SciPy's first-call set-up are not
generation time).  The downstream reference is one fit of the same pipeline as
``regression.py`` (MC features + ``Ridge``) on ``--n`` synthetic rows of
dimension 119 (census itself is not available offline), timed once.

Seconds depend on the machine (and on its load); only the ratios between the
methods and against the downstream fit are compared with the paper.

Outputs: ``generation_time.csv``, ``.png``, ``.json``.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

NAME = "generation_time"
#: label -> keyword arguments of ``make_frequencies`` (the paper's scrambled sequences)
SOURCES = {"mc": dict(sequence="mc"), "orf": dict(sequence="orf"),
           "halton": dict(sequence="halton", scramble="deterministic"),
           "halton-random": dict(sequence="halton", scramble=True),
           "sobol": dict(sequence="sobol", scramble=True),
           "lattice": dict(sequence="lattice", scramble=True)}


def parse(argv=None):
    p = C.make_parser(__doc__.splitlines()[0])
    p.add_argument("--d", type=int, default=119, help="dimension (census: 119)")
    p.add_argument("--s", type=int, default=2000, help="number of frequencies")
    p.add_argument("--repeats", type=int, default=7, help="timed calls per source (best kept)")
    p.add_argument("--n", type=int, default=18000,
                   help="rows of the downstream ridge fit (census: 18,000)")
    args = p.parse_args(argv)
    if args.quick:
        args.s, args.repeats, args.n = 200, 2, 500
    return args


def run(args, record):
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline

    import qmc_orff

    rows = []
    for label, kw in SOURCES.items():
        def generate(rep):
            seed = args.seed + rep if label != "halton" else None
            return qmc_orff.make_frequencies("gaussian", args.s, args.d, seed=seed, **kw)

        generate(args.repeats)  # untimed (another seed): compilation and first-call set-up
        for rep in range(args.repeats):
            t0 = time.perf_counter()
            generate(rep)
            rows.append({"what": "generation", "method": label, "rep": rep,
                         "seconds": time.perf_counter() - t0})
        best = min(r["seconds"] for r in rows if r["method"] == label)
        print(f"{label:14s} d={args.d} s={args.s}: best of {args.repeats} {best:.4g} s", flush=True)
    rng = np.random.default_rng(args.seed)
    X = rng.standard_normal((args.n, args.d))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(args.n)
    pipe = make_pipeline(qmc_orff.FourierFeatures("gaussian", sigma=np.sqrt(args.d),
                                                  n_components=args.s, sequence="mc",
                                                  seed=args.seed), Ridge(alpha=1e-3))
    t0 = time.perf_counter()
    pipe.fit(X, y)
    rows.append({"what": "downstream", "method": "mc features + ridge", "rep": 0,
                 "seconds": time.perf_counter() - t0})
    print(f"downstream: MC features + Ridge on {args.n} x {args.d}, s={args.s}: "
          f"{rows[-1]['seconds']:.3g} s", flush=True)
    record.params.update(d=args.d, s=args.s, repeats=args.repeats, n=args.n,
                         threads=qmc_orff.get_num_threads())
    return rows


def plot(rows, path):
    plt = C.pyplot()
    labels = list(dict.fromkeys(r["method"] for r in rows))
    best = [min(r["seconds"] for r in rows if r["method"] == m) for m in labels]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.barh(labels, best, color=["tab:gray" if m.startswith("mc features") else "tab:blue"
                                 for m in labels])
    ax.set_xscale("log")
    ax.set_xlabel("seconds (best of the repeats; downstream fit: once)")
    ax.grid(True, axis="x", which="both", alpha=0.3)
    return C.save_figure(fig, path)


def main(argv=None):
    args = parse(argv)
    return C.run_example(NAME, args, run, params={}, plot=plot)


if __name__ == "__main__":
    sys.exit(main())
