"""Product densities given by their characteristic function: :class:`CharacteristicDensity`
(the box integrals by the quadrature of :mod:`._quadrature`)."""
from __future__ import annotations

import numpy as np

from .product import ProductDensity, _as_t, _result

__all__ = ["CharacteristicDensity"]


class CharacteristicDensity(ProductDensity):
    r"""Symmetric product density given by its one-dimensional characteristic function.

    Parameters
    ----------
    char_fn : callable
        :math:`\varphi_1(\beta)` at unit bandwidth: real, even, :math:`\varphi_1(0) = 1`, vectorised
        over float64 arrays.  It is also the kernel profile :math:`k_1(\delta)`.
    ppf : callable
        Inverse CDF of :math:`p_1` on [0, 1] (vectorised), with ``ppf(0) = -inf`` and
        ``ppf(1) = inf`` where the support is unbounded.
    cdf, pdf : callable, default=None
        CDF and density of :math:`p_1`; calling :meth:`cdf` / :meth:`pdf` without them
        raises ``ValueError``.
    name : str, default="custom"

    Notes
    -----
    :math:`g_1` and :math:`C_1` are computed by composite 16-point Gauss-Legendre
    quadrature.  The panels on :math:`[0, a]` are first refined (by bisection) until
    the 16- and 32-point rules agree on :math:`\varphi_1` and :math:`\varphi_1^2` to :math:`10^{-15}` of
    :math:`\int_0^a |\varphi_1|`; for :math:`g_1(x; a)` each panel is further split until
    :math:`|x| h \le 2` (:math:`h` the panel width), so the oscillation of :math:`\cos(x t)`
    is resolved as well.  The relative accuracy is about :math:`10^{-13}` for smooth
    :math:`\varphi_1` (a kink or discontinuity of :math:`\varphi_1` inside :math:`(0, a)` is
    handled by the bisection, at more cost).

    See Also
    --------
    GaussianDensity, CauchyDensity : the closed-form densities.
    get_density : looks a density up by name, or passes one through.

    Examples
    --------
    The sinc kernel :math:`k_1(\delta) = \sin(\delta) / \delta` has the uniform spectral
    density on [-1, 1]:

    >>> import numpy as np
    >>> from qmc_orff.densities import CharacteristicDensity
    >>> sinc = CharacteristicDensity(lambda t: np.sinc(t / np.pi),
    ...                              ppf=lambda t: 2.0 * t - 1.0, name="sinc")
    >>> round(float(sinc.C(1.0)), 12)   # pi^-1 int_0^1 (sin t / t)^2 dt
    0.285632052744
    """

    def __init__(self, char_fn, *, ppf, cdf=None, pdf=None, name="custom"):
        for label, fn in (("char_fn", char_fn), ("ppf", ppf)):
            if not callable(fn):
                raise TypeError(f"'{label}' must be callable; got {type(fn).__name__}.")
        for label, fn in (("cdf", cdf), ("pdf", pdf)):
            if fn is not None and not callable(fn):
                raise TypeError(f"'{label}' must be callable or None; got {type(fn).__name__}.")
        if not isinstance(name, str) or not name:
            raise TypeError(f"'name' must be a non-empty string; got {name!r}.")
        phi0 = float(np.asarray(char_fn(np.zeros(1)), dtype=np.float64).ravel()[0])
        if not abs(phi0 - 1.0) <= 1e-12:
            raise ValueError(f"'char_fn' must equal 1 at 0 (a probability density); got {phi0!r}.")
        self._char_fn = char_fn
        self._ppf = ppf
        self._cdf = cdf
        self._pdf = pdf
        self.name = name
        self._panel_cache = {}

    def char_fn(self, beta):
        beta = np.asarray(beta, dtype=np.float64)
        return _result(np.asarray(self._char_fn(beta), dtype=np.float64))

    def pdf(self, u):
        if self._pdf is None:
            raise ValueError(f"density {self.name!r} was created without 'pdf'.")
        return _result(np.asarray(self._pdf(np.asarray(u, dtype=np.float64)), dtype=np.float64))

    def cdf(self, u):
        if self._cdf is None:
            raise ValueError(f"density {self.name!r} was created without 'cdf'.")
        return _result(np.asarray(self._cdf(np.asarray(u, dtype=np.float64)), dtype=np.float64))

    def ppf(self, t):
        return _result(np.asarray(self._ppf(_as_t(t)), dtype=np.float64))

    def __repr__(self):
        return f"CharacteristicDensity(name={self.name!r})"


# --------------------------------------------------------------------------- quadrature
