"""Exact kernels: the references every feature map is tested against.

Scalar kernels ``k(x, z)`` evaluate to ``(n, m)`` Gram matrices; operator-valued
(matrix-valued) kernels ``K(x, z)`` to ``(n, m, p, p)`` arrays, or to the
flattened block Gram matrix of shape ``(n p, m p)`` with :meth:`OperatorKernel.block`
(row ``i p + a``, column ``j p + b`` holds ``K(x_i, z_j)[a, b]``).

All kernels here are shift invariant (for the skewed chi-squared kernel: on the
skewed multiplicative group), so ``K(x, z) = K_0(x - z)``; their spectral
measures are what :func:`qmc_orff.make_frequencies` samples.  The maps and the data
objectives take them by name: :data:`SCALAR_KERNELS`, :data:`OPERATOR_KERNELS`, built by
:func:`scalar_kernel` and :func:`operator_kernel`.

References
----------
.. [1] R. Brault, F. d'Alche-Buc, M. Heinonen. "Random Fourier features for
   operator-valued kernels", ACML 2016, section 2.
.. [2] H. Q. Minh. "Operator-valued Bochner theorem, Fourier feature maps for
   operator-valued kernels, and vector-valued learning", arXiv:1608.05639, 2016,
   section 3.
.. [3] F. Li, C. Ionescu, C. Sminchisescu. "Random Fourier approximations for
   skewed multiplicative histogram kernels", DAGM 2010.
"""
from __future__ import annotations

import numpy as np
from scipy import special

from ._kernel_base import (_PairFunction, _abs_dists, _as_matrices, _check_scale_length, _like,
                           _outer, _sq_dists, check_psd_matrix)
from ._validation import as_float_array, as_positive, as_real_scalar, check_int

__all__ = ["Kernel", "Gaussian", "Laplacian", "Matern", "SkewedChi2", "OperatorKernel",
           "Decomposable", "CurlFree", "DivFree", "SumKernel", "check_psd_matrix",
           "SCALAR_KERNELS", "OPERATOR_KERNELS", "scalar_kernel", "operator_kernel"]


# --------------------------------------------------------------------------- scalar kernels
class Kernel(_PairFunction):
    """Base class of the scalar shift-invariant kernels.

    Subclasses implement ``_gram(X, Z, xp=numpy)`` on validated float arrays (of the namespace
    ``xp``, where the subclass is written over it; float64 NumPy arrays otherwise) and set
    ``name`` (the spectral density :func:`qmc_orff.make_frequencies` samples, and the key of
    :data:`SCALAR_KERNELS`).
    """

    name = None
    #: the constructor's keyword for the bandwidth, and the other parameters that
    #: :func:`scalar_kernel` passes on
    _bandwidth = "sigma"
    _options = ()
    _what = "Gram matrix"

    def _evaluate(self, X, Z, xp):
        return self._gram(X, Z, xp)

    def __repr__(self):
        params = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({params})"

    def _params(self):  # pragma: no cover - overridden
        return {}

    def k0(self, delta):  # pragma: no cover - overridden
        """Signature ``k_0(delta)``, ``k(x, z) = k_0(x - z)``, for ``delta`` of shape (..., d)."""
        raise NotImplementedError


class _BandwidthKernel(Kernel):
    """A kernel whose only parameter is the bandwidth ``sigma`` (per coordinate allowed):
    ``k(x, z) = k_1`` of the scaled points, ``_gram_scaled(X / sigma, Z / sigma)``."""

    def __init__(self, sigma=1.0):
        self.sigma = as_positive(sigma, "sigma")

    def _params(self):
        return {"sigma": self.sigma.tolist()}

    def _gram(self, X, Z, xp=np):
        _check_scale_length(self.sigma, X.shape[1], "sigma")
        sigma = _like(self.sigma, X, xp)
        return self._gram_scaled(X / sigma, Z / sigma, xp)


class Gaussian(_BandwidthKernel):
    """Gaussian kernel ``k(x, z) = exp(-sum_j (x_j - z_j)^2 / (2 sigma_j^2))``.

    Parameters
    ----------
    sigma : float or array_like of shape (d,), default=1.0
        Bandwidth (per coordinate allowed).  ``gamma = 1 / (2 sigma^2)`` in
        scikit-learn's convention.

    Notes
    -----
    Spectral density ``N(0, diag(sigma^-2))`` (Rahimi and Recht 2007).
    """

    name = "gaussian"

    @staticmethod
    def _gram_scaled(X, Z, xp):
        return xp.exp(-0.5 * _sq_dists(X, Z, xp))

    def k0(self, delta):
        """Signature ``k_0(delta)`` for ``delta`` of shape (..., d)."""
        delta = np.asarray(delta, dtype=np.float64) / self.sigma
        return np.exp(-0.5 * np.sum(delta * delta, axis=-1))


