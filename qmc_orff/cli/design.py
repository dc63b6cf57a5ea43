"""``qmc-orff design {global,greedy,weighted,lattice,adaptive}``: one subcommand per method, each
with its own options; the box designs here (checkpoints, resume and Ctrl-C), adaptive in
``design_adaptive``."""
from __future__ import annotations

import os

import numpy as np

from ._common import (EXIT_INTERRUPTED, _CliError, _Parser, _check_output_path, _check_suffix,
                      _design_size, _nonneg_int, _positive_float, _positive_floats,
                      _positive_int, _read_points, _save_result, _saver)
from .design_adaptive import _cmd_design_adaptive


def _cmd_design(args):
    # -o may name the --resume file: it is read in full before the first write, and every
    # write (checkpoints, the result) replaces the file atomically
    _check_output_path(args.output, "-o/--output")
    _check_suffix(args.output, "-o/--output", (".npz",))
    if getattr(args, "lattice_txt", None) is not None:
        _check_output_path(args.lattice_txt, "--lattice-txt", inputs=(args.output,))
    from .. import designs
    from ..objectives.box import BoxDiscrepancy

    if args.method == "adaptive":
        return _cmd_design_adaptive(args)
    _check_box_design_args(args)
    d, s, r = args.d, args.s, args.box_over_sigma
    box = r if np.ndim(r) else np.full(d, r)
    obj = BoxDiscrepancy(box, kernel=args.kernel, sigma=np.ones(d), d=d)
    if not float(obj.expected_mc(s, normalize=True)) > 0:  # as global_sequence, named for the CLI
        raise _CliError(f"--box-over-sigma {r} is too small for float64 at d={d}: the expected "
                        "Monte Carlo D^2 rounds to 0; increase it")
    out = args.output
    resumed = _resume_state(args, d, s, r, box)
    progress = not args.quiet
    every = getattr(args, "checkpoint_every", 0)
    save = _saver(out)

    def checkpoint(partial):
        save(partial, final=False)

    if args.method == "global":
        seq = designs.global_sequence(obj, s, d=d, init=args.init, method=args.optimizer,
                                      maxiter=args.maxiter, tol=args.tol, seed=args.seed,
                                      progress=progress, resume=resumed,
                                      checkpoint=checkpoint if every else None,
                                      checkpoint_every=every or None)
        if resumed is not None:
            seq.meta["resumed_from"] = os.path.abspath(args.resume)
    elif args.method == "greedy":
        seq = designs.greedy_sequence(obj, s, d=d, init=args.init, method=args.optimizer,
                                      maxiter=args.maxiter, tol=args.tol, seed=args.seed,
                                      progress=progress,
                                      prefix=resumed,
                                      checkpoint=checkpoint if every else None,
                                      checkpoint_every=every or None)
    elif args.method == "weighted":
        seq = designs.weighted_sequence(obj, s, d=d, init=args.init, seed=args.seed,
                                        solver=args.solver,
                                        sum_to_one=not args.unconstrained_weights)
    else:
        seq = designs.lattice_sequence(obj, s, d=d)
    interrupted = seq.meta.get("stop_reason") == "interrupted"
    _save_result(seq, out, save, interrupted)
    _report(args, seq, d, out, interrupted)
    if args.method == "lattice" and args.lattice_txt:
        seq.write_lattice(args.lattice_txt)
        print(f"wrote the generating vector to {args.lattice_txt} (LDData lattice format)")
    return EXIT_INTERRUPTED if interrupted else 0


