"""The baracuda_arg_t array of a call. Each (thread, role names) pair of a
plan keeps one array, its roles written once; a call packs each tensor's
pointer, dtype, rank, shape and strides into it with one precompiled
struct.pack_into, or only its pointer where the slot already holds that
layout (see _Slot). Arrays are per thread (threading.local) because ctypes
releases the GIL during the C call, while another thread may be packing its
own."""
import ctypes
import struct
import sys
import threading
import types
from threading import get_ident

from . import _fast, _tensors
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


_NOTHING = object()  # pack's fresh when no tensor is: equal to none that a caller passes
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
                _fast.setup(torch, _torch_supports[torch])
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


_FORGOTTEN = (None, None, None, None)  # a slot's layout when nothing may be reused: no tensor's type is None


class _Slot:
    """One argument of an array: where its tensor lies, and the PyTorch layout last
    packed there (type, dtype object, shape, strides) as one tuple, a call's one load,
    or _FORGOTTEN. A tensor of that exact type and dtype whose shape and strides compare
    equal by value would pack the very same words but its data pointer, so a call writes
    only that; values, not the tensor's identity, decide, so no stale layout is ever served."""

    __slots__ = ("name", "offset", "data_word", "support", "layout", "fresh")

    def __init__(self, name, offset):
        self.name, self.offset = name, offset
        self.data_word = (offset + _TENSOR.data.offset) // 8  # data is a pointer: 8-aligned, like the array
        self.support, self.layout = None, _FORGOTTEN
        # True while the slot holds the layout of the output a helper allocates for this plan (see Arguments.pack)
        self.fresh = False


class _Array:
    """One thread's baracuda_arg_t array for a tuple of role names, its slots, the same
    memory as 64-bit words (a pointer written through it costs half a pack_into), and
    the stream as the C argument (setting its value costs a fifth of a new c_void_p)."""

    __slots__ = ("thread", "names", "args", "words", "slots", "stream")

    def __init__(self, args, names):
        self.thread, self.names, self.args = get_ident(), names, args
        self.words = memoryview(args).cast("B").cast("Q")
        self.slots = [_Slot(name, _TENSOR_AT + i * _SIZE) for i, name in enumerate(names)]
        self.stream = ctypes.c_void_p()


# Arguments._last before any pack: a thread ident is never None
_NO_ARRAY = types.SimpleNamespace(thread=None)


class _Arrays(threading.local):
    """One thread's argument arrays of a plan, by the tuple of role names."""

    def __init__(self):
        self.by_names = {}


class Arguments:
    """The argument arrays of one plan; op names it in messages."""

    def __init__(self, op):
        self.op = op
        self._local = _Arrays()
        self._last = _NO_ARRAY

    def _array(self, names):
        args = (_ARG * len(names))()
        for i, name in enumerate(names):
            role = ROLES.get(name.upper())
            if role is None:
                raise BaracudaError(INVALID_PROBLEM, f"{self.op}: {name} is no argument role (roles: {', '.join(ROLES)})")
            args[i].role = role
        array = self._local.by_names[names] = _Array(args, names)
        return array

    def fill(self, arrays, stream):
        """pack for arrays by role name."""
        return self.pack(tuple(arrays), arrays.values(), stream)

    def pack(self, names, objs, stream, fresh=_NOTHING):
        """(args, stream as a c_void_p, keep-alive) for objs in the roles names; the first
        two are this thread's, valid until its next pack. stream is the caller's handle
        (an int) or None: then PyTorch's current stream of the first torch tensor's
        device, else the legacy default stream (0, a NULL pointer). fresh is a tensor of
        objs that a helper has just allocated like every output of this plan (the cached
        shape, contiguous, the checked input's dtype and device): once its slot holds
        that layout, only its pointer is written, its questions spared."""
        # the array of the last pack serves when this thread made it for these names:
        # an ident check costs less than the threading.local lookup it spares
        array = self._last
        if array.thread != get_ident() or array.names != names:
            array = self._last = self._local.by_names.get(names) or self._array(names)
        slots, words, generic, keep = array.slots, array.words, None, None
        i = 0  # an index, not zip(): about 0.1 us less per call of four tensors
        for obj in objs:
            slot = slots[i]
            i += 1
            kind, dtype, shape, strides = slot.layout
            if obj is fresh and slot.fresh:
                words[slot.data_word] = obj.data_ptr()
            # is_cuda is asked every call all the same: a host pointer would crash the device
            elif (type(obj) is kind and obj.dtype is dtype and obj.shape == shape and obj.stride() == strides
                    and obj.is_cuda):
                words[slot.data_word] = obj.data_ptr()
            elif self._pack(array.args, slot, obj):
                slot.fresh = obj is fresh and slot.layout is not _FORGOTTEN
            else:
                generic = (generic or []) + [(slot, obj)]
                continue
            if stream is None:  # read here, while the first framework tensor is at hand
                stream = slot.support.current_stream(obj.get_device())
        if generic:
            keep = []
            for slot, obj in generic:
                try:
                    data, dtype, shape, strides, k = _tensors.describe(obj, stream or None)
                except TypeError as e:
                    raise TypeError(f"baracuda {self.op}: arg {slot.name}: {e}") from None
                self._write(array.args, slot, data, DTYPES[dtype], shape, strides)
                keep.append(k)
        array.stream.value = stream
        return array.args, array.stream, keep

    def _pack(self, args, slot, obj):
        """Packs a framework tensor into slot whole and remembers its layout where the
        next call may reuse it; False when obj goes the generic way instead."""
        # forgotten first: a pack that stops half-way leaves no layout to trust
        slot.layout, slot.fresh = _FORGOTTEN, False
        slot.support = support = _supports.get(type(obj)) or support_for(obj)
        if support is None:
            return False
        dtype = obj.dtype
        code = support.plain.get(dtype)
        if code and obj.is_cuda:
            data, shape, strides = obj.data_ptr(), obj.shape, obj.stride()
            self._write(args, slot, data, code, shape, strides)
            slot.layout = (type(obj), dtype, shape, strides)
        else:  # the questions a plain tensor is spared, asked on every call
            self._write(args, slot, *self._view(support, slot.name, obj))
        return True

    def _write(self, args, slot, data, code, shape, strides):
        try:
            _PACKERS[len(shape)](args, slot.offset, data, code, len(shape), *shape, *strides)
        except IndexError:
            raise BaracudaError(INVALID_PROBLEM,
                                f"{self.op}: arg {slot.name} has rank {len(shape)}, over {_MAX_RANK}") from None
        except struct.error:
            raise BaracudaError(INVALID_PROBLEM, f"{self.op}: arg {slot.name} has an extent or stride outside int64 "
                                f"(shape {tuple(shape)}, strides {tuple(strides)})") from None

    def _view(self, support, name, obj):
        try:
            return support.view(obj)
        except TypeError as e:
            raise TypeError(f"baracuda {self.op}: arg {name}: {e}") from None

