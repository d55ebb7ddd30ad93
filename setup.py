"""Build script for kvec's C extensions; all metadata lives in pyproject.toml.

The C sources are in csrc/, one file per Python consumer (see each file's first comment); every
extension is built warning-free with -Wall -Wextra (tests/test_native_build.py checks it).
"""

import os
from glob import glob

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

FLAGS = ["-O3", "-Wall", "-Wextra", "-fvisibility=hidden"]  # hidden: the extensions share no symbols
HEADERS = sorted(glob("csrc/*.h") + glob("csrc/core/*.h"))


def extension(name, *sources):
    return Extension(
        f"kvec.{name}",
        sources=[f"csrc/{source}.c" for source in sources],
        include_dirs=["csrc", "csrc/core"],
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
        extension("_keras", "keras_module", "keras_words", "padding"),
        extension(
            "_subword",
            "subword_module",
            "bpe_model",
            "bpe_trainer",
            "wordpiece_model",
            "bottom_up_trainer",
            "charsmap",
            "core/piece_map",
            "core/wordpiece",
            "core/bpe",
            "core/bpe_merges",
        ),
        extension(
            "_unigram",
            "unigram_module",
            "unigram_seeds",
            "unigram_lattice",
            "unigram_encoder",
            "core/unigram_trie",
            "core/unigram_path",
        ),
        extension(
            "_jieba",
            "jieba_module",
            "jieba_dictionary",
            "jieba_cutter",
            "core/jieba_dict",
            "core/jieba_hmm",
            "core/jieba_cut",
        ),
        extension("_encoder", "word_encoder", "core/expressions", "char_rules", "id_rows", "piece_table"),
    ],
)
