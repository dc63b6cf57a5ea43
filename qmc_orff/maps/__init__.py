"""Fourier feature maps: scalar (:class:`FourierFeatures`) and operator-valued (:class:`ORFF`).

Both are scikit-learn transformers whose frequencies come from
:func:`qmc_orff.make_frequencies` (:mod:`qmc_orff.sources`): i.i.d. (``"mc"``), orthogonal random
features (``"orf"``), a low-discrepancy sequence (``"halton"``, ``"sobol"``,
``"lattice"``), a designed :class:`~qmc_orff.Sequence` or an explicit array.

Feature layout
--------------
With frequencies ``w_1..w_s``, weights ``xi_j`` and amplitudes
``a_j = sqrt(xi_j)`` (times a measure factor for ORFF), the scalar feature
matrix is ``F(X) = [a * cos(X W^T), a * sin(X W^T)]`` of shape ``(n, 2 s)``:
all cosines first, then all sines, column ``j`` and ``s + j`` belonging to
``w_j``.  The operator-valued map has ``Phi(x)`` of shape ``(2 s r, p)`` with
row ``(c s + j) r + k`` equal to ``F(x)[c s + j] * B(w_j)[:, k]``.

Modules
-------
``default_source``
    The seedless default map (the best of fixed draws of the ``"auto"`` source) and the
    fit-time check of a supplied sequence.
``fourier_features``, ``orff``, ``operators``
    The scalar and the operator-valued map, and the linear operators of an ORFF map.
``adaptive_maps``
    ``sequence="adaptive"``: frequencies designed on the training rows.
``_xp``
    Array API dispatch (scikit-learn's ``array_api_dispatch``): the input's namespace and
    device, the moves to and from the host, the transform in the namespace.
``operator_nystroem``, ``_pairs``
    :class:`OperatorNystroem`, the operator-valued Nystroem map of the same kernels, and the
    selection of its (landmark, output) pairs.

The names are imported lazily (PEP 562): importing :mod:`qmc_orff.maps` does not import
the estimators.  ``make_frequencies`` and ``source_points`` are those of
:mod:`qmc_orff.sources`.
"""
from __future__ import annotations

import importlib

_LAZY = {
    "FourierFeatures": "qmc_orff.maps.fourier_features",
    "ORFF": "qmc_orff.maps.orff",
    "OperatorNystroem": "qmc_orff.maps.operator_nystroem",
    "householder_complement": "qmc_orff.maps._factors",
    "make_frequencies": "qmc_orff.sources.frequencies",
    "source_points": "qmc_orff.sources.frequencies",
}

__all__ = sorted(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'qmc_orff.maps' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