class Laplacian(_BandwidthKernel):
    """Laplacian (L1) kernel ``k(x, z) = exp(-sum_j |x_j - z_j| / sigma_j)``.

    Parameters
    ----------
    sigma : float or array_like of shape (d,), default=1.0
        Bandwidth (per coordinate allowed); scikit-learn's
        ``laplacian_kernel`` uses ``gamma = 1 / sigma``.

    Notes
    -----
    Spectral density: product of Cauchy densities with scale ``1 / sigma_j``.
    """

    name = "laplacian"

    @staticmethod
    def _gram_scaled(X, Z, xp):
        return xp.exp(-_abs_dists(X, Z, xp))

    def k0(self, delta):
        delta = np.asarray(delta, dtype=np.float64) / self.sigma
        return np.exp(-np.sum(np.abs(delta), axis=-1))


def _matern_of_r(r, nu):
    """Matern correlation of the scaled distance ``r = |x - z| / l``."""
    r = np.asarray(r, dtype=np.float64)
    if nu == 0.5:
        return np.exp(-r)
    if nu == 1.5:
        t = np.sqrt(3.0) * r
        return (1.0 + t) * np.exp(-t)
    if nu == 2.5:
        t = np.sqrt(5.0) * r
        return (1.0 + t + t * t / 3.0) * np.exp(-t)
    t = np.sqrt(2.0 * nu) * r
    out = np.ones_like(t)
    pos = t > 0
    tp = t[pos]
    # 2^(1 - nu) / Gamma(nu) * t^nu K_nu(t); kve = kv * exp(t) keeps K_nu finite
    with np.errstate(under="ignore"):
        log_c = (1.0 - nu) * np.log(2.0) - special.gammaln(nu)
        out[pos] = np.exp(log_c + nu * np.log(tp) - tp) * special.kve(nu, tp)
    return out


class Matern(Kernel):
    """Matern kernel with smoothness ``nu`` and length scale ``lengthscale``.

    ``k(x, z) = 2^(1 - nu) / Gamma(nu) * (sqrt(2 nu) r)^nu K_nu(sqrt(2 nu) r)``
    with ``r = |(x - z) / lengthscale|_2`` (``k = 1`` at ``r = 0``), as
    ``sklearn.gaussian_process.kernels.Matern``.

    Parameters
    ----------
    nu : float, default=1.5
        Smoothness, ``nu > 0``; ``nu -> inf`` is the Gaussian kernel.
    lengthscale : float or array_like of shape (d,), default=1.0

    Notes
    -----
    The spectral density is the multivariate t distribution with ``2 nu``
    degrees of freedom and scale ``1 / lengthscale``:
    ``w = z / (l sqrt(g / (2 nu)))``, ``z ~ N(0, I)``, ``g ~ chi2(2 nu)``
    (Rasmussen and Williams 2006, eq. 4.15).
    """

    name = "matern"
    _bandwidth = "lengthscale"
    _options = ("nu",)

    def __init__(self, nu=1.5, lengthscale=1.0):
        nu_arr = as_positive(nu, "nu")
        if nu_arr.ndim != 0:
            raise ValueError(f"'nu' must be a positive scalar; got shape {nu_arr.shape}.")
        self.nu = float(nu_arr)
        self.lengthscale = as_positive(lengthscale, "lengthscale")

    @property
    def sigma(self):
        """Alias of ``lengthscale`` (the scale frequencies are divided by)."""
        return self.lengthscale

    def _params(self):
        return {"nu": self.nu, "lengthscale": self.lengthscale.tolist()}

    def _gram(self, X, Z, xp=np):  # NumPy only (scipy.special)
        _check_scale_length(self.lengthscale, X.shape[1], "lengthscale")
        r = np.sqrt(_sq_dists(X / self.lengthscale, Z / self.lengthscale))
        return _matern_of_r(r, self.nu)

    def k0(self, delta):
        delta = np.asarray(delta, dtype=np.float64) / self.lengthscale
        return _matern_of_r(np.sqrt(np.sum(delta * delta, axis=-1)), self.nu)


