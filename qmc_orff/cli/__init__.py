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

import os
import signal
import sys
import threading

from ._common import (EXIT_INTERRUPTED, EXIT_USAGE, _CliError, _Parser, _int_at_least,
                      _nonneg_int, _positive_floats, _positive_int, _scramble_arg)
from .catalogue import _cmd_catalogue
from .design import _cmd_design
from .design_adaptive import _sigma_arg
from .discrepancy import _cmd_discrepancy
from .generate import _cmd_generate

__all__ = ["main"]


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
        from ..design import _is_interrupt

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
