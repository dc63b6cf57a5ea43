"""The shipped catalogue: index, package data, nearest-entry loading, stored D^2, resumable build."""
import hashlib
import json
import os
import warnings
from importlib import resources

import numpy as np
import pytest

import qmc_orff
import qmc_orff.catalogue as cat
from qmc_orff import BoxDiscrepancy
from qmc_orff.designs.start_points import initial_points, to_frequencies
from qmc_orff.sequence import load_sequence

ENTRIES = cat.list_catalogue()


def needs_catalogue(test):
    """The catalogue is shipped: its absence is a failure (see test_catalogue_is_shipped), not a skip."""
    return test


def test_catalogue_is_shipped():
    grid = {(e["d"], e["s"], e["box_over_sigma"], e["method"]) for e in ENTRIES}
    assert len(grid) == len(ENTRIES) > 100
    # every grid point was built and scored; exactly those that beat ORF are shipped
    scores = json.loads(resources.files("qmc_orff.sequences").joinpath("scores.json").read_text())
    rows = scores["scores"]
    assert len(rows) == len(cat.D_VALUES) * len(cat.S_VALUES) * len(cat.BOX_OVER_SIGMA) * len(cat.METHODS)
    kept = {(r["d"], r["s"], r["box_over_sigma"], r["method"]) for r in rows if r["kept"]}
    assert kept == grid
    for r in rows:
        if r["kept"]:
            assert r["ratio_to_orf"] < 1.0, r
            assert r["method"] == "global" or r["gram_error"] <= r["start_gram_error"], r
        else:  # lost to ORF, or a weighted entry lost to its own uniform-weight start
            assert r["ratio_to_orf"] >= 1.0 or r["gram_error"] > r["start_gram_error"], r


def box(r, d):
    return BoxDiscrepancy(np.full(d, float(r)), sigma=np.ones(d))


def test_public_names():
    assert qmc_orff.load_catalogue is cat.load_catalogue
    assert qmc_orff.list_catalogue is cat.list_catalogue
    assert qmc_orff.catalogue is cat  # the subpackage, not a function it shadows
    assert qmc_orff.list_catalogue() == cat.list_catalogue()
    assert cat.list_catalogue(method="nonexistent") == []


