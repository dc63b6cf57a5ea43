"""The command line's conventions: --version, --scramble values, help text, early path checks,
fallback saving and log-friendly progress (issues 12 item 11, 13 items 3-4)."""
import argparse
import importlib.metadata
import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

import qmc_orff
from qmc_orff.cli import build_parser, main
from qmc_orff.sequence import load_sequence


def call(capsys, *args):
    try:
        status = main([str(a) for a in args])
    except SystemExit as exc:
        status = exc.code
    cap = capsys.readouterr()
    return status, cap.out, cap.err


def subparser(*names):
    """The parser of ``qmc-orff NAME [SUBNAME]``."""
    parser = build_parser()
    for name in names:
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = sub.choices[name]
    return parser


def _leaf_parsers(parser=None, path=()):
    """``(path, parser)`` of every command that takes options (no further subcommand)."""
    parser = build_parser() if parser is None else parser
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
        return
    for name, child in subs[0].choices.items():
        yield from _leaf_parsers(child, path + (name,))


# --------------------------------------------------------------------------- --version
def test_version_is_the_installed_metadata(capsys):
    status, out, _ = call(capsys, "--version")
    assert status == 0
    assert out.strip() == f"qmc-orff {importlib.metadata.version('qmc_orff')}"
    assert qmc_orff.__version__ == importlib.metadata.version("qmc_orff")


# --------------------------------------------------------------------------- --scramble
@pytest.mark.parametrize("value", ["True", "true", "yes", "1"])
def test_scramble_true_is_accepted(tmp_path, capsys, value):
    out = tmp_path / "t.npy"
    status, _, err = call(capsys, "generate", "sobol", "--d", 2, "--n", 8, "--unit-cube",
                          "--scramble", value, "--seed", 3, "-o", out)
    assert status == 0, err
    plain = tmp_path / "p.npy"
    assert call(capsys, "generate", "sobol", "--d", 2, "--n", 8, "--unit-cube", "--scramble",
                "False", "-o", plain)[0] == 0
    scrambled, unscrambled = np.load(out), np.load(plain)
    assert scrambled.shape == unscrambled.shape == (8, 2)
    assert not np.array_equal(scrambled, unscrambled)
    # the bare flag means the same as True
    bare = tmp_path / "b.npy"
    assert call(capsys, "generate", "sobol", "--d", 2, "--n", 8, "--unit-cube", "--scramble",
                "--seed", 3, "-o", bare)[0] == 0
    np.testing.assert_array_equal(np.load(bare), scrambled)


def test_scramble_help_offers_only_accepted_values(tmp_path, capsys):
    status, out, _ = call(capsys, "generate", "--help")
    assert status == 0
    offered = re.search(r"--scramble \[\{([a-z,]+)\}\]", out).group(1).split(",")
    for value in offered:
        status, _, err = call(capsys, "generate", "halton", "--d", 2, "--n", 4, "--scramble",
                              value, "-o", tmp_path / f"{value}.npz")
        assert status == 0, (value, err)
    status, _, err = call(capsys, "generate", "halton", "--d", 2, "--n", 4, "--scramble",
                          "sometimes", "-o", tmp_path / "x.npz")
    assert status == 2 and "argument --scramble: expected true, false, random or" in err


# --------------------------------------------------------------------------- help text
def test_every_option_has_help_and_every_command_an_example():
    leaves = dict(_leaf_parsers())
    assert ("design", "global") in leaves and ("catalogue", "show") in leaves
    for path, parser in leaves.items():
        for action in parser._actions:
            if action.option_strings:
                assert action.help and action.help.strip(), (path, action.option_strings)
        assert parser.epilog and "qmc-orff " + " ".join(path) in parser.epilog, path
        assert not parser.allow_abbrev, path


