"""baracuda-kernels from Python: a thin ctypes layer over the C ABI.

Arrays come from any framework without copying (__cuda_array_interface__ or
DLPack), work runs on the caller's stream, and failures raise BaracudaError
with the library's status and message. The descriptors, constants and struct
layouts are read from the C headers, so every op family the headers declare
is reachable through Plan without new binding code.

    import baracuda, torch
    x = torch.randn(4, 100, device="cuda")
    y = baracuda.pad(x, (3, 5), mode="reflect")          # like F.pad
    plan = baracuda.Plan("pad", dtype="f32", mode="reflect", rank=2,
                         input_shape=[4, 100], pad_low=[0, 3], pad_high=[0, 5])
    plan.run(X=x, Y=y)
"""
import ctypes

from . import _tensors
from ._header import Header, header_dir
from ._library import declare, load

_h = Header(header_dir())
_lib = load()
declare(_lib, _h)

# BARACUDA_OP_PAD -> baracuda.OP_PAD, BARACUDA_PAD_REFLECT -> baracuda.PAD_REFLECT, ...
globals().update({k[len("BARACUDA_"):]: v for k, v in _h.constants.items()})

DTYPES = {_lib.baracuda_dtype_name(v).decode(): v for k, v in _h.constants.items()
          if k.startswith("BARACUDA_DTYPE_") and 0 < v < _h.constants["BARACUDA_DTYPE_COUNT"]}
ROLES = {k[len("BARACUDA_ARG_"):]: v for k, v in _h.constants.items() if k.startswith("BARACUDA_ARG_")}
_ops = (ctypes.c_int32 * 64)()
OPS = {_lib.baracuda_op_name(_ops[i]).decode(): _ops[i] for i in range(_lib.baracuda_op_list(_ops, 64))}
_S = _h.structs


class BaracudaError(RuntimeError):
    """A non-zero status: .status (the code) and .message (the library's sentence)."""

    def __init__(self, status, message):
        self.status = status
        self.message = message
        super().__init__(f"{_lib.baracuda_status_string(status).decode()} ({status}): {message}")


def _check(status):
    if status != 0:
        raise BaracudaError(status, _lib.baracuda_last_error_message().decode())


def version():
    v = _lib.baracuda_version()
    return (v // 10000, v // 100 % 100, v % 100)


def _tensor(obj, stream=None):
    data, dtype, shape, strides, keep = _tensors.describe(obj, stream)
    if len(shape) > _h.constants["BARACUDA_MAX_RANK"]:
        raise BaracudaError(_h.constants["BARACUDA_STATUS_INVALID_PROBLEM"], f"rank {len(shape)} is over 8")
    t = _S["baracuda_tensor_t"]()
    t.data = data
    t.dtype = DTYPES[dtype]
    t.rank = len(shape)
    for d, (n, s) in enumerate(zip(shape, strides)):
        t.shape[d] = n
        t.strides[d] = s
    return t, keep


class Plan:
    """A selected plan: Plan(op, **descriptor fields). op is a name ("pad") or id;
    string field values name constants (dtype="bf16", mode="reflect"); lists fill
    array fields. target_sm plans without a GPU; flags are BARACUDA_SELECT_* bits."""

    def __init__(self, op, *, target_sm=0, device=-1, flags=0, **fields):
        op = OPS[op] if isinstance(op, str) else op
        if op not in _h.descriptors:
            raise BaracudaError(_h.constants["BARACUDA_STATUS_INVALID_PROBLEM"], f"op {op} has no descriptor")
        name = _h.descriptors[op]
        desc = _S[name]()
        prefix = "BARACUDA_" + name[len("baracuda_"):-len("_desc_t")].upper() + "_"
        for key, value in fields.items():
            if key not in _h.fields[name]:
                raise TypeError(f"baracuda: {name} has no field {key!r} (fields: {', '.join(_h.fields[name][1:])})")
            if isinstance(value, str):  # a dtype, or a constant named by the descriptor or by the field
                names = [prefix + value.upper(), "BARACUDA_" + key.upper() + "_" + value.upper()]
                known = [n for n in names if n in _h.constants]
                if key != "dtype" and not known:
                    raise ValueError(f"baracuda: {value!r} is not a value of {key} (no {' or '.join(names)})")
                value = DTYPES[value] if key == "dtype" else _h.constants[known[0]]
            if isinstance(value, (list, tuple)):
                array = getattr(desc, key)
                for i, v in enumerate(value):
                    array[i] = v
            else:
                setattr(desc, key, value)
        desc.header.struct_size = ctypes.sizeof(desc)
        desc.header.op = op
        opts = _S["baracuda_select_options_t"](ctypes.sizeof(_S["baracuda_select_options_t"]), device, target_sm, flags)
        self._plan = ctypes.c_void_p()
        _check(_lib.baracuda_plan_select(ctypes.cast(ctypes.byref(desc), ctypes.POINTER(_S["baracuda_op_header_t"])),
                                         ctypes.byref(opts), ctypes.byref(self._plan)))

    def _args(self, arrays, stream):
        args = (_S["baracuda_arg_t"] * len(arrays))()
        keep = []
        for i, (role, obj) in enumerate(arrays.items()):
            args[i].role = ROLES[role.upper()] if isinstance(role, str) else role
            args[i].tensor, k = _tensor(obj, stream)
            keep.append(k)
        return args, keep

    def check(self, **arrays):
        args, _keep = self._args(arrays, None)
        _check(_lib.baracuda_plan_check(self._plan, args, len(arrays)))

    def run(self, workspace=None, stream=None, **arrays):
        """Enqueue on `stream` (see _tensors.stream_handle); arrays by role: X=..., Y=...."""
        handle = _tensors.stream_handle(stream, *arrays.values())
        args, _keep = self._args(arrays, handle or None)
        ws_ptr, ws_bytes = 0, 0
        if workspace is not None:
            ws_ptr, dtype, shape, _, _ = _tensors.describe(workspace)
            count = 1
            for n in shape:
                count *= n
            ws_bytes = count * _lib.baracuda_dtype_bits(DTYPES[dtype]) // 8
        _check(_lib.baracuda_plan_run(self._plan, args, len(arrays), ws_ptr, ws_bytes, handle))

    @property
    def workspace_size(self):
        n = ctypes.c_size_t()
        _check(_lib.baracuda_plan_workspace_size(self._plan, ctypes.byref(n)))
        return n.value

    @property
    def info(self):
        i = _S["baracuda_plan_info_t"]()
        i.struct_size = ctypes.sizeof(i)
        _check(_lib.baracuda_plan_get_info(self._plan, ctypes.byref(i)))
        out = {f: getattr(i, f) for f in _h.fields["baracuda_plan_info_t"] if f not in ("struct_size", "reserved0")}
        out["kernel_name"] = i.kernel_name.decode()
        return out

    def close(self):
        if getattr(self, "_plan", None):
            _lib.baracuda_plan_destroy(self._plan)
            self._plan = None

    __del__ = close


_plans = {}


def _cached_plan(op, **fields):
    key = (op, tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in fields.items())))
    if key not in _plans:
        if len(_plans) > 256:
            _plans.clear()
        _plans[key] = Plan(op, **fields)
    return _plans[key]


