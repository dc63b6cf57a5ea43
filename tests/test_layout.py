"""The package layout (issue 19): imports go one way, modules stay small, code is written once.

Read from the source (AST), nothing imported:

* no import cycle among the modules of ``qmc_orff`` (lazy imports inside functions count);
* every import goes to the importing module's layer or a lower one (:data:`LAYERS`);
* no package below the maps (:data:`BELOW_MAPS`) imports ``qmc_orff.maps``;
* no library module over :data:`MAX_LINES` lines;
* no run of :data:`RUN` or more non-blank, non-comment lines (stripped) that occurs twice
  in ``qmc_orff/``.

Imports are the ``import`` statements anywhere in a module, ``TYPE_CHECKING`` blocks
included; ``importlib.import_module`` of a string (the lazy ``__getattr__`` of a package
``__init__``) is not one.  An import of ``a.b.c`` is an edge to the
module ``a.b.c`` only, not to the package ``a.b`` that Python initialises first: the
package ``__init__`` modules that others import through import nothing at module level
(PEP 562), so that edge adds nothing.
"""
from __future__ import annotations

import ast
import collections
import hashlib
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "qmc_orff"
MAX_LINES = 550
RUN = 6

#: Layers, lowest first: a module may import only from its own layer or lower ones.  A module
#: belongs to the layer of the longest prefix of its name listed here (README, "Map of the
#: package").  The frequency sources sit below the objectives and the designs, which start
#: from them, and the maps sit above the designs (``sequence="adaptive"``).
LAYERS = (
    ("foundation", ("qmc_orff._validation", "qmc_orff._jit", "qmc_orff.threads", "qmc_orff._dask",
                    "qmc_orff._cos_sin", "qmc_orff._distances", "qmc_orff._lazy",
                    "qmc_orff._version", "qmc_orff._array_api")),
    ("generators, densities, kernels and the file format",
     ("qmc_orff.generators", "qmc_orff.densities", "qmc_orff.kernels", "qmc_orff._kernel_base",
      "qmc_orff.sequence")),
    ("frequency sources", ("qmc_orff.sources",)),
    ("objectives", ("qmc_orff.objectives",)),
    ("designs", ("qmc_orff.designs",)),
    ("catalogue and maps", ("qmc_orff.catalogue", "qmc_orff.maps")),
    ("learning and metrics", ("qmc_orff.learning",)),
    ("command line", ("qmc_orff.cli", "qmc_orff.__main__", "qmc_orff")),
)
#: Packages below the maps: none of them imports ``qmc_orff.maps`` (lazy imports included),
#: so the maps are consumers only.
BELOW_MAPS = ("qmc_orff.generators", "qmc_orff.densities", "qmc_orff.kernels",
              "qmc_orff._kernel_base", "qmc_orff.sequence", "qmc_orff.sources", "qmc_orff.objectives",
              "qmc_orff.designs", "qmc_orff.catalogue")



def _module_name(path):
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules():
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        found[_module_name(path)] = path
    return found


MODULES = _modules()
_TREES = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}


def _is_package(name):
    return MODULES[name].name == "__init__.py"


def _resolve(name, node):
    """Absolute module names one import node refers to (inside qmc_orff only)."""
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    else:
        if node.level:
            base = name.split(".") if _is_package(name) else name.split(".")[:-1]
            base = base[:len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module
        # "from pkg import sub" names a submodule when pkg.sub is a module
        targets = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in MODULES else prefix
                   for a in node.names]
    out = set()
    for target in targets:
        if target != "qmc_orff" and not target.startswith("qmc_orff."):
            continue
        while target not in MODULES:  # a name inside a module: the module
            target = target.rpartition(".")[0]
        out.add(target)
    return out


def _imports(name):
    """``{imported module: first line}`` of module ``name`` (lazy imports included)."""
    found = {}
    for node in ast.walk(_TREES[name]):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for target in _resolve(name, node):
                if target != name:
                    found.setdefault(target, node.lineno)
    return found


GRAPH = {name: _imports(name) for name in MODULES}


def _layer(name):
    best, best_len = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    return best


def _params(check, names):
    return list(names)