def _resume_state(args, d, s, r, box):
    """The ``--resume`` file of a box design (checked against the requested design), or None."""
    if getattr(args, "resume", None) is None:
        return None
    ckpt = _read_points(args.resume) if os.path.exists(args.resume) else None
    if ckpt is None:
        raise _CliError(f"cannot read {args.resume!r}: no such file")
    m = ckpt.meta
    if m.get("method") != args.method:
        raise _CliError(f"--resume file {args.resume!r} holds a {m.get('method')!r} design, "
                        f"not {args.method!r}")
    if ckpt.d != d or m.get("box_over_sigma") != [float(x) for x in np.broadcast_to(box, (d,))]:
        raise _CliError(f"--resume file {args.resume!r} was designed for d={ckpt.d}, "
                        f"box_over_sigma={m.get('box_over_sigma')}; not for d={d}, "
                        f"box_over_sigma={r}")
    if args.method == "global" and ckpt.s != s:
        raise _CliError(f"--resume file {args.resume!r} has s={ckpt.s}; expected {s}")
    if args.method == "greedy" and ckpt.s > s:
        raise _CliError(f"--resume file {args.resume!r} has s={ckpt.s} > {s}")
    return ckpt


def _report(args, seq, d, out, interrupted):
    """The line on stdout that ends a box design."""
    m = seq.meta
    vs_mc = (f", Monte Carlo expectation ratio {m['ratio_to_mc']:.3g}"
             if m.get("ratio_to_mc") else "")
    print(f"{'interrupted: saved the best iterate' if interrupted else 'wrote'} {out}: "
          f"{args.method} design, s={seq.s}, d={d}, normalised D^2={m['normalized_d2']:.4e} "
          f"(Halton {m['normalized_halton_d2']:.4e}, ratio {m['ratio_to_halton']:.3g}{vs_mc}); "
          f"stop: {m.get('stop_reason')}. A box discrepancy does not measure the Gram error "
          f"on data: check with qmc_orff.gram_error on held-out points (or design adaptive)")


def _check_box_design_args(args):
    """What the parser cannot check: a per-coordinate --box-over-sigma has d values."""
    r = args.box_over_sigma
    if np.ndim(r) and len(r) != args.d:
        raise _CliError(f"--box-over-sigma has {len(r)} values; give one number or d={args.d} "
                        f"(one per coordinate, comma-separated)")


def _api_defaults(method):
    """The Python function's keyword defaults, which the command's defaults are."""
    from .. import designs

    return getattr(designs, f"{method}_sequence").__kwdefaults__


_EXAMPLES = {
    "global": "qmc-orff design global --d 4 --s 256 --box-over-sigma 0.5 -o g.npz\n"
              "  qmc-orff design global --d 4 --s 256 --box-over-sigma 0.5 --maxiter 600 "
              "--resume g.npz -o g.npz",
    "greedy": "qmc-orff design greedy --d 4 --s 64 --box-over-sigma 0.5 -o greedy.npz",
    "weighted": "qmc-orff design weighted --d 4 --s 256 --box-over-sigma 0.5 -o w.npz",
    "lattice": "qmc-orff design lattice --d 4 --s 256 --box-over-sigma 0.5 -o lat.npz "
               "--lattice-txt lat.txt",
    "adaptive": "qmc-orff design adaptive --data X.npy --s 128 --sigma median -o a.npz",
}


def _example(method):
    return f"example:\n  {_EXAMPLES[method]}"


def _box_parser(methods, name, help, description):
    """A box design's parser: the options every box design takes."""
    p = methods.add_parser(name, help=help, description=description, epilog=_example(name))
    p.add_argument("--d", type=_positive_int, required=True, help="dimension")
    p.add_argument("--s", type=_design_size(), required=True, help="number of points")
    p.add_argument("--box-over-sigma", type=_positive_floats, required=True, metavar="R",
                   help="box half-width over kernel bandwidth (one number, or d comma-separated)")
    p.add_argument("--kernel", choices=("gaussian", "laplacian"), default="gaussian",
                   help="kernel whose density the frequencies follow (default: gaussian)")
    p.add_argument("-o", "--output", required=True, help="output .npz file")
    p.add_argument("--quiet", action="store_true",
                   help="no progress output (a bar on a terminal, otherwise one line every "
                   "few iterations or seconds)")
    return p


