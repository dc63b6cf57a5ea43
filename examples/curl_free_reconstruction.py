"""Curl-free vector-field reconstruction with matrix-valued Fourier features
(Minh 2016, section 5, Table 2).

Minh's setting, as stated: the curl-free field
``F(x, y) = (sin(4 pi x) sin^2(2 pi y), sin^2(2 pi x) sin(4 pi y))`` on
``[-1, -0.4765]^2`` sampled on a regular 40 x 40 grid (1600 points); 5 % of
the grid points (80, drawn at random in each run) are the training data; the
curl-free kernel induced by the Gaussian ``exp(-|delta|^2 / sigma_M^2)`` with
``sigma_M = 0.2`` -- ours, ``exp(-|delta|^2 / (2 sigma^2))``, at
``sigma = 0.2 / sqrt(2)`` (passed explicitly); regularisation
``gamma_A = 1e-9`` on the mean loss (his eq. 72 / 74), i.e. ``alpha = l gamma_A``
on our summed loss, no intercept.  Exact kernel least squares against
``qmc_orff.ORFFRidge`` on ORFF maps with D = 50 and 100 Monte Carlo
frequencies, "bounded" (his eq. 40, our ``measure="bounded"``) and
"unbounded" (his eq. 37, our ``measure="spectral"``).

Minh does not say on which points the RMSE is taken: here on all 1600 grid
points, ``sqrt(mean_i |f(x_i) - F(x_i)|^2 / 2)`` (root mean square over both
components).  10 runs (a new training subset and new frequencies each).

Outputs: ``curl_free_reconstruction.csv``, ``.png``, ``.json``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402
import vector_fields  # noqa: E402  (its exact operator-valued kernel ridge)

NAME = "curl_free_reconstruction"
SIGMA = 0.2 / np.sqrt(2.0)  # Minh's sigma_M = 0.2 in exp(-|delta|^2 / sigma_M^2)
GAMMA_A = 1e-9
LOW, HIGH = -1.0, -0.4765
MODELS = (("bounded", "bounded"), ("unbounded", "spectral"))


def parse(argv=None):
    p = C.make_parser(__doc__.splitlines()[0])
    p.add_argument("--grid", type=int, default=40, help="grid points per axis (Minh: 40)")
    p.add_argument("--train-fraction", type=float, default=0.05)
    p.add_argument("--D", nargs="+", type=int, default=[50, 100])
    p.add_argument("--reps", type=int, default=10)
    args = p.parse_args(argv)
    if args.quick:
        args.reps = 2
    return args


def curl_free_field(X):
    x, y = X[:, 0], X[:, 1]
    return np.stack([np.sin(4 * np.pi * x) * np.sin(2 * np.pi * y) ** 2,
                     np.sin(2 * np.pi * x) ** 2 * np.sin(4 * np.pi * y)], axis=1)


def rmse(pred, Y):
    return float(np.sqrt(np.mean((pred - Y) ** 2)))


def run(args, record):
    import qmc_orff

    g = np.linspace(LOW, HIGH, args.grid)
    X = np.stack(np.meshgrid(g, g, indexing="ij"), axis=-1).reshape(-1, 2)
    Y = curl_free_field(X)
    n_train = int(round(args.train_fraction * X.shape[0]))
    alpha = n_train * GAMMA_A
    record.params.update(n_train=n_train, alpha=alpha)
    rows = []
    for rep in range(args.reps):
        rng = np.random.default_rng(args.seed + rep)
        tr = np.sort(rng.choice(X.shape[0], n_train, replace=False))
        exact = vector_fields.exact_model("curl_free", SIGMA, alpha).fit(X[tr], Y[tr])
        e_exact = rmse(exact.predict(X), Y)
        for D in args.D:
            rows.append({"model": "exact", "D": D, "rep": rep, "rmse": e_exact})
            for label, measure in MODELS:
                orff = qmc_orff.ORFF("curl_free", sigma=SIGMA, n_components=D, sequence="mc",
                                     measure=measure, seed=args.seed + rep)
                model = qmc_orff.ORFFRidge(orff, alpha=alpha, fit_intercept=False).fit(X[tr], Y[tr])
                rows.append({"model": label, "D": D, "rep": rep, "rmse": rmse(model.predict(X), Y)})
        print(f"run {rep}: " + ", ".join(f"{r['model']} D={r['D']} {r['rmse']:.4f}"
                                         for r in rows if r["rep"] == rep), flush=True)
    return rows


def main(argv=None):
    args = parse(argv)
    return C.run_example(NAME, args, run, x="D", y="rmse", line="model", logx=False,
                         params=dict(grid=args.grid, train_fraction=args.train_fraction, D=args.D,
                                     reps=args.reps, sigma=SIGMA, sigma_minh=0.2,
                                     gamma_A=GAMMA_A, box=[LOW, HIGH]))


if __name__ == "__main__":
    sys.exit(main())
