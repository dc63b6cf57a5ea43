"""The p-free curl- and div-free data objective against the direct block form.

:func:`ref_direct` is the former implementation of
:class:`~qmc_orff.OperatorDataDiscrepancy` (kept here, plain numpy, never imported by
the package): for each of the ``p (p + 1) / 2`` entries ``(a, b)`` of the ``p x p``
blocks, the ``(m, m)`` error ``E^ab`` and its gradients, cost ``O(p^2 m^2 s)``.  It
forms the error before squaring it, so it does not cancel; with ``dtype=np.longdouble``
it is the reference of the cancellation test.
"""
from __future__ import annotations

import numpy as np
import pytest

from qmc_orff import OperatorDataDiscrepancy
from _finite_differences import central

EPS = np.finfo(np.float64).eps


def ref_A_tilde(kernel, measure, W, sigma):
    """``A~(w_l)`` (s, p, p) and ``dA~(w_l) / dw_lk`` (s, p, p, d), from the formulas."""
    s, d = W.shape
    eye = np.eye(d, dtype=W.dtype)
    if measure == "spectral":
        V = W
    else:
        norm = np.sqrt(np.sum(W * W, axis=1))
        V = W / norm[:, None]
    outer = V[:, :, None] * V[:, None, :]
    dvv = eye[None, :, None, :] * V[:, None, :, None] + V[:, :, None, None] * eye[None, None]
    if kernel == "curl_free":
        base, dbase = outer, dvv
    else:
        sq = np.sum(V * V, axis=1)
        base = sq[:, None, None] * eye[None] - outer
        dbase = 2.0 * V[:, None, None, :] * eye[None, :, :, None] - dvv
    if measure == "spectral":
        return base, dbase
    c = d / sigma ** 2
    J = (eye[None] - outer) / norm[:, None, None]
    return c * base, c * np.einsum("labq,lqk->labk", dbase, J)


def ref_direct(kernel, measure, X, W, xi, sigma, dtype=np.float64):
    """``(L, dL/dW, dL/dxi, N2)`` by the block entries ``(a, b)`` (the former loop)."""
    X, W, xi = (np.asarray(a, dtype=dtype) for a in (X, W, xi))
    m, d = X.shape
    s = W.shape[0]
    D = (X[:, None, :] - X[None, :, :]) / dtype(sigma)
    sq = np.sum(D * D, axis=-1)
    kk = np.exp(-sq / 2) / dtype(sigma) ** 2
    Z = X @ W.T
    C, S = np.cos(Z), np.sin(Z)
    CS = np.concatenate([C, S], axis=1)
    At, dAt = ref_A_tilde(kernel, measure, W, dtype(sigma))
    m2 = dtype(m) ** 2
    value = norm2 = dtype(0)
    dP, grad_xi, grad_W = np.zeros((m, s), dtype), np.zeros(s, dtype), np.zeros((s, d), dtype)
    for a in range(d):
        for b in range(a, d):
            mult = 1 if a == b else 2
            K = D[:, :, a] * D[:, :, b]
            if kernel == "curl_free":
                K = (a == b) - K
            elif a == b:
                K = K + (d - 1) - sq
            K = K * kk
            norm2 += mult * np.sum(K * K)
            coef = xi * At[:, a, b]
            E = (CS * np.concatenate([coef, coef])) @ CS.T - K
            value += mult * np.sum(E * E)
            EC, ES = E @ C, E @ S
            dP += (4 * mult / m2) * (ES * C - EC * S) * coef
            u = (2 * mult / m2) * (np.sum(C * EC, axis=0) + np.sum(S * ES, axis=0))
            grad_xi += u * At[:, a, b]
            grad_W += (u * xi)[:, None] * dAt[:, a, b, :]
    grad_W += (X.T @ dP).T
    return value / m2, grad_W, grad_xi, norm2 / m2


def _case(d, seed, m=13, s=7, offset=3.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d)) + offset      # off-centre: the objective centres X itself
    W = rng.normal(size=(s, d))
    xi = rng.uniform(0.2, 1.0, size=s) / s
    return X, W, xi


CURL_DIV = [(k, mu) for k in ("curl_free", "div_free") for mu in ("spectral", "trace")]


