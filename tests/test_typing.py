"""Type hints on the public API (issue 12 item 12): py.typed promises them."""
import inspect
import typing

import pytest

import qmc_orff

# the public functions of this release (new public functions should be added here, hinted)
FUNCTIONS = ["cbc_lattice", "worst_case_error", "get_density", "box_from_data", "load_sequence",
             "optimal_weights", "global_sequence", "greedy_sequence", "weighted_sequence",
             "lattice_sequence", "list_catalogue", "load_catalogue", "build_catalogue",
             "make_frequencies", "gram_error", "adaptive_sequence", "adaptive_operator_sequence"]
METHODS = [("FourierFeatures", "fit"), ("FourierFeatures", "transform"), ("ORFF", "fit"),
           ("ORFF", "transform"), ("ORFF", "get_feature_names_out"),
           ("ORFF", "approximate_kernel"), ("ORFF", "operator")]


def _check(func):
    sig = inspect.signature(func)
    missing = [p.name for p in sig.parameters.values()
               if p.name != "self" and p.annotation is inspect.Parameter.empty]
    assert not missing, f"{func.__qualname__}: no type hint for {missing}"
    assert sig.return_annotation is not inspect.Signature.empty, \
        f"{func.__qualname__}: no return type hint"


def test_public_functions_are_listed():
    for name in FUNCTIONS:
        assert name in qmc_orff._LAZY and inspect.isfunction(getattr(qmc_orff, name)), name


@pytest.mark.parametrize("name", FUNCTIONS)
def test_public_function_hints(name):
    _check(getattr(qmc_orff, name))


@pytest.mark.parametrize("cls, method", METHODS)
def test_transformer_method_hints(cls, method):
    _check(getattr(getattr(qmc_orff, cls), method))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_hints_resolve(name):
    """The hints name real types (those imported under TYPE_CHECKING included)."""
    func = getattr(qmc_orff, name)
    module = inspect.getmodule(func)
    ns = dict(vars(module))
    import concurrent.futures
    import os

    import numpy as np
    from numpy.typing import ArrayLike

    from qmc_orff.objectives.box import BoxDiscrepancy
    from qmc_orff.sequence import Sequence
    ns.update({"ArrayLike": ArrayLike, "np": np, "os": os, "Any": typing.Any,
               "Callable": typing.Callable, "Iterable": typing.Iterable,
               "Executor": concurrent.futures.Executor, "BoxDiscrepancy": BoxDiscrepancy,
               "Sequence": Sequence})
    typing.get_type_hints(func, globalns=ns)
