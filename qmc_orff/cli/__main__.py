"""``python -m qmc_orff.cli``: the same command as ``python -m qmc_orff``."""
from . import _exit_program, main

if __name__ == "__main__":  # pragma: no cover
    _exit_program(main())