@pytest.mark.parametrize("kernel, measure", CURL_DIV)
@pytest.mark.parametrize("d", [2, 3, 5])
@pytest.mark.parametrize("normalize", [False, True])
def test_p_free_form_equals_the_direct_block_loop(kernel, measure, d, normalize):
    # random frequencies: relative error e ~ 1, so the expansion N2 - 2 cross + Q loses
    # about log10(N2 / L) < 1 digit; each side is a sum of O(m^2 s p^2) rounded terms
    X, W, xi = _case(d, seed=10 * d + len(kernel) + len(measure))
    obj = OperatorDataDiscrepancy(X, kernel=kernel, sigma=1.3, measure=measure)
    value, gW, gxi, norm2 = ref_direct(kernel, measure, X, W, xi, 1.3)
    scale = 1.0 / norm2 if normalize else 1.0
    assert obj.constant() == pytest.approx(norm2, rel=1e-14)
    tol = 1e-13 * max(1.0, norm2 / value)
    assert obj(W, xi, normalize=normalize) == pytest.approx(value * scale, rel=tol)
    got = obj.value_and_grad(W, xi, normalize=normalize)
    assert got[0] == pytest.approx(value * scale, rel=tol)
    np.testing.assert_allclose(got[1], gW * scale, rtol=0, atol=tol * np.max(np.abs(gW)) * scale)
    np.testing.assert_allclose(got[2], gxi * scale, rtol=0,
                               atol=tol * np.max(np.abs(gxi)) * scale)
    # default weights 1/s
    v_u, gW_u, _, _ = ref_direct(kernel, measure, X, W, np.full(len(W), 1.0 / len(W)), 1.3)
    got_u = obj.value_and_grad(W, normalize=normalize)
    assert len(got_u) == 2
    assert got_u[0] == pytest.approx(v_u * scale, rel=1e-13 * max(1.0, norm2 / v_u))
    np.testing.assert_allclose(got_u[1], gW_u * scale, rtol=0,
                               atol=1e-13 * max(1.0, norm2 / v_u) * np.max(np.abs(gW_u)) * scale)


@pytest.mark.parametrize("kernel, measure", CURL_DIV)
def test_p_free_gradients_match_central_differences(kernel, measure):
    X, W, xi = _case(4, seed=3, m=9, s=5)
    obj = OperatorDataDiscrepancy(X, kernel=kernel, sigma=0.8, measure=measure)
    val, gW, gxi = obj.value_and_grad(W, xi)
    np.testing.assert_allclose(gW, central(lambda V: obj(V, xi), W), rtol=1e-6, atol=1e-9 * val)
    np.testing.assert_allclose(gxi, central(lambda v: obj(W, v), xi), rtol=1e-6, atol=1e-9 * val)


def _matched(kernel, measure, d, spread, seed=0, m=30, sigma=1.0, r=1.3):
    """A small error on purpose: ``s = d`` orthogonal frequencies weighted so that
    ``K~(0) = K(0)``, on data of scaled spread ``spread`` (relative error ~ spread^2)."""
    rng = np.random.default_rng(seed)
    X = spread * sigma * rng.normal(size=(m, d))
    W = r * np.linalg.qr(rng.normal(size=(d, d)))[0]
    xi = np.full(d, 1.0 / (sigma * r) ** 2 if measure == "spectral" else 1.0 / d)
    return X, W, xi


@pytest.mark.parametrize("kernel, measure", CURL_DIV)
@pytest.mark.parametrize("spread", [0.1, 0.01])
def test_cancellation_stays_within_its_bound(kernel, measure, spread):
    # the expansion cancels: the value's relative error is about eps N2 / L = eps / e^2
    # (2 log10(1/e) digits lost) and the gradients' about eps / e; the reference is the
    # non-cancelling direct loop in extended precision
    X, W, xi = _matched(kernel, measure, 3, spread)
    obj = OperatorDataDiscrepancy(X, kernel=kernel, sigma=1.0, measure=measure)
    value, gW, gxi, norm2 = (np.asarray(a, dtype=np.float64) for a in
                             ref_direct(kernel, measure, X, W, xi, 1.0, dtype=np.longdouble))
    e2 = float(value / norm2)
    assert e2 < (1e-2 if spread == 0.1 else 1e-6)        # the regime is reached
    got = obj.value_and_grad(W, xi)
    assert got[0] == pytest.approx(float(value), rel=20 * EPS / e2)
    bound = 20 * EPS / np.sqrt(e2)
    np.testing.assert_allclose(got[1], gW, rtol=0, atol=bound * np.max(np.abs(gW)))
    np.testing.assert_allclose(got[2], gxi, rtol=0, atol=bound * np.max(np.abs(gxi)))


def test_reference_detects_a_wrong_objective():
    # the comparison can fail: a 1e-9 change of one frequency is seen
    X, W, xi = _case(3, seed=4)
    obj = OperatorDataDiscrepancy(X, kernel="div_free", sigma=1.3)
    value, gW, _, norm2 = ref_direct("div_free", "spectral", X, W, xi, 1.3)
    W2 = W.copy()
    W2[0, 0] += 1e-9
    assert obj(W2, xi) != pytest.approx(value, rel=1e-13 * max(1.0, norm2 / value))


