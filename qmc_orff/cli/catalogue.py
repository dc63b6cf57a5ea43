"""``qmc-orff catalogue {list,show,build}``: the precomputed sequences."""
from __future__ import annotations

import json
import sys

from ._common import _CliError, _nonneg_int, _positive_int


def _cmd_catalogue(args):
    from qmc_orff import catalogue as cat

    if args.action == "list":
        entries = cat.list_catalogue(d=args.d, s=args.s, method=args.method, directory=args.directory)
        if args.json:
            print(json.dumps(entries, indent=1))
            return 0
        if not entries:
            where = "" if args.directory is None else f" in {args.directory!r}"
            print(f"the catalogue{where} is empty; build it with `qmc-orff catalogue build`")
            return 0
        print(f"{'file':44s} {'d':>3s} {'s':>5s} {'b/sig':>5s} {'method':8s} {'D^2':>11s} "
              f"{'Halton':>11s} {'ratio':>8s}")
        for e in entries:
            print(f"{e['file']:44s} {e['d']:3d} {e['s']:5d} {e['box_over_sigma']:5g} "
                  f"{e['method']:8s} {e['d2']:11.4e} {e['halton_d2']:11.4e} "
                  f"{e.get('ratio_to_halton', float('nan')):8.3g}")
        return 0
    if args.action == "show":
        if args.d is None or args.s is None:
            raise _CliError("catalogue show needs --d and --s")
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            seq = cat.load_catalogue(args.d, args.s, args.box_over_sigma, args.method or "global",
                                     directory=args.directory)
        for w in caught:
            print(f"note: {w.message}", file=sys.stderr)
        meta = {k: v for k, v in seq.meta.items() if k != "history"}
        print(json.dumps(meta, indent=1, sort_keys=True))
        return 0
    # build
    d_values = args.d_values or cat.D_VALUES
    s_values = args.s_values or cat.S_VALUES
    methods = args.methods or cat.METHODS
    boxes = args.box_values or cat.BOX_OVER_SIGMA
    log = None if args.quiet else (lambda msg: print(msg, flush=True))
    out = cat.user_catalogue_dir() if args.directory is None else args.directory
    if log is not None:
        log(f"building the catalogue in {out}")
    # workers > 1: "spawn" worker processes that end with this one (even on SIGKILL)
    cat.build_catalogue(out, d_values=d_values, s_values=s_values, box_over_sigma=boxes,
                        methods=methods, maxiter=args.maxiter, resume=args.resume, log=log,
                        workers=args.workers)
    _built(out, log)
    return 0


def _built(out, log):
    if log is not None:
        log(f"read it with `qmc-orff catalogue list --dir {out}` or "
            f"qmc_orff.load_catalogue(..., directory={out!r})")


def add_parser(sub):
    """Add the ``catalogue`` subcommand's parser to ``sub`` (the command's subparsers); return it."""
    c = sub.add_parser("catalogue", help="list, show or build the catalogue of designs",
                       description="list: the entries; show: one entry's metadata (nearest "
                       "box_over_sigma); build: compute the files into a folder of yours "
                       "(resumable).")
    c.add_argument("action", choices=("list", "show", "build"),
                   help="list the entries, show one entry's metadata, or build the files")
    c.add_argument("--d", type=_positive_int, default=None,
                   help="list/show: dimension of the entries (show: required)")
    c.add_argument("--s", type=_positive_int, default=None,
                   help="list/show: number of points of the entries (show: required)")
    c.add_argument("--box-over-sigma", type=float, default=2.0,
                   help="show: box half-width over bandwidth; the log-nearest entry is shown "
                   "(default: 2)")
    c.add_argument("--method", choices=("global", "weighted"), default=None,
                   help="list/show: design method of the entries (show default: global)")
    c.add_argument("--json", action="store_true", help="list: print the entries as JSON")
    c.add_argument("--dir", "--out", dest="directory", default=None, metavar="FOLDER",
                   help="the catalogue's folder: list/show read it (default: the shipped "
                   "catalogue); build writes into it (default: $QMC_ORFF_CATALOGUE_DIR, else "
                   "the user data folder, e.g. ~/.local/share/qmc_orff/sequences; never the "
                   "installed package)")
    c.add_argument("--resume", action="store_true",
                   help="build: keep the files that are complete and valid for the same settings")
    c.add_argument("--maxiter", type=_nonneg_int, default=None,
                   help="build: iteration cap of the global designs (default: by size)")
    c.add_argument("--d-values", type=_positive_int, nargs="+", default=None, metavar="D",
                   help="build: dimensions of the grid (default: the catalogue's)")
    c.add_argument("--s-values", type=_positive_int, nargs="+", default=None, metavar="S",
                   help="build: sizes of the grid (default: the catalogue's)")
    c.add_argument("--box-values", type=float, nargs="+", default=None, metavar="R",
                   help="build: box-over-sigma values of the grid (default: the catalogue's)")
    c.add_argument("--methods", choices=("global", "weighted"), nargs="+", default=None,
                   help="build: design methods of the grid (default: both)")
    c.add_argument("--workers", type=_positive_int, default=1, metavar="N",
                   help="build: design N entries at a time in worker processes, each writing "
                   "its own file (default: 1, in this process)")
    c.add_argument("--quiet", action="store_true", help="build: no line per entry")
    return c