class SkewedChi2(Kernel):
    """Skewed chi-squared kernel on ``(-c, inf)^d`` (Li, Ionescu, Sminchisescu 2010).

    ``k(x, z) = prod_j 2 sqrt((x_j + c)(z_j + c)) / (x_j + z_j + 2 c)`` at
    ``sigma = 1``; in general ``prod_j sech(log((x_j + c) / (z_j + c)) / (2 sigma))``.

    Parameters
    ----------
    c : float, default=1.0
        Skewness; inputs must satisfy ``x + c > 0``.
    sigma : float, default=1.0
        Bandwidth on the log scale (``sigma = 1`` is the kernel of Li et al.
        and of ``sklearn.kernel_approximation.SkewedChi2Sampler``).

    Notes
    -----
    Shift invariant on the group ``x (.) z = (x + c)(z + c) - c`` (Brault's
    thesis draft, Example 2): with ``u = log(x + c)`` the kernel is
    ``prod_j sech((u_j - v_j) / (2 sigma))``, whose spectral density is the
    hyperbolic secant ``sigma sech(pi sigma w)``; unit-bandwidth inverse CDF
    ``w = pi^-1 log(tan(pi t / 2))``.
    """

    name = "skewed_chi2"
    _options = ("c",)

    def __init__(self, c=1.0, sigma=1.0):
        if np.ndim(c) != 0:
            raise ValueError(f"'c' must be a scalar; got shape {np.shape(c)}.")
        self.c = float(as_float_array([c], "c")[0])
        self.sigma = as_positive(sigma, "sigma")

    def _params(self):
        return {"c": self.c, "sigma": self.sigma.tolist()}

    def log_transform(self, X, name="X"):
        """``log(X + c)``, checking ``X + c > 0``."""
        X = np.asarray(X)
        shifted = X + self.c
        if np.any(shifted <= 0):
            raise ValueError(f"'{name}' must satisfy {name} + c > 0 (c={self.c!r}); "
                             f"got minimum {float(np.min(X))!r}.")
        return np.log(shifted)

    def k0(self, delta):
        """Signature on the group: ``prod_j sech(delta_j / (2 sigma))`` with
        ``delta = log(x + c) - log(z + c)``, shape (..., d) -> (...)."""
        t = 0.5 * np.abs(np.asarray(delta, dtype=np.float64) / self.sigma)
        return np.exp(np.sum(-t - np.log1p(np.exp(-2.0 * t)) + np.log(2.0), axis=-1))

    def _gram(self, X, Z, xp=np):  # NumPy only
        _check_scale_length(self.sigma, X.shape[1], "sigma")
        U = self.log_transform(X, "X") / self.sigma
        V = self.log_transform(Z, "Z") / self.sigma
        out = np.zeros((U.shape[0], V.shape[0]))
        for j in range(U.shape[1]):
            t = 0.5 * np.abs(U[:, j, None] - V[None, :, j])
            # log sech(t) = -t - log((1 + exp(-2t)) / 2), stable for large t
            out += -t - np.log1p(np.exp(-2.0 * t)) + np.log(2.0)
        return np.exp(out)


# --------------------------------------------------------------------------- operator-valued
class OperatorKernel(_PairFunction):
    """Base class of the matrix-valued shift-invariant kernels ``K(x, z) = K_0(x - z)``.

    Subclasses implement ``signature(delta)`` for ``delta`` of shape
    ``(..., d)`` returning ``(..., p, p)``, and ``output_dim(d)``; the Gaussian ones of
    :data:`OPERATOR_KERNELS` set ``name`` (the key) and build themselves from a bandwidth with
    ``_gaussian(sigma, d, A)``.
    """

    name = None
    #: inputs need at least this many columns
    min_dim = 1
    #: a bandwidth per coordinate is allowed (else ``sigma`` is one positive number)
    per_coordinate_sigma = False

    @classmethod
    def _check_d(cls, d):
        if d < cls.min_dim:
            raise ValueError(f"'X' must have d >= {cls.min_dim} columns for "
                             f"kernel={cls.name!r}; got d={d}.")

    def output_dim(self, d):
        """Output dimension ``p`` for inputs in ``R^d``."""
        raise NotImplementedError

    def signature(self, delta):
        """``K_0(delta)`` (..., p, p) for ``delta`` (..., d) (curl/div-free: namespace ``xp=``)."""
        raise NotImplementedError

    def _evaluate(self, X, Z, xp):
        return self._values(X, Z, xp)

    def _values(self, X, Z, xp=np):
        delta = X[:, None, :] - Z[None, :, :]  # a subclass's signature may take NumPy only
        return self.signature(delta) if xp is np else self.signature(delta, xp=xp)

    def block(self, X, Z=None):
        """Flattened block Gram matrix of shape ``(n p, m p)``.

        Entry ``(i p + a, j p + b)`` is ``K(x_i, z_j)[a, b]``.
        """
        K = self(X, Z)
        n, m, p, _ = K.shape
        return np.ascontiguousarray(K.transpose(0, 2, 1, 3).reshape(n * p, m * p))

    def __add__(self, other):
        if not isinstance(other, OperatorKernel):
            return NotImplemented
        return SumKernel(self, other)


