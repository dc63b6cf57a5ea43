"""Vector code of the cosine/sine kernels: 512-bit vectors requested where the target has
AVX-512 (the kernels' own compile options, :func:`qmc_orff._jit.njit_wide`), the float64
kernel vectorised without float -> int64 conversions, the same bits at 1 and 2 threads.

This machine class may have no AVX-512: the 512-bit build is checked by compiling (not
running) the kernels for an AVX-512 CPU in a subprocess (``NUMBA_CPU_NAME`` /
``NUMBA_CPU_FEATURES`` there only) and counting zmm registers in the assembly."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numba
import numpy as np
import pytest

import qmc_orff
from qmc_orff import _jit
from qmc_orff._cos_sin import cos_sin_features, cos_sin_rows, cos_sin_rows_f32

_ASM_COUNTS = r"""
import json, re, sys
import numba
from numba import types
import qmc_orff._cos_sin as C
from qmc_orff._jit import renamed, wide_vector_bits

plain = {
    "f64": numba.njit(renamed(C._cos_sin_rows_body, "plain_rows", _ARG=C._as_float64,
                              _SINCOS=C._sincos, _SINCOS_BIG=C._sincos_libm, _LIMIT=C._REDUCE_MAX)),
    "f32": numba.njit(renamed(C._cos_sin_rows_body, "plain_rows_f32", _ARG=C._as_is,
                              _SINCOS=C._sincosf, _SINCOS_BIG=C._sincosf_via_float64,
                              _LIMIT=C._F32_REDUCE_MAX)),
}
library = {"f64": C.cos_sin_rows, "f32": C.cos_sin_rows_f32}
out = {"bits": wide_vector_bits()}
for key, dt in (("f64", types.float64), ("f32", types.float32)):
    sig = (types.Array(dt, 2, "C"), types.Array(dt, 2, "C"), types.Array(dt, 1, "C"))
    for name, k in (("library", library[key]), ("plain", plain[key])):
        k.compile(sig)
        asm = k.inspect_asm(sig)
        out[f"{name}_{key}"] = {r: len(re.findall(r, asm)) for r in ("%zmm", "%ymm", "cvttsd2si")}
print(json.dumps(out))
"""


def _asm_counts(tmp_path, cpu_name=None, features=None):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))  # compiled afresh: asm inspectable
    if cpu_name:
        env.update(NUMBA_CPU_NAME=cpu_name, NUMBA_CPU_FEATURES=features)
    run = subprocess.run([sys.executable, "-c", _ASM_COUNTS], env=env, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_wide_vector_bits_follow_target_features(monkeypatch):
    assert _jit.wide_vector_bits({"avx2", "fma", "avx"}) is None
    assert _jit.wide_vector_bits({"avx2", "avx512f", "avx512vl"}) == 512
    assert _jit.wide_vector_bits(set()) is None
    monkeypatch.setattr(numba.config, "CPU_FEATURES", "+avx512f,-avx512vl,+avx2")
    assert _jit.target_features() == {"avx512f", "avx2"}
    assert _jit.wide_vector_bits() == 512
    monkeypatch.setattr(numba.config, "CPU_FEATURES", "+avx2,-avx512f")
    assert _jit.wide_vector_bits() is None


def test_vector_width_attribute_is_added_to_the_function():
    from llvmlite import ir

    module = ir.Module()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), []), "f")
    fn.attributes.add("nounwind")
    fn.attributes = _jit._with_vector_width(fn.attributes, 512)
    ir.IRBuilder(fn.append_basic_block()).ret_void()
    text = str(module)
    assert '() "prefer-vector-width"="512" nounwind' in text
    import llvmlite.binding as llvm

    llvm.parse_assembly(text).verify()  # LLVM reads it back


def _avx512_features():
    from numba.core.codegen import get_host_cpu_features

    on = {"avx512f", "avx512vl", "avx512bw", "avx512dq", "avx512cd", "evex512"}
    flags = [f for f in get_host_cpu_features().split(",") if f and f[1:] not in on]
    return ",".join(flags + [f"+{f}" for f in sorted(on)])


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.uname().machine != "x86_64",
                    reason="x86-64 code generation")
def test_kernels_are_built_512_bit_for_an_avx512_target(tmp_path):
    got = _asm_counts(tmp_path, "skylake-avx512", _avx512_features())
    assert got["bits"] == 512
    for key in ("f64", "f32"):
        # LLVM's tuning for the CPU alone gives mostly 256-bit vectors (none 512 bits wide
        # with llvmlite 0.45; 13 zmm in the float32 build of llvmlite 0.41, `make test-min`);
        # the kernels' attribute makes the vector loop 512 bits wide
        assert got[f"plain_{key}"]["%ymm"] > 0, got
        assert got[f"library_{key}"]["%zmm"] > 50 + 2 * got[f"plain_{key}"]["%zmm"], got
    assert got["library_f64"]["cvttsd2si"] == 0  # no scalar float -> int64 in the vector loop


@pytest.mark.skipif("avx2" not in _jit.target_features(), reason="AVX2 code generation")
def test_float64_kernel_vectorised_on_this_cpu(tmp_path):
    got = _asm_counts(tmp_path)
    if got["bits"] is None:  # no AVX-512 here: the library's build is numba's plain one
        assert got["library_f64"] == got["plain_f64"]
    assert got["library_f64"]["%ymm"] + got["library_f64"]["%zmm"] > 100
    assert got["library_f64"]["cvttsd2si"] == 0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rows_kernel_within_one_ulp_of_numpy_and_same_bits_at_two_threads(dtype):
    rng = np.random.default_rng(4)
    s, d = 301, 300  # d >= WIDE_D: the 512-row blocks
    X = rng.normal(size=(1200, d)).astype(dtype)
    W = (rng.normal(size=(s, d)) / np.sqrt(d)).astype(dtype)
    scale = rng.uniform(0.5, 1.0, s).astype(dtype)
    with qmc_orff.num_threads(1):
        one = cos_sin_features(X, W, scale)
    with qmc_orff.num_threads(2):
        two = cos_sin_features(X, W, scale)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(one, cos_sin_features(X, W, scale))  # and across runs
    # the kernel alone against numpy's cos and sin of the same arguments
    phase = np.ascontiguousarray((X[:40] @ W.T).astype(dtype))
    out = np.empty((40, 2 * s), dtype)
    (cos_sin_rows_f32 if dtype == np.float32 else cos_sin_rows)(phase, out, np.ones(s, dtype))
    p64 = phase.astype(np.float64)
    ref = np.hstack([np.cos(p64), np.sin(p64)])
    if dtype == np.float64:
        assert np.all(np.abs(out - ref) <= np.spacing(np.abs(ref)))
    else:
        assert np.max(np.abs(out - ref)) <= 2.5 * 2.0**-24
