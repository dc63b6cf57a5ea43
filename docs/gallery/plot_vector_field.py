"""
Learning curl-free and divergence-free fields with ORFF
=======================================================

A small version of ``examples/vector_fields.py`` (Brault et al. 2016, section 4.2). A
gradient field :math:`y = \\nabla\\varphi` (curl-free) and its rotation by 90 degrees
(divergence-free) are learned by :class:`qmc_orff.ORFFRidge` from a few noisy samples, with
the decomposable kernel :math:`k_0 I` (each output learned on its own) and with the kernel
whose fields have the same structure as the truth. Knowing the structure helps most when
samples are scarce.
"""
import matplotlib.pyplot as plt
from matplotlib.ticker import NullLocator
import numpy as np

import qmc_orff


def bump_gradient(X, centre, width):
    diff = X - centre
    bump = np.exp(-(diff ** 2).sum(axis=1, keepdims=True) / (2 * width ** 2))
    return -diff / width ** 2 * bump


def gradient_field(X):  # the gradient of a potential with two bumps: curl-free
    return (bump_gradient(X, np.array([0.5, 0.3]), 0.6)
            - bump_gradient(X, np.array([-0.5, -0.4]), 0.5))


ROTATE = np.array([[0.0, 1.0], [-1.0, 0.0]])
fields = {"curl_free": gradient_field,
          "div_free": lambda X: gradient_field(X) @ ROTATE}  # rotated: divergence-free

g = np.linspace(-1.5, 1.5, 15)
grid = np.column_stack([a.ravel() for a in np.meshgrid(g, g)])


def fit(kernel, field, n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.5, 1.5, size=(n, 2))
    Y = field(X) + 0.05 * rng.standard_normal(X.shape)
    orff = qmc_orff.ORFF(kernel, sigma=0.5, n_components=200, seed=seed)
    return qmc_orff.ORFFRidge(orff, alpha=1e-2).fit(X, Y)


def error(model, field):
    truth = field(grid)
    return np.linalg.norm(model.predict(grid) - truth) / np.linalg.norm(truth)


# %%
# The fields and the two fits from 40 samples:
fig, axes = plt.subplots(2, 3, figsize=(10, 6.8), layout="constrained")
for row, (name, field) in zip(axes, fields.items()):
    truth = field(grid)
    row[0].quiver(grid[:, 0], grid[:, 1], truth[:, 0], truth[:, 1])
    row[0].set_title(f"true {name.replace('_', '-')} field")
    for ax, kernel in zip(row[1:], ("decomposable", name)):
        model = fit(kernel, field, 40, seed=0)
        pred = model.predict(grid)
        ax.quiver(grid[:, 0], grid[:, 1], pred[:, 0], pred[:, 1], color="C0")
        ax.set_title(f'ORFF("{kernel}"): error {error(model, field):.2f}')
for ax in axes.flat:
    ax.set(aspect="equal", xticks=[], yticks=[])
plt.show()

# %%
# Relative error on the grid against the number of samples (mean of 5 draws of the
# samples and of the frequencies; the same bandwidth and regularisation for every kernel):
sizes = [20, 40, 80, 160]
curves = {}
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True, layout="constrained")
for ax, (name, field) in zip(axes, fields.items()):
    for kernel, marker in (("decomposable", "o"), (name, "s")):
        errs = [np.mean([error(fit(kernel, field, n, seed), field)
                         for seed in range(5)]) for n in sizes]
        curves[name, kernel] = errs
        ax.loglog(sizes, errs, marker=marker, label=f'ORFF("{kernel}")')
    ax.set(xlabel="training samples", title=f"{name.replace('_', '-')} field")
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticks(sizes, [str(n) for n in sizes])
    ax.legend()
axes[0].set_ylabel("relative error on the grid")
plt.show()

# %%
# The structured kernels are more accurate with 20 samples (about 20% lower error); from
# 40 samples on the two kernels are within about 10% of each other, either way: these
# fields are smooth, and the decomposable kernel learns them too once samples suffice.
for (name, kernel), errs in curves.items():
    print(f"{name:10s} {kernel:13s}", "  ".join(f"{e:.3f}" for e in errs))