class Decomposable(OperatorKernel):
    """Decomposable (separable) kernel ``K(x, z) = k(x, z) A``.

    Parameters
    ----------
    scalar_kernel : Kernel
        A scalar kernel of this module (e.g. ``Gaussian(sigma)``).
    A : array_like of shape (p, p)
        Symmetric positive semi-definite output matrix.

    Notes
    -----
    Spectral measure: that of ``k``; ``A(w) = A`` (Brault et al. 2016,
    Example 2.1; Minh 2016, Example 1).
    """

    name = "decomposable"
    per_coordinate_sigma = True

    @classmethod
    def _gaussian(cls, sigma, d, A=None):
        return cls(Gaussian(sigma), np.eye(d) if A is None else A)

    def __init__(self, scalar_kernel, A):
        if not isinstance(scalar_kernel, Kernel):
            raise TypeError("'scalar_kernel' must be a qmc_orff.kernels.Kernel instance "
                            f"(e.g. Gaussian(1.0)); got {type(scalar_kernel).__name__}.")
        self.scalar_kernel = scalar_kernel
        self.A = check_psd_matrix(A, "A")

    def output_dim(self, d):
        return self.A.shape[0]

    def signature(self, delta):
        k = self.scalar_kernel.k0(delta)
        return k[..., None, None] * self.A

    def _values(self, X, Z, xp=np):
        k = self.scalar_kernel._gram(X, Z, xp)
        return k[:, :, None, None] * _like(self.A, k, xp)

    def __repr__(self):
        return f"Decomposable({self.scalar_kernel!r}, A=<{self.A.shape[0]}x{self.A.shape[0]}>)"


class _GaussianDerivativeKernel(OperatorKernel):
    sigma_range = (1e-75, 1e75)  # sigma^-4 and sigma^4 enter the kernel

    def __init__(self, sigma=1.0):
        sigma = as_positive(sigma, "sigma")
        if sigma.ndim != 0:
            raise ValueError(f"'sigma' must be a positive scalar; got shape {sigma.shape}.")
        if not self.sigma_range[0] < float(sigma) < self.sigma_range[1]:
            raise ValueError(f"'sigma' must lie in (1e-75, 1e75); got {float(sigma)!r}.")
        self.sigma = float(sigma)

    @classmethod
    def _gaussian(cls, sigma, d, A=None):
        return cls(sigma)

    def output_dim(self, d):
        return d

    def __repr__(self):
        return f"{type(self).__name__}(sigma={self.sigma!r})"


class CurlFree(_GaussianDerivativeKernel):
    """Gaussian curl-free kernel ``K_0(delta) = -Hess k_0(delta)``.

    ``K_0(delta) = sigma^-2 (I - delta delta^T / sigma^2) k_0(delta)``,
    ``k_0(delta) = exp(-|delta|^2 / (2 sigma^2))``; ``p = d``.

    Parameters
    ----------
    sigma : float, default=1.0

    Notes
    -----
    ``K_0(delta) = E[cos<delta, w> w w^T]``, ``w ~ N(0, sigma^-2 I)``
    (Brault et al. 2016, Example 2.2).
    """

    name = "curl_free"

    def signature(self, delta, xp=np):
        delta = (np.asarray(delta, dtype=np.float64) if xp is np else delta) / self.sigma
        k = xp.exp(-0.5 * xp.sum(delta * delta, axis=-1))
        out = _like(np.eye(delta.shape[-1]), delta, xp) - _outer(delta, xp)
        return out * _as_matrices(k / self.sigma**2, xp)


class DivFree(_GaussianDerivativeKernel):
    """Gaussian divergence-free kernel ``K_0(delta) = (Hess - Laplacian I) k_0(delta)``.

    ``K_0(delta) = k_0 / sigma^2 [delta delta^T / sigma^2 + ((d - 1) - |delta|^2 / sigma^2) I]``;
    ``p = d >= 2``.

    Parameters
    ----------
    sigma : float, default=1.0

    Notes
    -----
    ``K_0(delta) = E[cos<delta, w> (|w|^2 I - w w^T)]``, ``w ~ N(0, sigma^-2 I)``
    (Minh 2016, Lemma 7).
    """

    name = "div_free"
    min_dim = 2  # p = d outputs, and for d = 1 the kernel is zero

    def signature(self, delta, xp=np):
        delta = (np.asarray(delta, dtype=np.float64) if xp is np else delta) / self.sigma
        d = delta.shape[-1]
        self._check_d(d)
        sq = xp.sum(delta * delta, axis=-1)
        k = xp.exp(-0.5 * sq)
        out = _outer(delta, xp) + _as_matrices((d - 1) - sq, xp) * _like(np.eye(d), delta, xp)
        return out * _as_matrices(k / self.sigma**2, xp)