@needs_catalogue
def test_index_matches_files_and_package_data():
    root = resources.files("qmc_orff.sequences")
    assert root.joinpath("index.json").is_file()
    index = json.loads(root.joinpath("index.json").read_text())
    assert index["density"] == "gaussian" and index["format_version"] == 1
    for e in ENTRIES:
        assert root.joinpath(e["file"]).is_file()
        assert e["file"] == cat.entry_name(e["d"], e["s"], e["box_over_sigma"], e["method"])
        assert e["method"] in cat.METHODS and e["d"] in cat.D_VALUES and e["s"] in cat.S_VALUES
        if e["method"] == "global":
            assert e["maxiter"] == cat.default_maxiter(e["d"], e["s"])
            assert e["iterations"] <= e["maxiter"]
        # no entry is worse than ORF on its own scoring data; its file is the one indexed
        assert e["ratio_to_orf"] < 1.0
        assert e["ratio_to_orf"] == pytest.approx(e["gram_error"] / e["orf_gram_error"], rel=1e-12)
        data = root.joinpath(e["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == e["sha256"]
        seq = load_sequence(os.path.join(str(root), e["file"]))
        for key in ("d", "s", "method", "ratio_to_orf", "gram_error", "d2"):
            assert seq.meta[key] == e[key]
        if e["method"] == "weighted":
            assert abs(float(np.sum(seq.weights)) - 1.0) <= 1e-12
            assert np.all(seq.weights >= 0)
            assert e["gram_error"] <= e["start_gram_error"]  # weights never hurt on held-out data
    total = sum(os.path.getsize(os.path.join(str(root), e["file"])) for e in ENTRIES)
    assert total < 30e6


@needs_catalogue
@pytest.mark.parametrize("d, s, r, method", [(2, 64, 0.5, "global"), (4, 64, 0.25, "weighted"),
                                              (8, 128, 0.125, "global"), (4, 256, 1.0, "global")])
def test_stored_d2_recomputed(d, s, r, method):
    if not cat.list_catalogue(d=d, s=s, method=method):
        pytest.skip("entry not built")
    seq = cat.load_catalogue(d, s, r, method)
    obj = box(r, d)
    assert seq.meta["d2"] == pytest.approx(obj(seq.points, seq.weights), rel=1e-9)
    halton = to_frequencies(initial_points("halton", s, d), obj.density, 1.0)
    assert seq.meta["halton_d2"] == pytest.approx(obj(halton), rel=1e-9)
    assert seq.meta["d2"] < seq.meta["halton_d2"]
    assert seq.meta["catalogue"] == {"file": cat.entry_name(d, s, r, method),
                                     "requested_box_over_sigma": r, "chosen_box_over_sigma": r}


@needs_catalogue
def test_load_nearest_in_log_scale():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exact = cat.load_catalogue(2, 64, 0.5, "global")
    assert exact.meta["box_over_sigma"] == [0.5, 0.5]
    with pytest.warns(UserWarning, match=r"log-nearest, box_over_sigma=1 .*\dx that of orthogonal"):
        seq = cat.load_catalogue(2, 64, 0.8, "global")  # log 0.8 is nearer log 1 than log 0.5
    assert seq.meta["catalogue"]["chosen_box_over_sigma"] == 1.0
    assert seq.meta["catalogue"]["requested_box_over_sigma"] == 0.8
    with pytest.warns(UserWarning, match="box_over_sigma=0.125"):
        seq = cat.load_catalogue(2, 64, 0.1, "global")
    with pytest.warns(UserWarning, match="box_over_sigma=1 "):  # tie at sqrt(0.5): larger box
        seq = cat.load_catalogue(2, 64, float(np.sqrt(0.5)), "global")
    np.testing.assert_array_equal(seq.frequencies(2.0), seq.points / 2.0)


@needs_catalogue
@pytest.mark.parametrize("r", [0.05, 2.5, 4.0])
def test_load_refuses_far_requests(r):
    # more than a factor 2 from every entry: refused, with the numbers
    with pytest.raises(ValueError, match=rf"'box_over_sigma'={r:g} is more than 2x away .*entries: \["):
        cat.load_catalogue(2, 64, r, "global")


@needs_catalogue
def test_scores_recomputed():
    # the index's score is reproducible from score_entry (held-out Gaussian data, moment box)
    e = cat.list_catalogue(d=4, s=64, method="weighted")[0]
    seq = cat.load_catalogue(4, 64, e["box_over_sigma"], "weighted")
    sc = cat.score_entry(seq.points, seq.weights, e["box_over_sigma"])
    assert sc["ratio_to_orf"] == pytest.approx(e["ratio_to_orf"], rel=1e-9)
    assert sc["gram_error"] < sc["orf_gram_error"]


@needs_catalogue
@pytest.mark.parametrize("args, exc, match", [
    ((3, 64, 1.0, "global"), ValueError, r"'d' must be one of the catalogue's dimensions \[2, "),
    ((2, 65, 1.0, "global"), ValueError, r"'s' must be one of the catalogue's sizes \[64"),
    ((2, 64, 1.0, "greedy"), ValueError, "'method' must be one of 'global', 'weighted'"),
    ((2, 64, -1.0, "global"), ValueError, "'box_over_sigma' must be a positive finite number"),
    ((2, 64, "x", "global"), TypeError, "'box_over_sigma' must be a positive finite number"),
    ((0, 64, 2.0, "global"), ValueError, "'d' must be >= 1"),
])
def test_load_errors(args, exc, match):
    with pytest.raises(exc, match=match):
        cat.load_catalogue(*args)


def test_default_maxiter_fits_the_budget():
    assert cat.default_maxiter(8, 256) == 1000
    assert cat.default_maxiter(32, 1024) < cat.default_maxiter(32, 512) < 1000


def test_build_resume_and_repair(tmp_path):
    logs = []
    kw = dict(d_values=(2,), s_values=(16,), box_over_sigma=(1.0, 2.0), maxiter=5, keep_ratio=None)
    entries = cat.build_catalogue(tmp_path, log=logs.append, **kw)
    assert len(entries) == 4 and len(logs) == 4
    names = sorted(e["file"] for e in entries)
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".npz")) == names
    index = json.loads((tmp_path / "index.json").read_text())
    assert sorted(e["file"] for e in index["entries"]) == names
    for e in index["entries"]:
        seq = load_sequence(tmp_path / e["file"])
        assert seq.meta["d2"] == pytest.approx(box(e["box_over_sigma"], 2)(seq.points, seq.weights),
                                               rel=1e-9)
        assert seq.meta["catalogue_version"] == cat.CATALOGUE_VERSION
        if e["method"] == "global":
            assert seq.meta["maxiter"] == 5 and seq.meta["iterations"] <= 5
    # resume keeps valid files untouched ...
    target = tmp_path / names[0]
    mtime = target.stat().st_mtime_ns
    logs.clear()
    cat.build_catalogue(tmp_path, resume=True, log=logs.append, **kw)
    assert all("kept" in line for line in logs)
    assert target.stat().st_mtime_ns == mtime
    # ... and recomputes corrupted ones or ones built with another cap
    target.write_bytes(target.read_bytes()[:50])
    logs.clear()
    cat.build_catalogue(tmp_path, resume=True, log=logs.append, **kw)
    assert sum("kept" in line for line in logs) == 3
    load_sequence(target)
    logs.clear()
    cat.build_catalogue(tmp_path, resume=True, log=logs.append, **dict(kw, maxiter=6))
    assert sum("kept" in line for line in logs) == 2  # the two weighted entries
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


