"""Product spectral densities and the one-dimensional integrals of the box discrepancy.

A shift-invariant kernel ``k(x, z) = prod_j k_1((x_j - z_j) / sigma_j)`` has the
spectral density ``p(w) = prod_j sigma_j p_1(sigma_j w_j)``: coordinate ``j`` of a
frequency is ``w_j = u_j / sigma_j`` with ``u_j ~ p_1``.  Every object in this
module describes the ONE-dimensional density ``p_1`` at UNIT bandwidth, through

* its characteristic function ``phi_1(beta) = E[exp(i beta u)]`` (real and even;
  it is also the kernel profile ``k_1(delta)``),
* ``pdf``, ``cdf`` and ``ppf`` (inverse CDF), used to map unit-cube points to
  frequencies,
* the two integrals the box discrepancy needs (Avron et al. 2016, Corollary 13)::

      g_1(x; a) = (2 pi)^-1 int_{-a}^{a} phi_1(t) exp(i x t) dt
                = pi^-1 int_0^a phi_1(t) cos(x t) dt
      C_1(a)    = pi^-1 int_0^a phi_1(t)^2 dt

  With box half-width ``b_j`` and bandwidth ``sigma_j`` the factors of the
  discrepancy are ``g_j(x) = sigma_j g_1(sigma_j x; b_j / sigma_j)`` and
  ``C_j = sigma_j C_1(b_j / sigma_j)``.

All methods are elementwise and broadcast like numpy ufuncs.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import special

from .._validation import as_float_array
from . import _kernels as _dk
from ._quadrature import _quad_C, _quad_g

__all__ = [
    "ProductDensity",
    "GaussianDensity",
    "CauchyDensity",
    "get_density",
]

_SQRT2 = math.sqrt(2.0)
_SQRT2PI = math.sqrt(2.0 * math.pi)
_SQRTPI = math.sqrt(math.pi)


# --------------------------------------------------------------------------- helpers
def _as_x(x):
    x = np.asarray(x, dtype=np.float64)
    if not np.isfinite(x).all():
        raise ValueError("'x' must contain only finite values (no NaN or inf).")
    return x


def _as_a(a):
    a = np.asarray(a, dtype=np.float64)
    if not (a > 0).all() or not np.isfinite(a).all():
        bad = a[~(np.isfinite(a) & (a > 0))].ravel()[0] if a.ndim else float(a)
        raise ValueError(f"'a' (box half-width over bandwidth) must be positive and finite; "
                         f"got {float(bad)!r}.")
    return a


def _broadcast_xa(x, a):
    """Checked, broadcast ``(x, a)``; ``a * x`` must be finite (it is an angle)."""
    x, a = _as_x(x), _as_a(a)
    if x.shape != a.shape:
        x, a = np.broadcast_arrays(x, a)
    if x.size and not math.isfinite(float(np.abs(x).max()) * float(a.max())):
        # the bound overflows: check the products themselves
        with np.errstate(over="ignore"):
            ax = a * x
        if not np.isfinite(ax).all():
            raise ValueError("'x' is too large: a * x overflows float64.")
    return x, a


def _as_t(t):
    t = as_float_array(t, "t", finite=False)
    if np.any(~((t >= 0) & (t <= 1))):
        raise ValueError("'t' must lie in [0, 1] (no NaN).")
    return t


def _result(value):
    """Return a Python float for 0-D results, the array otherwise."""
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


# --------------------------------------------------------------------------- base class
class ProductDensity:
    """One-dimensional symmetric spectral density at unit bandwidth (base class).

    A subclass provides :meth:`char_fn`, :meth:`pdf`, :meth:`cdf`, :meth:`ppf`
    and, when it has them in closed form, :meth:`g`, :meth:`g_and_derivative` and
    :meth:`C`; the base class computes these three by Gauss-Legendre quadrature
    of the characteristic function (see :class:`CharacteristicDensity`).

    Attributes
    ----------
    name : str
        ``"gaussian"``, ``"laplacian"`` or a user-given name.
    """

    name = "product"

    # ---- interface a subclass implements ---------------------------------------------
    def char_fn(self, beta):
        r"""Characteristic function :math:`\varphi_1(\beta)` (real, even); also the kernel :math:`k_1(\beta)`.

        Parameters
        ----------
        beta : array_like
            Arguments (distances at unit bandwidth), any shape.

        Returns
        -------
        ndarray of the shape of `beta`
        """
        raise NotImplementedError

    def pdf(self, u):
        """Probability density :math:`p_1(u)` at unit bandwidth.

        Parameters
        ----------
        u : array_like
            Frequencies at unit bandwidth, any shape.

        Returns
        -------
        ndarray of the shape of `u`
        """
        raise NotImplementedError

    def cdf(self, u):
        r"""Cumulative distribution function :math:`F_1(u) = P(U \le u)` at unit bandwidth.

        Parameters
        ----------
        u : array_like
            Upper limits of the integral of :math:`p_1` (frequencies at unit bandwidth),
            any shape.

        Returns
        -------
        ndarray of the shape of `u`, in [0, 1]
        """
        raise NotImplementedError

    def ppf(self, t):
        r"""Inverse CDF :math:`F_1^{-1}(t)` for :math:`t \in [0, 1]`; ``ppf(0) = -inf``, ``ppf(1) = inf``.

        Parameters
        ----------
        t : array_like
            Probabilities in [0, 1], any shape.

        Returns
        -------
        ndarray of the shape of `t`
            Frequencies at unit bandwidth.
        """
        raise NotImplementedError

    # ---- discrepancy integrals (quadrature fallback) ----------------------------------
    def g(self, x, a):
        r"""The box integral :math:`g_1(x; a) = \pi^{-1} \int_0^a \varphi_1(t) \cos(x t)\, dt`.

        Parameters
        ----------
        x : array_like
            Frequencies at unit bandwidth (:math:`\sigma_j w_j`); finite.
        a : array_like
            Box half-width over bandwidth (:math:`b_j / \sigma_j`), positive; broadcasts with `x`.

        Returns
        -------
        float or ndarray
            :math:`g_1(x; a)` with the broadcast shape of `x` and `a`.
        """
        x, a = _broadcast_xa(x, a)
        return _result(_quad_g(self, x, a, derivative=False)[0])

    def g_and_derivative(self, x, a):
        r"""The pair :math:`(g_1(x; a), \partial g_1 / \partial x)`, with
        :math:`g_1' = -\pi^{-1} \int_0^a t\, \varphi_1(t) \sin(x t)\, dt`."""
        x, a = _broadcast_xa(x, a)
        g, dg = _quad_g(self, x, a, derivative=True)
        return _result(g), _result(dg)

    def _g_and_derivative_flat(self, x, a):
        """``(g_1, g_1')`` for 1-D float64 ``x``, ``a`` of one shape, already checked (private)."""
        return self.g_and_derivative(x, a)

    def C(self, a):
        r"""The constant :math:`C_1(a) = \pi^{-1} \int_0^a \varphi_1(t)^2\, dt`.

        Parameters
        ----------
        a : array_like
            Box half-widths at unit bandwidth, positive, any shape.

        Returns
        -------
        ndarray of the shape of `a`
        """
        a = _as_a(a)
        out = np.empty(a.shape)
        for av in np.unique(a):
            out[a == av] = _quad_C(self, float(av))
        return _result(out)

    def __repr__(self):
        return f"{type(self).__name__}()"


# --------------------------------------------------------------------------- closed forms
class _ClosedFormDensity(ProductDensity):
    """A density whose ``g_1`` and ``g_1'`` have a compiled closed form.

    A subclass provides ``_g_formula(x, a, derivative=False)`` for broadcast
    float64 arrays (no checks): ``g_1`` or ``(g_1, g_1')``.
    """

    def g(self, x, a):
        x, a = _broadcast_xa(x, a)
        return _result(self._g_formula(x, a))

    def g_and_derivative(self, x, a):
        x, a = _broadcast_xa(x, a)
        g, dg = self._g_formula(x, a, derivative=True)
        return _result(g), _result(dg)

    def _g_and_derivative_flat(self, x, a):
        return self._g_formula(x, a, derivative=True)


# --------------------------------------------------------------------------- Gaussian
class GaussianDensity(_ClosedFormDensity):
    r"""Standard normal spectral density: the Gaussian kernel
    :math:`k_1(\delta) = \exp(-\delta^2 / 2)`.

    Per coordinate, :math:`p_1(w) = (2\pi)^{-1/2} e^{-w^2/2}`, so that
    :math:`k_1(\delta) = \int \cos(w \delta)\, p_1(w)\, dw`; the kernel of bandwidth
    :math:`\sigma_j` uses :math:`w_j / \sigma_j`.

    Notes
    -----
    :math:`\varphi_1(t) = e^{-t^2 / 2}`, :math:`C_1(a) = \operatorname{erf}(a) / (2 \sqrt{\pi})` and, with
    :math:`A = a / \sqrt{2}` and :math:`y = x / \sqrt{2}`,

    .. math::

       g_1(x; a) &= (2 \pi)^{-1/2} e^{-y^2} \operatorname{Re} \operatorname{erf}(A - i y) \\
                 &= (2 \pi)^{-1/2} \bigl[e^{-y^2} - e^{-A^2}
                    \operatorname{Re}\bigl(e^{i a x}\, w(y + i A)\bigr)\bigr],

    with the Faddeeva function :math:`w(z) = e^{-z^2} \operatorname{erfc}(-i z)` (:func:`scipy.special.wofz`),
    bounded in the upper half plane; the first form overflows for :math:`|x| \gtrsim 37`.
    There the derivative is :math:`g_1'(x) = -x\, g_1(x) + \pi^{-1} e^{-a^2/2} \sin(a x)`,
    whose two terms cancel for large :math:`|x|`: its absolute error is about
    :math:`\varepsilon e^{-a^2/2}`, i.e. a relative error of about :math:`\varepsilon |x| / a`; as this
    branch serves only :math:`|x| a > 4` or :math:`a > 2`, that is at most about :math:`6 \cdot 10^{-11}` for
    :math:`|x| \le 10^3`.
    Where the two terms of the second form nearly cancel (:math:`a \le 2` and
    :math:`|x| a \le 4`) :math:`g_1` and :math:`g_1'` are computed instead by 24-point
    Gauss-Legendre quadrature of :math:`\pi^{-1} \int_0^a e^{-t^2/2} \cos(x t)\, dt` and
    :math:`-\pi^{-1} \int_0^a t\, e^{-t^2/2} \sin(x t)\, dt` (exact to rounding there).

    See Also
    --------
    CauchyDensity, CharacteristicDensity : the Laplacian kernel's and any other density.
    get_density : the density of a kernel name (``"gaussian"``).
    BoxDiscrepancy : the box discrepancy that integrates :math:`g_1` and :math:`C_1`.

    Examples
    --------
    >>> import math
    >>> from qmc_orff import GaussianDensity
    >>> dens = GaussianDensity()
    >>> float(dens.ppf(0.975))
    1.959963984540054

    :math:`C_1(a) = \operatorname{erf}(a) / (2 \sqrt{\pi})`:

    >>> math.isclose(dens.C(1.0), math.erf(1.0) / (2 * math.sqrt(math.pi)))
    True
    """

    name = "gaussian"

    def char_fn(self, beta):
        beta = np.asarray(beta, dtype=np.float64)
        return _result(np.exp(-0.5 * beta * beta))

    def pdf(self, u):
        u = np.asarray(u, dtype=np.float64)
        return _result(np.exp(-0.5 * u * u) / _SQRT2PI)

    def cdf(self, u):
        return _result(special.ndtr(np.asarray(u, dtype=np.float64)))

    def ppf(self, t):
        return _result(special.ndtri(_as_t(t)))

    @staticmethod
    def _g_formula(x, a, derivative=False):
        return _gauss_g(x, a, derivative)

    def C(self, a):
        a = _as_a(a)
        return _result(special.erf(a) / (2.0 * _SQRTPI))


def _flat(arr):
    # a private copy: views from np.broadcast_to/broadcast_arrays carry numpy's "warn on
    # write" flag, which numba (0.58 with numpy 1.x) turns into a FutureWarning
    return np.array(arr, dtype=np.float64, order="C", copy=True).reshape(-1)


def _gauss_g(x, a, derivative=False):
    """Gaussian ``g_1`` (and ``g_1'``) for broadcast float64 arrays ``x``, ``a`` (no checks).

    Compiled (:mod:`qmc_orff.densities._kernels`): one pass over all elements for the
    quadrature branch, :func:`scipy.special.wofz` on the far elements only, one pass
    to finish them.  A fixed number of calls whatever the size.
    """
    xf, af = _flat(x), _flat(a)
    g = np.empty(xf.shape)
    dg = np.empty(xf.shape) if derivative else g
    far = _dk.gauss_near(xf, af, g, dg, derivative)
    if far.size:
        wz = special.wofz(xf[far] / _SQRT2 + 1j * (af[far] / _SQRT2))  # y + i A
        _dk.gauss_far(xf, af, far, np.ascontiguousarray(wz.real), np.ascontiguousarray(wz.imag),
                      g, dg, derivative)
    g = g.reshape(x.shape)
    return (g, dg.reshape(x.shape)) if derivative else g


# --------------------------------------------------------------------------- Cauchy
class CauchyDensity(_ClosedFormDensity):
    r"""Standard Cauchy spectral density: the Laplacian kernel
    :math:`k_1(\delta) = \exp(-\lvert\delta\rvert)`.

    Per coordinate, :math:`p_1(w) = 1 / (\pi (1 + w^2))`, so that
    :math:`k_1(\delta) = \int \cos(w \delta)\, p_1(w)\, dw`.

    Notes
    -----
    :math:`\varphi_1(t) = e^{-|t|}`, :math:`C_1(a) = (1 - e^{-2a}) / (2 \pi)` and, with :math:`z = 1 - i x`,

    .. math::

       g_1(x; a) &= \pi^{-1} \operatorname{Re}\bigl[(1 - e^{-a z}) / z\bigr] \\
                 &= \frac{1 - e^{-a} \cos(a x) + x\, e^{-a} \sin(a x)}{\pi (1 + x^2)},

    evaluated as :math:`-\operatorname{expm1}(-a) + 2 e^{-a} \sin^2(a x / 2) + x\, e^{-a} \sin(a x)` over
    :math:`\pi (1 + x^2)` (no cancellation for small :math:`a`).  With :math:`u = a z`,
    :math:`g_1'(x) = -(a^2 / \pi) \operatorname{Im} h(u)`, :math:`h(u) = (1 - (1 + u) e^{-u}) / u^2`,
    summed as its power series :math:`\sum_k (-u)^k (k + 1) / (k + 2)!` for :math:`|u| \le 1`.

    See Also
    --------
    GaussianDensity : the Gaussian kernel's density.
    CharacteristicDensity : a density given by its characteristic function.
    get_density : the density of a kernel name (``"laplacian"``).

    Examples
    --------
    >>> import math
    >>> from qmc_orff import CauchyDensity
    >>> dens = CauchyDensity()
    >>> float(dens.cdf(1.0))
    0.75

    :math:`C_1(a) = (1 - e^{-2a}) / (2 \pi)`:

    >>> math.isclose(dens.C(1.0), (1 - math.exp(-2.0)) / (2 * math.pi))
    True
    """

    name = "laplacian"

    def char_fn(self, beta):
        beta = np.asarray(beta, dtype=np.float64)
        return _result(np.exp(-np.abs(beta)))

    def pdf(self, u):
        u = np.asarray(u, dtype=np.float64)
        return _result(1.0 / (math.pi * (1.0 + u * u)))

    def cdf(self, u):
        u = np.asarray(u, dtype=np.float64)
        # arctan2(1, -u) / pi is the lower tail, accurate as u -> -inf.
        lower = np.arctan2(1.0, -u) / math.pi
        upper = 1.0 - np.arctan2(1.0, u) / math.pi
        return _result(np.where(u < 0, lower, upper))

    def ppf(self, t):
        t = _as_t(t)
        out = np.empty(t.shape)
        lo = t < 0.25
        hi = t > 0.75
        mid = ~(lo | hi)
        # t - 0.5 and 1 - t are exact here (Sterbenz), so ppf(1 - t) = -ppf(t) exactly.
        out[mid] = np.tan(math.pi * (t[mid] - 0.5))
        with np.errstate(divide="ignore", over="ignore"):  # t < 5.6e-309: beyond float64
            out[lo] = -1.0 / np.tan(math.pi * t[lo])
            out[hi] = 1.0 / np.tan(math.pi * (1.0 - t[hi]))
        return _result(out)

    @staticmethod
    def _g_formula(x, a, derivative=False):
        return _cauchy_g(x, a, derivative)

    def C(self, a):
        a = _as_a(a)
        return _result(-np.expm1(-2.0 * a) / (2.0 * math.pi))


def _cauchy_g(x, a, derivative=False):
    """Cauchy ``g_1`` (and ``g_1'``), compiled, one pass over the broadcast arrays."""
    xf, af = _flat(x), _flat(a)
    g = np.empty(xf.shape)
    dg = np.empty(xf.shape) if derivative else g
    _dk.cauchy_g(xf, af, g, dg, derivative)
    g = g.reshape(x.shape)
    return (g, dg.reshape(x.shape)) if derivative else g


# --------------------------------------------------------------------------- generic
_NAMED = {"gaussian": GaussianDensity, "laplacian": CauchyDensity}


def get_density(kernel: str | ProductDensity) -> ProductDensity:
    """Return the spectral density (a ``ProductDensity``) of ``kernel``.

    Parameters
    ----------
    kernel : {"gaussian", "laplacian"} or ProductDensity
        A kernel name (Gaussian kernel -> standard normal density, Laplacian
        kernel -> standard Cauchy density) or a density object, returned as is.

    Returns
    -------
    ProductDensity

    See Also
    --------
    GaussianDensity, CauchyDensity, CharacteristicDensity : the densities it returns or accepts.

    Examples
    --------
    >>> from qmc_orff import GaussianDensity, get_density
    >>> get_density("laplacian")
    CauchyDensity()
    >>> dens = GaussianDensity()
    >>> get_density(dens) is dens
    True
    """
    if isinstance(kernel, ProductDensity):
        return kernel
    if isinstance(kernel, str) and kernel in _NAMED:
        return _NAMED[kernel]()
    opts = ", ".join(repr(k) for k in _NAMED)
    raise ValueError(f"'kernel' must be one of {opts} or a ProductDensity instance; got {kernel!r}.")
