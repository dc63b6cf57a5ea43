"""Central finite differences: the gradient checks' plain reference (shared by the test files)."""
import numpy as np


def central(f, x, h=1e-6):
    """``df/dx`` of a scalar function ``f`` at ``x`` (any shape), one coordinate at a time:
    ``(f(x + h e) - f(x - h e)) / (2 h)``, error ``O(h^2)``."""
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = h
        g[idx] = (f(x + e) - f(x - e)) / (2 * h)
    return g
