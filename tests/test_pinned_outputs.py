"""Outputs bit-identical to those before the issue-14 performance work.

``tests/data/pinned_outputs_i14.json`` holds SHA-256 digests computed by
``tests/_pinned_outputs.py`` (the generator) on the code before that work (commit on branch
i14 "tests: pin digests ..."), on an AVX-512 Intel machine.  Changed on purpose, and so not
pinned: the Gaussian and Cauchy ``g``/``g'`` (now compiled; within 4e-16 of the former
values, tests/test_density_kernels.py), float32 feature maps (now evaluated in float32,
tests/test_features.py), the greedy design (tabulated sinc factors).

Re-pinned on purpose: the ``pair_*`` keys (``_pair()``), after the pair sums moved from
round-robin rounds to task groups with partial sums added in a fixed order (issue 14,
item 3): the sums are regrouped, so problems above ``SERIAL_WORK`` (``pair_700_9``)
differ in the last bits (equal to the round-robin sums to rounding,
tests/test_discrepancy.py::test_grouped_sums_match_round_robin_schedule); ``pair_60_3``
(one group) kept its digest.  Only those keys were rewritten, from ``_pair()``; every
other key is the original.

Pinned per machine class: ``features_laplacian_f64`` (``P.CPU_DEPENDENT``).  The Cauchy
inverse CDF calls ``np.tan``, which numpy runs as Intel SVML code on CPUs with
``AVX512_SKX`` and as libm's ``tan`` elsewhere; the two differ in the last bit of some
frequencies, and so the feature matrix differs.  The library's bits are not changed for
it: ``tests/data/pinned_outputs_by_cpu.json`` holds one exact digest per CPU signature
(``P.cpu_signature()``: the SVML one recorded with the original file, the libm one recorded
on an AMD EPYC (AVX2, glibc 2.36) with the same code).  On a machine whose signature is not
recorded the exact check of that key is replaced by the ulp-bounded comparison of
``test_laplacian_features_within_bound_of_reference`` (which runs everywhere), against the
arrays in ``tests/data/pinned_laplacian_reference.npz`` (recorded on the AMD machine):

* frequencies within ``FREQ_ULPS = 5`` ulp: each machine's Cauchy quantile is within 2 ulp
  of the quantile with ``tan`` in ``np.longdouble`` (tested below), and the division by
  ``sigma`` rounds once more on each side (0.5 ulp each);
* features ``F = sqrt(xi) [cos(X W^T), sin(X W^T)]`` within, elementwise,
  ``sqrt(xi) ((FREQ_ULPS + d) eps A + 2 eps)`` with ``eps = 2**-52`` and ``A = |X| |W|^T``:
  the frequencies' difference moves a phase by at most ``FREQ_ULPS eps A``, the two dot
  products (any summation order) round by at most ``d/2 eps A`` each, cos and sin are
  1-Lipschitz and within 1 ulp (``eps/2`` below 1) on each side, and the product with
  ``sqrt(xi)`` rounds by at most ``eps/2 |F|`` on each side.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import _pinned_outputs as P  # noqa: E402

PINNED = json.loads(Path(P.PATH).read_text())
BY_CPU = json.loads(Path(P.BY_CPU_PATH).read_text())
#: The digests were taken with these versions: the BLAS product X W^T and scipy's inverse CDF
#: (Halton frequencies) round differently in other builds, so the digests pin outputs of one
#: environment (the default `make test` one); `make test-min` (older numpy/scipy) skips them.
PINNED_WITH = ("2.4.6", "1.17.1")
EPS = 2.0 ** -52
FREQ_ULPS = 5


@pytest.mark.parametrize("group", ["_features", "_cbc", "_pair"])
def test_outputs_bit_identical_to_before(group):
    import scipy

    if (np.__version__, scipy.__version__) != PINNED_WITH:
        pytest.skip(f"digests pinned with numpy {PINNED_WITH[0]} / scipy {PINNED_WITH[1]}; "
                    f"this is numpy {np.__version__} / scipy {scipy.__version__}")
    got = getattr(P, group)()
    assert got, group
    signature = P.cpu_signature()
    for key, value in got.items():
        if key in P.CPU_DEPENDENT:
            if signature not in BY_CPU[key]:
                continue  # test_laplacian_features_within_bound_of_reference covers it
            assert value == BY_CPU[key][signature], (key, signature)
        else:
            assert value == PINNED[key], key


def test_cpu_signature_selects_a_recorded_digest_on_known_machines():
    # the two recorded classes, and the AVX-512 one is the original file's digest
    table = BY_CPU["features_laplacian_f64"]
    assert table["x86_64 AVX512_SKX (numpy tan: SVML)"] == PINNED["features_laplacian_f64"]
    assert len(set(table.values())) == len(table) == 2
    assert P.cpu_signature().startswith(P.platform.machine())


def _ulps(got, ref):
    """``|got - ref|`` in units of the last place of ``ref`` rounded to float64."""
    ref64 = np.asarray(ref, dtype=np.float64)
    return np.abs(np.asarray(got, dtype=ref.dtype) - ref) / np.spacing(np.abs(ref64)).astype(ref.dtype)


def _feature_bound(X, W, xi):
    A = np.abs(X) @ np.abs(W).T
    half = np.sqrt(xi) * ((FREQ_ULPS + X.shape[1]) * EPS * A + 2 * EPS)
    return np.hstack([half, half])


def test_laplacian_features_within_bound_of_reference():
    ref = np.load(P.REFERENCE_PATH)
    X, ff = P.features_map("laplacian")
    X = X[:P.REFERENCE_ROWS]
    W = ff.frequencies_
    assert _ulps(W, ref["frequencies"]).max() <= FREQ_ULPS
    F = ff.transform(X)
    bound = _feature_bound(X, W, ff.weights_)
    assert np.all(np.abs(F - ref["features"]) <= bound)
    # numpy's cos/sin of the same phases pass it; frequencies off by a relative 1e-12 do not
    assert np.all(np.abs(_numpy_features(X, W, ff.weights_) - ref["features"]) <= bound)
    assert np.any(np.abs(_numpy_features(X, W * (1 + 1e-12), ff.weights_) - ref["features"]) > bound)


def _numpy_features(X, W, xi):
    phase = X @ W.T
    return np.hstack([np.sqrt(xi) * np.cos(phase), np.sqrt(xi) * np.sin(phase)])


def _cauchy_quantile_longdouble(t):
    """The Cauchy quantile of ``CauchyDensity.ppf`` (same float64 arguments), ``tan`` in long double."""
    ld = np.longdouble
    out = np.empty(t.shape, dtype=ld)
    lo, hi = t < 0.25, t > 0.75
    mid = ~(lo | hi)
    out[mid] = np.tan(ld(math.pi * (t[mid] - 0.5)))
    out[lo] = -1 / np.tan(ld(math.pi * t[lo]))
    out[hi] = 1 / np.tan(ld(math.pi * (1.0 - t[hi])))
    return out, mid


@pytest.mark.skipif(np.finfo(np.longdouble).nmant <= np.finfo(np.float64).nmant,
                    reason="np.longdouble is float64 here: no independent reference")
def test_cauchy_frequencies_within_ulps_of_longdouble_tan():
    from qmc_orff.densities import CauchyDensity
    from qmc_orff.sources.frequencies import source_points

    t_halton = source_points("halton", 64, 7)
    t = np.concatenate([t_halton.ravel(), np.linspace(0, 1, 20001)[1:-1], [1e-300, 1e-12, 0.25, 0.75],
                        np.random.default_rng(0).uniform(size=20000)])
    ref, mid = _cauchy_quantile_longdouble(t)
    got = CauchyDensity().ppf(t)
    # the quantile adds nothing to numpy's float64 tan of the float64 argument
    np.testing.assert_array_equal(got[mid], np.tan(math.pi * (t[mid] - 0.5)))
    ulps = _ulps(got, ref)
    if np.lib.NumpyVersion(np.__version__) < "2.0.0" and "SVML" in P.cpu_signature():
        # NumPy 1.x's AVX-512 SVML tan is not the 1-ulp one: measured with NumPy 1.25 on an
        # Intel Cooper Lake (the declared floor, `make test-min`): 2.24 ulp, tails 3.46 ulp
        pytest.skip("NumPy < 2 with SVML: numpy's float64 tan is not within 1 ulp here")
    # tan within 1 ulp (libm; NumPy >= 2 validates its SVML float64 tan to 1 ulp); the tails add
    # the rounding of 1 / tan (max measured on AMD EPYC / glibc 2.36: 0.52 and 1.46 ulp)
    assert ulps[mid].max() <= 1.0
    assert ulps[~mid].max() <= 2.0
    # and the pinned map's frequencies are these quantiles divided by sigma
    _, ff = P.features_map("laplacian")
    assert np.array_equal(ff.frequencies_, CauchyDensity().ppf(t_halton) / 1.3)
