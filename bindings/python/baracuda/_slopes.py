"""The ALiBi paper's slopes, from the library's host-side helper."""
import ctypes

from ._abi import lib, raise_status


def alibi_slopes(n):
    """The n ALiBi slopes (Press et al.) as a list of floats, head 0 first:
    2^(-8k/n) for n a power of two, the interleaved rule otherwise
    (include/baracuda/alibi.h). BaracudaError for n < 1."""
    out = (ctypes.c_float * max(n, 1))()
    status = lib.baracuda_alibi_slopes(n, out)
    if status != 0:
        raise_status(status)
    return list(out[:n])
