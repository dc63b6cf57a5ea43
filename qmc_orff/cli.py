"""The ``qmc-orff`` command line.

::

    qmc-orff generate {halton,sobol,lattice} --d D --n N [--scramble] [--seed S] -o FILE
    qmc-orff discrepancy FILE --box B [--sigma S] [--kernel gaussian|laplacian]
    qmc-orff design {global,greedy,weighted,lattice} --d D --s S --box-over-sigma R
             [--maxiter M] -o FILE [--checkpoint-every K] [--resume FILE] [--quiet]
    qmc-orff catalogue {list,show,build} [--workers N]
    qmc-orff --version

Bad arguments and unreadable files give a one-line error on stderr and exit
status 2.  ``design`` checks its output paths before any work (the folder
exists and is writable, the path is not a folder nor the ``--resume`` file),
shows its progress on stderr (a bar on a terminal, one line every few
iterations or seconds in a log), writes atomic checkpoints to the output file
every ``K`` iterations (greedy: points) and, on Ctrl-C, saves the best iterate
before exiting with status 130.  If the final save still fails, the result is
written to a fallback file whose name the error message gives.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

__all__ = ["main"]

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class _CliError(Exception):
    """An error to report on one line with exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, status 2 (argparse prints usage + error)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        sys.exit(EXIT_USAGE)


