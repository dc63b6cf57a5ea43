"""``qmc-orff generate``: QMC points mapped to frequencies (or raw unit-cube points)."""
from __future__ import annotations

import sys

import numpy as np

from ._common import (_CliError, _check_output_path, _check_suffix, _nonneg_int, _positive_int,
                      _scramble_arg)


def _cmd_generate(args):
    from ..densities import get_density
    from ..designs import to_frequencies
    from ..generators import Halton, Lattice, Sobol
    from ..sequence import Sequence

    d, n = args.d, args.n
    _check_output_path(args.output, "-o/--output")
    _check_suffix(args.output, "-o/--output", (".npz", ".npy", ".txt", ".csv")
                  if not args.unit_cube else (".npy", ".txt", ".csv"))
    if args.scramble == "deterministic" and args.generator != "halton":
        raise _CliError(f"--scramble deterministic (RR2) applies to halton only; got "
                        f"{args.generator!r}")
    if args.scramble is None:  # the Python engine's default: Sobol', Halton scrambled; lattice not
        args.scramble = args.generator != "lattice"
    if args.generator == "halton":
        scramble = args.scramble if args.scramble else False
        engine = Halton(d, scramble=scramble, rng=args.seed)
    elif args.generator == "sobol":
        engine = Sobol(d, scramble=bool(args.scramble), rng=args.seed)
    else:
        engine = Lattice(d, shift=bool(args.scramble), rng=args.seed)
    policy = "scrambled/shifted, clipped into [2^-53, 1 - 2^-53]"
    # unit-cube points are the engine's, index 0 included; as frequencies, an unscrambled
    # sequence's first point (the origin) would be the inverse CDF of 0 (-inf, clipped to about
    # -8.3 sigma): it is skipped, and an unshifted lattice is shifted by 1/(2n) instead
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)  # the engine's, e.g. Sobol's balance
        if args.generator == "lattice":
            t = engine.random(n)
            if not args.scramble and not args.unit_cube:
                t = np.mod(t + 0.5 / n, 1.0)
                policy = "lattice shifted by 1/(2n) (no point at 0)"
        else:
            if not args.scramble and not args.unit_cube:
                engine.fast_forward(1)
                policy = "index 0 (the origin) skipped"
            t = engine.random(n)
    for warning in caught:  # as the Python engine warns, on one line each
        sys.stderr.write(f"qmc-orff: warning: {warning.message}\n")
    t = np.asarray(t, dtype=np.float64)
    out = args.output
    if args.unit_cube:
        _written(out, lambda: _write_array(out, t))
        print(f"wrote {n} x {d} {args.generator} points in [0, 1)^d to {out}")
        return 0
    density = get_density(args.kernel)
    W = to_frequencies(t, density, 1.0, clip=True)
    if out.endswith(".npz"):
        seq = Sequence(W, None, {"method": args.generator, "init": args.generator,
                                 "density": density.name, "scramble": args.scramble,
                                 "seed": args.seed, "unit_cube_policy": policy})
        _written(out, lambda: seq.save(out))
    else:
        _written(out, lambda: _write_array(out, W))
    print(f"wrote {n} {args.generator} frequencies (d={d}, {density.name} density, unit "
          f"bandwidth; {policy}) to {out}")
    return 0


def _written(path, write):
    """``write()`` the file ``path`` (atomically: the old file or none stays on failure); a
    full disk or a file-size limit (``OSError``) ends in one line and exit status 2, as the
    design commands do."""
    try:
        write()
    except OSError as exc:
        raise _CliError(f"cannot write {path!r} ({exc.strerror or exc}); nothing was "
                        "written") from None


def _write_array(path, arr):
    from ..sequence import atomic_write

    if path.endswith(".npy"):
        atomic_write(path, lambda fh: np.save(fh, arr))
    elif path.endswith((".txt", ".csv")):
        sep = "," if path.endswith(".csv") else " "
        atomic_write(path, lambda fh: np.savetxt(fh, arr, fmt="%.17g", delimiter=sep))
    else:
        raise _CliError(f"output file must end in .npz, .npy, .txt or .csv; got {path!r}")


#: the command's line in ``qmc-orff --help``
HELP = "write QMC points mapped to frequencies"


def add_parser(sub):
    """Add the ``generate`` subcommand's parser to ``sub`` (the command's subparsers); return it."""
    g = sub.add_parser("generate", help=HELP,
                       description="Write n QMC points as frequencies of the kernel's density at "
                       "unit bandwidth (.npz sequence, .npy, .txt or .csv), or the raw unit-cube "
                       "points with --unit-cube.  The defaults are the Python engines' "
                       "(qmc_orff.Sobol, Halton: scrambled; Lattice: unshifted), and with "
                       "--unit-cube the points are theirs, index 0 included.  As frequencies, "
                       "an unscrambled Halton/Sobol' sequence starts at index 1 and an unshifted "
                       "lattice is shifted by 1/(2n): their first point is the origin, whose "
                       "frequency would be the inverse CDF of 0 (-infinity).",
                       epilog="examples:\n  qmc-orff generate sobol --d 4 --n 256 --seed 1 "
                       "-o W.npy\n  qmc-orff generate halton --d 4 --n 100 --scramble false "
                       "--unit-cube -o U.txt")
    g.add_argument("generator", choices=("halton", "sobol", "lattice"))
    g.add_argument("--d", type=_positive_int, required=True, help="dimension")
    g.add_argument("--n", type=_positive_int, required=True, help="number of points")
    g.add_argument("--scramble", nargs="?", const=True, default=None, type=_scramble_arg,
                   metavar="{true,false,random,deterministic}",
                   help="scramble the points (no value: true; Halton: 'random' or "
                   "'deterministic' RR2 permutations; lattice: a random shift); default: the "
                   "Python engine's (true for halton and sobol, false for lattice)")
    g.add_argument("--seed", type=_nonneg_int, default=None,
                   help="seed of the scrambling (default: none, fresh entropy, as the engines)")
    g.add_argument("--kernel", choices=("gaussian", "laplacian"), default="gaussian",
                   help="the kernel whose density the frequencies follow (default: gaussian)")
    g.add_argument("--unit-cube", action="store_true", help="write the points in [0, 1)^d")
    g.add_argument("-o", "--output", required=True,
                   help="output file: .npz (a sequence), .npy, .txt or .csv")
    return g
