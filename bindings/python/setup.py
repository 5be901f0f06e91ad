"""Builds the package with the repository's C headers inside it (baracuda/include),
so an installed package reads the headers it was built from; the package's
version is the headers' BARACUDA_VERSION."""
import glob
import os
import re
import shutil

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HEADERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "include", "baracuda")


def _headers():
    if not os.path.isfile(os.path.join(HEADERS, "core.h")):
        raise SystemExit(f"baracuda: build from the repository: the headers are not in {os.path.realpath(HEADERS)}")
    return sorted(glob.glob(os.path.join(HEADERS, "*.h")))


def _version():
    with open(os.path.join(HEADERS, "core.h")) as f:
        parts = dict(re.findall(r"#define BARACUDA_VERSION_(MAJOR|MINOR|PATCH) (\d+)", f.read()))
    return f"{parts['MAJOR']}.{parts['MINOR']}.{parts['PATCH']}"


class BuildWithHeaders(build_py):
    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "baracuda", "include", "baracuda")
        os.makedirs(target, exist_ok=True)
        for header in _headers():
            shutil.copy(header, target)


_headers()
# The compiled fast path of Plan.run (baracuda/_baracuda_fast.c): optional, so a
# machine without a C compiler or Python's headers still gets the package.
fast_path = Extension("baracuda._baracuda_fast", ["baracuda/_baracuda_fast.c"],
                      include_dirs=[os.path.dirname(HEADERS)], optional=True)
setup(version=_version(), cmdclass={"build_py": BuildWithHeaders}, ext_modules=[fast_path])
