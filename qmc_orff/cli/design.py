"""``qmc-orff design {global,greedy,weighted,lattice,adaptive}``: one subcommand per method, each
with its own options; the box designs here (checkpoints, resume and Ctrl-C), adaptive in
``design_adaptive``."""
from __future__ import annotations

import os
import sys

import numpy as np

from ._common import (EXIT_INTERRUPTED, _CliError, _Parser, _check_output_path, _check_suffix,
                      _design_size, _nonneg_int, _positive_float, _positive_floats,
                      _positive_int, _read_points, _save_result)
from .design_adaptive import _cmd_design_adaptive


def _resumed_history(path, meta):
    """``(iterations, history, normalized_history)`` of a global checkpoint or result.

    The histories continue in the resumed run's file only when they are
    consistent (``iterations + 1`` finite numbers each); otherwise they are ``None``
    (the normalised one alone may be ``None``).
    """
    done = meta.get("iterations", 0)
    if type(done) is not int or done < 0:
        raise _CliError(f"--resume file {path!r} has a malformed 'iterations' entry")

    def series(key):
        h = meta.get(key)
        ok = (isinstance(h, list) and len(h) == done + 1
              and all(x is None or type(x) in (int, float) for x in h))
        return list(h) if ok else None

    hist = series("history")
    return done, hist, series("normalized_history") if hist else None


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
    init, done_iter, history0, nhistory0, prefix = _resume_state(args, d, s, r, box)
    progress = not args.quiet
    every = getattr(args, "checkpoint_every", 0)
    save = _saver(out)

    if args.method == "global":
        seq = _global_design(args, obj, box, s, d, init, (done_iter, history0, nhistory0),
                             save, progress)
    elif args.method == "greedy":
        def checkpoint(partial):
            save(partial, final=False)

        seq = designs.greedy_sequence(obj, s, d=d, init=args.init, method=args.optimizer,
                                      maxiter=args.maxiter, tol=args.tol, seed=args.seed,
                                      progress=progress,
                                      prefix=prefix,
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
    """``(init, done_iter, history0, nhistory0, prefix)``: the start of a box design, from
    ``--init`` or the ``--resume`` file (checked against the requested design)."""
    done_iter, history0, nhistory0 = 0, None, None
    init, prefix = getattr(args, "init", None), None
    if getattr(args, "resume", None) is not None:
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
        if args.method == "global":
            if ckpt.s != s:
                raise _CliError(f"--resume file {args.resume!r} has s={ckpt.s}; expected {s}")
            init = ckpt
            done_iter, history0, nhistory0 = _resumed_history(args.resume, m)
        elif args.method == "greedy":
            if ckpt.s > s:
                raise _CliError(f"--resume file {args.resume!r} has s={ckpt.s} > {s}")
            prefix = ckpt
    return init, done_iter, history0, nhistory0, prefix


def _saver(out):
    """``save(seq, final)``: write ``seq`` to ``out`` marked complete or not; a failed
    checkpoint (``final=False``) warns once and the design goes on."""
    from ..sequence import Sequence

    warned = []

    def save(seq, final):
        meta = dict(seq.meta)
        meta["complete"] = bool(final)
        result = Sequence(seq.points, seq.weights, meta)
        try:
            result.save(out)
        except OSError as exc:
            if final:
                raise
            if not warned:  # a failed checkpoint must not end the run
                warned.append(exc)
                sys.stderr.write(f"\nqmc-orff: warning: cannot write the checkpoint {out!r} "
                                 f"({exc.strerror or exc}); going on\n")

    return save


def _global_design(args, obj, box, s, d, init, resumed, save, progress):
    """The global design with checkpoints every ``--checkpoint-every`` iterations; the
    history of a resumed run continues the checkpoint's, and so does its progress bar
    (``iteration/--maxiter`` over the whole run: 600/600, not 300/300, after a resume at 300)."""
    from ..designs._optimizer import UnitProblem, _Progress, _scaled
    from ..designs.global_design import global_sequence
    from ..designs.start_points import initial_points, to_frequencies
    from ..sequence import Sequence

    done_iter, history0, nhistory0 = resumed
    every = args.checkpoint_every
    remaining = max(args.maxiter - done_iter, 0)
    log_scale = float(np.sum(np.log(np.broadcast_to(box, (d,)) / np.pi)))
    if every and args.resume is None:
        # a fresh run: its initial D^2 opens the checkpoints' history
        U0 = to_frequencies(initial_points(init, s, d, seed=args.seed), obj.density, 1.0)
        n0 = float(obj.value_and_grad(U0, normalize=True)[0])
        ck_hist, ck_nhist = [_scaled(n0, log_scale)], [n0]
    else:
        ck_hist, ck_nhist = list(history0 or []), list(nhistory0 or [])
    bar = None
    if progress and remaining > 0:
        bar = _Progress(args.maxiter, UnitProblem(obj, d).halton_meta(s)["normalized_halton_d2"])
    best = [min((x for x in (nhistory0 or []) if x is not None), default=np.inf)]

    def callback(it, W, d2):
        if not every and bar is None:
            return False
        # the normalised value, from the raw one where it is representable
        nd2 = (_scaled(d2, -log_scale) if d2 not in (None, 0.0)
               else float(obj(W, normalize=True)))
        best[0] = min(best[0], nd2)
        if bar is not None:
            bar.update(done_iter + it, best[0])
        if not every:
            return False
        ck_hist.append(d2)
        ck_nhist.append(nd2)
        if it % every == 0:
            partial = Sequence(W, None, {
                "method": "global", "density": obj.density.name,
                "box_over_sigma": [float(x) for x in np.broadcast_to(box, (d,))],
                "iterations": done_iter + it, "maxiter": args.maxiter, "d2": d2,
                "normalized_d2": nd2, "history": list(ck_hist),
                "normalized_history": list(ck_nhist), "stop_reason": "checkpoint",
                "checkpoint": True})
            save(partial, final=False)
        return False

    try:
        seq = global_sequence(obj, s, d=d, init=init, method=args.optimizer, maxiter=remaining,
                              tol=args.tol, seed=args.seed, callback=callback)
    finally:
        if bar is not None:
            bar.close()
    meta = dict(seq.meta)
    if history0:
        meta["history"] = history0 + meta["history"][1:]
        if nhistory0:
            meta["normalized_history"] = nhistory0 + meta["normalized_history"][1:]
    meta["iterations"] = done_iter + meta["iterations"]
    meta["maxiter"] = args.maxiter
    if args.resume is not None:
        meta["resumed_from"] = os.path.abspath(args.resume)
    return Sequence(seq.points, seq.weights, meta)


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


def add_parser(sub):
    """Add the ``design`` subcommand and its methods' parsers to ``sub``; return it."""
    from .design_adaptive import add_adaptive_parser

    de = sub.add_parser("design", help="design a sequence (global, greedy, weighted, lattice, "
                        "adaptive)",
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
