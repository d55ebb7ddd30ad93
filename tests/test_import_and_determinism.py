"""The core imports without TensorFlow/Keras, and outputs do not depend on PYTHONHASHSEED."""

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

BLOCK_TENSORFLOW = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("tensorflow", "keras", "tf_keras", "jax", "torch"):
            raise ImportError(f"{name} is blocked in this test")
sys.meta_path.insert(0, Block())
import kvec
tok = kvec.Tokenizer(num_words=5, oov_token="?")
tok.fit_on_texts(["a b c", "a b"])
print(kvec.pad_sequences(tok.texts_to_sequences(["a b z"]), maxlen=4).tolist())
assert not any(m.split(".")[0] in ("tensorflow", "keras") for m in sys.modules)
"""

FIT_AND_DUMP = """
import kvec
texts = ["b a c", "c d e a", "e e f", "g h a b", "x y z w v u"] * 3
tok = kvec.Tokenizer(oov_token="<OOV>")
tok.fit_on_texts(texts)
print(tok.to_json())
print(kvec.hashing_trick("some stable words", 97, hash_function="md5"))
"""


def run(code, **env):
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, env={**os.environ, **env}
    ).stdout


def test_import_without_tensorflow_or_keras():
    assert run(BLOCK_TENSORFLOW).strip() == "[[0, 2, 3, 1]]"


def test_output_is_identical_across_hash_seeds():
    outputs = {run(FIT_AND_DUMP, PYTHONHASHSEED=str(seed)) for seed in (0, 1, 2, 3, 12345)}
    assert len(outputs) == 1
