"""Every ctypes struct the package builds from the headers has the C
compiler's size and field offsets (a C program generated from the same
parsed headers prints them)."""
import os
import subprocess
import tempfile

import baracuda
from baracuda._header import header_dir


def c_layouts():
    lines = ["#include <stddef.h>", "#include <stdio.h>", '#include "baracuda/baracuda.h"', "int main(void) {"]
    for name, fields in baracuda._h.fields.items():
        lines.append(f'  printf("{name} %zu\\n", sizeof({name}));')
        for f in fields:
            lines.append(f'  printf("{name}.{f} %zu\\n", offsetof({name}, {f}));')
    lines += ["  return 0;", "}"]
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "layout.c"), os.path.join(d, "layout")
        with open(src, "w") as out:
            out.write("\n".join(lines))
        include = os.path.dirname(header_dir())
        subprocess.run(["cc", "-std=c99", "-I", include, src, "-o", exe], check=True)
        printed = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    return dict(line.rsplit(" ", 1) for line in printed.splitlines())


def test_every_struct_matches_the_c_compiler():
    c = c_layouts()
    assert len(baracuda._h.structs) >= 8
    for name, struct in baracuda._h.structs.items():
        assert int(c[name]) == __import__("ctypes").sizeof(struct), name
        for field in baracuda._h.fields[name]:
            assert int(c[f"{name}.{field}"]) == getattr(struct, field).offset, f"{name}.{field}"


def test_constants_come_from_the_headers():
    assert baracuda.OP_PAD == 1 and baracuda.PAD_REFLECT == 1 and baracuda.DTYPE_BF16 == 3
    assert baracuda.STATUS_WORKSPACE_TOO_SMALL == 4 and baracuda.ARG_DEST == 9
