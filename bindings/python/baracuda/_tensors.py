"""The generic way to view a framework's CUDA array without copying: through
__cuda_array_interface__ (CuPy, Numba) or DLPack's __dlpack__ (CuPy, JAX;
bf16 goes this way). PyTorch tensors take the faster way of _torch."""
import ctypes

# __cuda_array_interface__ typestr (kind + bytes) -> dtype name
_TYPESTR = {"f2": "f16", "f4": "f32", "f8": "f64", "i4": "i32", "i8": "i64", "b1": "bool", "i1": "s8", "u1": "u8",
            "c8": "complex32", "c16": "complex64"}
# DLPack (code, bits) -> dtype name
_DLPACK = {(2, 16): "f16", (2, 32): "f32", (2, 64): "f64", (4, 16): "bf16", (0, 8): "s8", (0, 32): "i32",
           (0, 64): "i64", (1, 8): "u8", (5, 64): "complex32", (5, 128): "complex64", (6, 8): "bool", (0, 4): "s4",
           (1, 4): "u4"}
_CUDA_DEVICES = (2, 3, 13)  # kDLCUDA, kDLCUDAHost, kDLCUDAManaged


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def describe(obj, stream=None):
    """(data pointer, dtype name, shape, element strides, keep-alive) of a CUDA array."""
    cai = None
    try:
        cai = obj.__cuda_array_interface__
    except (AttributeError, TypeError, RuntimeError):
        pass  # PyTorch raises TypeError for bf16
    if cai is not None and cai["typestr"][1:] not in _TYPESTR:
        if not hasattr(obj, "__dlpack__"):  # bf16 shows as an opaque '<V2'; DLPack names it
            raise TypeError(f"baracuda: __cuda_array_interface__ typestr {cai['typestr']!r} has no baracuda dtype")
        cai = None
    if cai is not None:
        typestr = cai["typestr"][1:]
        itemsize = int(typestr[1:])
        shape = tuple(int(n) for n in cai["shape"])
        if cai.get("strides") is None:
            strides, step = [], 1
            for n in reversed(shape):
                strides.insert(0, step)
                step *= n
        else:
            strides = [int(s) // itemsize for s in cai["strides"]]
        return cai["data"][0], _TYPESTR[typestr], shape, tuple(strides), obj
    if hasattr(obj, "__dlpack__"):
        capsule = obj.__dlpack__() if stream is None else obj.__dlpack__(stream=stream)
        t = _DLTensor.from_address(_get_pointer(capsule, b"dltensor"))
        if t.device.device_type not in _CUDA_DEVICES:
            raise TypeError("baracuda: the array is not in CUDA memory")
        key = (t.dtype.code, t.dtype.bits)
        if t.dtype.lanes != 1 or key not in _DLPACK:
            raise TypeError(f"baracuda: DLPack dtype {key} (lanes {t.dtype.lanes}) has no baracuda dtype")
        shape = tuple(t.shape[d] for d in range(t.ndim))
        if t.strides:
            strides = tuple(t.strides[d] for d in range(t.ndim))
        else:
            strides, step = [], 1
            for n in reversed(shape):
                strides.insert(0, step)
                step *= n
            strides = tuple(strides)
        return (t.data or 0) + t.byte_offset, _DLPACK[key], shape, strides, (obj, capsule)
    raise TypeError(f"baracuda: {type(obj).__name__} offers neither __cuda_array_interface__ nor __dlpack__")


def stream_handle(stream):
    """A cudaStream_t given as an int or as an object with cuda_stream (PyTorch,
    CuPy) or ptr (CuPy), as an int."""
    for attr in ("cuda_stream", "ptr"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    return int(stream)
