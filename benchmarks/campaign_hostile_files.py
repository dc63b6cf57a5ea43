"""Corruption campaign: hostile sequence files, catalogue indexes and lattice files (issue 11).

Generates, in a temporary folder, files derived from valid sequence files:
truncations, bit flips, byte overwrites, appended and prepended data, odd JSON
headers (types, nesting, huge numbers, extra fields), odd ``.npy`` headers
(huge shapes, other dtypes, Fortran order, other versions), zip-level damage
(declared sizes changed in the central directory and local headers, names,
compression methods, flags, duplicated or extra members), decompression bombs
and special files.  Each is fed to

- :func:`qmc_orff.load_sequence` (in this process, under an address-space cap),
- the command line (``qmc-orff discrepancy FILE``, in this process),

and hostile ``index.json`` entries to :func:`qmc_orff.load_catalogue`, hostile
lattice files to :func:`qmc_orff.sequence.read_lattice`.

Counts outcomes: loaded (a damaged file that loads must equal its source bit for
bit; a JSON header edited into another valid header may load as that edit),
ValueError, TypeError, anything else (the floor is 0), and the largest number of
bytes inflated from a zip member relative to its declared size (floor: <= 1).
The command line must answer 2 with one line on stderr for every rejected file.

Issue 21 adds one case per file or command-line finding (``--issue21`` runs only
those), each in a subprocess with a timeout (a hang) and, where sizes are at stake,
an address-space cap of 6 GiB (a MemoryError traceback is an allocation above the
documented 2**28 entries before the size check).  Full disks are simulated with
``RLIMIT_FSIZE`` (``SIGXFSZ`` ignored: writes fail with ``EFBIG``).  They print as a
table (case, finding, verdict, detail) and a summary; a case passes when the command
answers as the issue asks (most: exit 2 and one line on stderr).

Usage: python benchmarks/campaign_hostile_files.py [--seed 0] [--flips 400] [--quick]
                                                   [--issue21]
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import qmc_orff  # noqa: E402
import qmc_orff.catalogue as cat  # noqa: E402
from qmc_orff.catalogue import index as cat_index  # noqa: E402
from qmc_orff.cli import main as cli_main  # noqa: E402
from qmc_orff.sequence import Sequence, load_sequence, read_lattice  # noqa: E402
from _limits import memory_cap  # noqa: E402

# --------------------------------------------------------------------------- inflation meter
_INFLATED = {"max_ratio": 0.0, "max_bytes": 0}
_real_read = zipfile.ZipExtFile.read


def _metered_read(self, n=-1):
    out = _real_read(self, n)
    got = getattr(self, "_meter", 0) + len(out)
    self._meter = got
    declared = max(self._orig_file_size, 1)
    _INFLATED["max_ratio"] = max(_INFLATED["max_ratio"], got / declared)
    _INFLATED["max_bytes"] = max(_INFLATED["max_bytes"], got)
    return out


zipfile.ZipExtFile.read = _metered_read


# --------------------------------------------------------------------------- sources
def sources(tmp):
    rng = np.random.default_rng(0)
    out = {}
    specs = {"weighted": (32, 3, True), "plain": (16, 2, False), "big": (256, 8, True)}
    for name, (s, d, weighted) in specs.items():
        seq = Sequence(rng.standard_normal((s, d)), rng.random(s) if weighted else None,
                       {"method": "global", "density": "gaussian", "box_over_sigma": 2.0,
                        "history": [1.0, 0.5, 0.25], "note": "campaign"})
        path = os.path.join(tmp, f"src_{name}.npz")
        seq.save(path)
        out[name] = (path, seq)
    return out


def members(path):
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def write_zip(path, mem, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for k, v in mem.items():
            zf.writestr(k, v)


def npy(arr):
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


def npy_raw(descr, shape, data, *, fortran=False, version=(1, 0)):
    text = "{'descr': %r, 'fortran_order': %r, 'shape': %r, }" % (descr, fortran, tuple(shape))
    text = text.ljust(117) + "\n"
    size = len(text).to_bytes(2 if version == (1, 0) else 4, "little")
    return b"\x93NUMPY" + bytes(version) + size + text.encode() + data


def header_of(mem):
    return json.loads(np.load(io.BytesIO(mem["header.npy"])).tobytes())


def with_header(mem, header):
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    return dict(mem, **{"header.npy": npy(np.frombuffer(text, dtype=np.uint8))})


# --------------------------------------------------------------------------- hostile files
def json_values(rnd):
    return [None, True, 1.0, -1, 0, 2 ** 70, "x", [], {}, [1, 2], {"a": 1}, ["<f8"],
            [7.0, 3], [-1, 3], [2 ** 40, 3], 1e308, "points"]


def header_mutations(header, rnd):
    """(label, header) pairs: each field replaced by odd values, fields added and removed."""
    out = []

    def paths(node, prefix=()):
        if isinstance(node, dict):
            for k, v in node.items():
                yield prefix + (k,)
                yield from paths(v, prefix + (k,))

    for p in paths(header):
        if p[0] == "meta" and len(p) > 2:
            continue
        for v in json_values(rnd):
            h = json.loads(json.dumps(header))
            node = h
            for k in p[:-1]:
                node = node[k]
            node[p[-1]] = v
            out.append((f"set {'/'.join(p)}={str(v)[:12]}", h))
        h = json.loads(json.dumps(header))
        node = h
        for k in p[:-1]:
            node = node[k]
        del node[p[-1]]
        out.append((f"del {'/'.join(p)}", h))
    h = json.loads(json.dumps(header))
    h["extra"] = 1
    out.append(("extra field", h))
    raw = [b"[" * 100000 + b"]" * 100000, b'{"meta": ' + b"{\"a\":" * 50000 + b"1" + b"}" * 50001,
           b'{"x": ' + b"9" * 5000 + b"}", b'{"x": 1e999}', b'{"x": NaN}', b"\xff\xfe{}", b"",
           b'{"format": "qmc_orff.sequence", "format": "x"}', b"null", b'"str"', b"1" * 10 ** 6]
    out += [(f"raw header {i}", r) for i, r in enumerate(raw)]
    return out


def hostile(tmp, srcs, rnd, flips):
    """Yield (category, path, source Sequence or None)."""
    n = 0

    def new(data=None):
        nonlocal n
        n += 1
        path = os.path.join(tmp, f"h{n:06d}.npz")
        if data is not None:
            with open(path, "wb") as fh:
                fh.write(data)
        return path

    for name, (src, seq) in srcs.items():
        data = open(src, "rb").read()
        L = len(data)
        # truncations
        for cut in sorted(set([0, 1, 4, 21, 22, 30, L - 1, L - 22, L - 23] +
                              list(range(0, L, max(1, L // 60))))):
            yield "truncation", new(data[:cut]), seq
        # bit flips and byte overwrites anywhere
        for _ in range(flips):
            b = bytearray(data)
            pos = rnd.randrange(L)
            b[pos] ^= 1 << rnd.randrange(8)
            yield "bit flip", new(bytes(b)), seq
        for _ in range(flips // 4):
            b = bytearray(data)
            pos = rnd.randrange(L)
            b[pos:pos + 4] = bytes([rnd.choice([0, 255])]) * 4
            yield "byte overwrite", new(bytes(b)[:L]), seq
        # appended / prepended / embedded
        other = open(srcs["plain"][0], "rb").read()
        for label, d in [("A+B", data + other), ("B+A", other + data), ("junk+A", b"#!" * 50 + data),
                         ("A+junk", data + b"\0"), ("A+A", data + data),
                         ("A with B inside", data[:40] + other + data[40:])]:
            yield "appended/prepended", new(d), seq
        mem = members(src)
        header = header_of(mem)
        # odd JSON headers
        for label, h in header_mutations(header, rnd):
            p = new()
            write_zip(p, with_header(mem, h))
            yield "odd JSON header", p, seq
        # odd .npy headers
        s, d = seq.points.shape
        pts = seq.points.astype("<f8").tobytes()
        npys = [npy_raw("<f8", (2 ** 40, d), pts), npy_raw("<f8", (s, 2 ** 40), pts),
                npy_raw("<f8", (2 ** 62, 2 ** 62), pts), npy_raw("<f4", (s, d), pts),
                npy_raw(">f8", (s, d), pts), npy_raw("<f8", (s, d), pts, fortran=True),
                npy_raw("<f8", (s, d), pts, version=(2, 0)), npy_raw("<f8", (s, d), pts, version=(3, 0)),
                npy_raw("<f8", (s * d,), pts), npy_raw("<f8", (s, d), pts[:-8]),
                npy_raw("<f8", (s, d), pts + b"\0" * 8), npy_raw("|O", (s, d), pts),
                npy_raw("<c16", (s, d // 2 or 1), pts), b"\x93NUMPY\x01\x00\xff\xff" + b"{" * 65535,
                b"\x93NUMPY", b""]
        for raw in npys:
            p = new()
            write_zip(p, dict(mem, **{"points.npy": raw}))
            yield "odd npy header", p, seq
        # zip-level damage
        for label, mm, comp in [
                ("stored", mem, zipfile.ZIP_STORED),
                ("bz2", mem, zipfile.ZIP_BZIP2), ("lzma", mem, zipfile.ZIP_LZMA),
                ("renamed", {("x/" + k if k == "points.npy" else k): v for k, v in mem.items()},
                 zipfile.ZIP_DEFLATED),
                ("extra member", dict(mem, **{"other.npy": npy(np.ones(3))}), zipfile.ZIP_DEFLATED),
                ("no .npy suffix", {k[:-4]: v for k, v in mem.items()}, zipfile.ZIP_DEFLATED),
                ("missing points", {k: v for k, v in mem.items() if k != "points.npy"},
                 zipfile.ZIP_DEFLATED)]:
            p = new()
            write_zip(p, mm, comp)
            yield "zip damage", p, seq
        # duplicated member (zipfile warns and writes both)
        p = new()
        with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as zf:
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for k, v in mem.items():
                    zf.writestr(k, v)
                zf.writestr("points.npy", mem["points.npy"])
        yield "zip damage", p, seq
        # declared sizes and flags changed in the central directory / local headers
        with zipfile.ZipFile(src) as zf:
            infos = zf.infolist()
            cd = zf.start_dir
        for info in infos:
            for field_off, width, values in [(24, 4, [0, 1, 2 ** 31, 2 ** 32 - 1]),  # CD size
                                             (20, 4, [0, 1, 2 ** 32 - 1]),  # CD compressed
                                             (8, 2, [1, 8, 9, 0x0800]),  # CD flags
                                             (10, 2, [0, 12, 14, 99])]:  # CD method
                pos = cd
                while pos < L - 22:
                    nlen = int.from_bytes(data[pos + 28:pos + 30], "little")
                    fname = data[pos + 46:pos + 46 + nlen].decode(errors="replace")
                    if fname == info.filename:
                        for v in values:
                            b = bytearray(data)
                            b[pos + field_off:pos + field_off + width] = v.to_bytes(width, "little")
                            yield "zip sizes/flags", new(bytes(b)), seq
                    pos += 46 + sum(int.from_bytes(data[pos + k:pos + k + 2], "little")
                                    for k in (28, 30, 32))
            for field_off, width, values in [(22, 4, [0, 2 ** 32 - 1]), (18, 4, [0, 5]),
                                             (6, 2, [1, 8]), (26, 2, [0, 200])]:
                for v in values:
                    b = bytearray(data)
                    o = info.header_offset + field_off
                    b[o:o + width] = v.to_bytes(width, "little")
                    yield "zip sizes/flags", new(bytes(b)), seq
        # decompression bombs: members that inflate far beyond what the header says
        big = 128 * 2 ** 20
        for member, raw in [("points.npy", npy_raw("<f8", (big // 8 // d, d), b"\0" * (big // 8 // d * d * 8))),
                            ("weights.npy", npy_raw("<f8", (big // 8,), bytes(big))),
                            ("header.npy", npy_raw("|u1", (big,), b" " * big))]:
            p = new()
            write_zip(p, dict(mem, **{member: raw}))
            yield "bomb", p, seq
    # special files
    yield "special", tmp, None
    yield "special", os.path.join(tmp, "missing.npz"), None
    if os.path.exists("/dev/zero"):
        yield "special", "/dev/zero", None
    if hasattr(os, "mkfifo"):
        fifo = os.path.join(tmp, "fifo.npz")
        os.mkfifo(fifo)
        yield "special", fifo, None
    loop = os.path.join(tmp, "loop.npz")
    os.symlink(loop, loop)
    yield "special", loop, None


# --------------------------------------------------------------------------- runs
def same(a, b):
    return (a.points.tobytes() == b.points.tobytes()
            and (a.weights is None) == (b.weights is None)
            and (a.weights is None or a.weights.tobytes() == b.weights.tobytes())
            and a.meta == b.meta)


def run_sequences(tmp, srcs, rnd, flips, quick):
    counts = collections.Counter()
    by_cat = collections.defaultdict(collections.Counter)
    others = []
    slowest = (0.0, None)
    cli_bad = []
    n_cli = 0
    for k, (category, path, seq) in enumerate(hostile(tmp, srcs, rnd, flips)):
        t0 = time.perf_counter()
        with memory_cap():
            try:
                back = load_sequence(path)
                if seq is not None and same(back, seq):
                    outcome = "loaded, identical"
                elif category == "odd JSON header":
                    # a header edited into another valid one (e.g. a meta value changed):
                    # a different file, not a corrupted one
                    outcome = "loaded, a valid edit"
                else:
                    outcome = "loaded, DIFFERENT"
            except ValueError as exc:
                outcome = "ValueError"
                if not str(exc).startswith(("invalid sequence file", "cannot read")):
                    outcome = "ValueError (unexpected message)"
                    others.append((category, path, repr(exc)[:200]))
            except TypeError:
                outcome = "TypeError"
            except BaseException as exc:  # noqa: BLE001 - the campaign counts everything
                outcome = f"OTHER {type(exc).__name__}"
                others.append((category, path, repr(exc)[:200]))
        dt = time.perf_counter() - t0
        if dt > slowest[0]:
            slowest = (dt, f"{category}: {path}")
        counts[outcome] += 1
        by_cat[category][outcome] += 1
        if outcome == "ValueError" and (not quick or k % 10 == 0) and "fifo" not in path:
            n_cli += 1
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), \
                    memory_cap():
                try:
                    status = cli_main(["discrepancy", path, "--box", "1"])
                except BaseException as exc:  # noqa: BLE001
                    status = f"{type(exc).__name__}"
            text = err.getvalue()
            if status != 2 or text.count("\n") != 1 or "Traceback" in text:
                cli_bad.append((path, status, text[-300:]))
    return counts, by_cat, others, slowest, n_cli, cli_bad


def run_catalogue(tmp, rnd):
    """Hostile index.json entries for load_catalogue, on a copy of one shipped entry."""
    import hashlib
    import shutil

    root = os.path.join(tmp, "cat")
    os.makedirs(root)
    entry = next(e for e in cat.list_catalogue() if e["d"] == 2 and e["s"] == 64 and e["method"] == "global")
    src = cat_index._package_dir().joinpath(entry["file"])
    with open(os.path.join(root, entry["file"]), "wb") as fh:
        fh.write(src.read_bytes())
    outside = os.path.join(tmp, "outside.npz")
    Sequence(np.ones((4, 2)), meta={"method": "global", "density": "gaussian",
                                    "box_over_sigma": entry["box_over_sigma"]}).save(outside)
    shutil.copy(outside, os.path.join(root, "small.npz"))
    os.symlink(outside, os.path.join(root, "link.npz"))
    sha_out = hashlib.sha256(open(outside, "rb").read()).hexdigest()
    real_dir = cat_index._package_dir  # load_catalogue's folder of the shipped files
    cat_index._package_dir = lambda: __import__("pathlib").Path(root)
    counts = collections.Counter()
    others = []
    variants = []
    for key in list(entry) + ["sha256", "new"]:
        for v in json_values(rnd) + ["../outside.npz", outside, "link.npz", "small.npz", "..",
                                     "/dev/zero", "x" * 5000 + ".npz", sha_out, "A" * 64]:
            e = dict(entry)
            e[key] = v
            variants.append([e])
        e = dict(entry)
        e.pop(key, None)
        variants.append([e])
    variants += [[entry, entry], [1], [None], [[entry]], "entries", {"a": 1}]
    texts = [json.dumps({"entries": v}) for v in variants]
    texts += ["[", "[]", "null", '{"entries": ' + "[" * 100000 + "]" * 100000 + "}",
              '{"entries": [], "x": ' + "9" * 5000 + "}", "\xff"]
    try:
        for text in texts:
            with open(os.path.join(root, "index.json"), "w", encoding="utf-8", errors="replace") as fh:
                fh.write(text)
            try:
                with memory_cap():
                    import warnings
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        seq = cat.load_catalogue(2, 64, entry["box_over_sigma"], "global")
                ok = (seq.meta.get("d") == 2 and seq.meta.get("s") == 64
                      and seq.meta["catalogue"]["file"] == entry["file"])
                counts["loaded, the right file" if ok else "loaded, WRONG file"] += 1
            except ValueError:
                counts["ValueError"] += 1
            except TypeError:
                counts["TypeError"] += 1
            except BaseException as exc:  # noqa: BLE001
                counts[f"OTHER {type(exc).__name__}"] += 1
                others.append((text[:120], repr(exc)[:200]))
    finally:
        cat_index._package_dir = real_dir
    return counts, others


def run_lattice(tmp, rnd):
    counts = collections.Counter()
    others = []
    good = "# lattice\n# comment\n3\t# d\n16\t# n\n1\n7\n11\n"
    cases = [good[:k] for k in range(0, len(good), 3)]
    for _ in range(300):
        b = bytearray(good.encode())
        b[rnd.randrange(len(b))] = rnd.randrange(256)
        cases.append(bytes(b))
    cases += ["# lattice\n1\n" + "9" * 5000 + "\n1\n", "# lattice\n" + "1\n" * 10 ** 6,
              "# lattice\n2\n16\n1\n-3\n", "# lattice\n1\n16\n99\n", b"\0" * 10 ** 6]
    paths = []
    for i, c in enumerate(cases):
        p = os.path.join(tmp, f"lat{i}.txt")
        with open(p, "wb") as fh:
            fh.write(c if isinstance(c, bytes) else c.encode())
        paths.append(p)
    paths += ["/dev/zero"] if os.path.exists("/dev/zero") else []
    for p in paths:
        try:
            with memory_cap():
                read_lattice(p)
            counts["read"] += 1
        except ValueError:
            counts["ValueError"] += 1
        except TypeError:
            counts["TypeError"] += 1
        except BaseException as exc:  # noqa: BLE001
            counts[f"OTHER {type(exc).__name__}"] += 1
            others.append((p, repr(exc)[:200]))
    return counts, others


# --------------------------------------------------------------------------- issue 21
_CLI_PRELUDE = ("import resource, signal, sys\n"
                "from qmc_orff.cli import main\n")


def _cli(argv, *, timeout=120, mem_gb=None, fsize=None, warm=False, env=None, cwd=None):
    """Run ``qmc-orff argv`` in a subprocess; ``(returncode or 'HANG', stderr)``.

    ``mem_gb``: address-space cap; ``fsize``: file-size cap in bytes (a full disk), after
    the same command once without it when ``warm`` (numba's cache files written first).
    """
    code = _CLI_PRELUDE
    if mem_gb:
        lim = int(mem_gb * 2 ** 30)
        code += f"resource.setrlimit(resource.RLIMIT_AS, ({lim}, {lim}))\n"
    if fsize:
        if warm:
            code += "main(sys.argv[1:])\n"
        code += ("signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
                 f"resource.setrlimit(resource.RLIMIT_FSIZE, ({fsize}, {fsize}))\n")
    code += "sys.exit(main(sys.argv[1:]))\n"
    try:
        proc = subprocess.run([sys.executable, "-c", code, *map(str, argv)], capture_output=True,
                              text=True, timeout=timeout, env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        return "HANG", f"> {timeout} s"
    return proc.returncode, proc.stderr


def _one_line_2(result):
    """Verdict of a command that must exit 2 with one line on stderr."""
    rc, err = result
    if rc == "HANG":
        return "HANG", err
    if isinstance(rc, int) and rc < 0:
        return "CRASH", f"signal {-rc}"
    if "MemoryError" in err:
        return "ALLOC-ABOVE-LIMIT", err.strip().splitlines()[-1][:160]
    if "Traceback" in err:
        return "TRACEBACK", f"rc {rc}: " + err.strip().splitlines()[-1][:160]
    lines = err.strip().splitlines()
    if rc != 2 or len(lines) != 1:
        return "WRONG-EXIT", f"rc {rc}, {len(lines)} stderr lines: {err.strip()[:160]!r}"
    return "pass", lines[0][:160]


def _data(tmp, name, shape, seed=0):
    path = os.path.join(tmp, name)
    if not os.path.exists(path):
        np.save(path, np.random.default_rng(seed).normal(size=shape))
    return path


def _adaptive(tmp, out, *extra, data=None):
    data = data or _data(tmp, "x300.npy", (300, 3))
    return ["design", "adaptive", "--data", data, "--s", "8", "--sigma", "2", "--n-train", "40",
            "--n-validation", "20", "--quiet", "-o", os.path.join(tmp, out), *extra]


def _edit_meta(path, **fields):
    """Rewrite the JSON header's meta of a saved sequence file (the members kept)."""
    mem = members(path)
    header = header_of(mem)
    header["meta"].update(fields)
    write_zip(path, with_header(mem, header))


def _i21_sizes(tmp):
    small = _data(tmp, "x300.npy", (300, 3))
    big = _data(tmp, "x40100.npy", (40_100, 3))
    yield "design adaptive --s 3000000", "M sizes", _one_line_2(
        _cli(_adaptive(tmp, "o.npz", data=small)[:-3] + ["--s", "3000000", "-o",
                                                          os.path.join(tmp, "o.npz")],
             timeout=60, mem_gb=4))
    yield "design adaptive --s 10**12", "M sizes", _one_line_2(
        _cli(_adaptive(tmp, "o.npz") + ["--s", str(10 ** 12)], timeout=60, mem_gb=4))
    yield "design adaptive --n-train 40000", "M sizes", _one_line_2(
        _cli(_adaptive(tmp, "o.npz", data=big) + ["--n-train", "40000"], timeout=60, mem_gb=4))


def _i21_full_disk(tmp):
    for method, argv in [
            ("adaptive", _adaptive(tmp, "full.npz") + ["--s", "3000", "--maxiter", "1"]),
            ("global", ["design", "global", "--d", "3", "--s", "3000", "--box-over-sigma", "1",
                        "--maxiter", "1", "--quiet", "-o", os.path.join(tmp, "full.npz")])]:
        yield f"design {method} on a full disk", "M full disk", _one_line_2(
            _cli(argv, fsize=65536, warm=True, timeout=300, cwd=tmp))


def _i21_data_files(tmp):
    huge = os.path.join(tmp, "huge.npy")
    with open(huge, "wb") as fh:
        fh.write(npy_raw("<f8", (2 ** 40, 10), bytes(1024)))
    yield "design adaptive --data (header: 2**40 x 10)", "M npy header", _one_line_2(
        _cli(_adaptive(tmp, "o.npz", data=huge), timeout=120, mem_gb=6))
    fifo = os.path.join(tmp, "pipe.npy")
    if hasattr(os, "mkfifo"):
        os.mkfifo(fifo)
        yield "design adaptive --data FIFO.npy", "M npy header", _one_line_2(
            _cli(_adaptive(tmp, "o.npz", data=fifo), timeout=30))


def _i21_resume(tmp):
    first = os.path.join(tmp, "first.npz")
    rc, err = _cli(_adaptive(tmp, "first.npz") + ["--maxiter", "3", "--patience", "100"])
    if rc != 0:
        yield "design adaptive (first run)", "L resume", ("TRACEBACK", err.strip()[-160:])
        return
    second = os.path.join(tmp, "second.npz")
    rc, err = _cli(_adaptive(tmp, "second.npz") + ["--maxiter", "6", "--patience", "100",
                                                   "--resume", first])
    if rc != 0:
        verdict = ("TRACEBACK", err.strip()[-160:])
    else:
        m1, m2 = load_sequence(first).meta, load_sequence(second).meta
        h1, h2 = m1.get("validation_history"), m2.get("validation_history") or []
        ok = len(h2) == m2.get("iterations", -1) + 1 and h2[:len(h1)] == h1
        verdict = ("pass" if ok else "HISTORY-LOST",
                   f"first {len(h1)} entries, resumed {len(h2)} for {m2.get('iterations')} "
                   "iterations")
    yield "design adaptive --resume keeps the history", "L resume", verdict
    for value in ["abc", -3, 10 ** 30]:
        path = os.path.join(tmp, f"bad_iter_{len(str(value))}.npz")
        with open(first, "rb") as src, open(path, "wb") as dst:
            dst.write(src.read())
        _edit_meta(path, iterations=value)
        verdict = _one_line_2(_cli(_adaptive(tmp, "o.npz") + ["--maxiter", "6", "--resume", path]))
        if verdict[0] == "pass" and ("invalid literal" in verdict[1]
                                     or "iterations" not in verdict[1]):
            verdict = ("WRONG-MESSAGE", verdict[1])
        yield f"design adaptive --resume (iterations={value!r})", "L resume", verdict


def _i21_headers(tmp):
    src = os.path.join(tmp, "hdr.npz")
    Sequence(np.random.default_rng(1).normal(size=(8, 3)), None,
             {"method": "global", "density": "gaussian", "box_over_sigma": 1.0}).save(src)
    edits = [("box_over_sigma=1e308", {"box_over_sigma": 1e308}),
             ("box_over_sigma of the wrong length", {"box_over_sigma": [1.0, 2.0]}),
             ("hostile generating_vector", {"generating_vector": [-1, 2 ** 70, 3],
                                            "lattice_n": 16}),
             ("hostile lattice_n", {"generating_vector": [1, 3, 5], "lattice_n": -5})]
    for label, fields in edits:
        path = os.path.join(tmp, "hdr_edit.npz")
        with open(src, "rb") as a, open(path, "wb") as b:
            b.write(a.read())
        _edit_meta(path, **fields)
        yield f"load_sequence(meta {label})", "L header", _loads_refused(path)
    # a density name the library does not know is a user's CharacteristicDensity(name=...):
    # its designs must load (the catalogue and --resume check the density they need)
    path = os.path.join(tmp, "hdr_edit.npz")
    with open(src, "rb") as a, open(path, "wb") as b:
        b.write(a.read())
    _edit_meta(path, density="my-custom-density")
    try:
        with memory_cap():
            got = load_sequence(path).meta["density"]
        verdict = ("pass", "loaded") if got == "my-custom-density" else ("WRONG-LOAD", repr(got))
    except BaseException as exc:  # noqa: BLE001 - classified
        verdict = ("REFUSED-VALID", repr(exc)[:160])
    yield "load_sequence(meta custom density name)", "L header", verdict
    mem = members(src)
    text = json.dumps(header_of(mem)).replace('"meta": {', '"meta": {"note": "\\ud800", ', 1)
    path = os.path.join(tmp, "hdr_surrogate.npz")
    write_zip(path, with_header(mem, text.encode()))
    yield "load_sequence(lone surrogate in the JSON)", "L header", _loads_refused(path)


def _loads_refused(path):
    try:
        with memory_cap():
            load_sequence(path)
    except (ValueError, TypeError) as exc:
        return "pass", f"{type(exc).__name__}: {exc}"[:160]
    except BaseException as exc:  # noqa: BLE001 - classified
        return "OTHER-EXCEPTION", repr(exc)[:160]
    return "ACCEPTED-INVALID", "loaded"


def _start(argv, **kw):
    return subprocess.Popen([sys.executable, "-m", "qmc_orff", *map(str, argv)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kw)


def _i21_signals(tmp):
    data = _data(tmp, "x3000.npy", (3000, 5), seed=2)
    rcs = []
    for delay in (0.0, 0.05, 0.3):
        proc = _start(["design", "adaptive", "--data", data, "--s", "64", "--sigma", "2",
                       "--maxiter", "100000", "--patience", "100000", "--quiet", "-o",
                       os.path.join(tmp, "sigint.npz")])
        time.sleep(6.0)
        proc.send_signal(signal.SIGINT)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            rcs.append("HANG")
            continue
        rcs.append(proc.returncode)
    yield "two SIGINTs exit 130", "L signals", ("pass" if all(r == 130 for r in rcs)
                                                 else "WRONG-EXIT", f"exit statuses {rcs}")
    # ... and around the end of a short command (the shutdown window): every run that got a
    # SIGINT while alive must exit 130
    short = ["design", "global", "--d", "2", "--s", "8", "--box-over-sigma", "1", "--maxiter",
             "2", "--quiet", "-o", os.path.join(tmp, "short.npz")]
    t0 = time.perf_counter()
    _start(short).wait(120)
    length = time.perf_counter() - t0
    seen = []
    for k in range(12):
        proc = _start(short)
        time.sleep(length * (0.55 + 0.06 * k))
        hits = 0
        for _ in range(2):
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                hits += 1
            time.sleep(0.02)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if hits:
            seen.append(proc.returncode)
    wrong = [r for r in seen if r != 130]
    yield "SIGINTs near the end of a command exit 130", "L signals", (
        "pass" if not wrong else "WRONG-EXIT", f"{len(seen)} runs interrupted while alive: "
        f"exit statuses {seen}")
    # SIGKILL mid-run: no stale .tmp beside the target
    rnd = random.Random(21)
    stale = 0
    for k in range(10):
        out = os.path.join(tmp, f"killed{k}.npz")
        proc = _start(["design", "global", "--d", "3", "--s", "400", "--box-over-sigma", "1",
                       "--maxiter", "400", "--checkpoint-every", "1", "--quiet", "-o", out])
        time.sleep(rnd.uniform(2.0, 6.0))
        proc.kill()
        proc.wait()
        stale += any(f.startswith(f"killed{k}") and f.endswith(".tmp") or
                     f.startswith(f".killed{k}") and f.endswith(".tmp") for f in os.listdir(tmp))
    yield "SIGKILL mid-run leaves no stale .tmp (10 runs)", "L signals", (
        "pass" if not stale else "STALE-TMP", f"{stale} of 10 runs left a .tmp")


def _i21_catalogue(tmp):
    out = os.path.join(tmp, "cat")
    os.makedirs(out, exist_ok=True)
    common = ["catalogue", "build", "--out", out, "--s-values", "8", "--box-values", "1",
              "--methods", "global", "--maxiter", "3", "--quiet"]
    a, b = _start(common + ["--d-values", "2"]), _start(common + ["--d-values", "3"])
    rcs = [p.wait(300) for p in (a, b)]
    try:
        with open(os.path.join(out, "index.json")) as fh:
            index = json.load(fh)
        entries = index.get("entries", index) if isinstance(index, dict) else index
        dims = sorted({e.get("d") for e in entries if isinstance(e, dict)})
    except (OSError, ValueError) as exc:
        dims = [f"index unreadable: {exc}"]
    yield "two catalogue builds into one folder keep both", "L catalogue", (
        "pass" if dims == [2, 3] else "ENTRIES-LOST", f"exit {rcs}, index dims {dims}")
    proc = _start(common[:3] + [os.path.join(tmp, "cat2"), "--d-values", "2", "3", "4",
                                "--s-values", "256", "--box-values", "1", "--methods", "global",
                                "--maxiter", "2000", "--workers", "2", "--quiet"],
                  start_new_session=True)
    time.sleep(8.0)
    proc.kill()
    proc.wait()
    time.sleep(2.0)
    try:
        os.killpg(proc.pid, 0)  # anything left in the build's process group?
        left = True
        os.killpg(proc.pid, signal.SIGKILL)  # the workers this campaign started
    except ProcessLookupError:
        left = False
    yield "SIGKILL of catalogue build --workers 2 ends its workers", "L catalogue", (
        "pass" if not left else "ORPHANS", "workers still running" if left else "none left")


def _i21_threads(tmp):
    code = "import qmc_orff; qmc_orff.set_num_threads(4); print(qmc_orff.get_num_threads())"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, NUMBA_NUM_THREADS="1"))
    ok = proc.returncode == 0 and proc.stdout.strip() == "1"
    yield "NUMBA_NUM_THREADS=1: set_num_threads(4)", "L threads", (
        "pass" if ok else "REFUSED-VALID", (proc.stdout + proc.stderr).strip()[-160:])


