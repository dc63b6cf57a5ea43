"""Shared pytest configuration."""
import numpy as np
import pytest


@pytest.fixture
def rng():
    """A fresh, literally seeded Generator for tests that need random inputs."""
    return np.random.default_rng(20161121)
