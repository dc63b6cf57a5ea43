"""The overflow check of the phases: the maps refuse rows whose phases ``X @ W.T`` overflow, and
a non-finite ``X``, by the phases themselves as the kernel evaluates them (no pass over ``X``,
no temporary as large as ``X``); ``max_row_l1``, the bound of the refusal's message, reads
``X`` once with no temporary."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from qmc_orff import ORFF, FourierFeatures
from qmc_orff._cos_sin import cos_sin_rows, cos_sin_rows_f32, max_row_l1
from qmc_orff._validation import _blocked_max_row_l1, check_phases

from _limits import traced_peak


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
def test_kernel_counts_non_finite_arguments(dtype):
    rng = np.random.default_rng(4)
    P = (rng.standard_normal((9, 40)) * 10).astype(dtype)
    P[2, 5], P[2, 7], P[6, 0] = np.inf, -np.inf, np.nan
    P[4, 3] = 1e30  # large but finite: the slow path, not counted
    out = np.empty((9, 80), dtype)
    kernel = cos_sin_rows if dtype == np.float64 else cos_sin_rows_f32
    assert kernel(P, out, np.ones(40, dtype)) == np.sum(~np.isfinite(P)) == 3
    assert np.isnan(out[2, [5, 7, 45, 47]]).all() and np.isnan(out[6, [0, 40]]).all()
    finite = np.isfinite(P)
    assert np.isfinite(out[:, :40][finite]).all() and np.isfinite(out[:, 40:][finite]).all()
    assert kernel(P[[0, 1, 3]], out[:3], np.ones(40, dtype)) == 0


def _overflowing_row(W, dtype):
    """A row of finite entries whose phase with the frequency of largest 1-norm overflows:
    every product ``x_j w_j`` of that frequency has the same sign."""
    k = int(np.argmax(np.abs(W).sum(axis=1)))
    big = float(np.finfo(dtype).max)
    row = np.sign(W[k]) * (big / 2) / np.max(np.abs(W[k]))
    assert np.abs(W[k]).sum() / np.max(np.abs(W[k])) > 2  # so the sum of products overflows
    return row


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rows_whose_phases_overflow_are_refused(dtype):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((50, 6)).astype(dtype)
    ff = FourierFeatures(n_components=16, sequence="halton").fit(X)
    orff = ORFF(n_components=16, kernel="curl_free").fit(X)
    big = float(np.finfo(dtype).max)
    for mapping, W in ((ff, ff.frequencies_), (orff, orff.frequencies_)):
        Xbad = X.copy()
        Xbad[17] = _overflowing_row(W, dtype)  # every entry finite, one row's phase overflows
        assert np.isfinite(Xbad).all()
        for layout, A in _layouts(Xbad):
            if mapping is orff and dtype == np.float32:  # ORFF's phases are float64: finite
                assert np.all(np.isfinite(mapping.transform(A))), layout
                continue
            with pytest.raises(ValueError, match="'X' is too large for these frequencies"):
                mapping.transform(A)
        # a row of the same size whose phases stay finite passes, its features finite
        w_max = float(np.max(np.abs(W)))
        Xok = X.copy()
        Xok[17] = 0.0
        Xok[17, 0] = (big / 4) / w_max
        for layout, A in _layouts(Xok):
            assert np.all(np.isfinite(mapping.transform(A))), layout


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_x_gets_scikit_learns_message(bad):
    X = np.random.default_rng(5).standard_normal((30, 4))
    ff = FourierFeatures(n_components=8).fit(X)
    orff = ORFF(n_components=8, kernel="div_free").fit(X)
    X[11, 2] = bad
    word = "NaN" if np.isnan(bad) else "infinity"
    for mapping in (ff, orff):
        for A in (X, X.astype(np.float32), sp.csr_matrix(X)):
            with pytest.raises(ValueError, match=f"Input X contains {word}"):
                mapping.transform(A)


def test_row_sum_overflowing_float64_is_refused():
    X = np.full((3, 4), np.finfo(np.float64).max / 2)
    assert max_row_l1(X) == np.inf
    with pytest.raises(ValueError, match="'X' is too large"):
        FourierFeatures(n_components=4).fit(np.ones((3, 4))).transform(X)
    with pytest.raises(ValueError, match="'Z' is too large"):
        check_phases(X, np.ones((2, 4)), "Z")  # the blocked numpy path


@pytest.mark.parametrize("layout", ["C", "F", "csr", "csc"])
def test_max_row_l1_makes_no_temporary_as_large_as_x(layout):
    X = np.random.default_rng(2).standard_normal((4000, 200))
    A = dict(_layouts(X))[layout]
    max_row_l1(A)  # compiled before measuring
    _, peak = traced_peak(lambda: max_row_l1(A))
    assert peak < X.nbytes / 50  # X is 6.4 MB; CSC keeps n float64 sums (32 kB)
    # the numpy fallback: blocks of at most 2 MiB
    W = np.ones((8, 200))
    _, peak = traced_peak(lambda: check_phases(X, W))
    assert peak < X.nbytes / 2


@pytest.mark.parametrize("layout", ["C", "csr"])
def test_transform_checks_without_temporary_as_large_as_x(layout):
    X = np.random.default_rng(2).standard_normal((4000, 200))
    A = dict(_layouts(X))[layout]  # one block holds every row at s = 4: CSR rows not copied
    ff = FourierFeatures(n_components=4).fit(X)
    ff.transform(A)  # compiled before measuring
    out, peak = traced_peak(lambda: ff.transform(A))
    assert peak < out.nbytes + X.nbytes / 20  # X is 6.4 MB, the output 256 kB


def test_frequency_bound_without_temporary_and_refusals():
    X = np.ones((3, 4))
    W = np.random.default_rng(3).normal(size=(50, 4))
    W[7, 2] = -np.finfo(np.float64).max  # the largest |w| is negative
    with pytest.raises(ValueError, match="'X' is too large"):
        check_phases(X, W)
    W[7, 2] = np.nan
    with pytest.raises(ValueError, match="'X' is too large"):
        check_phases(X, W)
    check_phases(X, np.ones((2, 4), dtype=bool))  # boolean data arrays are accepted
    W = np.ones((20000, 50))
    _, peak = traced_peak(lambda: check_phases(X[:, :1].repeat(50, axis=1), W))
    assert peak < W.nbytes / 50
