"""Reproducers of issue 21 (reliability), each asserting the behaviour the issue asks for.

They were written as ``xfail(strict=True)`` before the fixes; every one now passes.  Only public names are imported (``qmc_orff.X``,
``qmc_orff.cli.main``) or the new homes of the layout.

Cases needing more memory than the size policy allows run in a subprocess under an
address-space cap (the process's size after import + 3 GiB), so that a regression fails
the test instead of filling the machine.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import warnings
import zipfile
import zlib

import numpy as np
import pytest

import qmc_orff
from qmc_orff.cli import main as cli_main

from _limits import traced_peak

#: One array of more than 2**28 float64 entries breaks the documented size policy.
LIMIT_BYTES = 2 ** 28 * 8


# --------------------------------------------------------------------------- helpers
def _gram_error(ff, X):
    """Relative Gram error ``||Z Z^T - K||_F / ||K||_F`` of a scalar Gaussian map on ``X``."""
    Z = ff.transform(X)
    Y = X / ff.sigma_
    sq = np.einsum("ij,ij->i", Y, Y)
    D2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * (Y @ Y.T), 0.0)
    np.fill_diagonal(D2, 0.0)
    K = np.exp(-0.5 * D2)
    return float(np.linalg.norm(Z @ Z.T - K) / np.linalg.norm(K))


def _peak_bytes(fn):
    """``(result or exception, peak bytes traced)`` of ``fn()``."""
    def returning_exception():
        try:
            return fn()
        except Exception as exc:  # noqa: BLE001 - returned for the caller's assertions
            return exc

    return traced_peak(returning_exception)


_CAPPED = textwrap.dedent('''
    import resource, sys, tracemalloc, warnings
    import numpy as np
    import qmc_orff as q
    warnings.simplefilter("ignore")
    with open("/proc/self/status") as fh:
        vm = [int(l.split()[1]) * 1024 for l in fh if l.startswith("VmSize:")][0]
    resource.setrlimit(resource.RLIMIT_AS, (vm + 3 * 2 ** 30,) * 2)
    rng = np.random.default_rng(0)
    tracemalloc.start()
    try:
        {body}
        out = "returned"
    except (ValueError, TypeError) as exc:
        out = type(exc).__name__ + ": " + str(exc)
    except MemoryError as exc:
        out = "MemoryError: " + str(exc)
    print(out.splitlines()[0])
    print(tracemalloc.get_traced_memory()[1])
''')


def _run_capped(body, timeout=300):
    """Run ``body`` (statements) in a fresh process under an address-space cap.

    Returns ``(outcome line, peak bytes)``: ``"returned"``, ``"ValueError: ..."``,
    ``"MemoryError: ..."``.
    """
    code = _CAPPED.replace("{body}", textwrap.indent(textwrap.dedent(body), " " * 4).strip())
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-2000:]
    line, peak = proc.stdout.strip().splitlines()[-2:]
    return line, int(peak)


# --------------------------------------------------------------------------- High: default map
#: label: data (300 rows from ``rng``: 200 to fit on, 100 held out); the default map crashed
#: with ZeroDivisionError on those in ``_CRASHING``
_DATA = {
    "normal d=2": lambda rng: rng.normal(size=(300, 2)),
    "normal d=64": lambda rng: rng.normal(size=(300, 64)),
    "normal d=256": lambda rng: rng.normal(size=(300, 256)),
    "normal d=1000": lambda rng: rng.normal(size=(300, 1000)),
    "normal d=4096": lambda rng: rng.normal(size=(300, 4096)),
    "pixels 0..255 d=784": lambda rng: rng.integers(0, 256, size=(300, 784)).astype(np.float64),
    "40 * uniform d=20": lambda rng: 40.0 * rng.uniform(size=(300, 20)),
    "1e-6 * normal d=8": lambda rng: 1e-6 * rng.normal(size=(300, 8)),
    "1e-3 * normal d=8": lambda rng: 1e-3 * rng.normal(size=(300, 8)),
    "1e3 * normal d=8": lambda rng: 1e3 * rng.normal(size=(300, 8)),
    "1e6 * normal d=8": lambda rng: 1e6 * rng.normal(size=(300, 8)),
    "digits * 16 d=64": lambda rng: 16.0 * _digits()[rng.permutation(1797)[:300]],
}
#: the default map crashed with ZeroDivisionError on these (issue 21) ...
_CRASHING = {"normal d=1000", "normal d=4096", "pixels 0..255 d=784", "40 * uniform d=20",
             "1e3 * normal d=8", "1e6 * normal d=8", "digits * 16 d=64"}
#: ... with sigma = 1 the kernel is numerically 0 (< 1e-12) between their sampled rows
#: (also at d = 256, where the block did not quite underflow), and the map says so
_VANISHING = _CRASHING | {"normal d=256"}


def _digits():
    from sklearn.datasets import load_digits

    return load_digits().data.astype(np.float64)


@pytest.mark.parametrize("label", list(_DATA))
def test_default_map_no_worse_than_orf_on_held_out_points(label):
    """The seedless default map at the default bandwidth (the median heuristic) works on raw
    and high-dimensional data, silently, and its held-out Gram error is at most 1.1 x the mean
    of 3 ORF draws of the same width (the library's own check margin, ``CHECK_MARGIN``).  At
    sigma = 1 (the former default) the kernel is numerically 0 between the rows of several
    of these sets: a UserWarning gives the median distance and the fix."""
    X = _DATA[label](np.random.default_rng(zlib.crc32(label.encode())))
    train, test = X[:200], X[200:]
    s = 128

    def vanishing(sigma):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            ff = qmc_orff.FourierFeatures(n_components=s, sigma=sigma).fit(train)
        return ff, [str(w.message) for w in record if issubclass(w.category, UserWarning)
                    and "median distance" in str(w.message)]

    default, said = vanishing(None)
    assert said == []
    _, said = vanishing(1.0)
    assert len(said) == (label in _VANISHING), said
    if said:
        assert "sigma=" in said[0] and "numerically 0" in said[0]
    err = _gram_error(default, test)
    orf = np.mean([_gram_error(qmc_orff.FourierFeatures(n_components=s, sequence="orf",
                                                        seed=k).fit(train), test)
                   for k in range(3)])
    assert np.isfinite(err)
    assert err <= 1.1 * orf, (err, orf)


@pytest.mark.parametrize("estimator", ["ORFF", "ORFFRidge"])
def test_default_operator_map_on_unscaled_data(estimator):
    X = 100.0 * np.random.default_rng(3).normal(size=(60, 20))
    with pytest.warns(UserWarning, match="median distance"):  # at the former default sigma=1
        if estimator == "ORFF":
            out = qmc_orff.ORFF(sigma=1.0).fit(X).transform(X[:5])
        else:
            out = qmc_orff.ORFFRidge(qmc_orff.ORFF(sigma=1.0)).fit(X, X / 100.0).predict(X[:5])
    assert np.all(np.isfinite(out))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the default bandwidth follows the data: no warning
        if estimator == "ORFF":
            out = qmc_orff.ORFF().fit(X).transform(X[:5])
        else:
            out = qmc_orff.ORFFRidge().fit(X, X / 100.0).predict(X[:5])
    assert np.all(np.isfinite(out))


def test_default_map_in_a_pipeline_on_raw_features():
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(100, 1000)), rng.normal(size=100)
    with pytest.warns(UserWarning, match="median distance"):  # at the former default sigma=1
        pred = make_pipeline(qmc_orff.FourierFeatures(sigma=1.0), Ridge()).fit(X, y).predict(
            X[:5])
    assert np.all(np.isfinite(pred))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pred = make_pipeline(qmc_orff.FourierFeatures(), Ridge()).fit(X, y).predict(X[:5])
    assert np.all(np.isfinite(pred))


def test_default_matern_map_on_high_dimensional_data():
    X = np.random.default_rng(5).normal(size=(100, 1000))
    with pytest.warns(UserWarning, match="median distance"):  # at the former default sigma=1
        Z = qmc_orff.FourierFeatures("matern", sigma=1.0).fit(X).transform(X[:5])
    assert np.all(np.isfinite(Z))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the default bandwidth follows the data: no warning
        Z = qmc_orff.FourierFeatures("matern").fit(X).transform(X[:5])
    assert np.all(np.isfinite(Z))


# --------------------------------------------------------------------------- Medium: sizes
def test_adaptive_huge_s_refused_before_allocation():
    line, peak = _run_capped("""
        q.adaptive_sequence(rng.normal(size=(50, 3)), 2 ** 40, sigma=2.0)
    """)
    assert line.startswith("ValueError") and "'s'" in line, line
    assert peak < 2 ** 26


def test_adaptive_huge_n_train_refused_before_allocation():
    line, peak = _run_capped("""
        q.adaptive_sequence(rng.normal(size=(40_100, 3)), 8, sigma=2.0, n_train=40_000,
                            maxiter=1)
    """)
    assert line.startswith("ValueError") and "'n_train'" in line, line
    assert peak < 2 ** 26


def test_adaptive_operator_default_sizes_within_the_policy():
    line, peak = _run_capped("""
        X = rng.normal(size=(700, 64))
        q.adaptive_operator_sequence(X, 8, sigma=8.0, maxiter=1)
    """)
    assert line == "returned" or line.startswith("ValueError"), line
    assert peak <= LIMIT_BYTES, peak


def test_operator_data_discrepancy_on_many_rows_within_the_policy():
    line, peak = _run_capped("""
        X = rng.normal(size=(8000, 5))
        q.OperatorDataDiscrepancy(X)(rng.normal(size=(8, 5)))
    """)
    assert line == "returned" or line.startswith("ValueError"), line
    assert peak <= LIMIT_BYTES, peak


def test_many_components_default_selection_within_the_policy():
    line, peak = _run_capped("""
        X = rng.normal(size=(200, 3))
        q.FourierFeatures(n_components=2 * 10 ** 6).fit(X)
    """)
    assert line == "returned" or (line.startswith("ValueError") and "'n_components'" in line), line
    assert peak <= LIMIT_BYTES, peak


# --------------------------------------------------------------------------- Medium: lost results
def test_failing_checkpoint_does_not_lose_the_run():
    X = np.random.default_rng(6).normal(size=(80, 3))
    kw = dict(sigma=2.0, maxiter=6, seed=0)
    reference = qmc_orff.adaptive_sequence(X, 8, **kw)

    def checkpoint(seq):
        raise OSError(28, "No space left on device")

    with pytest.warns(UserWarning, match="'checkpoint' failed at iteration 2"):
        got = qmc_orff.adaptive_sequence(X, 8, checkpoint=checkpoint, checkpoint_every=2, **kw)
    np.testing.assert_array_equal(got.points, reference.points)
    assert got.meta["iterations"] == reference.meta["iterations"]
    assert got.meta["validation_history"] == reference.meta["validation_history"]
    assert "No space left on device" in got.meta["checkpoint_error"]


def _npy_claiming(shape):
    text = "{'descr': '<f8', 'fortran_order': False, 'shape': %r, }" % (tuple(shape),)
    text = text.ljust(117) + "\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode() + bytes(1024)


def _one_line_exit_2(capsys, argv):
    rc = cli_main(argv)
    err = capsys.readouterr().err.strip()
    assert rc == 2, (rc, err)
    assert len(err.splitlines()) == 1, err
    return err


def test_cli_data_header_claiming_a_huge_shape(tmp_path, capsys):
    data = tmp_path / "big.npy"
    data.write_bytes(_npy_claiming((2 ** 40, 10)))
    err = _one_line_exit_2(capsys, ["design", "adaptive", "--data", str(data), "--s", "8",
                                    "--sigma", "1", "-o", str(tmp_path / "out.npz"), "--quiet"])
    assert "big.npy" in err


def test_cli_data_fifo_is_refused_without_hanging(tmp_path):
    fifo = tmp_path / "pipe.npy"
    os.mkfifo(fifo)
    proc = subprocess.run([sys.executable, "-m", "qmc_orff", "design", "adaptive", "--data",
                           str(fifo), "--s", "8", "--sigma", "1", "-o", str(tmp_path / "o.npz"),
                           "--quiet"], capture_output=True, text=True, timeout=20)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def _full_disk_run(tmp_path, method_args):
    """The CLI with a file-size limit of 64 KiB (SIGXFSZ ignored: writes fail with EFBIG,
    as on a full disk), after the same run without it (numba's cache files are written
    then, not under the limit)."""
    warm_args = method_args
    code = ("import resource, signal, sys; from qmc_orff.cli import main; "
            f"main({['design', *warm_args, '-o', str(tmp_path / 'warm.npz'), '--quiet']!r}); "
            "signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
            "resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536)); "
            "sys.exit(main(sys.argv[1:]))")
    return subprocess.run([sys.executable, "-c", code, "design", *method_args, "-o",
                           str(tmp_path / "out.npz"), "--quiet"], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path)


def test_cli_global_design_on_a_full_disk_exits_2_with_one_line(tmp_path):
    proc = _full_disk_run(tmp_path, ["global", "--d", "3", "--box-over-sigma", "1", "--maxiter",
                                     "1", "--s", "3000"])
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    # the fallback file is larger than the limit too: the one line says the result is lost
    assert "out.npz" in proc.stderr and "nor a fallback file" in proc.stderr, proc.stderr


def test_cli_adaptive_design_on_a_full_disk_exits_2_with_one_line(tmp_path):
    X = np.random.default_rng(7).normal(size=(300, 3))
    np.save(tmp_path / "x.npy", X)
    proc = _full_disk_run(tmp_path, ["adaptive", "--data", str(tmp_path / "x.npy"), "--sigma",
                                     "2", "--maxiter", "1", "--n-train", "20", "--n-validation",
                                     "10", "--s", "3000"])
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    # the fallback file is larger than the limit too: the one line says the result is lost
    assert "out.npz" in proc.stderr and "nor a fallback file" in proc.stderr, proc.stderr


# --------------------------------------------------------------------------- Medium: data weights
def test_optimal_weights_with_the_data_objective():
    rng = np.random.default_rng(8)
    obj = qmc_orff.DataDiscrepancy(rng.normal(size=(40, 3)))
    res = qmc_orff.optimal_weights(obj, rng.normal(size=(8, 3)), solver="nnls")
    w = np.asarray(res.weights)
    assert w.shape == (8,) and np.all(np.isfinite(w)) and np.all(w >= 0)
    assert w.sum() == pytest.approx(1.0)


# --------------------------------------------------------------------------- Low
_X3 = np.random.default_rng(9).normal(size=(30, 3))
_W8 = np.random.default_rng(10).normal(size=(8, 3))


@pytest.mark.parametrize("objective, case", [
    (o, c) for o in ("DataDiscrepancy", "OperatorDataDiscrepancy")
    for c in ("X", "W", "weights", "grad weights")])
def test_data_objectives_refuse_what_overflows(objective, case):
    make = getattr(qmc_orff, objective)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # an overflow warning is no answer
        _refuses(make, case)


def _refuses(make, case):
    name = {"X": "'X'", "W": "'W'"}.get(case, "'weights'")
    with pytest.raises(ValueError, match=name):
        if case == "X":
            make(1e300 * _X3)(_W8)
        elif case == "W":
            make(_X3)(1e300 * _W8)
        elif case == "weights":
            make(_X3)(_W8, np.full(8, 1e300))
        else:
            make(_X3).value_and_grad(_W8, np.full(8, 1e200))


def test_overflowing_data_gives_the_error_without_warnings():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="'X'"):
            qmc_orff.FourierFeatures(n_components=8).fit_transform(np.full((2, 3), 1e308))
    assert not [w for w in record if issubclass(w.category, RuntimeWarning)], \
        [str(w.message) for w in record]


def test_tiny_sigma_message_names_sigma():
    with pytest.raises(ValueError, match="'sigma'"):
        qmc_orff.adaptive_sequence(_X3, 8, sigma=1e-300, maxiter=1)


def test_complex_init_is_a_type_error():
    with pytest.raises(TypeError, match="'init'"):
        qmc_orff.adaptive_sequence(_X3, 8, sigma=2.0, init=_W8 + 1j, maxiter=1)


def test_partial_fit_skips_a_batch_of_zero_weights():
    rng = np.random.default_rng(11)
    X, y = rng.normal(size=(30, 3)), rng.normal(size=(30, 3))
    r = qmc_orff.ORFFRidge(qmc_orff.ORFF(n_components=16, seed=0))
    before = r.partial_fit(X, y).predict(X[:4])
    seen = r.n_samples_seen_
    after = r.partial_fit(X, y, sample_weight=np.zeros(30)).predict(X[:4])
    np.testing.assert_array_equal(after, before)
    assert r.n_samples_seen_ == seen
    # on the first batch there is nothing to keep: scikit-learn's error stands
    with pytest.raises(ValueError, match="non-zero"):
        qmc_orff.ORFFRidge(qmc_orff.ORFF(n_components=16, seed=0)).partial_fit(
            X, y, sample_weight=np.zeros(30))


def test_cbc_lattice_beyond_its_memory_is_a_value_error():
    out, peak = _peak_bytes(lambda: qmc_orff.cbc_lattice(2 ** 31, 1))
    assert isinstance(out, ValueError) and "'n'" in str(out), out
    assert peak < 2 ** 20


def test_set_num_threads_above_the_pool_in_a_one_thread_process():
    code = ("import warnings, qmc_orff; warnings.simplefilter('error', RuntimeWarning); "
            "qmc_orff.set_num_threads(4); print(qmc_orff.get_num_threads())")
    proc = subprocess.run([sys.executable, "-W", "always::UserWarning", "-c", code],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, NUMBA_NUM_THREADS="1"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "1"
    assert "'n' = 4 is more than the 1 threads available" in proc.stderr


# --------------------------------------------------------------------------- Low: files
def _edit_header(path, edit):
    """Rewrite the JSON header of a saved Sequence file through ``edit(header)``."""
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    header = json.loads(np.load(io.BytesIO(members["header.npy"])).tobytes())
    text = edit(header)
    text = text if isinstance(text, bytes) else json.dumps(header).encode()
    buf = io.BytesIO()
    np.save(buf, np.frombuffer(text, dtype=np.uint8))
    members["header.npy"] = buf.getvalue()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def _saved(tmp_path, meta):
    path = tmp_path / "seq.npz"
    qmc_orff.Sequence(np.random.default_rng(12).normal(size=(8, 3)), None, meta).save(path)
    return path


def _set(key, value):
    def edit(header):
        header["meta"][key] = value
    return edit


def _lone_surrogate(header):
    text = json.dumps(header)
    return text.replace('"meta": {', '"meta": {"note": "\\ud800", ', 1).encode()


@pytest.mark.parametrize("edit", [
    pytest.param(_set("box_over_sigma", 1e308), id="box_over_sigma=1e308"),
    pytest.param(_set("box_over_sigma", [1.0, 2.0]), id="box_over_sigma of the wrong length"),
    pytest.param(_set("box_over_sigma", -1.0), id="negative box_over_sigma"),
    pytest.param(_set("generating_vector", [-1, 2 ** 70, 3]), id="hostile lattice vector"),
    pytest.param(_set("lattice_n", -5), id="hostile lattice n"),
    pytest.param(_lone_surrogate, id="lone surrogate"),
])
def test_hostile_header_fields_are_refused(tmp_path, edit):
    path = _saved(tmp_path, {"method": "global", "density": "gaussian", "box_over_sigma": 1.0})
    _edit_header(path, edit)
    with pytest.raises(ValueError):
        qmc_orff.load_sequence(path)


def _adaptive_run(tmp_path, out, *extra):
    data = tmp_path / "x.npy"
    if not data.exists():
        np.save(data, np.random.default_rng(13).normal(size=(200, 3)))
    return cli_main(["design", "adaptive", "--data", str(data), "--s", "8", "--sigma", "2",
                     "--n-train", "40", "--n-validation", "20", "--quiet", "-o", str(out),
                     *extra])


@pytest.mark.parametrize("value", ["abc", -3, 10 ** 30, 2.5])
def test_resume_with_a_malformed_iterations_entry(tmp_path, capsys, value):
    first = tmp_path / "a.npz"
    assert _adaptive_run(tmp_path, first, "--maxiter", "2") == 0
    _edit_header(first, _set("iterations", value))
    capsys.readouterr()
    err = _one_line_exit_2(capsys, ["design", "adaptive", "--data", str(tmp_path / "x.npy"),
                                    "--s", "8", "--sigma", "2", "--n-train", "40",
                                    "--n-validation", "20", "--quiet", "--maxiter", "4",
                                    "--resume", str(first), "-o", str(tmp_path / "b.npz")])
    assert "'iterations'" in err and "invalid literal" not in err


def test_resume_keeps_the_whole_history(tmp_path):
    first, second = tmp_path / "a.npz", tmp_path / "b.npz"
    assert _adaptive_run(tmp_path, first, "--maxiter", "3", "--patience", "100") == 0
    assert _adaptive_run(tmp_path, second, "--maxiter", "6", "--patience", "100",
                         "--resume", str(first)) == 0
    m1, m2 = qmc_orff.load_sequence(first).meta, qmc_orff.load_sequence(second).meta
    h1, h2 = m1["validation_history"], m2["validation_history"]
    assert len(h2) == m2["iterations"] + 1
    assert h2[:len(h1)] == h1


@pytest.mark.parametrize("method", ["global", "adaptive"])
def test_cli_design_writes_a_fallback_file_when_the_output_fails(tmp_path, capsys, monkeypatch,
                                                                  method):
    """The output file cannot be written (ENOSPC on that path only): the finished design goes
    to a fallback file in the working folder, complete and equal to a normal run's."""
    data = tmp_path / "x.npy"
    np.save(data, np.random.default_rng(14).normal(size=(200, 3)))
    args = (["adaptive", "--data", str(data), "--sigma", "2", "--n-train", "40",
             "--n-validation", "20", "--maxiter", "3"] if method == "adaptive" else
            ["global", "--d", "3", "--box-over-sigma", "1", "--maxiter", "3"])
    args += ["--s", "8", "--quiet", "--seed", "0"]
    assert cli_main(["design", *args, "-o", str(tmp_path / "ref.npz")]) == 0
    out = tmp_path / "out.npz"
    save = qmc_orff.Sequence.save

    def failing_save(self, path, *a, **k):
        if os.fspath(path) == str(out):
            raise OSError(28, "No space left on device")
        return save(self, path, *a, **k)

    monkeypatch.setattr(qmc_orff.Sequence, "save", failing_save)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    err = _one_line_exit_2(capsys, ["design", *args, "-o", str(out)])
    assert "No space left on device" in err and "saved the result to" in err, err
    fallback = err.rsplit(" ", 1)[-1]
    assert os.path.dirname(fallback) == str(tmp_path), err
    got, ref = qmc_orff.load_sequence(fallback), qmc_orff.load_sequence(tmp_path / "ref.npz")
    np.testing.assert_array_equal(got.points, ref.points)
    assert got.meta["complete"] is True


def test_a_custom_density_name_loads_when_named(tmp_path):
    """A design for a user's ``CharacteristicDensity(name=...)`` records that name; its file
    loads when the caller names the density (``densities=``), and an unknown name is refused
    otherwise (a typo or a damaged header), with the known ones listed."""
    path = _saved(tmp_path, {"method": "global", "density": "sinc", "box_over_sigma": 1.0})
    assert qmc_orff.load_sequence(path, densities=["sinc"]).meta["density"] == "sinc"
    with pytest.raises(ValueError, match="'sinc' is not a known density \\(one of 'gaussian'"):
        qmc_orff.load_sequence(path)


def test_a_lattice_design_header_loads(tmp_path):
    path = _saved(tmp_path, {"method": "lattice", "density": "gaussian", "box_over_sigma": 1.0,
                             "generating_vector": [1, 3, 5], "lattice_n": 8})
    assert qmc_orff.load_sequence(path).meta["generating_vector"] == [1, 3, 5]


@pytest.mark.parametrize("kernel", ["curl_free", "div_free"])
def test_operator_objective_without_the_tensor_matches_the_kernel(kernel):
    """The blocks built from the closed form give the objective of the full
    ``(m, m, p, p)`` tensor of the public kernel (a plain numpy reference)."""
    rng = np.random.default_rng(15)
    X, W, xi = rng.normal(size=(25, 3)), rng.normal(size=(6, 3)), rng.uniform(size=6)
    from qmc_orff.kernels import CurlFree, DivFree

    sigma = 1.3
    K = (CurlFree if kernel == "curl_free" else DivFree)(sigma)(X)
    V = W  # the spectral measure: A~(w) = w w^T (curl), |w|^2 I - w w^T (div)
    A = V[:, :, None] * V[:, None, :]
    if kernel == "div_free":
        A = np.sum(V * V, axis=1)[:, None, None] * np.eye(3) - A
    cos = np.cos((X[:, None, :] - X[None, :, :]) @ W.T)  # (m, m, s)
    E = np.einsum("ijl,l,lab->ijab", cos, xi, A) - K
    ref = float(np.sum(E * E)) / 25 ** 2
    got = qmc_orff.OperatorDataDiscrepancy(X, kernel=kernel, sigma=sigma)(W, xi)
    assert got == pytest.approx(ref, rel=1e-12)
