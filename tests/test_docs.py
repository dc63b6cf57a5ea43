"""The documentation: doctests of the public docstrings, numpydoc parsing, an API page per name.

The site itself is built by ``make docs`` (docs/, Sphinx with warnings as errors); these tests
run in ``make test`` and check what the build relies on without building it.
"""
import doctest
import inspect
import re
import warnings
from pathlib import Path

import pytest

import qmc_orff

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PUBLIC = [name for name in qmc_orff.__all__ if name != "__version__"]

#: Public docstrings numpydoc cannot parse (the build fails on them): none.  The test below
#: checks this list is exact: a fixed docstring must be removed from it.
KNOWN_UNPARSABLE = set()

#: Public names whose docstrings (and own methods) have no ``>>>`` example: none.  Checked
#: exactly, like KNOWN_UNPARSABLE: a new public name must come with an Examples section.
NO_EXAMPLES = set()


def _documented(name):
    """The public object and its own public methods and properties: (qualified name, object)."""
    obj = getattr(qmc_orff, name)
    yield name, obj
    if inspect.isclass(obj):
        for attr, value in vars(obj).items():
            if attr.startswith("_") or not (callable(value) or isinstance(value, property)):
                continue
            yield f"{name}.{attr}", getattr(obj, attr)


def _doctests(name):
    finder = doctest.DocTestFinder(recurse=False)
    tests = []
    for qualname, obj in _documented(name):
        if isinstance(obj, property):
            obj = obj.fget
        tests += [t for t in finder.find(obj, f"qmc_orff.{qualname}", globs={})
                  if t.examples]
    return tests


@pytest.mark.parametrize("name", PUBLIC)
def test_docstring_examples_run(name, tmp_path, monkeypatch):
    """Every ``>>>`` example of a public docstring runs and prints what it shows."""
    tests = _doctests(name)
    if name in NO_EXAMPLES:
        assert not tests, f"qmc_orff.{name} has examples now: remove it from NO_EXAMPLES"
        pytest.skip(f"qmc_orff.{name} has no Examples section yet")
    assert tests, f"qmc_orff.{name} has no >>> example in its docstring"
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
    left = sorted(p.name for p in tmp_path.iterdir())
    assert not left, f"the examples of qmc_orff.{name} left files behind: {left}"


def test_doctests_can_fail():
    """The runner above reports a wrong expected output (the test is not vacuous)."""
    test = doctest.DocTestParser().get_doctest(">>> 1 + 1\n3\n", {}, "bad", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test, out=lambda _: None)
    assert runner.summarize(verbose=False).failed == 1


def _unparsable():
    numpydoc_docscrape = pytest.importorskip("numpydoc.docscrape")
    bad = {}
    for name in PUBLIC:
        for qualname, obj in _documented(name):
            if isinstance(obj, property):
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # numpydoc warns on unknown sections
                try:
                    numpydoc_docscrape.get_doc_object(obj)
                except Exception as exc:  # noqa: BLE001 -- any failure is what we report
                    bad[qualname] = str(exc).split(" in ")[0][:200]
    return bad


def test_public_docstrings_parse_with_numpydoc():
    """numpydoc (the docs build) parses every public docstring, except the listed ones."""
    bad = _unparsable()
    assert set(bad) == KNOWN_UNPARSABLE, (
        f"numpydoc cannot parse: {bad}; known: {sorted(KNOWN_UNPARSABLE)} "
        "(fix the docstring, or if it was fixed, remove it from KNOWN_UNPARSABLE)")


