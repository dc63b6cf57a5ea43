"""The gallery's order (from point sets to discrepancies, designs, maps and learning) and the
table of the examples' running times at the end of its index.

A module (not a class in conf.py) so that Sphinx can pickle the configuration.
"""
import os
import re

ORDER = [
    "plot_qmc_points.py",
    "plot_box_discrepancy.py",
    "plot_designs.py",
    "plot_catalogue.py",
    "plot_which_map.py",
    "plot_vector_field.py",
]


class GalleryOrder:
    """sphinx-gallery's ``within_subsection_order``: the files of ``ORDER``, then the rest."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename):
        if filename in ORDER:
            return (0, ORDER.index(filename), filename)
        return (1, 0, filename)


#: the last line sphinx-gallery writes on an example's page
_RUNNING_TIME = re.compile(
    r"Total running time of the script:\*\* \((\d+) minutes ([\d.]+) seconds\)")


def running_times(src_dir, gallery_dir):
    """The gallery index's section listing each example's running time (reST).

    Read from the last line of each example's page (``gallery_dir/plot_*.rst``), which
    sphinx-gallery writes when it runs the example and keeps while the script is unchanged.
    """
    names = sorted(f for f in os.listdir(src_dir) if f.startswith("plot_") and f.endswith(".py"))
    order = GalleryOrder(src_dir)
    rows = []
    for name in sorted(names, key=order):
        stem = name[:-3]
        page = os.path.join(gallery_dir, f"{stem}.rst")
        found = None
        if os.path.exists(page):
            with open(page, encoding="utf-8") as f:
                found = _RUNNING_TIME.search(f.read())
        shown = f"{60 * int(found[1]) + float(found[2]):.1f} s" if found else "not measured"
        rows.append(f"   * - :doc:`{stem}`\n     - {shown}\n")
    return ("\n\nRunning times\n-------------\n\n"
            "Each example's running time in the build that last ran it (as at the end of its "
            "page). It varies with the machine's load, and the first run on a machine also "
            "compiles the library's numba kernels (they are cached afterwards).\n\n"
            ".. list-table::\n   :header-rows: 1\n\n   * - example\n     - running time\n"
            + "".join(rows))
