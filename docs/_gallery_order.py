"""The gallery's order: from point sets to discrepancies, designs, maps and learning.

A module (not a class in conf.py) so that Sphinx can pickle the configuration.
"""
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
