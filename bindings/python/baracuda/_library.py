"""Finds and loads libbaracuda_kernels, declares the C functions, and checks
that the library is the version the headers describe."""
import ctypes
import os

_NAME = "libbaracuda_kernels.so.0"


def load():
    """BARACUDA_LIBRARY (a path), the package's folder, or the system loader."""
    here = os.path.dirname(os.path.abspath(__file__))
    tried = []
    for path in (os.environ.get("BARACUDA_LIBRARY", ""), os.path.join(here, _NAME), _NAME):
        if not path:
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path}: {e}")
    raise ImportError("baracuda: cannot load the library; set BARACUDA_LIBRARY. Tried:\n  " + "\n  ".join(tried))


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p), ("dli_sname", ctypes.c_char_p),
                ("dli_saddr", ctypes.c_void_p)]


def path_of(lib):
    """The file the dynamic loader opened for lib (the name it was asked for when dladdr cannot tell)."""
    try:
        dladdr = ctypes.CDLL(None).dladdr
    except AttributeError:
        return lib._name
    info = _DlInfo()
    if dladdr(ctypes.cast(lib.baracuda_version, ctypes.c_void_p), ctypes.byref(info)) and info.dli_fname:
        return os.path.realpath(info.dli_fname.decode())
    return lib._name


def _dotted(version):
    return f"{version // 10000}.{version // 100 % 100}.{version % 100}"


def check_version(lib, h):
    """ImportError unless the headers' BARACUDA_VERSION is the loaded library's baracuda_version()."""
    theirs, ours = lib.baracuda_version(), h.constants.get("BARACUDA_VERSION")
    if theirs != ours:
        header = "no BARACUDA_VERSION" if ours is None else f"version {_dotted(ours)}"
        raise ImportError(f"baracuda: the headers in {h.folder} describe {header} but the library {path_of(lib)} is "
                          f"version {_dotted(theirs)}; point BARACUDA_INCLUDE and BARACUDA_LIBRARY at one build")


def declare(lib, h):
    """Argument and result types of every exported function."""
    s = h.structs
    P = ctypes.POINTER
    plan = ctypes.c_void_p
    sigs = {
        "baracuda_plan_select": (ctypes.c_int32, [P(s["baracuda_op_header_t"]), P(s["baracuda_select_options_t"]), P(plan)]),
        "baracuda_plan_workspace_size": (ctypes.c_int32, [plan, P(ctypes.c_size_t)]),
        "baracuda_plan_check": (ctypes.c_int32, [plan, P(s["baracuda_arg_t"]), ctypes.c_int32]),
        "baracuda_plan_run": (ctypes.c_int32, [plan, P(s["baracuda_arg_t"]), ctypes.c_int32, ctypes.c_void_p,
                                               ctypes.c_size_t, ctypes.c_void_p]),
        "baracuda_plan_get_info": (ctypes.c_int32, [plan, P(s["baracuda_plan_info_t"])]),
        "baracuda_plan_destroy": (None, [plan]),
        "baracuda_status_string": (ctypes.c_char_p, [ctypes.c_int32]),
        "baracuda_last_error_message": (ctypes.c_char_p, []),
        "baracuda_version": (ctypes.c_uint32, []),
        "baracuda_dtype_name": (ctypes.c_char_p, [ctypes.c_int32]),
        "baracuda_dtype_bits": (ctypes.c_int32, [ctypes.c_int32]),
        "baracuda_op_list": (ctypes.c_int32, [P(ctypes.c_int32), ctypes.c_int32]),
        "baracuda_op_name": (ctypes.c_char_p, [ctypes.c_int32]),
        "baracuda_op_dtype_mask": (ctypes.c_uint64, [ctypes.c_int32]),
        "baracuda_get_build_info": (ctypes.c_int32, [P(s["baracuda_build_info_t"])]),
        "baracuda_alibi_slopes": (ctypes.c_int32, [ctypes.c_int32, P(ctypes.c_float)]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
