"""Approximate kernel ridge regression (Avron et al. 2016, Tables 1 and 3).

Test error ``||y_hat - y|| / ||y||`` of ridge regression on Fourier features
(``FourierFeatures`` + ``sklearn.linear_model.Ridge`` in a pipeline), for each
sequence and number of frequencies ``s``.  As in the paper, the hyper-parameters
are chosen once by 5-fold cross-validation on the training set with the Monte
Carlo features (here: bandwidth on a grid around the median heuristic and the
ridge penalty, at the largest ``s``) and reused for every sequence.
Randomised sequences are repeated ``--reps`` times (mean and standard
deviation); designs (global / greedy / weighted, Table 3, started from
RR2-scrambled Halton) are optimised on the training data's box ``b`` and on
``b/4`` (the paper), and on the "moment" box ``b_j = sqrt(6 var_j)``
(``_common.data_box``).

The paper's regression data (cpu, census) are not available offline; the
defaults use scikit-learn's diabetes (442 x 10) and mlxtend's autompg
(392 x 8, target mpg), standardised, with a seeded 75/25 train/test split.

Outputs: ``regression.csv``, ``regression.png``, ``regression.json``, and
``regression_points.csv``: the squared error at every test point of each
deterministic predictor (exact kernel ridge, Halton, the designs), so that two
of them can be compared beyond the test set's noise (paired by test point).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

NAME = "regression"
PLAIN = ("mc", "orf", "halton", "sobol", "lattice")
DESIGNS = ("global", "greedy", "weighted")


def parse(argv=None):
    p = C.make_parser(__doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=["diabetes", "autompg"],
                   choices=["diabetes", "autompg"])
    p.add_argument("--s", nargs="+", type=int, default=[100, 300, 500])
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--design-maxiter", type=int, default=100)
    p.add_argument("--design-budget", type=float, default=5e6,
                   help="skip on-the-fly global/greedy designs with s^2 d above this")
    p.add_argument("--design-boxes", nargs="+", default=["b", "b/4", "moment"],
                   help="boxes the designs are optimised on: 'b' (the training data's range, "
                        "the paper), 'b/K' (a fraction of it), 'moment' (sqrt(6 var_j))")
    p.add_argument("--test-size", type=float, default=0.25)
    args = p.parse_args(argv)
    if args.quick:
        args.datasets = ["diabetes"]
        args.s = [32]
        args.reps = 2
        args.design_maxiter = 20
        args.design_boxes = ["b"]
    return args


def exact_centred_krr_predict(Xtr, ytr, Xte, sigma, alpha):
    """Predictions of kernel ridge with an unpenalised intercept (centred kernel).

    ``Ridge(fit_intercept=True)`` on features ``F`` centres ``F`` and ``y``; as
    the number of features grows, ``F F^T`` tends to ``K`` and its solution to
    ``c = (H K H + alpha I)^-1 (y - mean y)``, ``H = I - 11^T / n``, with
    predictions ``mean y + k_c(x)^T c``.
    """
    K = C.gaussian_gram(np.vstack([Xtr, Xte]), sigma)
    n = len(ytr)
    Ktr, Kte = K[:n, :n], K[n:, :n]
    col = Ktr.mean(axis=0)
    Kc = Ktr - col[None, :] - col[:, None] + col.mean()
    Kc[np.diag_indices(n)] += alpha
    c = np.linalg.solve(Kc, ytr - ytr.mean())
    Kte_c = Kte - Kte.mean(axis=1)[:, None] - col[None, :] + col.mean()
    return ytr.mean() + Kte_c @ c


def box_spec(spec):
    """'b' -> ('range', 1), 'b/4' -> ('range', 0.25), 'moment' -> ('moment', 1)."""
    if spec == "moment":
        return "moment", 1.0
    if spec == "b":
        return "range", 1.0
    if spec.startswith("b/"):
        return "range", 1.0 / float(spec[2:])
    raise ValueError(f"'design box' must be 'b', 'b/K' or 'moment'; got {spec!r}.")


def select_hyperparameters(X, y, s, seed, quick, *, model=None,
                           scoring="neg_mean_squared_error", factors=None, alphas=None):
    """5-fold CV on the Monte Carlo features: bandwidth factor and ridge penalty.

    ``model`` (default ``Ridge()``) is the estimator on the features, with an
    ``alpha``; ``classification.py`` passes ``RidgeClassifier()`` and accuracy,
    and a smaller grid (``factors`` of the median heuristic, ``alphas``).
    """
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV, KFold
    from sklearn.pipeline import Pipeline

    import qmc_orff

    sigma0 = C.median_heuristic(X, seed=seed)
    if factors is None:
        factors = [0.5, 1.0, 2.0] if quick else [0.25, 0.5, 1.0, 2.0, 4.0]
    if alphas is None:
        alphas = np.logspace(-6, 1, 4 if quick else 8)
    pipe = Pipeline([("features", qmc_orff.FourierFeatures("gaussian", sigma=sigma0,
                                                           n_components=s, sequence="mc",
                                                           seed=seed)),
                     ("model", Ridge() if model is None else model)])
    grid = GridSearchCV(pipe, {"features__sigma": [f * sigma0 for f in factors],
                               "model__alpha": alphas},
                        cv=KFold(5, shuffle=True, random_state=seed), scoring=scoring)
    grid.fit(X, y)
    best = grid.best_params_
    return float(best["features__sigma"]), float(best["model__alpha"]), sigma0


def point_rows(name, method, box, s, pred, yte):
    """One row per test point: its squared error (for paired comparisons by test point)."""
    return [{"dataset": name, "method": method, "design_box": box, "s": s, "point": i,
             "sq_error": float(e)} for i, e in enumerate((pred - yte) ** 2)]


def run(args, record, points):
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import train_test_split

    rows = []
    for name in args.datasets:
        X, y, info = C.load_dataset(name, seed=args.seed)
        y = y.astype(float)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=args.test_size,
                                              random_state=args.seed)
        t0 = time.perf_counter()
        sigma, alpha, sigma0 = select_hyperparameters(Xtr, ytr, max(args.s), args.seed, args.quick)
        record.params.setdefault("datasets", {})[name] = {
            **info, "n_train": len(ytr), "n_test": len(yte), "sigma": sigma, "alpha": alpha,
            "median_heuristic": sigma0, "cv_seconds": round(time.perf_counter() - t0, 2)}
        print(f"\n{name}: {info['description']}; train {len(ytr)}, test {len(yte)}; "
              f"5-fold CV on MC features: sigma={sigma:.4g} ({sigma / sigma0:g} x median), "
              f"alpha={alpha:.3g}")
        # Exact kernel ridge with the same hyper-parameters: the infinite-feature limit
        # of Ridge(fit_intercept=True) on the features, i.e. the doubly centred kernel.
        exact = exact_centred_krr_predict(Xtr, ytr, Xte, sigma, alpha)
        err = float(np.linalg.norm(exact - yte) / np.linalg.norm(yte))
        for s in args.s:
            rows.append({"dataset": name, "method": "exact-krr", "design_box": "", "s": s,
                         "rep": 0, "test_rel_error": err})
            points += point_rows(name, "exact-krr", "", s, exact, yte)
        tag = f"{name}-train{len(ytr)}-sig{sigma:.4g}"
        facs = {}
        for spec in args.design_boxes:
            kind, frac = box_spec(spec)
            facs[spec] = C.FrequencyFactory(d=X.shape[1], sigma=sigma,
                                            b=C.data_box(Xtr, frac, kind=kind),
                                            design_maxiter=args.design_maxiter,
                                            design_budget=args.design_budget,
                                            cache=args.out / "cache", tag=f"{tag}-{kind}{frac:g}")
        plain = C.FrequencyFactory(d=X.shape[1], sigma=sigma, b=C.data_box(Xtr), tag=tag)
        for s in args.s:
            jobs = [(m, "") for m in PLAIN] + [(m, spec) for m in DESIGNS
                                               for spec in args.design_boxes]
            for method, box in jobs:
                fac = facs[box] if box else plain
                reps = args.reps if method in C.RANDOMIZED else 1
                errs = []
                for rep in range(reps):
                    try:
                        tr = fac.transformer(method, s, seed=args.seed + rep)
                        Ftr = tr.fit_transform(Xtr)
                    except C.Skip as exc:
                        record.note(f"{name}: {exc}")
                        break
                    except Exception as exc:  # a failing method is reported, not fatal to the run
                        C.report_failure(record, f"{name}: {method} at s={s}", exc)
                        break
                    model = Ridge(alpha=alpha).fit(Ftr, ytr)
                    pred = model.predict(tr.transform(Xte))
                    e = float(np.linalg.norm(pred - yte) / np.linalg.norm(yte))
                    errs.append(e)
                    if method not in C.RANDOMIZED:
                        points += point_rows(name, method, box, s, pred, yte)
                    rows.append({"dataset": name, "method": method, "design_box": box, "s": s,
                                 "rep": rep, "test_rel_error": e})
                if errs:
                    print(f"  s={s:4d} {method:9s} {box:4s} error={np.mean(errs):.4f} "
                          f"(+-{np.std(errs, ddof=1) if len(errs) > 1 else 0:.4f})", flush=True)
    return rows


def plot(rows, args, path):
    plt = C.pyplot()
    names = [n for n in args.datasets if any(r["dataset"] == n for r in rows)]
    fig, axes = plt.subplots(1, len(names), figsize=(6.0 * len(names), 4.8), squeeze=False)
    summary = C.summarize(rows, ["dataset", "method", "design_box", "s"], ["test_rel_error"])
    order = ["exact-krr"] + list(C.METHODS)
    boxes = ["", "b", "b/2", "b/4", "moment"]
    for j, name in enumerate(names):
        ax = axes[0, j]
        series = sorted({(r["method"], r["design_box"]) for r in summary if r["dataset"] == name},
                        key=lambda mb: (order.index(mb[0]),
                                        boxes.index(mb[1]) if mb[1] in boxes else 99))
        s_all = sorted({r["s"] for r in summary if r["dataset"] == name})
        n = len(series)
        for k, (method, box) in enumerate(series):
            pts = sorted((s_all.index(r["s"]), r["test_rel_error_mean"], r["test_rel_error_std"])
                         for r in summary if r["dataset"] == name and r["method"] == method
                         and r["design_box"] == box)
            x, m_, e_ = map(np.array, zip(*pts))
            style = dict(C.METHOD_STYLES.get(method, dict(color="k", marker="_", linestyle="-")))
            style["linestyle"] = "none"
            if box.startswith("b/"):
                style["markerfacecolor"] = "none"
            elif box == "moment":
                style["alpha"] = 0.6
            lab = "exact kernel ridge" if method == "exact-krr" else \
                C.METHOD_LABELS[method] + (f" [{box}]" if box else "")
            ax.errorbar(x + 0.8 * (k - (n - 1) / 2) / n, m_, yerr=e_, capsize=2, markersize=5,
                        label=lab, **style)
        ax.set_xticks(range(len(s_all)), [str(v) for v in s_all])
        ax.set_xlabel("s (frequencies)")
        ax.set_ylabel(r"test $\|\hat y - y\| / \|y\|$")
        ax.set_title(name)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0, -1].legend(fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return C.save_figure(fig, path)


def main(argv=None):
    args = parse(argv)
    args.out = C.output_dir(args.out)
    record = C.RunRecord(NAME, args)
    record.params.update(s=args.s, reps=args.reps, design_maxiter=args.design_maxiter,
                         design_boxes=args.design_boxes, test_size=args.test_size)
    points = []
    rows = run(args, record, points)
    csv_path = C.write_csv(args.out / f"{NAME}.csv", rows)
    record.files.append(C.write_csv(args.out / f"{NAME}_points.csv", points))
    png_path = plot(rows, args, args.out / f"{NAME}.png")
    C.finish(record, args.out, csv_path=csv_path, png_path=png_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