def test_too_many_frequencies_refused():
    X, _, _ = _case(2, seed=5, m=4)
    obj = OperatorDataDiscrepancy(X)
    with pytest.raises(ValueError, match="'W' must have at most 4096 rows"):
        obj(np.ones((4097, 2)))


@pytest.mark.parametrize("kernel", ["curl_free", "div_free"])
@pytest.mark.parametrize("measure", ["spectral", "trace"])
def test_public_A_tilde_is_the_formula_and_its_derivative(kernel, measure):
    rng = np.random.default_rng(5)
    X, W, sigma = rng.normal(size=(6, 3)), rng.normal(size=(4, 3)), 0.8
    obj = OperatorDataDiscrepancy(X, kernel=kernel, sigma=sigma, measure=measure)
    At, dAt = obj.A_tilde(W)
    V = W if measure == "spectral" else W / np.linalg.norm(W, axis=1)[:, None]
    c = 1.0 if measure == "spectral" else 3 / sigma ** 2
    for l, v in enumerate(V):
        expected = np.outer(v, v) if kernel == "curl_free" else v @ v * np.eye(3) - np.outer(v, v)
        np.testing.assert_allclose(At[l], c * expected, rtol=1e-14, atol=1e-15)
        for a in range(3):
            for b in range(3):
                fd = central(lambda w: obj.A_tilde(w[None])[0][0, a, b], W[l].copy())
                np.testing.assert_allclose(dAt[l, a, b], fd, rtol=1e-6, atol=1e-8)
    if measure == "trace":
        with pytest.raises(ValueError, match="'W' must not contain a zero frequency"):
            obj.A_tilde(np.zeros((1, 3)))


@pytest.mark.parametrize("kernel, measure", CURL_DIV)
def test_cancelled_expansion_falls_back_to_the_direct_form(kernel, measure, monkeypatch):
    # bandwidth 3e4 x the data's spread: relative Gram error e ~ 1e-9, where the expansion
    # N2 - 2 cross + Q has lost every digit (it returns a negative value); the value then
    # comes from the direct form, a sum of squares: never below 0 and close to the
    # extended-precision reference
    from qmc_orff.objectives import operator_data

    X, W, xi = _matched(kernel, measure, 3, spread=3e-5, sigma=1.0)
    obj = OperatorDataDiscrepancy(X, kernel=kernel, sigma=1.0, measure=measure)
    ref = ref_direct(kernel, measure, X, W, xi, 1.0, dtype=np.longdouble)
    value, norm2 = float(ref[0]), float(ref[3])
    assert value / norm2 < 1e-16                          # the regime: e below 1e-8
    got = obj(W, xi)
    assert got >= 0.0
    assert got == pytest.approx(value, rel=1e-6, abs=0)
    assert obj.value_and_grad(W, xi)[0] == got
    assert obj(W, xi, normalize=True) == pytest.approx(value / norm2, rel=1e-6, abs=0)
    # without the fallback the expansion is wrong there, negative or off by a factor over 2
    # (so this test can fail)
    monkeypatch.setattr(operator_data, "_CANCELLED", -np.inf)
    assert not 0.5 * value <= obj(W, xi) <= 2.0 * value


def test_A_tilde_size_checked_before_allocation():
    # s = 16384, d = 64: dA_tilde would hold s d^3 = 2**32 float64 entries (32 GiB);
    # refused at once, naming 'W'
    X = np.random.default_rng(6).normal(size=(4, 64))
    obj = OperatorDataDiscrepancy(X, kernel="curl_free")
    with pytest.raises(ValueError, match=r"'W' must have at most 1024 rows for A_tilde at d=64"):
        obj.A_tilde(np.ones((16384, 64)))
    assert obj.A_tilde(np.ones((2, 64)))[1].shape == (2, 64, 64, 64)


@pytest.mark.parametrize("kernel", ["decomposable", "curl_free"])
def test_broadcast_view_of_2_40_rows_refused_before_conversion(kernel):
    # a read-only view of 2**40 rows costs nothing; converting or checking it element-wise
    # would allocate 2**40 * 3 entries: the row limit is checked from the shape first
    from qmc_orff import DataDiscrepancy

    X = np.broadcast_to(np.arange(3.0), (2 ** 40, 3))
    with pytest.raises(ValueError, match="'X' must have at most .* rows for a data objective"):
        OperatorDataDiscrepancy(X, kernel=kernel)
    with pytest.raises(ValueError, match="'X' must have at most .* rows for a data objective"):
        DataDiscrepancy(X)
