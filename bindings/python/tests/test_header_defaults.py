"""Every ..._INIT macro of the headers, as Python reads it, gives the bytes the
C compiler gives for `static const T v = MACRO;`, and Plan starts from it."""
import os
import re

import baracuda
from baracuda._header import header_dir
from c_program import printed_by


def c_images():
    dump = ["static void dump(const char *name, const void *p, size_t n) {",
            '  printf("%s ", name);',
            '  for (size_t i = 0; i < n; ++i) printf("%02x", ((const unsigned char *)p)[i]);',
            '  printf("\\n");', "}"]
    lines = [f"  {{ static const {struct} v = {macro}; dump(\"{macro}\", &v, sizeof v); }}"
             for macro, (struct, _) in baracuda._h.defaults.items()]
    return dict(line.split(" ") for line in printed_by(lines, dump).splitlines())


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
