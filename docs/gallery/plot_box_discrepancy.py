"""
Box discrepancy against the number of points
============================================

The squared box discrepancy :math:`D^2` (Avron et al. 2016, Theorem 9) of Gaussian-kernel
frequencies in :math:`d = 4`, box half-width :math:`b = 2\\sigma`, for Monte Carlo points
(mean of 10 draws, beside its expectation of Corollary 14), Halton and scrambled Sobol'
points, and the global design that minimises :math:`D^2` (started from Halton).
"""
import matplotlib.pyplot as plt
from matplotlib.ticker import NullLocator
import numpy as np

import qmc_orff

d, b = 4, 2.0
objective = qmc_orff.BoxDiscrepancy(b, d=d)
density = qmc_orff.get_density("gaussian")
sizes = [16, 32, 64, 128]

rows = {"Monte Carlo (mean of 10)": [], "Halton (RR2)": [], "Sobol' (scrambled)": [],
        "global design": []}
for s in sizes:
    rng = np.random.default_rng(0)
    rows["Monte Carlo (mean of 10)"].append(
        np.mean([objective(rng.standard_normal((s, d))) for _ in range(10)]))
    t = qmc_orff.Halton(d, scramble="deterministic").random(s + 1)[1:]
    rows["Halton (RR2)"].append(objective(density.ppf(t)))
    t = qmc_orff.Sobol(d, scramble=True, rng=0).random(s)
    rows["Sobol' (scrambled)"].append(objective(density.ppf(t)))
    design = qmc_orff.global_sequence(objective, s, maxiter=100)
    rows["global design"].append(design.meta["d2"])

fig, ax = plt.subplots(figsize=(6, 4.5), layout="constrained")
for (name, values), marker in zip(rows.items(), "osD^"):
    ax.loglog(sizes, values, marker=marker, label=name)
expected = [objective.expected_mc(s) for s in sizes]
ax.loglog(sizes, expected, "k--", label="$E[D^2]$, Monte Carlo")
ax.set(xlabel="number of frequencies s", ylabel="$D^2$",
       title=f"Gaussian kernel, d = {d}, box b = {b:g} sigma")
ax.xaxis.set_minor_locator(NullLocator())
ax.set_xticks(sizes, [str(s) for s in sizes])
ax.legend()
plt.show()

# %%
# The design's gain over its Halton start:
for s, d2, h in zip(sizes, rows["global design"], rows["Halton (RR2)"]):
    print(f"s = {s:4d}: D^2 global / Halton = {d2 / h:.3f}")
