"""Plan: a descriptor built from keyword fields, selected once, run many times."""
import ctypes

from . import _fast, _tensors
from ._abi import DTYPES, INVALID_PROBLEM, OPS, BaracudaError, h, lib, raise_status
from ._args import _NOTHING, Arguments, support_for

_S = h.structs


def _per_call(name):
    """The C function as called per run and check: without argtypes, since converting
    through them costs about as much as the C function itself (check: 0.66 us with them,
    0.33 without). Each argument is then given as its exact C type: the plan's c_void_p,
    the argument array (a pointer), an int (int32_t), c_void_p or None, c_size_t."""
    function = lib[name]
    function.restype = ctypes.c_int32
    return function


_run = _per_call("baracuda_plan_run")
_check = _per_call("baracuda_plan_check")
# The compiled fast path (see _fast), for calls without workspace while _run
# is the C function itself; it returns None for what it leaves to Python.
_C_RUN, _FAST_RUN, _FAST_RUN_NEW, _RUN_ADDRESS = _run, _fast.run, _fast.run_new, _fast.RUN_ADDRESS
_NO_BYTES = ctypes.c_size_t(0)
_NAMES = {v: k for k, v in OPS.items()}


def _ran_fast(address, roles, tensors, stream):
    """True when the compiled fast path made the call (raising on a status); False
    when the call is the Python path's."""
    if _FAST_RUN is None or _run is not _C_RUN:
        return False
    status = _FAST_RUN(_RUN_ADDRESS, address, roles, tensors, stream)
    if status is None:
        return False
    if status:
        raise_status(status)
    return True


def _checked(status):
    if status:
        raise_status(status)


