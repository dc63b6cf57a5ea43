"""How a fitted feature map enters :class:`qmc_orff.ORFFRidge`'s normal equations, chosen once by
:func:`structure_of` from what the map offers (no type is named):

- :class:`Factored`: a map with scalar features ``F(x)`` (2 s) and factors ``B(w_j)`` (an
  :class:`~qmc_orff.ORFF`): ``Phi(x)^T theta = sum_j F(x)_j B(w_j) theta_j``; its statistics are
  those of ``F`` (``G = F^T F`` of size 2 s, ``C = F^T Y``), and the solvers ``"stein"``
  (decomposable kernel), ``"direct"`` on ``G o (B^T B)`` and ``"cg"`` use that structure.
- :class:`DenseFeatures`: any operator-valued map whose ``transform`` gives ``Phi(x)`` of shape
  ``(D, p)`` (an :class:`~qmc_orff.OperatorNystroem`): statistics ``H = sum Phi Phi^T`` (D, D),
  ``c = sum Phi y``; solvers ``"direct"`` and ``"cg"``.

Both write their arithmetic once in the namespace ``xp``; the conjugate gradients are NumPy-only
(:func:`._solvers.cg`).
"""
from __future__ import annotations

import numpy as np

from .. import _array_api as _xp
from ..maps.operators import _FeatureOperator
from ._solvers import cg, direct, refuse_numpy_only, stein
from ._statistics import uncentred

#: ``solver="auto"`` solves directly while the system (``2 s r`` or ``D``) is at most this.
DIRECT_MAX = 4096


def structure_of(fmap):
    """The structure of a fitted map: :class:`Factored` when it offers ``scalar_features`` and
    ``factors_``, else :class:`DenseFeatures`."""
    if hasattr(fmap, "scalar_features") and hasattr(fmap, "factors_"):
        return Factored(fmap)
    return DenseFeatures(fmap)