def run_issue21(tmp):
    """The issue-21 cases: a table and a summary; returns the number that fail."""
    print(f"{'issue 21 case':52s} {'finding':13s} {'verdict':18s} detail", flush=True)
    counts = collections.Counter()
    t0 = time.perf_counter()
    for group in (_i21_sizes, _i21_full_disk, _i21_data_files, _i21_resume, _i21_headers,
                  _i21_signals, _i21_catalogue, _i21_threads):
        sub = os.path.join(tmp, group.__name__)
        os.makedirs(sub, exist_ok=True)
        for label, finding, (verdict, detail) in group(sub):
            counts[verdict] += 1
            detail = " ".join(str(detail).split())
            print(f"{label[:52]:52s} {finding:13s} {verdict:18s} {detail[:150]}", flush=True)
    n = sum(counts.values())
    print(f"\nissue 21: {n} cases in {time.perf_counter() - t0:.0f} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    bad = n - counts["pass"]
    print("ISSUE 21 FLOOR " + ("MET" if not bad else f"BROKEN by {bad} cases") + "\n")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--flips", type=int, default=400, help="bit flips per source file")
    ap.add_argument("--quick", action="store_true", help="fewer flips, CLI on 1 file in 10")
    ap.add_argument("--issue21", action="store_true", help="run the issue-21 cases only")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bad21 = run_issue21(tmp)
    if args.issue21:
        return 1 if bad21 else 0
    flips = 40 if args.quick else args.flips
    rnd = random.Random(args.seed)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        srcs = sources(tmp)
        counts, by_cat, others, slowest, n_cli, cli_bad = run_sequences(tmp, srcs, rnd, flips,
                                                                        args.quick)
        ccounts, cothers = run_catalogue(tmp, rnd)
        lcounts, lothers = run_lattice(tmp, rnd)
    total = sum(counts.values())
    print(f"load_sequence: {total} hostile files in {time.perf_counter() - t0:.1f} s")
    for cat_name, c in sorted(by_cat.items()):
        print(f"  {cat_name:20s} " + ", ".join(f"{k}: {v}" for k, v in sorted(c.items())))
    print("  total: " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    print(f"  slowest file: {slowest[0]:.3f} s ({slowest[1]})")
    print(f"  largest inflation: {_INFLATED['max_bytes']} bytes from one member, "
          f"{_INFLATED['max_ratio']:.3f} x its declared size")
    print(f"CLI (discrepancy FILE): {n_cli} rejected files, {len(cli_bad)} without status 2 + one line")
    for bad in cli_bad[:10]:
        print("   ", bad)
    print("load_catalogue: " + ", ".join(f"{k}: {v}" for k, v in sorted(ccounts.items())))
    print("read_lattice: " + ", ".join(f"{k}: {v}" for k, v in sorted(lcounts.items())))
    bad = ([o for o in others] + cothers + lothers)
    for o in bad[:20]:
        print("  OTHER:", o)
    n_other = (sum(v for k, v in counts.items() if k.startswith("OTHER") or "unexpected" in k)
               + sum(v for k, v in ccounts.items() if k.startswith("OTHER"))
               + sum(v for k, v in lcounts.items() if k.startswith("OTHER")))
    n_wrong = counts.get("loaded, DIFFERENT", 0) + ccounts.get("loaded, WRONG file", 0)
    ok = n_other == 0 and n_wrong == 0 and not cli_bad and _INFLATED["max_ratio"] <= 1.0
    print(f"floor (0 exceptions other than ValueError/TypeError, 0 silently different loads, "
          f"CLI one line + 2, inflation <= declared): {'PASS' if ok else 'FAIL'}")
    return 0 if ok and not bad21 else 1


if __name__ == "__main__":
    sys.exit(main())
