"""Compiles and runs a C program against the package's headers; returns what it printed."""
import os
import subprocess
import tempfile

from baracuda._header import header_dir


def printed_by(statements, definitions=()):
    """What main() printed, main() being the given statements."""
    program = ["#include <stddef.h>", "#include <stdio.h>", '#include "baracuda/baracuda.h"', *definitions,
               "int main(void) {", *statements, "  return 0;", "}"]
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "program.c"), os.path.join(d, "program")
        with open(src, "w") as out:
            out.write("\n".join(program))
        subprocess.run(["cc", "-std=c99", "-I", os.path.dirname(header_dir()), src, "-o", exe], check=True)
        return subprocess.run([exe], check=True, capture_output=True, text=True).stdout
