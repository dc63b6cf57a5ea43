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
outside what these tests check: ``seed`` and ``rng`` given together with one of
them None is accepted (SciPy raises), and ``seed=True`` is rejected (SciPy takes
it as 1).  The defaults are SciPy's (``scramble=True``), tested below.
"""
import inspect
import types

import numpy as np
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


@pytest.mark.parametrize("ours, theirs", [(Sobol, qmc.Sobol), (Halton, qmc.Halton)])
def test_defaults_are_scipys(ours, theirs):
    # scramble defaults to True as in scipy.stats.qmc, so rng (and legacy seed) are honoured
    theirs_params = inspect.signature(theirs).parameters
    for name in ("scramble", "optimization", "rng", "seed"):
        if name not in theirs_params:  # SciPy 1.15 takes `seed` through a decorator only
            continue
        assert (inspect.signature(ours).parameters[name].default
                == theirs_params[name].default), name
    np.testing.assert_array_equal(ours(3, rng=0).random(16), theirs(3, rng=0).random(16))
    np.testing.assert_array_equal(ours(3, seed=7).random(16), theirs(3, seed=7).random(16))
    assert not np.array_equal(ours(3, rng=0).random(16), ours(3, rng=1).random(16))
    assert np.any(ours(3, rng=3).random(1) != 0.0)   # the plain sequences start at 0


@pytest.mark.parametrize("inv_transform", [True, False])
def test_multivariate_normal_with_our_default_engine_is_scipys(inv_transform):
    # SciPy's MultivariateNormalQMC builds Sobol(d, scramble=True, bits=30, rng=rng) when no
    # engine is given; ours with its defaults is that engine, so the draws agree bit for bit
    # (with an unscrambled engine the first draw was the clipped origin, [-6.47, -6.47]).
    mean, cov = [1.0, -2.0], [[2.0, 0.5], [0.5, 1.0]]
    with_ours = qmc.MultivariateNormalQMC(mean, cov, inv_transform=inv_transform,
                                          engine=Sobol(2, rng=5)).random(8)
    scipys = qmc.MultivariateNormalQMC(mean, cov, inv_transform=inv_transform,
                                       rng=5).random(8)
    np.testing.assert_array_equal(with_ours, scipys)
    first = qmc.MultivariateNormalQMC([0.0, 0.0], engine=Sobol(2, rng=11)).random(1)
    assert np.all(np.abs(first) < 6.0), first


def test_scipys_whole_test_file_passes_with_our_engines(tmp_path):
    # SciPy's installed test_qmc.py, unchanged, in a fresh interpreter whose
    # scipy.stats.qmc.Sobol/Halton are ours from the start (tests/_scipy_engine_swap.py):
    # unlike the classes above, this also covers the module-level tests, whose
    # parametrisations (e.g. test_deterministic[Sobol]) are fixed at import.  About 10 s.
    import os
    import subprocess
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [here] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "_scipy_engine_swap", "-p", "no:cacheprovider",
         "-q", "-rfE", "--rootdir", str(tmp_path), sq.__file__],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    swapped = [line for line in out.splitlines() if "qmc_orff engines swapped in:" in line]
    assert swapped and int(swapped[0].split(":")[1].split()[0]) > 0, out[-4000:]
    assert " passed" in out and " failed" not in out, out[-2000:]
