"""qmc_orff.threads: the one thread setting of the compiled kernels (issue 12, item 4)."""
import threading
import warnings

import numba
import numpy as np
import pytest
from threadpoolctl import threadpool_info

import qmc_orff
from qmc_orff import FourierFeatures, threads
from qmc_orff import _cos_sin as fk


def test_set_and_get_num_threads():
    default = numba.config.NUMBA_NUM_THREADS
    assert qmc_orff.get_num_threads() == default
    qmc_orff.set_num_threads(1)
    try:
        assert qmc_orff.get_num_threads() == 1
        assert numba.get_num_threads() == 1
        seen = []
        t = threading.Thread(target=lambda: seen.append(qmc_orff.get_num_threads()))
        t.start()
        t.join()
        assert seen == [1]  # process-wide, unlike numba's own setting
    finally:
        qmc_orff.set_num_threads(None)
    assert qmc_orff.get_num_threads() == default == numba.get_num_threads()


#: numba's pool size in this run (``NUMBA_NUM_THREADS``; 1 on a one-core runner)
AVAILABLE = numba.config.NUMBA_NUM_THREADS
needs_two_threads = pytest.mark.skipif(AVAILABLE < 2, reason="needs NUMBA_NUM_THREADS >= 2")


@pytest.mark.parametrize("n, exc, match", [(0, ValueError, "'n' must be >= 1; got 0"),
                                           (-3, ValueError, "'n' must be >= 1; got -3"),
                                           (1.5, TypeError, "'n' must be an integer"),
                                           (True, TypeError, "'n' must be an integer")])
def test_bad_thread_counts(n, exc, match):
    with pytest.raises(exc, match=match):
        qmc_orff.set_num_threads(n)
    with pytest.raises(exc, match=match):
        with qmc_orff.num_threads(n):
            pass
    with pytest.raises(exc, match=match):
        threads.set_dask_task_threads(n)


@pytest.mark.parametrize("n", [AVAILABLE + 1, 4 * AVAILABLE + 3, 10**6])
def test_too_many_threads_are_clipped_with_a_warning(n):
    """Issue 21: as threadpoolctl, more threads than the pool holds is a warning, not an error."""
    match = f"'n' = {n} is more than the {AVAILABLE} threads available"
    with pytest.warns(UserWarning, match=match) as record:
        qmc_orff.set_num_threads(n)
    try:
        assert record[0].filename == __file__  # points at the caller
        assert qmc_orff.get_num_threads() == AVAILABLE == numba.get_num_threads()
    finally:
        qmc_orff.set_num_threads(None)
    with pytest.warns(UserWarning, match=match) as record:
        with qmc_orff.num_threads(n):
            assert qmc_orff.get_num_threads() == AVAILABLE == numba.get_num_threads()
    assert record[0].filename == __file__
    with pytest.warns(UserWarning, match=match):
        threads.set_dask_task_threads(n)
    try:
        assert threads.get_dask_task_threads() == AVAILABLE
    finally:
        threads.set_dask_task_threads(1)


def test_available_thread_count_is_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        qmc_orff.set_num_threads(AVAILABLE)
        with qmc_orff.num_threads(AVAILABLE):
            pass
    qmc_orff.set_num_threads(None)


def test_num_threads_is_thread_local_and_restored():
    default = qmc_orff.get_num_threads()
    inside, other = [], []
    with qmc_orff.num_threads(1):
        inside.append(qmc_orff.get_num_threads())
        t = threading.Thread(target=lambda: other.append(qmc_orff.get_num_threads()))
        t.start()
        t.join()
    assert inside == [1] and other == [default]
    assert qmc_orff.get_num_threads() == default


@needs_two_threads
def test_thread_count_sets_the_row_block_threads_with_identical_output(monkeypatch):
    X = np.random.default_rng(0).normal(size=(4 * fk.block_rows(64) + 3, 5))
    ff = FourierFeatures(n_components=64).fit(X)
    seen = []
    kernel = fk.cos_sin_rows
    monkeypatch.setattr(fk, "cos_sin_rows",
                        lambda *a: (seen.append(threading.current_thread().name), kernel(*a))[1])
    with qmc_orff.num_threads(2):
        two = ff.transform(X)
    assert len(seen) == 5 and all(name.startswith("qmc_orff") for name in seen)
    seen.clear()
    with qmc_orff.num_threads(1):
        one = ff.transform(X)
    assert seen == [threading.current_thread().name] * 5  # no worker thread at all
    np.testing.assert_array_equal(one, two)  # bit-identical


def test_feature_blocks_run_with_one_blas_thread_and_restore_it(monkeypatch):
    before = _blas_threads()
    X = np.random.default_rng(1).normal(size=(100, 5))
    ff = FourierFeatures(n_components=32).fit(X)
    inside = []
    kernel = fk.cos_sin_rows
    monkeypatch.setattr(fk, "cos_sin_rows",
                        lambda *a: (inside.append(_blas_threads()), kernel(*a))[1])
    ff.transform(X)
    assert inside and all(k == 1 for k in inside[0])
    assert _blas_threads() == before


def _blas_threads():
    return [m["num_threads"] for m in threadpool_info() if m["user_api"] == "blas"]


def test_task_blas_limits_are_restored_after_overlapping_tasks():
    """Overlapping tasks share one limiter: the last to leave restores the original limits."""
    before = _blas_threads()
    a, b = threads.task_threads(1), threads.task_threads(1)
    a.__enter__()
    b.__enter__()
    assert all(k == 1 for k in _blas_threads())
    a.__exit__(None, None, None)  # b still running: still limited
    assert all(k == 1 for k in _blas_threads())
    b.__exit__(None, None, None)
    assert _blas_threads() == before


def test_fit_time_check_has_the_same_bits_for_any_thread_count():
    # issue 29, item 9: FourierFeatures(sequence=<array>).fit gave check_ values that differed
    # in the last bit between thread counts; the check's norms are now NumPy sums (no BLAS
    # dot, whose threaded reduction may round differently) and every product runs on one
    # BLAS thread.  Compared bit for bit for numba 1 vs 2 threads and BLAS 1 vs 2 threads.
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(29)
    X = rng.normal(size=(600, 5))
    W = rng.normal(size=(96, 5))
    seen = []
    before = numba.get_num_threads()
    try:
        for n_numba, n_blas in ((1, 1), (2, 1), (1, 2), (2, 2)):
            numba.set_num_threads(min(n_numba, numba.config.NUMBA_NUM_THREADS))
            with threadpool_limits(n_blas), warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                ff = FourierFeatures(n_components=96, sequence=W).fit(X)
                orff = qmc_orff.ORFF(n_components=32, sequence=W[:32], kernel="curl_free").fit(X)
            seen.append((ff.check_, orff.check_))
    finally:
        numba.set_num_threads(before)
    assert all(got == seen[0] for got in seen), seen
    assert seen[0][0] is not None and seen[0][1] is not None
