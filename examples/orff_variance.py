"""Variance of the ORFF kernel estimator against its bound
(Brault et al. 2016, Appendix C, Proposition C.1, Figure 6).

At one random point ``delta = x - z`` of ``[-1, 1]^4`` (``z = 0``), the
empirical variance ``|| mean_r (K~_r(x, z) - K(x, z))^2 ||_2`` of the Monte
Carlo ORFF estimator (``qmc_orff.ORFF(sequence="mc")``, ``--reps`` independent
maps per D) against the bound of Proposition C.1::

    B_D = (1 / 2D) [ ||(K0(2 delta) + K0(0)) E[A(w)] - 2 K0(delta)^2||_2
                     + 2 ||V[A(w)]||_2 ]

for the decomposable Gaussian kernel (``A(w) = A``, a fixed random PSD matrix
of unit spectral norm: ``E[A] = A``, ``V[A] = 0``) and the curl-free Gaussian
kernel with the spectral measure (``A(w) = w w^T``, ``w ~ N(0, sigma^-2 I)``:
``E[A] = sigma^-2 I`` and ``V[A] = E[|w|^2 w w^T] - E[A]^2 = (d + 1) sigma^-4 I``).
``K0`` is evaluated with ``qmc_orff.kernels``.  sigma = 1 (the paper does not
state it; passed explicitly).

Outputs: ``orff_variance.csv``, ``.png``, ``.json``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

NAME = "orff_variance"
D_DIM = 4
SIGMA = 1.0


def parse(argv=None):
    p = C.make_parser(__doc__.splitlines()[0])
    p.add_argument("--D", nargs="+", type=int, default=[1, 4, 16, 64, 256, 1024, 4096])
    p.add_argument("--reps", type=int, default=200, help="independent maps per D")
    args = p.parse_args(argv)
    if args.quick:
        args.D, args.reps = [1, 16, 256], 30
    return args


def bound(kernel, delta, D, sigma, A):
    """Proposition C.1's bound on the spectral norm of the estimator's variance."""
    z = np.zeros((1, delta.size))

    def K0(v):
        return kernel(v[None, :], z)[0, 0]

    if A is not None:  # decomposable: A(w) = A
        EA, VA = A, np.zeros_like(A)
    else:  # curl-free, spectral measure: A(w) = w w^T
        d = delta.size
        EA = np.eye(d) / sigma ** 2
        VA = (d + 1) * np.eye(d) / sigma ** 4
    first = (K0(2 * delta) + K0(0 * delta)) @ EA - 2 * K0(delta) @ K0(delta)
    return (np.linalg.norm(first, 2) + 2 * np.linalg.norm(VA, 2)) / (2 * D)


def run(args, record):
    import qmc_orff
    from qmc_orff import kernels

    rng = np.random.default_rng(args.seed)
    x = rng.uniform(-1.0, 1.0, size=(1, D_DIM))
    z = np.zeros((1, D_DIM))
    B = rng.standard_normal((D_DIM, D_DIM))
    A = B @ B.T
    A /= np.linalg.norm(A, 2)
    record.params.update(delta=x[0], A=A)
    rows = []
    for kind, kern, Aarg in (("decomposable", kernels.Decomposable(kernels.Gaussian(SIGMA), A), A),
                             ("curl_free", kernels.CurlFree(SIGMA), None)):
        K = kern(x, z)[0, 0]
        for D in args.D:
            sq = np.zeros_like(K)
            for rep in range(args.reps):
                orff = qmc_orff.ORFF(kind, sigma=SIGMA, n_components=D, sequence="mc",
                                     seed=args.seed + 1000 * rep + D,
                                     **({"A": A} if Aarg is not None else {}))
                E = orff.fit(x).approximate_kernel(x, z)[0, 0] - K
                sq += E @ E
            var = float(np.linalg.norm(sq / args.reps, 2))
            b = float(bound(kern, x[0], D, SIGMA, Aarg))
            rows.append({"kernel": kind, "D": D, "series": "empirical", "value": var,
                         "empirical_variance": var, "bound": b})
            rows.append({"kernel": kind, "D": D, "series": "upper bound (Prop. C.1)", "value": b,
                         "empirical_variance": var, "bound": b})
            print(f"{kind:12s} D={D:5d} variance {var:.3e}  bound {b:.3e}", flush=True)
    return rows


def main(argv=None):
    args = parse(argv)
    return C.run_example(NAME, args, run, x="D", y="value", line="series", panel="kernel",
                         ylabel="spectral norm of the variance",
                         params=dict(D=args.D, reps=args.reps, sigma=SIGMA, d=D_DIM))


if __name__ == "__main__":
    sys.exit(main())
