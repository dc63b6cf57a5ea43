"""Sequence: the dataclass, the .npz format (atomic, checked) and the LDData lattice export."""
import dataclasses
import json
import os
import zipfile

import numpy as np
import pytest

import qmc_orff
from qmc_orff import sequence as seqmod
from qmc_orff.sequence import FORMAT_VERSION, Sequence, load_sequence, read_lattice


def make_seq(weighted=True, s=7, d=3, seed=0):
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((s, d))
    xi = rng.random(s) if weighted else None
    meta = {"method": "global", "density": "gaussian", "box_over_sigma": 2.0,
            "d2": np.float64(1.5e-6), "history": np.array([3.0, 2.0, 1.5]), "note": "x"}
    return Sequence(W, xi, meta)


# --------------------------------------------------------------------------- dataclass
def test_public_names():
    assert qmc_orff.Sequence is Sequence
    assert qmc_orff.load_sequence is load_sequence


def test_meta_normalised_and_required_keys():
    seq = make_seq()
    assert seq.s == 7 and seq.d == 3
    assert seq.meta["s"] == 7 and seq.meta["d"] == 3
    assert seq.meta["box_over_sigma"] == [2.0, 2.0, 2.0]
    assert seq.meta["history"] == [3.0, 2.0, 1.5]
    assert type(seq.meta["d2"]) is float
    plain = Sequence(np.ones((2, 2)))
    assert plain.meta["method"] == "custom"
    assert plain.meta["density"] is None and plain.meta["box_over_sigma"] is None
    assert "weighted=False" in repr(plain) and "s=2" in repr(plain)


def test_frozen_and_read_only():
    W = np.zeros((3, 2))
    seq = Sequence(W)
    W[0, 0] = 5.0  # the sequence holds a copy
    assert seq.points[0, 0] == 0.0
    with pytest.raises(ValueError, match="read-only"):
        seq.points[0, 0] = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        seq.points = W
    meta = {"method": "m"}
    seq2 = Sequence(W, meta=meta)
    meta["method"] = "changed"
    assert seq2.meta["method"] == "m"


def test_copies_stay_read_only_and_checked():
    # sklearn.clone deep-copies a Sequence held by FourierFeatures/ORFF: the copy used to
    # get writeable arrays
    import copy
    import pickle

    from sklearn.base import clone

    seq = Sequence(np.arange(6.0).reshape(3, 2), [0.5, 0.25, 0.25],
                   meta={"density": "gaussian", "box_over_sigma": 2.0})
    copies = [copy.copy(seq), copy.deepcopy(seq), pickle.loads(pickle.dumps(seq)),
              clone(qmc_orff.FourierFeatures(sequence=seq)).sequence]
    for c in copies:
        assert isinstance(c, Sequence)
        np.testing.assert_array_equal(c.points, seq.points)
        np.testing.assert_array_equal(c.weights, seq.weights)
        assert c.meta == seq.meta
        assert not c.points.flags.writeable and not c.weights.flags.writeable


