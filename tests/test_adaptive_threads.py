"""The adaptive designs' BLAS threads (issue 28): bits independent of the BLAS thread count."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from qmc_orff import adaptive_operator_sequence, adaptive_sequence

# a design whose products (400 x 128 features, 400 x 400 error) are large enough for OpenBLAS
# to share among threads when it is allowed to
_CODE = """
import hashlib, numpy as np
from qmc_orff import adaptive_sequence
X = np.random.default_rng(0).normal(size=(700, 24))
seq = adaptive_sequence(X, 64, sigma=4.0, n_train=400, n_validation=150, maxiter=12, seed=3)
print(hashlib.sha256(seq.points.tobytes()).hexdigest(), seq.meta["iterations"])
"""


def _run(blas_threads):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(blas_threads), OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", _CODE], capture_output=True, text=True, env=env,
                         timeout=300, check=True)
    return out.stdout.split()


def test_bits_do_not_depend_on_openblas_num_threads():
    one, two = _run(1), _run(2)
    assert one == two
    assert int(one[1]) > 0  # the optimiser ran


def _blas_threads():
    return [m["num_threads"] for m in threadpool_info() if m["user_api"] == "blas"]


def test_design_runs_blas_on_one_thread_and_restores_the_limits(monkeypatch):
    from qmc_orff.objectives.data import DataDiscrepancy

    seen = []
    vg = DataDiscrepancy.value_and_grad
    monkeypatch.setattr(DataDiscrepancy, "value_and_grad",
                        lambda self, *a, **k: (seen.append(_blas_threads()), vg(self, *a, **k))[1])
    X = np.random.default_rng(1).normal(size=(120, 4))
    with threadpool_limits(2, user_api="blas"):
        before = _blas_threads()
        adaptive_sequence(X, 8, sigma=2.0, n_train=60, n_validation=30, maxiter=3, seed=0)
        assert _blas_threads() == before
    assert seen and all(k == 1 for row in seen for k in row)


def test_in_process_bits_equal_under_blas_limits_one_and_two():
    X = np.random.default_rng(2).normal(size=(500, 16))
    kw = dict(sigma=3.0, n_train=300, n_validation=100, maxiter=8, seed=1)
    with threadpool_limits(1, user_api="blas"):
        a = adaptive_sequence(X, 48, **kw)
        c = adaptive_operator_sequence(X[:, :3], 8, sigma=1.0, n_train=80, n_validation=40,
                                       maxiter=5, seed=0)
    with threadpool_limits(2, user_api="blas"):
        b = adaptive_sequence(X, 48, **kw)
        d = adaptive_operator_sequence(X[:, :3], 8, sigma=1.0, n_train=80, n_validation=40,
                                       maxiter=5, seed=0)
    assert a.points.tobytes() == b.points.tobytes()
    assert c.points.tobytes() == d.points.tobytes()
