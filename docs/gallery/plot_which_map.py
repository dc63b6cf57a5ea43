"""
Which map? Held-out Gram error on digits
========================================

A small version of ``examples/which_map.py``: the relative Frobenius error of the Gram
matrix (:func:`qmc_orff.gram_error`) on held-out rows of scikit-learn's digits, for
Monte Carlo and orthogonal random features (mean of 3 seeds), the default map
(``sequence="auto"``, deterministic), the adaptive map designed on the training rows, and
scikit-learn's Nystroem, at equal output width (``2 s`` columns for ``s`` frequencies).
"""
import matplotlib.pyplot as plt
from matplotlib.ticker import NullLocator
import numpy as np
from scipy.spatial.distance import pdist, squareform
from sklearn.datasets import load_digits
from sklearn.kernel_approximation import Nystroem
from sklearn.preprocessing import StandardScaler

import qmc_orff

X = load_digits().data
X = X[:, X.std(axis=0) > 0]
perm = np.random.default_rng(0).permutation(len(X))
train, test = X[perm[:600]], X[perm[600:1000]]
scaler = StandardScaler().fit(train)
train, test = scaler.transform(train), scaler.transform(test)
sigma = float(np.median(pdist(train))) / np.sqrt(2.0)  # median heuristic


def kernel(A):  # the exact Gaussian kernel matrix, the reference of every map
    return np.exp(-squareform(pdist(A, "sqeuclidean")) / (2 * sigma ** 2))


def error(feature_map):
    return qmc_orff.gram_error(feature_map.fit(train), test, n_samples=len(test),
                               kernel=kernel, seed=0)


widths = [64, 128, 256]
maps = {
    'MC ("mc")': lambda s, seed: qmc_orff.FourierFeatures(
        sigma=sigma, n_components=s, sequence="mc", seed=seed),
    'ORF ("orf")': lambda s, seed: qmc_orff.FourierFeatures(
        sigma=sigma, n_components=s, sequence="orf", seed=seed),
    'default ("auto")': lambda s, seed: qmc_orff.FourierFeatures(
        sigma=sigma, n_components=s),
    'adaptive ("adaptive")': lambda s, seed: qmc_orff.FourierFeatures(
        sigma=sigma, n_components=s, sequence="adaptive", seed=0,
        design_options={"maxiter": 60, "n_train": 400}),
    "Nystroem": lambda s, seed: Nystroem(gamma=1 / (2 * sigma ** 2), n_components=2 * s,
                                         random_state=seed),
}
seeds = {'MC ("mc")': 3, 'ORF ("orf")': 3, "Nystroem": 3}
results = {}
for name, make in maps.items():
    n_seeds = seeds.get(name, 1)  # the deterministic maps: one fit
    results[name] = [np.mean([error(make(w // 2, seed)) for seed in range(n_seeds)])
                     for w in widths]

fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
for (name, errs), marker in zip(results.items(), "os^Dv"):
    ax.loglog(widths, errs, marker=marker, label=name)
ax.set(xlabel="output width (columns)",
       ylabel="relative Frobenius Gram error (held out)",
       title=f"digits, d = {X.shape[1]}, 600 training / 400 test rows")
ax.xaxis.set_minor_locator(NullLocator())
ax.set_xticks(widths, [str(w) for w in widths])
ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
plt.show()

# %%
# Ratios to ORF (below 1 is better than orthogonal random features):
for name, errs in results.items():
    ratios = [e / o for e, o in zip(errs, results['ORF ("orf")'])]
    print(f"{name:24s}", "  ".join(f"{r:.2f}" for r in ratios))
