"""Shared pytest configuration."""
import os

# scikit-learn's array API dispatch (tests/test_array_api.py, the array API checks of
# check_estimator) needs SciPy's array API support, which SciPy reads once, at import: set it
# before anything imports SciPy.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import signal  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

# A suite started in the background by a shell without job control (`make test &` in a
# script) inherits SIGINT ignored, and Python then keeps ignoring it, as do the subprocesses:
# the Ctrl-C tests (raise_signal, os.kill) would see no KeyboardInterrupt.  Python's own handler
# here; a child process resets a handled signal to its default at exec.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

#: In CI (``CI=true``) a test skipped because an import failed is a failure: the test extra
#: installs everything the tests compare against, so such a skip means a broken install.
_IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")
_MISSING = ("could not import", "No module named", "ImportError", "ModuleNotFoundError")


def _missing_dependency(report):
    if not report.skipped or not isinstance(report.longrepr, tuple):
        return None
    reason = str(report.longrepr[2])
    return reason if any(m in reason for m in _MISSING) else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    reason = _missing_dependency(report) if _IN_CI else None
    if reason is not None:
        report.outcome = "failed"
        report.longrepr = f"skipped for a missing dependency, which is a failure in CI: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    reason = _missing_dependency(report) if _IN_CI else None
    if reason is not None:
        report.outcome = "failed"
        report.longrepr = f"skipped for a missing dependency, which is a failure in CI: {reason}"


@pytest.fixture
def rng():
    """A fresh, literally seeded Generator for tests that need random inputs."""
    return np.random.default_rng(20161121)
