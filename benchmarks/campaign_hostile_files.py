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

Usage: python benchmarks/campaign_hostile_files.py [--seed 0] [--flips 400] [--quick]
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import os
import random
import sys
import tempfile
import time
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import qmc_orff  # noqa: E402
import qmc_orff.precomputed as cat  # noqa: E402
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
    entry = next(e for e in cat.catalogue() if e["d"] == 2 and e["s"] == 64 and e["method"] == "global")
    src = cat._package_dir().joinpath(entry["file"])
    with open(os.path.join(root, entry["file"]), "wb") as fh:
        fh.write(src.read_bytes())
    outside = os.path.join(tmp, "outside.npz")
    Sequence(np.ones((4, 2)), meta={"method": "global", "density": "gaussian",
                                    "box_over_sigma": entry["box_over_sigma"]}).save(outside)
    shutil.copy(outside, os.path.join(root, "small.npz"))
    os.symlink(outside, os.path.join(root, "link.npz"))
    sha_out = hashlib.sha256(open(outside, "rb").read()).hexdigest()
    real_dir = cat._package_dir
    cat._package_dir = lambda: __import__("pathlib").Path(root)
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
        cat._package_dir = real_dir
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--flips", type=int, default=400, help="bit flips per source file")
    ap.add_argument("--quick", action="store_true", help="fewer flips, CLI on 1 file in 10")
    args = ap.parse_args()
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
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
