"""
The shipped catalogue against orthogonal random features
========================================================

Every entry of the shipped catalogue (:func:`qmc_orff.list_catalogue`) records the Gram error
of its sequence on held-out Gaussian data whose moment box matches the entry's, and the
ratio of that error to orthogonal random features of the same size (``ratio_to_orf``):
the designs gain most in low dimension and for small boxes; only entries below 1 are
shipped.
"""
import matplotlib.pyplot as plt
from matplotlib.ticker import NullLocator

import qmc_orff

entries = qmc_orff.list_catalogue(s=256)
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True, layout="constrained")
for ax, method in zip(axes, ("global", "weighted")):
    for d, marker in zip((2, 4, 8, 16), "osD^"):
        rows = sorted((e["box_over_sigma"], e["ratio_to_orf"]) for e in entries
                      if e["method"] == method and e["d"] == d)
        if rows:
            ax.semilogy(*zip(*rows), marker=marker, label=f"d = {d}")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set(xscale="log", xlabel="box / bandwidth", title=f"{method}, s = 256")
    ax.xaxis.set_minor_locator(NullLocator())
    boxes = (0.125, 0.25, 0.5, 1.0)
    ax.set_xticks(boxes, [f"{b:g}" for b in boxes])
axes[0].set_ylabel("Gram error / ORF's")
axes[0].legend()
plt.show()

# %%
# Loading an entry: the nearest box on a log scale, checked against its SHA-256.
seq = qmc_orff.load_catalogue(d=4, s=256, box_over_sigma=0.25, method="global")
for key, value in seq.meta["catalogue"].items():
    print(f"{key}: {value}")
