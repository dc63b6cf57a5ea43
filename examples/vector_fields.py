"""Learning 2-D vector fields with operator-valued random Fourier features
(Brault et al. 2016, section 4.2, Figures 4 and 5).

Data (synthetic, as in the paper): a scalar field made of five Gaussian bumps
at (0, 0), (0, 1), (0, -1) (positive) and (-1, 0), (1, 0) (negative); the
curl-free field is its gradient, the divergence-free field the gradient
rotated by 90 degrees.  Inputs are uniform on ``[-2, 2]^2``; training targets
carry Gaussian noise (``--noise``), test targets are the noise-free field.

Figure 4 (test MSE against the number of frequencies D): exact operator-valued
kernel ridge (curl-free kernel for the curl-free field, div-free kernel for the
div-free field), ``qmc_orff.ORFFRidge`` on ORFF maps with Monte Carlo, Halton
(spectral and trace-normalised measures) and a globally designed sequence, and
independent scalar RFF ridge (one scalar model per output, the paper's
"independent RFF").  The bandwidth and penalty are chosen on a grid by a
validation split with the exact models, then reused at every D.

Figure 5 (fit time against N): ``ORFFRidge`` (curl-free, D = ``--time-D``)
against the exact curl-free kernel ridge (a Cholesky solve on the
``2N x 2N`` block Gram matrix), which is run only up to ``--exact-max-n``.

The MSE is the mean over test points of the squared Euclidean error.
Outputs: ``vector_fields.csv``, ``vector_fields.png``, ``vector_fields.json``.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

NAME = "vector_fields"
CENTRES = np.array([[0.0, 0.0], [0.0, 1.0], [0.0, -1.0], [-1.0, 0.0], [1.0, 0.0]])
SIGNS = np.array([1.0, 1.0, 1.0, -1.0, -1.0])
TIME_REPEATS = 3


def parse(argv=None):
    p = C.make_parser(__doc__.splitlines()[0])
    p.add_argument("--n-train", type=int, default=1000)
    p.add_argument("--n-test", type=int, default=2000)
    p.add_argument("--D", nargs="+", type=int, default=[8, 16, 32, 64, 128, 256, 512, 1024])
    p.add_argument("--reps", type=int, default=5, help="repetitions of Monte Carlo maps")
    p.add_argument("--noise", type=float, default=0.02, help="std of the training noise")
    p.add_argument("--bump-width", type=float, default=0.5)
    p.add_argument("--time-N", nargs="+", type=int, default=[100, 300, 1000, 3000, 10000, 30000])
    p.add_argument("--time-D", type=int, default=1000)
    p.add_argument("--exact-max-n", type=int, default=3000)
    p.add_argument("--design-maxiter", type=int, default=200)
    args = p.parse_args(argv)
    if args.quick:
        args.n_train, args.n_test = 200, 400
        args.D = [16, 64]
        args.reps = 2
        args.time_N = [100, 300]
        args.time_D = 64
        args.exact_max_n = 300
        args.design_maxiter = 30
    return args


def field(X, kind, width):
    """Curl-free (gradient) or div-free (rotated gradient) field at X (n, 2)."""
    diff = X[:, None, :] - CENTRES[None, :, :]
    g = SIGNS * np.exp(-np.sum(diff ** 2, axis=2) / (2 * width ** 2))
    grad = -np.einsum("nk,nkj->nj", g, diff) / width ** 2
    if kind == "curl_free":
        return grad
    return np.stack([-grad[:, 1], grad[:, 0]], axis=1)


def make_data(n, kind, width, noise, rng):
    X = rng.uniform(-2.0, 2.0, size=(n, 2))
    Y = field(X, kind, width)
    return X, Y + noise * rng.standard_normal(Y.shape)


class ExactOVKRidge:
    """Exact operator-valued kernel ridge: ``(K + alpha I) c = vec(Y)`` (Cholesky)."""

    def __init__(self, kernel, alpha):
        self.kernel, self.alpha = kernel, alpha

    def fit(self, X, Y):
        from scipy.linalg import cho_factor, cho_solve

        K = self.kernel.block(X)
        K[np.diag_indices_from(K)] += self.alpha
        self.c_ = cho_solve(cho_factor(K, lower=True, overwrite_a=True), Y.ravel())
        self.X_ = X
        return self

    def predict(self, X):
        return (self.kernel.block(X, self.X_) @ self.c_).reshape(X.shape[0], -1)


def exact_model(kind, sigma, alpha):
    from qmc_orff import kernels

    kern = kernels.CurlFree(sigma) if kind == "curl_free" else kernels.DivFree(sigma)
    return ExactOVKRidge(kern, alpha)


def scalar_exact(sigma, alpha):
    from sklearn.kernel_ridge import KernelRidge

    return KernelRidge(alpha=alpha, kernel="rbf", gamma=1.0 / (2 * sigma ** 2))


def mse(pred, Y):
    return float(np.mean(np.sum((pred - Y) ** 2, axis=1)))


def tune(make, X, Y, seed, *, map_seeds=None):
    """Grid search of (sigma, alpha) on a 25 % validation split.

    ``make(sigma, alpha)`` builds the model; with ``map_seeds``, ``make(sigma, alpha, map_seed)``
    builds one random-feature model per seed and their mean validation MSE is compared.
    """
    rng = np.random.default_rng(seed)
    idx = rng.permutation(X.shape[0])
    cut = int(0.75 * X.shape[0])
    tr, va = idx[:cut], idx[cut:]
    models = ((lambda s, a: [make(s, a)]) if map_seeds is None else
              (lambda s, a: [make(s, a, m) for m in map_seeds]))
    best = None
    for sigma in (0.25, 0.35, 0.5, 0.7, 1.0):
        for alpha in (1e-4, 1e-3, 1e-2, 1e-1, 1.0):
            err = np.mean([mse(m.fit(X[tr], Y[tr]).predict(X[va]), Y[va])
                           for m in models(sigma, alpha)])
            if best is None or err < best[0]:
                best = (err, sigma, alpha)
    return best[1], best[2]


def run_mse(args, record, rows, fac_cache):
    import qmc_orff
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(args.seed)
    for kind in ("curl_free", "div_free"):
        X, Y = make_data(args.n_train, kind, args.bump_width, args.noise, rng)
        Xte = rng.uniform(-2.0, 2.0, size=(args.n_test, 2))
        Yte = field(Xte, kind, args.bump_width)
        sigma, alpha = tune(lambda s, a: exact_model(kind, s, a), X, Y, args.seed)
        sig_s, alpha_s = tune(lambda s, a: scalar_exact(s, a), X, Y, args.seed)
        record.params.setdefault("hyperparameters", {})[kind] = {
            "ovk_sigma": sigma, "ovk_alpha": alpha, "scalar_sigma": sig_s, "scalar_alpha": alpha_s}
        print(f"\n{kind}: sigma={sigma}, alpha={alpha} (OVK); scalar RFF sigma={sig_s}, "
              f"alpha={alpha_s}")
        t0 = time.perf_counter()
        err = mse(exact_model(kind, sigma, alpha).fit(X, Y).predict(Xte), Yte)
        for D in args.D:
            rows.append({"experiment": "mse_vs_D", "field": kind, "model": "exact OVK", "D": D,
                         "rep": 0, "test_mse": err, "fit_seconds": time.perf_counter() - t0})
        fac = C.FrequencyFactory(d=2, sigma=sigma, b=C.data_box(X, kind="moment"),
                                 design_maxiter=args.design_maxiter,
                                 cache=fac_cache, tag=f"field-{kind}-{args.n_train}-sig{sigma:g}")
        models = [("ORFF mc", "mc", "spectral", args.reps),
                  ("ORFF halton", "halton", "spectral", 1),
                  ("ORFF halton trace", "halton", "trace", 1),
                  ("ORFF global design", "global", "spectral", 1),
                  ("indep. RFF mc", "scalar-mc", None, args.reps),
                  ("indep. RFF halton", "scalar-halton", None, 1)]
        for D in args.D:
            for label, src, measure, reps in models:
                errs = []
                for rep in range(reps):
                    seed = args.seed + rep
                    t0 = time.perf_counter()
                    if src.startswith("scalar-"):
                        seq = src.split("-", 1)[1]
                        ff = qmc_orff.FourierFeatures(
                            "gaussian", sigma=sig_s, n_components=D, sequence=seq, seed=seed,
                            **({"scramble": "deterministic"} if seq == "halton" else {}))
                        F = ff.fit_transform(X)
                        model = Ridge(alpha=alpha_s, fit_intercept=False).fit(F, Y)
                        pred = model.predict(ff.transform(Xte))
                    else:
                        seq = fac.design("global", D) if src == "global" else src
                        extra = {"scramble": "deterministic"} if src == "halton" else {}
                        orff = qmc_orff.ORFF(kind, sigma=sigma, n_components=D, sequence=seq,
                                             measure=measure, seed=seed, **extra)
                        model = qmc_orff.ORFFRidge(orff, alpha=alpha,
                                                   fit_intercept=False).fit(X, Y)
                        pred = model.predict(Xte)
                    e = mse(pred, Yte)
                    errs.append(e)
                    rows.append({"experiment": "mse_vs_D", "field": kind, "model": label, "D": D,
                                 "rep": rep, "test_mse": e,
                                 "fit_seconds": time.perf_counter() - t0})
                print(f"  D={D:5d} {label:20s} mse={np.mean(errs):.3e}", flush=True)
        print(f"  exact OVK mse={err:.3e}")


def run_time(args, record, rows):
    import qmc_orff

    rng = np.random.default_rng(args.seed + 1)
    hp = record.params["hyperparameters"]["curl_free"]
    sigma, alpha = hp["ovk_sigma"], hp["ovk_alpha"]
    print(f"\nfit time against N (curl-free, D = {args.time_D}; best of "
          f"{TIME_REPEATS} below N = 3000, one run above; 2-core machine, noisy)")
    orff = qmc_orff.ORFF("curl_free", sigma=sigma, n_components=args.time_D,
                         sequence="halton", scramble="deterministic")
    Xw, Yw = make_data(50, "curl_free", args.bump_width, args.noise, rng)
    # warm-up: imports, compilation (no intercept, like the scalar Ridge it is compared with)
    qmc_orff.ORFFRidge(orff, alpha=alpha, fit_intercept=False).fit(Xw, Yw)
    exact_model("curl_free", sigma, alpha).fit(Xw, Yw)

    def best_time(make, X, Y):
        times = []
        for _ in range(TIME_REPEATS if X.shape[0] < 3000 else 1):
            t0 = time.perf_counter()
            make().fit(X, Y)
            times.append(time.perf_counter() - t0)
        return min(times)

    for N in args.time_N:
        X, Y = make_data(N, "curl_free", args.bump_width, args.noise, rng)
        t_orff = best_time(
            lambda: qmc_orff.ORFFRidge(orff, alpha=alpha, fit_intercept=False), X, Y)
        rows.append({"experiment": "time_vs_N", "field": "curl_free", "model": "ORFF ridge",
                     "N": N, "D": args.time_D, "rep": 0, "fit_seconds": t_orff})
        msg = f"  N={N:6d} ORFF {t_orff:.3f} s"
        if N <= args.exact_max_n:
            t_ex = best_time(lambda: exact_model("curl_free", sigma, alpha), X, Y)
            rows.append({"experiment": "time_vs_N", "field": "curl_free", "model": "exact OVK",
                         "N": N, "D": "", "rep": 0, "fit_seconds": t_ex})
            msg += f", exact {t_ex:.3f} s"
        else:
            record.note(f"exact OVK not run for N={N} > --exact-max-n={args.exact_max_n} "
                        f"(a {2 * N} x {2 * N} dense solve)")
        print(msg, flush=True)


def plot(rows, args, path):
    plt = C.pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4))
    mse_rows = [r for r in rows if r["experiment"] == "mse_vs_D"]
    summ = C.summarize(mse_rows, ["field", "model", "D"], ["test_mse"])
    for ax, kind in zip(axes[:2], ("curl_free", "div_free")):
        for model in dict.fromkeys(r["model"] for r in summ):
            pts = sorted((r["D"], r["test_mse_mean"], r["test_mse_std"]) for r in summ
                         if r["field"] == kind and r["model"] == model)
            if not pts:
                continue
            D, m, e = map(np.array, zip(*pts))
            ls = "-" if model == "exact OVK" else ("--" if model.startswith("ORFF") else ":")
            ax.errorbar(D, m, yerr=e, linestyle=ls, marker="o", markersize=3, capsize=2, label=model)
        ax.axhline(args.noise ** 2 * 2, color="0.6", lw=0.8, ls="-.", label="training noise (2 std^2)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("D (frequencies)")
        ax.set_ylabel("test MSE")
        ax.set_title(f"{kind} field (N={args.n_train})")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    ax = axes[2]
    t_rows = [r for r in rows if r["experiment"] == "time_vs_N"]
    for model, st in (("ORFF ridge", "o--"), ("exact OVK", "s-")):
        pts = sorted((r["N"], r["fit_seconds"]) for r in t_rows if r["model"] == model)
        if pts:
            N, t = map(np.array, zip(*pts))
            ax.plot(N, t, st, label=model + (f" (D={args.time_D})" if model.startswith("ORFF") else ""))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N (training points)")
    ax.set_ylabel("fit time (s)")
    ax.set_title("curl-free: fit time against N")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return C.save_figure(fig, path)


def main(argv=None):
    args = parse(argv)
    out = C.output_dir(args.out)
    record = C.RunRecord(NAME, args)
    record.params.update(n_train=args.n_train, n_test=args.n_test, D=args.D, reps=args.reps,
                         noise=args.noise, bump_width=args.bump_width, time_N=args.time_N,
                         time_D=args.time_D, exact_max_n=args.exact_max_n,
                         design_maxiter=args.design_maxiter)
    rows = []
    run_mse(args, record, rows, out / "cache")
    run_time(args, record, rows)
    csv_path = C.write_csv(out / f"{NAME}.csv", rows)
    png_path = plot(rows, args, out / f"{NAME}.png")
    C.finish(record, out, csv_path=csv_path, png_path=png_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
