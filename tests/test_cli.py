"""The qmc-orff command line, end to end in subprocesses (small sizes)."""
import json
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from qmc_orff import BoxDiscrepancy
from qmc_orff.cli import main
from qmc_orff import weighted_sequence
from qmc_orff.sequence import Sequence, load_sequence, read_lattice


def run(*args, check=True, timeout=120):
    proc = subprocess.run([sys.executable, "-m", "qmc_orff.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}: {proc.stderr}")
    return proc


def call(*args, capsys=None):
    """Run the CLI in-process (no interpreter start-up); return (status, stdout, stderr)."""
    try:
        status = main([str(a) for a in args])
    except SystemExit as exc:
        status = exc.code
    if capsys is None:
        return status, "", ""
    cap = capsys.readouterr()
    return status, cap.out, cap.err


def box(r, d):
    return BoxDiscrepancy(np.full(d, float(r)), sigma=np.ones(d))


def test_generate_then_discrepancy(tmp_path):
    out = tmp_path / "h.npz"
    run("generate", "halton", "--d", 3, "--n", 32, "-o", out)
    seq = load_sequence(out)
    assert seq.s == 32 and seq.d == 3 and np.all(np.isfinite(seq.points))
    proc = run("discrepancy", out, "--box", 4, "--sigma", 2, "--json")
    res = json.loads(proc.stdout)
    # box 4 at bandwidth 2: the frequencies are points / 2
    obj = BoxDiscrepancy(np.full(3, 4.0), sigma=np.full(3, 2.0))
    assert res["d2"] == pytest.approx(obj(seq.points / 2.0), rel=1e-12)
    assert res["s"] == 32 and res["weighted"] is False


def test_generate_formats(tmp_path, capsys):
    assert call("generate", "sobol", "--d", 2, "--n", 16, "--unit-cube", "-o",
                tmp_path / "s.txt") == (0, "", "")
    t = np.loadtxt(tmp_path / "s.txt")
    assert t.shape == (16, 2) and np.all((t >= 0) & (t < 1))
    assert call("generate", "lattice", "--d", 2, "--n", 16, "-o", tmp_path / "l.npy")[0] == 0
    W = np.load(tmp_path / "l.npy")
    assert W.shape == (16, 2) and np.all(np.isfinite(W))
    assert call("generate", "halton", "--d", 2, "--n", 8, "--scramble", "deterministic",
                "-o", tmp_path / "r.csv")[0] == 0
    assert np.all(np.isfinite(np.loadtxt(tmp_path / "r.csv", delimiter=",")))
    capsys.readouterr()
    status, out, _ = call("discrepancy", tmp_path / "l.npy", "--box", 1, capsys=capsys)
    assert status == 0 and out.startswith("D^2 = ")


def test_design_global_checkpoint_and_resume(tmp_path):
    out = tmp_path / "g.npz"
    proc = run("design", "global", "--d", 2, "--s", 16, "--box-over-sigma", 2, "--maxiter", 6,
               "--checkpoint-every", 2, "-o", out)
    assert "ratio to Halton" in proc.stderr  # the progress bar
    first = load_sequence(out)
    assert first.meta["complete"] is True and first.meta["iterations"] <= 6
    out2 = tmp_path / "g2.npz"
    proc = run("design", "global", "--d", 2, "--s", 16, "--box-over-sigma", 2, "--maxiter", 12,
               "--resume", out, "-o", out2)
    second = load_sequence(out2)
    m = second.meta
    # the resumed run's progress counts the whole run: iteration/--maxiter, from the checkpoint's
    # iteration on (not 1/6 .. 6/6 of the iterations left)
    counts = re.findall(r"^progress: (\d+)/(\d+) ", proc.stderr, flags=re.M)
    assert counts and {total for _, total in counts} == {"12"}, proc.stderr
    assert int(counts[0][0]) > first.meta["iterations"]
    assert int(counts[-1][0]) == m["iterations"]
    # continues from the checkpoint: its history starts with the first run's
    assert m["history"][:len(first.meta["history"])] == first.meta["history"]
    assert m["iterations"] == first.meta["iterations"] + len(m["history"]) - len(first.meta["history"])
    assert m["iterations"] <= 12
    assert m["d2"] <= first.meta["d2"]
    assert m["d2"] == pytest.approx(box(2.0, 2)(second.points), rel=1e-12)


def test_design_other_methods(tmp_path):
    assert call("design", "weighted", "--d", 2, "--s", 16, "--box-over-sigma", 1, "-o",
                tmp_path / "w.npz")[0] == 0
    w = load_sequence(tmp_path / "w.npz")
    assert w.weights is not None and w.meta["d2"] < w.meta["halton_d2"]
    assert abs(w.weights.sum() - 1.0) <= 1e-12  # sum(xi) = 1 by default
    # the paper's unconstrained QP on request: the same problem as the library's
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # it warns when the sum is far from 1
        assert call("design", "weighted", "--d", 2, "--s", 16, "--box-over-sigma", 1,
                    "--unconstrained-weights", "-o", tmp_path / "u.npz")[0] == 0
        ref = weighted_sequence(box(1.0, 2), 16, d=2, sum_to_one=False)
    u = load_sequence(tmp_path / "u.npz")
    np.testing.assert_allclose(u.weights, ref.weights, rtol=1e-10, atol=1e-14)
    assert u.meta["d2"] <= w.meta["d2"] * (1 + 1e-9)  # the constraint can only cost
    assert call("design", "lattice", "--d", 2, "--s", 16, "--box-over-sigma", 1, "-o",
                tmp_path / "l.npz", "--lattice-txt", tmp_path / "l.txt")[0] == 0
    n, z = read_lattice(tmp_path / "l.txt")
    assert n == 16 and z.tolist() == load_sequence(tmp_path / "l.npz").meta["generating_vector"]
    # greedy: checkpoints, then a resumed run continues after the checkpoint's points
    assert call("design", "greedy", "--d", 2, "--s", 8, "--box-over-sigma", 1, "--maxiter", 10,
                "--checkpoint-every", 3, "-o", tmp_path / "gr.npz", "--quiet")[0] == 0
    gr = load_sequence(tmp_path / "gr.npz")
    assert gr.s == 8 and len(gr.meta["history"]) == 8 and gr.meta["complete"] is True
    Sequence(gr.points[:5], None, gr.meta | {"s": 5}).save(tmp_path / "part.npz")
    assert call("design", "greedy", "--d", 2, "--s", 8, "--box-over-sigma", 1, "--maxiter", 10,
                "--resume", tmp_path / "part.npz", "-o", tmp_path / "gr2.npz", "--quiet")[0] == 0
    gr2 = load_sequence(tmp_path / "gr2.npz")
    np.testing.assert_array_equal(gr2.points, gr.points)
    assert gr2.meta["resumed_points"] == 5


def test_catalogue_commands(tmp_path, capsys):
    status, out, _ = call("catalogue", "list", capsys=capsys)
    assert status == 0 and out
    assert call("catalogue", "build", "--out", tmp_path, "--d-values", 2, "--s-values", 8,
                "--box-values", 1, "--maxiter", 3)[0] == 0
    assert (tmp_path / "index.json").is_file()
    capsys.readouterr()
    status, out, _ = call("catalogue", "build", "--out", tmp_path, "--d-values", 2, "--s-values",
                          8, "--box-values", 1, "--maxiter", 3, "--resume", capsys=capsys)
    assert status == 0 and out.count("kept") == 2


@pytest.mark.parametrize("args, match", [
    (["design", "global", "--d", "0", "--s", "4", "--box-over-sigma", "1", "-o", "x.npz"],
     "argument --d: expected a positive integer; got '0'"),
    (["design", "global", "--d", "2", "--s", "4", "--box-over-sigma", "-1", "-o", "x.npz"],
     "argument --box-over-sigma"),
    (["design", "simplex", "--d", "2"], "invalid choice: 'simplex'"),
    (["discrepancy", "missing.npz", "--box", "1"], "cannot read 'missing.npz': no such file"),
    (["discrepancy", "bad.npz", "--box", "1"], "invalid sequence file 'bad.npz'"),
    (["generate", "halton", "--d", "2", "--n", "4", "-o", "x.dat"],
     "-o/--output 'x.dat' must end in .npz or .npy or .txt or .csv"),
    (["design", "global", "--d", "2", "--s", "4", "--box-over-sigma", "1", "-o", "x.txt"],
     "-o/--output 'x.txt' must end in .npz (the format is chosen by the suffix)"),
    (["generate", "halton", "--d", "2", "--n", "4", "--unit-cube", "-o", "x.npz"],
     "-o/--output 'x.npz' must end in .npy or .txt or .csv"),
    (["design", "global", "--d", "3", "--s", "4", "--box-over-sigma", "1,2", "-o", "x.npz"],
     "--box-over-sigma has 2 values; give one number or d=3"),
    (["design", "global", "--d", "2", "--s", "4", "--box-over-sigma", "1", "--max", "3",
      "-o", "x.npz"], "unrecognized arguments: --max 3"),
    # errors name the user's option, never an internal variable ('rng', 'tol', 'objective')
    (["generate", "sobol", "--d", "2", "--n", "4", "--seed", "-1", "-o", "x.npy"],
     "argument --seed: expected an integer >= 0; got '-1'"),
    (["design", "global", "--d", "2", "--s", "4", "--box-over-sigma", "1", "--tol", "-1",
      "-o", "x.npz"], "argument --tol: expected a positive number; got '-1'"),
    (["design", "global", "--d", "2", "--s", "100000", "--box-over-sigma", "1", "-o", "x.npz"],
     "argument --s: expected an integer in [1, 8192]; got '100000'"),
    (["design", "global", "--d", "2", "--s", "4", "--box-over-sigma", "1e-300", "-o", "x.npz"],
     "--box-over-sigma 1e-300 is too small for float64 at d=2"),
    (["catalogue", "show", "--d", "2", "--s", "64", "--box-over-sigma", "-1"],
     "argument --box-over-sigma: expected a positive number; got '-1'"),
    (["discrepancy", "pts.npy", "--box", "1", "--sigma", "1,2,3"],
     "--sigma has 3 values; give one number or d=2"),
    (["design", "global", "--d", "2", "--s", "4", "--box-over-sigma", "1", "-o", "y.npz",
      "--resume", "missing.npz"], "cannot read 'missing.npz'"),
    (["catalogue", "show", "--d", "3", "--s", "64"], "'d' must be one of the catalogue's"),
    (["generate", "sobol", "--d", "2", "--n", "4", "--scramble", "deterministic", "-o", "x.npz"],
     "--scramble deterministic (RR2) applies to halton only"),
    ([], "the following arguments are required"),
])
def test_errors_one_line_exit_2(tmp_path, monkeypatch, capsys, args, match):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.npz").write_bytes(b"not a zip file")
    np.save(tmp_path / "pts.npy", np.ones((4, 2)))
    try:
        status = main(args)
    except SystemExit as exc:  # argparse errors
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("qmc-orff")
    assert match in err


def test_resume_mismatch_is_an_error(tmp_path, capsys):
    out = tmp_path / "g.npz"
    assert call("design", "weighted", "--d", 2, "--s", 8, "--box-over-sigma", 1, "-o", out)[0] == 0
    capsys.readouterr()
    status, _, err = call("design", "global", "--d", 2, "--s", 8, "--box-over-sigma", 1, "-o",
                          tmp_path / "h.npz", "--resume", out, capsys=capsys)
    assert status == 2
    assert "holds a 'weighted' design, not 'global'" in err
    status, _, err = call("design", "weighted", "--d", 2, "--s", 8, "--box-over-sigma", 1, "-o",
                          tmp_path / "h.npz", "--resume", out, capsys=capsys)
    assert status == 2 and "unrecognized arguments: --resume" in err


@pytest.mark.parametrize("cmd", [[], ["generate"], ["discrepancy"], ["design"], ["catalogue"]])
def test_help(cmd, capsys):
    status, out, _ = call(*cmd, "--help", capsys=capsys)
    assert status == 0 and out.startswith("usage: qmc-orff")


def test_console_script_help():
    exe = os.path.join(os.path.dirname(sys.executable), "qmc-orff")
    if not os.path.exists(exe):
        pytest.skip("the console script is not installed")
    proc = subprocess.run([exe, "design", "global", "--help"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and "--checkpoint-every" in proc.stdout


def test_ctrl_c_saves_best_iterate(tmp_path):
    # The optimiser may stop on its own (a line search that cannot progress) before the
    # signal arrives: then the run is repeated with a larger design, which cannot stop
    # that soon; what is checked of the interrupted run is unchanged.
    for attempt, s in enumerate((200, 400, 800)):
        out = tmp_path / f"g{attempt}.npz"
        proc = subprocess.Popen([sys.executable, "-m", "qmc_orff.cli", "design", "global",
                                 "--d", "8", "--s", str(s), "--box-over-sigma", "2",
                                 "--maxiter", "100000", "--tol", "1e-300",
                                 "--checkpoint-every", "1", "-o", str(out)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 120
        while not out.exists() and time.time() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert out.exists(), proc.communicate()[1]
        ckpt = load_sequence(out)
        if proc.poll() is None:
            assert ckpt.meta["complete"] is False
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
        if "stop: interrupted" not in stdout and proc.returncode in (0, 130):
            continue  # the design finished (and saved) before the signal arrived
        break
    else:
        pytest.fail("the design finished before the signal three times")
    assert proc.returncode == 130, stderr
    assert "interrupted: saved the best iterate" in stdout
    final = load_sequence(out)
    assert final.meta["stop_reason"] == "interrupted"
    assert final.meta["d2"] <= final.meta["initial_d2"]
    assert final.meta["d2"] == pytest.approx(box(2.0, 8)(final.points), rel=1e-10)
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


@pytest.mark.parametrize("error, status", [("interrupt", 130), ("other", None)])
def test_ctrl_c_inside_compiled_code_exits_130(monkeypatch, capsys, error, status):
    # a Ctrl-C inside a numba call arrives as SystemError chained from KeyboardInterrupt;
    # it used to escape main() as a traceback with exit status 1
    import qmc_orff.cli as cli

    def command(args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            if error == "interrupt":
                raise SystemError("returned a result with an exception set") from exc
        raise SystemError("other")

    monkeypatch.setattr(cli, "_cmd_catalogue", command)
    if status is None:
        with pytest.raises(SystemError, match="other"):
            main(["catalogue", "list"])
    else:
        assert main(["catalogue", "list"]) == status
        assert "qmc-orff: interrupted" in capsys.readouterr().err


def test_high_dimension_design_and_discrepancy(tmp_path, capsys):
    """d = 250: raw D^2 is not representable (prod(b/pi) underflows); the CLI reports normalised values."""
    out = tmp_path / "g250.npz"
    status, text, _ = call("design", "global", "--d", 250, "--s", 8, "--box-over-sigma", 0.05,
                           "--maxiter", 2, "-o", out, capsys=capsys)
    assert status == 0 and "normalised D^2=" in text
    seq = load_sequence(out)
    obj = BoxDiscrepancy(np.full(250, 0.05), sigma=np.ones(250))
    assert seq.meta["normalized_d2"] == pytest.approx(obj(seq.points, normalize=True), rel=1e-12)
    status, text, _ = call("discrepancy", out, "--box", 0.05, "--json", capsys=capsys)
    res = json.loads(text)
    assert status == 0 and res["d2"] is None
    assert res["normalized_d2"] == pytest.approx(seq.meta["normalized_d2"], rel=1e-12)
    assert res["ratio_to_mc"] == pytest.approx(
        res["normalized_d2"] / obj.expected_mc(8, normalize=True), rel=1e-12)
    status, text, _ = call("discrepancy", out, "--box", 0.05, capsys=capsys)
    assert status == 0 and text.startswith("D^2 = not representable in float64")


# --------------------------------------------------------------------------- issue 11
def _hostile_files(tmp_path):
    """Files the CLI must refuse with one line and status 2 (each raised something else)."""
    import io
    import zipfile

    good = tmp_path / "good.npz"
    Sequence(np.ones((4, 2)), meta={"box_over_sigma": 1.0}).save(good)
    with zipfile.ZipFile(good) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
        header = json.loads(np.load(io.BytesIO(members["header.npy"])).tobytes())

    def npz(name, **changes):
        m = dict(members, **changes)
        with zipfile.ZipFile(tmp_path / name, "w", zipfile.ZIP_DEFLATED) as zf:
            for k, v in m.items():
                zf.writestr(k, v)
        return tmp_path / name

    def npy_member(arr):
        buf = io.BytesIO()
        np.save(buf, arr)
        return buf.getvalue()

    def header_member(text):
        return npy_member(np.frombuffer(text, dtype=np.uint8))

    huge = ("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 2), }"
            .ljust(117) + "\n").encode()
    huge_npy = b"\x93NUMPY\x01\x00" + len(huge).to_bytes(2, "little") + huge + b"\0" * 64
    (tmp_path / "huge.npy").write_bytes(huge_npy)
    list_spec = dict(header, arrays={"points": ["<f8"]})
    return {
        "list-valued arrays": npz("list.npz", **{"header.npy": header_member(
            json.dumps(list_spec).encode())}),
        "deep nesting": npz("deep.npz", **{"header.npy": header_member(
            b'{"meta": ' + b"[" * 100000 + b"]" * 100000 + b"}")}),
        "huge member shape": npz("hugemember.npz", **{"points.npy": huge_npy}),
        "huge integer": npz("int.npz", **{"header.npy": header_member(
            b'{"format": "qmc_orff.sequence", "x": ' + b"9" * 5000 + b"}")}),
        "appended": _concat(tmp_path, good),
        "huge npy shape": tmp_path / "huge.npy",
        "directory": tmp_path,
    }


def _concat(tmp_path, good):
    out = tmp_path / "ab.npz"
    out.write_bytes(good.read_bytes() + good.read_bytes())
    return out


@pytest.mark.parametrize("what", ["list-valued arrays", "deep nesting", "huge member shape",
                                  "huge integer", "appended", "huge npy shape", "directory"])
@pytest.mark.parametrize("command", ["discrepancy", "resume"])
def test_bad_files_one_line_exit_2(tmp_path, capsys, what, command):
    # issue 11, item 1: these printed a traceback and exited 1
    path = str(_hostile_files(tmp_path)[what])
    if command == "discrepancy":
        args = ["discrepancy", path, "--box", "1"]
    else:
        args = ["design", "global", "--d", "2", "--s", "4", "--box-over-sigma", "1", "-o",
                str(tmp_path / "o.npz"), "--resume", path]
    from _limits import memory_cap

    with memory_cap():
        status = main(args)
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.count("\n") == 1 and err.startswith("qmc-orff: error: "), err


def test_special_file_one_line_exit_2(capsys):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    assert main(["discrepancy", "/dev/zero", "--box", "1"]) == 2
    assert capsys.readouterr().err == "qmc-orff: error: cannot read '/dev/zero': not a regular file\n"


def test_python_m_qmc_orff(tmp_path):
    # issue 11, item 13
    proc = subprocess.run([sys.executable, "-m", "qmc_orff", "design", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: qmc-orff design")
    (tmp_path / "bad.npz").write_bytes(b"PK\x05\x06" + b"\0" * 18)
    proc = subprocess.run([sys.executable, "-m", "qmc_orff", "discrepancy",
                           str(tmp_path / "bad.npz"), "--box", "1"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith("qmc-orff: error: invalid sequence file")
    assert proc.stderr.count("\n") == 1


def test_resumed_global_design_keeps_its_history(tmp_path, monkeypatch):
    # issue 11, item 7: a checkpoint carried no history, so a design resumed from it
    # lost the first run's
    import shutil

    import qmc_orff.sequence as sm

    out = tmp_path / "g.npz"
    copies = []
    real = sm.Sequence.save

    def save(self, path):
        real(self, path)
        if self.meta.get("checkpoint") and not copies:  # the first checkpoint (iteration 2)
            copies.append(shutil.copy(path, tmp_path / "ckpt.npz"))

    monkeypatch.setattr(sm.Sequence, "save", save)
    assert call("design", "global", "--d", 2, "--s", 16, "--box-over-sigma", 2, "--maxiter", 6,
                "--checkpoint-every", 2, "-o", out, "--quiet")[0] == 0
    first = load_sequence(out)
    ckpt = load_sequence(tmp_path / "ckpt.npz")
    m = ckpt.meta
    assert m["complete"] is False and m["iterations"] == 2
    assert m["history"] == first.meta["history"][:3]
    assert m["normalized_history"] == pytest.approx(first.meta["normalized_history"][:3],
                                                    rel=1e-12)
    assert m["normalized_d2"] == pytest.approx(first.meta["normalized_history"][2], rel=1e-12)
    monkeypatch.setattr(sm.Sequence, "save", real)
    assert call("design", "global", "--d", 2, "--s", 16, "--box-over-sigma", 2, "--maxiter", 6,
                "--checkpoint-every", 2, "--resume", tmp_path / "ckpt.npz", "-o",
                tmp_path / "r.npz", "--quiet")[0] == 0
    r = load_sequence(tmp_path / "r.npz").meta
    assert r["history"][:3] == m["history"]
    assert r["normalized_history"][:3] == m["normalized_history"]
    assert len(r["history"]) == len(r["normalized_history"]) == r["iterations"] + 1
    assert r["iterations"] <= 6
    # the resumed run starts where the checkpoint stopped (L-BFGS-B restarts its memory,
    # so later values differ from the uninterrupted run's)
    assert r["history"][3] <= m["history"][2]


def test_next_run_removes_stale_temp_files(tmp_path, capsys):
    # issue 11, item 7: temporary files of a killed run on the same output stayed
    import socket

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    from qmc_orff.sequence import _host_tag

    assert socket.gethostname()
    stale = tmp_path / f".h.npz.{dead.pid}@{_host_tag()}.k1l2m3n4.tmp"
    stale.write_bytes(b"PK partial")
    assert call("generate", "halton", "--d", 2, "--n", 8, "-o", tmp_path / "h.npz")[0] == 0
    assert sorted(os.listdir(tmp_path)) == ["h.npz"]


_LATE_CTRL_C = """
import signal
import qmc_orff.sequence as sm

real = sm.Sequence.save


def save(self, path):
    real(self, path)
    if self.meta.get("complete") is True:
        # Ctrl-C just after the final save, while code run by exec() of a string is on
        # the stack (as when numba or dataclasses generate code)
        exec("import signal\\nsignal.raise_signal(signal.SIGINT)\\nfor _ in range(10): pass")


sm.Sequence.save = save
"""


@pytest.mark.parametrize("module", ["qmc_orff", "qmc_orff.cli"])
def test_ctrl_c_just_after_the_final_save_exits_130(tmp_path, module):
    # issue 11, item 7: 2 of 10 runs died by the signal (status -2) instead of 130; under
    # `python -m`, CPython kills itself by SIGINT at exit once a KeyboardInterrupt has
    # passed through exec'd code, even when it was caught
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(_LATE_CTRL_C)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(hook)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    out = tmp_path / "w.npz"
    proc = subprocess.run([sys.executable, "-m", module, "design", "weighted", "--d", "2",
                           "--s", "8", "--box-over-sigma", "1", "-o", str(out)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 130, (proc.returncode, proc.stderr[-2000:])
    assert proc.stderr.endswith("qmc-orff: interrupted\n") and "Traceback" not in proc.stderr
    assert load_sequence(out).meta["complete"] is True


# --------------------------------------------------------------------------- design adaptive
def _write_data_files(tmp_path):
    """Data files that must be refused, each with the phrase its one-line error must contain."""
    (tmp_path / "text.csv").write_text("a,b\n1,x\n2,3\n")
    (tmp_path / "nan.csv").write_text("1,2\nnan,3\n4,5\n")
    (tmp_path / "inf.npy").write_bytes(b"")
    np.save(tmp_path / "inf.npy", np.array([[1.0, 2.0], [np.inf, 0.0], [3.0, 1.0]]))
    (tmp_path / "one.csv").write_text("1,2,3\n")
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "ragged.csv").write_text("1,2\n3\n4,5\n")
    np.save(tmp_path / "vector.npy", np.arange(5.0))
    np.save(tmp_path / "strings.npy", np.array([["a", "b"], ["c", "d"]]))
    np.save(tmp_path / "objects.npy", np.array([[1, None], [2, 3]], dtype=object),
            allow_pickle=True)
    (tmp_path / "broken.npy").write_bytes(b"\x93NUMPY garbage")
    (tmp_path / "data.txt").write_text("1 2\n3 4\n")
    (tmp_path / "folder.csv").mkdir()


@pytest.mark.parametrize("data, match", [
    ("text.csv", "cannot parse 'text.csv' as a numeric data matrix"),
    ("nan.csv", "'nan.csv' contains NaN or inf (1 values; first at row 1, column 0)"),
    ("inf.npy", "'inf.npy' contains NaN or inf"),
    ("one.csv", "'one.csv' must hold at least 2 points (rows); got shape (1, 3)"),
    ("empty.csv", "'empty.csv' holds no data"),
    ("ragged.csv", "cannot parse 'ragged.csv'"),
    ("vector.npy", "must hold a 2-D array (points x features); got shape (5,) (reshape"),
    ("strings.npy", "'strings.npy' must hold real numbers; got dtype <U1"),
    ("objects.npy", "cannot parse 'objects.npy'"),
    ("broken.npy", "cannot parse 'broken.npy'"),
    ("data.txt", "--data must be a .npy or .csv file; got 'data.txt'"),
    ("missing.csv", "cannot read 'missing.csv': no such file"),
    ("folder.csv", "cannot read 'folder.csv': it is a folder"),
])
def test_design_adaptive_bad_data_one_line_exit_2(tmp_path, monkeypatch, capsys, data, match):
    monkeypatch.chdir(tmp_path)
    _write_data_files(tmp_path)
    status, _, err = call("design", "adaptive", "--data", data, "--s", 4, "--sigma", "median",
                          "-o", "out.npz", capsys=capsys)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("qmc-orff: error: "), err
    assert match in err
    assert not (tmp_path / "out.npz").exists()


@pytest.mark.parametrize("args, match", [
    (["design", "adaptive", "--s", "4", "--sigma", "1", "-o", "o.npz"],
     "qmc-orff design adaptive: error: the following arguments are required: --data"),
    (["design", "adaptive", "--data", "ok.csv", "--s", "4", "-o", "o.npz"],
     "the following arguments are required: --sigma"),
    (["design", "adaptive", "--data", "ok.csv", "--s", "4", "--sigma", "-1", "-o", "o.npz"],
     "argument --sigma: expected a positive number or 'median'; got '-1'"),
    (["design", "adaptive", "--data", "ok.csv", "--s", "4", "--sigma", "nan", "-o", "o.npz"],
     "argument --sigma: expected a positive number or 'median'; got 'nan'"),
    (["design", "adaptive", "--data", "ok.csv", "--s", "4", "--sigma", "1", "--d", "2",
      "-o", "o.npz"], "unrecognized arguments: --d 2"),
    (["design", "adaptive", "--data", "same.csv", "--s", "4", "--sigma", "median", "-o", "o.npz"],
     "'sigma'='median' needs distinct rows in 'X': the median distance is 0.0"),
    (["design", "adaptive", "--data", "ok.csv", "--s", "4", "--sigma", "1", "--coverage", "1.5",
      "-o", "o.npz"], "argument --coverage: expected a number in [0, 1]; got '1.5'"),
    (["design", "adaptive", "--data", "ok.csv", "--s", "4", "--sigma", "1", "--n-train", "many",
      "-o", "o.npz"], "argument --n-train: expected an integer >= 2 or 'auto'; got 'many'"),
    (["design", "global", "--s", "4", "--box-over-sigma", "1", "-o", "o.npz"],
     "the following arguments are required: --d"),
    (["design", "global", "--d", "2", "--s", "4", "-o", "o.npz"],
     "the following arguments are required: --box-over-sigma"),
    (["design", "global", "--d", "2", "--s", "4", "--box-over-sigma", "1", "--data", "ok.csv",
      "-o", "o.npz"], "unrecognized arguments: --data ok.csv"),
    (["design", "global", "--d", "2", "--s", "4", "--box-over-sigma", "1", "--init", "orf",
      "-o", "o.npz"], "argument --init: invalid choice: 'orf'"),
    (["design", "weighted", "--d", "2", "--s", "4", "--box-over-sigma", "1", "--kernel", "matern",
      "-o", "o.npz"], "argument --kernel: invalid choice: 'matern'"),
])
def test_design_adaptive_argument_errors(tmp_path, monkeypatch, capsys, args, match):
    monkeypatch.chdir(tmp_path)
    np.savetxt(tmp_path / "ok.csv", np.random.default_rng(0).normal(size=(20, 3)), delimiter=",")
    np.savetxt(tmp_path / "same.csv", np.ones((20, 3)), delimiter=",")
    status, _, err = call(*args, capsys=capsys)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("qmc-orff"), err
    assert match in err


def test_read_data_formats(tmp_path):
    """.npy and .csv (with or without a header line) give the same float64 matrix."""
    from qmc_orff.cli.design_adaptive import _read_data

    X = np.random.default_rng(1).normal(size=(7, 3))
    np.save(tmp_path / "x.npy", X.astype(np.float32))
    np.savetxt(tmp_path / "x.csv", X, delimiter=",", fmt="%.17g")
    np.savetxt(tmp_path / "h.csv", X, delimiter=",", fmt="%.17g", header="a,b,c", comments="")
    np.save(tmp_path / "i.npy", np.arange(6).reshape(3, 2))
    a = _read_data(str(tmp_path / "x.npy"))
    assert a.dtype == np.float64 and a.flags.c_contiguous
    np.testing.assert_array_equal(a, X.astype(np.float32).astype(np.float64))
    np.testing.assert_array_equal(_read_data(str(tmp_path / "x.csv")), X)
    np.testing.assert_array_equal(_read_data(str(tmp_path / "h.csv")), X)
    np.testing.assert_array_equal(_read_data(str(tmp_path / "i.npy")), [[0, 1], [2, 3], [4, 5]])


def _adaptive_data(tmp_path, n=150, d=3, seed=0, name="X.npy"):
    X = np.random.default_rng(seed).normal(size=(n, d))
    np.save(tmp_path / name, X)
    return X


ADAPTIVE_SMALL = ["--s", 8, "--n-train", 60, "--n-validation", 40]


def test_design_adaptive_end_to_end(tmp_path, capsys):
    """The file is the best validated iterate, reports its ratio to ORF, and is a ready map."""
    from qmc_orff import FourierFeatures, gram_error

    X = _adaptive_data(tmp_path)
    out = tmp_path / "a.npz"
    status, text, err = call("design", "adaptive", "--data", tmp_path / "X.npy", "--sigma",
                             "median", *ADAPTIVE_SMALL, "--maxiter", 15, "-o", out,
                             capsys=capsys)
    assert status == 0, err
    assert "validation" in err and "best/ORF start" in err  # the progress bar
    seq = load_sequence(out)
    m = seq.meta
    assert m["method"] == "adaptive" and m["complete"] is True and seq.s == 8 and seq.d == 3
    assert m["validation_error"] <= m["start_validation_error"]
    assert m["orf_validation_error"] == m["start_validation_error"]  # the ORF start
    assert m["ratio_to_orf"] == pytest.approx(m["validation_error"] / m["orf_validation_error"],
                                              rel=1e-15)
    assert m["ratio_to_orf"] < 1.0
    assert f"ratio to ORF {m['ratio_to_orf']:.3g}" in text and text.startswith(f"wrote {out}")
    assert m["iterations"] <= 15 and m["cli_seed"] == 0 and m["sigma_rule"] == "median"
    # FourierFeatures(sequence=load_sequence(OUT)) is the precomputed, deterministic map
    ff = FourierFeatures(sigma=m["sigma"], n_components=None, sequence=load_sequence(out)).fit(X)
    np.testing.assert_allclose(ff.frequencies_, seq.points / m["sigma"], rtol=1e-15)
    orf = FourierFeatures(sigma=m["sigma"], n_components=8, sequence="orf", seed=0).fit(X)
    assert gram_error(ff, X) < gram_error(orf, X)
    # same inputs and seed: the same bits
    assert call("design", "adaptive", "--data", tmp_path / "X.npy", "--sigma", "median",
                *ADAPTIVE_SMALL, "--maxiter", 15, "-o", tmp_path / "b.npz", "--quiet")[0] == 0
    np.testing.assert_array_equal(load_sequence(tmp_path / "b.npz").points, seq.points)


def test_design_adaptive_n_train_auto_by_default(tmp_path):
    """Without --n-train the command takes the library's 'auto' rows (all there are here,
    below 500) and records the choice; --n-train auto is the same run."""
    _adaptive_data(tmp_path)
    common = ["--data", tmp_path / "X.npy", "--sigma", 1.5, "--s", 8, "--maxiter", 2, "--quiet"]
    assert call("design", "adaptive", *common, "-o", tmp_path / "a.npz")[0] == 0
    assert call("design", "adaptive", *common, "--n-train", "auto", "-o", tmp_path / "b.npz")[0] == 0
    a, b = load_sequence(tmp_path / "a.npz"), load_sequence(tmp_path / "b.npz")
    assert a.meta["cli_n_train"] == "auto" and a.meta["n_train"] + a.meta["n_validation"] == 150
    np.testing.assert_array_equal(a.points, b.points)


def test_design_adaptive_checkpoint_and_resume(tmp_path, capsys):
    _adaptive_data(tmp_path)
    _adaptive_data(tmp_path, seed=1, name="other.npy")
    first, second = tmp_path / "a.npz", tmp_path / "b.npz"
    common = ["--data", tmp_path / "X.npy", "--sigma", 1.5, *ADAPTIVE_SMALL, "--quiet"]
    assert call("design", "adaptive", *common, "--maxiter", 8, "--patience", 100,
                "--checkpoint-every", 3, "-o", first)[0] == 0
    a = load_sequence(first).meta
    assert a["iterations"] == 8 and a["stop_reason"] == "maxiter (8) reached"
    assert call("design", "adaptive", *common, "--maxiter", 16, "--patience", 100,
                "--resume", first, "-o", second)[0] == 0
    b = load_sequence(second).meta
    # continues on the same validation points: it starts where the first run ended
    assert b["resume_validation_error"] == a["validation_error"]
    assert b["validation_error"] <= a["validation_error"]
    assert b["iterations"] == 16 and b["stop_reason"] == "maxiter (16) reached"
    assert b["orf_validation_error"] == a["orf_validation_error"]  # the first run's ORF start
    assert b["ratio_to_orf"] == pytest.approx(b["validation_error"] / a["orf_validation_error"])
    assert b["resumed_from"] == str(first)
    # --min-iterations counts the whole run: the resumed part may stop after 2 more
    assert call("design", "adaptive", *common, "--maxiter", 40, "--patience", 1,
                "--min-iterations", 10, "--resume", first, "-o", tmp_path / "c.npz")[0] == 0
    c = load_sequence(tmp_path / "c.npz").meta
    assert c["min_iterations"] == 10 and 10 <= c["iterations"] <= 40
    assert a["coverage"] == c["coverage"] == 0.25  # the checkpoint's covering rows
    capsys.readouterr()
    for extra, match in [
        (["--data", tmp_path / "other.npy"], "was designed on other data"),
        (["--sigma", 2.0], "was designed for kernel='gaussian', sigma=1.5 (given)"),
        (["--s", 9], "has s=8, d=3; expected s=9, d=3"),
        (["--seed", 5], "was designed with --seed 0; got 5"),
        (["--coverage", 0.5], "was designed with --coverage 0.25; got 0.5"),
        (["--n-train", "auto"], "was designed with --n-train 60; got auto"),
    ]:
        args = ["design", "adaptive", *common, "--resume", first, "-o", tmp_path / "c.npz"]
        for i in range(0, len(extra), 2):  # later options override earlier ones
            args += extra[i:i + 2]
        status, _, err = call(*args, capsys=capsys)
        assert status == 2 and err.count("\n") == 1 and match in err, err
    box = tmp_path / "w.npz"
    assert call("design", "weighted", "--d", 3, "--s", 8, "--box-over-sigma", 1, "-o", box)[0] == 0
    capsys.readouterr()
    status, _, err = call("design", "adaptive", *common, "--resume", box, "-o", tmp_path / "c.npz",
                          capsys=capsys)
    assert status == 2 and "holds a 'weighted' design, not 'adaptive'" in err


def test_design_adaptive_ctrl_c_keeps_best_validated_iterate(tmp_path):
    _adaptive_data(tmp_path, n=600, d=8)
    out = tmp_path / "a.npz"
    proc = subprocess.Popen([sys.executable, "-m", "qmc_orff.cli", "design", "adaptive", "--data",
                             str(tmp_path / "X.npy"), "--sigma", "median", "--s", "64",
                             "--n-train", "300", "--maxiter", "100000", "--patience", "100000",
                             "--checkpoint-every", "1", "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while not out.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.1)
    assert out.exists(), proc.communicate()[1]
    assert load_sequence(out).meta["complete"] is False
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "interrupted: saved the best validated iterate" in stdout
    final = load_sequence(out)
    m = final.meta
    assert m["stop_reason"] == "interrupted" and m["complete"] is False
    assert m["validation_error"] <= m["start_validation_error"]
    # the best validated iterate: the least (float32) score, re-scored in float64
    assert m["validation_history"][m["best_iteration"]] == min(m["validation_history"])
    assert m["validation_error"] == pytest.approx(min(m["validation_history"]), rel=1e-5)
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


def test_resumed_designs_stop_reason_describes_the_whole_run(tmp_path, capsys):
    # a resumed design named only its last segment ("maxiter (6) reached" after 12
    # iterations), and resuming a complete file reported "maxiter = 0"
    common = ["design", "global", "--d", 3, "--s", 32, "--box-over-sigma", 2, "--optimizer",
              "l-bfgs-b", "--tol", 1e-14, "--quiet"]
    g1, g2, g3 = (tmp_path / f"g{k}.npz" for k in (1, 2, 3))
    assert call(*common, "--maxiter", 6, "-o", g1)[0] == 0
    assert call(*common, "--maxiter", 12, "--resume", g1, "-o", g2)[0] == 0
    m = load_sequence(g2).meta
    assert m["iterations"] == 12 and m["stop_reason"] == "maxiter (12) reached"
    capsys.readouterr()
    status, out, _ = call(*common, "--maxiter", 12, "--resume", g2, "-o", g3, capsys=capsys)
    assert status == 0 and "stop: maxiter (12) reached" in out
    m3 = load_sequence(g3)
    assert m3.meta["stop_reason"] == "maxiter (12) reached" and m3.meta["iterations"] == 12
    np.testing.assert_array_equal(m3.points, load_sequence(g2).points)
    _adaptive_data(tmp_path)
    adaptive = ["design", "adaptive", "--data", tmp_path / "X.npy", "--sigma", 1.5,
                *ADAPTIVE_SMALL, "--patience", 100, "--maxiter", 6, "--quiet"]
    assert call(*adaptive, "-o", tmp_path / "a.npz")[0] == 0
    assert call(*adaptive, "--resume", tmp_path / "a.npz", "-o", tmp_path / "b.npz")[0] == 0
    a, b = load_sequence(tmp_path / "a.npz"), load_sequence(tmp_path / "b.npz")
    assert b.meta["stop_reason"] == a.meta["stop_reason"] == "maxiter (6) reached"
    assert b.meta["iterations"] == 6
    np.testing.assert_array_equal(a.points, b.points)
