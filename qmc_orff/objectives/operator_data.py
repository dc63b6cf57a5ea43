"""The operator-valued data discrepancy: the block Gram error of an ORFF map on data.

:class:`OperatorDataDiscrepancy` is the operator-valued analogue of
:class:`~qmc_orff.DataDiscrepancy` for the Gaussian decomposable, curl-free and
divergence-free kernels: the squared Frobenius error of the ``(m p) x (m p)``
block Gram matrix, ``K~(x, z) = sum_l xi_l cos(w_l . (x - z)) A~(w_l)``
(``normalize=True`` divides by ``sum_ij ||K(x_i, x_j)||_F^2 / m^2``).
"""
from __future__ import annotations

import math

import numpy as np

from .._cos_sin import cos_sin_features
from .._validation import (MAX_ELEMENTS, MAX_PHASE, as_points, as_positive, as_weights,
                           check_choice, check_phases, shape_of)
from ..kernels import OPERATOR_KERNELS as _KERNEL_CLASSES, operator_kernel
from ._data_common import (GRAM_ARRAYS, _check_data, check_rows, cos_product_sums, finite_result,
                           normalization)
from .data import MAX_WEIGHT_SUM, DataDiscrepancy

#: ``(m, m)`` arrays the curl- and div-free objective holds: ``k = k_0 / sigma^2`` and
#: (div-free) ``k |u|^2``; everything else is ``(m, s)``, ``(s, s)`` or a row block.
OPERATOR_GRAM_ARRAYS = 2

#: The expansion's value is replaced by the direct form's below this fraction of the sum of
#: its terms' magnitudes (about 3 N2): there its relative rounding error, about ``eps`` times
#: that sum over the value, exceeds about 1e-6 (relative Gram error ``e`` below about 3e-5).
_CANCELLED = 1e6 * np.finfo(np.float64).eps