def test_effective_weights():
    seq = Sequence(np.zeros((4, 1)))
    np.testing.assert_array_equal(seq.effective_weights, np.full(4, 0.25))
    seq = Sequence(np.zeros((2, 1)), [0.0, 3.0])
    np.testing.assert_array_equal(seq.effective_weights, [0.0, 3.0])


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(points=np.ones(3)), ValueError, "'points' must be a 2-D array"),
    (dict(points=np.ones((0, 2))), ValueError, "at least one point"),
    (dict(points=[[1.0, np.nan]]), ValueError, "'points' must contain only finite"),
    (dict(points=np.ones((2, 2)), weights=[1.0, -1.0]), ValueError, "'weights' must be nonneg"),
    (dict(points=np.ones((2, 2)), weights=[1.0]), ValueError, r"'weights' must have shape \(2,\)"),
    (dict(points=np.ones((2, 2)), meta={"s": 3}), ValueError, r"meta\['s'\] = 3 conflicts"),
    (dict(points=np.ones((2, 2)), meta={"x": object()}), ValueError, "JSON-serialisable"),
    (dict(points=np.ones((2, 2)), meta={"x": float("nan")}), ValueError, "JSON-serialisable"),
    (dict(points=np.ones((2, 2)), meta=[1]), TypeError, "'meta' must be a dict"),
    (dict(points=np.ones((2, 2)), meta={"box_over_sigma": -1.0}), ValueError,
     "'box_over_sigma' must be positive"),
    (dict(points=np.ones((2, 2)), meta={"box_over_sigma": [1.0, 2.0, 3.0]}), ValueError,
     "'box_over_sigma' must have length d=2"),
])
def test_bad_construction(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        Sequence(**kwargs)


def test_frequencies():
    seq = make_seq()
    np.testing.assert_array_equal(seq.frequencies(2.0), seq.points / 2.0)
    sig = np.array([1.0, 2.0, 4.0])
    np.testing.assert_array_equal(seq.frequencies(sig), seq.points / sig)
    np.testing.assert_array_equal(seq.frequencies(), seq.points)
    with pytest.raises(ValueError, match="'sigma' must be positive"):
        seq.frequencies(0.0)
    with pytest.raises(ValueError, match="'sigma' must have length d=3"):
        seq.frequencies([1.0, 2.0])


# --------------------------------------------------------------------------- files
@pytest.mark.parametrize("weighted", [True, False])
def test_round_trip_bit_for_bit(tmp_path, weighted):
    seq = make_seq(weighted)
    path = tmp_path / "a.npz"
    seq.save(path)
    back = load_sequence(path)
    assert back.points.tobytes() == seq.points.tobytes()
    if weighted:
        assert back.weights.tobytes() == seq.weights.tobytes()
    else:
        assert back.weights is None
    assert back.meta == seq.meta
    # the file is a plain npz with no pickled members
    with np.load(path, allow_pickle=False) as npz:
        assert set(npz.files) == ({"points", "weights", "header"} if weighted
                                  else {"points", "header"})
        header = json.loads(npz["header"].tobytes().decode())
    assert header["format_version"] == FORMAT_VERSION
    assert len(header["arrays"]["points"]["sha256"]) == 64
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(path).st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0600


def test_save_overwrites_atomically_and_leaves_no_temp(tmp_path):
    path = tmp_path / "a.npz"
    make_seq(seed=1).save(path)
    make_seq(seed=2).save(path)
    np.testing.assert_array_equal(load_sequence(path).points, make_seq(seed=2).points)
    assert sorted(os.listdir(tmp_path)) == ["a.npz"]


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, OSError])
def test_interrupted_save_leaves_no_partial_file(tmp_path, monkeypatch, interrupt):
    path = tmp_path / "a.npz"
    old = make_seq(seed=1)
    old.save(path)
    before = path.read_bytes()

    def broken(fh, **arrays):
        fh.write(b"PK\x03\x04 partial")
        raise interrupt("stop")

    monkeypatch.setattr(seqmod.np, "savez_compressed", broken)
    with pytest.raises(interrupt):
        make_seq(seed=2).save(path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["a.npz"]
    with pytest.raises(interrupt):
        make_seq(seed=2).save(tmp_path / "new.npz")
    assert sorted(os.listdir(tmp_path)) == ["a.npz"]


def test_truncated_file_rejected(tmp_path):
    path = tmp_path / "a.npz"
    make_seq().save(path)
    data = path.read_bytes()
    for cut in (len(data) // 3, len(data) - 10, 30):
        bad = tmp_path / f"cut{cut}.npz"
        bad.write_bytes(data[:cut])
        with pytest.raises(ValueError, match="invalid sequence file .* cannot be read"):
            load_sequence(bad)


def _member_data_range(path, name):
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(name)
    raw = path.read_bytes()
    off = info.header_offset
    n_name = int.from_bytes(raw[off + 26:off + 28], "little")
    n_extra = int.from_bytes(raw[off + 28:off + 30], "little")
    start = off + 30 + n_name + n_extra
    return start, start + info.compress_size


@pytest.mark.parametrize("member", ["points.npy", "weights.npy", "header.npy"])
def test_bit_flips_rejected(tmp_path, member):
    path = tmp_path / "a.npz"
    seq = make_seq(s=40)
    seq.save(path)
    data = bytearray(path.read_bytes())
    start, stop = _member_data_range(path, member)
    # interior of the compressed member: every flip changes the decoded bytes
    for pos in np.linspace(start + 2, stop - 3, 7).astype(int):
        for bit in (0, 5):
            flipped = bytearray(data)
            flipped[pos] ^= 1 << bit
            bad = tmp_path / "flip.npz"
            bad.write_bytes(bytes(flipped))
            with pytest.raises(ValueError, match="invalid sequence file"):
                load_sequence(bad)


def test_any_bit_flip_is_rejected_or_harmless(tmp_path):
    # Anywhere in the file a flip either raises or leaves the decoded content intact
    # (e.g. deflate padding bits, zip timestamps): never silently different data.
    path = tmp_path / "a.npz"
    seq = make_seq(s=16)
    seq.save(path)
    data = path.read_bytes()
    raised = 0
    positions = range(0, len(data), 7)
    for pos in positions:
        flipped = bytearray(data)
        flipped[pos] ^= 0x10
        bad = tmp_path / "flip.npz"
        bad.write_bytes(bytes(flipped))
        try:
            back = load_sequence(bad)
        except ValueError:
            raised += 1
            continue
        assert back.points.tobytes() == seq.points.tobytes()
        assert back.weights.tobytes() == seq.weights.tobytes()
        assert back.meta == seq.meta
    assert raised > 0.5 * len(positions)


def _rewrite(path, out, **changes):
    with np.load(path, allow_pickle=False) as npz:
        members = {k: npz[k] for k in npz.files}
    members.update(changes)
    np.savez(out, **members)


def _header(path):
    with np.load(path, allow_pickle=False) as npz:
        return json.loads(npz["header"].tobytes().decode())


def _encode(header):
    return np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)


def test_digest_mismatch_rejected(tmp_path):
    path = tmp_path / "a.npz"
    seq = make_seq()
    seq.save(path)
    pts = seq.points.copy()
    pts[2, 1] = np.nextafter(pts[2, 1], np.inf)  # one ulp
    _rewrite(path, tmp_path / "b.npz", points=pts)
    with pytest.raises(ValueError, match="'points' does not match its SHA-256 digest"):
        load_sequence(tmp_path / "b.npz")


def test_wrong_version_and_format_rejected(tmp_path):
    path = tmp_path / "a.npz"
    make_seq().save(path)
    h = _header(path)
    h["format_version"] = FORMAT_VERSION + 1
    _rewrite(path, tmp_path / "v.npz", header=_encode(h))
    with pytest.raises(ValueError, match="format version 2 is not supported"):
        load_sequence(tmp_path / "v.npz")
    h = _header(path)
    h["format"] = "something else"
    _rewrite(path, tmp_path / "f.npz", header=_encode(h))
    with pytest.raises(ValueError, match="does not describe a 'qmc_orff.sequence' file"):
        load_sequence(tmp_path / "f.npz")
    _rewrite(path, tmp_path / "j.npz", header=np.frombuffer(b"{not json", dtype=np.uint8))
    with pytest.raises(ValueError, match="not valid UTF-8 JSON"):
        load_sequence(tmp_path / "j.npz")


def test_semantic_checks(tmp_path):
    path = tmp_path / "a.npz"
    seq = make_seq()
    seq.save(path)

    def forge(name, **arrays):
        h = _header(path)
        for key, arr in arrays.items():
            h["arrays"][key] = {"shape": list(arr.shape), "dtype": "<f8",
                                "sha256": seqmod._digest(arr)}
        out = tmp_path / name
        _rewrite(path, out, header=_encode(h), **arrays)
        return out

    neg = seq.weights.copy()
    neg[0] = -1.0
    with pytest.raises(ValueError, match="'weights' contains negative values"):
        load_sequence(forge("neg.npz", weights=neg))
    inf = seq.points.copy()
    inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="'points' contains non-finite values"):
        load_sequence(forge("inf.npz", points=inf))
    with pytest.raises(ValueError, match=r"'weights' has shape \(3,\), expected \(7,\)"):
        load_sequence(forge("shape.npz", weights=np.ones(3)))


