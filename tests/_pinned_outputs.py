"""Outputs pinned before the issue-14 performance work (private helper of test_pinned_outputs.py).

``compute()`` returns SHA-256 digests of outputs whose algorithm the performance
work must not change.  ``python tests/_pinned_outputs.py --all`` rewrote
``tests/data/pinned_outputs_i14.json`` ONCE, on the code before that work (on an
AVX-512 Intel machine); the test compares today's digests with the file.

Digests that depend on the CPU (``CPU_DEPENDENT``: numpy's float64 ``tan``, used by the
Cauchy inverse CDF, is Intel SVML code on ``AVX512_SKX`` CPUs and libm elsewhere, and the
two differ in the last bit) are pinned per machine class in ``BY_CPU_PATH``, keyed by
``cpu_signature()``:

* ``python tests/_pinned_outputs.py --record-cpu`` adds this machine's digests of those keys
  under its signature (run it on the code whose bits are pinned, on a new machine class);
* ``python tests/_pinned_outputs.py --reference`` rewrites ``REFERENCE_PATH``, the reference
  arrays of the ulp-bounded comparison used where the signature is not recorded.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys

import numpy as np

PATH = os.path.join(os.path.dirname(__file__), "data", "pinned_outputs_i14.json")
BY_CPU_PATH = os.path.join(os.path.dirname(__file__), "data", "pinned_outputs_by_cpu.json")
REFERENCE_PATH = os.path.join(os.path.dirname(__file__), "data", "pinned_laplacian_reference.npz")
#: keys whose digest depends on the CPU (numpy's float64 tan: SVML on AVX512_SKX, libm elsewhere)
CPU_DEPENDENT = ("features_laplacian_f64",)
#: rows of the Laplacian feature matrix kept in REFERENCE_PATH (rows are independent)
REFERENCE_ROWS = 64


def cpu_signature():
    """The machine class that selects numpy's float64 ``tan``: SVML on AVX512_SKX, else libm."""
    import numpy as np
    core = getattr(np, "_core", None) or np.core
    features = core._multiarray_umath.__cpu_features__
    arch = platform.machine()
    if features.get("AVX512_SKX", False):
        return f"{arch} AVX512_SKX (numpy tan: SVML)"
    libc, version = platform.libc_ver()
    return f"{arch} no AVX512_SKX (numpy tan: libm {libc} {version})".replace("  ", " ")


def digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a))
        h.update(str(a.dtype).encode() + str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def features_map(kernel):
    """``(X, fitted map)`` of the pinned feature outputs."""
    from qmc_orff import FourierFeatures
    X = np.random.default_rng(3).standard_normal((300, 7))
    return X, FourierFeatures(kernel, sigma=1.3, n_components=64, sequence="halton").fit(X)


def _features():
    from qmc_orff import FourierFeatures
    out = {}
    for kern in ("gaussian", "laplacian"):
        X, ff = features_map(kern)
        out[f"features_{kern}_f64"] = digest(ff.transform(X))
    # large arguments (the math.sin fallback rows)
    ff = FourierFeatures("gaussian", sigma=1e-6, n_components=16, sequence="halton").fit(X)
    out["features_large_args_f64"] = digest(ff.transform(X))
    return out


def _cbc():
    from qmc_orff.generators import cbc_lattice
    out = {}
    for n, d, alpha in ((1024, 8, 2), (4096, 16, 4), (1009, 6, 2), (2 ** 16, 12, 2), (65537, 5, 2)):
        z, e = cbc_lattice(n, d, alpha=alpha, return_error=True)
        out[f"cbc_{n}_{d}_{alpha}"] = digest(z, np.float64(e))
    return out


def _cauchy_g():
    from qmc_orff.densities import CauchyDensity
    x = np.concatenate([np.linspace(-50, 50, 1001), [0.0, 1e-12, 3e3]])
    a = np.array([0.1, 0.7, 2.0, 5.0])[:, None]
    g, dg = CauchyDensity().g_and_derivative(x[None, :], a)
    return {"cauchy_g": digest(g, dg)}


def _pair():
    # the pair kernel alone (normalised units), serial and parallel-sized problems
    from qmc_orff.objectives import _box_kernels as K
    out = {}
    for s, d in ((60, 3), (700, 9)):
        rng = np.random.default_rng(s)
        W = rng.standard_normal((s, d))
        W[1] = W[0]
        W[2, 0] = W[3, 0] + 1e-9
        b = np.linspace(0.5, 2.5, d)
        S, Co = np.sin(b * W), np.cos(b * W)
        xi = rng.uniform(0.5, 1.5, s) / s
        r, g = K.pair_value_grad(W, b, S, Co, xi)
        out[f"pair_{s}_{d}"] = digest(r, g, K.pair_values(W, b, S, Co, xi), K.pair_matrix(W, b, S, Co))
    return out


def compute():
    out = {}
    out.update(_pair())
    out.update(_features())
    out.update(_cbc())
    out.update(_cauchy_g())
    return out


def _write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")
    print(open(path).read())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--all", action="store_true", help=f"rewrite {PATH} (all keys)")
    group.add_argument("--record-cpu", action="store_true",
                       help=f"add this machine's {CPU_DEPENDENT} digests to {BY_CPU_PATH}")
    group.add_argument("--reference", action="store_true", help=f"rewrite {REFERENCE_PATH}")
    args = parser.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if args.all:
        _write_json(PATH, compute())
    elif args.record_cpu:
        table = json.load(open(BY_CPU_PATH)) if os.path.exists(BY_CPU_PATH) else {}
        got = _features()
        for key in CPU_DEPENDENT:
            table.setdefault(key, {})[cpu_signature()] = got[key]
        _write_json(BY_CPU_PATH, table)
    else:
        X, ff = features_map("laplacian")
        np.savez_compressed(REFERENCE_PATH, frequencies=ff.frequencies_,
                            features=ff.transform(X[:REFERENCE_ROWS]))
        print(f"wrote {REFERENCE_PATH} on {cpu_signature()}")


if __name__ == "__main__":
    main()
