"""The compiled fast path reading tensors through DLPack's C exchange API (as
PyTorch 2.11 offers it), on the CPU with a ctypes-made API over fake tensors:
the bytes it passes must be the Python path's, the stream the API's current
work stream, and whatever the API does not serve must fall back to the tensor's
attributes or to the Python path."""
import functools
import sys

import pytest

import baracuda
from baracuda import _args, _fast, _ops, _plan
from fake_exchange_api import EXCHANGE_STREAM, Api, ExchangeParameter, ExchangeTensor, OtherSubclass
from fake_torch import CURRENT_STREAM, Tensor
from fake_torch import torch as fake
from test_fast_path import Recorder, python_path_bytes

pytestmark = pytest.mark.skipif(_fast.module is None, reason="no fast path: not built (no Python headers) or BARACUDA_PYTHON_FASTPATH=0")


def hand_in(tensor_type, exchange_types):
    support = _args.support_for(Tensor([1], fake.float32))
    _fast.module.setup(tensor_type, support.plain, _fast._ROLE_CODES, support.current_stream, exchange_types)


@pytest.fixture()
def api(monkeypatch):
    """An exchange API on ExchangeTensor, handed to the fast path as torch's; the fake torch's own setup after."""
    monkeypatch.setitem(sys.modules, "torch", fake)
    made = Api()
    ExchangeTensor.__dlpack_c_exchange_api__ = made.capsule
    hand_in(ExchangeTensor, (ExchangeTensor, ExchangeParameter))
    yield made
    del ExchangeTensor.__dlpack_c_exchange_api__
    hand_in(Tensor, (Tensor,))


def fast_run(arrays, stream=None):
    record = Recorder()
    status = _fast.run(record.address, 0x1234, arrays, None, stream)
    return status, record.calls


@pytest.mark.parametrize("rank", range(9))
def test_tensors_read_through_the_api_pack_what_the_python_path_packs(api, rank):
    x = ExchangeTensor([3 + d for d in range(rank)], fake.bfloat16, strides=[7 * d + 1 for d in range(rank)])
    w, y = ExchangeParameter([5, 2], fake.float32), ExchangeTensor([2] * 8, fake.int8)
    assert _fast.module.exchange_api()
    status, calls = fast_run({"X": x, "WEIGHT": w, "Y": y})
    assert status == 0 and api.exports == 3
    assert calls[0][1] == python_path_bytes({"X": x, "WEIGHT": w, "Y": y})[0]


def test_the_stream_is_the_api_current_work_stream(api):
    status, calls = fast_run({"X": ExchangeTensor([4], fake.float32), "Y": ExchangeTensor([4], fake.float32)})
    assert status == 0 and calls[0][4] == EXCHANGE_STREAM


def test_a_stream_given_is_kept(api):
    status, calls = fast_run({"X": ExchangeTensor([4], fake.float32)}, stream=77)
    assert status == 0 and calls[0][4] == 77


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64", "int32", "int64", "bool", "int8",
                                   "uint8"])
def test_each_plain_dtype_maps_as_the_python_path_maps_it(api, dtype):
    x = ExchangeTensor([3, 5], getattr(fake, dtype))
    assert fast_run({"X": x})[1][0][1] == python_path_bytes({"X": x})[0]


def test_a_byte_offset_is_added_to_the_data_pointer(api):
    x = ExchangeTensor([4, 6], fake.float16, byte_offset=64)
    assert fast_run({"X": x})[1][0][1] == python_path_bytes({"X": x})[0]


def test_null_strides_mean_compact_row_major(api):
    x = ExchangeTensor([4, 6, 3], fake.float32, null_strides=True)
    assert fast_run({"X": x})[1][0][1] == python_path_bytes({"X": x})[0]


def test_a_tensor_the_exporter_refuses_is_read_through_its_attributes(api):
    x, y = ExchangeTensor([4, 6], fake.float32, refused=True, requires_grad=True), ExchangeTensor([4, 6], fake.float32)
    status, calls = fast_run({"X": x, "Y": y})
    assert status == 0 and api.exports == 2
    assert calls[0][1] == python_path_bytes({"X": x, "Y": y})[0]
    assert calls[0][4] == CURRENT_STREAM  # the first tensor's device came from its attributes


def test_other_subclasses_are_read_through_their_attributes(api):
    x = OtherSubclass([4, 6], fake.float32)
    status, calls = fast_run({"X": x})
    assert status == 0 and api.exports == 0 and calls[0][1] == python_path_bytes({"X": x})[0]


@pytest.mark.parametrize("tensor", [
    ExchangeTensor([4], fake.float32, device="cpu"),  # a host pointer: the Python path raises
    ExchangeTensor([4], fake.complex64),  # may be a lazy conj view
    ExchangeTensor([4], fake.int16),  # no baracuda dtype
    ExchangeTensor([2] * 9, fake.float32),  # rank over 8
])
def test_what_neither_reader_serves_goes_to_the_python_path(api, tensor):
    assert fast_run({"X": tensor}) == (None, [])


def test_an_api_of_another_major_version_is_not_used(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", fake)
    made = Api(major=2)
    ExchangeTensor.__dlpack_c_exchange_api__ = made.capsule
    try:
        hand_in(ExchangeTensor, (ExchangeTensor,))
        x = ExchangeTensor([4, 6], fake.float32)
        status, calls = fast_run({"X": x})
        assert not _fast.module.exchange_api() and made.exports == 0
        assert status == 0 and calls[0][1] == python_path_bytes({"X": x})[0]
    finally:
        del ExchangeTensor.__dlpack_c_exchange_api__
        hand_in(Tensor, (Tensor,))


def test_a_helper_output_is_allocated_through_the_api(api):
    x = ExchangeTensor([4, 6], fake.bfloat16, strides=[10, 1])
    record = Recorder()
    status, out = _fast.run_new(record.address, 0x1234, ("X", "Y"), x, (4, 14), None)
    assert status == 0 and api.made == [out] and out.shape == (4, 14) and out.dtype is fake.bfloat16
    assert record.calls[0][1] == python_path_bytes({"X": x, "Y": out})[0] and record.calls[0][4] == EXCHANGE_STREAM


def test_a_helper_whose_input_the_api_does_not_serve_allocates_nothing(api):
    x = ExchangeTensor([4, 6], fake.float32, refused=True)
    record = Recorder()
    assert _fast.run_new(record.address, 1, ("X", "Y"), x, (4, 14), None) is None
    assert not api.made and not record.calls


def test_the_pad_helper_returns_the_array_the_api_allocated(api, monkeypatch):
    record = Recorder()
    monkeypatch.setattr(_plan, "_RUN_ADDRESS", record.address)
    monkeypatch.setattr(_ops, "_plans", {})
    monkeypatch.setattr(_ops, "Plan", functools.partial(_plan.Plan, target_sm=90))
    x = ExchangeTensor([4, 100], fake.float32)
    out = baracuda.pad(x, (3, 5), mode="reflect")
    assert api.made == [out] and out.shape == (4, 108)
    assert record.calls[0][1] == python_path_bytes({"X": x, "Y": out})[0]
