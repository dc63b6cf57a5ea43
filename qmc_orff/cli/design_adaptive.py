"""``qmc-orff design adaptive``: a design fitted to data, with progress, checkpoints and Ctrl-C."""
from __future__ import annotations

import argparse
import os

import numpy as np

from ._common import (EXIT_INTERRUPTED, _CliError, _positive_float, _read_points, _save_result,
                      _saver)


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
    if not os.path.isfile(path):  # a FIFO or a device would be read without end
        raise _CliError(f"cannot read {path!r}: not a regular file")
    import warnings

    try:
        if path.endswith(".npy"):
            X = _read_npy(path)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # "input contained no data"
                try:
                    X = np.loadtxt(path, delimiter=",", ndmin=2, dtype=np.float64)
                except ValueError:  # a header line: skip it, then parse strictly
                    X = np.loadtxt(path, delimiter=",", ndmin=2, dtype=np.float64, skiprows=1)
    except (OSError, ValueError, EOFError, UnicodeDecodeError, OverflowError, TypeError,
            MemoryError) as exc:
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


def _read_npy(path):
    """A ``.npy`` file's array, its header checked first: memory-mapped, so a header claiming
    more data than the file holds is a ``ValueError``, not an allocation of the claimed size;
    at most 2**28 entries (the size policy) are copied."""
    from ..designs import MAX_ELEMENTS

    X = np.load(path, mmap_mode="r", allow_pickle=False)
    if X.size > MAX_ELEMENTS:
        raise ValueError(f"it holds {X.size} numbers (shape {X.shape}); at most 2**28 "
                         "are read: subsample the data")
    return np.array(X)


