"""One thread setting for the library's compiled (numba) kernels.

qmc_orff's parallel kernels (feature evaluation, discrepancy, generators) run
on numba's thread pool, whose size defaults to ``NUMBA_NUM_THREADS`` (the
number of cores unless that environment variable says otherwise).  Under a
parallel scheduler -- Dask's threads, a process pool, a ``distributed``
cluster -- those threads compete with the scheduler's own.  Three controls:

- :func:`set_num_threads` sets the process-wide limit (``None`` restores
  ``NUMBA_NUM_THREADS``); :func:`get_num_threads` reads the limit in force
  for the calling thread.
- :func:`num_threads` is a context manager limiting the calling thread only
  (numba's thread count is thread-local).
- :func:`set_dask_task_threads` sets the threads each Dask task of the
  library uses (default ``1``: one thread per task, the scheduler provides the
  parallelism).  Inside a task the BLAS thread pools (``X W^T``, ``F^T F``)
  are limited to the same count through :mod:`threadpoolctl` while any such
  task runs.

The feature maps (:func:`qmc_orff._cos_sin.cos_sin_features`) share
their row blocks among that many Python threads, each running single-threaded
BLAS and a serial numba kernel: multi-threaded BLAS next to a numba thread pool
oversubscribes the cores with spinning threads (on two cores each hand-over
cost a scheduler time slice, about 4 ms).  BLAS is limited to one thread while
a map is computed (process-wide: threadpoolctl's limits are not per thread) and
restored after.  The adaptive designs (:func:`qmc_orff.adaptive_sequence`,
:func:`qmc_orff.adaptive_operator_sequence`) run all their BLAS on one thread in the
same way: their bits then do not depend on the BLAS thread count, and on two
cores they ran 2.3x faster (numpy's and scipy's OpenBLAS each start their own threads).
Other BLAS calls are not touched: use :func:`threadpoolctl.threadpool_limits`.

Examples
--------
>>> import qmc_orff
>>> qmc_orff.set_num_threads(1)
>>> qmc_orff.get_num_threads()
1
>>> qmc_orff.set_num_threads(None)
"""
from __future__ import annotations

import contextlib
import os
import threading
import warnings

import numba

from ._validation import check_int

__all__ = ["set_num_threads", "get_num_threads", "num_threads", "set_dask_task_threads",
           "get_dask_task_threads"]

_process_limit = None  # None: NUMBA_NUM_THREADS
_dask_task_threads = 1
_local = threading.local()


def _check(n, name, stacklevel=3):
    """``n`` as an int >= 1, clipped to ``NUMBA_NUM_THREADS`` with a `UserWarning` when above it.

    As :mod:`threadpoolctl` does: a request for more threads than the pool holds is not an
    error (code written for a bigger machine, e.g. the README's Dask block, keeps working),
    but it is said once per call.  Wrong types (`TypeError`) and ``n < 1`` (`ValueError`)
    still raise.
    """
    n = check_int(n, name, minimum=1)
    available = numba.config.NUMBA_NUM_THREADS
    if n > available:
        warnings.warn(f"'{name}' = {n} is more than the {available} threads available "
                      f"(NUMBA_NUM_THREADS); using {available}.", UserWarning, stacklevel=stacklevel)
        n = available
    return n


def set_num_threads(n):
    r"""Limit the library's compiled kernels to ``n`` threads, process-wide.

    Parameters
    ----------
    n : int or None
        :math:`n \ge 1`; ``None`` restores the default (``NUMBA_NUM_THREADS``, numba's
        pool size).  A larger ``n`` is clipped to ``NUMBA_NUM_THREADS`` with a
        `UserWarning` (as :mod:`threadpoolctl` does), so ``set_num_threads(4)``
        also runs on a machine or a container with fewer threads.

    Raises
    ------
    TypeError
        ``n`` is not an integer (or None).
    ValueError
        :math:`n < 1`.

    Warns
    -----
    UserWarning
        ``n > NUMBA_NUM_THREADS``: the limit set is ``NUMBA_NUM_THREADS``.

    See Also
    --------
    get_num_threads : the limit in force in the calling thread.
    num_threads : a limit for one ``with`` block and thread.

    Notes
    -----
    The limit is applied by the library's kernels in whatever thread they run
    (numba's own :func:`numba.set_num_threads` is thread-local; this setting is
    not).  It is also applied to the calling thread through
    :func:`numba.set_num_threads`, for the kernels that read numba's setting
    directly.  A :func:`num_threads` block overrides it in its thread.

    Examples
    --------
    >>> from qmc_orff import get_num_threads, set_num_threads
    >>> set_num_threads(1)
    >>> get_num_threads()
    1
    >>> set_num_threads(None)       # back to NUMBA_NUM_THREADS
    """
    global _process_limit
    value = None if n is None else _check(n, "n")
    _process_limit = value
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS if value is None else value)


