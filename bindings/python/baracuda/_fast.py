"""The compiled fast path of Plan.run and Plan.enqueue (_baracuda_fast.c),
where one was built: inside the package (pip builds it when a C compiler
and Python's headers are at hand) or next to the loaded library (the meson
build puts it there). BARACUDA_PYTHON_FASTPATH=0 turns it off; without it
every call takes the Python path, with the same results."""
import ctypes
import importlib.util
import os
import sysconfig

from ._abi import ROLES, lib
from ._library import path_of

_MODULE = "_baracuda_fast"


def _load():
    if os.environ.get("BARACUDA_PYTHON_FASTPATH", "1") == "0":
        return None
    try:
        from . import _baracuda_fast

        return _baracuda_fast
    except ImportError:
        pass
    path = os.path.join(os.path.dirname(path_of(lib)), _MODULE + sysconfig.get_config_var("EXT_SUFFIX"))
    if not os.path.isfile(path):
        return None
    spec = importlib.util.spec_from_file_location(_MODULE, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


module = _load()
# run(plan_run address, plan address, roles, tensors, stream) -> status, or None: see _baracuda_fast.c
run = module.run if module is not None else None
# run_new(plan_run address, plan address, role names, x, shape, stream) -> (status, new output), or None
run_new = module.run_new if module is not None else None
RUN_ADDRESS = ctypes.cast(lib.baracuda_plan_run, ctypes.c_void_p).value
_ROLE_CODES = {spelling: role for name, role in ROLES.items() for spelling in (name, name.lower())}


def exchange_types(torch):
    """The types whose tensors the fast path may read through DLPack's C exchange API:
    torch.Tensor and torch.nn.Parameter (a plain holder of a tensor), no other subclass."""
    parameter = getattr(getattr(torch, "nn", None), "Parameter", None)
    return (torch.Tensor,) if parameter is None else (torch.Tensor, parameter)


def setup(torch, support):
    """Hands the fast path torch's tensor type, plain dtypes and stream function (support: a TorchSupport)."""
    if module is not None:
        module.setup(torch.Tensor, support.plain, _ROLE_CODES, support.current_stream, exchange_types(torch))
