"""Which map? Held-out Gram error of Nystroem, the adaptive map, ORF, the default map and MC.

Digits and breast cancer (scikit-learn, standardised, constant columns dropped), split in half:
the maps are fitted on the first half, the relative Frobenius Gram error (qmc_orff.gram_error)
is measured on the second.  Bandwidth: the median heuristic of the training half.  Width:
512 columns on digits, 128 on breast cancer (fewer than half its 284 training points; Nystroem:
that many landmarks; Fourier maps: half as many frequencies, cos and sin).  Randomised maps:
mean and std over 5 seeds (the adaptive map: 3 seeds, each a design on the training half).
Run: python examples/which_map.py
"""
import numpy as np
from scipy.spatial.distance import pdist
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.kernel_approximation import Nystroem
from sklearn.preprocessing import StandardScaler

import qmc_orff
from qmc_orff.kernels import Gaussian

COLUMNS = {"digits": 512, "breast_cancer": 128}
SEEDS = range(5)
ADAPTIVE_SEEDS = range(3)


def data(name):
    X = (load_digits() if name == "digits" else load_breast_cancer()).data
    X = X[:, X.std(axis=0) > 0]
    perm = np.random.default_rng(0).permutation(len(X))
    half = len(X) // 2
    train, test = X[perm[:half]], X[perm[half:]]
    scaler = StandardScaler().fit(train)
    return scaler.transform(train), scaler.transform(test)


def main():
    for name in ("digits", "breast_cancer"):
        train, test = data(name)
        sigma = float(np.median(pdist(train))) / np.sqrt(2.0)
        kernel = Gaussian(sigma)
        gamma = 1.0 / (2.0 * sigma ** 2)
        rows = {}
        width = COLUMNS[name]
        for label, make in [
            ("Nystroem", lambda s: Nystroem(gamma=gamma, n_components=width, random_state=s)),
            ("ORF (sequence='orf')", lambda s: qmc_orff.FourierFeatures(
                sigma=sigma, n_components=width // 2, sequence="orf", seed=s)),
            ("MC (sequence='mc')", lambda s: qmc_orff.FourierFeatures(
                sigma=sigma, n_components=width // 2, sequence="mc", seed=s)),
            ("adaptive (sequence='adaptive')", lambda s: qmc_orff.FourierFeatures(
                sigma=sigma, n_components=width // 2, sequence="adaptive", seed=s)),
        ]:
            seeds = ADAPTIVE_SEEDS if "adaptive" in label else SEEDS
            errs = [qmc_orff.gram_error(make(s).fit(train), test, n_samples=len(test),
                                        kernel=kernel, seed=0) for s in seeds]
            rows[label] = (np.mean(errs), np.std(errs))
        default = qmc_orff.FourierFeatures(sigma=sigma, n_components=width // 2).fit(train)
        rows["default (sequence='auto', deterministic)"] = (
            qmc_orff.gram_error(default, test, n_samples=len(test), kernel=kernel, seed=0), 0.0)
        print(f"{name}: n_train={len(train)}, n_test={len(test)}, d={train.shape[1]}, "
              f"sigma={sigma:.4g}, {width} columns; held-out relative Frobenius Gram error")
        for label, (mean, std) in rows.items():
            print(f"  {label:38s} {mean:.4f}" + (f" ± {std:.4f}" if std else ""))


if __name__ == "__main__":
    main()
