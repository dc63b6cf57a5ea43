"""Exact kernels: against scikit-learn, closed forms and finite-difference Hessians."""
import numpy as np
import pytest
from sklearn.gaussian_process.kernels import Matern as SkMatern
from sklearn.metrics.pairwise import laplacian_kernel, rbf_kernel

from qmc_orff import ORFF, FourierFeatures, OperatorNystroem
from qmc_orff.kernels import (OPERATOR_KERNELS, SCALAR_KERNELS, CurlFree, Decomposable, DivFree,
                              Gaussian, Laplacian, Matern, SkewedChi2, SumKernel, check_psd_matrix,
                              operator_kernel, scalar_kernel)


@pytest.fixture
def XZ():
    rng = np.random.default_rng(5)
    return rng.normal(size=(7, 3)), rng.normal(size=(5, 3))


# --------------------------------------------------------------------------- scalar
def test_gaussian_matches_sklearn(XZ):
    X, Z = XZ
    np.testing.assert_allclose(Gaussian(0.7)(X, Z), rbf_kernel(X, Z, gamma=1 / (2 * 0.49)),
                               rtol=1e-14, atol=1e-300)


def test_gaussian_per_coordinate_sigma(XZ):
    X, Z = XZ
    sig = np.array([0.5, 1.0, 2.0])
    D = (X[:, None, :] - Z[None]) / sig
    np.testing.assert_allclose(Gaussian(sig)(X, Z), np.exp(-0.5 * np.sum(D**2, -1)), rtol=1e-14)


def test_gaussian_nearby_points_no_cancellation():
    # |x|^2 + |z|^2 - 2 x.z would lose every digit of this tiny distance
    X = np.array([[1e4, 1e4]])
    Z = X + np.array([[1e-6, 0.0]])
    np.testing.assert_allclose(Gaussian(1e-6)(X, Z), np.exp(-0.5), rtol=1e-9)


def test_laplacian_matches_sklearn(XZ):
    X, Z = XZ
    np.testing.assert_allclose(Laplacian(0.7)(X, Z), laplacian_kernel(X, Z, gamma=1 / 0.7),
                               rtol=1e-14)


@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5, 0.7, 3.3])
def test_matern_matches_sklearn(XZ, nu):
    X, Z = XZ
    np.testing.assert_allclose(Matern(nu, 0.8)(X, Z), SkMatern(length_scale=0.8, nu=nu)(X, Z),
                               rtol=1e-12)
    # k(x, x) = 1 exactly, also through the Bessel branch
    np.testing.assert_allclose(np.diag(Matern(nu, 0.8)(X)), 1.0, rtol=0, atol=0)


def test_skewed_chi2_closed_form(XZ):
    X, Z = np.abs(XZ[0]), np.abs(XZ[1])
    c = 0.5
    ref = np.prod(2 * np.sqrt((X[:, None] + c) * (Z[None] + c)) / (X[:, None] + Z[None] + 2 * c), -1)
    np.testing.assert_allclose(SkewedChi2(c)(X, Z), ref, rtol=1e-14)
    # sigma generalises the exponent on the log scale: sech(log ratio / (2 sigma))
    u = np.log(X[:, None] + c) - np.log(Z[None] + c)
    np.testing.assert_allclose(SkewedChi2(c, sigma=2.0)(X, Z),
                               np.prod(1 / np.cosh(u / 4.0), -1), rtol=1e-13)


def test_signatures_match_gram(XZ):
    X, Z = np.abs(XZ[0]), np.abs(XZ[1])
    for k in (Gaussian([0.5, 1.0, 2.0]), Laplacian(0.7), Matern(0.7, 0.8)):
        np.testing.assert_allclose(k.k0(X[:, None] - Z[None]), k(X, Z), rtol=1e-13)
    k = SkewedChi2(0.5, sigma=1.5)
    delta = np.log(X[:, None] + 0.5) - np.log(Z[None] + 0.5)
    np.testing.assert_allclose(k.k0(delta), k(X, Z), rtol=1e-13)


def test_skewed_chi2_far_apart_is_finite():
    K = SkewedChi2(1.0)(np.array([[0.0]]), np.array([[1e300]]))
    assert np.isfinite(K).all() and K[0, 0] < 1e-140


def test_symmetric_default_z(XZ):
    X, _ = XZ
    for k in (Gaussian(1.0), Laplacian(1.0), Matern(1.5, 1.0)):
        K = k(X)
        np.testing.assert_array_equal(K, K.T)
        np.testing.assert_allclose(np.diag(K), 1.0)


# --------------------------------------------------------------------------- operator-valued
def _fd_hessian(f, delta, h=1e-4):
    d = delta.shape[0]
    H = np.empty((d, d))
    E = np.eye(d) * h
    for a in range(d):
        for b in range(d):
            H[a, b] = (f(delta + E[a] + E[b]) - f(delta + E[a] - E[b])
                       - f(delta - E[a] + E[b]) + f(delta - E[a] - E[b])) / (4 * h * h)
    return H