class Plan:
    """A selected plan: Plan(op, **descriptor fields). op is a name ("pad") or id;
    fields not given keep the header's ..._DESC_INIT defaults; string field values
    name constants (dtype="bf16", weight_dtype="f32", mode="reflect"); lists fill array fields.
    target_sm plans without a GPU; flags are BARACUDA_SELECT_* bits."""

    def __init__(self, op, *, target_sm=0, device=-1, flags=0, **fields):
        op = OPS[op] if isinstance(op, str) else op
        if op not in h.descriptors:
            raise BaracudaError(INVALID_PROBLEM, f"op {op} has no descriptor")
        desc = h.new(h.descriptors[op])
        name = type(desc).__name__
        prefix = "BARACUDA_" + name[len("baracuda_"):-len("_desc_t")].upper() + "_"
        for key, value in fields.items():
            if key not in h.fields[name] or key == "header":
                raise TypeError(f"baracuda: {name} has no field {key!r} (fields: {', '.join(h.fields[name][1:])})")
            if isinstance(value, str):  # a dtype, or a constant named by the descriptor or by the field
                names = [prefix + value.upper(), "BARACUDA_" + key.upper() + "_" + value.upper()]
                known = [n for n in names if n in h.constants]
                is_dtype = key == "dtype" or key.endswith("_dtype")  # dtype, weight_dtype
                if is_dtype and value not in DTYPES:
                    raise ValueError(f"baracuda: {value!r} is not a dtype (dtypes: {', '.join(DTYPES)})")
                if not is_dtype and not known:
                    raise ValueError(f"baracuda: {value!r} is not a value of {key} (no {' or '.join(names)})")
                value = DTYPES[value] if is_dtype else h.constants[known[0]]
            if isinstance(value, (list, tuple)):
                array = getattr(desc, key)
                for i, v in enumerate(value):
                    array[i] = v
            else:
                setattr(desc, key, value)
        opts = h.new("BARACUDA_SELECT_OPTIONS_INIT")
        opts.device, opts.target_sm, opts.flags = device, target_sm, flags
        self._args = Arguments(_NAMES.get(op, f"op {op}"))
        self._pack = self._args.pack
        self._plan = ctypes.c_void_p()
        self._address = 0  # the plan's address as an int, for the fast path; 0 (NULL) once closed
        _checked(lib.baracuda_plan_select(ctypes.cast(ctypes.byref(desc), ctypes.POINTER(_S["baracuda_op_header_t"])),
                                          ctypes.byref(opts), ctypes.byref(self._plan)))
        self._address = self._plan.value

    def check(self, **arrays):
        """Everything run checks about arrays, launching nothing (no GPU needed)."""
        args, _, _keep = self._pack(tuple(arrays), arrays.values(), None)
        status = _check(self._plan, args, len(args))
        if status:
            raise_status(status)

    def run(self, workspace=None, stream=None, **arrays):
        """Enqueue on stream (an int cudaStream_t, or an object with cuda_stream or ptr;
        default: PyTorch's current stream for PyTorch tensors, else the legacy default
        stream); arrays by role: X=..., Y=...."""
        if stream is not None:
            stream = _tensors.stream_handle(stream)
        if workspace is None and _ran_fast(self._address, arrays, None, stream):
            return
        args, stream, _keep = self._pack(tuple(arrays), arrays.values(), stream)
        if workspace is None:  # no (pointer, bytes) pair to build and unpack on the common call
            status = _run(self._plan, args, len(args), None, _NO_BYTES, stream)
        else:
            status = _run(self._plan, args, len(args), *_workspace(workspace), stream)
        if status:
            raise_status(status)

    def enqueue(self, names, objs, stream, fresh=None):
        """run for the helpers, without workspace: objs in the roles names (a constant
        tuple), stream as run takes it, fresh the output the helper allocated (see
        Arguments.pack), or None."""
        if stream is not None:
            stream = _tensors.stream_handle(stream)
        if _ran_fast(self._address, names, objs, stream):
            return
        args, stream, _keep = self._pack(names, objs, stream, _NOTHING if fresh is None else fresh)
        status = _run(self._plan, args, len(args), None, _NO_BYTES, stream)
        if status:
            raise_status(status)

    def enqueue_new(self, names, x, shape, allocate, stream):
        """enqueue from x into a new array of x's kind, dtype and device and of shape (a
        tuple), which it returns: names are x's role and the new array's. The fast path
        has the framework allocate it from C; else allocate(x, shape) makes it."""
        if stream is not None:
            stream = _tensors.stream_handle(stream)
        if _FAST_RUN_NEW is not None and _run is _C_RUN:
            made = _FAST_RUN_NEW(_RUN_ADDRESS, self._address, names, x, shape, stream)
            if made is not None:
                _checked(made[0])
                return made[1]
        out = allocate(x, shape)
        self.enqueue(names, (x, out), stream, out)
        return out

    @property
    def workspace_size(self):
        n = ctypes.c_size_t()
        _checked(lib.baracuda_plan_workspace_size(self._plan, ctypes.byref(n)))
        return n.value

    @property
    def info(self):
        i = h.new("BARACUDA_PLAN_INFO_INIT")
        _checked(lib.baracuda_plan_get_info(self._plan, ctypes.byref(i)))
        out = {f: getattr(i, f) for f in h.fields["baracuda_plan_info_t"] if f not in ("struct_size", "reserved0")}
        out["kernel_name"] = i.kernel_name.decode()
        return out

    def close(self):
        if getattr(self, "_plan", None):
            self._address = 0
            lib.baracuda_plan_destroy(self._plan)
            self._plan = None

    __del__ = close


def _workspace(obj):
    """(pointer, bytes) of the array given as workspace, as C arguments."""
    support = support_for(obj)
    if support is not None:
        data, size = support.workspace(obj)
    else:
        data, dtype, shape, _, _ = _tensors.describe(obj)
        count = 1
        for n in shape:
            count *= n
        size = count * lib.baracuda_dtype_bits(DTYPES[dtype]) // 8
    return ctypes.c_void_p(data), ctypes.c_size_t(size)
