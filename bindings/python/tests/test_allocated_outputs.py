"""The helpers write only the data pointer of an output they allocated once its
slot holds that output's layout: every call must still pass exactly the
tensors it was given or made, whether out= came between, the input changed
dtype, or the input lies on the host (stand-in torch, no GPU)."""
import functools
import sys

import pytest

import baracuda
from baracuda import _ops, _plan
from fake_torch import Tensor
from fake_torch import torch as fake


@pytest.fixture
def launches(monkeypatch):
    """The (X, Y) tensors each launch received, read back from its argument array, after
    the library checked them (plans for sm_90: no GPU needed)."""
    monkeypatch.setitem(sys.modules, "torch", fake)
    monkeypatch.setattr(_ops, "Plan", functools.partial(_plan.Plan, target_sm=90))
    monkeypatch.setattr(_ops, "_plans", {})
    seen = []

    def run(plan, args, count, *_):
        seen.append([_packed(args[i].tensor) for i in range(count)])
        return _plan._check(plan, args, count)

    monkeypatch.setattr(_plan, "_run", run)
    return seen


def _packed(t):
    return t.data, t.dtype, list(t.shape[:t.rank]), list(t.strides[:t.rank])


def _layout(x):
    code = getattr(baracuda, "DTYPE_" + {"float32": "F32", "bfloat16": "BF16"}[x.dtype.name])
    return x.data_ptr(), code, list(x.shape), list(x.stride())


def test_allocated_and_given_outputs_each_pass_their_own_layout(launches):
    x = Tensor([4, 100], fake.float32)
    given = Tensor([4, 108], fake.float32, strides=[1, 4])  # same shape, other strides
    outputs = [baracuda.pad(x, (3, 5), mode="reflect"), baracuda.pad(x, (3, 5), mode="reflect"),
               baracuda.pad(x, (3, 5), mode="reflect", out=given), baracuda.pad(x, (3, 5), mode="reflect"),
               baracuda.pad(x, (3, 5), mode="reflect")]
    assert outputs[2] is given
    assert len({y.data_ptr() for y in outputs}) == len(outputs)
    assert launches == [[_layout(x), _layout(y)] for y in outputs]


def test_an_input_of_another_dtype_gets_an_output_of_its_dtype(launches):
    first, second = Tensor([4, 108], fake.float32), Tensor([4, 108], fake.bfloat16)
    dxs = [baracuda.pad_backward(dy, (3, 5)) for dy in (first, first, second, second, first)]
    assert [dx.dtype for dx in dxs] == [fake.float32, fake.float32, fake.bfloat16, fake.bfloat16, fake.float32]
    assert launches == [[_layout(dy), _layout(dx)] for dy, dx in zip((first, first, second, second, first), dxs)]


def test_a_host_input_never_launches_once_outputs_were_allocated(launches):
    baracuda.pad(Tensor([4, 100], fake.float32), (3, 5))
    with pytest.raises(TypeError, match="pad: arg X: the tensor is on cpu"):
        baracuda.pad(Tensor([4, 100], fake.float32, device="cpu"), (3, 5))
    assert len(launches) == 1
