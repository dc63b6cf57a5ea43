"""``python -m qmc_orff``: the ``qmc-orff`` command line (see :mod:`qmc_orff.cli`)."""
from .cli import _exit_program, main

if __name__ == "__main__":  # pragma: no cover
    _exit_program(main())
