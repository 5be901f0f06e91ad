"""baracuda-kernels from Python: a thin ctypes layer over the C ABI.

Arrays come from any framework without copying (PyTorch tensors read
directly, others through __cuda_array_interface__ or DLPack), work runs on
the caller's stream, and failures raise BaracudaError with the library's
status and message. The descriptors, their defaults, constants and struct
layouts are read from the C headers, so every op family the headers declare
is reachable through Plan without new binding code. At import the headers
and the library must be the same version.

    import baracuda, torch
    x = torch.randn(4, 100, device="cuda")
    y = baracuda.pad(x, (3, 5), mode="reflect")          # like F.pad
    plan = baracuda.Plan("pad", dtype="f32", mode="reflect", rank=2,
                         input_shape=[4, 100], pad_low=[0, 3], pad_high=[0, 5])
    plan.run(X=x, Y=y)
"""
from ._abi import DTYPES, OPS, ROLES, BaracudaError
from ._abi import h as _h
from ._abi import lib as _lib
from ._ops import pad, pad_backward, write_slice
from ._plan import Plan
from ._slopes import alibi_slopes

__all__ = ["BaracudaError", "DTYPES", "OPS", "Plan", "ROLES", "alibi_slopes", "pad", "pad_backward", "version",
           "write_slice"]

# BARACUDA_OP_PAD -> baracuda.OP_PAD, BARACUDA_PAD_REFLECT -> baracuda.PAD_REFLECT, ...
globals().update({k[len("BARACUDA_"):]: v for k, v in _h.constants.items()})


def version():
    v = _lib.baracuda_version()
    return (v // 10000, v // 100 % 100, v % 100)
