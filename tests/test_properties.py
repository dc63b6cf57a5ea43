"""Property-based tests of the public API (hypothesis): hostile inputs, one contract.

For every public estimator and function (``qmc_orff.__all__`` and the subpackages'), one
argument at a time is drawn from hostile generators -- random shapes (empty, 1-D, 3-D),
dtypes (float32/64, int, bool, complex, object, str), non-finite and extreme values
(NaN, inf, 1e300, subnormals, data scaled by 1e-200 .. 1e300), sparse matrices, pandas
DataFrames, non-contiguous, Fortran-ordered and read-only arrays, lists -- the others
ordinary.  The property: either a ``ValueError``/``TypeError`` whose message names the
parameter (for scikit-learn estimators, or scikit-learn's own validation message), or a
finite result of the right shape and dtype.  Never another exception, a silent NaN/inf,
a RuntimeWarning or a wrong shape.

Sizes are small (at most 8 rows, 4 columns): the contract is about values and types, the
size policy has its own tests (``test_hardening.py``, ``test_robustness.py``).  The
profiles (``tests/conftest.py``): "default" (derandomized, no example database, about
2,350 cases in ``make test``, 35 s on two cores) and "slow" (``make test-slow``, that is
``--hypothesis-profile=slow``: ten times as many, random).  ``TARGETS`` lists every public
callable; ``test_every_public_callable_has_a_target`` keeps the list complete.
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import qmc_orff as q  # noqa: E402
from qmc_orff import kernels as K  # noqa: E402

pd = pytest.importorskip("pandas")

# --------------------------------------------------------------------------- generators
EXTREMES = [0.0, -0.0, 1e300, -1e300, 1.7e308, -1.7e308, 1e-300, 5e-324, 1e160, -1e-200,
            np.inf, -np.inf, np.nan]
BAD_SCALARS = [0, -1, 0.0, -1.0, np.inf, np.nan, True, False, 1 + 1j, np.complex128(1.0),
               "1", None, [1.0], np.array([[1.0]]), object(), 1e-320, 1e300, 2 ** 40]
BAD_INTS = [-1, 0, 1, True, 2.5, "3", None, 1 + 0j, np.float64(3.0), [3], 2 ** 31 + 1,
            2 ** 40, 2 ** 63, 10 ** 30, np.int64(-2)]
DTYPES = ["float64", "float64", "float64", "float32", "int64", "bool", "complex128", "object",
          "str"]
CONTAINERS = ["array", "array", "noncontiguous", "fortran", "readonly", "list", "frame",
              "sparse"]


@st.composite
def values(draw, shape, extremes=EXTREMES):
    """Float64 entries of ``shape`` in one of four regimes: ordinary, ordinary with one hostile
    entry, ordinary scaled by 10**k (k in -300..300), or every entry hostile."""
    size = int(np.prod(shape))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    base = np.asarray(rng.normal(size=shape))
    regime = draw(st.sampled_from(["ordinary", "ordinary", "one", "scaled", "hostile"]))
    if regime == "one" and size:
        base.flat[draw(st.integers(0, size - 1))] = draw(st.sampled_from(extremes))
    elif regime == "scaled":
        base = base * 10.0 ** draw(st.integers(-300, 300))
    elif regime == "hostile":
        base = np.array([draw(st.sampled_from(extremes)) for _ in range(size)]).reshape(shape)
    return np.asarray(base)  # 0-d arrays stay arrays (scalar arithmetic returns scalars)


def _convert(base, dtype):
    with np.errstate(all="ignore"):
        if dtype in ("int64", "bool"):
            return np.nan_to_num(np.clip(base, -1e9, 1e9)).astype(dtype)
        if dtype == "complex128":
            return np.asarray(base + 0.5j)
        if dtype == "object":
            return base.astype(object)
        if dtype == "str":
            return base.astype(str)
        return base.astype(dtype)


def _contain(arr, container):
    if container == "noncontiguous" and arr.ndim == 2:
        wide = np.zeros((arr.shape[0], 2 * arr.shape[1]), dtype=arr.dtype)
        wide[:, ::2] = arr
        return wide[:, ::2]
    if container == "fortran":
        return np.asfortranarray(arr)
    if container == "readonly":
        arr = arr.copy()
        arr.setflags(write=False)
        return arr
    if container == "list":
        return arr.tolist()
    if container == "frame" and arr.ndim == 2:
        return pd.DataFrame(arr, columns=[f"c{j}" for j in range(arr.shape[1])])
    if container == "sparse" and arr.ndim == 2 and arr.dtype.kind in "fib":
        return sp.csr_matrix(arr)
    return arr


@st.composite
def arrays(draw, rows=(0, 8), cols=(0, 4), ndims=(2, 2, 2, 2, 2, 1, 3, 0),
           containers=CONTAINERS, dtypes=DTYPES, extremes=EXTREMES):
    """A hostile array-like: random shape, dtype, values and container."""
    ndim = draw(st.sampled_from(ndims))
    n, d = draw(st.integers(*rows)), draw(st.integers(*cols))
    shape = {0: (), 1: (n,), 2: (n, d), 3: (n, d, 2)}[ndim]
    arr = _convert(draw(values(shape, extremes)), draw(st.sampled_from(dtypes)))
    return _contain(arr, draw(st.sampled_from(containers)))


def matrices(rows=(2, 8), cols=(1, 4), containers=CONTAINERS, dtypes=DTYPES):
    """Mostly well-shaped 2-D inputs (the hostile part is in the values and types)."""
    return arrays(rows=rows, cols=cols, ndims=(2, 2, 2, 2, 2, 2, 2, 1), containers=containers,
                  dtypes=dtypes)


#: the extremes without the two that overflow a sum (targets of their own test those)
BOUNDED = [v for v in EXTREMES if not 1e300 <= abs(v) < np.inf]


def _below_1e300(v):
    return not (isinstance(v, float) and 1e300 <= abs(v) < np.inf)


def _ppf_inside(dens, t):
    """``dens.ppf(t)`` with its infinities at ``t = 0, 1`` and subnormal ``t`` (correct there:
    Cauchy's quantile is beyond float64 below ``t = 5.6e-309``) replaced by 0."""
    out = dens.ppf(t)
    tt = np.asarray(t, dtype=np.float64)
    return np.where((tt < 1e-300) | (tt == 1), 0.0, out)


def scalars():
    return st.one_of(st.sampled_from(BAD_SCALARS), st.floats(allow_nan=True),
                     st.floats(1e-3, 1e3))


def counts(low=1, high=12):
    return st.one_of(st.sampled_from(BAD_INTS), st.integers(low, high))


# --------------------------------------------------------------------------- the contract
#: scikit-learn's own validation messages (the estimators' conventions: check_estimator
#: tests them), accepted where an estimator validates ``X`` through ``validate_data``
SKLEARN_MESSAGES = re.compile(
    r"Expected 2D array|Expected a 2-dimensional|Found array with \d+ (sample|feature)|"
    r"Complex data not supported|dtype='numeric' is not compatible|could not convert|"
    r"Input (X|y|contains)|\bX has \d+ features|Sparse data was passed|"
    r"[Ss]parse (matrix|array|data|input)|Found input variables with inconsistent|"
    r"setting an array element|Unable to convert|Expected 1D|y should be a 1d array|"
    r"pandas dtypes must be int, float or bool|Sample weights|at least 1 dimension|"
    r"at least one array or dtype is required|"
    # numpy's conversion inside check_array, for a list of complex numbers
    r"float\(\) argument must be a string or a real number, not 'complex'")


def _finite(out):
    """Every float of a result (array, tuple, Sequence, WeightsResult, ...) finite."""
    if isinstance(out, (tuple, list)):
        return all(_finite(o) for o in out)
    if isinstance(out, q.Sequence):
        return _finite(out.points) and (out.weights is None or _finite(out.weights))
    if hasattr(out, "weights") and hasattr(out, "kkt_residual"):  # WeightsResult
        return _finite(np.asarray(out.weights)) and _finite(float(out.objective))
    arr = np.asarray(out)
    return arr.dtype.kind not in "fc" or bool(np.all(np.isfinite(arr)))


def holds(call, check, name, value, sklearn=False):
    """The property: a clear error naming ``name`` (a regular expression: the parameter, or
    the words that name it), or a finite result passing ``check``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # advice (e.g. n_components > n p)
        # as pyproject.toml: a RuntimeWarning of the library's own code is a failure
        warnings.filterwarnings("error", category=RuntimeWarning, module=r"qmc_orff.*")
        try:
            out = call(value)
        except (ValueError, TypeError) as exc:
            msg = str(exc)
            named = re.search(rf"(?<![A-Za-z_])({name})(?![A-Za-z_])", msg)
            assert named or (sklearn and SKLEARN_MESSAGES.search(msg)), \
                f"{type(exc).__name__} not naming {name!r}: {msg[:300]}"
            return
    assert _finite(out), f"a non-finite result without an error: {out!r}"[:400]
    check(value, out)


def _rows(value):
    return (value.shape[0] if hasattr(value, "shape") else len(value))


def _float_dtype(value):
    if isinstance(value, pd.DataFrame):
        return np.float32 if all(t == np.float32 for t in value.dtypes) else np.float64
    return np.float32 if getattr(value, "dtype", None) == np.float32 else np.float64


def _shape_is(*dims):
    def check(value, out):
        assert np.shape(out) == dims, (np.shape(out), dims)
    return check


def _float(value, out):
    assert isinstance(out, float), type(out)


# --------------------------------------------------------------------------- fitted fixtures
X4 = np.random.default_rng(0).normal(size=(8, 2))
W4 = np.random.default_rng(1).normal(size=(5, 2))


def _ff():
    return q.FourierFeatures(sigma=1.0, n_components=4, sequence="orf", seed=0).fit(X4)


def _transform_check(width_of):
    def check(value, out):
        assert out.shape[0] == _rows(value)
        assert out.dtype == _float_dtype(value), (out.dtype, _float_dtype(value))
        width_of(out)
    return check


# --------------------------------------------------------------------------- the targets
def _targets():
    """``(id, strategy, call, check, parameter name, sklearn-validated)`` for each public
    callable; several per callable where it takes several array or size arguments."""
    box = q.BoxDiscrepancy(1.0, d=2)
    data = q.DataDiscrepancy(X4, sigma=1.0)
    op = q.OperatorDataDiscrepancy(X4, kernel="curl_free", sigma=1.0)
    ff = _ff()
    t = []

    def add(tid, strategy, call, check, name, sklearn=False, xfail=None):
        marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
        t.append(pytest.param(strategy, call, check, name, sklearn, id=tid, marks=marks))

    rows_w = _transform_check(lambda out: None)
    # estimators: fit and transform on hostile X
    add("FourierFeatures.fit_transform", matrices(),
        lambda X: q.FourierFeatures(n_components=4).fit(X).transform(X), rows_w, "X", True)
    add("FourierFeatures.transform", matrices(), lambda X: ff.transform(X), rows_w, "X", True)
    add("FourierFeatures(sigma)", scalars(),
        lambda s: q.FourierFeatures(sigma=s, n_components=4, seed=0).fit(X4).transform(X4),
        _shape_is(8, 8), "sigma", True)
    add("ORFF.fit_transform", matrices(),
        lambda X: q.ORFF(n_components=4).fit(X).transform(X), rows_w, "X", True)
    add("ORFF(sample_weight)", arrays(rows=(8, 8), ndims=(1, 1, 1, 2, 0)),
        lambda w: q.ORFF(n_components=4).fit(X4, sample_weight=w).transform(X4),
        _shape_is(8, 16, 2), "sample_weight", True)
    add("OperatorNystroem.fit_transform", matrices(),
        lambda X: q.OperatorNystroem(n_components=4, seed=0).fit(X).transform(X), rows_w, "X",
        True)
    add("ORFFRidge.fit_predict", matrices(),
        lambda X: q.ORFFRidge(q.ORFF(sigma=1.0, n_components=4, seed=0)).fit(
            X, np.arange(_rows(X), dtype=float)).predict(X),
        lambda X, out: np.shape(out) == (_rows(X),), "X", True)
    ridge = lambda y: q.ORFFRidge(q.ORFF(sigma=1.0, n_components=4, seed=0)).fit(  # noqa: E731
        X4, y).predict(X4)
    add("ORFFRidge(y)", arrays(rows=(8, 8), ndims=(1, 1, 1, 2, 0), containers=CONTAINERS[:-1],
                               dtypes=[t for t in DTYPES if t != "object"]),
        ridge, lambda y, out: np.shape(out)[0] == 8, "y", True)
    add("ORFFRidge(y=object inf)", st.just(np.array([0.0] * 7 + [np.inf], dtype=object)), ridge,
        lambda y, out: np.shape(out)[0] == 8, "y", True)
    add("ORFFRidge(y=sparse)", st.just(sp.csr_matrix(np.ones((8, 1)))), ridge,
        lambda y, out: np.shape(out)[0] == 8, "y", True)
    # the Gram error and the objectives
    add("gram_error", matrices(), lambda X: q.gram_error(ff, X), _float, "X")
    add("DataDiscrepancy(X)", matrices(),
        lambda X: q.DataDiscrepancy(X)(np.ones((3, np.shape(X)[-1]))), _float, "X")
    add("DataDiscrepancy(W)", matrices(), lambda W: data.value_and_grad(W),
        lambda W, out: np.shape(out[1]) == np.shape(np.asarray(W, dtype=float)), "W")
    add("DataDiscrepancy(sigma)", scalars(), lambda s: q.DataDiscrepancy(X4, sigma=s)(W4),
        _float, "sigma")
    add("OperatorDataDiscrepancy(X)", matrices(),
        lambda X: q.OperatorDataDiscrepancy(X, kernel="curl_free")(W4[:, :1].repeat(
            np.shape(X)[1] if np.ndim(X) == 2 else 1, axis=1)), _float, "X")
    add("OperatorDataDiscrepancy(W)", matrices(), lambda W: op.value_and_grad(W),
        lambda W, out: out[1].shape[0] == _rows(W), "W")
    add("BoxDiscrepancy(W)", matrices(), lambda W: box.value_and_grad(W),
        lambda W, out: out[1].shape[0] == _rows(W), "W")
    add("BoxDiscrepancy(b)", scalars(), lambda b: q.BoxDiscrepancy(b, d=2)(W4), _float, "b")
    add("BoxDiscrepancy(sigma)", scalars(),
        lambda s: q.BoxDiscrepancy(1.0, sigma=s, d=2)(W4), _float, "sigma")
    add("box_from_data", matrices(), lambda X: q.box_from_data(X),
        lambda X, out: out.shape == (np.shape(np.asarray(X.toarray() if sp.issparse(X) else X,
                                                         dtype=object))[1],), "X")
    add("optimal_weights", matrices(), lambda W: q.optimal_weights(box, W, solver="nnls"),
        lambda W, out: np.shape(out.weights) == (_rows(W),), "W")
    # frequencies and designs (sizes and scalars)
    add("make_frequencies(n_components)", counts(),
        lambda n: q.make_frequencies("gaussian", n, 2, seed=0),
        lambda n, out: out[0].shape == (int(n), 2), "n_components")
    add("make_frequencies(sigma)", st.one_of(scalars(), arrays(rows=(2, 2), ndims=(1,))),
        lambda s: q.make_frequencies("gaussian", 4, 2, sigma=s, seed=0),
        lambda s, out: out[0].shape == (4, 2), "sigma")
    add("global_sequence(s)", counts(),
        lambda s: q.global_sequence(box, s, maxiter=2, seed=0),
        lambda s, out: out.points.shape == (int(s), 2), "s")
    add("greedy_sequence(s)", counts(),
        lambda s: q.greedy_sequence(box, s, maxiter=2, seed=0),
        lambda s, out: out.points.shape == (int(s), 2), "s")
    add("weighted_sequence(s)", counts(), lambda s: q.weighted_sequence(box, s, seed=0),
        lambda s, out: out.points.shape == (int(s), 2), "s")
    add("lattice_sequence(s)", counts(), lambda s: q.lattice_sequence(box, s),
        lambda s, out: out.points.shape == (int(s), 2), "s")
    add("global_sequence(init)", matrices(rows=(1, 6), containers=CONTAINERS[:-1],
                                          dtypes=[t for t in DTYPES if t != "complex128"]),
        lambda W: q.global_sequence(box, _rows(W), init=W, maxiter=2),
        lambda W, out: out.points.shape[0] == _rows(W), "init")
    add("global_sequence(init=sparse|complex)", st.sampled_from(
            [sp.csr_matrix(np.ones((2, 2))), np.ones((2, 2)) + 1j]),
        lambda W: q.global_sequence(box, 2, init=W, maxiter=2),
        lambda W, out: out.points.shape == (2, 2), "init")
    add("adaptive_sequence(X)", matrices(rows=(2, 8)),
        lambda X: q.adaptive_sequence(X, 4, sigma=1.0, n_train=4, n_validation=2, maxiter=2,
                                      min_iterations=1, seed=0),
        lambda X, out: out.points.shape[0] == 4, "X")
    add("adaptive_operator_sequence(X)", matrices(rows=(2, 8), cols=(2, 3)),
        lambda X: q.adaptive_operator_sequence(X, 4, sigma=1.0, n_train=4, n_validation=2,
                                               maxiter=2, seed=0),
        lambda X, out: out.points.shape[0] == 4, "X")
    # generators
    for E in (q.Halton, q.Sobol, q.Lattice):
        add(f"{E.__name__}(d)", counts(1, 6), lambda d, E=E: E(d, seed=0).random(4),
            lambda d, out: out.shape == (4, int(d)), "d")
        add(f"{E.__name__}.random(n)", counts(0, 16), lambda n, E=E: E(2, seed=0).random(n),
            lambda n, out: out.shape == (int(n), 2), "n")
    add("cbc_lattice(n)", counts(2, 64), lambda n: q.cbc_lattice(n, 2),
        lambda n, out: np.shape(out) == (2,), "n")
    add("cbc_lattice(weights)", st.one_of(scalars().filter(_below_1e300),
                                          arrays(rows=(2, 2), ndims=(1,), extremes=BOUNDED)),
        lambda w: q.cbc_lattice(16, 2, weights=w), lambda w, out: np.shape(out) == (2,),
        "weights")
    add("cbc_lattice(weights=5e307)", st.just(5.464331887498638e+307),
        lambda w: q.cbc_lattice(16, 2, weights=w), lambda w, out: np.shape(out) == (2,),
        "weights")
    add("worst_case_error(z)", arrays(rows=(1, 3), ndims=(1, 1, 1, 2, 0)),
        lambda z: q.worst_case_error(z, 16), _float, "z")
    # densities, kernels, sequences, catalogue, threads
    add("get_density", st.one_of(st.sampled_from(["gaussian", "laplacian", "matern", "nope",
                                                  "", "GAUSSIAN"]), scalars()),
        lambda k: q.get_density(k).ppf(np.array([0.25, 0.5])),
        lambda k, out: np.shape(out) == (2,), "kernel")
    for dens in (q.GaussianDensity(), q.CauchyDensity()):  # ppf(0) = -inf, ppf(1) = inf
        add(f"{type(dens).__name__}.ppf", arrays(rows=(0, 6), ndims=(1, 1, 2, 0)),
            lambda t, dens=dens: _ppf_inside(dens, t),
            lambda t, out: np.shape(out) == np.shape(np.asarray(t, dtype=object)), "t")
    add("CharacteristicDensity(char_fn)", st.sampled_from([None, 3, "x", np.exp, abs]),
        lambda f: q.CharacteristicDensity(f, ppf=q.GaussianDensity().ppf).C(1.0),
        lambda f, out: True, "char_fn")
    for kern in (K.Gaussian(1.0), K.Laplacian(1.0), K.Matern(1.5, 1.0), K.CurlFree(1.0)):
        add(f"{type(kern).__name__}(X)", matrices(), lambda X, kern=kern: kern(X),
            lambda X, out: out.shape[0] == out.shape[1], "X")
    add("Sequence(points)", matrices(rows=(1, 6)),
        lambda P: q.Sequence(P, meta={"density": "gaussian"}).frequencies(1.0),
        lambda P, out: out.shape[0] == _rows(P), "points")
    add("load_sequence(path)", st.sampled_from([b"\x00", "", "/nonexistent/x.npz",
                                                "/dev/null", "."]),
        lambda p: q.load_sequence(p), lambda p, out: True, "path|sequence file")
    add("load_sequence(path=None)", st.sampled_from([None, 3, ["a"]]),
        lambda p: q.load_sequence(p), lambda p, out: True, "path|sequence file")
    add("load_catalogue(d)", counts(1, 20), lambda d: q.load_catalogue(d, 64),
        lambda d, out: out.points.shape == (64, int(d)), "d")
    add("list_catalogue(d)", counts(1, 20), lambda d: q.list_catalogue(d=d),
        lambda d, out: isinstance(out, list), "d")
    add("build_catalogue(d_values)", st.sampled_from([None, 3, "x", [0], [-1], [2.5], [True]]),
        lambda v: q.build_catalogue("/nonexistent/qmc", d_values=v, s_values=[]),
        lambda v, out: True, "d_values")
    add("set_num_threads(n)", counts(1, 2),
        lambda n: (q.set_num_threads(n), q.get_num_threads(), q.set_num_threads(None))[1],
        lambda n, out: out >= 1, "n")
    add("num_threads(n)", counts(1, 2), lambda n: _in_threads(n),
        lambda n, out: out >= 1, "n")
    add("set_dask_task_threads(n)", counts(1, 2),
        lambda n: (q.threads.set_dask_task_threads(n), q.threads.get_dask_task_threads(),
                   q.threads.set_dask_task_threads(1))[1], lambda n, out: out >= 1, "n")
    # the subpackages' public functions
    add("householder_complement(W)", matrices(rows=(1, 4), cols=(2, 3)),
        lambda W: q.maps.householder_complement(W), lambda W, out: True, "W")
    add("source_points(s)", counts(), lambda s: q.maps.source_points("sobol", s, 2, seed=0),
        lambda s, out: np.shape(out)[0] == int(s), "s")
    add("initial_points(s)", counts(), lambda s: q.designs.initial_points("halton", s, 2),
        lambda s, out: np.shape(out)[0] == int(s), "s")
    add("median_heuristic(X)", matrices(), lambda X: q.designs.median_heuristic(X),
        lambda X, out: out > 0, "X")
    add("to_frequencies(t)", arrays(rows=(1, 4), cols=(2, 2)),
        lambda t: q.designs.to_frequencies(t, q.GaussianDensity(), 1.0),
        lambda t, out: np.shape(out) == np.shape(t), "t|unit points")
    add("solve_weights_qp(H)", arrays(rows=(3, 3), cols=(3, 3)),
        lambda H: q.objectives.solve_weights_qp(H, np.ones(3)),
        lambda H, out: np.shape(out.weights) == (3,), "H")
    add("check_psd_matrix(A)", arrays(rows=(1, 3), cols=(1, 3), extremes=BOUNDED),
        lambda A: K.check_psd_matrix(A), lambda A, out: out.shape[0] == out.shape[1], "A")
    add("check_psd_matrix(A=1.7e308)", st.just(np.array([[1.7e308]])),
        lambda A: K.check_psd_matrix(A), lambda A, out: True, "A")
    add("Decomposable(A)", arrays(rows=(2, 2), cols=(2, 2), extremes=BOUNDED),
        lambda A: K.Decomposable(K.Gaussian(1.0), A)(X4),
        lambda A, out: out.shape[:2] == (8, 8), "A")
    for kern in (K.SkewedChi2(1.0, 1.0), K.DivFree(1.0),
                 K.SumKernel(K.CurlFree(1.0), K.DivFree(2.0))):
        add(f"{type(kern).__name__}(X)", matrices(cols=(2, 3)), lambda X, kern=kern: kern(X),
            lambda X, out: out.shape[0] == out.shape[1], "X")
    add("scalar_kernel(sigma)", st.one_of(scalars(), arrays(rows=(2, 2), ndims=(1,))),
        lambda sg: K.scalar_kernel("gaussian", sg)(X4), _shape_is(8, 8), "sigma")
    add("operator_kernel(d)", st.integers(-3, 6),
        lambda d: K.operator_kernel("curl_free", 1.0, d), lambda d, out: True, "d")
    add("operator_kernel(d='3')", st.just("3"), lambda d: K.operator_kernel("curl_free", 1.0, d),
        lambda d, out: True, "d")
    # (an exception's classifier: its argument is always an exception)
    add("is_interrupt(exc)", st.sampled_from([KeyboardInterrupt(), SystemError("x"),
                                              ValueError("x"), MemoryError()]),
        lambda e: q.designs.is_interrupt(e), lambda e, out: isinstance(out, bool), "exc")
    add("entry_name(d)", counts(1, 64),
        lambda d: q.catalogue.entry_name(d, 64, 0.5, "global"), lambda d, out: True, "d")
    add("default_maxiter(s)", counts(1, 1024), lambda s: q.catalogue.default_maxiter(2, s),
        lambda s, out: out >= 0, "s")
    add("score_entry(points)", matrices(rows=(2, 6), cols=(2, 2)),
        lambda P: q.catalogue.score_entry(P, None, 0.5, n_points=40, orf_seeds=1),
        lambda P, out: True, "points")
    add("read_lattice(path)", st.sampled_from(["", "/nonexistent/x.lat", "/dev/null", "."]),
        lambda p: q.sequence.read_lattice(p), lambda p, out: True, "path|lattice file")
    return t


def _in_threads(n):
    with q.num_threads(n):
        return q.get_num_threads()


TARGETS = _targets()
#: examples per target: "default" runs about 2,350 in all, "slow" ten times as many
EXAMPLES = settings.default.max_examples
#: examples run per target in this session (the floor of 2,000 is checked at the end)
_RUN = {}


@pytest.mark.parametrize("strategy, call, check, name, sklearn", TARGETS)
@settings(max_examples=EXAMPLES)
@given(data=st.data())
def test_hostile_input_is_refused_clearly_or_computed_finitely(data, strategy, call, check,
                                                               name, sklearn):
    _RUN[call] = _RUN.get(call, 0) + 1
    holds(call, check, name, data.draw(strategy, label=name), sklearn)


#: public names that are not callables taking inputs: constants, protocols, base classes
#: and result types (every other name of ``qmc_orff.__all__`` and the subpackages' has a target)
NOT_CALLED = {"KERNELS", "OPERATOR_KERNELS", "FORMAT_VERSION", "MAX_HEADER_BYTES",
              "MAX_LATTICE_BYTES", "BOX_OVER_SIGMA", "CATALOGUE_VERSION", "D_VALUES", "METHODS",
              "S_VALUES", "Objective", "UnitBandwidth", "WeightsResult", "Kernel",
              "OperatorKernel", "ProductDensity", "__version__", "user_catalogue_dir",
              "get_num_threads", "get_dask_task_threads", "SOURCES", "KNOWN_DENSITIES",
              "MAX_DESIGN_POINTS", "MAX_ELEMENTS", "SCALAR_KERNELS"}
SUBPACKAGES = ("maps", "sources", "designs", "objectives", "generators", "learning", "kernels",
               "densities", "sequence", "catalogue", "threads")


def test_every_public_callable_has_a_target():
    import importlib

    public = set(q.__all__)
    for sub in SUBPACKAGES:
        public |= set(importlib.import_module(f"qmc_orff.{sub}").__all__)
    ids = " ".join(p.id for p in TARGETS)
    missing = sorted(n for n in public - NOT_CALLED if not re.search(rf"\b{n}\b", ids))
    assert not missing, f"public callables without a property target: {missing}"


def test_the_property_ran_at_least_2000_cases():
    # meaningful where every target ran in this session (not under -k)
    expected = [p.values[1] for p in TARGETS if not p.marks]
    if not all(call in _RUN for call in expected):
        pytest.skip("not every property target ran in this session")
    assert sum(_RUN[call] for call in expected) >= 2000, sum(_RUN.values())
