"""The ``qmc-orff`` command line.

::

    qmc-orff generate {halton,sobol,lattice} --d D --n N [--scramble [S]] [--seed S] -o FILE
    qmc-orff discrepancy FILE --box B [--sigma S] [--kernel gaussian|laplacian]
    qmc-orff design {global,greedy} --d D --s S --box-over-sigma R [--maxiter M] -o FILE.npz
             [--checkpoint-every K] [--resume FILE] [--quiet]
    qmc-orff design {weighted,lattice} --d D --s S --box-over-sigma R -o FILE.npz
    qmc-orff design adaptive --data FILE --s S --sigma SIGMA|median [--kernel K]
             [--maxiter M] -o FILE.npz [--checkpoint-every K] [--resume FILE] [--quiet]
    qmc-orff catalogue list [--d D] [--s S] [--json]
    qmc-orff catalogue show --d D --s S [--box-over-sigma R] [--method M]
    qmc-orff catalogue build [--dir FOLDER] [--workers N] [--resume]
    qmc-orff --version

``design`` and ``catalogue`` take their method or action as a subcommand with only its
own options (``qmc-orff design global --help``, each with an example); options are never
abbreviated, and the defaults are the Python API's.

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

__all__ = ["main", "entry_point"]


# --------------------------------------------------------------------------- parser
#: the commands, in the order ``qmc-orff --help`` lists them
_COMMANDS = {"generate": generate, "discrepancy": discrepancy, "design": design,
             "catalogue": catalogue}


def build_parser(commands=None):
    """The ``qmc-orff`` parser.

    ``commands``: the commands whose own parsers are built (default: all); the
    others get only their line in the help.  A command's parser reads the library's
    defaults (importing the designs, and so numba), which ``qmc-orff --version``,
    ``--help`` and a usage error without a command do not need.
    """
    from .. import __version__

    p = _Parser(prog="qmc-orff", description="QMC sequence design for random Fourier features.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", metavar="{generate,discrepancy,design,catalogue}",
                           parser_class=_Parser)
    sub.required = True
    for name, module in _COMMANDS.items():
        if commands is None or name in commands:  # the command function ``_cmd_<name>`` here
            module.add_parser(sub).set_defaults(func=globals()[f"_cmd_{name}"])
        else:
            sub.add_parser(name, help=module.HELP)
    return p


def _named_commands(argv):
    """The commands named anywhere in ``argv`` (``sys.argv[1:]`` when None): argparse hands
    the arguments to a command's parser only where its name is one of them."""
    argv = sys.argv[1:] if argv is None else argv
    return {a for a in argv if a in _COMMANDS}


def main(argv=None):
    """Entry point of the ``qmc-orff`` command line; returns the exit status.

    Bad arguments and unreadable or invalid files: one line on stderr, status 2.
    Ctrl-C: status 130 and ``qmc-orff: interrupted`` (``design`` first saves the
    best iterate).  Run as a program (``argv=None`` in the main thread with
    Python's default SIGINT handler), SIGINT keeps a handler that only counts
    once the command has finished, and :func:`entry_point` (the ``qmc-orff``
    script, ``python -m qmc_orff``) decides the status at the very end: a Ctrl-C
    that arrives at any time until the status is written -- after the final save,
    while the exit handlers run -- gives status 130 and the message, never
    status 0 nor death by the signal.  One that arrives after that (the last
    instructions before ``_exit``) cannot be seen.  The signal is never blocked
    (blocked, it can reach numba's or BLAS's threads, which die of it).
    """
    if (argv is None and threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
        return _main_as_program()
    return _run(argv)


def entry_point():
    """The ``qmc-orff`` console script and ``python -m qmc_orff``: run :func:`main`, exit.

    Never returns: the process ends with :func:`main`'s status, or 130 when a
    Ctrl-C arrived before that status was written (see :func:`main`).
    """
    _exit_program(main())


#: the program run's state: ``active`` (main runs as a program), ``raise`` (SIGINT raises
#: KeyboardInterrupt; afterwards it is only counted), ``hits`` (SIGINTs received)
_PROGRAM = {"active": False, "raise": False, "hits": 0}


def _on_sigint(signum, frame):
    _PROGRAM["hits"] += 1
    if _PROGRAM["raise"]:
        raise KeyboardInterrupt


def _main_as_program():
    _PROGRAM.update(active=True, hits=0)
    _PROGRAM["raise"] = True
    signal.signal(signal.SIGINT, _on_sigint)
    status = None
    try:
        try:
            status = _run(None)
        except SystemExit as exc:  # argparse: --help (0), usage errors (2)
            status = exc.code
        except Exception:
            # after a Ctrl-C, a failure is its consequence (e.g. a module whose import
            # it broke): report the interrupt; otherwise a genuine bug, shown in full
            if not _PROGRAM["hits"]:
                raise
            status = None
    except KeyboardInterrupt:  # outside the command (argument parsing, error reporting)
        status = None
    while _PROGRAM["raise"]:  # from here on the handler only counts (never SIG_IGN)
        try:
            _PROGRAM["raise"] = False
        except KeyboardInterrupt:
            pass
    return _final_status(status)


def _final_status(status):
    """``status``, or 130 (with the message) when a SIGINT was counted and the command
    did not fail otherwise."""
    if _PROGRAM["hits"] and status in (0, None):
        sys.stderr.write("qmc-orff: interrupted\n")
        return EXIT_INTERRUPTED
    return status


def _exit_program(status):
    """End the process with ``status`` (``sys.exit`` when :func:`main` did not run as a program).

    As a program: the exit handlers (``atexit``) run, the standard streams are
    flushed, and only then is the status decided -- 130 when a SIGINT was
    counted meanwhile -- and the process ended at once with ``os._exit``: the
    interpreter's shutdown would restore SIGINT's default action (death by the
    signal) and, under ``-m``, kill itself by SIGINT once a ``KeyboardInterrupt``
    had passed through code run by ``exec`` of a string (numba, dataclasses),
    even though it was caught.  Non-daemon threads are not waited for (the
    command leaves none).
    """
    if not _PROGRAM["active"]:
        sys.exit(status)
    import atexit

    try:
        getattr(atexit, "_run_exitfuncs", lambda: None)()
    finally:
        if status is None:
            code = 0
        elif isinstance(status, int):
            code = status
        else:  # as sys.exit: the message on stderr, status 1
            sys.stderr.write(f"{status}\n")
            code = 1
        _flush_streams()
        if code == 0 and _PROGRAM["hits"]:  # the status is decided here
            code = _final_status(code)
            _flush_streams()
        os._exit(code)


def _flush_streams():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def _run(argv):
    parser = build_parser(_named_commands(argv))
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
        from ..designs import is_interrupt

        if not is_interrupt(exc):
            raise
        sys.stderr.write("qmc-orff: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `qmc-orff catalogue list | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    entry_point()
