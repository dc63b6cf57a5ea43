"""
QMC point sets and their frequencies
====================================

Monte Carlo points leave gaps and clusters; Halton, Sobol' and lattice points fill the unit
square evenly. Mapped through the inverse CDF of the Gaussian kernel's spectral density
(a standard normal at unit bandwidth), they become the frequencies of a feature map.
"""
import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import norm

import qmc_orff

n = 256
sets = {
    "Monte Carlo": np.random.default_rng(0).random((n, 2)),
    "Halton (RR2)": qmc_orff.Halton(2, scramble="deterministic").random(n + 1)[1:],
    "Sobol' (scrambled)": qmc_orff.Sobol(2, scramble=True, rng=0).random(n),
    "Lattice (shifted)": qmc_orff.Lattice(2, shift=True, rng=0).random(n),
}

fig, axes = plt.subplots(2, 4, figsize=(12, 6), layout="constrained")
for (name, t), top, bottom in zip(sets.items(), axes[0], axes[1]):
    top.scatter(t[:, 0], t[:, 1], s=4)
    top.set(title=name, xlim=(0, 1), ylim=(0, 1), aspect="equal")
    w = norm.ppf(t)  # frequencies at unit bandwidth
    bottom.scatter(w[:, 0], w[:, 1], s=4, color="C1")
    bottom.set(xlim=(-3.5, 3.5), ylim=(-3.5, 3.5), aspect="equal")
axes[0, 0].set_ylabel("unit square")
axes[1, 0].set_ylabel("frequencies $w = \\Phi^{-1}(t)$")
plt.show()

# %%
# The plain Halton sequence starts at the origin, whose inverse CDF is infinite; the first
# point is skipped above, as :func:`qmc_orff.make_frequencies` does. SciPy's
# discrepancy measure confirms the visual impression:
from scipy.stats import qmc

for name, t in sets.items():
    print(f"{name:20s} centered L2 discrepancy {qmc.discrepancy(t):.2e}")
