"""A slot that already holds a tensor's layout gets only the new data pointer:
each call must still pack exactly what its own tensors say, whatever came
before in that slot or in another thread (stand-in torch, no GPU)."""
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

import baracuda
from baracuda import _args
from fake_torch import Parameter, Tensor
from fake_torch import torch as fake


@pytest.fixture(autouse=True)
def torch_is_the_fake(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", fake)


def _packed(args, i):
    """(data, dtype, rank, shape, strides) in args[i], the unused axes included."""
    t = args[i].tensor
    return t.data, t.dtype, t.rank, list(t.shape), list(t.strides)


def _expected(x):
    rank = len(x.shape)
    code = getattr(baracuda, "DTYPE_" + {"float32": "F32", "bfloat16": "BF16", "complex64": "COMPLEX32"}[x.dtype.name])
    pad = [0] * (8 - rank)
    return x.data_ptr(), code, rank, list(x.shape) + pad, list(x.stride()) + pad


def _in_turn():
    """Tensors for one slot, each differing from the one before in one respect."""
    return [
        Tensor([4, 6], fake.float32),
        Tensor([4, 6], fake.float32),  # the data pointer alone
        Tensor([4, 7], fake.float32),  # the shape
        Tensor([4, 7], fake.float32, strides=[1, 4]),  # the strides
        Tensor([3, 7], fake.float32, strides=[1, 4]),  # the shape alone
        Tensor([3, 7], fake.bfloat16, strides=[1, 4]),  # the dtype
        Tensor([4, 7, 1], fake.bfloat16),  # the rank
        Tensor([4, 7], fake.bfloat16),  # rank back down: the third axis must be zeros again
        Parameter([4, 7], fake.bfloat16),  # the type (a subclass)
        Tensor([4, 7], fake.complex64),  # read through view, every call
        Tensor([4, 7], fake.complex64),
        Tensor([4, 7], fake.bfloat16),
    ]


def test_each_call_packs_its_own_tensor_whatever_the_slot_held():
    arguments = _args.Arguments("test")
    other = Tensor([3], fake.float32)
    for x in _in_turn():
        args, _, _ = arguments.fill({"X": x, "Y": other}, None)
        assert _packed(args, 0) == _expected(x)
        assert _packed(args, 1) == _expected(other)


def test_every_call_asks_where_the_tensor_lives_and_what_it_is():
    plan = baracuda.Plan("pad", target_sm=90, dtype="f32", mode="reflect", rank=2, input_shape=[4, 100],
                         pad_low=[0, 3], pad_high=[0, 5])
    y = Tensor([4, 108], fake.float32)
    plan.check(X=Tensor([4, 100], fake.float32), Y=y)
    with pytest.raises(TypeError, match="pad: arg X: the tensor is on cpu"):
        plan.check(X=Tensor([4, 100], fake.float32, device="cpu"), Y=y)
    arguments = _args.Arguments("test")
    arguments.fill({"X": Tensor([4, 7], fake.complex64)}, None)
    with pytest.raises(TypeError, match="arg X: the tensor is a lazy conj"):
        arguments.fill({"X": Tensor([4, 7], fake.complex64, conj=True)}, None)


def test_a_pack_that_fails_half_way_is_not_trusted_later():
    arguments = _args.Arguments("test")
    x = Tensor([4, 6], fake.float32)
    arguments.fill({"X": x}, None)
    # the pointer, dtype, rank and shape get written before the stride that does not fit
    with pytest.raises(baracuda.BaracudaError, match="test: arg X has an extent or stride outside int64") as e:
        arguments.fill({"X": Tensor([5, 9], fake.float32, strides=[2**63, 1])}, None)
    assert e.value.status == baracuda.STATUS_INVALID_PROBLEM
    args, _, _ = arguments.fill({"X": x}, None)
    assert _packed(args, 0) == _expected(x)


def test_threads_never_see_each_others_layouts():
    arguments = _args.Arguments("test")
    p, q = Tensor([4, 6], fake.float32), Tensor([6, 4], fake.bfloat16, strides=[1, 6])

    def fill_and_read(x):
        args, _, _ = arguments.fill({"X": x}, None)
        return _packed(args, 0)

    with ThreadPoolExecutor(1) as other_thread:
        assert fill_and_read(p) == _expected(p)
        assert other_thread.submit(fill_and_read, q).result() == _expected(q)
        # q's layout is the other thread's; this thread's array still holds p's
        assert fill_and_read(q) == _expected(q)
        assert other_thread.submit(fill_and_read, p).result() == _expected(p)


def test_a_thread_switching_role_names_gets_the_array_of_each():
    arguments = _args.Arguments("test")
    x, y = Tensor([4, 6], fake.float32), Tensor([3], fake.bfloat16)
    with ThreadPoolExecutor(1) as other_thread:
        for names in [("X",), ("X", "Y"), ("X",), ("Y", "X")]:
            tensors = dict(zip(names, (x, y)))
            args, _, _ = arguments.fill(tensors, None)
            assert [args[i].role for i in range(len(args))] == [getattr(baracuda, "ARG_" + n) for n in names]
            assert [_packed(args, i) for i in range(len(args))] == [_expected(t) for t in tensors.values()]
            other_args = other_thread.submit(lambda: arguments.fill(tensors, None)[0]).result()
            assert other_args is not args and len(other_args) == len(args)


class Imitation:
    """Answers like a torch tensor (the same dtype object, shape, strides, device) but is
    none: a slot that last held such a layout must not take it for one."""

    def __init__(self, like):
        self.dtype, self.shape, self.is_cuda = like.dtype, like.shape, like.is_cuda
        self._strides, self._data = like.stride(), like.data_ptr()

    def stride(self):
        return self._strides

    def data_ptr(self):
        return self._data


def test_only_the_same_kind_of_tensor_reuses_a_layout():
    arguments = _args.Arguments("test")
    x = Tensor([4, 6], fake.float32)
    arguments.fill({"X": x}, None)
    with pytest.raises(TypeError, match="arg X: .*Imitation offers neither"):
        arguments.fill({"X": Imitation(x)}, None)
