"""Outputs pinned before the issue-14 performance work (private helper of test_pinned_outputs.py).

``compute()`` returns SHA-256 digests of outputs whose algorithm the performance
work must not change.  ``python tests/_pinned_outputs.py`` rewrote
``tests/data/pinned_outputs_i14.json`` ONCE, on the code before that work; the
test compares today's digests with the file.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys

import numpy as np

PATH = os.path.join(os.path.dirname(__file__), "data", "pinned_outputs_i14.json")


def digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a))
        h.update(str(a.dtype).encode() + str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _features():
    from qmc_orff import FourierFeatures
    rng = np.random.default_rng(3)
    X = rng.standard_normal((300, 7))
    out = {}
    for kern in ("gaussian", "laplacian"):
        ff = FourierFeatures(kern, sigma=1.3, n_components=64, sequence="halton").fit(X)
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


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(PATH, "w") as f:
        json.dump(compute(), f, indent=1, sort_keys=True)
        f.write("\n")
    print(open(PATH).read())
