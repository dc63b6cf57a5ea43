"""``qmc-orff catalogue {list,show,build}``: the precomputed sequences."""
from __future__ import annotations

import json
import sys

from ._common import _Parser, _nonneg_int, _positive_float, _positive_int


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
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            seq = cat.load_catalogue(args.d, args.s, args.box_over_sigma, args.method,
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


def _load_defaults():
    """``load_catalogue``'s defaults ``(box_over_sigma, method)``, which ``show``'s are."""
    import inspect

    from ..catalogue import load_catalogue

    params = inspect.signature(load_catalogue).parameters
    return params["box_over_sigma"].default, params["method"].default


def _action(actions, name, help, description, example):
    return actions.add_parser(name, help=help, description=description,
                              epilog=f"example:\n  {example}")


def _dir_option(p, help):
    p.add_argument("--dir", dest="directory", default=None, metavar="FOLDER", help=help)


_READ_DIR = "the catalogue's folder (default: the shipped catalogue)"


#: the command's line in ``qmc-orff --help``
HELP = "list, show or build the catalogue of designs"


def add_parser(sub):
    """Add the ``catalogue`` subcommand and its actions' parsers to ``sub``; return it."""
    c = sub.add_parser("catalogue", help=HELP,
                       description="list: the entries; show: one entry's metadata (nearest "
                       "box_over_sigma); build: compute the files into a folder of yours "
                       "(resumable).  Each action has its own options: qmc-orff catalogue "
                       "ACTION --help.", epilog="example:\n  qmc-orff catalogue list --d 4")
    actions = c.add_subparsers(dest="action", metavar="{list,show,build}", parser_class=_Parser)
    actions.required = True
    li = _action(actions, "list", "list the entries", "List the catalogue's entries (all, or "
                 "those of the given d, s and method).", "qmc-orff catalogue list --d 4 --json")
    li.add_argument("--d", type=_positive_int, default=None, help="only entries of dimension D")
    li.add_argument("--s", type=_positive_int, default=None, help="only entries of S points")
    li.add_argument("--method", choices=("global", "weighted"), default=None,
                    help="only entries of this design method")
    li.add_argument("--json", action="store_true", help="print the entries as JSON")
    _dir_option(li, _READ_DIR)
    box, method = _load_defaults()
    sh = _action(actions, "show", "show one entry's metadata",
                 "Print the metadata of the entry qmc_orff.load_catalogue(d, s, box_over_sigma, "
                 "method) returns (the log-nearest box_over_sigma), with the same defaults.",
                 "qmc-orff catalogue show --d 4 --s 256 --box-over-sigma 0.5")
    sh.add_argument("--d", type=_positive_int, required=True, help="dimension")
    sh.add_argument("--s", type=_positive_int, required=True, help="number of points")
    sh.add_argument("--box-over-sigma", type=_positive_float, default=box, metavar="R",
                    help=f"box half-width over bandwidth; the log-nearest entry is shown "
                    f"(default: {box:g}, as load_catalogue)")
    sh.add_argument("--method", choices=("global", "weighted"), default=method,
                    help=f"design method (default: {method}, as load_catalogue)")
    _dir_option(sh, _READ_DIR)
    bu = _action(actions, "build", "compute the catalogue's files into a folder",
                 "Design every entry of the grid and write it, with index.json, into a folder "
                 "of yours (never the installed package).  Resumable; Ctrl-C keeps the finished "
                 "files indexed.",
                 "qmc-orff catalogue build --dir cat --d-values 2 4 --s-values 64 --workers 2")
    bu.add_argument("--dir", "--out", dest="directory", default=None, metavar="FOLDER",
                    help="the folder to write (default: $QMC_ORFF_CATALOGUE_DIR, else the user "
                    "data folder, e.g. ~/.local/share/qmc_orff/sequences)")
    bu.add_argument("--resume", action="store_true",
                    help="keep the files that are complete and valid for the same settings")
    bu.add_argument("--maxiter", type=_nonneg_int, default=None,
                    help="iteration cap of the global designs (default: by size)")
    bu.add_argument("--d-values", type=_positive_int, nargs="+", default=None, metavar="D",
                    help="dimensions of the grid (default: the catalogue's)")
    bu.add_argument("--s-values", type=_positive_int, nargs="+", default=None, metavar="S",
                    help="sizes of the grid (default: the catalogue's)")
    bu.add_argument("--box-values", type=_positive_float, nargs="+", default=None, metavar="R",
                    help="box-over-sigma values of the grid (default: the catalogue's)")
    bu.add_argument("--methods", choices=("global", "weighted"), nargs="+", default=None,
                    help="design methods of the grid (default: both)")
    bu.add_argument("--workers", type=_positive_int, default=1, metavar="N",
                    help="design N entries at a time in worker processes, each writing its own "
                    "file (default: 1, in this process)")
    bu.add_argument("--quiet", action="store_true", help="no line per entry")
    return c
