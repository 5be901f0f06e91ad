"""DLPack's C exchange API (DLPack 1.3: a PyCapsule named "dlpack_exchange_api"
on the tensor type, holding a table of C functions), made with ctypes over the
fake torch's tensors, so the fast path's exchange reader runs on the CPU. Its
dltensor_from_py_object_no_sync fills the DLTensor from the fake's attributes
and counts its calls; current_work_stream gives EXCHANGE_STREAM + device."""
import ctypes

import fake_torch
from fake_torch import Tensor

EXCHANGE_STREAM = 0x9000  # distinct from fake_torch.CURRENT_STREAM: shows which one a call used
KDL_CPU, KDL_CUDA = 1, 2
# fake dtype name -> DLPack (code, bits)
DL_DTYPES = {"float32": (2, 32), "float16": (2, 16), "bfloat16": (4, 16), "float64": (2, 64), "int32": (0, 32),
             "int64": (0, 64), "bool": (6, 8), "int8": (0, 8), "uint8": (1, 8), "int16": (0, 16),
             "complex64": (5, 64), "complex128": (5, 128)}


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32 * 2), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


_SET_ERROR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)
_ALLOCATE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(DLTensor), ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p,
                             _SET_ERROR)
_TO_OBJECT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
_FROM_OBJECT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(DLTensor))
_WORK_STREAM = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p))


class DLPackExchangeAPI(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("prev_api", ctypes.c_void_p),
                ("managed_tensor_allocator", _ALLOCATE), ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
                ("managed_tensor_to_py_object_no_sync", _TO_OBJECT),
                ("dltensor_from_py_object_no_sync", _FROM_OBJECT), ("current_work_stream", _WORK_STREAM)]


class ExchangeTensor(Tensor):
    """A fake tensor whose DLTensor may carry a byte_offset (the data pointer then
    lies that far before it), NULL strides (compact tensors only), or be refused
    by the exporter (as a framework may refuse some tensors)."""

    def __init__(self, shape, dtype, byte_offset=0, null_strides=False, refused=False, **kwargs):
        super().__init__(shape, dtype, **kwargs)
        self.byte_offset, self.null_strides, self.refused = byte_offset, null_strides, refused


class ExchangeParameter(ExchangeTensor):
    """Like torch.nn.Parameter: a subclass the API serves, that requires grad."""

    def __init__(self, shape, dtype):
        super().__init__(shape, dtype, requires_grad=True)


class OtherSubclass(ExchangeTensor):
    """A Tensor subclass the fast path must read through its attributes."""


_DTYPE_NAMES = {dl: name for name, dl in DL_DTYPES.items()}


class Api:
    """The table, its capsule, the count of DLTensor exports made, and the tensors its
    allocator made (each handed out as a managed tensor, then as the object)."""

    def __init__(self, major=1):
        self.exports = 0
        self.made = []
        self._keep = []  # the shape and stride arrays and managed tensors, alive while the test runs
        self._managed = {}  # managed tensor address -> the tensor it stands for
        self.table = DLPackExchangeAPI(major=major, minor=3, dltensor_from_py_object_no_sync=_FROM_OBJECT(self._export),
                                       current_work_stream=_WORK_STREAM(self._stream),
                                       managed_tensor_allocator=_ALLOCATE(self._allocate),
                                       managed_tensor_to_py_object_no_sync=_TO_OBJECT(self._to_object))
        new_capsule = ctypes.pythonapi.PyCapsule_New
        new_capsule.restype, new_capsule.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        self.capsule = new_capsule(ctypes.addressof(self.table), b"dlpack_exchange_api", None)

    def _export(self, address, out):
        obj = ctypes.cast(address, ctypes.py_object).value
        self.exports += 1
        if obj.refused:  # a framework would also set a Python error, which ctypes cannot leave set from here
            return -1
        self._fill(out.contents, obj)
        return 0

    def _fill(self, dl, obj):
        dl.data = obj.data_ptr() - obj.byte_offset
        dl.byte_offset = obj.byte_offset
        dl.device = DLDevice(KDL_CUDA if obj.is_cuda else KDL_CPU, max(obj.get_device(), 0))
        dl.dtype = DLDataType(*DL_DTYPES[obj.dtype.name], 1)
        dl.ndim = len(obj.shape)
        shape = (ctypes.c_int64 * max(dl.ndim, 1))(*obj.shape)
        strides = (ctypes.c_int64 * max(dl.ndim, 1))(*obj.stride())
        self._keep += [shape, strides]
        dl.shape = shape
        dl.strides = None if obj.null_strides else strides

    def _allocate(self, prototype, out, error_context, set_error):
        p = prototype.contents
        name = _DTYPE_NAMES[(p.dtype.code, p.dtype.bits)]
        tensor = ExchangeTensor([p.shape[d] for d in range(p.ndim)], getattr(fake_torch.torch, name))
        managed = DLManagedTensorVersioned()
        self._fill(managed.dl_tensor, tensor)
        self._keep.append(managed)
        self._managed[ctypes.addressof(managed)] = tensor
        out[0] = ctypes.addressof(managed)
        return 0

    def _to_object(self, address, out):
        tensor = self._managed.pop(address)
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(tensor))  # the reference handed over
        out[0] = id(tensor)
        self.made.append(tensor)
        return 0

    def _stream(self, device_type, device_id, out):
        out[0] = EXCHANGE_STREAM + device_id
        return 0
