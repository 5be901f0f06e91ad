"""The PyTorch path on the CPU: a stand-in torch module (fake_torch) goes
through the same code as real tensors, checked with Plan.check (no GPU)."""
import functools
import sys
import threading

import pytest

import baracuda
from baracuda import _args, _ops, _plan
from fake_torch import CURRENT_STREAM, Parameter, Tensor
from fake_torch import torch as fake


@pytest.fixture(autouse=True)
def torch_is_the_fake(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", fake)


def _pad_plan(dtype="bf16"):
    return baracuda.Plan("pad", target_sm=90, dtype=dtype, mode="reflect", rank=2, input_shape=[4, 100],
                         pad_low=[0, 3], pad_high=[0, 5])


def test_tensors_that_require_grad_are_accepted():
    _pad_plan().check(X=Tensor([4, 100], fake.bfloat16, requires_grad=True), Y=Tensor([4, 108], fake.bfloat16))
    conv = baracuda.Plan("causal_conv1d", target_sm=90, dtype="f32", batch=2, channels=8, seq_len=50)
    conv.check(X=Tensor([2, 8, 50], fake.float32), WEIGHT=Parameter([8, 4], fake.float32),
               BIAS=Parameter([8], fake.float32), Y=Tensor([2, 8, 50], fake.float32))


def test_the_library_sees_the_shape_of_each_call():
    plan = _pad_plan()
    plan.check(X=Tensor([4, 100], fake.bfloat16), Y=Tensor([4, 108], fake.bfloat16))
    with pytest.raises(baracuda.BaracudaError, match="arg Y shape"):
        plan.check(X=Tensor([4, 100], fake.bfloat16), Y=Tensor([4, 107], fake.bfloat16))
    with pytest.raises(baracuda.BaracudaError) as e:
        plan.check(X=Tensor([4, 100], fake.float32), Y=Tensor([4, 108], fake.float32))
    assert e.value.status == baracuda.STATUS_INVALID_PROBLEM


# f32 is read inline by fill, complex64 through TorchSupport.view (it may be a lazy conj view)
@pytest.mark.parametrize("dtype, code", [("float32", "F32"), ("complex64", "COMPLEX32")])
@pytest.mark.parametrize("rank", range(9))
def test_packed_arguments_are_what_the_tensor_says(rank, dtype, code):
    shape = [3 + d for d in range(rank)]
    strides = [7 * d + 1 for d in range(rank)]
    x = Tensor(shape, getattr(fake, dtype), strides=strides)
    wide = Tensor([2] * 8, fake.int8)
    arguments = _args.Arguments("test")
    arguments.fill({"X": wide}, None)  # a rank-8 tensor first: nothing of it may stay behind
    args, stream, _ = arguments.fill({"X": x}, None)
    t = args[0].tensor
    assert args[0].role == baracuda.ARG_X and stream.value == CURRENT_STREAM
    assert (t.data, t.dtype, t.rank) == (x.data_ptr(), getattr(baracuda, "DTYPE_" + code), rank)
    assert list(t.shape) == shape + [0] * (8 - rank) and list(t.strides) == strides + [0] * (8 - rank)


def test_a_workspace_is_passed_as_pointer_and_bytes():
    ws = Tensor([3, 5], fake.float64)
    data, size = _plan._workspace(ws)
    assert (data.value, size.value) == (ws.data_ptr(), 3 * 5 * 8)


def test_an_explicit_stream_wins():
    _, stream, _ = _args.Arguments("test").fill({"X": Tensor([4], fake.float32)}, 1234)
    assert stream.value == 1234


def _on_device(index, shape):
    t = Tensor(shape, fake.float32)
    t._device = ("cuda", index)
    return t


def test_the_stream_follows_the_first_tensors_device_on_every_call():
    arguments = _args.Arguments("test")
    x0, y0 = _on_device(0, [4]), _on_device(0, [4])
    assert arguments.fill({"X": x0, "Y": y0}, None)[1].value == CURRENT_STREAM
    # the same layouts (only pointers are packed), but the first tensor moved to device 1
    assert arguments.fill({"X": _on_device(1, [4]), "Y": y0}, None)[1].value == CURRENT_STREAM + 1
    assert arguments.fill({"X": x0, "Y": _on_device(1, [4])}, None)[1].value == CURRENT_STREAM


def test_each_thread_packs_its_own_array():
    arguments = _args.Arguments("test")
    seen = []
    worker = threading.Thread(target=lambda: seen.append(arguments.fill({"X": Tensor([4], fake.float32)}, 0)[0]))
    worker.start()
    worker.join()
    assert arguments.fill({"X": Tensor([4], fake.float32)}, 0)[0] is not seen[0]


def test_bad_tensors_are_named():
    plan = _pad_plan("f32")
    with pytest.raises(TypeError, match="pad: arg X: the tensor is on cpu"):
        plan.check(X=Tensor([4, 100], fake.float32, device="cpu"), Y=Tensor([4, 108], fake.float32))
    with pytest.raises(TypeError, match="pad: arg Y: torch.int16 has no baracuda dtype"):
        plan.check(X=Tensor([4, 100], fake.float32), Y=Tensor([4, 108], fake.int16))
    with pytest.raises(TypeError, match="arg X: the tensor is a lazy conj"):
        _pad_plan("complex32").check(X=Tensor([4, 100], fake.complex64, conj=True), Y=Tensor([4, 108], fake.complex64))
    with pytest.raises(baracuda.BaracudaError, match="pad: arg X has rank 9, over 8") as e:
        plan.check(X=Tensor([1] * 9, fake.float32), Y=Tensor([4, 108], fake.float32))
    assert e.value.status == baracuda.STATUS_INVALID_PROBLEM
    with pytest.raises(baracuda.BaracudaError, match="pad: W is no argument role"):
        plan.check(X=Tensor([4, 100], fake.float32), W=Tensor([4, 108], fake.float32))


def test_a_closed_plan_raises_instead_of_crashing():
    plan = _pad_plan("f32")
    plan.close()
    with pytest.raises(baracuda.BaracudaError, match="plan is NULL"):
        plan.check(X=Tensor([4, 100], fake.float32), Y=Tensor([4, 108], fake.float32))


def test_helpers_allocate_the_output_like_their_input(monkeypatch):
    # planned for sm_90 and checked where they would run: the library still checks every shape
    monkeypatch.setattr(_ops, "Plan", functools.partial(_plan.Plan, target_sm=90))
    monkeypatch.setattr(_plan, "_run", lambda plan, args, count, *_: _plan._check(plan, args, count))
    y = baracuda.pad(Tensor([4, 100], fake.bfloat16), (3, 5), mode="reflect")
    assert (type(y), y.dtype, y.shape) == (Tensor, fake.bfloat16, (4, 108))
    dx = baracuda.pad_backward(Parameter([4, 108], fake.float32), (3, 5), mode="reflect")
    assert (type(dx), dx.dtype, dx.shape) == (Tensor, fake.float32, (4, 100))
