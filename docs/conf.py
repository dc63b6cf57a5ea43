"""Sphinx configuration of the qmc_orff documentation.

Built by ``make docs`` (warnings as errors, no network): numpydoc docstrings, an
autosummary page per public name of ``qmc_orff.__all__`` (listed under their public
names, so moving a name between private modules does not change its page), a
sphinx-gallery of the scripts in ``docs/gallery/`` run at small sizes, and links to the
Python, NumPy, SciPy and scikit-learn documentation through inventories written from the
installed packages (``docs/_inventories.py``).
"""
import os
import sys
import warnings

import qmc_orff

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)  # _gallery_order, _inventories

from _gallery_order import running_times  # noqa: E402
from _inventories import write_inventories  # noqa: E402

project = "qmc_orff"
author = "qmc_orff developers"
copyright = "2026, qmc_orff developers"
release = qmc_orff.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "_cli", "_gallery_order.py", "_inventories.py",
                    "gallery/README.rst", "Thumbs.db", ".DS_Store"]
root_doc = "index"
default_role = "literal"

# -- API pages ----------------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
# the right-hand table of contents says "value_and_grad()", not "BoxDiscrepancy.value_and_grad()"
toc_object_entries_show_parents = "hide"
autodoc_typehints = "none"  # the numpydoc Parameters sections carry the types
numpydoc_show_class_members = False  # the class template lists the methods itself
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

# -- no network ---------------------------------------------------------------------------------
# Intersphinx reads inventories written here from the installed packages (a few seconds), never
# fetched: :class:`sklearn.kernel_approximation.Nystroem` links to scikit-learn's online page.
intersphinx_mapping = write_inventories(os.path.join(_HERE, "_build", "inventories"))

# -- MathJax: pages render their formulas offline.  The docs extra installs
# sphinx-mathjax-offline (MathJax 3.2.2, Apache-2.0, as package data), a Sphinx extension that
# copies MathJax into _static/mathjax after the build; the pages load it by a relative path,
# which works from file:// and from any web server.  SVG output: no web fonts to load (Chromium
# refuses fonts from file:// pages).  QMC_ORFF_DOCS_MATHJAX overrides the path (e.g. a CDN).
extensions.append("sphinx-mathjax-offline")
MATHJAX_PATH = os.environ.get("QMC_ORFF_DOCS_MATHJAX", "mathjax/tex-svg.js")

# -- gallery ------------------------------------------------------------------------------------
os.environ.setdefault("MPLBACKEND", "Agg")
sphinx_gallery_conf = {
    "examples_dirs": "gallery",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "_gallery_order.GalleryOrder",
    "reference_url": {},          # no doc linking that would fetch inventories
    "backreferences_dir": None,
    "show_memory": False,
    "write_computation_times": False,  # its page loads jQuery and DataTables from a CDN
    "plot_gallery": "True",
    "abort_on_example_error": True,
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
}
# matplotlib's Agg backend under sphinx-gallery: plt.show() is a no-op and would warn
warnings.filterwarnings("ignore", category=UserWarning,
                        message="FigureCanvasAgg is non-interactive, and thus cannot be shown")

# -- HTML ---------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"qmc_orff {release}"
html_static_path = ["_static"]
html_css_files = ["qmc_orff.css"]  # display formulas scroll inside the text column
html_show_sourcelink = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_end": ["theme-switcher", "navbar-icon-links"],
    "icon_links": [],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "secondary_sidebar_items": ["page-toc"],
}
html_context = {"default_mode": "light"}
html_sidebars = {"index": [], "papers": [], "developer/map": []}

# -- the command line's --help, captured at build time (docs/_cli/*.txt, included by cli.rst) ---
import subprocess  # noqa: E402

_CLI_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_cli")
os.makedirs(_CLI_DIR, exist_ok=True)
_CLI_COMMANDS = {"main": [], "generate": ["generate"], "discrepancy": ["discrepancy"],
                 "design": ["design"], "catalogue": ["catalogue"]}
_CLI_COMMANDS.update({f"design-{m}": ["design", m]
                      for m in ("global", "greedy", "weighted", "lattice", "adaptive")})
_CLI_COMMANDS.update({f"catalogue-{a}": ["catalogue", a] for a in ("list", "show", "build")})
for _name, _args in _CLI_COMMANDS.items():
    _out = subprocess.run([sys.executable, "-m", "qmc_orff", *_args, "--help"], check=True,
                          capture_output=True, text=True, env={**os.environ, "COLUMNS": "66"})
    with open(os.path.join(_CLI_DIR, f"{_name}.txt"), "w", encoding="utf-8") as _f:
        _f.write(_out.stdout)


# -- the gallery index lists each example's running time, as measured by the build that last ran
# it (sphinx-gallery's own table page, write_computation_times, loads scripts from a CDN) -------
def _add_running_times(app, docname, source):
    if docname == "auto_examples/index":
        source[0] += running_times(os.path.join(_HERE, "gallery"),
                                   os.path.join(_HERE, "auto_examples"))


def setup(app):
    # after the extensions' setup: sphinx-mathjax-offline sets its own (CHTML) path there
    app.config.mathjax_path = MATHJAX_PATH
    app.connect("source-read", _add_running_times)
