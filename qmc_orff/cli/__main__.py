"""``python -m qmc_orff.cli``: the same command as ``python -m qmc_orff``."""
from . import entry_point

if __name__ == "__main__":  # pragma: no cover
    entry_point()
