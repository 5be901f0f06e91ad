"""Framework-style helpers over Plan. Each caches its plan, output shape and
allocator on a key built from what the call was given (kind, dtype, shape,
pads, mode ...), so a repeated call costs a dict lookup, an allocation and a
Plan.enqueue, which packs only the pointer of the allocated output. Entries are truthy, so `_plans.get(key) or _remember(key, ...)`
plans only on a miss."""
from ._abi import DTYPES
from ._args import dtype_and_shape, support_for
from ._plan import Plan

_NAMES = {v: k for k, v in DTYPES.items()}
_X_Y, _DY_DX, _DEST_SOURCE = ("X", "Y"), ("DY", "DX"), ("DEST", "SOURCE")  # role names as Plan.enqueue takes them
_plans = {}  # call key -> (plan, output shape, allocator), or the plan alone for write_slice


def _remember(key, entry):
    if len(_plans) > 256:
        _plans.clear()
    _plans[key] = entry
    return entry


def _signature(x):
    """x's kind, dtype and shape for a cache key: the framework's own objects where it
    has them (no conversion per call; they decide the plan as much as baracuda's do),
    and the kind because it decides the allocator."""
    try:
        return type(x), x.dtype, x.shape
    except AttributeError:  # an array known only by __cuda_array_interface__ or __dlpack__
        return (type(x), *dtype_and_shape(x))


def _allocator(like):
    """A function (like, shape) -> a new array of like's kind, dtype and device."""
    if support_for(like) is not None:
        return type(like).new_empty  # PyTorch's cheapest allocation, called with no Python frame around it
    if type(like).__module__.split(".")[0] == "cupy":
        return _cupy_empty
    return _cannot_allocate


def _cupy_empty(like, shape):
    import cupy

    return cupy.empty(shape, dtype=like.dtype)


def _cannot_allocate(like, shape):
    raise TypeError(f"baracuda: cannot allocate a {type(like).__name__}; pass out=")


def _per_axis(pad, rank):
    """F.pad's (last_low, last_high, next_low, ...) as per-axis lists."""
    if len(pad) % 2 or len(pad) // 2 > rank:
        raise ValueError(f"baracuda: pad {pad} does not fit rank {rank}")
    low, high = [0] * rank, [0] * rank
    for i in range(len(pad) // 2):
        low[rank - 1 - i], high[rank - 1 - i] = int(pad[2 * i]), int(pad[2 * i + 1])
    return low, high


def _pad_plan(op, dtype, in_shape, low, high, mode, **value):
    return Plan(op, dtype=_NAMES[dtype], mode=mode, rank=len(in_shape), input_shape=in_shape, pad_low=low,
                pad_high=high, **value)


def _make_pad(x, pad, mode, value):
    dtype, shape = dtype_and_shape(x)
    low, high = _per_axis(pad, len(shape))
    real, imag = (value.real, value.imag) if isinstance(value, complex) else (float(value), 0.0)
    plan = _pad_plan("pad", dtype, list(shape), low, high, mode, value=real, value_imag=imag)
    return plan, tuple(n + a + b for n, a, b in zip(shape, low, high)), _allocator(x)


def _make_pad_backward(dy, pad, mode):
    dtype, shape = dtype_and_shape(dy)
    low, high = _per_axis(pad, len(shape))
    in_shape = tuple(n - a - b for n, a, b in zip(shape, low, high))
    return _pad_plan("pad_backward", dtype, list(in_shape), low, high, mode), in_shape, _allocator(dy)


def _into(plan, names, x, out, allocate, shape, stream):
    """Runs plan from x into out, into a new array like x when the caller gave none."""
    if out is None:
        return plan.enqueue_new(names, x, shape, allocate, stream)
    plan.enqueue(names, (x, out), stream)
    return out


def pad(x, pad, mode="constant", value=0.0, out=None, stream=None):
    """torch.nn.functional.pad semantics on any axis; returns out."""
    key = ("pad", _signature(x), tuple(pad), mode, value)
    plan, out_shape, allocate = _plans.get(key) or _remember(key, _make_pad(x, pad, mode, value))
    return _into(plan, _X_Y, x, out, allocate, out_shape, stream)


def pad_backward(dy, pad, mode="constant", out=None, stream=None):
    """The gradient of pad(x, pad, mode) with respect to x, given dy."""
    key = ("pad_backward", _signature(dy), tuple(pad), mode)
    plan, in_shape, allocate = _plans.get(key) or _remember(key, _make_pad_backward(dy, pad, mode))
    return _into(plan, _DY_DX, dy, out, allocate, in_shape, stream)


def _make_write_slice(dtype, dest_shape, source_shape, start):
    start = [int(s) for s in start] + [0] * (len(dest_shape) - len(start))
    end = [s + n for s, n in zip(start, source_shape)]
    return Plan("write_slice", dtype=_NAMES[dtype], rank=len(dest_shape), dest_shape=list(dest_shape), start=start,
                end=end)


def write_slice(dest, source, start, stream=None):
    """dest[start[0]:start[0]+source.shape[0], ...] = source, in place; returns dest."""
    key = ("write_slice", _signature(dest), _signature(source)[2], tuple(start))
    plan = _plans.get(key) or _remember(key, _make_write_slice(*dtype_and_shape(dest), dtype_and_shape(source)[1],
                                                                start))
    plan.enqueue(_DEST_SOURCE, (dest, source), stream)
    return dest
