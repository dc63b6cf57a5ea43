"""Behaviour every qmc_orff QMC engine shares (imported by the generator tests).

A test module subclasses `EngineChecks` and sets ``make(d)``, a factory that
builds the engine under test (the class is not collected by itself: its name
does not start with ``Test``).
"""
import numpy as np
import pytest
from scipy.stats import qmc


#: (skip, leap) pairs the leaped engines are checked at against SciPy's unscrambled points
SKIP_LEAP = [(0, 0), (1, 0), (0, 1), (1000, 700), (12345, 100)]


def assert_skip_leap_equal_scipy(ours, scipy_engine, n, d, skip, leap):
    """``ours(d, scramble=False, skip=, leap=)`` gives SciPy's unscrambled points at the
    indices ``skip + i (leap + 1)`` (MATLAB's Skip/Leap, the origin index 0)."""
    got = ours(d, scramble=False, skip=skip, leap=leap).random(n)
    step = leap + 1
    ref = scipy_engine(d, scramble=False).random(skip + (n - 1) * step + 1)[skip::step]
    np.testing.assert_array_equal(got, ref)


class EngineChecks:
    d = 3

    def make(self, d):  # pragma: no cover - overridden
        raise NotImplementedError

    def test_is_scipy_engine(self):
        assert isinstance(self.make(self.d), qmc.QMCEngine)

    def test_shape_dtype_range(self):
        x = self.make(self.d).random(128)
        assert x.shape == (128, self.d)
        assert x.dtype == np.float64
        assert x.flags.c_contiguous
        assert np.all(x >= 0.0) and np.all(x < 1.0)
        # a low-discrepancy set has no repeated points
        assert np.unique(x, axis=0).shape[0] == 128

    def test_zero_points(self):
        e = self.make(self.d)
        assert e.random(0).shape == (0, self.d)
        assert e.num_generated == 0

    def test_consecutive_draws_equal_one_draw(self):
        full = self.make(self.d).random(128)
        e = self.make(self.d)
        parts = np.vstack([e.random(64), e.random(32), e.random(32)])
        np.testing.assert_array_equal(parts, full)
        assert e.num_generated == 128

    def test_reset_reproduces(self):
        e = self.make(self.d)
        first = e.random(64)
        e.random(64)
        assert e.reset() is e
        assert e.num_generated == 0
        np.testing.assert_array_equal(e.random(64), first)

    def test_fast_forward_equals_skipping(self):
        full = self.make(self.d).random(128)
        e = self.make(self.d)
        assert e.fast_forward(64) is e
        assert e.num_generated == 64
        np.testing.assert_array_equal(e.random(64), full[64:])
        # after a draw, too
        e.reset()
        e.random(32)
        e.fast_forward(32)
        np.testing.assert_array_equal(e.random(64), full[64:])

    def test_integers(self):
        ref = self.make(self.d).random(64)
        got = self.make(self.d).integers([0] * self.d, u_bounds=[5] * self.d, n=64)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, np.floor(5 * ref).astype(np.int64))
        got = self.make(self.d).integers(-2, u_bounds=3, n=64, endpoint=True)
        np.testing.assert_array_equal(got, np.floor(6 * ref - 2).astype(np.int64))

    def test_scale_and_discrepancy(self):
        x = self.make(self.d).random(128)
        lo, hi = np.arange(self.d), np.arange(self.d) + 2.0
        np.testing.assert_allclose(qmc.scale(x, lo, hi), lo + 2.0 * x, rtol=0, atol=1e-15)
        # QMC beats plain Monte Carlo (literal seed) in centered discrepancy
        mc = np.random.default_rng(5).random((128, self.d))
        assert qmc.discrepancy(x) < 0.5 * qmc.discrepancy(mc)

    def test_negative_n(self):
        with pytest.raises(ValueError, match="'n' must be >= 0; got -1"):
            self.make(self.d).random(-1)
        with pytest.raises(ValueError, match="'n' must be >= 0; got -2"):
            self.make(self.d).fast_forward(-2)

    def test_non_integer_n(self):
        with pytest.raises(TypeError, match="'n' must be an integer"):
            self.make(self.d).random(2.5)