def _int_at_least(minimum, what):
    """An argparse type: an integer >= ``minimum`` (``what`` names it in the error)."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"expected {what}; got {text!r}")
        return value
    return parse


_positive_int = _int_at_least(1, "a positive integer")
_nonneg_int = _int_at_least(0, "an integer >= 0")


def _positive_floats(text):
    """A positive float, or a comma-separated list of them (one per coordinate)."""
    try:
        values = [float(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number or a comma-separated "
                                         f"list of them; got {text!r}") from None
    if not values or not all(np.isfinite(v) and v > 0 for v in values):
        raise argparse.ArgumentTypeError(f"expected positive finite numbers; got {text!r}")
    return values[0] if len(values) == 1 else np.asarray(values)


_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def _scramble_arg(text):
    """``--scramble`` value: a boolean spelt any usual way, ``random`` or ``deterministic``."""
    low = text.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    if low in ("random", "deterministic"):
        return low
    raise argparse.ArgumentTypeError(f"expected true, false, random or deterministic; got {text!r}")


def _check_output_path(path, option, inputs=()):
    """Fail early (one line, exit 2) when ``path`` cannot be written.

    Checked: ``path`` is not a folder, its folder exists, a file can be created
    there (a probe file is created and removed: ``os.access`` says yes to root
    on read-only mounts), and it is not one of the ``inputs`` files.
    """
    import tempfile

    if os.path.isdir(path):
        raise _CliError(f"{option} {path!r} is a directory; give a file name")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise _CliError(f"{option} {path!r}: folder {folder!r} does not exist")
    for other in inputs:
        if other is None:
            continue
        same = os.path.abspath(other) == os.path.abspath(path) or (
            os.path.exists(other) and os.path.exists(path) and os.path.samefile(path, other))
        if same:
            raise _CliError(f"{option} {path!r} is the same file as {other!r} (an input or "
                            "another output); give another name")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".qmc-orff-probe.", suffix=".tmp")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise _CliError(f"{option} {path!r}: folder {folder!r} is not writable "
                        f"({exc.strerror or exc})") from None


def _fallback_path(path):
    """A writable place for a result whose output file could not be written."""
    import tempfile

    base = os.path.basename(path) or "design.npz"
    stem = base[:-4] if base.endswith(".npz") else base
    name = f"{stem}.qmc-orff-fallback-{os.getpid()}.npz"
    for folder in (os.getcwd(), tempfile.gettempdir(), os.path.expanduser("~")):
        candidate = os.path.join(folder, name)
        try:
            fd, probe = tempfile.mkstemp(dir=folder, prefix=".qmc-orff-probe.", suffix=".tmp")
            os.close(fd)
            os.unlink(probe)
        except OSError:
            continue
        return candidate
    return None


# --------------------------------------------------------------------------- generate
def _cmd_generate(args):
    from .densities import get_density
    from .design import _EPS_UNIT, to_frequencies
    from .generators import Halton, Lattice, Sobol
    from .sequence import Sequence

    d, n = args.d, args.n
    _check_output_path(args.output, "-o/--output")
    if args.scramble == "deterministic" and args.generator != "halton":
        raise _CliError(f"--scramble deterministic (RR2) applies to halton only; got "
                        f"{args.generator!r}")
    if args.generator == "halton":
        scramble = args.scramble if args.scramble else False
        engine = Halton(d, scramble=scramble, rng=args.seed)
    elif args.generator == "sobol":
        engine = Sobol(d, scramble=bool(args.scramble), rng=args.seed)
    else:
        engine = Lattice(d, shift=bool(args.scramble), rng=args.seed)
    policy = "scrambled/shifted, clipped into [2^-53, 1 - 2^-53]"
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Sobol' balance warning for n != 2^m
        if args.generator == "lattice":
            t = engine.random(n)
            if not args.scramble:
                t = np.mod(t + 0.5 / n, 1.0)
                policy = "lattice shifted by 1/(2n) (no point at 0)"
        else:
            if not args.scramble:
                engine.fast_forward(1)
                policy = "index 0 (the origin) skipped"
            t = engine.random(n)
    t = np.asarray(t, dtype=np.float64)
    out = args.output
    if args.unit_cube:
        _write_array(out, t)
        print(f"wrote {n} x {d} {args.generator} points in [0, 1)^d to {out}")
        return 0
    density = get_density(args.kernel)
    t = np.clip(t, _EPS_UNIT, 1.0 - _EPS_UNIT)
    W = to_frequencies(t, density, 1.0)
    if out.endswith(".npz"):
        seq = Sequence(W, None, {"method": args.generator, "init": args.generator,
                                 "density": density.name, "scramble": args.scramble,
                                 "seed": args.seed, "unit_cube_policy": policy})
        seq.save(out)
    else:
        _write_array(out, W)
    print(f"wrote {n} {args.generator} frequencies (d={d}, {density.name} density, unit "
          f"bandwidth; {policy}) to {out}")
    return 0


def _write_array(path, arr):
    from .sequence import atomic_write

    if path.endswith(".npy"):
        atomic_write(path, lambda fh: np.save(fh, arr))
    elif path.endswith((".txt", ".csv")):
        sep = "," if path.endswith(".csv") else " "
        atomic_write(path, lambda fh: np.savetxt(fh, arr, fmt="%.17g", delimiter=sep))
    else:
        raise _CliError(f"output file must end in .npz, .npy, .txt or .csv; got {path!r}")


def _read_points(path):
    """A Sequence from ``.npz``, or a frequency matrix from ``.npy``/``.txt``/``.csv``."""
    from .sequence import Sequence, load_sequence

    if not os.path.exists(path):
        raise _CliError(f"cannot read {path!r}: no such file")
    if path.endswith(".npz"):
        return load_sequence(path)
    try:
        if path.endswith(".npy"):
            W = np.load(path, allow_pickle=False)
        else:
            W = np.loadtxt(path, delimiter="," if path.endswith(".csv") else None, ndmin=2)
    except (OSError, ValueError, EOFError) as exc:
        raise _CliError(f"cannot read {path!r}: {exc}") from None
    return Sequence(W)


# --------------------------------------------------------------------------- discrepancy
def _cmd_discrepancy(args):
    from .discrepancy import BoxDiscrepancy

    seq = _read_points(args.file)
    d = seq.d
    b = args.box if np.ndim(args.box) else np.full(d, args.box)
    sigma = args.sigma if np.ndim(args.sigma) else np.full(d, args.sigma)
    obj = BoxDiscrepancy(b, kernel=args.kernel, sigma=sigma, d=d)
    W = seq.frequencies(sigma)
    nd2 = obj(W, seq.weights, normalize=True)
    nemc = obj.expected_mc(seq.s, normalize=True)
    try:  # raw values carry prod(b / pi), which float64 cannot hold in high d
        d2, emc = obj(W, seq.weights), obj.expected_mc(seq.s)
    except ValueError:
        d2 = emc = None
    result = {"file": args.file, "s": seq.s, "d": d, "kernel": args.kernel, "d2": d2,
              "normalized_d2": nd2, "expected_mc": emc, "normalized_expected_mc": nemc,
              "ratio_to_mc": nd2 / nemc, "weighted": seq.weights is not None}
    if args.json:
        print(json.dumps(result))
    else:
        raw = "not representable in float64" if d2 is None else f"{d2:.6e}"
        print(f"D^2 = {raw}  (normalised {nd2:.6e}; expected for MC, normalised {nemc:.6e}, "
              f"ratio {nd2 / nemc:.4g}; s={seq.s}, d={d}, {args.kernel})")
    return 0


# --------------------------------------------------------------------------- design
def _cmd_design(args):
    _check_output_path(args.output, "-o/--output", inputs=(args.resume,))
    if args.lattice_txt is not None:
        _check_output_path(args.lattice_txt, "--lattice-txt", inputs=(args.resume, args.output))
    from . import design
    from .discrepancy import BoxDiscrepancy
    from .sequence import Sequence

    d, s, r = args.d, args.s, args.box_over_sigma
    box = r if np.ndim(r) else np.full(d, r)
    obj = BoxDiscrepancy(box, kernel=args.kernel, sigma=np.ones(d), d=d)
    out = args.output
    done_iter, history0, init = 0, None, args.init
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
            done_iter = int(m.get("iterations", 0))
            history0 = list(m.get("history", []))
        elif args.method == "greedy":
            if ckpt.s > s:
                raise _CliError(f"--resume file {args.resume!r} has s={ckpt.s} > {s}")
            prefix = ckpt
        else:
            raise _CliError(f"--resume applies to the global and greedy designs only; "
                            f"got {args.method!r}")
    progress = not args.quiet
    every = args.checkpoint_every

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

    if args.method == "global":
        remaining = max(args.maxiter - done_iter, 0)

        def callback(it, W, d2):
            if every and it % every == 0:
                partial = Sequence(W, None, {
                    "method": "global", "density": obj.density.name,
                    "box_over_sigma": [float(x) for x in np.broadcast_to(box, (d,))],
                    "iterations": done_iter + it, "maxiter": args.maxiter, "d2": d2,
                    "history": (history0 or []) + [], "stop_reason": "checkpoint",
                    "checkpoint": True})
                save(partial, final=False)
            return False

        seq = design.global_sequence(obj, s, d=d, init=init, method=args.optimizer,
                                     maxiter=remaining, tol=args.tol, callback=callback,
                                     progress=progress)
        meta = dict(seq.meta)
        if history0:
            meta["history"] = history0 + meta["history"][1:]
        meta["iterations"] = done_iter + meta["iterations"]
        meta["maxiter"] = args.maxiter
        if args.resume is not None:
            meta["resumed_from"] = os.path.abspath(args.resume)
        seq = Sequence(seq.points, seq.weights, meta)
    elif args.method == "greedy":
        def checkpoint(partial):
            save(partial, final=False)

        seq = design.greedy_sequence(obj, s, d=d, init=args.init, method=args.optimizer,
                                     maxiter=args.maxiter, progress=progress, prefix=prefix,
                                     checkpoint=checkpoint if every else None,
                                     checkpoint_every=every or None)
    elif args.method == "weighted":
        seq = design.weighted_sequence(obj, s, d=d, init=args.init, solver=args.solver)
    else:
        seq = design.lattice_sequence(obj, s, d=d)
    interrupted = seq.meta.get("stop_reason") == "interrupted"
    try:
        save(seq, final=not interrupted)
    except OSError as exc:
        fallback = _fallback_path(out)
        reason = exc.strerror or str(exc)
        if fallback is None:
            raise _CliError(f"cannot write {out!r} ({reason}), nor a fallback file: the result "
                            "is lost") from None
        meta = dict(seq.meta)
        meta["complete"] = not interrupted
        Sequence(seq.points, seq.weights, meta).save(fallback)
        raise _CliError(f"cannot write {out!r} ({reason}); saved the "
                        f"{'best iterate' if interrupted else 'result'} to {fallback}") from None
    m = seq.meta
    print(f"{'interrupted: saved the best iterate' if interrupted else 'wrote'} {out}: "
          f"{args.method} design, s={seq.s}, d={d}, normalised D^2={m['normalized_d2']:.4e} "
          f"(Halton {m['normalized_halton_d2']:.4e}, ratio {m['ratio_to_halton']:.3g}); "
          f"stop: {m.get('stop_reason')}")
    if args.method == "lattice" and args.lattice_txt:
        seq.write_lattice(args.lattice_txt)
        print(f"wrote the generating vector to {args.lattice_txt} (LDData lattice format)")
    return EXIT_INTERRUPTED if interrupted else 0


# --------------------------------------------------------------------------- catalogue
def _cmd_catalogue(args):
    from qmc_orff import precomputed as cat

    if args.action == "list":
        entries = cat.catalogue(d=args.d, s=args.s, method=args.method)
        if args.json:
            print(json.dumps(entries, indent=1))
            return 0
        if not entries:
            print("the catalogue is empty; build it with `qmc-orff catalogue build`")
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
            seq = cat.load_catalogue(args.d, args.s, args.box_over_sigma, args.method or "global")
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
    if args.workers == 1:
        cat.build_catalogue(args.out, d_values=d_values, s_values=s_values, box_over_sigma=boxes,
                            methods=methods, maxiter=args.maxiter, resume=args.resume, log=log)
        return 0
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # "spawn": forking a process whose numba kernels already ran on OpenMP threads is unsafe
    with ProcessPoolExecutor(max_workers=args.workers,
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        cat.build_catalogue(args.out, d_values=d_values, s_values=s_values, box_over_sigma=boxes,
                            methods=methods, maxiter=args.maxiter, resume=args.resume, log=log,
                            executor=pool)
    return 0


# --------------------------------------------------------------------------- parser
def build_parser():
    from qmc_orff import __version__

    p = _Parser(prog="qmc-orff", description="QMC sequence design for random Fourier features.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", metavar="{generate,discrepancy,design,catalogue}",
                           parser_class=_Parser)
    sub.required = True

    g = sub.add_parser("generate", help="write QMC points mapped to frequencies",
                       description="Write n QMC points as frequencies of the kernel's density at "
                       "unit bandwidth (.npz sequence, .npy, .txt or .csv), or the raw unit-cube "
                       "points with --unit-cube.  Unscrambled Halton/Sobol' skip index 0 (the "
                       "origin); an unshifted lattice is shifted by 1/(2n).")
    g.add_argument("generator", choices=("halton", "sobol", "lattice"))
    g.add_argument("--d", type=_positive_int, required=True, help="dimension")
    g.add_argument("--n", type=_positive_int, required=True, help="number of points")
    g.add_argument("--scramble", nargs="?", const=True, default=False, type=_scramble_arg,
                   metavar="{true,false,random,deterministic}",
                   help="scramble the points (no value: true; Halton: 'random' or "
                   "'deterministic' RR2 permutations; lattice: a random shift); default: false")
    g.add_argument("--seed", type=int, default=None, help="seed for scrambling")
    g.add_argument("--kernel", choices=("gaussian", "laplacian"), default="gaussian")
    g.add_argument("--unit-cube", action="store_true", help="write the points in [0, 1)^d")
    g.add_argument("-o", "--output", required=True, help="output file (.npz, .npy, .txt, .csv)")
    g.set_defaults(func=_cmd_generate)

    q = sub.add_parser("discrepancy", help="squared box discrepancy of a point file",
                       description="Print D^2 of the frequencies in FILE (a .npz sequence, or a "
                       ".npy/.txt/.csv matrix of unit-bandwidth frequencies) for the box "
                       "half-width --box B and the kernel bandwidth --sigma S.")
    q.add_argument("file", metavar="FILE",
                   help="a .npz sequence, or a .npy/.txt/.csv matrix of frequencies")
    q.add_argument("--box", metavar="B", type=_positive_floats, required=True,
                   help="box half-width B (scalar or comma-separated per coordinate)")
    q.add_argument("--sigma", metavar="S", type=_positive_floats, default=1.0,
                   help="kernel bandwidth S (scalar or comma-separated per coordinate; "
                   "default: 1)")
    q.add_argument("--kernel", choices=("gaussian", "laplacian"), default="gaussian",
                   help="kernel whose density the frequencies follow (default: gaussian)")
    q.add_argument("--json", action="store_true", help="print a JSON object")
    q.set_defaults(func=_cmd_discrepancy)

    de = sub.add_parser("design", help="design a sequence (global, greedy, weighted, lattice)",
                        description="Design s frequencies in d dimensions minimising the box "
                        "discrepancy for box/bandwidth R (unit bandwidth, box R).  Ctrl-C saves "
                        "the best iterate (exit status 130).")
    de.add_argument("method", choices=("global", "greedy", "weighted", "lattice"))
    de.add_argument("--d", type=_positive_int, required=True, help="dimension")
    de.add_argument("--s", type=_positive_int, required=True, help="number of points")
    de.add_argument("--box-over-sigma", type=_positive_floats, required=True,
                    help="box half-width over kernel bandwidth (scalar or per coordinate)")
    de.add_argument("--kernel", choices=("gaussian", "laplacian"), default="gaussian")
    de.add_argument("--maxiter", type=_nonneg_int, default=200,
                    help="iteration cap (global: total, also across --resume; greedy: per point)")
    de.add_argument("--optimizer", choices=("cg", "l-bfgs-b"), default="l-bfgs-b")
    de.add_argument("--tol", type=float, default=1e-6, help="gradient tolerance (scaled)")
    de.add_argument("--init", choices=("halton", "halton-rr2", "sobol"), default="halton")
    de.add_argument("--solver", choices=("nnls", "cvxpy"), default="nnls",
                    help="weights QP solver (weighted)")
    de.add_argument("--lattice-txt", default=None,
                    help="lattice: also write the generating vector (LDData format)")
    de.add_argument("-o", "--output", required=True, help="output .npz file")
    de.add_argument("--checkpoint-every", type=_nonneg_int, default=10,
                    help="write the current iterate to the output file every K iterations "
                    "(greedy: points); 0 disables")
    de.add_argument("--resume", default=None, metavar="FILE",
                    help="continue a global/greedy design from a checkpoint or result file")
    de.add_argument("--quiet", action="store_true",
                    help="no progress output (a bar on a terminal, otherwise one line every "
                    "few iterations or seconds)")
    de.set_defaults(func=_cmd_design)

    c = sub.add_parser("catalogue", help="list, show or rebuild the shipped catalogue",
                       description="list: the entries; show: one entry's metadata (nearest "
                       "box_over_sigma); build: recompute the files (resumable).")
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
    c.add_argument("--out", default=None, help="build: output folder (default: the package's)")
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
    c.set_defaults(func=_cmd_catalogue)
    return p


def main(argv=None):
    """Entry point of the ``qmc-orff`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except _CliError as exc:
        sys.stderr.write(f"qmc-orff: error: {exc}\n")
        return EXIT_USAGE
    except (ValueError, TypeError) as exc:
        msg = " ".join(str(exc).split())
        sys.stderr.write(f"qmc-orff: error: {msg}\n")
        return EXIT_USAGE
    except (KeyboardInterrupt, SystemError) as exc:
        from .design import _is_interrupt

        if not _is_interrupt(exc):
            raise
        sys.stderr.write("qmc-orff: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `qmc-orff catalogue list | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
