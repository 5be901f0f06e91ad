"""The compiled fast path (_baracuda_fast.c) on the CPU: handed a ctypes
callback in place of baracuda_plan_run, it must pass exactly the argument
array, count, plan and stream the Python path packs, and leave to the Python
path every call it does not serve."""
import ctypes
import functools
import sys

import pytest

import baracuda
from baracuda import _args, _fast, _ops, _plan
from fake_torch import CURRENT_STREAM, Parameter, Tensor
from fake_torch import torch as fake

pytestmark = pytest.mark.skipif(_fast.module is None, reason="no fast path: not built (no Python headers) or BARACUDA_PYTHON_FASTPATH=0")

_ARG = _args._ARG
_RUN_TYPE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.POINTER(_ARG), ctypes.c_int32, ctypes.c_void_p,
                             ctypes.c_size_t, ctypes.c_void_p)


class Recorder:
    """A stand-in for baracuda_plan_run that keeps each call's plan, argument bytes
    and stream, and returns status."""

    def __init__(self, status=0):
        self.calls, self.status = [], status
        self.function = _RUN_TYPE(self._run)
        self.address = ctypes.cast(self.function, ctypes.c_void_p).value

    def _run(self, plan, args, count, workspace, workspace_bytes, stream):
        self.calls.append((plan, [bytes(args[i]) for i in range(count)], workspace, workspace_bytes, stream))
        return self.status


@pytest.fixture(autouse=True)
def torch_is_the_fake(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", fake)
    _args.support_for(Tensor([1], fake.float32))  # hands the fake's types to the fast path


def python_path_bytes(arrays, stream=None):
    args, stream, _ = _args.Arguments("test").fill(arrays, stream)
    return [bytes(a) for a in args], stream.value


@pytest.mark.parametrize("rank", range(9))
def test_the_fast_path_packs_what_the_python_path_packs(rank):
    x = Tensor([3 + d for d in range(rank)], fake.bfloat16, strides=[7 * d + 1 for d in range(rank)])
    w, y = Parameter([5, 2], fake.float32), Tensor([2] * 8, fake.int8)
    record = Recorder()
    assert _fast.run(record.address, 0x1234, {"X": x, "WEIGHT": w, "Y": y}, None, None) == 0
    plan, args, workspace, workspace_bytes, stream = record.calls[0]
    assert (plan, workspace, workspace_bytes) == (0x1234, None, 0)
    assert (args, stream) == python_path_bytes({"X": x, "WEIGHT": w, "Y": y}) and stream == CURRENT_STREAM


def test_role_names_and_tensors_may_come_as_two_tuples_with_a_stream():
    x, y = Tensor([4, 100], fake.float16), Tensor([4, 108], fake.float16)
    record = Recorder()
    assert _fast.run(record.address, 1, ("dy", "dx"), (x, y), 77) == 0
    assert record.calls[0][1] == python_path_bytes({"DY": x, "DX": y})[0] and record.calls[0][4] == 77


@pytest.mark.parametrize("tensors", [
    {"X": Tensor([4], fake.float32, device="cpu")},  # a host pointer: the Python path raises
    {"X": Tensor([4], fake.complex64)},  # may be a lazy conj view
    {"X": Tensor([2] * 9, fake.float32)},  # rank over 8
    {"X": [1.0, 2.0]},  # not a tensor
    {"Xx": Tensor([4], fake.float32)},  # a role name known only after .upper()
    {"NOT_A_ROLE": Tensor([4], fake.float32)},
    {f"X{i}": Tensor([4], fake.float32) for i in range(17)},  # past the fast path's 16 arguments
])
def test_calls_it_does_not_serve_go_to_the_python_path(tensors):
    record = Recorder()
    assert _fast.run(record.address, 1, tensors, None, None) is None and not record.calls


def test_plan_run_and_the_helpers_take_the_fast_path(monkeypatch):
    record = Recorder()
    monkeypatch.setattr(_plan, "_RUN_ADDRESS", record.address)
    monkeypatch.setattr(_ops, "_plans", {})
    plan = baracuda.Plan("pad", target_sm=90, dtype="f32", mode="reflect", rank=2, input_shape=[4, 100],
                         pad_low=[0, 3], pad_high=[0, 5])
    x, y = Tensor([4, 100], fake.float32), Tensor([4, 108], fake.float32)
    plan.run(X=x, Y=y)
    monkeypatch.setattr(_ops, "Plan", functools.partial(_plan.Plan, target_sm=90))
    out = baracuda.pad(x, (3, 5), mode="reflect")
    assert [c[0] for c in record.calls[:1]] == [plan._address] and len(record.calls) == 2
    assert record.calls[1][1] == python_path_bytes({"X": x, "Y": out})[0]


def test_a_status_from_the_fast_path_raises(monkeypatch):
    monkeypatch.setattr(_plan, "_RUN_ADDRESS", Recorder(status=baracuda.STATUS_INVALID_PROBLEM).address)
    plan = baracuda.Plan("pad", target_sm=90, dtype="f32", rank=1, input_shape=[4], pad_low=[1], pad_high=[1])
    with pytest.raises(baracuda.BaracudaError) as e:
        plan.run(X=Tensor([4], fake.float32), Y=Tensor([6], fake.float32))
    assert e.value.status == baracuda.STATUS_INVALID_PROBLEM


def test_a_closed_plan_reaches_the_library_as_null(monkeypatch):
    record = Recorder()
    monkeypatch.setattr(_plan, "_RUN_ADDRESS", record.address)
    plan = baracuda.Plan("pad", target_sm=90, dtype="f32", rank=1, input_shape=[4], pad_low=[1], pad_high=[1])
    plan.close()
    plan.run(X=Tensor([4], fake.float32), Y=Tensor([6], fake.float32))
    assert record.calls[0][0] is None
