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


# Hypothesis profiles (tests/test_properties.py): "default" for `make test`, derandomized and
# without an example database, so that every run (and CI) draws the same cases; "slow"
# (`make test-slow`: --hypothesis-profile=slow) ten times as many random cases per test.
try:
    from hypothesis import HealthCheck, settings
except ImportError:  # pragma: no cover - the test extra installs it
    pass
else:
    _QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
              HealthCheck.function_scoped_fixture]
    settings.register_profile("default", max_examples=40, deadline=None, derandomize=True,
                              database=None, suppress_health_check=_QUIET, print_blob=True)
    settings.register_profile("slow", max_examples=400, deadline=None, database=None,
                              suppress_health_check=_QUIET, print_blob=True)
    settings.load_profile("default")


@pytest.fixture
def rng():
    """A fresh, literally seeded Generator for tests that need random inputs."""
    return np.random.default_rng(20161121)
