"""The loaded library and the headers describing it, checked to be the same
version, with the tables and the error type every other module uses."""
import ctypes

from ._header import Header, header_dir
from ._library import check_version, declare, load

h = Header(header_dir())
lib = load()
declare(lib, h)
check_version(lib, h)

DTYPES = {lib.baracuda_dtype_name(v).decode(): v for k, v in h.constants.items()
          if k.startswith("BARACUDA_DTYPE_") and 0 < v < h.constants["BARACUDA_DTYPE_COUNT"]}
ROLES = {k[len("BARACUDA_ARG_"):]: v for k, v in h.constants.items() if k.startswith("BARACUDA_ARG_")}
_ops = (ctypes.c_int32 * 64)()
OPS = {lib.baracuda_op_name(_ops[i]).decode(): _ops[i] for i in range(lib.baracuda_op_list(_ops, 64))}
INVALID_PROBLEM = h.constants["BARACUDA_STATUS_INVALID_PROBLEM"]


class BaracudaError(RuntimeError):
    """A non-zero status: .status (the code) and .message (the library's sentence)."""

    def __init__(self, status, message):
        self.status = status
        self.message = message
        super().__init__(f"{lib.baracuda_status_string(status).decode()} ({status}): {message}")


def raise_status(status):
    """The BaracudaError for a non-zero status, with this thread's last message."""
    raise BaracudaError(status, lib.baracuda_last_error_message().decode())