def _cycles():
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, comps, counter = {}, {}, set(), [], [], [0]

    def visit(root):
        work = [(root, iter(sorted(GRAPH[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(GRAPH[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        comp.append(member)
                        if member == node:
                            break
                    if len(comp) > 1:
                        comps.append(sorted(comp))

    for name in sorted(GRAPH):
        if name not in index:
            visit(name)
    return comps


CYCLES = _cycles()


def test_every_module_has_a_layer():
    missing = [name for name in MODULES if _layer(name) is None]
    assert not missing, f"modules outside the layers of tests/test_layout.py: {missing}"


@pytest.mark.parametrize("name", _params("cycle", sorted(MODULES)))
def test_module_in_no_import_cycle(name):
    cycles = [c for c in CYCLES if name in c]
    assert not cycles, f"{name} is in an import cycle: {' -> '.join(cycles[0])}"


@pytest.mark.parametrize("name", _params("layers", sorted(MODULES)))
def test_imports_follow_the_layers(name):
    mine = _layer(name)
    bad = [f"{target} (line {line}, layer '{LAYERS[_layer(target)][0]}')"
           for target, line in sorted(GRAPH[name].items()) if _layer(target) > mine]
    assert not bad, (f"{name} (layer '{LAYERS[mine][0]}') imports from a higher layer: "
                     + ", ".join(bad))


def _in(name, packages):
    return any(name == p or name.startswith(p + ".") for p in packages)


@pytest.mark.parametrize("name", _params("below maps", sorted(n for n in MODULES
                                                             if _in(n, BELOW_MAPS))))
def test_no_import_of_the_maps_from_below(name):
    bad = [f"{target} (line {line})" for target, line in sorted(GRAPH[name].items())
           if _in(target, ("qmc_orff.maps",))]
    assert not bad, f"{name} imports the maps: " + ", ".join(bad)


@pytest.mark.parametrize("name", _params("size", sorted(MODULES)))
def test_module_size(name):
    n = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{MODULES[name]} has {n} lines (at most {MAX_LINES})"


def _code_lines(path):
    """``(line number, stripped text)`` of the non-blank lines that are not comments."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = line.strip()
        if text and not text.startswith("#"):
            out.append((number, text))
    return out


def _repeated_runs():
    """``{module: [(line, other module, other line), ...]}`` for every run of ``RUN`` code
    lines that occurs again (elsewhere in the same file, or in another file)."""
    seen = collections.defaultdict(list)
    for name, path in MODULES.items():
        lines = _code_lines(path)
        for k in range(len(lines) - RUN + 1):
            window = "\n".join(text for _, text in lines[k:k + RUN])
            seen[hashlib.sha256(window.encode()).digest()].append((name, k, lines[k][0]))
    found = collections.defaultdict(list)
    for places in seen.values():
        for i, (a, ka, la) in enumerate(places):
            for b, kb, lb in places[i + 1:]:
                if a == b and abs(ka - kb) < RUN:  # a run overlapping itself (repeated lines)
                    continue
                found[a].append((la, b, lb))
                found[b].append((lb, a, la))
    return found


REPEATS = _repeated_runs()


@pytest.mark.parametrize("name", _params("repeats", sorted(MODULES)))
def test_no_repeated_code(name):
    pairs = sorted(set(REPEATS.get(name, ())))
    # report the first line of each repeated stretch, not every window inside it
    starts = [p for k, p in enumerate(pairs)
              if k == 0 or p[0] != pairs[k - 1][0] + 1 or p[1] != pairs[k - 1][1]]
    assert not starts, (f"{name}: runs of {RUN}+ lines written twice (line ~ other place): "
                        + ", ".join(f"{line} ~ {other}:{other_line}"
                                    for line, other, other_line in starts))


#: History belongs in CHANGELOG.md: library code says why, not which issue or stop brought it.
_HISTORY = re.compile(r"\b(issue|stop) \d+\b", re.IGNORECASE)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_history_in_library_code(name):
    hits = [k for k, line in enumerate(MODULES[name].read_text(encoding="utf-8").splitlines(), 1)
            if _HISTORY.search(line)]
    assert not hits, f"{name}: lines {hits} cite an issue or a stop (history goes in CHANGELOG.md)"
    assert _HISTORY.search("until Issue 21 the limit was") and not _HISTORY.search("reissue 2")


def test_the_checks_can_fail():
    # the walkers find what they look for: a known edge, a layer, a repeated run
    assert "qmc_orff.sequence.core" in GRAPH["qmc_orff.sequence.reader"]
    assert "qmc_orff.sources.frequencies" in GRAPH["qmc_orff.maps.fourier_features"]
    assert _layer("qmc_orff.maps.orff") > _layer("qmc_orff.designs.adaptive") > \
        _layer("qmc_orff.sources.frequencies") > _layer("qmc_orff.sequence.core")
    assert _in("qmc_orff.maps.orff", ("qmc_orff.maps",))
    assert not _in("qmc_orff.mapsx", ("qmc_orff.maps",))
    block = "\n".join(f"x{k} = {k}" for k in range(RUN))
    lines = [(k, t) for k, t in enumerate((block + "\ny = 0\n" + block).splitlines(), 1)]
    windows = ["\n".join(t for _, t in lines[k:k + RUN]) for k in range(len(lines) - RUN + 1)]
    assert windows.count(windows[0]) == 2
