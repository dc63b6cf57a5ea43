"""The old module paths of moved code still import every name they had (issue 19)."""
import importlib
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

SHIMS = ["qmc_orff.features", "qmc_orff.frequencies", "qmc_orff._features_kernels"]


def _get(module, name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = getattr(module, name)
    return value, [w for w in caught if issubclass(w.category, DeprecationWarning)]


@pytest.mark.parametrize("old", SHIMS)
def test_old_path_forwards_every_name(old):
    module = importlib.import_module(old)
    assert module._MOVES
    for name, target in module._MOVES.items():
        home, _, new = target.partition(":")
        value, warned = _get(module, name)
        assert value is getattr(importlib.import_module(home), new or name), name
        public = not name.startswith("_") and old != "qmc_orff._features_kernels"
        assert len(warned) == public, name
        if public:
            # the message names a module that gives the same object: the public package
            # where it exports the name, else the defining module
            message = str(warned[0].message)
            assert f"import {new or name} from " in message, message
            named = importlib.import_module(message.rsplit(" from ", 1)[1])
            assert getattr(named, new or name) is value, message
            assert warned[0].filename == __file__  # points at the caller, not at the shim


def test_old_names_that_moved_or_were_renamed():
    import qmc_orff.features as features
    import qmc_orff.frequencies as frequencies
    from qmc_orff.maps.frequencies import source_points

    assert _get(frequencies, "unit_points")[0] is source_points
    for name in ("FourierFeatures", "ORFF", "householder_complement", "CHECK_SAMPLES",
                 "_select_default", "_orff_fit_rows", "_FeatureOperator", "_adaptive_frequencies"):
        assert _get(features, name)[0] is not None
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        features.nothing


def test_sequence_keeps_its_names():
    import qmc_orff.sequence as sequence

    for name in ("Sequence", "load_sequence", "read_lattice", "atomic_write", "FORMAT_VERSION",
                 "MAX_HEADER_BYTES", "MAX_LATTICE_BYTES", "_digest", "_host_tag", "_fsync_dir",
                 "_normalise_meta", "_FORMAT_NAME"):
        assert hasattr(sequence, name), name


def test_pickle_of_a_map_from_the_old_path(tmp_path):
    # an estimator pickled under the old class path (qmc_orff.features.FourierFeatures)
    # still loads, through the shim
    from qmc_orff import FourierFeatures

    ff = FourierFeatures(n_components=4, sequence="halton").fit(np.zeros((3, 2)))
    data = pickle.dumps(ff, protocol=0)  # text opcodes: the class path can be rewritten
    data = data.replace(b"qmc_orff.maps.fourier_features", b"qmc_orff.features")
    assert b"qmc_orff.features\nFourierFeatures" in data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        back = pickle.loads(data)
    np.testing.assert_array_equal(back.frequencies_, ff.frequencies_)


def test_library_imports_warn_nothing():
    # the library's own imports never go through an old path: a fresh import of every
    # public name (and a fit) raises no DeprecationWarning
    code = ("import warnings; warnings.simplefilter('error', DeprecationWarning)\n"
            "import numpy as np, qmc_orff\n"
            "for name in qmc_orff.__all__: getattr(qmc_orff, name)\n"
            "qmc_orff.FourierFeatures(n_components=4).fit(np.zeros((3, 2)))\n")
    subprocess.run([sys.executable, "-c", code], check=True)
