"""Every ..._INIT macro of the headers, as Python reads it, gives the bytes the
C compiler gives for `static const T v = MACRO;`, and Plan starts from it."""
import os
import re
import subprocess
import tempfile

import baracuda
from baracuda._header import header_dir


def c_images():
    lines = ["#include <stdio.h>", '#include "baracuda/baracuda.h"',
             "static void dump(const char *name, const void *p, size_t n) {",
             '  printf("%s ", name);',
             '  for (size_t i = 0; i < n; ++i) printf("%02x", ((const unsigned char *)p)[i]);',
             '  printf("\\n");', "}", "int main(void) {"]
    for macro, (struct, _) in baracuda._h.defaults.items():
        lines.append(f"  {{ static const {struct} v = {macro}; dump(\"{macro}\", &v, sizeof v); }}")
    lines += ["  return 0;", "}"]
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "defaults.c"), os.path.join(d, "defaults")
        with open(src, "w") as out:
            out.write("\n".join(lines))
        subprocess.run(["cc", "-std=c99", "-I", os.path.dirname(header_dir()), src, "-o", exe], check=True)
        printed = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    return dict(line.split(" ") for line in printed.splitlines())


def test_every_init_macro_is_read():
    folder = header_dir()
    declared = set()
    for name in os.listdir(folder):
        with open(os.path.join(folder, name)) as f:
            declared |= set(re.findall(r"#define (BARACUDA_\w+_INIT)\b", f.read()))
    assert declared == set(baracuda._h.defaults) and len(declared) >= 9


def test_defaults_match_the_c_compiler():
    c = c_images()
    for macro, (_, image) in baracuda._h.defaults.items():
        assert c[macro] == image.hex(), macro


def test_every_op_has_its_descriptor_defaults():
    assert set(baracuda._h.descriptors) == set(baracuda.OPS.values())
    update = baracuda._h.new("BARACUDA_CAUSAL_CONV1D_UPDATE_DESC_INIT")
    assert (update.header.op, update.width, update.seq_len, update.state_len) == (baracuda.OP_CAUSAL_CONV1D_UPDATE,
                                                                                  4, 1, 3)


def test_a_plan_starts_from_the_header_defaults():
    # width is left out: the header's 4 applies, as in C (0 would be UNSUPPORTED)
    plan = baracuda.Plan("causal_conv1d", target_sm=90, dtype="f32", batch=2, channels=8, seq_len=100)
    assert plan.info["kernel_name"]