@pytest.mark.parametrize("method, foreign", [
    ("global", ["--solver", "--data", "--sigma", "--lattice-txt", "--nu"]),
    ("greedy", ["--solver", "--data", "--lattice-txt"]),
    ("weighted", ["--maxiter", "--optimizer", "--resume", "--data", "--lattice-txt"]),
    ("lattice", ["--maxiter", "--init", "--seed", "--solver", "--resume", "--data"]),
    ("adaptive", ["--d", "--box-over-sigma", "--solver", "--lattice-txt", "--optimizer"]),
])
def test_design_methods_show_only_their_own_options(capsys, method, foreign):
    status, out, _ = call(capsys, "design", method, "--help")
    assert status == 0 and out.startswith(f"usage: qmc-orff design {method}")
    options = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", out))
    assert not options & set(foreign), options & set(foreign)
    assert "example:" in out


@pytest.mark.parametrize("method", ["global", "greedy", "weighted", "adaptive"])
def test_design_defaults_are_the_python_functions(method):
    from qmc_orff import designs

    api = getattr(designs, f"{method}_sequence").__kwdefaults__
    parser = subparser("design", method)
    names = {"maxiter": "maxiter", "tol": "tol", "method": "optimizer", "init": "init", "seed": "seed",
             "solver": "solver", "patience": "patience", "nu": "nu", "kernel": "kernel",
             "min_iterations": "min_iterations"}
    checked = 0
    for api_name, cli_name in names.items():
        if api_name in api and any(a.dest == cli_name for a in parser._actions):
            if method == "adaptive" and api_name in ("init", "seed"):
                continue  # init None: orf, or mc for laplacian (orf needs the Gaussian kernel);
                # seed 0, not None (reproducible commands; said in its help)
            assert parser.get_default(cli_name) == api[api_name], (method, cli_name)
            checked += 1
    assert checked >= 1


def test_catalogue_show_defaults_are_load_catalogues():
    import inspect

    from qmc_orff import load_catalogue

    params = inspect.signature(load_catalogue).parameters
    parser = subparser("catalogue", "show")
    assert parser.get_default("box_over_sigma") == params["box_over_sigma"].default
    assert parser.get_default("method") == params["method"].default


def test_generate_defaults_are_the_python_engines(tmp_path, capsys):
    from qmc_orff import Halton, Lattice, Sobol

    for name, engine in (("sobol", Sobol(3, rng=5)), ("halton", Halton(3, rng=5)),
                         ("lattice", Lattice(3))):
        out = tmp_path / f"{name}.npy"
        assert call(capsys, "generate", name, "--d", 3, "--n", 8, "--seed", 5, "--unit-cube",
                    "-o", out)[0] == 0
        np.testing.assert_array_equal(np.load(out), engine.random(8))
    # unscrambled unit-cube points keep index 0 (the origin), as the engines do
    out = tmp_path / "plain.npy"
    assert call(capsys, "generate", "sobol", "--d", 2, "--n", 4, "--scramble", "false",
                "--unit-cube", "-o", out)[0] == 0
    np.testing.assert_array_equal(np.load(out), Sobol(2, scramble=False).random(4))


def test_discrepancy_help_names_options_as_spelt(capsys):
    status, out, _ = call(capsys, "discrepancy", "--help")
    assert status == 0
    usage = out.split("\n\n")[0]
    assert "--box B" in usage and "--sigma S" in usage and "FILE" in usage
    text = " ".join(out.split())
    # every "--option VALUE" the description mentions is spelt so in the usage
    for option in set(re.findall(r"--[a-z-]+ [A-Z]+\b", text)):
        assert option in " ".join(usage.split()), option


# --------------------------------------------------------------------------- output checks
def _design(*extra, out):
    return [sys.executable, "-m", "qmc_orff.cli", "design", "global", "--d", "2", "--s", "8",
            "--box-over-sigma", "1", "--maxiter", "5", "-o", str(out), *map(str, extra)]


