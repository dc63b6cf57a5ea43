"""Brault et al. (2016) Figure 4, curl-free field: what the paper leaves open, swept (issue 30).

``vector_fields.py`` finds independent scalar RFF ridge below the curl-free
ORFF ridge from D = 32 on, the opposite of the paper's Figure 4 ("The
curl-free ORFF outperforms classic RFFs by tending more quickly towards the
noise level").  The paper states the kernel (Gaussian curl-free), the data
(gradient of five Gaussian bumps) and that sigma and lambda were tuned on a
grid; it leaves open the noise level, N, the bump width, whether the
independent RFF got its own sigma, and what "D" counts for each model.  This
script sweeps those, on the data of ``vector_fields.py`` (its functions):

- ``--noise`` levels and ``--N`` training sizes;
- ``sigma``: ``own`` (each model tuned on the grid with its exact kernel, as in
  ``vector_fields.py``) or ``shared`` (the independent RFF uses the curl-free
  kernel's sigma and penalty);
- the ORFF measure: ``spectral`` (the paper's) and ``trace`` (Minh's Theorem 9);
- the independent RFF at D frequencies (2D parameters per output, 4D in all)
  and at D/2 frequencies (``equal parameters``: 2D, the curl-free ORFF's count,
  whose ``theta`` is shared by the two outputs).

Test MSE on noise-free targets, mean over ``--reps`` Monte Carlo maps.
Outputs: ``fig4_sweep.csv``, ``.png``, ``.json``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402
import vector_fields as V  # noqa: E402

NAME = "fig4_sweep"


def parse(argv=None):
    p = C.make_parser(__doc__.splitlines()[0])
    p.add_argument("--noise", nargs="+", type=float, default=[0.02, 0.1])
    p.add_argument("--N", nargs="+", type=int, default=[300, 1000])
    p.add_argument("--D", nargs="+", type=int, default=[32, 128, 512])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--n-test", type=int, default=1000)
    p.add_argument("--bump-width", type=float, default=0.5)
    args = p.parse_args(argv)
    if args.quick:
        args.noise, args.N, args.D, args.reps, args.n_test = [0.02], [150], [16, 64], 2, 300
    return args


def fit_predict(kind, X, Y, Xte, D, sigma, alpha, seed):
    """Test predictions of one approximate model (``kind``: ``spectral``/``trace`` ORFF, or ``rff``)."""
    import qmc_orff
    from sklearn.linear_model import Ridge

    if kind == "rff":
        ff = qmc_orff.FourierFeatures("gaussian", sigma=sigma, n_components=D, sequence="mc",
                                      seed=seed)
        return Ridge(alpha=alpha, fit_intercept=False).fit(ff.fit_transform(X), Y).predict(
            ff.transform(Xte))
    orff = qmc_orff.ORFF("curl_free", sigma=sigma, n_components=D, sequence="mc", measure=kind,
                         seed=seed)
    return qmc_orff.ORFFRidge(orff, alpha=alpha, fit_intercept=False).fit(X, Y).predict(Xte)


def run(args, record):
    rows = []
    for noise in args.noise:
        for N in args.N:
            rng = np.random.default_rng(args.seed)
            X, Y = V.make_data(N, "curl_free", args.bump_width, noise, rng)
            Xte = rng.uniform(-2.0, 2.0, size=(args.n_test, 2))
            Yte = V.field(Xte, "curl_free", args.bump_width)
            ovk = V.tune(lambda s, a: V.exact_model("curl_free", s, a), X, Y, args.seed)
            own = V.tune(lambda s, a: V.scalar_exact(s, a), X, Y, args.seed)
            record.params.setdefault("tuned", {})[f"noise={noise:g}, N={N}"] = {
                "curl_free": ovk, "scalar": own}
            base = {"noise": noise, "N": N}
            for label, model in (("exact curl-free OVK", V.exact_model("curl_free", *ovk)),
                                 ("exact scalar KRR", V.scalar_exact(*own))):
                err = V.mse(model.fit(X, Y).predict(Xte), Yte)
                rows += [{**base, "model": label, "sigma": "own", "D": D, "rep": 0,
                          "test_mse": err} for D in args.D]
            variants = [("ORFF spectral", "spectral", ovk, 1, "own"),
                        ("ORFF trace", "trace", ovk, 1, "own"),
                        ("indep. RFF", "rff", own, 1, "own"),
                        ("indep. RFF, equal parameters", "rff", own, 2, "own"),
                        ("indep. RFF", "rff", ovk, 1, "shared"),
                        ("indep. RFF, equal parameters", "rff", ovk, 2, "shared")]
            for D in args.D:
                for label, kind, (sigma, alpha), div, policy in variants:
                    errs = [V.mse(fit_predict(kind, X, Y, Xte, max(1, D // div), sigma, alpha,
                                              args.seed + rep), Yte)
                            for rep in range(args.reps)]
                    rows += [{**base, "model": label, "sigma": policy, "D": D, "rep": rep,
                              "test_mse": e} for rep, e in enumerate(errs)]
                    print(f"noise={noise:g} N={N} D={D:4d} {label:30s} sigma={policy:6s} "
                          f"mse={np.mean(errs):.3e}", flush=True)
    return rows


def plot(rows, path):
    for r in rows:
        r["setting"] = f"noise {r['noise']:g}, N {r['N']}"
        r["line"] = f"{r['model']} ({r['sigma']} sigma)"
    return C.line_figure(rows, path, x="D", y="test_mse", line="line", panel="setting",
                         ylabel="test MSE (noise-free targets)")


def main(argv=None):
    args = parse(argv)
    return C.run_example(NAME, args, run, plot=plot,
                         params=dict(noise=args.noise, N=args.N, D=args.D, reps=args.reps,
                                     n_test=args.n_test, bump_width=args.bump_width))


if __name__ == "__main__":
    sys.exit(main())
