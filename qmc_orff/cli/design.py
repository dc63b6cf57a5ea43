"""``qmc-orff design {global,greedy,weighted,lattice}``: box designs with checkpoints, resume and
Ctrl-C."""
from __future__ import annotations

import os
import sys

import numpy as np

from ._common import (EXIT_INTERRUPTED, _CliError, _check_output_path, _int_at_least,
                      _save_result, _nonneg_int, _positive_floats, _positive_int, _read_points)
from .design_adaptive import _cmd_design_adaptive, _sigma_arg


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
    if args.lattice_txt is not None:
        _check_output_path(args.lattice_txt, "--lattice-txt", inputs=(args.resume, args.output))
    from .. import designs
    from ..objectives.box import BoxDiscrepancy

    if args.method == "adaptive":
        return _cmd_design_adaptive(args)
    _check_box_design_args(args)
    d, s, r = args.d, args.s, args.box_over_sigma
    box = r if np.ndim(r) else np.full(d, r)
    obj = BoxDiscrepancy(box, kernel=args.kernel, sigma=np.ones(d), d=d)
    out = args.output
    init, done_iter, history0, nhistory0, prefix = _resume_state(args, d, s, r, box)
    progress = not args.quiet
    every = args.checkpoint_every
    save = _saver(out)

    if args.method == "global":
        seq = _global_design(args, obj, box, s, d, init, (done_iter, history0, nhistory0),
                             save, progress)
    elif args.method == "greedy":
        def checkpoint(partial):
            save(partial, final=False)

        seq = designs.greedy_sequence(obj, s, d=d, init=args.init, method=args.optimizer,
                                      maxiter=args.maxiter, progress=progress, prefix=prefix,
                                      checkpoint=checkpoint if every else None,
                                      checkpoint_every=every or None)
    elif args.method == "weighted":
        seq = designs.weighted_sequence(obj, s, d=d, init=args.init, solver=args.solver,
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
    done_iter, history0, nhistory0, init = 0, None, None, args.init
    prefix = None
    if args.resume is not None:
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
        else:
            raise _CliError(f"--resume applies to the global and greedy designs only; "
                            f"got {args.method!r}")
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
    history of a resumed run continues the checkpoint's."""
    from ..designs._optimizer import _scaled
    from ..designs.global_design import global_sequence
    from ..designs.start_points import initial_points, to_frequencies
    from ..sequence import Sequence

    done_iter, history0, nhistory0 = resumed
    every = args.checkpoint_every
    remaining = max(args.maxiter - done_iter, 0)
    log_scale = float(np.sum(np.log(np.broadcast_to(box, (d,)) / np.pi)))
    if every and args.resume is None:
        # a fresh run: its initial D^2 opens the checkpoints' history
        U0 = to_frequencies(initial_points(init, s, d), obj.density, 1.0)
        n0 = float(obj.value_and_grad(U0, normalize=True)[0])
        ck_hist, ck_nhist = [_scaled(n0, log_scale)], [n0]
    else:
        ck_hist, ck_nhist = list(history0 or []), list(nhistory0 or [])

    def callback(it, W, d2):
        if not every:
            return False
        # the normalised value, from the raw one where it is representable
        nd2 = (_scaled(d2, -log_scale) if d2 not in (None, 0.0)
               else float(obj(W, normalize=True)))
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

    seq = global_sequence(obj, s, d=d, init=init, method=args.optimizer,
                                 maxiter=remaining, tol=args.tol, callback=callback,
                                 progress=progress)
    meta = dict(seq.meta)
    if history0:
        meta["history"] = history0 + meta["history"][1:]
        if nhistory0:
            meta["normalized_history"] = nhistory0 + meta["normalized_history"][1:]
    meta["iterations"] = done_iter + meta["iterations"]
    meta["maxiter"] = args.maxiter
    if args.resume is not None:
        meta["resumed_from"] = os.path.abspath(args.resume)
    seq = Sequence(seq.points, seq.weights, meta)
    return seq


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
    """The box designs need --d and --box-over-sigma; the data options are adaptive's."""
    missing = [f"--{n.replace('_', '-')}" for n in ("d", "box_over_sigma")
               if getattr(args, n) is None]
    if missing:
        raise _CliError(f"design {args.method} needs {' and '.join(missing)}")
    for opt, value in (("--data", args.data), ("--sigma", args.sigma_arg)):
        if value is not None:
            raise _CliError(f"{opt} applies to design adaptive, not to the {args.method} design")
    if args.kernel not in ("gaussian", "laplacian"):
        raise _CliError(f"the box designs take --kernel gaussian or laplacian; got {args.kernel!r}")
    if args.init in ("orf", "mc"):
        raise _CliError(f"--init {args.init} applies to design adaptive; the box designs start "
                        f"from halton, halton-rr2 or sobol")
    if args.maxiter is None:
        args.maxiter = 200
    if args.tol is None:
        args.tol = 1e-6
    if args.init is None:
        args.init = "halton"


def add_parser(sub):
    """Add the ``design`` subcommand's parser to ``sub`` (the command's subparsers); return it."""
    de = sub.add_parser("design", help="design a sequence (global, greedy, weighted, lattice, "
                        "adaptive)",
                        description="Design s frequencies in d dimensions minimising the box "
                        "discrepancy for box/bandwidth R (unit bandwidth, box R); or, with "
                        "'adaptive', minimising the Gram error on the points of --data (held-out "
                        "validation points pick the best iterate; the progress bar shows its "
                        "ratio to the ORF start).  Ctrl-C saves the best iterate (exit status 130).")
    de.add_argument("method", choices=("global", "greedy", "weighted", "lattice", "adaptive"))
    de.add_argument("--d", type=_positive_int, default=None,
                    help="dimension (box designs; required there)")
    de.add_argument("--s", type=_positive_int, required=True, help="number of points")
    de.add_argument("--box-over-sigma", type=_positive_floats, default=None,
                    help="box half-width over kernel bandwidth (scalar or per coordinate; box "
                    "designs, required there)")
    de.add_argument("--data", default=None, metavar="FILE",
                    help="adaptive: the data (.npy, or .csv with one point per line)")
    de.add_argument("--sigma", dest="sigma_arg", type=_sigma_arg, default=None,
                    metavar="SIGMA|median",
                    help="adaptive: kernel bandwidth, or 'median' for the median distance "
                    "between the data's points (L1 for laplacian)")
    de.add_argument("--kernel", choices=("gaussian", "laplacian", "matern"), default="gaussian",
                    help="matern: adaptive only")
    de.add_argument("--nu", type=float, default=1.5, help="adaptive, matern: smoothness")
    de.add_argument("--seed", type=int, default=None,
                    help="adaptive: seed of the start and the train/validation subsamples "
                    "(default 0; --resume: the checkpoint's)")
    de.add_argument("--n-train", type=_int_at_least(2, "an integer >= 2"), default=None,
                    help="adaptive: training subsample (all its pairs enter the objective; "
                    "default the library's)")
    de.add_argument("--n-validation", type=_nonneg_int, default=None,
                    help="adaptive: disjoint validation subsample that picks the best iterate "
                    "(default the library's)")
    de.add_argument("--patience", type=_positive_int, default=None,
                    help="adaptive: stop after this many iterations without a better validation "
                    "error (default the library's)")
    de.add_argument("--weights", action="store_true",
                    help="adaptive: also fit nonnegative weights (kept only if they validate "
                    "better)")
    de.add_argument("--maxiter", type=_nonneg_int, default=None,
                    help="iteration cap (global: total, also across --resume; greedy: per point; "
                    "default 200; adaptive: total, default the library's)")
    de.add_argument("--optimizer", choices=("cg", "l-bfgs-b"), default="l-bfgs-b")
    de.add_argument("--tol", type=float, default=None,
                    help="gradient tolerance (scaled; default 1e-6, adaptive: the library's)")
    de.add_argument("--init", choices=("halton", "halton-rr2", "sobol", "orf", "mc"), default=None,
                    help="start (box designs: halton, halton-rr2, sobol, default halton; "
                    "adaptive: orf, mc, halton or sobol, default orf, mc for laplacian)")
    de.add_argument("--solver", choices=("nnls", "cvxpy"), default="nnls",
                    help="weights QP solver (weighted)")
    de.add_argument("--unconstrained-weights", action="store_true",
                    help="weighted: the paper's QP without sum(xi) = 1 (warns when the sum is "
                    "far from 1: the map then has k(0) = sum(xi) != 1)")
    de.add_argument("--lattice-txt", default=None,
                    help="lattice: also write the generating vector (LDData format)")
    de.add_argument("-o", "--output", required=True, help="output .npz file")
    de.add_argument("--checkpoint-every", type=_nonneg_int, default=10,
                    help="write the current iterate to the output file every K iterations "
                    "(greedy: points); 0 disables")
    de.add_argument("--resume", default=None, metavar="FILE",
                    help="continue a global, greedy or adaptive design from a checkpoint or "
                    "result file; -o may name the same file (replaced atomically)")
    de.add_argument("--quiet", action="store_true",
                    help="no progress output (a bar on a terminal, otherwise one line every "
                    "few iterations or seconds)")
    return de
