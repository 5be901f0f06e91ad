"""Reads the public C headers: every `#define BARACUDA_*` constant and every
`typedef struct ... } name;`, turned into ctypes. The Python side of the ABI is
derived from the headers, never written twice, so a new op family's
descriptor is usable from Python as soon as its header is."""
import ctypes
import os
import re

_SCALARS = {
    "int32_t": ctypes.c_int32,
    "uint32_t": ctypes.c_uint32,
    "int64_t": ctypes.c_int64,
    "uint64_t": ctypes.c_uint64,
    "double": ctypes.c_double,
    "float": ctypes.c_float,
    "char": ctypes.c_char,
    "void *": ctypes.c_void_p,
    "size_t": ctypes.c_size_t,
}
_DEFINE = re.compile(r"^#define\s+(BARACUDA_\w+)\s+(\S.*?)\s*(?:/\*.*)?$", re.M)
_STRUCT = re.compile(r"typedef struct (\w+) \{(.*?)\} (\w+);", re.S)
_TYPEDEF = re.compile(r"^typedef (\w+) (\w+);", re.M)
_FIELD = re.compile(r"^\s*([\w ]+?\s*\*?)\s*(\w+)(?:\[(\w+)\])?;", re.M)


def header_dir():
    """BARACUDA_INCLUDE, the package's own include/, the source tree, or the system's."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("BARACUDA_INCLUDE", ""), os.path.join(here, "include"),
                  os.path.join(here, "..", "..", "..", "include"), "/usr/local/include", "/usr/include"]
    for c in candidates:
        if c and os.path.isfile(os.path.join(c, "baracuda", "core.h")):
            return os.path.join(c, "baracuda")
    raise ImportError("baracuda: cannot find the headers (set BARACUDA_INCLUDE to the folder holding baracuda/core.h)")


def _strip_comments(text):
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


class Header:
    """Constants and ctypes Structures of every header in one folder, in include order."""

    def __init__(self, folder, files=None):
        if files is None:  # the umbrella header's includes, core.h first (the others build on it)
            with open(os.path.join(folder, "baracuda.h")) as f:
                files = re.findall(r'#include "baracuda/(\w+\.h)"', f.read())
            files = ["core.h"] + [n for n in files if n != "core.h"]
        self.constants = {}
        self.structs = {}
        self.fields = {}  # struct name -> [field name, ...] in declaration order
        self.descriptors = {}  # op id -> descriptor struct name, read from the ..._DESC_INIT macros
        types = dict(_SCALARS)
        inits = []
        for name in files:
            with open(os.path.join(folder, name)) as f:
                text = f.read()
            for key, value in _DEFINE.findall(text):
                value = value.strip()
                if re.fullmatch(r"-?\d+u?", value):
                    self.constants[key] = int(value.rstrip("u"))
                elif re.fullmatch(r"0x[0-9a-fA-F]+u?", value):
                    self.constants[key] = int(value.rstrip("u"), 16)
            inits += re.findall(r"sizeof\((baracuda_\w+_desc_t)\), (BARACUDA_OP_\w+)\}", text)
            body = _strip_comments(text)
            for alias, target in _TYPEDEF.findall(body):
                if target.startswith("baracuda_") and alias in types:
                    types[target] = types[alias]
            for tag, fields, name in _STRUCT.findall(body):
                layout = []
                for ftype, fname, count in _FIELD.findall(fields):
                    ftype = "void *" if "*" in ftype else ftype.strip()
                    ctype = types.get(ftype)
                    if ctype is None:
                        raise ImportError(f"baracuda: header type {ftype!r} of {name}.{fname} is not understood")
                    if count:
                        n = int(count) if count.isdigit() else self.constants[count]
                        ctype = ctype * n
                    layout.append((fname, ctype))
                struct = type(name, (ctypes.Structure,), {"_fields_": layout})
                types[name] = struct
                self.structs[name] = struct
                self.fields[name] = [f for f, _ in layout]
        for struct, op in inits:
            self.descriptors[self.constants[op]] = struct