class SumKernel(OperatorKernel):
    """Sum ``K = K_1 + ... + K_q`` of operator-valued kernels with equal output dimension."""

    def __init__(self, *kernels):
        flat = []
        for k in kernels:
            if not isinstance(k, OperatorKernel):
                raise TypeError(f"'kernels' must be OperatorKernel instances; got {type(k).__name__}.")
            flat.extend(k.kernels if isinstance(k, SumKernel) else [k])
        if len(flat) < 1:
            raise ValueError("'kernels' must contain at least one kernel.")
        self.kernels = tuple(flat)

    def output_dim(self, d):
        dims = {k.output_dim(d) for k in self.kernels}
        if len(dims) != 1:
            raise ValueError(f"'kernels' must share one output dimension p; got {sorted(dims)}.")
        return dims.pop()

    def _check_d(self, d):
        for k in self.kernels:
            k._check_d(d)
        self.output_dim(d)

    def signature(self, delta):
        return sum(k.signature(delta) for k in self.kernels)

    def _values(self, X, Z, xp=np):
        return sum(k._values(X, Z, xp) for k in self.kernels)

    def __repr__(self):
        return " + ".join(repr(k) for k in self.kernels)


# --------------------------------------------------------------------------- by name
#: The scalar kernels by name: :class:`~qmc_orff.FourierFeatures`, the data objectives and
#: :func:`qmc_orff.make_frequencies` name them so.
SCALAR_KERNELS = {k.name: k for k in (Gaussian, Laplacian, Matern, SkewedChi2)}
#: The Gaussian matrix-valued kernels by name (:class:`~qmc_orff.ORFF`,
#: :class:`~qmc_orff.OperatorNystroem`, :class:`~qmc_orff.OperatorDataDiscrepancy`).
OPERATOR_KERNELS = {k.name: k for k in (Decomposable, CurlFree, DivFree)}


def scalar_kernel(name, sigma, **params):
    """The scalar kernel ``name`` of :data:`SCALAR_KERNELS` with bandwidth ``sigma``.

    Parameters
    ----------
    name : str
        A key of :data:`SCALAR_KERNELS` (checked by the caller, which knows its choices).
    sigma : float or array_like of shape (d,)
        The bandwidth (the Matern kernel's length scale).
    **params
        Other parameters; each kernel takes those it has (``nu`` for Matern, ``c`` for the
        skewed chi-squared kernel) and ignores the rest.

    Returns
    -------
    Kernel
    """
    cls = SCALAR_KERNELS[name]
    return cls(**{cls._bandwidth: sigma}, **{k: params[k] for k in cls._options if k in params})


def operator_kernel(name, sigma, d, A=None):
    """The Gaussian matrix-valued kernel ``name`` of :data:`OPERATOR_KERNELS` for inputs in
    ``R^d``, and its bandwidth.

    The rules of these kernels' parameters, stated here once: the divergence-free kernel needs
    ``d >= 2`` (``min_dim``); ``sigma`` is one positive real number, except for the
    decomposable kernel, whose Gaussian takes one per coordinate; ``A=None`` is the identity
    of size ``d`` (decomposable only).

    Parameters
    ----------
    name : str
        A key of :data:`OPERATOR_KERNELS` (checked by the caller).
    sigma : float or array_like of shape (d,)
    d : int
    A : array_like of shape (p, p) or None, default=None
        Output matrix of the decomposable kernel.

    Returns
    -------
    kernel : OperatorKernel
    sigma : float or array_like of shape (d,)
        ``sigma`` as a Python float where it is one number, else as given.
    """
    cls = OPERATOR_KERNELS[name]
    cls._check_d(check_int(d, "d"))
    if not cls.per_coordinate_sigma or np.ndim(sigma) == 0:
        sigma = as_real_scalar(sigma, "sigma")
        if not sigma > 0:
            raise ValueError(f"'sigma' must be positive; got {sigma!r}.")
    return cls._gaussian(sigma, d, A), sigma
