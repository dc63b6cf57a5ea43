"""
The four box designs side by side
=================================

Thirty-two Gaussian-kernel frequencies in two dimensions, box half-width
:math:`b = 2\\sigma`, from each design of ``qmc_orff``: the global design (all points
optimised at once), the greedy sequence (Avron et al. 2016, eq. 15: every prefix is a
design), Halton points with the optimal weights of eq. 17 (marker area proportional to the
weight) and the component-by-component lattice. Each title gives :math:`D^2` relative to
the Halton points the first three start from.
"""
import matplotlib.pyplot as plt
import numpy as np

import qmc_orff

s, d, b = 32, 2, 2.0
objective = qmc_orff.BoxDiscrepancy(b, d=d)
designs = {
    "global": qmc_orff.global_sequence(objective, s, maxiter=200),
    "greedy": qmc_orff.greedy_sequence(objective, s),
    "weighted": qmc_orff.weighted_sequence(objective, s),
    "lattice": qmc_orff.lattice_sequence(objective, s),
}
halton = designs["global"].meta["halton_d2"]

fig, axes = plt.subplots(1, 4, figsize=(13, 3.6), layout="constrained")
for ax, (name, seq) in zip(axes, designs.items()):
    weights = seq.weights if seq.weights is not None else np.full(s, 1.0 / s)
    ax.scatter(seq.points[:, 0], seq.points[:, 1], s=600 * weights, alpha=0.8)
    ax.set(title=f"{name}: $D^2$ / Halton's = {seq.meta['d2'] / halton:.1e}",
           xlim=(-3.5, 3.5), ylim=(-3.5, 3.5), aspect="equal")
axes[0].set_ylabel("frequency $w_2$ (unit bandwidth)")
plt.show()

# %%
# The greedy sequence is nested: its first ``t`` points are the design for ``t``.
seq = designs["greedy"]
for t in (8, 16, 32):
    print(f"greedy prefix of {t:2d} points: D^2 = {objective(seq.points[:t]):.3e}")
