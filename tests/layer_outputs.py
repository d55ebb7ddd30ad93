"""Outputs of text vectorization layers on the Keras backend this process runs (``KERAS_BACKEND``), for
tests/test_layers_backends.py, which runs it once per backend and compares.

    python tests/layer_outputs.py CASES.json OUT.json [--oracle]

Each case: ``{"args": {...}, "tokenizer": null | kind, "train": [...], "test": [...], "save": path,
"load": path, "kvec_layer": bool}``. With ``--oracle`` a case without a tokenizer runs
``keras.layers.TextVectorization`` (on TensorFlow, Keras' own layer) unless ``kvec_layer``; otherwise
``kvec.layers.TextVectorization``. ``save`` writes the
adapted layer in a one-layer model to a ``.keras`` file; ``load`` reads one instead of adapting.
Each output is written as nested lists with its array type and dtype, and whether that type is the
backend's own array.
"""

import importlib.util
import json
import sys

import keras
import numpy as np

import kvec.layers
from kvec import Tokenizer
from kvec.chinese import Jieba
from kvec.presets import keras_subword
from kvec.pretokenizers import Whitespace

BACKEND = keras.backend.backend()
HAS_TF = importlib.util.find_spec("tensorflow") is not None


def tokenizer_of(kind):
    if kind is None:
        return None
    if kind == "keras_oov":
        return Tokenizer(oov_token="<unk>")
    if kind == "keras_subword":
        return Tokenizer(subword="bpe", vocab_size=70)
    if kind == "jieba":
        return Jieba()
    if kind == "whitespace":
        return Whitespace()
    return keras_subword(kind, {"bytelevel_bpe": 300, "unigram": 300}.get(kind, 60))


def native_type(value):
    """Whether ``value`` is the backend's own array type."""
    if BACKEND == "jax":
        import jax

        return isinstance(value, jax.Array)
    if BACKEND == "torch":
        import torch

        return isinstance(value, torch.Tensor)
    if BACKEND == "tensorflow":
        import tensorflow as tf

        return tf.is_tensor(value)
    return isinstance(value, np.ndarray)


def listed(value):
    if isinstance(value, list):
        return value, "list"
    if hasattr(value, "to_list"):  # a tf.RaggedTensor
        return value.to_list(), "ragged"
    array = keras.ops.convert_to_numpy(value)
    return array.tolist(), str(array.dtype)


def run(case, oracle):
    args = dict(case["args"])
    if "ngrams" in args and isinstance(args["ngrams"], list):
        args["ngrams"] = tuple(args["ngrams"])
    if case.get("load"):
        model = keras.models.load_model(case["load"])
        layer = model.layers[-1]
    else:
        if oracle and case["tokenizer"] is None and not case.get("kvec_layer"):
            layer = keras.layers.TextVectorization(**args)
        else:
            layer = kvec.layers.TextVectorization(tokenizer=tokenizer_of(case["tokenizer"]), **args)
        if "vocabulary" not in args:
            layer.adapt(case["train"])
    if case.get("save"):
        inputs = keras.Input(shape=(), dtype="string")
        keras.Model(inputs, layer(inputs)).save(case["save"])
    output = layer(case["test"])
    values, dtype = listed(output)
    if not oracle:  # an array of the same texts gives the same outputs as the list
        again = listed(layer(np.array(case["test"], dtype=object)))[0]
        if again != values:
            raise AssertionError(f"an object array of the texts gives {again}, the list {values}")
    result = {
        "vocabulary": layer.get_vocabulary(),
        "vocabulary_size": layer.vocabulary_size(),
        "output": values,
        "dtype": dtype,
        "native_type": isinstance(output, list) or native_type(output),
    }
    if not oracle and case["tokenizer"] is None and not case.get("load") and BACKEND != "tensorflow" and HAS_TF:
        # Keras' own layer runs eagerly on this backend where TensorFlow is installed: its dtype is the one to give
        try:
            theirs = keras.layers.TextVectorization(**args)
        except ValueError:  # ragged=True: Keras' own layer refuses it outside TensorFlow
            return result
        if "vocabulary" not in args:
            theirs.adapt(case["train"])
        result["keras_dtype"] = listed(theirs(case["test"]))[1]
    return result


def main():
    cases_path, out_path = sys.argv[1], sys.argv[2]
    oracle = "--oracle" in sys.argv[3:]
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    results = []
    for case in cases:
        try:
            results.append(run(case, oracle))
        except Exception as e:  # the test compares errors too: Keras refuses what kvec must refuse
            results.append({"error": type(e).__name__, "message": str(e)})
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"backend": BACKEND, "results": results}, f)


if __name__ == "__main__":
    main()