#: ``(s, s)`` float64 arrays budgeted for the curl- and div-free objective: ``value_and_grad``
#: holds about 9.4 of them at its peak (``tracemalloc``, s = 1024: ``tests/test_robustness.py``),
#: the rest is margin for NumPy's temporaries.
OPERATOR_PAIR_ARRAYS = 16
#: Most frequencies ``s`` of the curl- and div-free objective (4096): its ``(s, s)`` arrays
#: together within the size policy (2**28 entries, 2 GiB).
MAX_OPERATOR_FREQUENCIES = math.isqrt(MAX_ELEMENTS // OPERATOR_PAIR_ARRAYS)


def check_operator_frequencies(s, name="W"):
    """Refuse ``s`` frequencies (``ValueError`` naming ``name``) before any ``(s, s)`` array."""
    if s > MAX_OPERATOR_FREQUENCIES:
        what = "have at most {} rows" if name == "W" else "be at most {}"
        raise ValueError(f"'{name}' must {what.format(MAX_OPERATOR_FREQUENCIES)} for the curl- "
                         f"and div-free data objective (its (s, s) float64 arrays, "
                         f"{OPERATOR_PAIR_ARRAYS} budgeted, hold at most 2**28 entries, 2 GiB, in "
                         f"all); got {s}.")
    return s


__all__ = ["OperatorDataDiscrepancy", "OPERATOR_KERNELS"]

#: Operator-valued kernels :class:`OperatorDataDiscrepancy` measures.
OPERATOR_KERNELS = tuple(_KERNEL_CLASSES)
_OPERATOR_MEASURES = ("spectral", "trace")


class OperatorDataDiscrepancy:
    r"""Squared block Gram error of operator-valued Fourier features on data, with gradients.

    .. math::

        L(W, \xi) = \frac{1}{m^2} \sum_{i,j=1}^{m} \Bigl\lVert K(x_i, x_j)
        - \sum_{l=1}^{s} \xi_l \cos\langle w_l, x_i - x_j\rangle\, \tilde A(w_l)
        \Bigr\rVert_F^2,

    the squared Frobenius norm of the :math:`(mp) \times (mp)` block error, over :math:`m^2`.

    Parameters
    ----------
    X : array_like of shape (m, d)
        Training points.
    kernel : {"decomposable", "curl_free", "div_free"}, default="curl_free"
        The Gaussian operator-valued kernel (as in :class:`qmc_orff.ORFF`).
    sigma : float, default=1.0
        Bandwidth of the scalar Gaussian :math:`k_0`.
    A : array_like of shape (p, p) or None, default=None
        Output matrix of the decomposable kernel (identity of size :math:`d` when None).
    measure : {"spectral", "trace"}, default="spectral"
        Which :math:`\tilde A(w)` the map uses (as :class:`qmc_orff.ORFF`): ``"spectral"``:
        :math:`A`, :math:`w w^\top` (curl), :math:`\lvert w\rvert^2 I - w w^\top` (div); ``"trace"``: the
        trace-normalised :math:`(d / \sigma^2)\, \hat w \hat w^\top` (curl),
        :math:`(d / \sigma^2)(I - \hat w \hat w^\top)`
        (div), :math:`\hat w = w / \lvert w\rvert` (for the decomposable kernel both are :math:`A`).

    See Also
    --------
    DataDiscrepancy : the scalar-kernel objective.
    adaptive_operator_sequence : the design that minimises it.
    ORFF : the operator-valued feature map.

    Notes
    -----
    Decomposable: the blocks factor, :math:`L = \lVert A\rVert_F^2 L_{\text{scalar}}` (one
    :class:`DataDiscrepancy`).  Curl- and div-free (Minh 2016, Theorem 9 and
    Corollary 10 for the trace measure; Brault et al. 2016 for the maps):
    :math:`\tilde A_l = c\, v_l v_l^\top` (curl) or :math:`c\, (\lvert v_l\rvert^2 I - v_l v_l^\top)` (div), with
    :math:`v = w, c = 1` (spectral) or :math:`v = w / \lvert w\rvert, c = d / \sigma^2` (trace).  The
    square is expanded, free of :math:`p` (:math:`\circ` the elementwise product):

    .. math::

       L &= N_2 - \frac{2}{m^2} \sum_l \xi_l b_l + \xi^\top (R \circ G)\, \xi / m^2, \\
       N_2 &= \textstyle\sum_{ij} \lVert K_{ij}\rVert_F^2 / m^2
       \quad \text{(exact, from } \lvert u_{ij}\rvert^2 \text{ alone)}, \\
       G_{lk} &= \langle \tilde A_l, \tilde A_k\rangle_F = c^2\, N \circ N \ \text{(curl)}, \quad
       c^2 \bigl((d - 2)\, n n^\top + N \circ N\bigr) \ \text{(div)}, \\
       R_{lk} &= \textstyle\sum_{ij} \cos_l \cos_k = P \circ P + T \circ T + T^\top \circ T^\top + U \circ U, \\
       b_l &= \textstyle\sum_{ij} \cos\langle w_l, x_i - x_j\rangle\, \langle K_{ij}, \tilde A_l\rangle_F,

    with :math:`N = V V^\top`, :math:`n = \operatorname{diag} N`, :math:`C, S = \cos, \sin(X W^\top)`,
    :math:`P = C^\top C`, :math:`T = C^\top S`, :math:`U = S^\top S`, :math:`u = (x_i - x_j) / \sigma`,
    :math:`k = k_0 / \sigma^2` and :math:`\langle K, \tilde A_l\rangle = c\, k\, (\lvert v\rvert^2 - (u^\top v)^2)`
    (curl), :math:`c\, k\, \bigl((d - 1)^2 \lvert v\rvert^2 - (d - 2) \lvert u\rvert^2 \lvert v\rvert^2
    - (u^\top v)^2\bigr)` (div).  With :math:`\cos\langle w, x_i - x_j\rangle = C_i C_j + S_i S_j`
    and :math:`(u^\top v)^2 = (a_i - a_j)^2 / \sigma^2`, :math:`a = X v`, each :math:`b_l` is a
    sum of quadratic forms of :math:`k` (and :math:`k \lvert u\rvert^2`) against :math:`C, S, C a, S a`, from
    one product :math:`k\, [C, S, C a, S a, C a^2, S a^2]` (the last two for the
    gradient).  The gradients follow by the chain rule through :math:`C, S`
    (:math:`\partial C / \partial w_l = -S x`, :math:`\partial S / \partial w_l = C x`), :math:`a = X v`,
    :math:`N`, :math:`n` and :math:`v(w)`
    (trace: :math:`\partial v / \partial w = (I - v v^\top) / \lvert w\rvert`).  :math:`X` is centred first
    (:math:`L` depends on :math:`x_i - x_j` only).  Cost :math:`O(m^2 s + m s^2 + s^2 d)` per value and gradient,
    memory :math:`O(m^2 + m s + s^2)`: two ``(m, m)`` arrays (:data:`OPERATOR_GRAM_ARRAYS`),
    ``(s, s)`` ones (:math:`s \le 4096`, :data:`MAX_OPERATOR_FREQUENCIES`).

    Rounding: the expansion cancels when the map is accurate.  At relative error
    :math:`e = \sqrt{L / N_2}` the value's relative rounding error is about :math:`\varepsilon / e^2`
    (:math:`2 \log_{10}(1/e)` digits lost: about :math:`10^{-12}` at :math:`e = 10^{-2}`,
    :math:`10^{-8}` at :math:`e = 10^{-4}`)
    and the gradients' about :math:`\varepsilon / e` (measured against the non-cancelling direct
    form in extended precision, ``tests/test_operator_data.py``).  The adaptive
    design works at :math:`e` above :math:`10^{-2}` (random features: :math:`e \sim s^{-1/2}`), where
    this is far below its stopping tolerances; its results agree with the direct
    form's to about :math:`10^{-9}`.  Where the value falls below :math:`10^6 \varepsilon` times the sum
    of its terms' magnitudes (:math:`e` below about :math:`3 \cdot 10^{-5}`, e.g. a bandwidth
    :math:`10^4` times the data's spread, where the expansion returned negative values), it is
    computed by the direct form instead, :math:`\sum_{ij} \lVert K_{ij} - \tilde K_{ij}\rVert_F^2 / m^2`
    entry by entry (relative error about :math:`\varepsilon / e`, never below 0; cost
    :math:`O(m^2 s p^2)`); the gradients keep the expansion (relative error
    about :math:`\varepsilon / e`).

    Examples
    --------
    >>> import numpy as np
    >>> from qmc_orff import OperatorDataDiscrepancy
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> obj = OperatorDataDiscrepancy(X, kernel="curl_free", sigma=1.5)
    >>> W = np.random.default_rng(1).normal(size=(64, 2)) / 1.5
    >>> bool(0.0 < obj(W, normalize=True) < 0.2)
    True
    >>> value, grad = obj.value_and_grad(W)
    >>> grad.shape
    (64, 2)
    """

    def __init__(self, X, *, kernel="curl_free", sigma=1.0, A=None, measure="spectral"):
        self.kernel_name = check_choice(kernel, "kernel", OPERATOR_KERNELS)
        X = _check_data(X, arrays=GRAM_ARRAYS if self.kernel_name == "decomposable"
                        else OPERATOR_GRAM_ARRAYS)
        self.measure = check_choice(measure, "measure", _OPERATOR_MEASURES)
        self.X = X
        self.m, self.d = X.shape
        sig = as_positive(sigma, "sigma")
        if sig.ndim != 0:
            raise ValueError(f"'sigma' must be a positive scalar; got shape {sig.shape}.")
        self.sigma = float(sig)
        self.kernel, _ = operator_kernel(self.kernel_name, self.sigma, self.d, A)
        if self.kernel_name == "decomposable":
            self.A = self.kernel.A
            self._scalar = DataDiscrepancy(X, kernel="gaussian", sigma=self.sigma)
            self._a2 = float(np.sum(self.A * self.A))
            self.p = self.A.shape[0]
            self._norm2 = self._a2 * self._scalar._norm2
            return
        self.p = self.d
        check_rows(self.m, arrays=OPERATOR_GRAM_ARRAYS)
        # L depends on x_i - x_j only: centred phases and projections a = X v lose less
        self._Xc = X - np.mean(X, axis=0)
        self._radial()

    def _radial(self):
        """By rows (never the ``(m, m, p, p)`` tensor): ``k = k_0 / sigma^2`` and (div-free)
        ``k |u|^2``, ``u = (x - z) / sigma``, and ``N2 = sum_ij ||K(x_i, x_j)||_F^2 / m^2``
        (``||K||_F^2 = k^2 ((d - 1) + (1 - |u|^2)^2)`` curl-free,
        ``k^2 (d - 1)((d - 1) + (d - 1 - |u|^2)^2)`` div-free)."""
        X, m, d, sig = self.X, self.m, self.d, self.sigma
        div = self.kernel_name == "div_free"
        self._kk = np.empty((m, m))
        self._k1 = np.empty((m, m)) if div else None
        norm2 = 0.0
        rows = max(1, (1 << 20) // max(1, m * d))
        for i in range(0, m, rows):
            with np.errstate(over="ignore", invalid="ignore"):
                delta = (X[i:i + rows, None, :] - X[None, :, :]) / sig
                sq = np.sum(delta * delta, axis=-1)
            if not np.all(np.isfinite(sq)):
                raise ValueError(f"'X' is too large for sigma={sig!r}: the squared scaled "
                                 "distances |x - z|^2 / sigma^2 overflow float64; rescale 'X'.")
            k = np.exp(-0.5 * sq) / sig ** 2
            self._kk[i:i + rows] = k
            with np.errstate(over="ignore", invalid="ignore"):  # f overflows only where k = 0
                if div:
                    self._k1[i:i + rows] = np.where(k > 0, k * sq, 0.0)
                    f = (d - 1) * ((d - 1) + (d - 1 - sq) ** 2)
                else:
                    f = (d - 1) + (1.0 - sq) ** 2
                norm2 += float(np.sum(np.where(k > 0, k * k * f, 0.0)))
        self._norm2 = norm2 / m ** 2

    def __repr__(self):
        return (f"OperatorDataDiscrepancy(m={self.m}, d={self.d}, kernel={self.kernel_name!r}, "
                f"sigma={self.sigma!r}, measure={self.measure!r})")

    def _scale(self, normalize):
        return normalization(normalize, self._norm2)

    def A_tilde(self, W):
        r"""The matrices :math:`\tilde A(w_l)` (s, p, p) and :math:`\partial \tilde A(w_l) / \partial w_{lk}`
        (s, p, p, d) for the curl/div kernels.

        Parameters
        ----------
        W : array_like of shape (s, d)
            Frequencies at the kernel's bandwidth (no zero row for ``measure="trace"``),
            :math:`s d^3 \le 2^{28}` (the derivative's size, checked before it is allocated:
            :math:`s = 16384, d = 64` would take 32 GiB).

        Returns
        -------
        A_tilde : ndarray of shape (s, p, p)
        dA_tilde : ndarray of shape (s, p, p, d)
        """
        W = as_points(W, "W", d=self.d)
        s, d = W.shape
        if s * d ** 3 > MAX_ELEMENTS:  # dA_tilde: (s, p, p, d), p = d; before any allocation
            raise ValueError(f"'W' must have at most {max(MAX_ELEMENTS // d ** 3, 1)} rows for "
                             f"A_tilde at d={d} (dA_tilde has s d^3 entries, at most 2**28: "
                             f"2 GiB); got {s}: pass the frequencies in pieces.")
        eye = np.eye(self.d)
        V, norm, c = self._frame(W)
        outer = V[:, :, None] * V[:, None, :]  # v v^T
        # d(v v^T)/dv_k = e_k v^T + v e_k^T
        dvv = eye[None, :, None, :] * V[:, None, :, None] + V[:, :, None, None] * eye[None, None, :, :]
        if self.kernel_name == "curl_free":
            base, dbase = outer, dvv
        else:  # |v|^2 I - v v^T
            sq = np.sum(V * V, axis=1)
            base = sq[:, None, None] * eye[None] - outer
            dbase = 2.0 * V[:, None, None, :] * eye[None, :, :, None] - dvv
        if norm is None:  # spectral: c = 1
            return base, dbase
        # trace: A~ = (d / sigma^2) base(w^), w^ = w / |w|; dw^/dw = (I - w^ w^T) / |w|
        J = (eye[None] - outer) / norm[:, None, None]  # (s, d, d): dv_q / dw_k = J[q, k]
        dA = np.einsum("labq,lqk->labk", dbase, J)
        return c * base, c * dA

    def _frame(self, W):
        """``v_l`` (s, d), ``|w_l|`` (trace, else None) and ``c`` of ``A~_l = c v v^T`` (curl)
        or ``c (|v|^2 I - v v^T)`` (div)."""
        if self.measure == "spectral":
            return W, None, 1.0
        norm = np.sqrt(np.sum(W * W, axis=1))
        if np.any(norm == 0):
            raise ValueError("'W' must not contain a zero frequency for measure='trace'.")
        return W / norm[:, None], norm, self.d / self.sigma ** 2

    def _terms(self, W, xi, grad):
        """Value (over m^2, unnormalised) and, if ``grad``, ``(dL/dW, dL/dxi)``: the p-free
        expansion ``N2 - (2/m^2) xi . b + xi^T (R o G) xi / m^2`` of the class Notes."""
        s, d, m2, sig2 = W.shape[0], self.d, float(self.m) ** 2, self.sigma ** 2
        div = self.kernel_name == "div_free"
        V, norm, c = self._frame(W)
        Xc = self._Xc
        CS = cos_sin_features(Xc, W, np.ones(s))
        C, S = CS[:, :s], CS[:, s:]
        A = Xc @ V.T                                   # a_il = x_i . v_l
        N = V @ V.T
        n = np.einsum("lq,lq->l", V, V)
        P, T, U = C.T @ C, C.T @ S, S.T @ S
        R = cos_product_sums(P, T, U)                  # sum_ij cos_l(d_ij) cos_k(d_ij)
        G = N * N                                      # <A~_l, A~_k>_F / c^2
        if div:
            G += (d - 2) * np.outer(n, n)
        G *= c * c
        RGxi = (R * G) @ xi
        # k @ [C, S, C a, S a (, C a^2, S a^2)] in one product: b's quadratic forms
        blocks = [C, S, C * A, S * A] + ([C * A * A, S * A * A] if grad else [])
        KM = self._kk @ np.concatenate(blocks, axis=1)
        KC, KS, KCA, KSA = (KM[:, j * s:(j + 1) * s] for j in range(4))
        cKc = C * KC + S * KS
        Aa = np.sum(cKc, axis=0)                       # sum_ij cos_l k
        B = (2.0 / sig2) * (np.sum(A * A * cKc, axis=0)
                            - np.sum(C * A * KCA + S * A * KSA, axis=0))  # sum cos k (u.v)^2
        if div:
            K1 = self._k1 @ CS
            A1 = np.sum(C * K1[:, :s] + S * K1[:, s:], axis=0)            # sum cos k |u|^2
            b = c * ((d - 1) ** 2 * n * Aa - (d - 2) * n * A1 - B)
        else:
            b = c * (n * Aa - B)
        cross, quad = (2.0 / m2) * float(xi @ b), float(xi @ RGxi) / m2
        value = self._norm2 - cross + quad
        if value < _CANCELLED * (self._norm2 + abs(cross) + abs(quad)):
            # the expansion has cancelled (relative error above about 1e-6, or a negative
            # value): the direct form, a sum of squares, never below 0
            value = self._direct_value(W, xi, V, c)
        if not grad:
            return value, None, None
        grad_xi = (2.0 / m2) * (RGxi - b)
        # Q = xi^T (R o G) xi / m^2: through C, S (R) and through N, n (G)
        H = np.outer(xi, xi) * G / m2
        Hr = np.outer(xi, xi) * R / m2
        GC = 4.0 * (C @ (H * P) + S @ (H * T.T))
        GS = 4.0 * (C @ (H * T) + S @ (H * U))
        gV = (4.0 * c * c) * ((Hr * N) @ V)
        gn = (2.0 * c * c * (d - 2)) * (Hr @ n) if div else np.zeros(s)
        # -(2/m^2) xi . b: omega_l multiplies b_l / c
        om = (-2.0 * c / m2) * xi
        KCA2, KSA2 = KM[:, 4 * s:5 * s], KM[:, 5 * s:]
        if div:
            wA = om * (d - 1) ** 2 * n
            w1 = -om * (d - 2) * n
            GC += 2.0 * w1 * K1[:, :s]
            GS += 2.0 * w1 * K1[:, s:]
            gn += om * ((d - 1) ** 2 * Aa - (d - 2) * A1)
        else:
            wA = om * n
            gn += om * Aa
        GC += 2.0 * wA * KC
        GS += 2.0 * wA * KS
        wB = -om * (2.0 / sig2)                        # B = (2 / sigma^2)(F1 - F2)
        GC += wB * (A * A * KC + KCA2 - 2.0 * A * KCA)  # sum_j k_ij c_j (a_i - a_j)^2
        GS += wB * (A * A * KS + KSA2 - 2.0 * A * KSA)
        GA = (2.0 * wB) * (A * cKc - C * KCA - S * KSA)
        gV += GA.T @ Xc + 2.0 * gn[:, None] * V
        grad_W = (Xc.T @ (GS * C - GC * S)).T           # dC/dw = -S x, dS/dw = C x
        if norm is None:
            grad_W += gV
        else:  # dv/dw = (I - v v^T) / |w|
            grad_W += (gV - V * np.sum(V * gV, axis=1)[:, None]) / norm[:, None]
        return value, grad_W, grad_xi

    def _direct_value(self, W, xi, V, c):
        """``sum_ij ||K_ij - K~_ij||_F^2 / m^2`` formed entry by entry, by row blocks: no
        cancellation (relative error about ``eps / e`` at relative Gram error ``e``, never
        below 0), cost ``O(m^2 s p^2)``; used where the expansion of :meth:`_terms` has
        cancelled."""
        m, d, s, sig = self.m, self.d, W.shape[0], self.sigma
        eye = np.eye(d)
        base = V[:, :, None] * V[:, None, :]
        if self.kernel_name == "div_free":
            base = np.sum(V * V, axis=1)[:, None, None] * eye[None] - base
        At = (c * xi)[:, None, None] * base                 # xi_l A~_l, (s, p, p)
        CS = cos_sin_features(self._Xc, W, np.ones(s))
        C, S = CS[:, :s], CS[:, s:]
        Xc, total = self._Xc, 0.0
        rows = max(1, (1 << 21) // max(1, m * max(s, d * d)))
        for i in range(0, m, rows):
            cos = C[i:i + rows, None, :] * C[None] + S[i:i + rows, None, :] * S[None]
            E = (cos.reshape(-1, s) @ At.reshape(s, d * d)).reshape(-1, m, d, d)
            u = (Xc[i:i + rows, None, :] - Xc[None]) / sig
            uu = u[..., :, None] * u[..., None, :]
            if self.kernel_name == "curl_free":
                K = eye - uu
            else:
                K = uu + ((d - 1) - np.sum(u * u, axis=-1))[..., None, None] * eye
            E -= K * self._kk[i:i + rows, :, None, None]
            total += float(np.sum(E * E))
        return total / float(m) ** 2

    def _inputs(self, W, weights):
        """Checked frequencies and weights (as :class:`DataDiscrepancy`)."""
        shape = shape_of(W)  # s from the shape, before W is converted
        if self.kernel_name != "decomposable" and shape is not None and len(shape) == 2:
            check_operator_frequencies(shape[0])
        W = as_points(W, "W", d=self.d)
        if self.kernel_name != "decomposable":
            check_operator_frequencies(W.shape[0])
        check_phases(self.X, W, "W", limit=MAX_PHASE)
        xi = np.full(W.shape[0], 1.0 / W.shape[0]) if weights is None else \
            as_weights(weights, W.shape[0], "weights", max_sum=MAX_WEIGHT_SUM)
        return W, xi

    def __call__(self, W, weights=None, *, normalize=False):
        r"""The value :math:`L(W, \xi)`, the squared block Gram error over :math:`m^2`.

        Parameters
        ----------
        W : array_like of shape (s, d)
            Frequencies at the kernel's bandwidth, :math:`s \ge 1`.
        weights : array_like of shape (s,), default=None
            Nonnegative weights :math:`\xi`; None means :math:`1/s` each.
        normalize : bool, default=False
            Divide by :math:`\sum_{ij} \lVert K(x_i, x_j)\rVert_F^2 / m^2`: the squared relative
            error of the block Gram matrix.

        Returns
        -------
        float
        """
        scale = self._scale(normalize)
        if self.kernel_name == "decomposable":
            return finite_result(self._a2 * self._scalar(W, weights) * scale)
        W, xi = self._inputs(W, weights)
        with np.errstate(over="ignore", invalid="ignore"):  # checked on the result
            return finite_result(self._terms(W, xi, grad=False)[0] * scale)

    def value_and_grad(self, W, weights=None, *, normalize=False):
        r"""The value :math:`L`, :math:`\partial L / \partial W` (s, d) and, when `weights` is given,
        :math:`\partial L / \partial \xi` (s,).

        Parameters
        ----------
        W : array_like of shape (s, d)
            The frequencies, as in :meth:`__call__`.
        weights : array_like of shape (s,), default=None
            The weights :math:`\xi` (None: :math:`1/s` each); when given, ``grad_weights`` too.
        normalize : bool, default=False
            Value and gradients of the normalised :math:`L` (as in :meth:`__call__`).

        Returns
        -------
        L : float
            The value of :meth:`__call__`.
        grad_W : ndarray of shape (s, d)
        grad_weights : ndarray of shape (s,)
            Returned only when `weights` is given.
        """
        scale = self._scale(normalize)
        if self.kernel_name == "decomposable":
            out = self._scalar.value_and_grad(W, weights)
            return finite_result(tuple([out[0] * self._a2 * scale]
                                       + [g * (self._a2 * scale) for g in out[1:]]))
        W, xi = self._inputs(W, weights)
        with np.errstate(over="ignore", invalid="ignore"):  # checked on the result
            value, gW, gxi = finite_result(self._terms(W, xi, grad=True))
        if weights is None:
            return value * scale, gW * scale
        return value * scale, gW * scale, gxi * scale

    def constant(self, d=None, *, normalize=False):
        r"""The constant term :math:`\sum_{ij} \lVert K(x_i, x_j)\rVert_F^2 / m^2` of :math:`L`.

        Parameters
        ----------
        d : int or None, default=None
            Must be None or ``self.d`` (the protocol's signature).
        normalize : bool, default=False
            Return 1, the constant in normalised units.

        Returns
        -------
        float
            ``1.0`` with ``normalize=True``.
        """
        if d is not None and d != self.d:
            raise ValueError(f"'d' must equal the discrepancy's dimension {self.d}; got {d}.")
        return 1.0 if normalize else self._norm2
