"""A stand-in for the torch attributes the binding reads (Tensor.data_ptr,
shape, stride, dtype, is_cuda ...), so the PyTorch path runs on a machine
without torch or a GPU: in the CPU tests, and for CPU-side timing of that
path through Plan.check. Pointers are made up; nothing dereferences them.
Like torch, dtypes are singletons while shape, stride() and device build a
new object per read, so a cache that relied on their identity would fail
here as it would with torch."""
import itertools
import types


class dtype:
    def __init__(self, name, itemsize, is_complex=False):
        self.name, self.itemsize, self.is_complex = name, itemsize, is_complex

    def __repr__(self):
        return f"torch.{self.name}"


class Size(tuple):
    pass


class device:
    def __init__(self, kind, index):
        self.type, self.index = kind, index

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"


_addresses = itertools.count(0x7F0000000000, 1 << 20)


class Tensor:
    def __init__(self, shape, dtype, device="cuda", strides=None, requires_grad=False, conj=False):
        self._shape = tuple(shape)
        self.dtype = dtype
        self._device = (device, 0 if device == "cuda" else None)
        self.requires_grad = requires_grad
        self._conj = conj
        self._address = next(_addresses)
        if strides is None:
            strides, step = [], 1
            for n in reversed(self._shape):
                strides.insert(0, step)
                step *= n
        self._strides = list(strides)

    @property
    def shape(self):
        return Size(self._shape)

    @property
    def device(self):
        return globals()["device"](*self._device)

    @property
    def is_cuda(self):
        return self._device[0] == "cuda"

    def data_ptr(self):
        return self._address

    def stride(self):
        return tuple(self._strides)

    def get_device(self):
        return self._device[1] if self.is_cuda else -1

    def is_conj(self):
        return self._conj

    def is_neg(self):
        return False

    def numel(self):
        count = 1
        for n in self._shape:
            count *= n
        return count

    def element_size(self):
        return self.dtype.itemsize

    def new_empty(self, shape):
        return Tensor(shape, self.dtype, self._device[0])


class Parameter(Tensor):
    """Like torch.nn.Parameter: a Tensor subclass that requires grad."""

    def __init__(self, shape, dtype):
        super().__init__(shape, dtype, requires_grad=True)


CURRENT_STREAM = 0x5000  # what the raw-stream getter returns for device 0


def _module():
    """A module object named torch with the dtypes, Tensor and the raw-stream getter."""
    torch = types.ModuleType("torch")
    torch.Tensor, torch.Size, torch.device = Tensor, Size, device
    for name, size in [("float32", 4), ("float16", 2), ("bfloat16", 2), ("float64", 8), ("int32", 4), ("int64", 8),
                       ("bool", 1), ("int8", 1), ("uint8", 1), ("int16", 2)]:
        setattr(torch, name, dtype(name, size))
    torch.complex64, torch.complex128 = dtype("complex64", 8, True), dtype("complex128", 16, True)
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda index: CURRENT_STREAM + index)
    return torch


# One module for the process: the binding keys what it learnt on the Tensor class.
torch = _module()
