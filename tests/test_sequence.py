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
    # a pickled (object) member is never unpickled: rejected by its .npy header
    np.savez(tmp_path / "obj.npz", points=np.array([{"a": 1}], dtype=object),
             header=np.zeros(2, np.uint8))
    with pytest.raises(ValueError, match="invalid sequence file .*header is not valid"):
        load_sequence(tmp_path / "obj.npz")
    make_seq().save(tmp_path / "a.npz")
    _rewrite(tmp_path / "a.npz", tmp_path / "obj2.npz",
             points=np.array([[{"a": 1}] * 3] * 7, dtype=object))
    with pytest.raises(ValueError, match="'points' is not a C-order 1-D or 2-D array"):
        load_sequence(tmp_path / "obj2.npz")
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
        # Ctrl-C arrives in the middle of the write.  raise_signal delivers it to this
        # thread before it returns; os.kill could hand it to another (numba) thread, and
        # the interpreter would then run the handler only after the save had returned.
        signal.raise_signal(signal.SIGINT)
        real(fh, **arrays)

    import unittest.mock
    with unittest.mock.patch.object(seqmod.np, "savez_compressed", write_with_sigint):
        with pytest.raises(KeyboardInterrupt):
            seq.save(path)
    back = load_sequence(path)  # complete and valid
    assert back.points.tobytes() == seq.points.tobytes()
    assert sorted(os.listdir(tmp_path)) == ["a.npz"]


# --------------------------------------------------------------------------- hostile files
def _npy_bytes(arr=None, *, descr="<f8", shape=None, data=None):
    """An .npy member: numpy's own header (optionally with another descr/shape) + data."""
    import io

    if arr is not None:
        buf = io.BytesIO()
        np.save(buf, arr)
        return buf.getvalue()
    text = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (descr, tuple(shape))
    text = text.ljust(117) + "\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode() + data