def _parameter_mismatches():
    """Public callables whose numpydoc Parameters section misses a parameter of the signature
    or lists them in another order: {qualified name: (signature names, documented names)}."""
    from numpydoc.docscrape import NumpyDocString

    bad = {}
    for name in PUBLIC:
        for qualname, obj in _documented(name):
            if isinstance(obj, property):
                continue
            try:
                sig = inspect.signature(obj.__init__ if inspect.isclass(obj) else obj)
            except (TypeError, ValueError):  # builtins
                continue
            wanted = [p.name for p in sig.parameters.values() if p.name not in ("self", "cls")
                      and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                doc = NumpyDocString(inspect.getdoc(obj) or "")
            documented = [n.strip().lstrip("*") for prm in doc["Parameters"]
                          for n in prm.name.split(",")]
            documented = [n for n in documented if n in wanted]
            if documented != wanted:
                bad[qualname] = (wanted, documented)
    return bad


def test_every_parameter_is_documented_in_signature_order():
    """A reader of an API page finds each parameter, in the order of the signature."""
    assert _parameter_mismatches() == {}


def _api_entries():
    """The names the API reference's autosummary tables list under ``qmc_orff`` (one page per
    group, docs/api/<group>.rst, each in the toctree of docs/api/index.rst)."""
    index = (DOCS / "api" / "index.rst").read_text(encoding="utf-8")
    entries = []
    pages = sorted((DOCS / "api").glob("*.rst"))
    assert len(pages) > 2
    for page in pages:
        if page.name == "index.rst":
            continue
        assert f"   {page.stem}\n" in index, page.name
        text = page.read_text(encoding="utf-8")
        assert ".. currentmodule:: qmc_orff" in text
        for block in re.findall(r"^\.\. autosummary::\n((?:[ \t]+.*\n|\n)+)", text, re.M):
            for line in block.splitlines():
                line = line.strip()
                if line and not line.startswith(":"):
                    entries.append(line)
    return entries


def test_every_public_name_has_an_api_page():
    """docs/api/*.rst list each name of ``qmc_orff.__all__`` once, under its public name."""
    entries = _api_entries()
    assert len(entries) == len(set(entries)), "a name is listed twice"
    assert set(entries) == set(qmc_orff.__all__)
    for entry in entries:  # public names only, never a private module path
        assert "." not in entry and hasattr(qmc_orff, entry)


def test_docs_build_settings():
    """The build is offline and strict: what ``make docs`` and docs/conf.py promise."""
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    # the inventories are written offline (tested below), never fetched
    assert re.search(r"^intersphinx_mapping = write_inventories\(", conf, re.M)
    assert conf.count("intersphinx_mapping") == 1
    assert "nitpick_ignore" not in conf and "suppress_warnings" not in conf
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "-W --keep-going" in makefile
    assert "make docs" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # formulas render offline: MathJax from the docs extra, loaded by a relative path, and no
    # page may load a script or style sheet from the network (make docs checks the pages)
    assert '"sphinx-mathjax-offline"' in conf and '"mathjax/tex-svg.js"' in conf
    assert "sphinx-mathjax-offline" in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"write_computation_times": False' in conf
    assert "load a script or style sheet from the network" in makefile
    gallery = sorted(p.name for p in (DOCS / "gallery").glob("plot_*.py"))
    assert gallery, "the gallery has no plot_*.py scripts"
    for script in gallery:  # offline: no dataset downloads in the gallery
        source = (DOCS / "gallery" / script).read_text(encoding="utf-8")
        assert "fetch_" not in source and "urlopen" not in source, script


def test_developer_map_names_every_layer():
    """The docs' "Map of the package" names the home of each layer of tests/test_layout.py."""
    text = (DOCS / "developer" / "map.rst").read_text(encoding="utf-8")
    assert "developer/index" in (DOCS / "index.rst").read_text(encoding="utf-8")
    assert "   map" in (DOCS / "developer" / "index.rst").read_text(encoding="utf-8")
    from test_layout import LAYERS
    for layer, prefixes in LAYERS:
        home = prefixes[0].removeprefix("qmc_orff.").replace(".", "/")
        assert re.search(rf"``{re.escape(home)}(/|\.py)``", text), (layer, home)


def _docs_module(name):
    import importlib
    import sys
    sys.path.insert(0, str(DOCS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(DOCS))


@pytest.fixture(scope="module")
def inventories(tmp_path_factory):
    """{full name: (role, URL)} of the inventories ``make docs`` writes, as Sphinx reads them."""
    from sphinx.util.inventory import InventoryFile

    folder = tmp_path_factory.mktemp("inventories")
    mapping = _docs_module("_inventories").write_inventories(folder)
    assert set(mapping) == {"python", "numpy", "scipy", "sklearn"}
    names = {}
    for root, path in mapping.values():
        assert root.startswith("https://") and Path(path).is_file()  # links online, read locally
        with open(path, "rb") as f:
            inventory = InventoryFile.load(f, root, lambda base, uri: base + uri)
        for role, items in getattr(inventory, "data", inventory).items():
            for name, item in items.items():
                uri = item.uri if hasattr(item, "uri") else item[2]
                names[name] = (role, uri)
    return names


def test_inventories_link_to_the_projects_pages(inventories):
    """The names the pages mention most link to the page that documents them."""
    expected = {
        "sklearn.kernel_approximation.Nystroem": "https://scikit-learn.org/stable/modules/"
        "generated/sklearn.kernel_approximation.Nystroem.html"
        "#sklearn.kernel_approximation.Nystroem",
        "sklearn.linear_model.Ridge.fit": "https://scikit-learn.org/stable/modules/generated/"
        "sklearn.linear_model.Ridge.html#sklearn.linear_model.Ridge.fit",
        "scipy.stats.qmc.Sobol": "https://docs.scipy.org/doc/scipy/reference/generated/"
        "scipy.stats.qmc.Sobol.html#scipy.stats.qmc.Sobol",
        "scipy.stats.qmc": "https://docs.scipy.org/doc/scipy/reference/stats.qmc.html"
        "#module-scipy.stats.qmc",
        "numpy.random.Generator": "https://numpy.org/doc/stable/reference/random/generator.html"
        "#numpy.random.Generator",
        "numpy.polyval": "https://numpy.org/doc/stable/reference/generated/numpy.polyval.html"
        "#numpy.polyval",
        "ValueError": "https://docs.python.org/3/library/exceptions.html#ValueError",
        "int": "https://docs.python.org/3/library/functions.html#int",
        "dict": "https://docs.python.org/3/library/stdtypes.html#dict",
    }
    for name, url in expected.items():
        assert inventories[name][1] == url, name
    assert inventories["sklearn.kernel_approximation.Nystroem"][0] == "py:class"
    assert inventories["scipy.special.wofz"][0] == "py:function"


def _external_references():
    """Names of NumPy, SciPy and scikit-learn that the docs and docstrings cross-reference:
    roles (:class:`scipy.stats.qmc.Sobol`) and numpydoc "See Also" entries."""
    role = re.compile(r":(?:class|func|meth|mod|obj|data|attr|exc):`~?((?:numpy|scipy|sklearn)"
                      r"\.[\w.]+)`")
    see_also = re.compile(r"^\s*((?:numpy|scipy|sklearn)\.[\w.]+) :", re.M)
    files = [*DOCS.rglob("*.rst"), *(ROOT / "qmc_orff").rglob("*.py")]
    found = set()
    for path in files:
        if "_build" in path.parts or "auto_examples" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        found |= set(role.findall(text)) | set(see_also.findall(text))
    return found


def test_every_external_reference_is_in_an_inventory(inventories):
    """Each NumPy/SciPy/scikit-learn name the docs link to resolves (so it renders as a link)."""
    refs = _external_references()
    assert {"sklearn.kernel_approximation.Nystroem", "scipy.stats.qmc.Sobol"} <= refs
    missing = sorted(refs - set(inventories))
    assert not missing, f"not in the generated inventories: {missing}"


def test_gallery_index_states_each_running_time(tmp_path):
    """The gallery index lists every example with the time of its last run, read from the
    line sphinx-gallery ends its page with; an example never run says so."""
    gallery = _docs_module("_gallery_order")
    src, out = tmp_path / "gallery", tmp_path / "auto_examples"
    src.mkdir()
    out.mkdir()
    for name in ("plot_zeta.py", "plot_which_map.py", "plot_qmc_points.py", "notes.py"):
        (src / name).write_text("")
    (out / "plot_which_map.rst").write_text(
        ".. rst-class:: sphx-glr-timing\n\n"
        "   **Total running time of the script:** (1 minutes 58.043 seconds)\n")
    (out / "plot_qmc_points.rst").write_text(
        "   **Total running time of the script:** (0 minutes 2.349 seconds)\n")
    text = gallery.running_times(str(src), str(out))
    rows = re.findall(r"\* - :doc:`(\w+)`\n     - (.+)\n", text)
    assert rows == [("plot_qmc_points", "2.3 s"), ("plot_which_map", "118.0 s"),
                    ("plot_zeta", "not measured")]
    readme = " ".join((DOCS / "gallery" / "README.rst").read_text(encoding="utf-8").split())
    assert "few seconds" not in readme and "running times are listed" in readme
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert 'app.connect("source-read", _add_running_times)' in conf


def test_display_math_scrolls_inside_the_column():
    """A formula wider than the column scrolls (the theme's flex item needs min-width: 0); the
    column stays within a narrow screen."""
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert 'html_static_path = ["_static"]' in conf and '"qmc_orff.css"' in conf
    css = (DOCS / "_static" / "qmc_orff.css").read_text(encoding="utf-8")
    rule = re.search(r"div\.math mjx-container\[display=\"true\"\] \{([^}]*)\}", css)
    assert rule is not None
    assert "min-width: 0" in rule[1] and "overflow-x: auto" in rule[1]
    # and a long name in inline code breaks rather than widening the column past the screen
    rule = re.search(r"\.bd-article span\.pre \{([^}]*)\}", css)
    assert rule is not None and "overflow-wrap: anywhere" in rule[1]
    rule = re.search(r"\.bd-article table span\.pre \{([^}]*)\}", css)  # tables scroll instead
    assert rule is not None and "white-space: nowrap" in rule[1]
