"""SciPy's own QMC tests, run against qmc_orff's `Halton` and `Sobol`.

``scipy/stats/tests/test_qmc.py`` ships in SciPy's wheel.  Its engine test
classes are subclassed here with the engine swapped: ``qmce`` (the engine the
generic `QMCEngineTests` build) is ours, and the module's ``qmc`` (through which
the class-specific tests call ``qmc.Sobol(...)``/``qmc.Halton(...)``) is
replaced, for each test, by a proxy whose ``Sobol`` and ``Halton`` are ours and
whose other names are SciPy's.  The classes of samplers that take an
``engine=`` (multinomial, normal) run with our engines passed in; ``TestLloyd``
checks SciPy's Lloyd optimizer, which our engines' ``optimization="lloyd"`` reuses.

Nothing differs today: no test is marked ``xfail`` for our engines (SciPy's own
``xfail`` marks are kept).  The engines' remaining differences from SciPy's are
outside what these tests check: the default ``scramble=False`` (SciPy: True),
``seed`` and ``rng`` given together with one of them None is accepted (SciPy
raises), and ``seed=True`` is rejected (SciPy takes it as 1).
"""
import types

import pytest
from scipy.stats import qmc

sq = pytest.importorskip("scipy.stats.tests.test_qmc")

from qmc_orff.generators import Halton, Sobol  # noqa: E402

_PROXY = types.ModuleType("qmc_with_qmc_orff_engines")
_PROXY.__getattr__ = lambda name: getattr(qmc, name)
_PROXY.Halton = Halton
_PROXY.Sobol = Sobol


@pytest.fixture(autouse=True)
def _swap_engines(monkeypatch):
    monkeypatch.setattr(sq, "qmc", _PROXY)


class TestScipyHalton(sq.TestHalton):
    qmce = Halton


class TestScipySobol(sq.TestSobol):
    qmce = Sobol


class TestScipyMultinomialQMC(sq.TestMultinomialQMC):
    pass


class TestScipyNormalQMC(sq.TestNormalQMC):
    pass


class TestScipyMultivariateNormalQMC(sq.TestMultivariateNormalQMC):
    pass


class TestScipyLloyd(sq.TestLloyd):
    pass



def test_swap_is_in_place():
    # the proxy is what SciPy's test code sees, and it hands out our engines
    assert sq.qmc.Sobol is Sobol and sq.qmc.Halton is Halton
    assert sq.qmc.discrepancy is qmc.discrepancy
    assert TestScipySobol().engine(d=2, scramble=False).__class__ is Sobol
    assert TestScipyHalton().engine(d=2, scramble=True).__class__ is Halton
