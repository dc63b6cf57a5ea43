"""Candidate data-dependent Fourier maps measured against Nystroem (issue 20).

Research prototypes, pure numpy / scipy, measured by ``bench_vs_nystroem.py``.
Gaussian kernel ``k(x, y) = exp(-|x - y|^2 / (2 sigma^2))``; every construction
works in unit-bandwidth coordinates (``X / sigma`` against frequencies ``U``,
``W = U / sigma``).

Every map here has the form

    z(x) = L^T [cos(W x), sin(W x)]          (W: s x d, L: 2 s x k, k <= 2 s)

so ``transform`` is a pure function of each row, one ``(n, d) x (d, s)``
product, ``2 n s`` sin/cos and one ``(n, 2 s) x (2 s, k)`` product.

Constructions
-------------
- :func:`reweight`: the optimal ``L`` for fixed frequencies on the training
  rows, ``L L^T = Phi^+ K Phi^+T`` (ridge-regularised), optionally truncated to
  its top ``k`` directions.
- :func:`varpro_value_grad` / :func:`fit_varpro`: frequencies optimised for
  the projection error ``||K - P K P||_F^2 = ||K||^2 - ||Q^T K Q||^2``
  (``P = Q Q^T`` the projector on the span of the training features), the
  analytic gradient through the projector.
- :func:`greedy_select`: ``s`` frequencies picked from a larger pool, greedily,
  by the kernel energy their two columns add to the span.
- :func:`fit_dictionary`: the issue's 30-line prototype (cos/sin of ``m s``
  frequencies, compressed to ``2 s`` columns); transform costs ``m`` times more.

Findings (2-core machine under load average 3-10: times are noisy)
------------------------------------------------------------------
``bench_vs_nystroem.py`` (digits, breast cancer, diamonds, MNIST raw; s = 32..512;
held-out error / Nystroem, geometric mean over cells): kernel PCA 0.68, dict16 1.01
(12 cells), today's adaptive 1.88 (16 cells), adaptive + ridge-CV reweighting 2.26,
vp (40 iterations, validated) 2.65, ORF + reweighting 4.41, ORF 5.08, default 4.89.
The floors (<= 1.0, every cell <= 1.15) are met by none of the s-frequency maps.
Variable projection overfits its rows (digits, 750 rows: best validated iterate at
13-28; training projection error 0.68x Nystroem's held-out error, held-out 1.8-3.4x)
and is data-hungry: MNIST raw s = 64: 2.4x (1000 rows, 40 it), 1.51x (4200 rows,
40 it), 1.18x (2200 rows, 150 it), 0.99x (4200 rows, 150 it, still improving);
diamonds s = 64: 4.0x / 2.8x / 1.45x at 1000 / 4000 / 16000 rows.  Its fit costs
~280x Nystroem at s = 256 (3000 x 64).  The unregularised reweighting peaks where
2 s nears the row count (19-87x, double descent) and hurts on low-d data with a
fast spectral decay (diamonds); a ridge picked on a split, shrinking towards the
map's own weights (:func:`reweight_prior`), removes the peaks.  Greedy pool
selection by captured trace is worse than plain ORF + reweighting.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.optimize as sopt


# ----------------------------------------------------------------------------- basics
def sqdist(A, B):
    """Squared Euclidean distances ``(n_A, n_B)``, clipped at 0."""
    D = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * (A @ B.T)
    np.maximum(D, 0.0, out=D)
    return D


def gauss(A, B):
    """Unit-bandwidth Gaussian kernel matrix ``exp(-|a - b|^2 / 2)``."""
    return np.exp(-0.5 * sqdist(A, B))


def cos_sin(X, U):
    """``[cos(X U^T), sin(X U^T)]`` of shape ``(n, 2 s)``."""
    P = X @ U.T
    s = U.shape[0]
    out = np.empty((X.shape[0], 2 * s))
    np.cos(P, out=out[:, :s])
    np.sin(P, out=out[:, s:])
    return out


def orf(s, d, rng):
    """Orthogonal random features (Yu et al. 2016), unit bandwidth, ``(s, d)``."""
    blocks = []
    for _ in range(-(-s // d)):
        G = rng.standard_normal((d, d))
        Q, R = np.linalg.qr(G)
        Q *= np.sign(np.diag(R))
        radii = np.sqrt(rng.chisquare(d, size=d))
        blocks.append(Q * radii[:, None])
    return np.vstack(blocks)[:s]


class LinearFourierMap:
    """``z(x) = L^T [cos(W x), sin(W x)]`` (``L`` None: the plain map scaled 1/sqrt(s))."""

    def __init__(self, W, L=None, info=None):
        self.W = np.ascontiguousarray(W)
        self.L = None if L is None else np.ascontiguousarray(L)
        self.info = info or {}

    def transform(self, X):
        Z = cos_sin(np.asarray(X, dtype=np.float64), self.W)
        if self.L is None:
            return Z / np.sqrt(self.W.shape[0])
        return Z @ self.L


# ----------------------------------------------------------------------------- targets
def nystroem_factor(Xs, r, rng):
    """Factor ``C`` (n, r') with ``C C^T`` the Nystroem approximation of ``K(Xs)`` on
    ``r`` uniformly drawn landmarks (r' <= r after dropping null directions)."""
    n = Xs.shape[0]
    if r >= n:
        K = gauss(Xs, Xs)
        lam, V = np.linalg.eigh(K)
        keep = lam > 1e-12 * lam[-1]
        return V[:, keep] * np.sqrt(lam[keep])
    idx = rng.choice(n, r, replace=False)
    Kmm = gauss(Xs[idx], Xs[idx])
    lam, V = np.linalg.eigh(Kmm)
    keep = lam > 1e-12 * lam[-1]
    return gauss(Xs, Xs[idx]) @ (V[:, keep] / np.sqrt(lam[keep]))


def exact_factor(Xs):
    """``C = V sqrt(lam)`` with ``C C^T = K(Xs)`` (eigenvalues above 1e-12 max)."""
    return nystroem_factor(Xs, Xs.shape[0], None)


# ----------------------------------------------------------------------------- reweighting
def reweight(Phi, C, width=None, ridge=1e-8):
    """Optimal ``L`` (m, k) for features ``Phi`` (n, m) against ``K = C C^T``.

    ``G = Phi^T Phi = V diag(g) V^T``; regularised orthonormal coordinates
    ``q(x) = diag(h) V^T phi(x)``, ``h = sqrt(g) / (g + lam)``, ``lam = ridge tr(G) / m``
    (``h -> g^-1/2`` as ``lam -> 0``: then ``Q = Phi V diag(h)`` is an orthonormal
    basis of span(Phi)).  ``T = Q^T K Q = Y diag(t) Y^T`` (descending), and

        L = V diag(h) Y_k diag(sqrt(t_k)),     z(x) = L^T phi(x)

    so that on the training rows ``Z Z^T = Q Y_k t_k Y_k^T Q^T``: the best
    rank-``k`` approximation of ``P K P`` (``k = m``: ``L L^T = Phi^+ K Phi^+T``).
    """
    m = Phi.shape[1]
    width = m if width is None else min(width, m)
    g, V = np.linalg.eigh(Phi.T @ Phi)
    g = np.maximum(g, 0.0)
    lam = ridge * g.sum() / m
    h = np.sqrt(g) / (g + lam) if lam > 0 else np.where(g > 0, 1.0 / np.sqrt(np.where(g > 0, g, 1.0)), 0.0)
    B = C.T @ (Phi @ (V * h))               # C^T Q, (r, m)
    t, Y = np.linalg.eigh(B.T @ B)
    t, Y = np.maximum(t[::-1][:width], 0.0), Y[:, ::-1][:, :width]
    return (V * h) @ (Y * np.sqrt(t))


def fit_reweighted(Xs, U, C, width=None, ridge=1e-8):
    """Map with frequencies ``U`` (unit bandwidth) and the optimal ``L`` on rows ``Xs``."""
    Phi = cos_sin(Xs, U)
    return reweight(Phi, C, width=width, ridge=ridge)


# ----------------------------------------------------------------------------- variable projection
def varpro_value_grad(u, Xs, C, s, normK2):
    """Relative projection error ``1 - ||Q^T K Q||_F^2 / ||K||_F^2`` and its gradient.

    ``Q R = Phi = [cos(Xs U^T), sin(Xs U^T)]`` (n, 2 s), ``K = C C^T``.
    With ``T = Q^T K Q``, ``B = C^T Q``:

        d||Q^T K Q||^2 / dPhi = 4 (K Q - Q T) T R^-T             (n, 2 s)
        d / dP = -G_cos * sin(P) + G_sin * cos(P),  P = Xs U^T
        d / dU = (d / dP)^T Xs
    """
    d = Xs.shape[1]
    U = u.reshape(s, d)
    P = Xs @ U.T
    c, sn = np.cos(P), np.sin(P)
    Phi = np.hstack([c, sn])
    Q, R = np.linalg.qr(Phi)
    B = C.T @ Q
    T = B.T @ B
    f = 1.0 - np.sum(T * T) / normK2
    H = (C @ B - Q @ T) @ T                 # (I - P) K P K Q
    GPhi = sla.solve_triangular(R, H.T, lower=False).T   # H R^-T
    GPhi *= -4.0 / normK2
    dP = -GPhi[:, :s] * sn + GPhi[:, s:] * c
    return f, (dP.T @ Xs).ravel()


def fit_varpro(Xs, U0, C, *, maxiter=50, Xval=None, Cval=None, callback_every=0):
    """L-BFGS-B on the projection error from ``U0``; returns (U, history)."""
    s, d = U0.shape
    normK2 = float(np.sum((C.T @ C) ** 2))
    hist = []

    def cb(u):
        if callback_every and len(hist) % 1 == 0 and Xval is not None:
            pass
        hist.append(None)

    f0 = varpro_value_grad(U0.ravel(), Xs, C, s, normK2)[0]

    def fun(u):                           # scaled to 1 at the start: L-BFGS-B's tolerances
        f, g = varpro_value_grad(u, Xs, C, s, normK2)
        return f / f0, g / f0

    res = sopt.minimize(fun, U0.ravel(), jac=True, method="L-BFGS-B",
                        options={"maxiter": maxiter, "maxcor": 10, "gtol": 1e-12, "ftol": 1e-12},
                        callback=cb)
    return res.x.reshape(s, d), {"nit": res.nit, "nfev": res.nfev, "fun": res.fun * f0,
                                 "f0": f0, "message": res.message}


def projection_error(Xs, U, C):
    """Relative ``||K - P K P||_F / ||K||_F`` on rows ``Xs`` (K = C C^T)."""
    s = U.shape[0]
    normK2 = float(np.sum((C.T @ C) ** 2))
    f, _ = varpro_value_grad(U.ravel(), Xs, C, s, normK2)
    return float(np.sqrt(max(f, 0.0)))


# ----------------------------------------------------------------------------- greedy pool selection
def greedy_select(Phi_pool, C, s):
    """Pick ``s`` of the ``N`` frequencies behind ``Phi_pool = [cos | sin]`` (n, 2 N).

    Greedy block selection for the trace of the captured kernel: at each step the
    frequency whose two columns, orthogonalised against the chosen span, add the
    most ``tr(q^T K q)`` (``K = C C^T``) is taken, and every candidate's residual
    columns and their images ``C^T psi`` are deflated by the new basis vectors.
    Cost ``O((n + r) N s)``.
    """
    n, twoN = Phi_pool.shape
    N = twoN // 2
    Psi = Phi_pool.copy()
    S = C.T @ Psi                                           # (r, 2N)
    chosen = []
    alive = np.ones(N, dtype=bool)
    for _ in range(s):
        a = np.einsum("ij,ij->j", Psi[:, :N], Psi[:, :N])
        b = np.einsum("ij,ij->j", Psi[:, :N], Psi[:, N:])
        cc = np.einsum("ij,ij->j", Psi[:, N:], Psi[:, N:])
        e11 = np.einsum("ij,ij->j", S[:, :N], S[:, :N])
        e12 = np.einsum("ij,ij->j", S[:, :N], S[:, N:])
        e22 = np.einsum("ij,ij->j", S[:, N:], S[:, N:])
        det = a * cc - b * b
        scale = a + cc
        ok = alive & (scale > 1e-10 * n)
        # gain = tr(Gram^-1 E) for the 2 x 2 blocks; a near-singular block counts one column
        with np.errstate(divide="ignore", invalid="ignore"):
            two = (cc * e11 - 2 * b * e12 + a * e22) / det
            one = np.maximum(e11 / a, e22 / cc)
        gain = np.where(det > 1e-8 * scale * scale, two, one)
        gain = np.where(ok, np.nan_to_num(gain, nan=-1.0), -np.inf)
        j = int(np.argmax(gain))
        chosen.append(j)
        alive[j] = False
        for col in (j, j + N):
            v = Psi[:, col]
            nv = np.linalg.norm(v)
            if nv <= 1e-8 * np.sqrt(n):
                continue
            q = v / nv
            sq = S[:, col] / nv
            coef = q @ Psi                                  # (2N,)
            Psi -= np.outer(q, coef)
            S -= np.outer(sq, coef)
    return np.array(chosen)


# ----------------------------------------------------------------------------- dictionary
def fit_dictionary(Xs, U_dict, C, width, ridge=1e-8):
    """Issue 20's prototype: all ``m`` frequencies, compressed to ``width`` columns."""
    return reweight(cos_sin(Xs, U_dict), C, width=width, ridge=ridge)


# ----------------------------------------------------------------------------- kernel PCA ceiling
class KernelPCAMap:
    """Rank-``k`` kernel PCA of the training Gram matrix, Nystrom-extended:
    ``z(x) = Lam^-1/2 V^T k(X_train, x)`` (unit bandwidth coordinates)."""

    def __init__(self, Xs, k, sigma):
        K = gauss(Xs, Xs)
        lam, V = np.linalg.eigh(K)
        lam, V = lam[::-1][:k], V[:, ::-1][:, :k]
        keep = lam > 1e-12 * lam[0]
        self.Xs, self.sigma = Xs, sigma
        self.M = V[:, keep] / np.sqrt(lam[keep])

    def transform(self, X):
        return gauss(np.asarray(X) / self.sigma, self.Xs) @ self.M


# ----------------------------------------------------------------------------- regularised variants
def heldout_error(Xv, Kv, U, L):
    """Relative Frobenius error of ``z z^T`` against ``Kv`` on validation rows ``Xv``."""
    Z = cos_sin(Xv, U) @ L
    return float(np.linalg.norm(Kv - Z @ Z.T) / np.linalg.norm(Kv))


def fit_varpro_metric(Xs, G, C, *, maxiter=50, radii=False, Xval=None, Kval=None, Cfull=None,
                      Xfull=None):
    """Variable projection over a learnt linear map ``A`` (d, d) of the inputs:
    frequencies ``U = diag(r) G A`` with ``G`` (s, d) fixed (ORF), ``A`` started at I
    (``radii``: the per-frequency scales ``r`` learnt too, started at 1).  ``d^2 (+ s)``
    parameters instead of ``s d``.  With validation rows, the iterate with the least
    validation error (``L`` fitted on ``Xfull``/``Cfull``) is returned."""
    s, d = G.shape
    normK2 = float(np.sum((C.T @ C) ** 2))

    def unpack(v):
        A = v[:d * d].reshape(d, d)
        r = v[d * d:] if radii else np.ones(s)
        return A, r

    def fun(v):
        A, r = unpack(v)
        GA = G @ A
        U = r[:, None] * GA
        f, gU = varpro_value_grad(U.ravel(), Xs, C, s, normK2)
        gU = gU.reshape(s, d)
        gA = G.T @ (r[:, None] * gU)
        parts = [gA.ravel()]
        if radii:
            parts.append(np.einsum("ij,ij->i", gU, GA))
        return f / f0, np.concatenate(parts) / f0

    v0 = np.concatenate([np.eye(d).ravel()] + ([np.ones(s)] if radii else []))
    f0 = 1.0
    f0 = fun(v0)[0]
    best = {"err": np.inf, "v": v0, "it": 0}
    its = [0]

    def cb(v):
        its[0] += 1
        if Xval is not None:
            A, r = unpack(v)
            U = r[:, None] * (G @ A)
            L = fit_reweighted(Xfull, U, Cfull)
            e = heldout_error(Xval, Kval, U, L)
            if e < best["err"]:
                best.update(err=e, v=v.copy(), it=its[0])

    res = sopt.minimize(fun, v0, jac=True, method="L-BFGS-B",
                        options={"maxiter": maxiter, "maxcor": 10, "gtol": 1e-12, "ftol": 1e-12},
                        callback=cb)
    v = best["v"] if Xval is not None else res.x
    A, r = unpack(v)
    return r[:, None] * (G @ A), {"nit": res.nit, "best_it": best["it"], "val": best["err"]}


def fit_varpro_validated(Xs, U0, C, *, maxiter=50, Xval, Kval, Cfull, Xfull):
    """Plain variable projection, returning the iterate with the least validation error."""
    s, d = U0.shape
    normK2 = float(np.sum((C.T @ C) ** 2))
    f0 = varpro_value_grad(U0.ravel(), Xs, C, s, normK2)[0]
    best = {"err": heldout_error(Xval, Kval, U0, fit_reweighted(Xfull, U0, Cfull)), "u": U0.ravel(),
            "it": 0}
    its = [0]

    def fun(u):
        f, g = varpro_value_grad(u, Xs, C, s, normK2)
        return f / f0, g / f0

    def cb(u):
        its[0] += 1
        U = u.reshape(s, d)
        e = heldout_error(Xval, Kval, U, fit_reweighted(Xfull, U, Cfull))
        if e < best["err"]:
            best.update(err=e, u=u.copy(), it=its[0])

    res = sopt.minimize(fun, U0.ravel(), jac=True, method="L-BFGS-B",
                        options={"maxiter": maxiter, "maxcor": 10, "gtol": 1e-12, "ftol": 1e-12},
                        callback=cb)
    return best["u"].reshape(s, d), {"nit": res.nit, "best_it": best["it"], "val": best["err"]}


def select_by_dictionary(Xs, U_pool, C, s, width, ridge=1e-8):
    """Pick ``s`` of a pool's frequencies by their share in the compressed dictionary map.

    The pool's features (n, 2 N) compressed to ``width`` columns (:func:`reweight`);
    frequency ``j`` scores ``|Phi_j|^2 |L_j|^2 + |Phi_{j+N}|^2 |L_{j+N}|^2`` (its two
    columns' contribution to the map's training features); the top ``s`` are kept."""
    Phi = cos_sin(Xs, U_pool)
    N = U_pool.shape[0]
    L = reweight(Phi, C, width=width, ridge=ridge)
    score = (Phi * Phi).sum(0) * (L * L).sum(1)
    score = score[:N] + score[N:]
    return np.argsort(score)[::-1][:s]


# ----------------------------------------------------------------------------- cross-fitted objective
def crossfit_value_grad(u, Xf, Cf, Xv, Kv, s):
    """Validation error of the reweighted map as a function of the frequencies.

    ``M = Phi_f^+ K_f Phi_f^+T`` fitted on rows ``Xf`` (``K_f = Cf Cf^T``), error on
    rows ``Xv``: ``E = ||K_v - Phi_v M Phi_v^T||_F^2 / ||K_v||_F^2``.  With
    ``R = K_v - Phi_v M Phi_v^T``, ``Gm = dE/dM = -2 Phi_v^T R Phi_v / ||K_v||^2``,
    ``H = K_f Phi_f^+T Gm``, ``Gi = (Phi_f^T Phi_f)^-1``:

        dE/dPhi_v = -4 R Phi_v M / ||K_v||^2
        dE/dPhi_f = 2 [ -(Phi_f^+ H Phi_f^+)^T + (I - P_f) H Gi ]

    (``d Phi^+ = -Phi^+ dPhi Phi^+ + Gi dPhi^T (I - P)`` for full column rank).
    """
    d = Xf.shape[1]
    U = u.reshape(s, d)
    Pf, Pv = Xf @ U.T, Xv @ U.T
    cf, sf, cv, sv = np.cos(Pf), np.sin(Pf), np.cos(Pv), np.sin(Pv)
    Phf, Phv = np.hstack([cf, sf]), np.hstack([cv, sv])
    Q, Rq = np.linalg.qr(Phf)
    Rinv = sla.solve_triangular(Rq, np.eye(Rq.shape[0]), lower=False)
    pinv = Rinv @ Q.T                                  # Phi_f^+ (m, n_f)
    B = Cf.T @ pinv.T                                  # Cf^T Phi_f^+T (r, m)
    M = B.T @ B
    A = Phv @ M                                        # (n_v, m)
    nK2 = float(np.sum(Kv * Kv))
    R = Kv - A @ Phv.T
    E = float(np.sum(R * R)) / nK2
    GPv = (-4.0 / nK2) * (R @ A)
    Gm = (-2.0 / nK2) * (Phv.T @ (R @ Phv))
    H = Cf @ (B @ Gm)                                  # K_f Phi_f^+T Gm (n_f, m)
    Gi = Rinv @ Rinv.T
    HP = H - Q @ (Q.T @ H)                             # (I - P_f) H
    GPf = 2.0 * (-(pinv @ H @ pinv).T + HP @ Gi)
    dPf = -GPf[:, :s] * sf + GPf[:, s:] * cf
    dPv = -GPv[:, :s] * sv + GPv[:, s:] * cv
    return E, (dPf.T @ Xf + dPv.T @ Xv).ravel()


def fit_crossfit(Xs, U0, *, maxiter=40, frac=0.5, seed=0, C_of=None, folds=2):
    """L-BFGS-B on the cross-fitted error, averaged over ``folds`` random 2-way splits."""
    s, d = U0.shape
    rng = np.random.default_rng(seed)
    C_of = C_of or exact_factor
    parts = []
    for _ in range(folds):
        perm = rng.permutation(Xs.shape[0])
        nf = int(frac * Xs.shape[0])
        Xf, Xv = Xs[perm[:nf]], Xs[perm[nf:]]
        parts.append((Xf, C_of(Xf), Xv, gauss(Xv, Xv)))
        parts.append((Xv, C_of(Xv), Xf, gauss(Xf, Xf)))

    def fun(u):
        f, g = 0.0, 0.0
        for Xf, Cf, Xv, Kv in parts:
            fi, gi = crossfit_value_grad(u, Xf, Cf, Xv, Kv, s)
            f, g = f + fi, g + gi
        return f / f0, g / f0

    f0 = 1.0
    f0 = fun(U0.ravel())[0]
    res = sopt.minimize(fun, U0.ravel(), jac=True, method="L-BFGS-B",
                        options={"maxiter": maxiter, "maxcor": 10, "gtol": 1e-12, "ftol": 1e-12})
    return res.x.reshape(s, d), {"nit": res.nit, "fun": res.fun * f0, "f0": f0}


RIDGES = (1e-8, 1e-6, 1e-4, 1e-3, 1e-2, 3e-2, 1e-1)


def fit_reweighted_cv(Xs, U, C_of=None, *, ridges=RIDGES, frac=0.75, seed=0, C=None):
    """:func:`fit_reweighted` with the ridge picked on a validation split.

    ``L`` is fitted on a random ``frac`` of the rows for each ridge, its Gram error
    measured on the others; the best ridge is refitted on all rows (``C`` their
    factor).  Guards the near-interpolation regime (2 s close to the row count),
    where the unregularised reweighting amplifies (double descent)."""
    return _validated(Xs, U, lambda Phi, C, r: reweight(Phi, C, ridge=r), ridges, C_of,
                      frac=frac, seed=seed, C=C)


def _validated(Xs, U, fit, grid, C_of=None, *, frac=0.75, seed=0, C=None):
    """``(fit(Phi, C, best), best)``: the ``L = fit(Phi, C, value)`` of each ``value`` in
    ``grid`` fitted on a random ``frac`` of the rows ``Xs``, its Gram error measured on
    the others; the best value refitted on all rows (``C`` their factor)."""
    C_of = C_of or exact_factor
    rng = np.random.default_rng(seed)
    perm = rng.permutation(Xs.shape[0])
    nf = int(frac * Xs.shape[0])
    Xf, Xv = Xs[perm[:nf]], Xs[perm[nf:]]
    Cf, Kv = C_of(Xf), gauss(Xv, Xv)
    Phi = cos_sin(Xf, U)
    errs = [heldout_error(Xv, Kv, U, fit(Phi, Cf, value)) for value in grid]
    best = grid[int(np.argmin(errs))]
    C = C_of(Xs) if C is None else C
    return fit(cos_sin(Xs, U), C, best), best


def reweight_prior(Phi, C, M0, rho, width=None):
    """``L`` (m, k) with ``L L^T`` the PSD part of the minimiser of
    ``||K - Phi M Phi^T||_F^2 + lam ||M - M0||_F^2`` (``lam = rho mean(g)^2``, ``g`` the
    eigenvalues of ``G = Phi^T Phi = V diag(g) V^T``): in ``V``'s coordinates the
    normal equations ``G M G + lam M = Phi^T K Phi + lam M0`` are diagonal,

        (V^T M V)_ij = ((V^T Phi^T C)(V^T Phi^T C)^T + lam V^T M0 V)_ij / (g_i g_j + lam).

    ``rho -> 0``: the projection ``Phi^+ K Phi^+T``; ``rho -> inf``: ``M0`` (the plain
    map's weights).  Shrinking towards ``M0`` rather than 0 keeps the map unbiased
    where the training rows do not determine ``M``."""
    m = Phi.shape[1]
    width = m if width is None else min(width, m)
    g, V = np.linalg.eigh(Phi.T @ Phi)
    g = np.maximum(g, 0.0)
    lam = rho * g.mean() ** 2
    A = V.T @ (Phi.T @ C)
    Mt = (A @ A.T + lam * (V.T @ M0 @ V)) / (np.outer(g, g) + lam)
    M = V @ ((Mt + Mt.T) / 2) @ V.T
    t, Y = np.linalg.eigh(M)
    t, Y = np.maximum(t[::-1][:width], 0.0), Y[:, ::-1][:, :width]
    return Y * np.sqrt(t)


RHOS = (1e-10, 1e-8, 1e-6, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 1e2)


def fit_reweighted_prior_cv(Xs, U, xi, C_of=None, *, rhos=RHOS, frac=0.75, seed=0, C=None):
    """:func:`reweight_prior` towards ``M0 = diag(xi, xi)``, ``rho`` picked on a split."""
    M0 = np.diag(np.concatenate([xi, xi]))
    return _validated(Xs, U, lambda Phi, C, rho: reweight_prior(Phi, C, M0, rho), rhos, C_of,
                      frac=frac, seed=seed, C=C)
