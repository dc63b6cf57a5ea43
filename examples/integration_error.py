"""Integration error over a box of integrands (Avron et al. 2016, Figure 5).

The integrals ``I(u) = int_{[0,1]^2} exp(-i u.t) dt`` for ``u`` in the box
``[-B, B]^2`` are approximated by ``sum_l xi_l exp(-i u.t_l)`` with points from
Monte Carlo, Halton (deterministic RR2 scrambling, as in the paper) and a
global adaptive sequence designed by ``qmc_orff.global_sequence`` on the whole
box and on its central half (``b/2``).  Shifting the square to
``[-1/2, 1/2]^2`` multiplies the integral and every rule by the same unit
factor, so the error modulus is that of the centred uniform density, whose
characteristic function is ``sinc(u/2)``; the library handles it as a
``CharacteristicDensity`` (``g`` and ``C`` by quadrature).  ``--density
gaussian`` uses the Gaussian density instead (the kernel setting).

Besides the heat maps, the CSV holds the mean squared error over the box
computed by tensor Gauss-Legendre quadrature next to ``normalized(D^2)``
(Theorem 12 says they are equal), and the same on the central half box.

Outputs: ``integration_error.csv``, ``integration_error.png``,
``integration_error.json``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

NAME = "integration_error"


def parse(argv=None):
    p = C.make_parser(__doc__.splitlines()[0])
    p.add_argument("--s", type=int, default=100, help="number of points")
    p.add_argument("--box", type=float, default=None,
                   help="half-width B of the box of u (default 4*pi for uniform, 3 for gaussian)")
    p.add_argument("--density", choices=["uniform", "gaussian"], default="uniform")
    p.add_argument("--reps", type=int, default=10, help="Monte Carlo repetitions (mean MSE)")
    p.add_argument("--maxiter", type=int, default=300, help="global design iterations")
    p.add_argument("--grid", type=int, default=161, help="heat-map grid points per axis")
    args = p.parse_args(argv)
    if args.box is None:
        args.box = 4 * np.pi if args.density == "uniform" else 3.0
    if args.quick:
        args.s = 32
        args.reps = 3
        args.maxiter = 30
        args.grid = 41
    return args


def make_density(kind):
    import qmc_orff

    if kind == "gaussian":
        return qmc_orff.GaussianDensity()
    # uniform on [-1/2, 1/2]: phi(u) = sin(u/2) / (u/2) = np.sinc(u / (2 pi))
    return qmc_orff.CharacteristicDensity(
        lambda u: np.sinc(u / (2.0 * np.pi)),
        ppf=lambda t: t - 0.5,
        cdf=lambda x: np.clip(x + 0.5, 0.0, 1.0),
        pdf=lambda x: ((x >= -0.5) & (x <= 0.5)).astype(float),
        name="uniform[-1/2,1/2]")


def error_on(U, density, W, xi):
    """Complex error ``I(u) - sum_l xi_l exp(-i u.w_l)`` at rows of ``U`` (m, 2)."""
    exact = np.prod(density.char_fn(U), axis=1)
    out = np.empty(U.shape[0], dtype=complex)
    for start in range(0, U.shape[0], 4096):
        sl = slice(start, start + 4096)
        out[sl] = exact[sl] - np.exp(-1j * (U[sl] @ W.T)) @ xi
    return out


def box_mse(density, W, xi, half_width, n_gl=64):
    """Mean of |error|^2 over [-h, h]^2 by tensor Gauss-Legendre quadrature.

    The integrand is smooth (entire in u); n_gl nodes per axis on each of
    8 panels resolve oscillations up to |u.w| of several hundred.
    """
    x, w = np.polynomial.legendre.leggauss(n_gl)
    edges = np.linspace(-half_width, half_width, 9)
    nodes = np.concatenate([(a + b) / 2 + (b - a) / 2 * x for a, b in zip(edges[:-1], edges[1:])])
    weights = np.concatenate([(b - a) / 2 * w for a, b in zip(edges[:-1], edges[1:])])
    U = np.stack(np.meshgrid(nodes, nodes, indexing="ij"), axis=-1).reshape(-1, 2)
    Wt = np.outer(weights, weights).ravel()
    err = error_on(U, density, W, xi)
    return float(np.sum(Wt * np.abs(err) ** 2) / (2 * half_width) ** 2)


def main(argv=None):
    import qmc_orff

    args = parse(argv)
    out = C.output_dir(args.out)
    record = C.RunRecord(NAME, args)
    density = make_density(args.density)
    B = float(args.box)
    record.params.update(s=args.s, box=B, density=args.density, reps=args.reps,
                         maxiter=args.maxiter)
    objs = {"b": qmc_orff.BoxDiscrepancy(B, kernel=density, sigma=1.0, d=2),
            "b/2": qmc_orff.BoxDiscrepancy(B / 2, kernel=density, sigma=1.0, d=2)}

    point_sets = {}
    rng = np.random.default_rng(args.seed)
    for rep in range(args.reps):
        point_sets[("mc", rep)] = (density.ppf(rng.random((args.s, 2))), None)
    halton = qmc_orff.Halton(2, scramble="deterministic").random(args.s + 1)[1:]
    point_sets[("halton", 0)] = (density.ppf(halton), None)
    for label, obj in (("global", objs["b"]), ("global b/2", objs["b/2"])):
        seq = qmc_orff.global_sequence(obj, args.s, maxiter=args.maxiter)
        record.params.setdefault("designs", {})[label] = {
            k: seq.meta.get(k) for k in ("iterations", "stop_reason", "init", "D2", "D2_halton")
            if k in seq.meta}
        point_sets[(label, 0)] = (seq.points, seq.weights)

    rows = []
    for (method, rep), (W, xi) in point_sets.items():
        W = np.asarray(W, dtype=float)
        xi_ = np.full(W.shape[0], 1.0 / W.shape[0]) if xi is None else np.asarray(xi)
        row = {"method": method, "rep": rep, "s": W.shape[0], "density": args.density, "B": B}
        for box, obj in objs.items():
            h = B if box == "b" else B / 2
            row[f"mse_quadrature_{box}"] = box_mse(density, W, xi_, h)
            row[f"normalized_D2_{box}"] = obj(W, xi, normalize=True)
        rows.append(row)
    for box, obj in objs.items():
        rows.append({"method": "mc-expected", "rep": 0, "s": args.s, "density": args.density,
                     "B": B, f"normalized_D2_{box}": obj.expected_mc(args.s, normalize=True)})
    summary = C.summarize([r for r in rows if r["method"] != "mc-expected"], ["method"],
                          ["mse_quadrature_b", "normalized_D2_b", "mse_quadrature_b/2",
                           "normalized_D2_b/2"])
    print(f"\nmean squared integration error over [-B, B]^2 (B = {B:.4g}) and its central half,"
          f" s = {args.s}, {args.density} density")
    print(C.format_table(summary, ["method", "reps", "mse_quadrature_b_mean", "normalized_D2_b_mean",
                                   "mse_quadrature_b/2_mean", "normalized_D2_b/2_mean"]))
    csv_path = C.write_csv(out / f"{NAME}.csv", rows)

    # heat maps of log10 |error|^2 on a uniform grid
    plt = C.pyplot()
    g = np.linspace(-B, B, args.grid)
    U = np.stack(np.meshgrid(g, g, indexing="xy"), axis=-1).reshape(-1, 2)
    panels = [("mc", 0), ("halton", 0), ("global", 0), ("global b/2", 0)]
    fig, axes = plt.subplots(1, 4, figsize=(16, 4.4), layout="constrained")
    maps = []
    for key in panels:
        W, xi = point_sets[key]
        xi_ = np.full(W.shape[0], 1.0 / W.shape[0]) if xi is None else np.asarray(xi)
        maps.append(np.log10(np.abs(error_on(U, density, np.asarray(W), xi_)) ** 2 + 1e-300)
                    .reshape(args.grid, args.grid))
    vmax = max(m.max() for m in maps)
    vmin = vmax - 8
    for ax, key, m in zip(axes, panels, maps):
        im = ax.imshow(m, origin="lower", extent=[-B, B, -B, B], vmin=vmin, vmax=vmax,
                       cmap="viridis")
        ax.set_title(f"{key[0]} (s={args.s})")
        ax.set_xlabel("$u_1$")
        ax.set_ylabel("$u_2$")
        if key[0] == "global b/2":
            ax.add_patch(plt.Rectangle((-B / 2, -B / 2), B, B, fill=False, color="w", ls="--"))
    fig.colorbar(im, ax=axes, shrink=0.8, label=r"$\log_{10}|I(u) - \hat I(u)|^2$")
    fig.suptitle(f"Integration error of exp(-i u.t), t ~ {density.name}")
    png_path = out / f"{NAME}.png"
    fig.savefig(png_path, dpi=110)
    plt.close(fig)
    C.finish(record, out, csv_path=csv_path, png_path=png_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