class Factored:
    """The factored structure of an ORFF map (see the module docstring)."""

    solvers = ("auto", "stein", "direct", "cg")
    #: BLAS threads left alone: the ``F^T F`` products are the fit's cost and use them all
    serial_blas = False

    def __init__(self, fmap):
        self.map = fmap
        self.B = fmap.factors_
        self.s = fmap.frequencies_.shape[0]
        self.r = fmap.rank_
        self.p = fmap.n_outputs_
        self.dtype = fmap.frequencies_.dtype

    def row_floats(self, predict=False):
        """Floats per row of a batch (the features; in ``predict`` the products too)."""
        return 2 * self.s + (2 * self.r + 2 * self.p if predict else 0)

    def choose_solver(self, solver, alpha, xp):
        decomposable = self.B.ndim == 2
        if solver == "auto":
            small = 2 * self.s * self.r <= DIRECT_MAX or not _xp.is_numpy(xp)
            solver = "stein" if decomposable else ("direct" if small else "cg")
        if solver == "stein" and not decomposable:
            raise ValueError(f"'solver'='stein' needs kernel='decomposable'; got "
                             f"{self.map.kernel!r}.")
        refuse_numpy_only(solver, xp)
        return solver

    def features(self, X, xp):
        """``F(X)`` as ``(n, 2 s, 1)``, in the statistics' dtype."""
        F = self.map.scalar_features(X if _xp.is_numpy(xp) else xp.astype(X, self.dtype))
        return xp.reshape(F, (F.shape[0], F.shape[1], 1))

    def targets(self, Y, xp):
        return xp.reshape(Y, (Y.shape[0], 1, Y.shape[1]))

    def row_weights(self, w, n, xp):
        """The weights the statistics are formed with: ``None`` (means by ``xp.mean``)."""
        return w

    def apply(self, P, theta, xp):
        """``Phi(x_i)^T theta`` (m, p) from the features ``P`` (m, 2 s, 1)."""
        F = xp.reshape(P, (P.shape[0], P.shape[1]))
        B = self.B
        if B.ndim == 2:
            FT = F @ xp.reshape(theta, (2 * self.s, self.r))
            return _xp.einsum("irq,ar->iaq", xp.reshape(FT, (F.shape[0], self.r, 1)), B,
                              xp)[..., 0]
        T = xp.reshape(theta, (2, self.s, self.r, 1))
        V = _xp.einsum("jak,cjkq->cjaq", B, T, xp)  # V[c s + j] = B_j theta_{c s + j}
        return F @ xp.reshape(V, (2 * self.s, self.p))

    def _bt(self, C, xp):
        """``theta_{c s + j} = B(w_j)^T C[c s + j]`` for ``C`` (2 s, p), flattened."""
        B = self.B
        if B.ndim == 2:
            return xp.reshape(C @ B, (-1,))
        T = _xp.einsum("jak,cja->cjk", B, xp.reshape(C, (2, self.s, self.p)), xp)
        return xp.reshape(T, (-1,))

    def _normal_matrix(self, G, xp):
        """``Phi^T Phi = G o (B^T B)`` of shape (2 s r, 2 s r)."""
        s, p, r, B = self.s, self.p, self.r, self.B
        G = xp.reshape(G, (2, s, 2, s))
        if B.ndim == 2:
            M = xp.broadcast_to((B.T @ B)[None, :, None, :], (s, r, s, r))
        else:
            Bflat = xp.reshape(xp.permute_dims(B, (1, 0, 2)), (p, s * r))
            M = xp.reshape(Bflat.T @ Bflat, (s, r, s, r))
        H = G[:, :, None, :, :, None] * M[None, :, :, None, :, :]
        return xp.reshape(H, (2 * s * r, 2 * s * r))

    def alpha_columns(self, alpha, xp):
        """The penalty of each column ``k`` of ``Theta`` (2 s x r): ``alpha`` itself when it is
        a scalar; for per-target ``alpha`` (p,), that of the one output column ``k`` feeds
        (``B`` (p, r) of a diagonal ``A`` has one nonzero per column), in ``xp``."""
        if np.ndim(alpha) == 0:
            return alpha
        B = _xp.to_numpy(self.B)
        if alpha.shape[0] != self.p:
            raise ValueError(f"'alpha' must have one value per target, shape ({self.p},); "
                             f"got shape {alpha.shape}.")
        if B.ndim != 2 or np.any(np.count_nonzero(B, axis=0) != 1):
            raise ValueError("'alpha' per target needs independent outputs: "
                             "kernel='decomposable' with a diagonal A (A=None is the "
                             "identity); the other kernels share theta between the outputs. "
                             "Pass a scalar 'alpha'.")
        a = alpha[np.argmax(np.abs(B), axis=0)]
        return a if _xp.is_numpy(xp) else xp.asarray(a, dtype=self.dtype,
                                                      device=_xp.device(self.B))

    def _coef_alpha(self, alpha, xp):
        """``alpha`` per coefficient of ``theta`` (2 s r,), in its order ``(c s + j) r + k``."""
        return alpha if isinstance(alpha, float) else xp.tile(alpha, (2 * self.s,))

    def solve(self, stats, alpha, solver, tol, max_iter, fit_intercept, xp):
        """``(theta, b, n_iter)`` from the statistics."""
        _, _, mF, mY, G, C = stats
        if not fit_intercept:
            G, C = uncentred(stats)
        alpha = self.alpha_columns(alpha, xp)
        n_iter = 1
        if solver == "stein":
            theta = stein(G, C, self.B, alpha, xp)
        else:
            b = self._bt(C, xp)
            if solver == "direct":
                theta = direct(self._normal_matrix(G, xp), b, self._coef_alpha(alpha, xp), xp)
            else:
                alpha = self._coef_alpha(alpha, xp)
                theta, n_iter = cg(self._gram_matvec(G, alpha),
                                   self._jacobi_diag(np.diag(G), alpha), b, tol, max_iter)
        if fit_intercept:
            intercept = mY[0, :] - self.apply(xp.reshape(mF, (1, 2 * self.s, 1)), theta, xp)[0, :]
        else:
            intercept = xp.zeros(self.p, dtype=mY.dtype, device=_xp.device(mY))
        return theta, intercept, n_iter

    # ------------------------------------------------------------------ NumPy leaves (CG)
    def _jacobi_diag(self, colsq, alpha):
        """Diagonal of ``Phi^T Phi + alpha I`` from the squared column norms of ``F`` (2 s,)."""
        s, B = self.s, self.B
        if B.ndim == 2:
            bsq = np.broadcast_to(np.sum(B * B, axis=0)[None, :], (s, B.shape[1]))
        else:
            bsq = np.sum(B * B, axis=1)  # (s, r)
        return (colsq.reshape(2, s)[:, :, None] * bsq[None]).ravel() + alpha

    def _gram_matvec(self, G, alpha):
        """``theta -> B^T (G (B theta)) + alpha theta`` (Brault et al. Table 2, ``P^T P``)."""
        s, p, r, B = self.s, self.p, self.r, self.B
        op = _FeatureOperator(np.zeros((0, 2 * s)), B)

        def normal_matvec(t):
            V = op._theta_to_V(t.reshape(2 * s, r, 1))[:, :, 0]  # (2 s, p): B_j theta_cj
            U = (G @ V)[:, :, None]
            if B.ndim == 2:
                out = np.einsum("ak,jaq->jkq", B, U)
            else:
                out = np.einsum("jak,cjaq->cjkq", B, U.reshape(2, s, p, 1))
            return out.ravel() + alpha * t

        return normal_matvec

    def operator_solve(self, X, Y, w, alpha, tol, max_iter, fit_intercept):
        """CG through ``P = Phi(X)^T`` and its adjoint on the (weighted, centred) data, never
        forming ``G`` (NumPy, in memory)."""
        F = self.map.scalar_features(X)
        Y = np.array(Y, dtype=np.float64)
        if fit_intercept:
            sw = float(X.shape[0]) if w is None else float(np.sum(w))
            mF = (F.mean(axis=0) if w is None else (w @ F) / sw)
            mY = (Y.mean(axis=0) if w is None else (w @ Y) / sw)
            F -= mF
            Y -= mY
        if w is not None:
            r = np.sqrt(w)[:, None]
            F *= r
            Y *= r
        op = _FeatureOperator(F, self.B)
        alpha = self._coef_alpha(self.alpha_columns(alpha, np), np)

        def normal_matvec(t):
            return op.rmatvec(op.matvec(t)) + alpha * t

        diag = self._jacobi_diag(np.einsum("ij,ij->j", F, F), alpha)
        theta, n_iter = cg(normal_matvec, diag, op.rmatvec(Y.ravel()), tol, max_iter)
        if fit_intercept:
            intercept = mY - _FeatureOperator(mF[None, :], self.B).matvec(theta)
        else:
            intercept = np.zeros(Y.shape[1])
        return theta, intercept, n_iter