def test_build_rejects_bad_method(tmp_path):
    with pytest.raises(ValueError, match="'methods' must be one of 'global', 'weighted'"):
        cat.build_catalogue(tmp_path, methods=("lattice",), d_values=(2,), s_values=(8,))


def test_build_drops_entries_that_lose_to_orf(tmp_path):
    logs = []
    kw = dict(d_values=(2,), s_values=(16,), box_over_sigma=(1.0,), maxiter=5)
    assert cat.build_catalogue(tmp_path, log=logs.append, keep_ratio=1e-12, **kw) == []
    assert all("dropped" in line for line in logs) and len(logs) == 2
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".npz")]
    scores = json.loads((tmp_path / "scores.json").read_text())["scores"]
    assert len(scores) == 2 and not any(r["kept"] for r in scores)
    w = [r for r in scores if r["method"] == "weighted"][0]
    assert w["weights_sum"] == pytest.approx(1.0, abs=1e-12) and w["start_gram_error"] > 0


# --------------------------------------------------------------------------- hostile index
def test_shipped_index_pins_every_file_sha256():
    import hashlib

    root = resources.files("qmc_orff.sequences")
    assert ENTRIES
    for e in ENTRIES:
        assert e["sha256"] == hashlib.sha256(root.joinpath(e["file"]).read_bytes()).hexdigest()


def _small_catalogue(tmp_path, monkeypatch):
    """A catalogue folder with one real entry (d=2, s=64, bos 1, global), used as the package's."""
    import hashlib
    import shutil

    root = tmp_path / "cat"
    root.mkdir()
    name = cat.entry_name(2, 64, 1.0, "global")
    src = resources.files("qmc_orff.sequences").joinpath(name)
    (root / name).write_bytes(src.read_bytes())
    entry = next(e for e in ENTRIES if e["file"] == name)
    # a valid sequence file outside the folder, and another valid one inside
    outside = tmp_path / "outside.npz"
    qmc_orff.Sequence(np.ones((4, 2)), meta={"method": "global", "density": "gaussian",
                                             "box_over_sigma": 1.0}).save(outside)
    shutil.copy(outside, root / "small.npz")
    monkeypatch.setattr("qmc_orff.catalogue.index._package_dir", lambda: root)

    def write(*entries):
        (root / "index.json").write_text(json.dumps({"format": "qmc_orff.catalogue",
                                                     "format_version": 1, "entries": entries}))

    def digest(p):
        return hashlib.sha256(p.read_bytes()).hexdigest()

    return root, dict(entry), outside, write, digest


