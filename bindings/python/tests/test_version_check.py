"""Import refuses headers and a library of different versions, naming both."""
import os
import re
import shutil
import subprocess
import sys

import baracuda
from baracuda._header import header_dir
from baracuda._library import path_of

PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(baracuda.__file__)))


def _import_with_headers(include):
    env = dict(os.environ, BARACUDA_INCLUDE=include, BARACUDA_LIBRARY=path_of(baracuda._lib),
               PYTHONPATH=PACKAGE_PARENT)
    return subprocess.run([sys.executable, "-c", "import baracuda"], env=env, capture_output=True, text=True)


def test_the_same_version_imports():
    assert _import_with_headers(os.path.dirname(header_dir())).returncode == 0


def test_other_headers_are_refused_with_both_versions_and_paths(tmp_path):
    folder = tmp_path / "baracuda"
    shutil.copytree(header_dir(), folder)
    core = (folder / "core.h").read_text()
    (folder / "core.h").write_text(re.sub(r"(#define BARACUDA_VERSION_MINOR) \d+", r"\1 99", core))
    done = _import_with_headers(str(tmp_path))
    major, minor, patch = baracuda.version()
    assert done.returncode != 0
    message = done.stderr.strip().splitlines()[-1]
    assert message.startswith("ImportError: baracuda: the headers in")
    assert os.path.realpath(folder) in message and path_of(baracuda._lib) in message
    assert f"describe version {major}.99.{patch}" in message
    assert f"is version {major}.{minor}.{patch}" in message
