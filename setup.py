"""Build script for kvec's C extensions; all metadata lives in pyproject.toml.

Each extension kvec._<name> is built from the C files of its folder csrc/python/<name>/ (the binding:
arguments read and checked, results made) and the csrc/core/ files it lists (the algorithms, free of
Python); every extension is built warning-free with -Wall -Wextra (tests/test_native_build.py checks it).
"""

import os
from glob import glob

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

FLAGS = ["-O3", "-Wall", "-Wextra", "-fvisibility=hidden"]  # hidden: the extensions share no symbols
HEADERS = sorted(glob("csrc/python/**/*.h", recursive=True) + glob("csrc/core/*.h"))


def extension(name, *core):
    """kvec._<name> from csrc/python/<name>/*.c and the named files of csrc/core/."""
    folder = f"csrc/python/{name}"
    return Extension(
        f"kvec._{name}",
        sources=sorted(glob(f"{folder}/*.c")) + [f"csrc/core/{source}.c" for source in core],
        include_dirs=[folder, "csrc/python", "csrc/core"],
        depends=HEADERS,
        extra_compile_args=FLAGS,
        define_macros=[("KVEC_WITH_PYTHON", "1")],  # csrc/core/int64s.h: Python's raw allocator
    )


class BuildPy(build_py):
    """Also ships the sources of the TensorFlow op library (csrc/core, csrc/tf) inside the package, as
    kvec/_csrc: the library is built on first use against the user's TensorFlow (kvec/layers/op_library.py)."""

    def run(self):
        super().run()
        for folder in ("core", "tf"):
            self.copy_tree(os.path.join("csrc", folder), os.path.join(self.build_lib, "kvec", "_csrc", folder))


setup(
    cmdclass={"build_py": BuildPy},
    ext_modules=[
        extension("keras", "piece_map"),
        extension("subword", "piece_map", "bpe", "bpe_merges", "precompiled_charsmap"),
        extension("unigram", "unigram_trie", "unigram_path"),
        extension("jieba", "jieba_dict", "jieba_hmm", "jieba_cut"),
        extension("encoder"),
        extension("spec", *sorted(os.path.basename(path)[: -len(".c")] for path in glob("csrc/core/*.c"))),
    ],
)
