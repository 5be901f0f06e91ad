#!/usr/bin/env python3
"""Rebuilds libbaracuda_kernels' host code (capi/, src/) from a meson build with
other flags, reusing that build's nvcc kernel objects, and links either the
fuzz target or a debug-info copy of the library.

Why: sanitizers and libFuzzer's coverage need clang on the host code only (nvcc
and ASan do not mix), and abidw needs DWARF that a release build lacks. Reading
the source list and flags from meson's compile database and link command keeps
this in step with meson.build as files come and go.

    rebuild-host.py fuzzer BASE_BUILD OUT_DIR   -> OUT_DIR/fuzz_plan
    rebuild-host.py abi    BASE_BUILD OUT_DIR   -> OUT_DIR/libbaracuda_kernels.so.<version>

OUT_DIR gets a build.ninja, so a second call rebuilds only what changed.
"""
import json
import os
import shlex
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARY = "baracuda_kernels"

SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
# -O1 -g keeps sanitizer reports readable without making each execution slow.
FUZZ_CXXFLAGS = ["-g", "-O1"] + SANITIZE
# Paths in the debug info relative to the checkout, so the ABI file is the same in every clone.
ABI_CXXFLAGS = ["-g", "-O0", f"-fdebug-prefix-map={REPO}=."]
CXX = {"fuzzer": "clang++-14", "abi": "c++"}


def library_target(base):
    out = subprocess.run(["meson", "introspect", "--targets", base], check=True, capture_output=True, text=True)
    for t in json.loads(out.stdout):
        if t["name"] == LIBRARY and t["type"] == "shared library":
            return os.path.basename(t["filename"][0])
    sys.exit(f"rebuild-host: {base} has no {LIBRARY} shared library target")


def link_command(base, library_file):
    out = subprocess.run(["ninja", "-C", base, "-t", "commands", library_file], check=True, capture_output=True,
                         text=True)
    return shlex.split(out.stdout.strip().splitlines()[-1])


def host_flags(entry):
    """The include, define and language flags of a compile command, with paths made absolute."""
    args = shlex.split(entry["command"])
    keep = []
    i = 1
    while i < len(args):
        a = args[i]
        if a in ("-I", "-isystem", "-D"):
            a, i = a + args[i + 1], i + 1
        if a.startswith(("-I", "-isystem")):
            flag = "-I" if a.startswith("-I") else "-isystem"
            path = a[len(flag):]
            keep.append(flag + os.path.normpath(os.path.join(entry["directory"], path)))
        elif a.startswith(("-D", "-std=")):
            keep.append(a)
        i += 1
    return keep


def host_sources(base, private_dir):
    with open(os.path.join(base, "compile_commands.json")) as f:
        db = json.load(f)
    return [e for e in db if e["output"].startswith(private_dir + "/") and not e["file"].endswith(".cu")]


def cuda_library_dir(flags):
    for f in flags:
        if f.startswith("-I") and os.path.isfile(os.path.join(f[2:], "cuda_runtime_api.h")):
            return os.path.join(os.path.dirname(f[2:]), "lib")
    sys.exit("rebuild-host: no CUDA include directory in the host compile flags")


def write_ninja(kind, base, out_dir):
    library_file = library_target(base)
    private_dir = library_file + ".p"
    entries = host_sources(base, private_dir)
    link = link_command(base, library_file)
    kernel_objects = [os.path.join(base, a) for a in link if a.startswith(private_dir + "/") and a.endswith(".cu.o")]
    # Objects the library takes from its helper static libraries (the cuDNN backend), linked as the release build made them.
    helper_objects = [os.path.join(base, a) for a in link if a.endswith(".o") and not a.startswith(private_dir + "/")]
    cxxflags = FUZZ_CXXFLAGS if kind == "fuzzer" else ABI_CXXFLAGS + ["-fPIC", "-fvisibility=hidden"]
    coverage = ["-fsanitize=fuzzer-no-link"] if kind == "fuzzer" else []

    lines = [
        f"cxx = {CXX[kind]}",
        "rule cxx",
        "  command = $cxx $flags -MD -MF $out.d -c $in -o $out",
        "  depfile = $out.d",
        "  deps = gcc",
        "  description = CXX $out",
        "rule link",
        "  command = $cmd",
        "  description = LINK $out",
        "",
    ]
    objects = []
    for e in entries:
        src = os.path.normpath(os.path.join(e["directory"], e["file"]))
        obj = os.path.join("host", os.path.basename(e["output"]))
        flags = host_flags(e) + cxxflags + coverage
        lines += [f"build {obj}: cxx {src}", f"  flags = {' '.join(map(shlex.quote, flags))}"]
        objects.append(obj)
    flags = host_flags(entries[0])

    if kind == "fuzzer":
        target = os.path.join(REPO, "tests", "fuzz", "fuzz_plan.cpp")
        lines += [f"build fuzz_plan.o: cxx {target}", f"  flags = {' '.join(map(shlex.quote, flags + cxxflags + coverage))}"]
        inputs = ["fuzz_plan.o"] + objects + kernel_objects + helper_objects
        cmd = [CXX[kind], "-fsanitize=fuzzer"] + SANITIZE + ["-o", "fuzz_plan"] + inputs + [
            "-L" + cuda_library_dir(flags), "-lcudart_static", "-ldl", "-lrt", "-lpthread"]
        output = "fuzz_plan"
    else:
        # meson's own link line, with our objects in place of the release ones.
        ours = {os.path.join(private_dir, os.path.basename(o)): os.path.abspath(os.path.join(out_dir, o))
                for o in objects}
        swapped = [ours.get(a, os.path.join(out_dir, library_file) if a == library_file else a) for a in link]
        cmd = ["cd", base, "&&"] + swapped
        inputs = objects + kernel_objects
        output = library_file
    command = " ".join(a if a == "&&" else shlex.quote(a) for a in cmd)
    lines += [f"build {output}: link {' '.join(inputs)}", f"  cmd = {command}"]
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "build.ninja"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return library_file, output


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in CXX:
        sys.exit(__doc__)
    kind, base, out_dir = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    library_file, output = write_ninja(kind, base, out_dir)
    # The kernels' objects and the generated config header come from the base build.
    subprocess.run(["ninja", "-C", base, library_file], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["ninja", "-C", out_dir], check=True)
    print(os.path.join(out_dir, output))


if __name__ == "__main__":
    main()