def _optimizer_options(p, method, maxiter_help):
    """--maxiter, --optimizer, --tol, --init, --checkpoint-every and --resume (global,
    greedy), with the Python function's defaults."""
    api = _api_defaults(method)
    p.add_argument("--maxiter", type=_nonneg_int, default=api["maxiter"],
                   help=f"{maxiter_help} (default: {api['maxiter']})")
    p.add_argument("--optimizer", choices=("cg", "l-bfgs-b"), default=api["method"],
                   help=f"the optimiser (default: {api['method']})")
    p.add_argument("--tol", type=_positive_float, default=api["tol"],
                   help=f"gradient tolerance, scaled (default: {api['tol']:g})")
    _init_option(p, api)
    p.add_argument("--checkpoint-every", type=_nonneg_int, default=10, metavar="K",
                   help="write the current iterate to the output file every K "
                   + ("iterations" if method == "global" else "points") + "; 0 disables "
                   "(default: 10)")
    p.add_argument("--resume", default=None, metavar="FILE",
                   help="continue from a checkpoint or result file; -o may name the same file "
                   "(replaced atomically)")


def _init_option(p, api):
    p.add_argument("--init", choices=("halton", "halton-rr2", "sobol", "random"),
                   default=api["init"], help=f"start points (default: {api['init']}; random: "
                   "i.i.d. uniform, from --seed)")
    p.add_argument("--seed", type=_nonneg_int, default=api["seed"],
                   help="seed of --init random (default: none, as the Python function)")


#: the command's line in ``qmc-orff --help``
HELP = "design a sequence (global, greedy, weighted, lattice, adaptive)"


def add_parser(sub):
    """Add the ``design`` subcommand and its methods' parsers to ``sub``; return it."""
    from .design_adaptive import add_adaptive_parser

    de = sub.add_parser("design", help=HELP,
                        description="Design s frequencies in d dimensions minimising the box "
                        "discrepancy for box/bandwidth R (unit bandwidth, box R), or, with "
                        "'adaptive', the Gram error on data.  Each method has its own options: "
                        "qmc-orff design METHOD --help.  Ctrl-C saves the best iterate (exit "
                        "status 130).", epilog=f"example:\n  {_EXAMPLES['global']}")
    methods = de.add_subparsers(dest="method", metavar="{global,greedy,weighted,lattice,adaptive}",
                                parser_class=_Parser)
    methods.required = True
    g = _box_parser(methods, "global", "all s points optimised together (L-BFGS-B or CG)",
                    "Optimise all s frequencies together from a start sequence; checkpoints, "
                    "--resume and Ctrl-C keep the best iterate.")
    _optimizer_options(g, "global", "iteration cap, in all (also across --resume)")
    gr = _box_parser(methods, "greedy", "points added one at a time",
                     "Add the frequencies one at a time, each optimised with the earlier ones "
                     "fixed; checkpoints every K points, --resume continues a prefix.")
    _optimizer_options(gr, "greedy", "iteration cap per point")
    w = _box_parser(methods, "weighted", "a start sequence with optimal weights (a QP)",
                    "Keep the start sequence's points and fit nonnegative weights minimising "
                    "the box discrepancy (a quadratic programme).")
    api = _api_defaults("weighted")
    _init_option(w, api)
    w.add_argument("--solver", choices=("nnls", "cvxpy"), default=api["solver"],
                   help=f"weights QP solver (default: {api['solver']})")
    w.add_argument("--unconstrained-weights", action="store_true",
                   help="the paper's QP without sum(xi) = 1 (warns when the sum is far from 1: "
                   "the map then has k(0) = sum(xi) != 1)")
    la = _box_parser(methods, "lattice", "a rank-1 lattice searched for the box discrepancy",
                     "A rank-1 lattice whose generating vector minimises the box discrepancy.")
    la.add_argument("--lattice-txt", default=None, metavar="FILE",
                    help="also write the generating vector (LDData lattice format)")
    add_adaptive_parser(methods, _example("adaptive"))
    return de
