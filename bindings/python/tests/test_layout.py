"""Every ctypes struct the package builds from the headers has the C
compiler's size and field offsets (a C program generated from the same
parsed headers prints them)."""
import baracuda
from c_program import printed_by


def c_layouts():
    lines = []
    for name, fields in baracuda._h.fields.items():
        lines.append(f'  printf("{name} %zu\\n", sizeof({name}));')
        for f in fields:
            lines.append(f'  printf("{name}.{f} %zu\\n", offsetof({name}, {f}));')
    return dict(line.rsplit(" ", 1) for line in printed_by(lines).splitlines())


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