def test_catalogue_paths_are_confined(tmp_path, monkeypatch):
    # issue 11, item 5: '../', absolute paths and symlinks were followed out of the folder
    root, entry, outside, write, digest = _small_catalogue(tmp_path, monkeypatch)
    write(entry)
    cat.load_catalogue(2, 64, 1.0, "global")  # the real entry loads
    for file in ["../outside.npz", str(outside), "sub/../../outside.npz"]:
        write(dict(entry, file=file, sha256=digest(outside)))
        with pytest.raises(ValueError, match="'file' must be a plain .npz file name"):
            cat.load_catalogue(2, 64, 1.0, "global")
    link = root / "link.npz"
    link.symlink_to(outside)
    write(dict(entry, file="link.npz", sha256=digest(outside)))
    with pytest.raises(ValueError, match="resolves outside the catalogue folder"):
        cat.load_catalogue(2, 64, 1.0, "global")


def test_catalogue_file_must_match_its_entry(tmp_path, monkeypatch):
    # issue 11, item 5: asked d=2, s=64, got the file of d=2, s=4
    root, entry, outside, write, digest = _small_catalogue(tmp_path, monkeypatch)
    write(dict(entry, file="small.npz", sha256=digest(root / "small.npz")))
    with pytest.raises(ValueError, match="'small.npz' does not match its index entry: s=4"):
        cat.load_catalogue(2, 64, 1.0, "global")
    # a valid file that is not the one pinned by the index
    write(dict(entry, sha256=digest(root / "small.npz")))
    with pytest.raises(ValueError, match="invalid sequence file .*SHA-256 digest .* differs"):
        cat.load_catalogue(2, 64, 1.0, "global")
    # a flipped bit: the digest catches it before the file is parsed
    good = root / entry["file"]
    data = bytearray(good.read_bytes())
    data[len(data) // 2] ^= 1
    good.write_bytes(bytes(data))
    write(entry)
    with pytest.raises(ValueError, match="SHA-256 digest .* differs"):
        cat.load_catalogue(2, 64, 1.0, "global")


@pytest.mark.parametrize("change, match", [
    (lambda e: [e["file"]], "expected a JSON object, got list"),
    (lambda e: {k: v for k, v in e.items() if k != "box_over_sigma"}, "'box_over_sigma' must be"),
    (lambda e: dict(e, d="2"), "'d' must be a positive integer"),
    (lambda e: dict(e, s=64.0), "'s' must be a positive integer"),
    (lambda e: dict(e, box_over_sigma=True), "'box_over_sigma' must be"),
    (lambda e: dict(e, file=None), "'file' must be a plain .npz file name"),
    (lambda e: dict(e, method=["global"]), "'method' must be a string"),
    (lambda e: {k: v for k, v in e.items() if k != "sha256"}, "'sha256' must be the 64"),
    (lambda e: dict(e, sha256="x" * 64), "'sha256' must be the 64"),
])
def test_malformed_entries_raise_value_error(tmp_path, monkeypatch, change, match):
    # issue 11, item 5: malformed entries raised KeyError / TypeError
    root, entry, outside, write, digest = _small_catalogue(tmp_path, monkeypatch)
    write(change(entry))
    with pytest.raises(ValueError, match="the catalogue index's entry .* is malformed: " + match):
        cat.load_catalogue(2, 64, 1.0, "global")


@pytest.mark.parametrize("text", ['{"entries": {"a": 1}}', "[1, 2]",
                                  '{"entries": ' + "[" * 100000 + "]" * 100000 + "}",
                                  '{"entries": [], "x": ' + "9" * 5000 + "}"])
def test_malformed_index_raises_value_error(tmp_path, monkeypatch, text):
    root, entry, outside, write, digest = _small_catalogue(tmp_path, monkeypatch)
    (root / "index.json").write_text(text)
    with pytest.raises(ValueError, match="the catalogue index"):
        cat.load_catalogue(2, 64, 1.0, "global")


@pytest.mark.parametrize("d, s", sorted({(e["d"], e["s"]) for e in ENTRIES
                                          if e["method"] == "global"}))
def test_the_default_box_loads_every_shipped_size_without_a_warning(d, s):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seq = qmc_orff.load_catalogue(d, s)
    assert seq.meta["catalogue"]["chosen_box_over_sigma"] == 0.5
    assert seq.points.shape == (s, d)
