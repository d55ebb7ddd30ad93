"""The C sources compile warning-free with -Wall -Wextra, and each stays a file a reader can hold."""

import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

CSRC = Path(__file__).resolve().parent.parent / "csrc"
CORE = CSRC / "core"  # Python-free: built into the extensions and into the TensorFlow op library
BINDINGS = CSRC / "python"  # one folder per extension, and the headers they share
SOURCES = sorted(BINDINGS.glob("*/*.c")) + sorted(CORE.glob("*.c"))
MAX_LINES = 800


def compiler():
    configured = (sysconfig.get_config_var("CC") or "").split()
    for candidate in ([configured[0]] if configured else []) + ["gcc", "cc", "clang"]:
        if shutil.which(candidate):
            return candidate
    pytest.skip("no C compiler")


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: path.name)
def test_each_source_compiles_without_warnings(source):
    command = [compiler(), "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-DKVEC_WITH_PYTHON=1"]
    command += [f"-I{sysconfig.get_paths()['include']}", f"-I{source.parent}", f"-I{BINDINGS}", f"-I{CORE}"]
    command += [str(source)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stderr) == (0, "")


@pytest.mark.parametrize("source", sorted(CORE.glob("*.c")), ids=lambda path: path.name)
def test_each_core_source_compiles_without_python(source):
    # the TensorFlow op library builds the core with no Python headers at all
    command = [compiler(), "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-std=c11", f"-I{CORE}", str(source)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stderr) == (0, "")


def test_there_are_sources():
    modules = {"keras_module.c", "subword_module.c", "unigram_module.c", "jieba_module.c", "spec_module.c"}
    assert modules <= {path.name for path in SOURCES}


@pytest.mark.parametrize(
    "path", sorted(CSRC.glob("**/*.[ch]")) + sorted(CSRC.glob("**/*.cc")), ids=lambda path: path.name
)
def test_no_source_file_is_longer_than_800_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


def test_the_tensorflow_kernels_compile_without_warnings():
    tf = pytest.importorskip("tensorflow")
    if not shutil.which("g++"):
        pytest.skip("no C++ compiler")
    flags = [f"-isystem{f[2:]}" if f.startswith("-I") else f for f in tf.sysconfig.get_compile_flags()]
    command = [
        "g++",
        "-fsyntax-only",
        "-Wall",
        "-Wextra",
        "-Werror",
        *flags,
        f"-I{CORE}",
        str(CSRC / "tf" / "kvec_ops.cc"),
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert (result.returncode, result.stderr) == (0, "")