def test_other_files_rejected(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        load_sequence(tmp_path / "missing.npz")
    txt = tmp_path / "x.npz"
    txt.write_text("hello")
    with pytest.raises(ValueError, match="cannot be read"):
        load_sequence(txt)
    np.savez(tmp_path / "other.npz", a=np.ones(3))
    with pytest.raises(ValueError, match="not a qmc_orff sequence file"):
        load_sequence(tmp_path / "other.npz")
    # a pickled (object) member is never unpickled
    np.savez(tmp_path / "obj.npz", points=np.array([{"a": 1}], dtype=object),
             header=np.zeros(2, np.uint8))
    with pytest.raises(ValueError, match="cannot be read"):
        load_sequence(tmp_path / "obj.npz")
    with pytest.raises(ValueError, match="cannot be read"):
        load_sequence(tmp_path)


# --------------------------------------------------------------------------- lattice export
def test_lattice_round_trip(tmp_path):
    z = [1, 7, 11]
    t = (np.arange(16)[:, None] * np.array(z) % 16 + 0.5) / 16
    seq = Sequence(t, None, {"method": "lattice", "generating_vector": z, "lattice_n": 16,
                             "lattice_shift": [1 / 32] * 3})
    out = tmp_path / "lat.txt"
    seq.write_lattice(out)
    lines = out.read_text().splitlines()
    assert lines[0] == "# lattice"
    n, zz = read_lattice(out)
    assert n == 16 and zz.tolist() == z and zz.dtype == np.int64
    # the data lines are: d, n, z_1..z_d (comments after '#')
    data = [ln.split("#")[0].strip() for ln in lines if ln.split("#")[0].strip()]
    assert data == ["3", "16", "1", "7", "11"]


def test_lattice_errors(tmp_path):
    with pytest.raises(ValueError, match="only lattice designs"):
        make_seq().write_lattice(tmp_path / "x.txt")
    bad = tmp_path / "bad.txt"
    bad.write_text("2\n16\n1\n3\n")
    with pytest.raises(ValueError, match="first line must be '# lattice'"):
        read_lattice(bad)
    bad.write_text("# lattice\n3\n16\n1\n3\n")
    with pytest.raises(ValueError, match="expected the dimension"):
        read_lattice(bad)
    bad.write_text("# lattice\n2\n16\n1\nx\n")
    with pytest.raises(ValueError, match="'x' is not an integer"):
        read_lattice(bad)
    with pytest.raises(ValueError, match="cannot read lattice file"):
        read_lattice(tmp_path / "missing.txt")


def test_ctrl_c_during_save_completes_the_file_first(tmp_path):
    import signal

    path = tmp_path / "a.npz"
    seq = make_seq()
    real = np.savez_compressed

    def write_with_sigint(fh, **arrays):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C arrives in the middle of the write
        real(fh, **arrays)

    import unittest.mock
    with unittest.mock.patch.object(seqmod.np, "savez_compressed", write_with_sigint):
        with pytest.raises(KeyboardInterrupt):
            seq.save(path)
    back = load_sequence(path)  # complete and valid
    assert back.points.tobytes() == seq.points.tobytes()
    assert sorted(os.listdir(tmp_path)) == ["a.npz"]
