"""The baracuda_arg_t array of a call. Each (thread, role names) pair of a
plan keeps one array, its roles written once; a call only packs each
tensor's pointer, dtype, rank, shape and strides into it with one
precompiled struct.pack_into. Arrays are per thread (threading.local)
because ctypes releases the GIL during the C call, while another thread may
be packing its own."""
import ctypes
import struct
import sys
import threading

from . import _tensors
from ._abi import DTYPES, INVALID_PROBLEM, ROLES, BaracudaError, h
from ._torch import TorchSupport

_ARG = h.structs["baracuda_arg_t"]
_TENSOR = h.structs["baracuda_tensor_t"]
_MAX_RANK = h.constants["BARACUDA_MAX_RANK"]
_TENSOR_AT = _ARG.tensor.offset
_SIZE = ctypes.sizeof(_ARG)


def _packer(rank):
    """A struct.Struct writing data, dtype, rank, shape[:rank] and strides[:rank]
    at their C offsets, and zeros over the rest of shape and strides."""
    fields = [("data", "Q", 1), ("dtype", "i", 1), ("rank", "i", 1), ("shape", "q", rank), ("strides", "q", rank)]
    fmt, at = "<", 0
    for name, code, count in fields:
        offset = getattr(_TENSOR, name).offset
        fmt += f"{offset - at}x{count}{code}"
        at = offset + struct.calcsize(f"<{count}{code}")
        if name in ("shape", "strides"):
            fmt += f"{8 * (_MAX_RANK - rank)}x"
            at += 8 * (_MAX_RANK - rank)
    return struct.Struct(fmt)


_PACKERS = [_packer(rank).pack_into for rank in range(_MAX_RANK + 1)]
_supports = {}  # array type -> its TorchSupport, or None for the generic path
_torch_supports = {}  # torch module -> TorchSupport


def support_for(obj):
    """The TorchSupport reading obj, or None when obj goes the generic way."""
    kind = type(obj)
    if kind not in _supports:
        torch = sys.modules.get("torch")
        support = None
        if torch is not None and isinstance(obj, torch.Tensor):
            if torch not in _torch_supports:
                _torch_supports[torch] = TorchSupport(torch, DTYPES)
            support = _torch_supports[torch]
        _supports[kind] = support
    return _supports[kind]


def dtype_and_shape(obj):
    """(baracuda dtype, shape) of any array."""
    support = _supports.get(type(obj)) or support_for(obj)
    if support is not None:
        return support.dtype(obj), obj.shape
    _, dtype, shape, _, _ = _tensors.describe(obj)
    return DTYPES[dtype], shape


class _Arrays(threading.local):
    """One thread's argument arrays of a plan, by the tuple of role names."""

    def __init__(self):
        self.by_names = {}


class Arguments:
    """The argument arrays of one plan; op names it in messages."""

    def __init__(self, op):
        self.op = op
        self._local = _Arrays()

    def _array(self, names):
        args = (_ARG * len(names))()
        for i, name in enumerate(names):
            role = ROLES.get(name.upper())
            if role is None:
                raise BaracudaError(INVALID_PROBLEM, f"{self.op}: {name} is no argument role (roles: {', '.join(ROLES)})")
            args[i].role = role
        self._local.by_names[names] = args
        return args

    def fill(self, arrays, stream):
        """(args, stream handle, keep-alive) for arrays by role name. stream is the
        caller's handle or None: then PyTorch's current stream of the first torch
        tensor's device, else the legacy default stream (0)."""
        names = tuple(arrays)
        args = self._local.by_names.get(names) or self._array(names)
        first = first_support = generic = keep = None
        offset = _TENSOR_AT
        for name, obj in arrays.items():
            support = _supports.get(type(obj)) or support_for(obj)
            if support is None:
                generic = (generic or []) + [(offset, name, obj)]
            else:
                # the common case read inline, a call and a set lookup fewer per tensor than view
                code = support.plain.get(obj.dtype)
                if code and obj.is_cuda:
                    data, shape, strides = obj.data_ptr(), obj.shape, obj.stride()
                else:
                    data, code, shape, strides = self._view(support, name, obj)
                try:
                    _PACKERS[len(shape)](args, offset, data, code, len(shape), *shape, *strides)
                except IndexError:
                    self._over_rank(name, shape)
                if first is None:
                    first, first_support = obj, support
            offset += _SIZE
        if stream is None:
            stream = first_support.current_stream(first.get_device()) if first is not None else 0
        if generic:
            keep = []
            for at, name, obj in generic:
                try:
                    data, dtype, shape, strides, k = _tensors.describe(obj, stream or None)
                except TypeError as e:
                    raise TypeError(f"baracuda {self.op}: arg {name}: {e}") from None
                try:
                    _PACKERS[len(shape)](args, at, data, DTYPES[dtype], len(shape), *shape, *strides)
                except IndexError:
                    self._over_rank(name, shape)
                keep.append(k)
        return args, stream, keep

    def _view(self, support, name, obj):
        try:
            return support.view(obj)
        except TypeError as e:
            raise TypeError(f"baracuda {self.op}: arg {name}: {e}") from None

    def _over_rank(self, name, shape):
        raise BaracudaError(INVALID_PROBLEM, f"{self.op}: arg {name} has rank {len(shape)}, over {_MAX_RANK}")
