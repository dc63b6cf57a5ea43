"""The old module paths of issue 19's layout: shims that forward to the new homes."""
import importlib
import warnings

import numpy as np
import pytest

import qmc_orff
from qmc_orff.objectives.protocol import Objective

# old path -> (public name, its new home, the name there)
PUBLIC = [
    ("qmc_orff.design", "global_sequence", "qmc_orff.designs.global_design", "global_sequence"),
    ("qmc_orff.design", "greedy_sequence", "qmc_orff.designs.greedy", "greedy_sequence"),
    ("qmc_orff.design", "weighted_sequence", "qmc_orff.designs.weighted", "weighted_sequence"),
    ("qmc_orff.design", "lattice_sequence", "qmc_orff.designs.lattice", "lattice_sequence"),
    ("qmc_orff.design", "unit_points", "qmc_orff.designs.start_points", "initial_points"),
    ("qmc_orff.design", "to_frequencies", "qmc_orff.designs.start_points", "to_frequencies"),
    ("qmc_orff.adaptive", "adaptive_sequence", "qmc_orff.designs.adaptive", "adaptive_sequence"),
    ("qmc_orff.adaptive", "median_heuristic", "qmc_orff.designs.adaptive", "median_heuristic"),
    ("qmc_orff.adaptive", "data_sha256", "qmc_orff.objectives.data", "data_sha256"),
    ("qmc_orff.discrepancy", "BoxDiscrepancy", "qmc_orff.objectives.box", "BoxDiscrepancy"),
    ("qmc_orff.discrepancy", "box_from_data", "qmc_orff.objectives.box", "box_from_data"),
    ("qmc_orff.data_discrepancy", "DataDiscrepancy", "qmc_orff.objectives.data",
     "DataDiscrepancy"),
    ("qmc_orff.data_discrepancy", "OperatorDataDiscrepancy", "qmc_orff.objectives.operator_data",
     "OperatorDataDiscrepancy"),
    ("qmc_orff.weights", "optimal_weights", "qmc_orff.objectives.weights", "optimal_weights"),
    ("qmc_orff.weights", "solve_weights_qp", "qmc_orff.objectives.weights", "solve_weights_qp"),
]
PRIVATE = [
    ("qmc_orff.design", "_Progress", "qmc_orff.designs._optimizer", "_Progress"),
    ("qmc_orff.design", "_is_interrupt", "qmc_orff.designs._optimizer", "_is_interrupt"),
    ("qmc_orff.design", "_EPS_UNIT", "qmc_orff.designs.start_points", "_EPS_UNIT"),
    ("qmc_orff.design", "_scaled", "qmc_orff.designs._optimizer", "_scaled"),
    ("qmc_orff.design", "_GreedyState", "qmc_orff.objectives._box_greedy", "BoxGreedyState"),
    ("qmc_orff.weights", "_kkt", "qmc_orff.objectives.weights", "_kkt"),
    ("qmc_orff._discrepancy_kernels", "TAU", "qmc_orff.objectives._box_kernels", "TAU"),
    ("qmc_orff._design_kernels", "greedy_candidate", "qmc_orff.objectives._greedy_kernels",
     "greedy_candidate"),
    ("qmc_orff._design_kernels", "dcsrch_iterate", "qmc_orff.designs._line_search_kernels",
     "dcsrch_iterate"),
    ("qmc_orff._cg", "minimize_cg", "qmc_orff.designs._cg", "minimize_cg"),
    ("qmc_orff._density_kernels", "gauss_nodes", "qmc_orff.densities._kernels", "gauss_nodes"),
]


@pytest.mark.parametrize("old, name, home, new_name", PUBLIC)
def test_public_names_forward_with_a_deprecation(old, name, home, new_name):
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated; import {new_name} from"):
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(home), new_name)


@pytest.mark.parametrize("old, name, home, new_name", PRIVATE)
def test_private_names_forward_silently(old, name, home, new_name):
    module = importlib.import_module(old)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(home), new_name)


def test_unknown_names_raise_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        importlib.import_module("qmc_orff.design").nothing


def test_public_api_from_the_new_homes():
    assert qmc_orff.BoxDiscrepancy is importlib.import_module("qmc_orff.objectives").BoxDiscrepancy
    assert qmc_orff.global_sequence is importlib.import_module("qmc_orff.designs").global_sequence
    assert qmc_orff.GaussianDensity is importlib.import_module("qmc_orff.densities").GaussianDensity


def test_objectives_implement_the_protocol():
    X = np.random.default_rng(0).normal(size=(10, 2))
    for obj in (qmc_orff.BoxDiscrepancy(2.0, d=2), qmc_orff.DataDiscrepancy(X)):
        assert isinstance(obj, Objective)
        unit = obj.unit_bandwidth(2)
        assert isinstance(unit.objective, Objective) and unit.sigma.shape == (2,)
