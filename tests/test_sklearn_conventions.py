"""scikit-learn's conventions for the estimators (issue 22, item 3)."""
import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from qmc_orff import ORFF, FourierFeatures, ORFFRidge

X = np.random.default_rng(0).normal(size=(20, 3))
Y = X[:, :2] ** 2


# ------------------------------------------------------------------ parameter validation
@pytest.mark.parametrize("make", [
    lambda **kw: FourierFeatures(**kw).fit(X),
    lambda **kw: ORFF(**kw).fit(X),
    lambda **kw: ORFFRidge(ORFF(**kw)).fit(X, Y),
])
def test_wrong_type_is_scikit_learns_invalid_parameter_error(make):
    with pytest.raises(InvalidParameterError, match="The 'n_components' parameter of "
                                                    "(FourierFeatures|ORFF) must be"):
        make(n_components="a")
    # a ValueError and a TypeError, as scikit-learn's own
    with pytest.raises(ValueError, match="'sequence' parameter"):
        make(sequence="sobolev")
    with pytest.raises(TypeError, match="'check' parameter"):
        make(check=1)


@pytest.mark.parametrize("params, match", [
    ({"alpha": "big"}, "The 'alpha' parameter of ORFFRidge must be"),
    ({"solver": "lsqr"}, "The 'solver' parameter of ORFFRidge must be a str among"),
    ({"orff": FourierFeatures()}, "The 'orff' parameter of ORFFRidge must be"),
    ({"max_iter": 1.5}, "The 'max_iter' parameter of ORFFRidge must be"),
])
def test_ridge_parameters_are_validated(params, match):
    with pytest.raises(InvalidParameterError, match=match):
        ORFFRidge(**params).fit(X, Y)


@pytest.mark.parametrize("est, params, match", [
    (FourierFeatures, {"n_components": 0}, "'n_components' must be >= 1; got 0."),
    (FourierFeatures, {"sigma": -1.0}, "'sigma' must be positive"),
    (ORFF, {"sigma": -1.0}, "'sigma' must be positive; got -1.0."),
])
def test_limits_keep_the_librarys_messages(est, params, match):
    with pytest.raises(ValueError, match=match):
        est(**params).fit(X)