class DenseFeatures:
    """Dense features ``Phi(x)`` (D, p) of any operator-valued map (see the module docstring)."""

    solvers = ("auto", "direct", "cg")
    #: one BLAS thread around the reductions: statistics, solve and predictions then have the
    #: same bits whatever the BLAS thread count, as the features have (``OPENBLAS_NUM_THREADS``
    #: 1 and 2 gave predictions 6e-13 apart)
    serial_blas = True

    def __init__(self, fmap):
        self.map = fmap
        self.D = int(fmap.n_components_)
        self.p = int(fmap.n_outputs_)

    def row_floats(self, predict=False):
        return self.D * self.p + (2 * self.p if predict else 0)

    def choose_solver(self, solver, alpha, xp):
        name = type(self.map).__name__
        if solver not in self.solvers:
            raise ValueError(f"'solver'={solver!r} needs an ORFF feature map (its frequencies "
                             f"and factors B(w)); {name} supports 'auto', 'direct' and 'cg'.")
        if np.ndim(alpha) != 0:
            raise ValueError(f"'alpha' per target needs ORFF with kernel='decomposable' and a "
                             f"diagonal A; {name} shares theta between the outputs. Pass a "
                             "scalar 'alpha'.")
        solver = "direct" if solver == "auto" else solver
        refuse_numpy_only(solver, xp)
        return solver

    def features(self, X, xp):
        """``Phi(X)`` as ``(n, D, p)``, float64 (or the device's widest float)."""
        P = self.map.transform(X)
        dtype = np.float64 if _xp.is_numpy(xp) else _xp.float_dtype(xp, _xp.device(P))
        return xp.reshape(xp.astype(P, dtype), (P.shape[0], self.D, self.p))

    def targets(self, Y, xp):
        return xp.reshape(Y, (Y.shape[0], Y.shape[1], 1))

    def row_weights(self, w, n, xp):
        """The weights the statistics are formed with: unit weights for ``None`` on NumPy, so
        that the means are the weighted sums ``w @ P`` in both cases (``xp.mean`` rounds
        differently in the last bits; NumPy's results of this path keep theirs)."""
        return xp.ones(n, dtype=xp.float64, device="cpu") if w is None and _xp.is_numpy(xp) \
            else w

    def apply(self, P, theta, xp):
        """``Phi(x_i)^T theta`` (m, p) from the features ``P`` (m, D, p)."""
        return xp.sum(P * theta[None, :, None], axis=1)

    def solve(self, stats, alpha, solver, tol, max_iter, fit_intercept, xp):
        """``(theta, b, n_iter)`` from the statistics: ``(H + alpha I) theta = c``."""
        _, _, mP, mY, H, c = stats
        if not fit_intercept:
            H, c = uncentred(stats)
        c = c[:, 0]
        n_iter = 1
        if solver == "direct":
            theta = direct(H, c, alpha, xp)
        else:
            theta, n_iter = cg(lambda t: H @ t + alpha * t, np.diag(H) + alpha, c, tol, max_iter)
        if fit_intercept:
            intercept = mY[:, 0] - mP.T @ theta
        else:
            intercept = xp.zeros(self.p, dtype=mY.dtype, device=_xp.device(mY))
        return theta, intercept, n_iter