# (-o naming the --resume file is accepted: tests/test_cli_resume_in_place.py)
@pytest.mark.parametrize("case", ["directory", "no folder", "not writable"])
def test_design_bad_output_fails_fast(tmp_path, case):
    if case == "directory":
        out, extra, match = tmp_path, (), "is a directory"
    elif case == "no folder":
        out, extra, match = tmp_path / "missing" / "g.npz", (), "does not exist"
    else:
        # /proc refuses new files even to root (os.access would say yes to root)
        out, extra, match = "/proc/qmc-orff-test.npz", (), "is not writable"
    t0 = time.perf_counter()
    proc = subprocess.run(_design(*extra, out=out), capture_output=True, text=True, timeout=60)
    elapsed = time.perf_counter() - t0
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("qmc-orff: error: ")
    assert match in proc.stderr
    assert proc.stdout == ""
    assert elapsed < 5.0, f"took {elapsed:.1f} s"


def test_lattice_txt_is_not_the_output(tmp_path, capsys):
    out = tmp_path / "l.npz"
    status, _, err = call(capsys, "design", "lattice", "--d", 2, "--s", 8, "--box-over-sigma", 1,
                          "-o", out, "--lattice-txt", out)
    assert status == 2 and "--lattice-txt" in err and "is the same file as" in err
    assert not out.exists()


def test_lattice_txt_is_checked_before_work(tmp_path, capsys):
    status, _, err = call(capsys, "design", "lattice", "--d", 2, "--s", 8, "--box-over-sigma", 1,
                          "-o", tmp_path / "l.npz", "--lattice-txt", tmp_path / "no" / "l.txt")
    assert status == 2 and "--lattice-txt" in err and "does not exist" in err
    assert not (tmp_path / "l.npz").exists()


def test_generate_bad_output_fails_before_work(tmp_path, capsys):
    status, _, err = call(capsys, "generate", "halton", "--d", 2, "--n", 4, "-o", tmp_path)
    assert status == 2 and "is a directory" in err and err.count("\n") == 1


def test_failed_final_save_writes_a_fallback(tmp_path, capsys, monkeypatch):
    from qmc_orff.sequence import Sequence

    out = tmp_path / "g.npz"
    real_save = Sequence.save

    def failing_save(self, path):
        if os.fspath(path) == os.fspath(out):
            raise OSError(28, "No space left on device")
        return real_save(self, path)

    monkeypatch.setattr(Sequence, "save", failing_save)
    monkeypatch.chdir(tmp_path)
    status, _, err = call(capsys, "design", "global", "--d", 2, "--s", 8, "--box-over-sigma", 1,
                          "--maxiter", 3, "--checkpoint-every", 1, "--quiet", "-o", out)
    assert status == 2
    lines = err.strip().splitlines()
    # one warning for the failed checkpoints (the run goes on), one error at the end
    assert len(lines) == 2 and "cannot write the checkpoint" in lines[0]
    assert "No space left on device" in lines[1] and "saved the result to " in lines[1]
    fallback = lines[1].split("saved the result to ")[1].strip()
    assert os.path.dirname(fallback) == str(tmp_path) and not out.exists()
    seq = load_sequence(fallback)
    assert seq.meta["complete"] is True and seq.s == 8
    assert seq.meta["d2"] <= seq.meta["initial_d2"]


def test_design_log_output_and_quiet(tmp_path):
    proc = subprocess.run(_design("--checkpoint-every", 0, out=tmp_path / "g.npz"),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "\r" not in proc.stderr and "progress: " in proc.stderr
    proc = subprocess.run(_design("--quiet", out=tmp_path / "q.npz"), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == ""


def test_box_design_random_start_follows_seed(tmp_path, capsys):
    common = ["design", "weighted", "--d", 2, "--s", 8, "--box-over-sigma", 1, "--init", "random"]
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        assert call(capsys, *common, "--seed", seed, "-o", tmp_path / f"{name}.npz")[0] == 0
    a, b, c = (load_sequence(tmp_path / f"{n}.npz").points for n in "abc")
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
