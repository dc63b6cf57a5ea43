"""The linear operators of an ORFF map: ``theta -> Phi(X)^T theta`` and its adjoint (scipy
``LinearOperator``), without forming ``Phi(X)``."""
from __future__ import annotations

import numpy as np
from scipy.sparse.linalg import LinearOperator


class _FeatureOperator(LinearOperator):
    """``theta -> Phi(X)^T theta`` from ``F(X)`` (n, 2 s) and the factors ``B``."""

    def __init__(self, F, B):
        self.F = F
        self.B = B
        n, s2 = F.shape
        self.s = s2 // 2
        self.p = B.shape[-2]
        self.r = B.shape[-1]
        self.n = n
        super().__init__(dtype=np.float64, shape=(n * self.p, s2 * self.r))

    def _theta_to_V(self, T):
        """``T`` (2 s, r, k) -> ``V`` (2 s, p, k), ``V[cj] = B_j T[cj]``."""
        B = self.B
        if B.ndim == 2:
            return np.einsum("ak,jkq->jaq", B, T)
        T = T.reshape(2, self.s, self.r, -1)
        V = np.einsum("jak,cjkq->cjaq", B, T)
        return V.reshape(2 * self.s, self.p, -1)

    def _matmat(self, Theta):
        k = Theta.shape[1]
        T = np.asarray(Theta, dtype=np.float64).reshape(2 * self.s, self.r, k)
        if self.B.ndim == 2:
            FT = self.F @ T.reshape(2 * self.s, self.r * k)  # (n, r k)
            Y = np.einsum("irq,ar->iaq", FT.reshape(self.n, self.r, k), self.B)
        else:
            V = self._theta_to_V(T)  # (2 s, p, k)
            Y = (self.F @ V.reshape(2 * self.s, self.p * k)).reshape(self.n, self.p, k)
        return Y.reshape(self.n * self.p, k)

    def _rmatmat(self, Ymat):
        k = Ymat.shape[1]
        Y = np.asarray(Ymat, dtype=np.float64).reshape(self.n, self.p * k)
        G = (self.F.T @ Y).reshape(2 * self.s, self.p, k)  # (2 s, p, k)
        B = self.B
        if B.ndim == 2:
            T = np.einsum("ak,jaq->jkq", B, G)
        else:
            T = np.einsum("jak,cjaq->cjkq", B, G.reshape(2, self.s, self.p, k))
        return T.reshape(2 * self.s * self.r, k)

    def _matvec(self, theta):
        return self._matmat(np.asarray(theta).reshape(-1, 1)).ravel()

    def _rmatvec(self, y):
        return self._rmatmat(np.asarray(y).reshape(-1, 1)).ravel()

    def _adjoint(self):
        return _AdjointOperator(self)


class _AdjointOperator(LinearOperator):
    def __init__(self, op):
        self.op = op
        super().__init__(dtype=np.float64, shape=(op.shape[1], op.shape[0]))

    def _matvec(self, y):
        return self.op._rmatvec(y)

    def _matmat(self, Y):
        return self.op._rmatmat(Y)

    def _rmatvec(self, theta):
        return self.op._matvec(theta)

    def _rmatmat(self, Theta):
        return self.op._matmat(Theta)

    def _adjoint(self):
        return self.op
