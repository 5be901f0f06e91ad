"""The package as setup.py builds it carries the headers it was built from and
reads them from its own folder."""
import os
import subprocess
import sys

import pytest

import baracuda
from baracuda._header import header_dir
from baracuda._library import path_of

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(baracuda.__file__)))


def test_a_built_package_reads_its_own_headers(tmp_path):
    pytest.importorskip("setuptools")
    subprocess.run([sys.executable, "setup.py", "-q", "build", "--build-base", str(tmp_path), "--build-lib",
                    str(tmp_path / "lib"), "build_py"], cwd=PROJECT, check=True, capture_output=True)
    built = tmp_path / "lib" / "baracuda"
    assert sorted(os.listdir(built / "include" / "baracuda")) == sorted(os.listdir(header_dir()))
    env = {k: v for k, v in os.environ.items() if k != "BARACUDA_INCLUDE"}
    env.update(BARACUDA_LIBRARY=path_of(baracuda._lib), PYTHONPATH=str(tmp_path / "lib"))
    printed = subprocess.run([sys.executable, "-c", "import baracuda; print(baracuda._h.folder)"], cwd=tmp_path,
                             env=env, check=True, capture_output=True, text=True).stdout
    assert printed.strip() == os.path.realpath(built / "include" / "baracuda")
