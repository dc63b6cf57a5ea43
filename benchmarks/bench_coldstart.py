"""Cold start (issue 14, item 5): first-call times in fresh processes.

Every call below runs in a fresh Python process, twice, with ``NUMBA_CACHE_DIR``
pointing to a new temporary directory:

* **cold**: the cache is empty, so the first call compiles every kernel it needs;
* **warm**: a second process with the cache the cold one just wrote (loading only).

Per call the table gives the import time (the ``import`` lines of the case), the
first-call time cold and warm, the second call in the warm process (``hot``: the
work itself), the seconds spent in numba compilations during the cold first call
(outermost compilations only), the library kernels (dispatchers of ``qmc_orff``)
the cold call compiled, and how many library kernels the *warm* call compiled:
that count must be 0 (a kernel that compiles again with a filled cache does not
cache).  The first row is a reference measured in the same run: a one-line
``@njit`` function (not cached: it compiles in both processes), the fixed cost of
numba's first compilation in a process; on a loaded machine every row scales with it.

``--tree DIR`` (repeatable) runs the cases against the ``qmc_orff`` package in
``DIR`` (a checkout, e.g. ``git archive <commit> qmc_orff | tar -x -C DIR``),
through ``PYTHONPATH``, so that two versions are compared in the same run;
the process's ``qmc_orff.__file__`` is checked.

Run: ``python benchmarks/bench_coldstart.py [--repeat R] [--tree DIR ...] [--only SUBSTR]
[--verbose]`` (a minute or two on two cores).  Times are minima over ``R`` cold/warm
pairs; on a shared machine they are noisy (compare rows of the same run).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: name -> (imports, setup, call): ``imports`` are timed as the import; ``setup`` is not
#: timed; ``call`` is timed twice (first call, then the same again).
CASES = {
    "reference: @njit x + 1": (
        "import numba",
        "f = numba.njit(_trivial)",
        "f(1.0)"),
    "import qmc_orff": (
        "import qmc_orff",
        "",
        "pass"),
    "FourierFeatures f64 fit_transform (1000, 8), s=64": (
        "import numpy as np\nfrom qmc_orff import FourierFeatures",
        "X = np.random.default_rng(0).normal(size=(1000, 8))",
        "FourierFeatures(n_components=64).fit_transform(X)"),
    "FourierFeatures f32 fit_transform (1000, 8), s=64": (
        "import numpy as np\nfrom qmc_orff import FourierFeatures",
        "X = np.random.default_rng(0).normal(size=(1000, 8)).astype(np.float32)",
        "FourierFeatures(n_components=64).fit_transform(X)"),
    "FourierFeatures f64, set_num_threads(1)": (
        "import numpy as np\nimport qmc_orff\nfrom qmc_orff import FourierFeatures",
        "X = np.random.default_rng(0).normal(size=(1000, 8)); qmc_orff.set_num_threads(1)",
        "FourierFeatures(n_components=64).fit_transform(X)"),
    "ORFF curl-free fit_transform (200, 2), s=64": (
        "import numpy as np\nfrom qmc_orff import ORFF",
        "X = np.random.default_rng(0).normal(size=(200, 2))",
        "ORFF('curl_free', n_components=64).fit_transform(X)"),
    "BoxDiscrepancy.value_and_grad s=256 d=8": (
        "import numpy as np\nfrom qmc_orff import BoxDiscrepancy",
        "W = np.random.default_rng(0).normal(size=(256, 8)); obj = BoxDiscrepancy(np.full(8, 2.0))",
        "obj.value_and_grad(W)"),
    "global_sequence s=64 d=4 maxiter=5": (
        "import numpy as np\nfrom qmc_orff import BoxDiscrepancy, global_sequence",
        "obj = BoxDiscrepancy(np.full(4, 2.0))",
        "global_sequence(obj, 64, maxiter=5)"),
    "Halton(4, scramble=True).random(64)": (
        "from qmc_orff import Halton",
        "",
        "Halton(4, scramble=True, seed=0).random(64)"),
    "Sobol(4, scramble=False).random(64)": (
        "from qmc_orff import Sobol",
        "",
        "Sobol(4, scramble=False).random(64)"),
    "Lattice(4).random(64)": (
        "from qmc_orff import Lattice",
        "",
        "Lattice(4, seed=0).random(64)"),
}

_PROGRAM = '''\
import json, sys, time
def _trivial(x):
    return x + 1
_t0 = time.perf_counter()
{imports}
_t_import = time.perf_counter() - _t0
_numba_at_import = "numba" in sys.modules
from numba.core import event as _ev

class _Compiles(_ev.Listener):
    """Outermost compile seconds, and the qmc_orff dispatchers compiled (any depth)."""
    def __init__(self):
        self.starts, self.total, self.names = [], 0.0, []
    def on_start(self, event):
        self.starts.append(time.perf_counter())
        py_func = getattr(event.data["dispatcher"], "py_func", None)
        if py_func is not None and py_func.__module__.startswith("qmc_orff"):
            self.names.append(py_func.__module__.split(".")[-1] + "." + py_func.__qualname__)
    def on_end(self, event):
        t = time.perf_counter() - self.starts.pop()
        if not self.starts:
            self.total += t

_listener = _Compiles()
_ev.register("numba:compile", _listener)
{setup}
_t1 = time.perf_counter()
{call}
_t_first = time.perf_counter() - _t1
_first = (_listener.total, list(_listener.names))
_t2 = time.perf_counter()
{call}
_t_second = time.perf_counter() - _t2
import qmc_orff
print(json.dumps(dict(file=qmc_orff.__file__, numba_at_import=_numba_at_import,
                      t_import=_t_import, t_first=_t_first, t_second=_t_second,
                      compile_s=_first[0], compiled=_first[1])))
'''


def run_case(imports, setup, call, cache_dir, tree):
    prog = _PROGRAM.format(imports=imports, setup=setup or "pass", call=call)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    env.pop("NUMBA_DISABLE_JIT", None)
    env["PYTHONPATH"] = os.pathsep.join([str(tree)] + [p for p in
                                                       [os.environ.get("PYTHONPATH")] if p])
    # cwd: not the checkout (``python -c`` puts the working directory first on sys.path)
    res = subprocess.run([sys.executable, "-c", prog], env=env, capture_output=True, text=True,
                         cwd=cache_dir)
    if res.returncode != 0:
        raise RuntimeError(f"case failed:\n{textwrap.indent(prog, '  ')}\n{res.stderr}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    expected = (Path(tree) / "qmc_orff").resolve()
    if Path(out["file"]).resolve().parent != expected:
        raise RuntimeError(f"the process imported {out['file']}, not the package in {tree}")
    return out


def measure(name, tree, repeat):
    """Minima over ``repeat`` cold/warm pairs; compile lists of the last pair."""
    best = None
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="qmc_orff_cold_") as cache:
            cold = run_case(*CASES[name], cache, tree)
            warm = run_case(*CASES[name], cache, tree)
        row = dict(import_s=min(cold["t_import"], warm["t_import"]), cold=cold["t_first"],
                   warm=warm["t_first"], hot=warm["t_second"], compile_s=cold["compile_s"],
                   compiled=cold["compiled"], warm_compiled=warm["compiled"],
                   numba_at_import=cold["numba_at_import"])
        if best is None:
            best = row
        else:
            for key in ("import_s", "cold", "warm", "hot", "compile_s"):
                best[key] = min(best[key], row[key])
            best.update(compiled=row["compiled"], warm_compiled=row["warm_compiled"])
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="cold/warm pairs per case (min)")
    parser.add_argument("--tree", action="append", default=None,
                        help="directory holding the qmc_orff package to time (repeatable); "
                             "default: this checkout")
    parser.add_argument("--only", default=None, help="cases whose name contains this string")
    parser.add_argument("--verbose", action="store_true", help="list the compiled kernels")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"'--repeat' must be at least 1; got {args.repeat}.")
    trees = [Path(t).resolve() for t in (args.tree or [ROOT])]
    names = [n for n in CASES if args.only is None or args.only in n or n.startswith("ref")]
    import numba
    print(f"python {sys.version.split()[0]}, numba {numba.__version__}, cores {os.cpu_count()}, "
          f"numba threads {numba.config.NUMBA_NUM_THREADS}, load {os.getloadavg()[0]:.1f}")
    for i, tree in enumerate(trees):
        print(f"tree {i}: {tree}")
    head = (f"{'call':52s} {'tree':>4s} {'import s':>8s} {'cold s':>7s} {'warm s':>7s} "
            f"{'hot s':>7s} {'compile s':>9s} {'kernels':>7s} {'warm recompiles':>15s}")
    print(head)
    print("-" * len(head))
    problems = []
    for name in names:
        for i, tree in enumerate(trees):
            r = measure(name, tree, args.repeat)
            own = [k for k in r["compiled"]]
            print(f"{name[:52]:52s} {i:4d} {r['import_s']:8.3f} {r['cold']:7.3f} {r['warm']:7.3f} "
                  f"{r['hot']:7.3f} {r['compile_s']:9.2f} {len(own):7d} "
                  f"{len(r['warm_compiled']):15d}", flush=True)
            if args.verbose and own:
                print(textwrap.fill(", ".join(own), 100, initial_indent="      compiled: ",
                                    subsequent_indent="        "))
            if r["warm_compiled"]:
                problems.append(f"{name} (tree {i}): compiled again with a filled cache: "
                                f"{', '.join(r['warm_compiled'])}")
            if name == "import qmc_orff" and r["numba_at_import"]:
                problems.append(f"import qmc_orff (tree {i}) imported numba")
    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