def _sigma_arg(text):
    """``--sigma``: a positive number or ``median`` (the median heuristic)."""
    if text.strip().lower() == "median":
        return "median"
    try:
        return _positive_float(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected a positive number or 'median'; got {text!r}") from None


def _adaptive_defaults():
    from ..designs.adaptive import adaptive_sequence

    return adaptive_sequence.__kwdefaults__


def _cmd_design_adaptive(args):
    from ..designs.adaptive import adaptive_sequence
    from ..objectives.data import data_sha256
    from ..sequence import Sequence

    defaults = _adaptive_defaults()
    X = _read_data(args.data)
    d, s, kernel = X.shape[1], args.s, args.kernel
    opts = {"n_train": args.n_train, "n_validation": args.n_validation, "seed": args.seed,
            "coverage": args.coverage}
    init = args.init if args.init is not None else ("mc" if kernel == "laplacian" else "orf")
    resume = None
    if args.resume is not None:
        resume = _resume_adaptive(args, opts, data_sha256(X), s, d, kernel)
    if opts["seed"] is None:
        opts["seed"] = 0
    for key in ("n_train", "n_validation", "coverage"):
        if opts[key] is None:
            opts[key] = defaults[key]
    out, every = args.output, args.checkpoint_every
    save = _saver(out)

    def with_cli_meta(seq, final):
        """The library's meta with the command's bookkeeping."""
        meta = dict(seq.meta)
        meta.update({"cli_seed": opts["seed"], "cli_n_train": opts["n_train"],
                     "cli_n_validation": opts["n_validation"], "data_file": args.data,
                     "complete": bool(final)})
        if resume is not None:
            meta["resumed_from"] = os.path.abspath(args.resume)
        start = meta.get("start_validation_error")
        meta["ratio_to_start"] = meta["validation_error"] / start if start else None
        return Sequence(seq.points, seq.weights, meta)

    def checkpoint(seq):  # the best validated iterate so far
        save(with_cli_meta(seq, False), final=False)

    seq = adaptive_sequence(X, s, kernel=kernel, sigma=args.sigma_arg, nu=args.nu, init=init,
                            weights=args.weights, maxiter=args.maxiter,
                            patience=args.patience, tol=args.tol,
                            min_iterations=args.min_iterations, progress=not args.quiet,
                            checkpoint=checkpoint if every else None,
                            checkpoint_every=every or None, resume=resume, **opts)
    interrupted = seq.meta.get("stop_reason") == "interrupted"
    seq = with_cli_meta(seq, not interrupted)
    _save_result(seq, out, save, interrupted)
    _report(seq, out, d, kernel, interrupted)
    return EXIT_INTERRUPTED if interrupted else 0


def add_adaptive_parser(methods, epilog):
    """Add ``design adaptive``'s parser to ``methods`` (design's subparsers); return it.
    The defaults are `~qmc_orff.designs.adaptive_sequence`'s."""
    from ._common import _design_size, _fraction, _int_at_least, _nonneg_int, _positive_int

    api = _adaptive_defaults()
    p = methods.add_parser(
        "adaptive", help="a design fitted to data (the Gram error on its points)",
        description="Minimise the Gram error on the points of --data (all pairs of a training "
        "subsample; a disjoint validation subsample picks the best iterate; the progress bar "
        "shows its ratio to the ORF start).  Ctrl-C saves the best validated iterate.",
        epilog=epilog)
    p.add_argument("--data", required=True, metavar="FILE",
                   help="the data (.npy, or .csv with one point per line)")
    p.add_argument("--s", type=_design_size(), required=True, help="number of points")
    p.add_argument("--sigma", dest="sigma_arg", type=_sigma_arg, required=True,
                   metavar="SIGMA|median",
                   help="kernel bandwidth, or 'median' for the median distance between the "
                   "data's points (L1 for laplacian)")
    p.add_argument("--kernel", choices=("gaussian", "laplacian", "matern"), default=api["kernel"],
                   help=f"the kernel (default: {api['kernel']})")
    p.add_argument("--nu", type=_positive_float, default=api["nu"],
                   help=f"matern: smoothness (default: {api['nu']})")
    p.add_argument("--seed", type=_nonneg_int, default=None,
                   help="seed of the start and the train/validation subsamples (default 0, "
                   "not the Python function's None: a command's result is reproducible and "
                   "--resume draws the same subsamples; --resume: the checkpoint's)")
    p.add_argument("--n-train", type=_int_at_least(2, "an integer >= 2 or 'auto'",
                                                   words=("auto",)), default=None,
                   help="training subsample; all its pairs enter the objective (default: "
                   f"{api['n_train']}: 2 s rows, 500 to 1000, within a cost per iteration; "
                   "--resume: the checkpoint's)")
    p.add_argument("--n-validation", type=_nonneg_int, default=None,
                   help="disjoint validation subsample that picks the best iterate (default: "
                   f"{api['n_validation']}; --resume: the checkpoint's)")
    p.add_argument("--coverage", type=_fraction, default=None,
                   help="fraction of the training rows drawn to cover the data (k-means++ "
                   "seeding in the kernel's distance), the rest uniform (default: "
                   f"{api['coverage']}; --resume: the checkpoint's)")
    p.add_argument("--patience", type=_positive_int, default=api["patience"],
                   help="stop after this many iterations without a better validation error "
                   f"(default: {api['patience']})")
    p.add_argument("--min-iterations", type=_nonneg_int, default=api["min_iterations"],
                   help="--patience ends no run before this many iterations, in all (also "
                   f"across --resume; default: {api['min_iterations']})")
    p.add_argument("--weights", action="store_true",
                   help="also fit nonnegative weights (kept only if they validate better)")
    p.add_argument("--maxiter", type=_nonneg_int, default=api["maxiter"],
                   help=f"iteration cap, in all (also across --resume; default: {api['maxiter']})")
    p.add_argument("--tol", type=_positive_float, default=api["tol"],
                   help=f"gradient tolerance (default: {api['tol']:g})")
    p.add_argument("--init", choices=("orf", "mc", "halton", "sobol"), default=None,
                   help="start (default: orf; mc for laplacian)")
    p.add_argument("-o", "--output", required=True, help="output .npz file")
    p.add_argument("--checkpoint-every", type=_nonneg_int, default=10, metavar="K",
                   help="write the best validated iterate to the output file every K "
                   "iterations; 0 disables (default: 10)")
    p.add_argument("--resume", default=None, metavar="FILE",
                   help="continue from a checkpoint or result file; -o may name the same file")
    p.add_argument("--quiet", action="store_true",
                   help="no progress output (a bar on a terminal, otherwise one line every "
                   "few iterations or seconds)")
    return p


def _resume_adaptive(args, opts, digest, s, d, kernel):
    """The design ``--resume`` continues (checked against the data, size, kernel and
    bandwidth); fills ``opts`` with its seed and sizes."""
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
    # the same subsamples as the run it continues: its seed, sizes and covering rows
    # (a file without a coverage entry drew no covering rows: coverage 0)
    if "coverage" not in m:
        m = {**m, "coverage": 0.0}
    for key in ("seed", "n_train", "n_validation", "coverage"):
        if opts[key] is None:
            opts[key] = m.get(f"cli_{key}", m.get(key))
        elif m.get(f"cli_{key}", m.get(key)) not in (None, opts[key]):
            raise _CliError(f"--resume file {args.resume!r} was designed with --"
                            f"{key.replace('_', '-')} {m.get(f'cli_{key}', m.get(key))}; "
                            f"got {opts[key]}")
    done_iter = m.get("iterations", 0)
    if type(done_iter) is not int or not 0 <= done_iter <= _MAX_ITERATIONS:
        raise _CliError(f"--resume file {args.resume!r} has a malformed 'iterations' entry "
                        f"(an int in [0, {_MAX_ITERATIONS}]); got {done_iter!r}")
    return ckpt


#: The largest 'iterations' entry a --resume file may hold.
_MAX_ITERATIONS = 2 ** 31 - 1


def _report(seq, out, d, kernel, interrupted):
    """The line on stdout that ends an adaptive design."""
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
