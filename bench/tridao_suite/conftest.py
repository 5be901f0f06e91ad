"""Runs Tri Dao's causal-conv1d test suite against baracuda's plans: copied
beside his tests/test_causal_conv1d.py at run time (run.sh), it puts the
adapters of baracuda_conv1d.py in place of his causal_conv1d_fn and
causal_conv1d_update before the test module imports them. His reference
functions (causal_conv1d_ref, causal_conv1d_update_ref) stay his."""
import os
import sys

import pytest

sys.path.insert(0, os.environ["BARACUDA_TRIDAO_ADAPTER"])  # this folder, in the repository

import baracuda_conv1d  # noqa: E402
import causal_conv1d.causal_conv1d_interface as tridao  # noqa: E402

tridao.causal_conv1d_fn = baracuda_conv1d.causal_conv1d_fn
tridao.causal_conv1d_update = baracuda_conv1d.causal_conv1d_update

# Tests of Tri Dao's kernels rather than of the function's results: they switch his
# deterministic mode through his own environment variable, which our plans have
# no use for (they are always deterministic).
_HIS_MODE_TESTS = ("deterministic", "default_mode")


def pytest_collection_modifyitems(config, items):
    skip = pytest.mark.skip(reason="switches Tri Dao's deterministic mode (CAUSAL_CONV1D_DETERMINISTIC); "
                            "baracuda's plans are always deterministic")
    for item in items:
        if any(name in item.name for name in _HIS_MODE_TESTS):
            item.add_marker(skip)
