"""The ``qmc-orff`` command line.

::

    qmc-orff generate {halton,sobol,lattice} --d D --n N [--scramble] [--seed S] -o FILE
    qmc-orff discrepancy FILE --box B [--sigma S] [--kernel gaussian|laplacian]
    qmc-orff design {global,greedy,weighted,lattice} --d D --s S --box-over-sigma R
             [--maxiter M] -o FILE [--checkpoint-every K] [--resume FILE] [--quiet]
    qmc-orff design adaptive --data FILE --s S --sigma SIGMA|median [--kernel K]
             [--maxiter M] -o FILE [--checkpoint-every K] [--resume FILE] [--quiet]
    qmc-orff catalogue {list,show,build} [--workers N]
    qmc-orff --version

Bad arguments and unreadable or invalid files give a one-line error on stderr
and exit status 2 (never a traceback).  ``python -m qmc_orff`` runs the same
command.  ``design`` checks its output paths before any work (the folder
exists and is writable, the path is not a folder nor the ``--resume`` file),
shows its progress on stderr (a bar on a terminal, one line every few
iterations or seconds in a log; ``D^2`` and its ratio to Halton's; ``design
adaptive``: the training and validation Gram errors and the ratio to the ORF
start), writes atomic checkpoints to the output file every ``K`` iterations
(greedy: points) and, on Ctrl-C, saves the best iterate (adaptive: the best
validated one) before exiting with status 130.  If the final save still
fails, the result is written to a fallback file whose name the error message
gives.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading

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
    if not os.path.isfile(path):  # e.g. /dev/zero or a FIFO would be read without end
        raise _CliError(f"cannot read {path!r}: not a regular file")
    try:
        if path.endswith(".npy"):
            # memory-mapped: a header claiming more data than the file holds is an error,
            # not an allocation of the claimed size
            W = np.array(np.load(path, mmap_mode="r", allow_pickle=False))
        else:
            W = np.loadtxt(path, delimiter="," if path.endswith(".csv") else None, ndmin=2)
    except (OSError, ValueError, EOFError, MemoryError, OverflowError, TypeError) as exc:
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
    _check_output_path(args.output, "-o/--output", inputs=(args.resume,))
    if args.lattice_txt is not None:
        _check_output_path(args.lattice_txt, "--lattice-txt", inputs=(args.resume, args.output))
    from . import design
    from .discrepancy import BoxDiscrepancy
    from .sequence import Sequence

    if args.method == "adaptive":
        return _cmd_design_adaptive(args)
    _check_box_design_args(args)
    d, s, r = args.d, args.s, args.box_over_sigma
    box = r if np.ndim(r) else np.full(d, r)
    obj = BoxDiscrepancy(box, kernel=args.kernel, sigma=np.ones(d), d=d)
    out = args.output
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
        log_scale = float(np.sum(np.log(np.broadcast_to(box, (d,)) / np.pi)))
        if every and args.resume is None:
            # a fresh run: its initial D^2 opens the checkpoints' history
            U0 = design.to_frequencies(design.unit_points(init, s, d), obj.density, 1.0)
            n0 = float(obj.value_and_grad(U0, normalize=True)[0])
            ck_hist, ck_nhist = [design._scaled(n0, log_scale)], [n0]
        else:
            ck_hist, ck_nhist = list(history0 or []), list(nhistory0 or [])

        def callback(it, W, d2):
            if not every:
                return False
            # the normalised value, from the raw one where it is representable
            nd2 = (design._scaled(d2, -log_scale) if d2 not in (None, 0.0)
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

        seq = design.global_sequence(obj, s, d=d, init=init, method=args.optimizer,
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
    elif args.method == "greedy":
        def checkpoint(partial):
            save(partial, final=False)

        seq = design.greedy_sequence(obj, s, d=d, init=args.init, method=args.optimizer,
                                     maxiter=args.maxiter, progress=progress, prefix=prefix,
                                     checkpoint=checkpoint if every else None,
                                     checkpoint_every=every or None)
    elif args.method == "weighted":
        seq = design.weighted_sequence(obj, s, d=d, init=args.init, solver=args.solver,
                                       sum_to_one=not args.unconstrained_weights)
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
    vs_mc = (f", Monte Carlo expectation ratio {m['ratio_to_mc']:.3g}"
             if m.get("ratio_to_mc") else "")
    print(f"{'interrupted: saved the best iterate' if interrupted else 'wrote'} {out}: "
          f"{args.method} design, s={seq.s}, d={d}, normalised D^2={m['normalized_d2']:.4e} "
          f"(Halton {m['normalized_halton_d2']:.4e}, ratio {m['ratio_to_halton']:.3g}{vs_mc}); "
          f"stop: {m.get('stop_reason')}. A box discrepancy does not measure the Gram error "
          f"on data: check with qmc_orff.gram_error on held-out points (or design adaptive)")
    if args.method == "lattice" and args.lattice_txt:
        seq.write_lattice(args.lattice_txt)
        print(f"wrote the generating vector to {args.lattice_txt} (LDData lattice format)")
    return EXIT_INTERRUPTED if interrupted else 0


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


# --------------------------------------------------------------------------- design adaptive
_DATA_SUFFIXES = (".npy", ".csv")


def _read_data(path):
    """The data matrix ``(n, d)`` of a ``.npy`` or ``.csv`` file, checked (one-line errors).

    A ``.csv`` file holds one point per line, comma-separated numbers; a first
    line that does not parse (a header) is skipped.
    """
    if not path.endswith(_DATA_SUFFIXES):
        raise _CliError(f"--data must be a .npy or .csv file; got {path!r}")
    if not os.path.exists(path):
        raise _CliError(f"cannot read {path!r}: no such file")
    if os.path.isdir(path):
        raise _CliError(f"cannot read {path!r}: it is a folder")
    import warnings

    try:
        if path.endswith(".npy"):
            X = np.load(path, allow_pickle=False)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # "input contained no data"
                try:
                    X = np.loadtxt(path, delimiter=",", ndmin=2, dtype=np.float64)
                except ValueError:  # a header line: skip it, then parse strictly
                    X = np.loadtxt(path, delimiter=",", ndmin=2, dtype=np.float64, skiprows=1)
    except (OSError, ValueError, EOFError, UnicodeDecodeError) as exc:
        msg = " ".join(str(exc).split()) or type(exc).__name__
        raise _CliError(f"cannot parse {path!r} as a numeric data matrix: {msg}") from None
    X = np.asarray(X)
    if X.dtype.kind not in "biuf":
        raise _CliError(f"{path!r} must hold real numbers; got dtype {X.dtype}")
    if X.ndim != 2:
        raise _CliError(f"{path!r} must hold a 2-D array (points x features); got shape "
                        f"{X.shape}" + (" (reshape one feature to (n, 1))" if X.ndim == 1 else ""))
    if X.size == 0:
        raise _CliError(f"{path!r} holds no data (shape {X.shape})")
    X = np.ascontiguousarray(X, dtype=np.float64)
    bad = ~np.isfinite(X)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise _CliError(f"{path!r} contains NaN or inf ({int(bad.sum())} values; first at row "
                        f"{int(i)}, column {int(j)})")
    if X.shape[0] < 2:
        raise _CliError(f"{path!r} must hold at least 2 points (rows); got shape {X.shape}")
    return X


def _sigma_arg(text):
    """``--sigma``: a positive number or ``median`` (the median heuristic)."""
    if text.strip().lower() == "median":
        return "median"
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (np.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive number or 'median'; got {text!r}")
    return value


class _AdaptiveProgress:
    """Progress of design adaptive on stderr (a bar on a terminal, plain lines in a log):
    iteration, training and validation Gram errors, best / ORF start."""

    def __init__(self, total, stream=None):
        from .design import _Progress

        self.bar = _Progress(total, None, stream=stream, width=20)
        self.shown = False

    def update(self, it, train, val, best, ref, ref_label):
        self.shown = True
        ratio = f"{best / ref:.3g}" if ref else "n/a"
        self.bar.show(it, f"train {train:.4e} validation {val:.4e} best/{ref_label} {ratio}")

    def close(self):
        if self.shown:  # nothing to end when no iteration ran (e.g. an error before the first)
            self.bar.close()


def _adaptive_defaults():
    from .adaptive import adaptive_sequence

    return adaptive_sequence.__kwdefaults__


def _cmd_design_adaptive(args):
    from .adaptive import adaptive_sequence, data_sha256
    from .sequence import Sequence

    if args.data is None:
        raise _CliError("design adaptive needs --data FILE (.npy or .csv)")
    if args.sigma_arg is None:
        raise _CliError("design adaptive needs --sigma (a positive number or 'median')")
    for name in ("d", "box_over_sigma"):
        if getattr(args, name) is not None:
            raise _CliError(f"--{name.replace('_', '-')} applies to the box designs; design "
                            f"adaptive takes its dimension and scale from --data and --sigma")
    if args.init in ("halton-rr2",):
        raise _CliError("--init halton-rr2 applies to the box designs; design adaptive starts "
                        "from orf, mc, halton or sobol")
    defaults = _adaptive_defaults()
    X = _read_data(args.data)
    d, s, kernel = X.shape[1], args.s, args.kernel
    digest = data_sha256(X)
    opts = {"n_train": args.n_train, "n_validation": args.n_validation, "seed": args.seed}
    init = args.init if args.init is not None else ("mc" if kernel == "laplacian" else "orf")
    done_iter, origin = 0, None
    if args.resume is not None:
        if not os.path.exists(args.resume):
            raise _CliError(f"cannot read {args.resume!r}: no such file")
        ckpt = _read_points(args.resume)
        m = ckpt.meta
        if m.get("method") != "adaptive":
            raise _CliError(f"--resume file {args.resume!r} holds a {m.get('method')!r} design, "
                            f"not 'adaptive'")
        if m.get("data_sha256") != digest:
            raise _CliError(f"--resume file {args.resume!r} was designed on other data (SHA-256 "
                            f"{str(m.get('data_sha256'))[:12]}..., --data has {digest[:12]}...)")
        if ckpt.s != s or ckpt.d != d:
            raise _CliError(f"--resume file {args.resume!r} has s={ckpt.s}, d={ckpt.d}; "
                            f"expected s={s}, d={d}")
        rule = m.get("sigma_rule")
        same_sigma = (args.sigma_arg == "median" and rule == "median") or (
            args.sigma_arg != "median" and rule == "given" and np.ndim(m.get("sigma")) == 0
            and np.isclose(float(m["sigma"]), args.sigma_arg, rtol=1e-12, atol=0.0))
        if m.get("kernel") != kernel or not same_sigma:
            raise _CliError(f"--resume file {args.resume!r} was designed for kernel="
                            f"{m.get('kernel')!r}, sigma={m.get('sigma')} ({rule}); not kernel="
                            f"{kernel!r}, sigma={args.sigma_arg}")
        # the same subsamples as the run it continues: its seed and sizes
        for key in ("seed", "n_train", "n_validation"):
            if opts[key] is None:
                opts[key] = m.get(f"cli_{key}", m.get(key))
            elif m.get(f"cli_{key}", m.get(key)) not in (None, opts[key]):
                raise _CliError(f"--resume file {args.resume!r} was designed with --"
                                f"{key.replace('_', '-')} {m.get(f'cli_{key}', m.get(key))}; "
                                f"got {opts[key]}")
        init = ckpt
        done_iter = int(m.get("iterations", 0))
        origin = m
    if opts["seed"] is None:
        opts["seed"] = 0
    for key in ("n_train", "n_validation"):
        if opts[key] is None:
            opts[key] = defaults[key]
    maxiter = defaults["maxiter"] if args.maxiter is None else args.maxiter
    extra = {}
    if args.patience is not None:
        extra["patience"] = args.patience
    if args.tol is not None:
        extra["tol"] = args.tol
    out, every = args.output, args.checkpoint_every
    bar = None if args.quiet else _AdaptiveProgress(maxiter)
    latest = {}

    def finish_meta(seq, final, reason=None):
        """The library's meta with the command's bookkeeping and the ratio to ORF."""
        meta = dict(seq.meta)
        meta.update({"cli_seed": opts["seed"], "cli_n_train": opts["n_train"],
                     "cli_n_validation": opts["n_validation"], "data_file": args.data,
                     "iterations": done_iter + int(meta.get("iterations", 0)),
                     "maxiter": maxiter, "complete": bool(final)})
        if reason is not None:
            meta["stop_reason"] = reason
        if str(meta.get("stop_reason", "")).startswith("maxiter ("):  # the cap across --resume
            meta["stop_reason"] = f"maxiter ({maxiter}) reached"
        if origin is not None:  # keep the ORF reference and start of the first run
            meta["resume_validation_error"] = meta.get("start_validation_error")
            for key in ("orf_validation_error", "start_validation_error", "start_train_error"):
                if origin.get(key) is not None:
                    meta[key] = origin[key]
            meta["resumed_from"] = os.path.abspath(args.resume)
            meta["best_iteration"] = done_iter + int(meta.get("best_iteration", 0))
        ref = meta.get("orf_validation_error")
        meta["ratio_to_orf"] = (meta["validation_error"] / ref if ref else None)
        start = meta.get("start_validation_error")
        meta["ratio_to_start"] = meta["validation_error"] / start if start else None
        return Sequence(seq.points, seq.weights, meta)

    def save(seq, final, reason=None):
        seq = finish_meta(seq, final, reason)
        seq.save(out)
        return seq

    def checkpoint(seq):  # the best validated iterate so far, after every iteration
        latest["seq"] = seq
        it = int(seq.meta.get("iterations", 0))
        if every and it % every == 0:
            save(seq, final=False)

    def callback(it, U, train_err, val_err):
        seq = latest.get("seq")
        if bar is not None and seq is not None:
            meta = finish_meta(seq, False).meta
            ref = meta.get("orf_validation_error")
            label = "ORF start" if ref else "start"
            bar.update(done_iter + it, train_err, val_err, meta["validation_error"],
                       ref or meta.get("start_validation_error"), label)
        return False

    try:
        try:
            seq = adaptive_sequence(X, s, kernel=kernel, sigma=args.sigma_arg, nu=args.nu,
                                    init=init, weights=args.weights,
                                    maxiter=max(maxiter - done_iter, 0), callback=callback,
                                    checkpoint=checkpoint, checkpoint_every=1, **opts, **extra)
        finally:
            if bar is not None:
                bar.close()
    except (KeyboardInterrupt, SystemError) as exc:  # outside the optimiser (e.g. the weights)
        from .design import _is_interrupt

        if not _is_interrupt(exc) or "seq" not in latest:
            raise
        seq = latest["seq"]
        seq = Sequence(seq.points, seq.weights, dict(seq.meta, stop_reason="interrupted"))
    interrupted = seq.meta.get("stop_reason") == "interrupted"
    seq = save(seq, final=not interrupted)
    m = seq.meta
    ref = m.get("orf_validation_error")
    vs_orf = (f"ORF {ref:.4e}, ratio to ORF {m['ratio_to_orf']:.3g}" if ref else
              "no ORF reference for this kernel")
    sig = (f"{float(m['sigma']):.6g}" if np.ndim(m["sigma"]) == 0 else "per coordinate")
    train = m.get("train_error")
    print(f"{'interrupted: saved the best validated iterate' if interrupted else 'wrote'} {out}: "
          f"adaptive design, s={seq.s}, d={d}, {kernel} kernel, sigma={sig}; validation Gram "
          f"error {m['validation_error']:.4e} ({vs_orf}; start {m['start_validation_error']:.4e})"
          + (f", training {train:.4e}" if train is not None else "")
          + f"; {m['iterations']} iterations, stop: {m.get('stop_reason')}")
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
    """Entry point of the ``qmc-orff`` console script; returns the exit status.

    Bad arguments and unreadable or invalid files: one line on stderr, status 2.
    Ctrl-C: status 130 and ``qmc-orff: interrupted`` (``design`` first saves the
    best iterate).  Run as a program (``argv=None`` in the main thread with
    Python's default SIGINT handler: the ``qmc-orff`` script, ``python -m
    qmc_orff``), a Ctrl-C that arrives after the command finished (e.g. just
    after the final save, while the interpreter shuts down) still gives status
    130 and the message, never death by the signal: on return SIGINT is left
    ignored, since the process is about to exit.
    """
    if (argv is None and threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
        return _main_as_program()
    return _run(argv)


def _main_as_program():
    state = {"raise": True, "hits": 0}

    def on_sigint(signum, frame):
        state["hits"] += 1
        if state["raise"]:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)
    status = None
    try:
        try:
            status = _run(None)
        except SystemExit as exc:  # argparse: --help (0), usage errors (2)
            status = exc.code
        except Exception:
            # after a Ctrl-C, a failure is its consequence (e.g. a module whose import
            # it broke): report the interrupt; otherwise a genuine bug, shown in full
            if not state["hits"]:
                raise
            status = None
    except KeyboardInterrupt:  # outside the command (argument parsing, error reporting)
        status = None
    while state["raise"]:  # from here on the handler only counts
        try:
            state["raise"] = False
        except KeyboardInterrupt:
            pass
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        _process_pending_signals()
        if signal.SIGINT in signal.sigpending():
            state["hits"] += 1
    # ignored from now on (a pending, blocked one is discarded): the interpreter's
    # shutdown restores the default action of Python-level handlers, which would
    # let a late Ctrl-C kill the process by the signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _PROGRAM["interrupted"] = bool(state["hits"])
    if state["hits"] and status in (0, None):
        sys.stderr.write("qmc-orff: interrupted\n")
        status = EXIT_INTERRUPTED
    return status


_PROGRAM = {"interrupted": False}


def _exit_program(status):
    """``sys.exit(status)`` for ``python -m qmc_orff`` (and ``-m qmc_orff.cli``).

    After a Ctrl-C the process ends at once (``os._exit``, streams flushed first):
    under ``-m``, CPython kills itself by SIGINT at exit once a
    ``KeyboardInterrupt`` has passed through code run by ``exec`` of a string
    (numba, dataclasses), even though it was caught -- the status 130 would be lost.
    """
    if _PROGRAM["interrupted"]:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status if isinstance(status, int) else EXIT_INTERRUPTED)
    sys.exit(status)


def _process_pending_signals():
    """A call: the interpreter runs the handlers of signals that have arrived."""
    return None


def _run(argv):
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
    _exit_program(main())
