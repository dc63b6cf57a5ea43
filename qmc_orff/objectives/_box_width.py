"""Box half-widths from data (:func:`box_from_data`): the box of the differences of the rows,
scaled, for :class:`~qmc_orff.BoxDiscrepancy`."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._validation import as_float_array, check_positive_real

if TYPE_CHECKING:  # names used in type hints only
    from numpy.typing import ArrayLike

__all__ = ["box_from_data"]


def box_from_data(X: ArrayLike, *, fraction: float = 1.0) -> np.ndarray:
    r"""Box half-widths from data: :math:`b_j = \mathrm{fraction} \cdot (\max_i x_{ij} - \min_i x_{ij})`
    over the rows of `X`.

    The box :math:`[-b, b]` with ``fraction=1`` contains every difference :math:`x - z` of
    two rows; the paper also uses ``fraction`` 1/2 and 1/4.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Data (finite), at least one row.
    fraction : float, default=1.0
        Positive multiplier.

    Returns
    -------
    ndarray of shape (d,)

    Raises
    ------
    ValueError
        If a column of `X` is constant (the box would be empty there).

    See Also
    --------
    BoxDiscrepancy : the objective on that box.

    Examples
    --------
    >>> from qmc_orff import BoxDiscrepancy, box_from_data
    >>> X = [[0.0, 1.0], [2.0, -1.0], [1.0, 0.5]]
    >>> box_from_data(X)
    array([2., 2.])
    >>> disc = BoxDiscrepancy(box_from_data(X, fraction=0.5), sigma=1.0)
    >>> disc.b
    array([1., 1.])
    """
    X = as_float_array(X, "X", ndim=2)
    if X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"'X' must have at least one row and one column; got shape {X.shape}.")
    fraction = check_positive_real(fraction, "fraction")
    with np.errstate(over="ignore"):
        b = fraction * (X.max(axis=0) - X.min(axis=0))
    bad = ~(np.isfinite(b) & (b > 0))
    if np.any(bad):
        j = int(np.flatnonzero(bad)[0])
        raise ValueError(f"'X' must give a positive finite width in every column; column {j} "
                         f"has width {float(b[j])!r} (constant column? drop it).")
    return b