@pytest.mark.parametrize("d", [2, 3])
def test_curl_and_div_free_are_hessians(d):
    sigma = 0.9
    k0 = Gaussian(sigma).k0
    rng = np.random.default_rng(d)
    for delta in rng.normal(size=(4, d)):
        H = _fd_hessian(k0, delta)
        np.testing.assert_allclose(CurlFree(sigma).signature(delta), -H, atol=2e-7)
        np.testing.assert_allclose(DivFree(sigma).signature(delta), H - np.trace(H) * np.eye(d),
                                   atol=2e-7)


def test_operator_kernel_shapes_and_block_layout(XZ):
    X, Z = XZ
    K = CurlFree(0.8)(X, Z)
    assert K.shape == (7, 5, 3, 3)
    B = CurlFree(0.8).block(X, Z)
    assert B.shape == (21, 15)
    for i, j, a, b in [(0, 0, 0, 0), (3, 4, 1, 2), (6, 2, 2, 0)]:
        assert B[i * 3 + a, j * 3 + b] == K[i, j, a, b]
    np.testing.assert_allclose(K, CurlFree(0.8).signature(X[:, None] - Z[None]), rtol=0, atol=0)


def test_decomposable_is_scalar_times_A(XZ):
    X, Z = XZ
    A = np.array([[2.0, 1.0], [1.0, 1.0]])
    K = Decomposable(Laplacian(0.5), A)(X, Z)
    np.testing.assert_allclose(K, Laplacian(0.5)(X, Z)[:, :, None, None] * A, rtol=1e-15)
    assert Decomposable(Gaussian(1.0), A).output_dim(3) == 2


def test_sum_kernel(XZ):
    X, Z = XZ
    K = CurlFree(0.8) + DivFree(1.2) + CurlFree(2.0)
    assert isinstance(K, SumKernel) and len(K.kernels) == 3
    np.testing.assert_allclose(K(X, Z), CurlFree(0.8)(X, Z) + DivFree(1.2)(X, Z) + CurlFree(2.0)(X, Z),
                               rtol=1e-14)
    np.testing.assert_allclose(K.signature(X[0] - Z[0]), K(X[:1], Z[:1])[0, 0], rtol=1e-14)


@pytest.mark.parametrize("kernel", [CurlFree(0.7), DivFree(0.7),
                                    Decomposable(Gaussian(0.7), np.array([[1.0, 0.5, 0], [0.5, 1, 0],
                                                                          [0, 0, 0.0]])),
                                    CurlFree(0.5) + DivFree(1.0)])
def test_block_gram_is_psd(kernel):
    X = np.random.default_rng(1).uniform(-1, 1, size=(30, 3))
    G = kernel.block(X)
    np.testing.assert_allclose(G, G.T, atol=1e-14)
    lam = np.linalg.eigvalsh(G)
    assert lam[0] > -1e-10 * lam[-1]


def test_curl_div_at_zero():
    d, sigma = 3, 0.5
    np.testing.assert_allclose(CurlFree(sigma).signature(np.zeros(d)), np.eye(d) / sigma**2)
    np.testing.assert_allclose(DivFree(sigma).signature(np.zeros(d)), (d - 1) * np.eye(d) / sigma**2)


# --------------------------------------------------------------------------- errors
def test_errors():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="'sigma' must be positive"):
        Gaussian(-1.0)
    with pytest.raises(ValueError, match="'Z' must have 2 columns"):
        Gaussian(1.0)(X, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="'X' must contain only finite"):
        Gaussian(1.0)(np.array([[np.nan, 0.0]]))
    with pytest.raises(ValueError, match="'X' must be a 2-D array"):
        Gaussian(1.0)(np.zeros(3))
    with pytest.raises(ValueError, match="'sigma' must be a scalar or have length d=2"):
        Gaussian([1.0, 2.0, 3.0])(X)
    with pytest.raises(ValueError, match="'X' must have d >= 2 columns"):
        DivFree(1.0)(np.zeros((2, 1)))
    with pytest.raises(ValueError, match="'X' must satisfy X \\+ c > 0"):
        SkewedChi2(0.5)(np.array([[-1.0]]), np.array([[1.0]]))
    with pytest.raises(ValueError, match="'nu' must be positive"):
        Matern(0.0)
    with pytest.raises(ValueError, match="'sigma' must be a positive scalar"):
        CurlFree([1.0, 2.0])
    with pytest.raises(TypeError, match="'scalar_kernel' must be"):
        Decomposable("gaussian", np.eye(2))
    with pytest.raises(ValueError, match="'kernels' must share one output dimension"):
        (Decomposable(Gaussian(1.0), np.eye(3)) + CurlFree(1.0))(X)


