"""Decomposable ORFF ridge against the exact operator-valued kernel on low-rank
synthetic data (Brault et al. 2016, Appendix D.2, Table 3).

The paper's data set A_dec^N: inputs uniform on ``[-1, 1]^20``; outputs in
``R^20`` from an ORFF model of the decomposable kernel ``K0(delta) = k0(delta) A``
with ``A`` a random PSD matrix of rank 1 and unit spectral norm, ``k0``
Gaussian with sigma the median pairwise distance (Jaakkola's heuristic; passed
explicitly), parameters ``theta`` uniform on ``[-1, 1]``.  With ``A = b b^T``
the model is ``y(x) = (phi(x) . theta) b`` for the scalar Gaussian map ``phi``
(``qmc_orff.FourierFeatures``, Monte Carlo, ``--d-gen`` frequencies; the paper
used 10^4).  The noisy variant adds ``N(0, Sigma)`` noise with ``Sigma`` a random
PSD matrix (``G G^T``, ``G`` standard normal) scaled to the paper's level: "epsilon_i ~
N(0, Sigma) and ||Sigma||_2 = sqrt(V[y_i])", with ``V[y_i]`` read as the variance of an
entry of ``y_i`` (the mean over the outputs of the per-output variance of the
noise-free targets, on 2000 uniform inputs).

Models: ``qmc_orff.ORFFRidge`` on ``ORFF("decomposable", A=A)`` with ``--D``
Monte Carlo frequencies, and the exact decomposable kernel ridge
(``(K0 (x) A + lambda I) c = vec Y`` solved through the eigendecompositions of
the scalar Gram matrix and of ``A``; run up to ``--exact-max-n``).  lambda is
chosen per model and N on a grid by a 25 % validation split of the training
rows (validated on the training targets, noisy in the noisy variant).  RMSE:
root mean square over the entries of ``f(x) - y(x)`` on ``--n-test``
noise-free test points, mean of ``--reps`` runs (the paper's 10).

Outputs: ``decomposable_rmse.csv``, ``.png``, ``.json``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

NAME = "decomposable_rmse"
DIM = 20
LAMBDAS = (1e-6, 1e-4, 1e-2, 1.0, 1e2)
NOISE = "N(0, Sigma), ||Sigma||_2 = sqrt(V[y_i]), V[y_i] the mean per-output variance"


def parse(argv=None):
    p = C.make_parser(__doc__.splitlines()[0])
    p.add_argument("--N", nargs="+", type=int, default=[100, 300, 1000, 3000])
    p.add_argument("--D", type=int, default=500, help="ORFF frequencies of the learner")
    p.add_argument("--d-gen", type=int, default=2000, help="frequencies of the generating model")
    p.add_argument("--n-test", type=int, default=1000)
    p.add_argument("--reps", type=int, default=10, help="runs (the paper's 10)")
    p.add_argument("--exact-max-n", type=int, default=1000)
    args = p.parse_args(argv)
    if args.quick:
        args.N, args.D, args.d_gen, args.n_test, args.reps = [100, 300], 100, 300, 200, 2
    return args


class ExactDecomposableRidge:
    """Exact kernel ridge with ``K(x, z) = k0(x, z) A`` (Stein form, eigendecompositions).

    ``gram_eig``: ``numpy.linalg.eigh`` of the scalar Gram matrix of the rows ``fit`` will
    get, computed once and shared by every lambda of the grid and both noise levels.
    """

    def __init__(self, sigma, A, lam, gram_eig=None):
        self.sigma, self.A, self.lam, self.gram_eig = sigma, A, lam, gram_eig

    def fit(self, X, Y):
        lk, U = self.gram_eig or np.linalg.eigh(C.gaussian_gram(X, self.sigma))
        la, V = np.linalg.eigh(self.A)
        self.c_ = U @ ((U.T @ Y @ V) / (np.outer(lk, la) + self.lam)) @ V.T
        self.X_ = X
        return self

    def predict(self, X):
        from sklearn.metrics.pairwise import rbf_kernel

        k = rbf_kernel(X, self.X_, gamma=1.0 / (2 * self.sigma ** 2))
        return k @ self.c_ @ self.A


def rmse(pred, Y):
    return float(np.sqrt(np.mean((pred - Y) ** 2)))


def make_problem(args, rng):
    import qmc_orff

    b = rng.standard_normal(DIM)
    b /= np.linalg.norm(b)
    A = np.outer(b, b)
    X0 = rng.uniform(-1.0, 1.0, size=(2000, DIM))
    sigma = C.median_heuristic(X0)
    ff = qmc_orff.FourierFeatures("gaussian", sigma=sigma, n_components=args.d_gen,
                                  sequence="mc", seed=int(rng.integers(2 ** 31))).fit(X0)
    theta = rng.uniform(-1.0, 1.0, size=2 * args.d_gen)

    def target(X):
        return np.outer(ff.transform(X) @ theta, b)

    var = float(np.mean(np.var(target(X0), axis=0)))
    G = rng.standard_normal((DIM, DIM))
    Sigma = G @ G.T
    Sigma *= np.sqrt(var) / np.linalg.norm(Sigma, 2)
    return A, sigma, target, np.linalg.cholesky(Sigma + 1e-15 * np.eye(DIM))


def run(args, record):
    import qmc_orff

    rows = []
    for rep in range(args.reps):
        rng = np.random.default_rng(args.seed + rep)
        A, sigma, target, L = make_problem(args, rng)
        Xte = rng.uniform(-1.0, 1.0, size=(args.n_test, DIM))
        Yte = target(Xte)
        record.params.setdefault("sigma", []).append(sigma)
        for N in args.N:
            X = rng.uniform(-1.0, 1.0, size=(N, DIM))
            Y0 = target(X)
            cut = int(0.75 * N)
            # A has rank 1: the direct solve is a (2 D)-square Cholesky, several times faster
            # than the Stein form's eigendecomposition that "auto" picks, to the same solution.
            models = {"ORFF": lambda lam, n: qmc_orff.ORFFRidge(
                qmc_orff.ORFF("decomposable", A=A, sigma=sigma, n_components=args.D,
                              sequence="mc", seed=args.seed + rep), alpha=lam,
                fit_intercept=False, solver="direct")}
            if N <= args.exact_max_n:
                gram_eig = {n: np.linalg.eigh(C.gaussian_gram(X[:n], sigma)) for n in (cut, N)}
                models["OVK"] = lambda lam, n: ExactDecomposableRidge(sigma, A, lam, gram_eig[n])
            for noise in (0, 1):
                Y = Y0 + noise * rng.standard_normal(Y0.shape) @ L.T
                for label, make in models.items():
                    lam = min(LAMBDAS, key=lambda v: rmse(
                        make(v, cut).fit(X[:cut], Y[:cut]).predict(X[cut:]), Y[cut:]))
                    e = rmse(make(lam, N).fit(X, Y).predict(Xte), Yte)
                    rows.append({"N": N, "model": label, "noise": noise, "rep": rep,
                                 "lambda": lam, "rmse": e})
                    print(f"run {rep} N={N:5d} {label:4s} noise={noise} lambda={lam:g} "
                          f"rmse={e:.4g}", flush=True)
    return rows


def main(argv=None):
    args = parse(argv)
    return C.run_example(NAME, args, run, x="N", y="rmse", line="model", panel="noise",
                         params=dict(N=args.N, D=args.D, d_gen=args.d_gen, n_test=args.n_test,
                                     reps=args.reps, exact_max_n=args.exact_max_n, dim=DIM,
                                     lambdas=LAMBDAS, noise=NOISE))


if __name__ == "__main__":
    sys.exit(main())
