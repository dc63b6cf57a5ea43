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
exists and is writable, the path is not a folder; it may be the ``--resume``
file, which is read before the first write and replaced atomically), shows
its progress on stderr (a bar with ETA and rate on a terminal, one line every few
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

from . import catalogue, design, discrepancy, generate
from ._common import EXIT_INTERRUPTED, EXIT_USAGE, _CliError, _Parser
from .catalogue import _cmd_catalogue
from .design import _cmd_design
from .discrepancy import _cmd_discrepancy
from .generate import _cmd_generate

__all__ = ["main"]


# --------------------------------------------------------------------------- parser
def build_parser():
    from .._version import __version__

    p = _Parser(prog="qmc-orff", description="QMC sequence design for random Fourier features.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", metavar="{generate,discrepancy,design,catalogue}",
                           parser_class=_Parser)
    sub.required = True

    generate.add_parser(sub).set_defaults(func=_cmd_generate)
    discrepancy.add_parser(sub).set_defaults(func=_cmd_discrepancy)
    design.add_parser(sub).set_defaults(func=_cmd_design)
    catalogue.add_parser(sub).set_defaults(func=_cmd_catalogue)
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
        from ..designs._optimizer import _is_interrupt

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
