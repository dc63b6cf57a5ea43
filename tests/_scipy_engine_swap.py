"""A pytest plugin (``-p _scipy_engine_swap``): SciPy's ``scipy.stats.qmc.Sobol`` and
``.Halton`` become qmc_orff's before any test module is imported, so that the whole of
SciPy's installed ``test_qmc.py`` -- its module-level parametrisations included -- runs
against our engines.  Used by ``tests/test_scipy_conformance.py`` in a subprocess (the
swap is process-wide).  After collection it prints how many collected tests received one
of our engines as a parameter, which the calling test checks (the swap took effect)."""
import scipy.stats.qmc as qmc

import qmc_orff

qmc.Sobol = qmc_orff.Sobol
qmc.Halton = qmc_orff.Halton


def pytest_collection_modifyitems(session, config, items):
    ours = (qmc_orff.Sobol, qmc_orff.Halton)
    n = sum(1 for item in items
            if any(v in ours for v in getattr(getattr(item, "callspec", None), "params",
                                                  {}).values()))
    print(f"\nqmc_orff engines swapped in: {n} parametrised tests receive one")