def _zip(path, members, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, raw in members.items():
            zf.writestr(name, raw)
    return path


def _members(path):
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def _with_header(path, out, header):
    m = _members(path)
    m["header.npy"] = _npy_bytes(np.frombuffer(header if isinstance(header, bytes)
                                               else json.dumps(header).encode(), dtype=np.uint8))
    return _zip(out, m)


def _mutations():
    def put(*keys, value):
        def f(h):
            node = h
            for k in keys[:-1]:
                node = node[k]
            node[keys[-1]] = value
            return h
        return f

    deep = b'{"format": "qmc_orff.sequence", "format_version": 1, "arrays": {}, "meta": ' + \
        b"[" * 100000 + b"]" * 100000 + b"}"
    return {
        "arrays is a list": put("arrays", value=["points", "weights"]),
        "array spec is a list": put("arrays", "points", value=["<f8"]),
        "deep nesting": deep,
        "4300-digit integer": b'{"format": "qmc_orff.sequence", "format_version": 1, "arrays": '
                              b'{}, "meta": {"x": ' + b"7" * 5000 + b"}}",
        "version 1.0": put("format_version", value=1.0),
        "version '1'": put("format_version", value="1"),
        "version true": put("format_version", value=True),
        "dtype <f4": put("arrays", "points", "dtype", value="<f4"),
        "float shape": put("arrays", "points", "shape", value=[7.0, 3]),
        "bool shape": put("arrays", "weights", "shape", value=[True]),
        "extra field": put("signature", value="x"),
        "extra spec field": put("arrays", "points", "offset", value=0),
        "missing meta": lambda h: {k: v for k, v in h.items() if k != "meta"},
        "meta s is 7.0": put("meta", "s", value=7.0),
        "bad digest text": put("arrays", "points", "sha256", value="zz" * 32),
        "NaN constant": b'{"format": "qmc_orff.sequence", "format_version": 1, "arrays": {}, '
                        b'"meta": {"x": NaN}}',
        "1e999": b'{"format": "qmc_orff.sequence", "format_version": 1, "arrays": {}, '
                 b'"meta": {"x": 1e999}}',
        "duplicate key": b'{"format": "qmc_orff.sequence", "format": "qmc_orff.sequence", '
                         b'"format_version": 1, "arrays": {}, "meta": {}}',
        "not a dict": b"[1, 2, 3]",
    }


@pytest.mark.parametrize("what", list(_mutations()))
def test_odd_headers_raise_value_error_naming_the_file(tmp_path, what):
    # issue 11, items 1 and 4: AttributeError, RecursionError, a bare ValueError, or
    # silently accepted (1.0, True, '<f4', [7.0, 3], extra fields) before
    path = tmp_path / "a.npz"
    make_seq().save(path)
    change = _mutations()[what]
    header = change if isinstance(change, bytes) else change(_header(path))
    bad = _with_header(path, tmp_path / "bad.npz", header)
    with pytest.raises(ValueError, match=r"^invalid sequence file '.*bad\.npz': "):
        load_sequence(bad)


def test_huge_npy_shape_rejected_before_allocation(tmp_path):
    # issue 11, item 1: a member claiming shape (2**40, 3) gave MemoryError
    path = tmp_path / "a.npz"
    make_seq(weighted=False).save(path)
    m = _members(path)
    from _limits import memory_cap

    for shape in [(2 ** 40, 3), (7, 2 ** 40)]:
        m["points.npy"] = _npy_bytes(shape=shape, data=b"\0" * 168)
        bad = _zip(tmp_path / "huge.npz", m)
        with memory_cap(), pytest.raises(ValueError, match="invalid sequence file .*'points'"):
            load_sequence(bad)
    # the header says so too (and the member agrees): the zip directory's declared size
    # cannot hold it
    h = _header(path)
    h["arrays"]["points"]["shape"] = [2 ** 40, 3]
    h["meta"]["s"] = 2 ** 40
    m["header.npy"] = _npy_bytes(np.frombuffer(json.dumps(h).encode(), dtype=np.uint8))
    with memory_cap(), pytest.raises(ValueError, match="member 'points' declares"):
        load_sequence(_zip(tmp_path / "huge2.npz", m))


@pytest.mark.parametrize("member", ["weights.npy", "header.npy"])
def test_decompression_bomb_rejected_without_inflating(tmp_path, member):
    # issue 11, item 2: a 64 MiB member (64 KiB compressed) was inflated before any check
    # (the header may hold up to MAX_HEADER_BYTES = 16 MiB; this one claims 64 MiB)
    import tracemalloc

    path = tmp_path / "a.npz"
    make_seq().save(path)
    m = _members(path)
    n = 64 * 2 ** 20
    if member == "weights.npy":
        m[member] = _npy_bytes(shape=(n // 8,), data=bytes(n))
    else:
        m[member] = _npy_bytes(descr="|u1", shape=(n,), data=b" " * n)
    bomb = _zip(tmp_path / "bomb.npz", m)
    assert bomb.stat().st_size < 2 ** 20
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="invalid sequence file"):
            load_sequence(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2 ** 20, peak


def test_appended_or_prefixed_files_rejected(tmp_path):
    # issue 11, item 3: file A with a valid file B appended loaded as B
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    make_seq(seed=1).save(a)
    make_seq(seed=2).save(b)
    for name, data in [("ab", a.read_bytes() + b.read_bytes()),
                       ("junk_b", b"#!/bin/sh\n" * 10 + b.read_bytes()),
                       ("b_junk", b.read_bytes() + b"\0" * 10),
                       ("a_hidden_b", a.read_bytes()[:40] + b.read_bytes() + a.read_bytes()[40:])]:
        bad = tmp_path / f"{name}.npz"
        bad.write_bytes(data)
        with pytest.raises(ValueError, match="invalid sequence file .*cannot be read"):
            load_sequence(bad)
    load_sequence(a)


def test_gap_between_members_rejected(tmp_path):
    # 6 bytes hidden between the first member and the second local header, with every
    # offset in the central directory and the end record shifted to match
    path = tmp_path / "a.npz"
    make_seq().save(path)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        offsets = sorted(i.header_offset for i in zf.infolist())
        cd = zf.start_dir
    gap = offsets[1]
    eocd = len(data) - 22
    pos = cd
    while pos < eocd:  # central directory entries: local header offset at +42
        off = int.from_bytes(data[pos + 42:pos + 46], "little")
        if off >= gap:
            data[pos + 42:pos + 46] = (off + 6).to_bytes(4, "little")
        pos += 46 + sum(int.from_bytes(data[pos + k:pos + k + 2], "little") for k in (28, 30, 32))
    data[eocd + 16:eocd + 20] = (cd + 6).to_bytes(4, "little")
    data[gap:gap] = b"hidden"
    (tmp_path / "gap.npz").write_bytes(bytes(data))
    with zipfile.ZipFile(tmp_path / "gap.npz") as zf:  # zipfile itself reads it
        assert zf.testzip() is None
    with pytest.raises(ValueError, match="gap or overlap"):
        load_sequence(tmp_path / "gap.npz")


def test_sha256_pin(tmp_path):
    import hashlib

    path = tmp_path / "a.npz"
    seq = make_seq()
    seq.save(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    back = load_sequence(path, sha256=digest.upper())
    assert back.points.tobytes() == seq.points.tobytes()
    other = tmp_path / "b.npz"
    make_seq(seed=3).save(other)  # a valid file, but not the one pinned
    with pytest.raises(ValueError, match="invalid sequence file .*SHA-256 digest .* differs"):
        load_sequence(other, sha256=digest)
    with pytest.raises(ValueError, match="'sha256' must be 64 hexadecimal digits"):
        load_sequence(path, sha256="abc")
    with pytest.raises(TypeError, match="'sha256' must be a hex string or None"):
        load_sequence(path, sha256=b"x" * 64)


def test_special_files_rejected_without_reading(tmp_path):
    # /dev/zero would never end; a FIFO would block the open
    if os.path.exists("/dev/zero"):
        with pytest.raises(ValueError, match="not a regular file"):
            load_sequence("/dev/zero")
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "f.npz"
        os.mkfifo(fifo)
        with pytest.raises(ValueError, match="not a regular file"):
            load_sequence(fifo)


def test_read_lattice_reads_with_a_bound():
    # issue 11, item 6: read_lattice('/dev/zero') read 6.5 GB; run in a child with a 1 GiB
    # address-space limit so that a regression fails instead of exhausting the machine
    import subprocess
    import sys

    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    code = ("import resource, sys\n"
            "resource.setrlimit(resource.RLIMIT_AS, (2 ** 31, 2 ** 31))\n"
            "from qmc_orff.sequence import read_lattice\n"
            "try:\n    read_lattice('/dev/zero')\n"
            "except ValueError as exc:\n    print('ValueError', exc)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("ValueError invalid lattice file '/dev/zero': larger than")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_read_lattice_refuses_a_fifo(tmp_path):
    fifo = tmp_path / "l.txt"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="cannot read lattice file .*: a FIFO"):
        read_lattice(fifo)


def test_read_lattice_rejects_out_of_range_values(tmp_path):
    bad = tmp_path / "l.txt"
    for body, match in [("2\n16\n1\n" + "9" * 30 + "\n", "is not an integer in"),
                        ("1\n0\n0\n", "expected d >= 1, n >= 1"),
                        ("1\n16\n16\n", r"entries in \[0, n\)"),
                        ("1\n16\n-1\n", "is not an integer in")]:
        bad.write_text("# lattice\n" + body)
        with pytest.raises(ValueError, match=match):
            read_lattice(bad)


def _stale_temp(tmp_path, target, named=True):
    """A temporary file left by a writer killed by SIGKILL in the middle of a save
    (``named``: with a named temporary file, as where ``O_TMPFILE`` is missing)."""
    import subprocess
    import sys

    code = ("import os, signal, numpy as np\n"
            "from qmc_orff import sequence as sm\n"
            + ("sm.atomic._unnamed_temp = lambda directory: None\n" if named else "") +
            "def killed(fh, **arrays):\n"
            "    fh.write(b'PK partial'); fh.flush(); os.kill(os.getpid(), signal.SIGKILL)\n"
            "sm.np.savez_compressed = killed\n"
            f"sm.Sequence(np.ones((2, 2))).save({str(target)!r})\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert proc.returncode == -9
    return [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


@pytest.mark.skipif(os.name != "posix", reason="stale temp files are recognised on POSIX")
def test_stale_temp_files_of_killed_writers_are_removed(tmp_path):
    # issue 11, item 7: 2 of 20 killed runs left a .tmp file that stayed forever
    target = tmp_path / "g.npz"
    stale = _stale_temp(tmp_path, target)
    assert len(stale) == 1 and stale[0].startswith(".g.npz.")
    legacy = tmp_path / ".g.npz.abcd1234.tmp"  # not named by this library: kept
    legacy.write_bytes(b"x")
    other = tmp_path / f".other.npz.{os.getpid() + 10 ** 6}@x.abc.tmp"  # another target: kept
    other.write_bytes(b"x")
    make_seq().save(target)
    left = sorted(f for f in os.listdir(tmp_path) if f.endswith(".tmp"))
    assert left == sorted([legacy.name, other.name])
    load_sequence(target)


def _has_o_tmpfile(directory):
    fd = seqmod.atomic._unnamed_temp(str(directory))
    if fd is None:
        return False
    os.close(fd)
    return True


def test_a_killed_writer_leaves_no_temp_file(tmp_path):
    # issue 21, L9: the temporary file has no name until it is complete (O_TMPFILE)
    if not _has_o_tmpfile(tmp_path):
        pytest.skip("no O_TMPFILE here")
    assert _stale_temp(tmp_path, tmp_path / "g.npz", named=False) == []
    assert os.listdir(tmp_path) == []


def test_the_unnamed_temp_is_linked_not_copied(tmp_path, monkeypatch):
    # the named temporary file (and its window for a SIGKILL) is only the fallback
    if not _has_o_tmpfile(tmp_path):
        pytest.skip("no O_TMPFILE here")

    def refuse(*args, **kwargs):
        raise AssertionError("fell back to a named temporary file")

    monkeypatch.setattr(seqmod.atomic, "_named_temp", refuse)
    make_seq().save(tmp_path / "g.npz")
    assert os.listdir(tmp_path) == ["g.npz"]
    assert os.stat(tmp_path / "g.npz").st_mode & 0o777 == 0o666 & ~_umask()
    load_sequence(tmp_path / "g.npz")


def _umask():
    umask = os.umask(0)
    os.umask(umask)
    return umask


def test_unnamed_temp_falls_back_to_a_copy_where_linking_is_refused(tmp_path, monkeypatch):
    # /proc not mounted, or linkat refused: the bytes go into a named temporary file
    if not _has_o_tmpfile(tmp_path):
        pytest.skip("no O_TMPFILE here")

    def refuse(*args, **kwargs):
        raise PermissionError("refused")

    monkeypatch.setattr(seqmod.atomic.os, "link", refuse)
    make_seq().save(tmp_path / "g.npz")
    assert os.listdir(tmp_path) == ["g.npz"]
    load_sequence(tmp_path / "g.npz")


def test_remove_stale_temps_of_every_target_keeps_live_writers(tmp_path):
    if os.name != "posix":
        pytest.skip("stale temp files are recognised on POSIX")
    import subprocess
    import sys

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host = seqmod._host_tag()
    names = [f".a.b.npz.{dead.pid}@{host}.x1.tmp", f".c.npz.{dead.pid}@{host}.x2.tmp",
             f".c.npz.{os.getpid()}@{host}.x3.tmp", f".c.npz.{dead.pid}@otherhost.x4.tmp",
             ".c.npz.x5.tmp", "c.npz"]
    for name in names:
        (tmp_path / name).write_bytes(b"x")
    seqmod.remove_stale_temps(tmp_path)
    assert sorted(os.listdir(tmp_path)) == sorted(names[2:])


@pytest.mark.skipif(os.name != "posix", reason="stale temp files are recognised on POSIX")
def test_temp_files_of_live_writers_are_kept(tmp_path):
    import socket
    import subprocess
    import sys

    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        host = seqmod._host_tag()
        assert host and socket.gethostname()
        mine = tmp_path / f".g.npz.{live.pid}@{host}.abcdefgh.tmp"
        mine.write_bytes(b"x")
        make_seq().save(tmp_path / "g.npz")
        assert mine.exists()
    finally:
        live.kill()
        live.wait()
    make_seq().save(tmp_path / "g.npz")  # now its writer is dead
    assert not mine.exists()


def test_deferred_ctrl_c_calls_a_custom_handler_after_the_save(tmp_path):
    import signal

    calls = []

    def handler(signum, frame):
        calls.append(os.path.exists(tmp_path / "a.npz"))

    previous = signal.signal(signal.SIGINT, handler)
    try:
        real = np.savez_compressed

        def write_with_sigint(fh, **arrays):
            signal.raise_signal(signal.SIGINT)
            real(fh, **arrays)

        import unittest.mock
        with unittest.mock.patch.object(seqmod.np, "savez_compressed", write_with_sigint):
            make_seq().save(tmp_path / "a.npz")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert calls == [True]  # once, after the file was complete


@pytest.mark.slow
def test_corruption_campaign_quick():
    # benchmarks/campaign_hostile_files.py --quick: about 1600 hostile files; the floor is
    # 0 exceptions other than ValueError/TypeError and no inflation past a declared size
    import subprocess
    import sys

    script = os.path.join(os.path.dirname(__file__), "..", "benchmarks",
                          "campaign_hostile_files.py")
    proc = subprocess.run([sys.executable, script, "--quick"], capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.rstrip().endswith("PASS")


# --------------------------------------------------------------------------- densities
def test_unknown_density_is_refused_with_the_known_ones(tmp_path):
    path = tmp_path / "bogus.npz"
    Sequence(np.ones((2, 2)), meta={"density": "bogus"}).save(path)
    with pytest.raises(ValueError, match=r"invalid sequence file '.*bogus.npz': meta 'density' "
                                         r"'bogus' is not a known density \(one of 'gaussian', "
                                         r"'laplacian', 'matern', 'skewed_chi2', or null\); to "
                                         r"read a design for a density of your own, name it: "
                                         r"load_sequence\(path, densities=\['bogus'\]\)"):
        load_sequence(path)
    back = load_sequence(path, densities=["bogus"])
    assert back.meta["density"] == "bogus"
    np.testing.assert_array_equal(back.points, np.ones((2, 2)))


@pytest.mark.parametrize("density", [None, *seqmod.KNOWN_DENSITIES])
def test_known_densities_load(tmp_path, density):
    path = tmp_path / "known.npz"
    Sequence(np.ones((2, 2)), meta={"density": density}).save(path)
    assert load_sequence(path).meta["density"] == density


def test_known_densities_are_the_names_the_library_reads():
    """Every kernel whose designs the library writes is known, and every known name is one a
    map accepts as a Sequence's density (so nothing the library writes is refused)."""
    from qmc_orff.densities import get_density
    from qmc_orff.objectives.data import KERNELS

    known = set(seqmod.KNOWN_DENSITIES)
    assert set(KERNELS) <= known
    assert {get_density(k).name for k in ("gaussian", "laplacian")} <= known
    for name in known:
        seq = Sequence(np.full((4, 2), 0.5), meta={"density": name})
        W, _ = qmc_orff.make_frequencies(name, 4, 2, sequence=seq)
        assert W.shape == (4, 2)


def test_densities_argument_is_checked(tmp_path):
    path = tmp_path / "g.npz"
    Sequence(np.ones((2, 2)), meta={"density": "gaussian"}).save(path)
    with pytest.raises(TypeError, match="'densities' must be a list of density names \\(str\\); "
                                        "got 'sinc'"):
        load_sequence(path, densities="sinc")
    with pytest.raises(TypeError, match="'densities' must contain non-empty strings; got 3"):
        load_sequence(path, densities=[3])
    assert load_sequence(path, densities=("sinc",)).meta["density"] == "gaussian"