def _empty(like, shape):
    module = type(like).__module__.split(".")[0]
    if module == "torch":
        import torch

        return torch.empty(shape, dtype=like.dtype, device=like.device)
    if module == "cupy":
        import cupy

        return cupy.empty(shape, dtype=like.dtype)
    raise TypeError(f"baracuda: cannot allocate a {type(like).__name__}; pass out=")


def _per_axis(pad, rank):
    """F.pad's (last_low, last_high, next_low, ...) as per-axis lists."""
    if len(pad) % 2 or len(pad) // 2 > rank:
        raise ValueError(f"baracuda: pad {pad} does not fit rank {rank}")
    low, high = [0] * rank, [0] * rank
    for i in range(len(pad) // 2):
        low[rank - 1 - i], high[rank - 1 - i] = int(pad[2 * i]), int(pad[2 * i + 1])
    return low, high


def pad(x, pad, mode="constant", value=0.0, out=None, stream=None):
    """torch.nn.functional.pad semantics on any axis; returns out."""
    _, dtype, shape, _, _ = _tensors.describe(x)
    low, high = _per_axis(pad, len(shape))
    out_shape = [n + a + b for n, a, b in zip(shape, low, high)]
    out = _empty(x, out_shape) if out is None else out
    real, imag = (value.real, value.imag) if isinstance(value, complex) else (float(value), 0.0)
    plan = _cached_plan("pad", dtype=dtype, mode=mode, rank=len(shape), input_shape=list(shape), pad_low=low,
                        pad_high=high, value=real, value_imag=imag)
    plan.run(X=x, Y=out, stream=stream)
    return out


def pad_backward(dy, pad, mode="constant", out=None, stream=None):
    """The gradient of pad(x, pad, mode) with respect to x, given dy."""
    _, dtype, shape, _, _ = _tensors.describe(dy)
    low, high = _per_axis(pad, len(shape))
    in_shape = [n - a - b for n, a, b in zip(shape, low, high)]
    out = _empty(dy, in_shape) if out is None else out
    plan = _cached_plan("pad_backward", dtype=dtype, mode=mode, rank=len(shape), input_shape=in_shape, pad_low=low,
                        pad_high=high)
    plan.run(DY=dy, DX=out, stream=stream)
    return out


def write_slice(dest, source, start, stream=None):
    """dest[start[0]:start[0]+source.shape[0], ...] = source, in place; returns dest."""
    _, dtype, dshape, _, _ = _tensors.describe(dest)
    _, _, sshape, _, _ = _tensors.describe(source)
    start = [int(s) for s in start] + [0] * (len(dshape) - len(start))
    plan = _cached_plan("write_slice", dtype=dtype, rank=len(dshape), dest_shape=list(dshape), start=start,
                        end=[s + n for s, n in zip(start, sshape)])
    plan.run(DEST=dest, SOURCE=source, stream=stream)
    return dest
