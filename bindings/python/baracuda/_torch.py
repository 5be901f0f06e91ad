"""PyTorch tensors read directly: data_ptr(), dtype, shape and stride() cost
a fraction of a microsecond each, where __cuda_array_interface__ builds a
dict and DLPack a capsule per call, and neither looks at autograd state (a
tensor that requires grad is read like any other). torch is never imported
here: a module is handed in by whoever saw one of its tensors."""

# torch dtype attribute -> baracuda dtype name (the attributes an older torch lacks are skipped)
_NAMES = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "float64": "f64", "int32": "i32", "int64": "i64",
          "bool": "bool", "int8": "s8", "uint8": "u8", "complex64": "complex32", "complex128": "complex64",
          "float8_e4m3fn": "fp8_e4m3", "float8_e5m2": "fp8_e5m2"}


def _no_dtype(dtype):
    raise TypeError(f"{dtype} has no baracuda dtype")


class TorchSupport:
    """Reads the tensors of one torch module and its current CUDA stream."""

    def __init__(self, torch, dtypes):
        self.torch = torch
        self.dtypes = {getattr(torch, a): dtypes[n] for a, n in _NAMES.items() if hasattr(torch, a)}
        self.complex = {getattr(torch, a) for a in ("complex64", "complex128") if hasattr(torch, a)}
        # what a call may read with no further question; a complex tensor may be a lazy view, so it goes through view
        self.plain = {dtype: code for dtype, code in self.dtypes.items() if dtype not in self.complex}
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self.current_stream = raw if raw is not None else lambda d: torch.cuda.current_stream(d).cuda_stream

    def dtype(self, t):
        """The baracuda dtype of t (TypeError when none)."""
        return self.dtypes.get(t.dtype) or _no_dtype(t.dtype)

    def view(self, t):
        """(data pointer, baracuda dtype, shape, element strides) of a CUDA tensor."""
        if not t.is_cuda:
            raise TypeError(f"the tensor is on {t.device}, not on a CUDA device")
        dtype = t.dtype
        code = self.dtypes.get(dtype) or _no_dtype(dtype)
        if dtype in self.complex and (t.is_conj() or t.is_neg()):  # lazy views: memory is not the values
            raise TypeError("the tensor is a lazy conj()/neg() view; call resolve_conj()/resolve_neg() first")
        return t.data_ptr(), code, t.shape, t.stride()

    def workspace(self, t):
        """(pointer, bytes) of a tensor given as workspace."""
        return t.data_ptr(), t.numel() * t.element_size()
