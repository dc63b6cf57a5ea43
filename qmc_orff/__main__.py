"""``python -m qmc_orff``: the ``qmc-orff`` command line (see :mod:`qmc_orff.cli`)."""
from .cli import entry_point

if __name__ == "__main__":  # pragma: no cover
    entry_point()