def test_psd_matrix_checks():
    with pytest.raises(ValueError, match="'A' must be positive semi-definite; got smallest eigenvalue"):
        check_psd_matrix(np.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="'A' must be symmetric"):
        check_psd_matrix(np.array([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="'A' must be a square"):
        check_psd_matrix(np.ones((2, 3)))
    with pytest.raises(ValueError, match="nonzero"):
        check_psd_matrix(np.zeros((2, 2)))
    # PSD with a zero eigenvalue is fine; tiny asymmetry is symmetrised
    A = check_psd_matrix(np.array([[1.0, 1.0], [1.0 + 1e-15, 1.0]]))
    np.testing.assert_array_equal(A, A.T)


# --------------------------------------------------------------------------- the tables by name
def test_tables_name_every_class():
    assert list(SCALAR_KERNELS) == ["gaussian", "laplacian", "matern", "skewed_chi2"]
    assert list(OPERATOR_KERNELS) == ["decomposable", "curl_free", "div_free"]
    for table in (SCALAR_KERNELS, OPERATOR_KERNELS):
        for name, cls in table.items():
            assert cls.name == name


def test_scalar_kernel_by_name(XZ):
    X, Z = XZ
    params = dict(nu=2.5, c=4.0)  # each kernel takes its own and ignores the others
    cases = [("gaussian", Gaussian([0.5, 1.0, 2.0])), ("laplacian", Laplacian([0.5, 1.0, 2.0])),
             ("matern", Matern(2.5, [0.5, 1.0, 2.0]))]
    for name, ref in cases:
        k = scalar_kernel(name, [0.5, 1.0, 2.0], **params)
        assert type(k) is type(ref) and repr(k) == repr(ref)
        np.testing.assert_array_equal(k(X, Z), ref(X, Z))
    k = scalar_kernel("skewed_chi2", 0.7, **params)
    assert (k.c, float(k.sigma)) == (4.0, 0.7)
    np.testing.assert_array_equal(k(X + 5.0, Z + 5.0), SkewedChi2(4.0, 0.7)(X + 5.0, Z + 5.0))
    assert scalar_kernel("matern", 1.0).nu == 1.5  # the class's default where none is given


def test_operator_kernel_by_name(XZ):
    X, Z = XZ
    A = np.array([[2.0, 1.0], [1.0, 3.0]])
    K, sigma = operator_kernel("decomposable", [0.5, 1.0, 2.0], 3, A)
    np.testing.assert_array_equal(K(X, Z), Decomposable(Gaussian([0.5, 1.0, 2.0]), A)(X, Z))
    np.testing.assert_array_equal(sigma, [0.5, 1.0, 2.0])  # per coordinate: kept
    K, sigma = operator_kernel("decomposable", np.float32(1.5), 3)
    np.testing.assert_array_equal(K.A, np.eye(3))  # A=None: the identity of size d
    assert type(sigma) is float and sigma == 1.5
    for name, cls in [("curl_free", CurlFree), ("div_free", DivFree)]:
        K, sigma = operator_kernel(name, np.array(0.8), 3)
        assert type(K) is cls and type(sigma) is float and sigma == 0.8
        np.testing.assert_array_equal(K(X, Z), cls(0.8)(X, Z))


def test_operator_kernel_rules():
    with pytest.raises(ValueError, match="'X' must have d >= 2 columns for kernel='div_free'; "
                                         "got d=1"):
        operator_kernel("div_free", 1.0, 1)
    with pytest.raises(ValueError, match="'X' must have d >= 2 columns for kernel='div_free'"):
        DivFree(1.0)(np.zeros((2, 1)))
    operator_kernel("curl_free", 1.0, 1)  # d = 1 is a curl-free kernel
    for name in ("curl_free", "div_free"):
        with pytest.raises(ValueError, match="'sigma' must be a real number"):
            operator_kernel(name, [1.0, 2.0], 2)
        with pytest.raises(ValueError, match="'sigma' must be positive; got -1.0"):
            operator_kernel(name, -1.0, 2)
    with pytest.raises(ValueError, match="'sigma' must be positive; got 0.0"):
        operator_kernel("decomposable", 0.0, 2)
    with pytest.raises(ValueError, match="'sigma' must be positive; got -2.0"):
        operator_kernel("decomposable", [1.0, -2.0], 2)
    with pytest.raises(ValueError, match="'A' must be positive semi-definite"):
        operator_kernel("decomposable", 1.0, 2, [[1.0, 2.0], [2.0, 1.0]])


def test_estimators_build_their_kernel_from_the_tables():
    X = np.random.default_rng(9).uniform(0.1, 1.0, size=(20, 2))
    for name, cls in SCALAR_KERNELS.items():
        fitted = FourierFeatures(kernel=name, sigma=0.9, n_components=4, seed=0).fit(X)
        assert type(fitted.kernel_) is cls and fitted.kernel_.name == name
    for name, cls in OPERATOR_KERNELS.items():
        for est in (ORFF(name, sigma=0.9, n_components=4, seed=0),
                    OperatorNystroem(name, sigma=0.9, n_components=4, seed=0)):
            assert type(est.fit(X).kernel_) is cls

