"""Cold start (issue 14): what the first calls compile, and that the numba cache serves them.

No timing here (``benchmarks/bench_coldstart.py`` times the first calls): these tests
check *which* kernels compile, in fresh processes with an empty ``NUMBA_CACHE_DIR``.
"""
from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest
from numba.core.caching import FunctionCache
from numba.core.dispatcher import Dispatcher

import qmc_orff

pytestmark = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="NUMBA_DISABLE_JIT is set")

#: prepended to every script: records each compilation of a qmc_orff kernel
_RECORDER = '''\
import json, sys
from numba.core import event as _ev
_compiled = []
class _Recorder(_ev.Listener):
    def on_start(self, event):
        disp = event.data["dispatcher"]
        py_func = getattr(disp, "py_func", None)
        if py_func is not None and py_func.__module__.startswith("qmc_orff"):
            _compiled.append(dict(name=py_func.__module__ + "." + py_func.__qualname__,
                                  parallel=bool(disp.targetoptions.get("parallel")),
                                  args=str(event.data["args"])))
    def on_end(self, event):
        pass
_ev.register("numba:compile", _Recorder())
'''
_REPORT = '''
print(json.dumps(dict(compiled=_compiled)))
'''


def _run(script, cache_dir):
    """Run ``script`` in a fresh interpreter with numba's cache in ``cache_dir``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    res = subprocess.run([sys.executable, "-c", _RECORDER + textwrap.dedent(script) + _REPORT],
                         env=env, cwd=cache_dir, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def _library_dispatchers():
    """Every numba dispatcher defined at module level in the package (imports all modules)."""
    found = {}
    for info in pkgutil.walk_packages(qmc_orff.__path__, "qmc_orff."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, Dispatcher) and value.py_func.__module__.startswith("qmc_orff"):
                found[id(value)] = value
    return list(found.values())


def test_import_compiles_nothing(tmp_path):
    """``import qmc_orff`` does not import numba; importing every module compiles nothing."""
    res = subprocess.run([sys.executable, "-c", "import sys, qmc_orff; print(sorted(sys.modules))"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "'numba'" not in res.stdout and "'sklearn'" not in res.stdout
    out = _run('''
        import qmc_orff
        import importlib, pkgutil
        for info in pkgutil.walk_packages(qmc_orff.__path__, "qmc_orff."):
            if not info.name.endswith("__main__"):
                importlib.import_module(info.name)
        ''', tmp_path)
    assert out["compiled"] == []


def test_every_kernel_caches_in_its_own_file():
    """Every kernel has ``cache=True`` and its own cache file.

    numba keys its cache entries by function name, signature and bytecode -- not by
    ``parallel=``: two builds of one Python function would load each other's code.
    Helpers with ``inline="always"`` are compiled into their callers and need no cache.
    """
    kernels = _library_dispatchers()
    assert len(kernels) >= 20  # the feature, discrepancy, density, design and generator kernels
    files = {}
    for disp in kernels:
        name = f"{disp.py_func.__module__}.{disp.py_func.__qualname__}"
        if disp.targetoptions.get("inline", "never") == "always":
            continue
        assert isinstance(disp._cache, FunctionCache), f"{name} is not cached (cache=True)"
        path = disp._cache._cache_file._index_path  # numba internals (stable since 0.4x)
        assert path not in files, f"{name} and {files[path]} share the cache file {path}"
        files[path] = name


def test_small_generator_calls_compile_serial_builds_and_reload(tmp_path):
    """Draws of one chunk compile the serial builds only (once each); a second process
    with the filled cache compiles nothing."""
    script = '''
        from qmc_orff import Halton, Lattice, Sobol
        Halton(3, scramble=False).random(64); Halton(3, seed=0).random(64)
        Sobol(3, seed=0).random(64)
        Lattice(3).random(64); Lattice(3, order="natural").random(64)
        '''
    cold = _run(script, tmp_path)
    assert not [c["name"] for c in cold["compiled"] if c["parallel"]]
    names = [c["name"].rsplit(".", 1)[-1] for c in cold["compiled"]]
    for kernel in ("halton_plain_serial", "halton_permuted_serial", "sobol_draw_serial",
                   "lattice_radical_inverse_serial", "lattice_natural_serial"):
        assert names.count(kernel) == 1, (kernel, names)
    assert len(names) == len(set(names)), names  # one specialisation each
    assert _run(script, tmp_path)["compiled"] == []


def test_small_fit_transform_compiles_only_its_kernels_and_reloads(tmp_path):
    """A small float64 FourierFeatures fit-transform compiles the float64 feature kernel
    once -- no float32 variant, no parallel build, nothing twice -- and a second process
    with the filled cache compiles nothing."""
    script = '''
        import numpy as np
        from qmc_orff import FourierFeatures
        X = np.random.default_rng(0).normal(size=(50, 3))
        FourierFeatures(n_components=16).fit_transform(X)
        '''
    cold = _run(script, tmp_path)["compiled"]
    names = [c["name"].rsplit(".", 1)[-1] for c in cold]
    assert any("cos_sin_rows" in n for n in names), names
    assert not [n for n in names if "f32" in n], names
    assert not [c["name"] for c in cold if c["parallel"]]
    keys = [(c["name"], c["args"]) for c in cold]
    assert len(keys) == len(set(keys)), keys
    assert _run(script, tmp_path)["compiled"] == []


@pytest.mark.parametrize("call, task, driver", [
    ("obj.value_and_grad(W)", "_task_grad", "_run_grad_serial"),
    ("obj(W)", "_task_values", "_run_values_serial")])
def test_discrepancy_paths_compile_only_their_task_kernel(tmp_path, call, task, driver):
    """value_and_grad compiles the gradient task kernel and not the value-only one, a
    value the reverse (the drivers are specialised per path); serial builds for small
    problems."""
    script = f"""
        import numpy as np
        from qmc_orff import BoxDiscrepancy
        obj = BoxDiscrepancy(np.full(3, 2.0))
        W = np.random.default_rng(0).normal(size=(40, 3))
        {call}
        """
    cold = _run(script, tmp_path)["compiled"]
    names = [c["name"].rsplit(".", 1)[-1] for c in cold]
    assert names.count(task) == 1 and names.count(driver) == 1, names
    other = {"_task_grad": "_task_values", "_task_values": "_task_grad"}[task]
    assert other not in names and not [c for c in cold if c["parallel"]], names


@pytest.mark.slow
def test_design_first_calls_reload_from_cache(tmp_path):
    """A small global design, ORFF and a value-and-gradient: no kernel compiles twice, and
    a second process with the filled cache compiles nothing."""
    script = '''
        import numpy as np
        from qmc_orff import ORFF, BoxDiscrepancy, global_sequence
        obj = BoxDiscrepancy(np.full(3, 2.0))
        global_sequence(obj, 32, maxiter=3)
        obj.value_and_grad(np.random.default_rng(0).normal(size=(40, 3)))
        ORFF("curl_free", n_components=16).fit_transform(
            np.random.default_rng(1).normal(size=(30, 2)))
        '''
    cold = _run(script, tmp_path)
    keys = [(c["name"], c["args"]) for c in cold["compiled"]]
    assert keys and len(keys) == len(set(keys)), keys
    assert _run(script, tmp_path)["compiled"] == []


@pytest.mark.parametrize("engine, options", [
    ("Halton", {"scramble": False}), ("Halton", {"scramble": True, "rng": 3}),
    ("Sobol", {"scramble": True, "rng": 3}),
    ("Lattice", {"shift": True, "rng": 3}), ("Lattice", {"order": "natural"})])
def test_serial_builds_draw_the_parallel_points(engine, options):
    """The engines' serial builds (one chunk, or one thread) give the parallel build's points
    bit for bit: many chunks in parallel against one thread, and draws of one chunk each."""
    def make():
        return getattr(qmc_orff, engine)(5, **options)

    n = 2 ** 14  # several chunks of every engine
    parallel = make().random(n)
    with qmc_orff.num_threads(1):
        serial = make().random(n)
    np.testing.assert_array_equal(parallel, serial)
    gen = make()
    pieces = [gen.random(m) for m in (1, 63, 2048, 1, 4095, n - 6208)]
    np.testing.assert_array_equal(np.concatenate(pieces), parallel)
