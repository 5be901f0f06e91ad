"""Arrays of other frameworks go through __cuda_array_interface__, alone or
beside PyTorch tensors, checked with Plan.check (no GPU)."""
import functools
import sys

import pytest

import baracuda
from baracuda import _args, _ops, _plan
from fake_torch import CURRENT_STREAM, Tensor
from fake_torch import torch as fake


class CudaArray:
    """What CuPy or Numba offer: a __cuda_array_interface__ (strides in bytes)."""

    def __init__(self, shape, typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr, "data": (0x7E0000000000, False),
                                         "strides": strides, "version": 3}


@pytest.fixture(autouse=True)
def torch_is_the_fake(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", fake)


def test_interface_arrays_are_checked_like_tensors():
    plan = baracuda.Plan("pad", target_sm=90, dtype="f32", mode="constant", rank=2, input_shape=[4, 100],
                         pad_high=[0, 5])
    plan.check(X=CudaArray([4, 100]), Y=CudaArray([4, 105]))
    plan.check(X=Tensor([4, 100], fake.float32), Y=CudaArray([4, 105]))
    with pytest.raises(baracuda.BaracudaError, match="arg Y shape"):
        plan.check(X=CudaArray([4, 100]), Y=CudaArray([4, 104]))


def test_strides_in_bytes_become_elements_and_the_stream_is_the_torch_one_when_mixed():
    arguments = _args.Arguments("test")
    args, stream, _ = arguments.fill({"X": CudaArray([3, 5], "<f8", strides=(8, 24))}, None)
    assert stream.value is None  # the legacy default stream
    assert list(args[0].tensor.strides)[:2] == [1, 3] and args[0].tensor.dtype == baracuda.DTYPE_F64
    _, stream, _ = arguments.fill({"X": CudaArray([3, 5]), "Y": Tensor([3, 5], fake.float32)}, None)
    assert stream.value == CURRENT_STREAM


def test_an_interface_workspace_is_passed_as_pointer_and_bytes():
    data, size = _plan._workspace(CudaArray([4, 6], "<f2"))
    assert (data.value, size.value) == (0x7E0000000000, 4 * 6 * 2)


def test_a_helper_allocates_only_kinds_it_knows(monkeypatch):
    monkeypatch.setattr(_ops, "Plan", functools.partial(_plan.Plan, target_sm=90))
    with pytest.raises(TypeError, match="cannot allocate a CudaArray; pass out="):
        baracuda.pad(CudaArray([4, 100]), (0, 5))
