"""Numba kernels of the feature maps (no input checks: the callers validate).

The sine and cosine of one argument are computed together, branch-free, so
that the compiler vectorises the loop: fdlibm's argument reduction by
``pi / 2`` (three-part Cody-Waite constants, exact for ``|x| < 2^19 pi/2``)
and fdlibm's kernel polynomials ``__kernel_sin``/``__kernel_cos`` on
``[-pi/4, pi/4]`` with the reduction's tail -- the algorithm of the C library's
``sin``/``cos``, so the results agree with them to about one ulp.  Larger
arguments fall back to ``math.sin``/``math.cos``.  The quadrant is taken from the
rounded multiple of ``pi / 2`` by exact float operations (:func:`_quadrant_f64`): a
float -> int64 conversion has no packed AVX2 instruction and cost four scalar
conversions per vector.  The row kernels request 512-bit vectors where the CPU has
AVX-512 (:func:`qmc_orff._jit.njit_wide`).  None of this changes a bit of the results.

Each kernel has a plain numpy reference in ``tests/test_features.py``.
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

from ._jit import njit_wide, renamed
from .threads import _blas_limited, _row_workers, get_num_threads

__all__ = ["cos_sin_rows", "cos_sin_rows_f32", "cos_sin_inplace", "cos_sin_inplace_f32",
           "cos_sin_features", "block_rows",
           "max_row_l1"]

# fdlibm e_rem_pio2.c: 2/pi and pi/2 split into 33-bit pieces plus tails.
_INVPIO2 = 6.36619772367581382433e-01
_PIO2_1 = 1.57079632673412561417e+00
_PIO2_2 = 6.07710050630396597660e-11
_PIO2_2T = 2.02226624879595063154e-21
_PIO2_3 = 2.02226624871116645580e-21
_PIO2_3T = 8.47842766036889956997e-32
_TOINT = 6755399441055744.0  # 1.5 * 2^52: x + TOINT - TOINT rounds to nearest
#: Arguments with ``|x| > _REDUCE_MAX`` use math.sin/math.cos (2^19 pi / 2).
_REDUCE_MAX = 823549.6
# fdlibm k_sin.c / k_cos.c
_S1 = -1.66666666666666324348e-01
_S2 = 8.33333333332248946124e-03
_S3 = -1.98412698298579493134e-04
_S4 = 2.75573137070700676789e-06
_S5 = -2.50507602534068634195e-08
_S6 = 1.58969099521155010221e-10
_C1 = 4.16666666666666019037e-02
_C2 = -1.38888888888741095749e-03
_C3 = 2.48015872894767294178e-05
_C4 = -2.75573143513906633035e-07
_C5 = 2.08757232129817482790e-09
_C6 = -1.13596475577881948265e-11


@nb.njit(cache=True, fastmath=False)  # LLVM inlines it
def _quadrant(n, ks, kc):  # pragma: no cover - compiled
    """``(sin x, cos x)`` from the kernels ``ks``, ``kc`` of the reduced argument and the
    quadrant ``n`` of ``x`` (fdlibm ``sin``/``cos``, Cephes ``sinf``/``cosf``)."""
    odd = (n & 1) != 0
    sn = kc if odd else ks
    cs = ks if odd else kc
    if (n & 2) != 0:
        sn = -sn
    if ((n + 1) & 2) != 0:
        cs = -cs
    return sn, cs


@nb.njit(cache=True, fastmath=False)  # LLVM inlines it
def _quadrant_f64(fn, ks, kc):  # pragma: no cover - compiled
    """:func:`_quadrant` with the quadrant as the float ``fn`` (an integer, ``|fn| <= 2^19``):
    ``q = fn mod 4`` by exact float operations, so that no float -> int64 conversion (which
    AVX2 lacks for packed doubles: four scalar conversions per vector) is needed."""
    q = fn - 4.0 * np.floor(fn * 0.25)  # 0, 1, 2 or 3, exactly
    odd = (q == 1.0) | (q == 3.0)
    sn = kc if odd else ks
    cs = ks if odd else kc
    sn = -sn if q >= 2.0 else sn
    cs = -cs if (q == 1.0) | (q == 2.0) else cs
    return sn, cs


@nb.njit(cache=True, fastmath=False)  # LLVM inlines it; inline="always" only slowed the compile
def _sincos(x):  # pragma: no cover - compiled
    """``(sin x, cos x)`` for ``|x| <= _REDUCE_MAX``, branch-free."""
    fn = (x * _INVPIO2 + _TOINT) - _TOINT
    # three rounds of Cody-Waite reduction (fdlibm __ieee754_rem_pio2, medium case)
    r = x - fn * _PIO2_1
    t = r
    w = fn * _PIO2_2
    r = t - w
    w = fn * _PIO2_2T - ((t - r) - w)
    # round 3 restarts from the round-2 head r, as fdlibm does
    t = r
    w3 = fn * _PIO2_3
    r = t - w3
    w = fn * _PIO2_3T - ((t - r) - w3)
    y0 = r - w
    y1 = (r - y0) - w
    # fdlibm __kernel_sin(y0, y1, 1) and __kernel_cos(y0, y1)
    z = y0 * y0
    v = z * y0
    ws = z * z
    rs = _S2 + z * (_S3 + z * _S4) + z * ws * (_S5 + z * _S6)
    ks = y0 - ((z * (0.5 * y1 - v * rs) - y1) - v * _S1)
    rc = z * (_C1 + z * (_C2 + z * _C3)) + ws * ws * (_C4 + z * (_C5 + z * _C6))
    hz = 0.5 * z
    wc = 1.0 - hz
    kc = wc + (((1.0 - wc) - hz) + (z * rc - y0 * y1))
    return _quadrant_f64(fn, ks, kc)


@nb.njit(cache=True, fastmath=False)
def _sincos_libm(x):  # pragma: no cover - compiled
    """``(sin x, cos x)`` by the C library (arguments beyond :data:`_REDUCE_MAX`)."""
    return math.sin(x), math.cos(x)


@nb.njit(cache=True, fastmath=False)
def _as_float64(x):  # pragma: no cover - compiled
    return np.float64(x)


# set per build by renamed(...) below
_ARG = _SINCOS = _SINCOS_BIG = _LIMIT = None


def _cos_sin_rows_body(phase, out, scale):  # pragma: no cover - compiled
    """One body, two builds (:func:`qmc_orff._jit.renamed`): ``_ARG`` converts an argument,
    ``_SINCOS`` evaluates it branch-free, ``_SINCOS_BIG`` beyond ``_LIMIT`` (and for NaN).
    Returns the number of arguments that are not finite (inf or NaN: their outputs are NaN),
    counted in the slow rows only, so the common case pays nothing for it."""
    n, s = phase.shape
    n_bad = 0
    for i in range(n):
        arg_part = phase[i]
        cos_part = out[i, :s]
        sin_part = out[i, s:]
        n_big = 0
        for j in range(s):
            n_big += not abs(_ARG(arg_part[j])) <= _LIMIT  # NaN too
        if n_big == 0:  # the common case: a branch-free, vectorised loop
            for j in range(s):
                sn, cs = _SINCOS(_ARG(arg_part[j]))
                c = scale[j]
                cos_part[j] = c * cs
                sin_part[j] = c * sn
        else:  # a row with a large or non-finite argument: a slower evaluation for those
            for j in range(s):
                a = _ARG(arg_part[j])
                if not abs(a) <= _LIMIT:
                    n_bad += not abs(a) < math.inf
                    sn, cs = _SINCOS_BIG(a)
                else:
                    sn, cs = _SINCOS(a)
                c = scale[j]
                cos_part[j] = c * cs
                sin_part[j] = c * sn
    return n_bad


# fastmath=False: the reduction relies on exact IEEE rounding (Cody-Waite and
# the 1.5 * 2^52 rounding trick are destroyed by reassociation).  Compiled lazily,
# once per dtype (float32, float64), on first use.  Serial builds: the threads are
# Python threads over row blocks (:func:`cos_sin_features`); ``nogil`` lets them run
# side by side.

#: ``out[i, j] = scale[j] cos(phase[i, j])``, ``out[i, s + j] = scale[j] sin(phase[i, j])``
#: for ``phase`` (n, s) and ``out`` (n, 2 s), C-contiguous, one floating dtype, not
#: overlapping (float32 arguments are evaluated in float64 and rounded once).  Rows with
#: an argument ``|a| > _REDUCE_MAX`` (or not finite) take a scalar loop.  Returns the number
#: of arguments that are not finite.
cos_sin_rows = njit_wide(cache=True, nogil=True)(
    renamed(_cos_sin_rows_body, "cos_sin_rows", _ARG=_as_float64, _SINCOS=_sincos,
            _SINCOS_BIG=_sincos_libm, _LIMIT=_REDUCE_MAX))


def _inplace(kernel):
    def inplace(out, scale):
        s = out.shape[1] // 2
        return kernel(np.ascontiguousarray(out[:, s:]), out, scale)
    inplace.__doc__ = f"``{kernel.__name__}`` with the arguments in the second half of ``out``."
    return inplace


#: In place: ``out`` (n, 2 s) holds the arguments ``a_ij`` in its second half;
#: afterwards ``out[i, j] = scale[j] cos(a_ij)`` and ``out[i, s + j] = scale[j] sin(a_ij)``
#: (:data:`cos_sin_rows` on a copy of the arguments).
cos_sin_inplace = _inplace(cos_sin_rows)


# ---------------------------------------------------------------- float32 path
# Cephes sinf/cosf: reduction by pi/2 in three float32 pieces (each product fn * piece
# exact for |fn| < 2^12, i.e. |x| <= _F32_REDUCE_MAX) and the minimax polynomials on
# [-pi/4, pi/4]; every operation in float32, so the loop runs at float32 SIMD width.
# Accuracy (tests/test_features.py::test_sincos_f32_accuracy): |error| <= 2.5 * 2^-24
# (about 1.5e-7) against sin/cos in float64 of the same float32 argument, |x| <= 4096.
_F32 = np.float32
_F_INVPIO2 = _F32(0.636619772367581343)
_F_TOINT = _F32(12582912.0)  # 1.5 * 2^23
_F_DP1 = _F32(1.5703125)
_F_DP2 = _F32(4.837512969970703125e-4)
_F_DP3 = _F32(7.54978995489188216e-8)
_F_SP0 = _F32(-1.9515295891e-4)
_F_SP1 = _F32(8.3321608736e-3)
_F_SP2 = _F32(-1.6666654611e-1)
_F_CP0 = _F32(2.443315711809948e-5)
_F_CP1 = _F32(-1.388731625493765e-3)
_F_CP2 = _F32(4.166664568298827e-2)
_F_HALF = _F32(0.5)
_F_ONE = _F32(1.0)
#: float32 arguments with ``|x| > _F32_REDUCE_MAX`` take the float64 path (rounded once).
_F32_REDUCE_MAX = 4096.0


@nb.njit(cache=True, fastmath=False)  # LLVM inlines it (see _sincos)
def _sincosf(x):  # pragma: no cover - compiled
    """``(sin x, cos x)`` in float32 for float32 ``|x| <= _F32_REDUCE_MAX``, branch-free."""
    fn = (x * _F_INVPIO2 + _F_TOINT) - _F_TOINT
    n = np.int32(fn)
    r = ((x - fn * _F_DP1) - fn * _F_DP2) - fn * _F_DP3
    z = r * r
    ks = ((_F_SP0 * z + _F_SP1) * z + _F_SP2) * z * r + r
    kc = ((_F_CP0 * z + _F_CP1) * z + _F_CP2) * z * z - _F_HALF * z + _F_ONE
    return _quadrant(n, ks, kc)


@nb.njit(cache=True, fastmath=False)
def _sincosf_via_float64(a):  # pragma: no cover - compiled
    """float32 ``(sin a, cos a)`` evaluated in float64 and rounded once (``|a| > _F32_REDUCE_MAX``)."""
    a64 = np.float64(a)
    if abs(a64) > _REDUCE_MAX:
        sn64, cs64 = math.sin(a64), math.cos(a64)
    else:
        sn64, cs64 = _sincos(a64)
    return np.float32(sn64), np.float32(cs64)


@nb.njit(cache=True, fastmath=False)
def _as_is(x):  # pragma: no cover - compiled
    return x


#: float32 only: as :data:`cos_sin_rows`, with argument and sine/cosine in float32
#: (:func:`_sincosf`); the map :func:`cos_sin_features` uses for float32 inputs.
cos_sin_rows_f32 = njit_wide(cache=True, nogil=True)(
    renamed(_cos_sin_rows_body, "cos_sin_rows_f32", _ARG=_as_is, _SINCOS=_sincosf,
            _SINCOS_BIG=_sincosf_via_float64, _LIMIT=_F32_REDUCE_MAX))
cos_sin_inplace_f32 = _inplace(cos_sin_rows_f32)


# ------------------------------------------------------- the row check's norms
# The message of a refused X (cos_sin_features(..., name=...)) and check_phases need the largest
# row 1-norm of X: one pass over X's memory, accumulated in float64, no temporary.  Only
# "reassoc" of the fast-math flags, so that the sums vectorise: an overflowing sum stays
# inf (no "ninf"), the result is a threshold only (summation order is immaterial to it).
@nb.njit(cache=True, nogil=True, fastmath={"reassoc"})
def _max_row_l1_rows(X):  # pragma: no cover - compiled
    best = 0.0
    for i in range(X.shape[0]):
        acc = 0.0
        for j in range(X.shape[1]):
            acc += abs(np.float64(X[i, j]))
        if not acc <= best:
            best = acc
    return best


@nb.njit(cache=True, nogil=True, fastmath={"reassoc"})
def _max_row_l1_columns(XT):  # pragma: no cover - compiled
    """The same for a column-major ``X`` given as its (row-major) transpose ``XT``."""
    acc = np.zeros(XT.shape[1])
    for j in range(XT.shape[0]):
        for i in range(XT.shape[1]):
            acc[i] += abs(np.float64(XT[j, i]))
    return max(acc.max(), 0.0) if acc.size else 0.0


@nb.njit(cache=True, nogil=True, fastmath={"reassoc"})
def _max_row_l1_csr(data, indptr):  # pragma: no cover - compiled
    best = 0.0
    for i in range(indptr.size - 1):
        acc = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            acc += abs(np.float64(data[k]))
        if not acc <= best:
            best = acc
    return best


@nb.njit(cache=True, nogil=True, fastmath={"reassoc"})
def _max_row_l1_csc(data, indices, n):  # pragma: no cover - compiled
    acc = np.zeros(n)
    for k in range(data.size):
        acc[indices[k]] += abs(np.float64(data[k]))
    return max(acc.max(), 0.0) if n else 0.0


def max_row_l1(X):
    """``max_i sum_j |X_ij|`` in float64 (inf when a sum overflows), or None.

    Dense float32/float64 ``X`` (row- or column-major) and scipy.sparse CSR/CSC matrices
    are read once, with no temporary beyond ``n`` float64 sums (column-major and CSC);
    None for any other input (the caller computes the norms itself).
    """
    import scipy.sparse as sp

    if sp.issparse(X):
        if X.dtype not in (np.float32, np.float64) or X.format not in ("csr", "csc"):
            return None
        if X.format == "csr":
            return float(_max_row_l1_csr(X.data, X.indptr))
        return float(_max_row_l1_csc(X.data, X.indices, X.shape[0]))
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype not in (np.float32, np.float64):
        return None
    if X.flags.c_contiguous:
        return float(_max_row_l1_rows(X))
    if X.flags.f_contiguous:
        return float(_max_row_l1_columns(X.T))
    return float(_max_row_l1_rows(X))  # strided: still one pass, no copy


#: Rows per block of :func:`cos_sin_features`: about ``2^18`` outputs (2 MiB in
#: float64), at least ``MIN_BLOCK_ROWS`` rows -- ``WIDE_MIN_BLOCK_ROWS`` from ``d >=
#: WIDE_D`` on -- since narrower BLAS products lose speed.  Measured (CPU time of one thread,
#: loaded 2-core AMD EPYC, OpenBLAS; `python benchmarks/bench_features.py` prints the map
#: against the GEMM): float64 s = 2048, d = 3000: 1.13x the GEMM alone with 256-row blocks,
#: 1.02x with 512; d = 655: 1.23x and 1.18x; 64-row blocks 1.2-1.4x at d >= 655; at d <= 64
#: the cosines and sines dominate and the block size matters little (float32 (100000, 64)
#: -> 4096 columns took 1.3x as long with 64-row blocks).  A function of the shapes only,
#: so the blocks -- and the bits of every row -- do not depend on the number of threads.
BLOCK_OUTPUTS = 1 << 18
MIN_BLOCK_ROWS = 256
WIDE_MIN_BLOCK_ROWS = 512
WIDE_D = 256


def block_rows(s, d=1):
    """Rows per block of a map with ``s`` frequencies (``2 s`` columns) in dimension ``d``."""
    least = WIDE_MIN_BLOCK_ROWS if d >= WIDE_D else MIN_BLOCK_ROWS
    return max(least, BLOCK_OUTPUTS // max(1, 2 * s))


def cos_sin_features(X, W, scale, name=None):
    """``[scale * cos(X W^T), scale * sin(X W^T)]`` of shape ``(n, 2 s)``.

    ``name``: check the phases, not a bound on them: a phase that is not finite (``X`` too
    large for ``W``, or ``X`` not finite) raises `ValueError` naming ``name`` (scikit-learn's
    message for a non-finite ``X``); the kernel counts such phases where it already branches,
    so the check costs no pass over ``X``.  ``None``: no check (NaN features come back).

    ``X`` (n, d) dense or scipy.sparse, ``W`` (s, d), ``scale`` (s,), one floating
    dtype, C-contiguous.  Per block of :func:`block_rows` rows, one BLAS product writes
    the arguments ``X W^T`` into the thread's own contiguous buffer (``rows x s``, in cache;
    a sparse-dense product for sparse ``X``) and the serial kernel writes their scaled
    cosines and sines into the output block.  Peak memory: the output and one buffer per
    thread.  (The product written straight into the output's second half, a strided view,
    ran 1.2-1.4x slower in float64 with OpenBLAS on AMD EPYC.)

    Threads: the blocks are shared among ``get_num_threads()`` Python threads, each
    running single-threaded BLAS and the serial numba kernel (both release the GIL).
    Multi-threaded BLAS next to numba's OpenMP pool oversubscribes the cores with
    spinning threads: on two cores each switch between them cost a scheduler time
    slice (about 4 ms; 25x the work of a 256 x 256 map).  Every row is computed by the
    same operations whatever the thread count (the blocks depend on the shapes only).
    """
    n, d = X.shape
    s = W.shape[0]
    out = np.empty((n, 2 * s), dtype=X.dtype)
    if n == 0 or s == 0:
        return out
    # a private C-contiguous copy in the output's dtype (one compiled specialisation
    # per dtype, whatever the caller holds: read-only memory maps, broadcast views)
    scale = np.array(scale, dtype=out.dtype, order="C", copy=True)
    kernel = cos_sin_rows_f32 if out.dtype == np.float32 else cos_sin_rows
    dense = isinstance(X, np.ndarray)
    WT = W.T
    rows = min(n, block_rows(s, d))
    starts = range(0, n, rows)

    def run(first, step):
        buffer = np.empty((rows, s), dtype=out.dtype) if dense else None
        n_bad = 0
        with np.errstate(over="ignore", invalid="ignore"):  # per thread; counted by the kernel
            for a in starts[first::step]:
                b = min(a + rows, n)
                if dense:
                    phase = buffer[:b - a]
                    np.matmul(X[a:b], WT, out=phase)
                else:  # scipy.sparse: the product is a fresh (b - a, s) array
                    phase = np.ascontiguousarray(_sparse_rows(X, a, b) @ WT, dtype=out.dtype)
                n_bad += kernel(phase, out[a:b], scale)
        return n_bad

    n_threads = min(get_num_threads(), len(starts))
    with _blas_limited(1):
        if n_threads == 1:
            n_bad = run(0, 1)
        else:
            jobs = [_row_workers().submit(run, k, n_threads) for k in range(n_threads)]
            n_bad = sum(job.result() for job in jobs)
    if n_bad and name is not None:
        _refuse_phases(X, W, name)
    return out


def _sparse_rows(X, a, b):
    """Rows ``a:b`` of the scipy.sparse ``X``: for CSR a matrix over views of its entries and
    column indices (slicing, ``X[a:b]``, copies them: the whole of ``X`` where one block holds
    every row, as at small ``s``); other formats are sliced."""
    import scipy.sparse as sp

    if X.format != "csr":
        return X[a:b]
    lo, hi = X.indptr[a], X.indptr[b]
    return sp.csr_matrix((X.data[lo:hi], X.indices[lo:hi], X.indptr[a:b + 1] - lo),
                         shape=(b - a, X.shape[1]), copy=False)


def _refuse_phases(X, W, name):
    """The `ValueError` for phases ``X W^T`` that are not finite: scikit-learn's message where
    ``X`` itself is not finite, else the overflow message of
    :func:`qmc_orff._validation.check_phases`."""
    from sklearn.utils.validation import _assert_all_finite

    from ._validation import check_phases

    with np.errstate(over="ignore", invalid="ignore"):  # its fast sum may overflow: inf - inf
        _assert_all_finite(X.data if hasattr(X, "tocsr") else X, input_name=name)
    check_phases(X, W, name, max_row_l1=max_row_l1(X))  # its message, with the bound
    raise ValueError(f"'{name}' is too large for these frequencies: the phases X @ W.T overflow "
                     f"{X.dtype}; rescale '{name}'.")  # pragma: no cover - the bound is met
