"""
Learning curl-free and divergence-free fields with ORFF
=======================================================

A small version of ``examples/vector_fields.py`` (Brault et al. 2016, section 4.2). The
field :math:`y = \\nabla\\varphi + R\\,\\nabla\\psi` is the sum of a gradient field and a rotated
gradient field (divergence-free) of two Gaussian bumps. :class:`qmc_orff.ORFFRidge` learns
it from 300 noisy samples with the curl-free kernel, the divergence-free kernel and the
decomposable kernel with :math:`A = I` (independent outputs); the curl-free model recovers
the gradient part and the divergence-free model the rotational part.
"""
import matplotlib.pyplot as plt
import numpy as np

import qmc_orff


def bump_gradient(X, centre, width):
    diff = X - centre
    return -diff / width ** 2 * np.exp(-(diff ** 2).sum(axis=1, keepdims=True) / (2 * width ** 2))


def field(X):
    grad = bump_gradient(X, np.array([0.4, 0.3]), 0.5)                      # curl-free part
    rot = bump_gradient(X, np.array([-0.4, -0.3]), 0.5) @ np.array([[0, 1], [-1, 0]])
    return grad, rot                                                          # rot: div-free


rng = np.random.default_rng(0)
X = rng.uniform(-1.5, 1.5, size=(300, 2))
grad, rot = field(X)
Y = grad + rot + 0.05 * rng.standard_normal(X.shape)

g = np.linspace(-1.5, 1.5, 15)
grid = np.column_stack([a.ravel() for a in np.meshgrid(g, g)])
grad_grid, rot_grid = field(grid)
truth = grad_grid + rot_grid

models = {kernel: qmc_orff.ORFFRidge(
              qmc_orff.ORFF(kernel, sigma=0.6, n_components=200), alpha=1e-3).fit(X, Y)
          for kernel in ("decomposable", "curl_free", "div_free")}

fig, axes = plt.subplots(1, 4, figsize=(14, 3.8), layout="constrained")
axes[0].quiver(grid[:, 0], grid[:, 1], truth[:, 0], truth[:, 1])
axes[0].set_title("true field")
for ax, (kernel, model) in zip(axes[1:], models.items()):
    pred = model.predict(grid)
    err = np.linalg.norm(pred - truth) / np.linalg.norm(truth)
    ax.quiver(grid[:, 0], grid[:, 1], pred[:, 0], pred[:, 1], color="C0")
    ax.set_title(f"{kernel}: relative error {err:.2f}")
for ax in axes:
    ax.set(aspect="equal", xticks=[], yticks=[])
plt.show()

# %%
# Each structured model alone captures its own part of the field (relative error against
# that part):
for kernel, part in (("curl_free", grad_grid), ("div_free", rot_grid)):
    pred = models[kernel].predict(grid)
    print(f"{kernel:10s} vs its part: {np.linalg.norm(pred - part) / np.linalg.norm(part):.2f}")
