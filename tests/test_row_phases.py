"""The overflow check of the rows (``_check_row_phases``): refuses rows whose phases
``X @ W.T`` may overflow, reads ``X`` once with no temporary as large as ``X``."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from qmc_orff import FourierFeatures
from qmc_orff._cos_sin import max_row_l1
from qmc_orff._validation import _blocked_max_row_l1, check_phases
from qmc_orff.maps._params import _check_row_phases


def _reference(X):
    """``max_i ||x_i||_1`` by numpy, from a dense float64 copy."""
    dense = X.toarray() if sp.issparse(X) else np.asarray(X)
    return float(np.max(np.sum(np.abs(dense.astype(np.float64)), axis=1)))


def _layouts(X):
    yield "C", X
    yield "F", np.asfortranarray(X)
    yield "strided", np.repeat(X, 2, axis=1)[:, ::2]
    yield "csr", sp.csr_matrix(X)
    yield "csc", sp.csc_matrix(X)
    yield "coo", sp.coo_matrix(X)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_max_row_l1_matches_numpy(dtype):
    X = np.random.default_rng(0).standard_normal((37, 11)).astype(dtype)
    X[5] *= 100.0  # the largest row
    X[X < -1.5] = 0.0
    ref = _reference(X)
    for layout, A in _layouts(X):
        got = max_row_l1(A)
        if layout == "coo":
            assert got is None  # the caller falls back to scipy's norms
        else:
            assert got == pytest.approx(ref, rel=1e-14), layout
    assert _blocked_max_row_l1(X) == pytest.approx(ref, rel=1e-14)
    # non-canonical CSR (a duplicate entry): |a| + |b|, as abs(X).sum(axis=1) gives
    dup = sp.csr_matrix((np.array([2.0, -3.0], dtype=dtype), np.array([0, 0]), np.array([0, 2])),
                        shape=(1, 4))
    assert max_row_l1(dup) == 5.0
    assert max_row_l1(np.zeros((0, 3), dtype)) == 0.0
    assert max_row_l1(sp.csc_matrix((0, 3), dtype=dtype)) == 0.0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rows_whose_phases_overflow_are_refused(dtype):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((50, 6)).astype(dtype)
    ff = FourierFeatures(n_components=16, sequence="halton").fit(X)
    big = float(np.finfo(dtype).max)
    w_max = float(np.max(np.abs(ff.frequencies_)))
    Xbad = X.copy()
    # every entry finite, only row 17's 1-norm times max|W| exceeds the float maximum
    Xbad[17] = (big / 2.5) / w_max
    for layout, A in _layouts(Xbad):
        with pytest.raises(ValueError, match="'X' is too large for these frequencies"):
            _check_row_phases(A, ff.frequencies_)
        if layout != "coo":
            with pytest.raises(ValueError, match="'X' is too large for these frequencies"):
                ff.transform(A)
    # the same row scaled just below the bound passes, its features finite
    Xok = X.copy()
    Xok[17] = 0.0
    Xok[17, 0] = (big / 4) / w_max
    for layout, A in _layouts(Xok):
        _check_row_phases(A, ff.frequencies_)
    assert np.all(np.isfinite(ff.transform(Xok)))


def test_row_sum_overflowing_float64_is_refused():
    X = np.full((3, 4), np.finfo(np.float64).max / 2)
    assert max_row_l1(X) == np.inf
    with pytest.raises(ValueError, match="'Z' is too large"):
        _check_row_phases(X, np.ones((2, 4)), "Z")
    with pytest.raises(ValueError, match="'Z' is too large"):
        check_phases(X, np.ones((2, 4)), "Z")  # the blocked numpy path


@pytest.mark.parametrize("layout", ["C", "F", "csr", "csc"])
def test_check_makes_no_temporary_as_large_as_x(layout):
    X = np.random.default_rng(2).standard_normal((4000, 200))
    A = dict(_layouts(X))[layout]
    W = np.ones((8, 200))
    _check_row_phases(A, W)  # compiled before measuring
    tracemalloc.start()
    try:
        _check_row_phases(A, W)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < X.nbytes / 50  # X is 6.4 MB; CSC keeps n float64 sums (32 kB)
    # the numpy fallback: blocks of at most 2 MiB
    tracemalloc.start()
    try:
        check_phases(X, W)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < X.nbytes / 2