def get_num_threads():
    """Threads the library's kernels use in the calling thread.

    Returns
    -------
    int
        The innermost :func:`num_threads` limit of this thread, else the
        :func:`set_num_threads` limit, else ``NUMBA_NUM_THREADS``.

    See Also
    --------
    set_num_threads, num_threads : set the limit (process-wide, or for a block).

    Examples
    --------
    >>> from qmc_orff import get_num_threads, num_threads
    >>> get_num_threads() >= 1
    True
    >>> with num_threads(1):
    ...     get_num_threads()
    1
    """
    local = getattr(_local, "limit", None)
    if local is not None:
        return local
    if _process_limit is not None:
        return _process_limit
    return numba.config.NUMBA_NUM_THREADS


@contextlib.contextmanager
def num_threads(n):
    r"""Limit the library's kernels to ``n`` threads in the calling thread, for a ``with`` block.

    Parameters
    ----------
    n : int
        :math:`n \ge 1`; clipped to ``NUMBA_NUM_THREADS`` with a `UserWarning` when
        larger (as in :func:`set_num_threads`).

    See Also
    --------
    set_num_threads : the process-wide limit.
    get_num_threads : the limit in force.

    Examples
    --------
    Feature maps computed inside the block use one thread; the limit before the
    block is restored after it:

    >>> import numpy as np
    >>> from qmc_orff import FourierFeatures, get_num_threads, num_threads
    >>> X = np.random.default_rng(0).normal(size=(100, 3))
    >>> ff = FourierFeatures(sigma=2.0, n_components=64, sequence="orf", seed=0)
    >>> before = get_num_threads()
    >>> with num_threads(1):
    ...     Z = ff.fit_transform(X)
    >>> Z.shape, get_num_threads() == before
    ((100, 128), True)
    """
    n = _check(n, "n", stacklevel=4)  # this generator, contextlib, the caller
    previous = getattr(_local, "limit", None)
    previous_numba = numba.get_num_threads()
    _local.limit = n
    numba.set_num_threads(n)
    try:
        yield
    finally:
        _local.limit = previous
        numba.set_num_threads(previous_numba)


def set_dask_task_threads(n):
    """Threads each Dask task of the library uses (default 1).

    Parameters
    ----------
    n : int
        ``n >= 1``, clipped to ``NUMBA_NUM_THREADS`` with a `UserWarning` when
        larger (as in :func:`set_num_threads`).  Read when a Dask graph is built
        (``transform`` or ``fit`` on a Dask array) and carried in the graph,
        so it also holds on the workers of a ``distributed`` cluster.
    """
    global _dask_task_threads
    _dask_task_threads = _check(n, "n")


def get_dask_task_threads():
    """The per-task thread count of the library's Dask graphs (:func:`set_dask_task_threads`)."""
    return _dask_task_threads


# BLAS limits: threadpoolctl's limits are process-wide, so concurrent users
# (Dask tasks, the feature kernels in several threads) share one limiter, entered
# by the first and restored by the last (a plain ``with threadpool_limits`` per
# user would let the first to finish restore the limits under the ones still
# running, and the last to finish leave them at its value for good).  One
# controller per process: building one scans the loaded libraries (about 1 ms);
# entering a limit on a built one costs about 15 us.
_blas_lock = threading.Lock()
_blas_users = 0
_blas_limiter = None
_controller = None
_controller_pid = None


def _blas_controller():
    global _controller, _controller_pid
    if _controller is None or _controller_pid != os.getpid():
        from threadpoolctl import ThreadpoolController
        _controller = ThreadpoolController()
        _controller_pid = os.getpid()
    return _controller


@contextlib.contextmanager
def _blas_limited(n):
    """BLAS thread pools limited to ``n`` threads while any ``_blas_limited`` block runs.

    Overlapping blocks share the first block's limit; the last to leave restores the
    limits found by the first.
    """
    global _blas_users, _blas_limiter
    with _blas_lock:
        if _blas_users == 0:
            _blas_limiter = _blas_controller().limit(limits=n, user_api="blas")
        _blas_users += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users -= 1
            if _blas_users == 0:
                _blas_limiter.restore_original_limits()
                _blas_limiter = None


# Row-block workers of the feature kernels: plain Python threads (idle ones sleep on
# a queue), recreated after a fork (a pool's threads do not survive one).
_pool = None
_pool_pid = None
_pool_lock = threading.Lock()


def _row_workers():
    """A process-wide thread pool of ``NUMBA_NUM_THREADS`` workers (created on first use)."""
    global _pool, _pool_pid
    with _pool_lock:
        if _pool is None or _pool_pid != os.getpid():
            from concurrent.futures import ThreadPoolExecutor
            _pool = ThreadPoolExecutor(max_workers=numba.config.NUMBA_NUM_THREADS,
                                       thread_name_prefix="qmc_orff")
            _pool_pid = os.getpid()
        return _pool


@contextlib.contextmanager
def task_threads(n):
    """Inside one Dask task: ``n`` numba threads in this thread, BLAS limited to ``n``."""
    with num_threads(n), _blas_limited(n):
        yield
