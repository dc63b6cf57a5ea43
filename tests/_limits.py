"""A cap on this process's address space for tests that feed hostile sizes to the library.

A regression in such a test (a loader that allocates what a hostile file claims) must fail
with MemoryError, not take the shared machine's memory.  And :func:`traced_peak`, the peak
of the memory a call allocates, for the tests that bound it.
"""
import contextlib
import os
import tracemalloc

try:
    import resource
except ImportError:  # pragma: no cover - not POSIX
    resource = None


@contextlib.contextmanager
def memory_cap(extra=2 * 2 ** 30):
    """Limit further allocations to about ``extra`` bytes of address space (Linux only)."""
    if resource is None or not os.path.exists("/proc/self/statm"):
        yield
        return
    with open("/proc/self/statm") as fh:
        vm = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = vm + extra
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def traced_peak(fn):
    """``(fn(), peak bytes traced by tracemalloc during the call)``; exceptions propagate."""
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
