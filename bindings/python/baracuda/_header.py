"""Reads the public C headers: every `#define BARACUDA_*` constant, every
`typedef struct ... } name;` turned into ctypes, and every `..._INIT` macro
turned into the bytes of the struct it initializes. The Python side of the
ABI is derived from the headers, never written twice, so a new op family's
descriptor is usable from Python as soon as its header is, and starts from
the same defaults as in C."""
import ast
import ctypes
import operator
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
# C suffixes Python does not know: 4u (unsigned) and 0.5f (float)
_SUFFIXED = re.compile(r"\b(0x[0-9a-fA-F]+|\d+)[uU]\b|\b(\d+\.\d*|\d*\.\d+)[fF]\b")
_SIZEOF = re.compile(r"sizeof\((\w+)\)")
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}


def header_dir():
    """BARACUDA_INCLUDE, the package's own include/, the source tree, or the system's."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("BARACUDA_INCLUDE", ""), os.path.join(here, "include"),
                  os.path.join(here, "..", "..", "..", "include"), "/usr/local/include", "/usr/include"]
    for c in candidates:
        if c and os.path.isfile(os.path.join(c, "baracuda", "core.h")):
            return os.path.realpath(os.path.join(c, "baracuda"))
    raise ImportError("baracuda: cannot find the headers (set BARACUDA_INCLUDE to the folder holding baracuda/core.h)")


def _strip_comments(text):
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def _evaluate(expr, names):
    """The value of a C constant expression made of numbers, known names, +, - and *;
    None for anything else (attributes, strings, casts)."""
    try:
        tree = ast.parse(_SUFFIXED.sub(lambda m: m.group(1) or m.group(2), expr.strip()), mode="eval").body
    except SyntaxError:
        return None

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](value(node.left), value(node.right))
        raise ValueError(expr)

    try:
        return value(tree)
    except ValueError:
        return None


def _braces(text):
    """A C brace initializer as nested lists of the terms' text."""
    stack = [[]]
    for token in re.findall(r"[{},]|[^{},]+", text):
        if token == "{":
            stack.append([])
        elif token == "}":
            inner = stack.pop()
            stack[-1].append(inner)
        elif token != "," and token.strip():
            stack[-1].append(token.strip())
    if len(stack) != 1 or len(stack[0]) != 1 or not isinstance(stack[0][0], list):
        raise ImportError(f"baracuda: the initializer {text!r} is not understood")
    return stack[0][0]


def _scalars(ctype, offset, items, where):
    """(offset, scalar ctype, term) for each term of a brace list over ctype;
    members the list leaves out stay zero, as in C."""
    if issubclass(ctype, ctypes.Structure):
        members = [(getattr(ctype, f).offset, t, f"{where}.{f}") for f, t in ctype._fields_]
    else:
        size = ctypes.sizeof(ctype._type_)
        members = [(i * size, ctype._type_, f"{where}[{i}]") for i in range(ctype._length_)]
    if len(items) > len(members):
        raise ImportError(f"baracuda: the initializer of {where} has {len(items)} values for {len(members)} members")
    for (at, mtype, name), item in zip(members, items):
        aggregate = issubclass(mtype, (ctypes.Structure, ctypes.Array))
        if aggregate != isinstance(item, list):
            raise ImportError(f"baracuda: the initializer of {name} is not understood (braces must match the members)")
        if aggregate:
            yield from _scalars(mtype, offset + at, item, name)
        else:
            yield offset + at, mtype, item


class Header:
    """Constants, ctypes Structures and _INIT defaults of every header in one folder, in include order."""

    def __init__(self, folder, files=None):
        if files is None:  # the umbrella header's includes, core.h first (the others build on it)
            with open(os.path.join(folder, "baracuda.h")) as f:
                files = re.findall(r'#include "baracuda/(\w+\.h)"', f.read())
            files = ["core.h"] + [n for n in files if n != "core.h"]
        self.folder = folder
        self.constants = {}
        self.structs = {}
        self.fields = {}  # struct name -> [field name, ...] in declaration order
        self.defaults = {}  # ..._INIT macro name -> (struct name, the initialized struct's bytes)
        self.descriptors = {}  # op id -> the ..._INIT macro of its descriptor
        types = dict(_SCALARS)
        inits = []
        for name in files:
            with open(os.path.join(folder, name)) as f:
                text = _strip_comments(f.read()).replace("\\\n", " ")
            for key, value in _DEFINE.findall(text):
                if key.endswith("_INIT"):
                    inits.append((key, value))
                    continue
                number = _evaluate(value, self.constants)
                if number is not None:
                    self.constants[key] = number
            for alias, target in _TYPEDEF.findall(text):
                if target.startswith("baracuda_") and alias in types:
                    types[target] = types[alias]
            for tag, fields, name in _STRUCT.findall(text):
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
        for macro, text in inits:
            self._read_init(macro, text)

    def _read_init(self, macro, text):
        """An ..._INIT macro: its struct is the one its first sizeof() names
        (the struct_size member of every versioned struct and descriptor)."""
        first = _SIZEOF.search(text)
        if first is None or first.group(1) not in self.structs:
            raise ImportError(f"baracuda: {macro} names no struct of the headers in a sizeof()")
        struct = self.structs[first.group(1)]
        sizes = {f"sizeof({n})": ctypes.sizeof(s) for n, s in self.structs.items()}
        image = bytearray(ctypes.sizeof(struct))
        for offset, ctype, term in _scalars(struct, 0, _braces(text), macro):
            value = sizes[term] if term in sizes else _evaluate(term, self.constants)
            if value is None:
                raise ImportError(f"baracuda: the term {term!r} of {macro} is not understood")
            ctype.from_buffer(image, offset).value = bytes([value]) if ctype is ctypes.c_char else value
        self.defaults[macro] = (first.group(1), bytes(image))
        if self.fields[first.group(1)][0] == "header":
            self.descriptors[self.new(macro).header.op] = macro

    def new(self, macro):
        """A struct filled as `T v = MACRO;` fills it in C."""
        name, image = self.defaults[macro]
        return self.structs[name].from_buffer_copy(image)
