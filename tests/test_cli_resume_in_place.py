"""``qmc-orff design ... --resume FILE -o FILE`` (issue 22 item 5): a run resumed into its
own checkpoint continues exactly as one resumed into another file, and the file is replaced
atomically (a new file renamed over it, never written in place)."""
import os
import shutil

import numpy as np
import pytest

from qmc_orff.cli import main
from qmc_orff.sequence import load_sequence


def call(*args):
    try:
        return main([str(a) for a in args])
    except SystemExit as exc:
        return exc.code


def _same_run(a, b):
    """Two results of the same run: equal points and bookkeeping (not where they came from)."""
    np.testing.assert_array_equal(a.points, b.points)
    skip = {"resumed_from", "created", "seconds"}
    ma = {k: v for k, v in a.meta.items() if k not in skip}
    mb = {k: v for k, v in b.meta.items() if k not in skip}
    assert ma == mb


def _resume_both_ways(tmp_path, first_args, resume_args):
    ckpt = tmp_path / "ckpt.npz"
    assert call(*first_args, "-o", ckpt, "--quiet") == 0
    before = load_sequence(ckpt)
    copy = tmp_path / "copy.npz"
    shutil.copyfile(ckpt, copy)
    elsewhere = tmp_path / "elsewhere.npz"
    assert call(*resume_args, "--resume", copy, "-o", elsewhere, "--quiet") == 0
    old_bytes = ckpt.read_bytes()
    with open(ckpt, "rb") as held:   # the old file stays open: its inode cannot be reused
        assert call(*resume_args, "--resume", ckpt, "-o", ckpt, "--quiet") == 0
        # renamed over, never rewritten in place: the open file still holds the old bytes
        assert os.fstat(held.fileno()).st_ino != os.stat(ckpt).st_ino
        assert held.read() == old_bytes
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
    after = load_sequence(ckpt)
    _same_run(after, load_sequence(elsewhere))
    assert after.meta["complete"] is True
    return before, after


def test_global_resumes_into_its_own_file(tmp_path):
    common = ["design", "global", "--d", 2, "--s", 16, "--box-over-sigma", 2]
    before, after = _resume_both_ways(
        tmp_path, [*common, "--maxiter", 4, "--checkpoint-every", 2],
        [*common, "--maxiter", 10, "--checkpoint-every", 2])
    assert after.meta["history"][:len(before.meta["history"])] == before.meta["history"]
    assert after.meta["iterations"] > before.meta["iterations"]
    assert after.meta["resumed_from"] == str(tmp_path / "ckpt.npz")


def test_greedy_resumes_into_its_own_file(tmp_path):
    common = ["design", "greedy", "--d", 2, "--box-over-sigma", 1, "--maxiter", 10]
    before, after = _resume_both_ways(tmp_path, [*common, "--s", 5], [*common, "--s", 8])
    assert before.s == 5 and after.s == 8 and after.meta["resumed_points"] == 5
    np.testing.assert_array_equal(after.points[:5], before.points)


def test_adaptive_resumes_into_its_own_file(tmp_path):
    np.save(tmp_path / "X.npy", np.random.default_rng(0).normal(size=(150, 3)))
    common = ["design", "adaptive", "--data", tmp_path / "X.npy", "--sigma", 1.5, "--s", 8,
              "--n-train", 60, "--n-validation", 40, "--patience", 100]
    before, after = _resume_both_ways(tmp_path, [*common, "--maxiter", 4],
                                      [*common, "--maxiter", 8])
    assert after.meta["resume_validation_error"] == before.meta["validation_error"]
    assert after.meta["iterations"] == 8


@pytest.mark.parametrize("method", ["weighted", "lattice"])
def test_other_designs_still_refuse_resume_without_touching_the_file(tmp_path, method, capsys):
    ckpt = tmp_path / "w.npz"
    common = ["design", method, "--d", 2, "--s", 8, "--box-over-sigma", 1]
    assert call(*common, "-o", ckpt, "--quiet") == 0
    data = ckpt.read_bytes()
    assert call(*common, "--resume", ckpt, "-o", ckpt, "--quiet") == 2
    assert "unrecognized arguments: --resume" in capsys.readouterr().err
    assert ckpt.read_bytes() == data
