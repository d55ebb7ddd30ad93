"""The kvec side of bench/layers.py's backend lines: ``kvec.layers.TextVectorization`` eagerly on JAX (or
``$KERAS_BACKEND``), in a venv without TensorFlow.

    KERAS_BACKEND=jax .venv-backends/bin/python bench/layers_backend.py FOLDER

``FOLDER`` holds what bench/layers.py wrote: ``lines.json`` (the texts), ``batch_size``,
``vocabulary.json`` (Keras' vocabulary) and ``wordpiece.json`` (the kvec pipeline). A pass calls the
layer on every batch (an object array of str) and waits for the backend's arrays. The ids of a first
pass go to ``keras_ids.npz`` and ``wordpiece_ids.npz`` (one padded matrix per batch); then the script
prints the backend's name and answers each line ``keras`` or ``wordpiece`` on its standard input with
the seconds of one pass of that layer, so bench/layers.py can interleave these passes with its
anchors' (an empty line ends it).
"""

import json
import os
import sys

import keras
import numpy as np
from harness import timed

import kvec.layers
from kvec.pipeline import Tokenizer


def one_pass(layer, batches):
    """The seconds of one pass of ``layer`` over ``batches``."""
    outputs, seconds = timed(lambda: [layer(batch) for batch in batches])
    for output in outputs:  # the arrays exist by now; JAX's dispatch is asynchronous
        keras.ops.convert_to_numpy(output)
    return seconds


def main():
    folder = sys.argv[1]

    def load(name):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            return json.load(f)

    lines, batch_size = load("lines.json"), load("batch_size")
    # one NumPy array per batch, as Keras users pass texts (Layer.__call__ walks a list item by item)
    batches = [np.array(lines[i : i + batch_size], dtype=object) for i in range(0, len(lines), batch_size)]
    keras_layer = kvec.layers.TextVectorization(vocabulary=load("vocabulary.json")[2:])
    with open(os.path.join(folder, "wordpiece.json"), encoding="utf-8") as f:
        wordpiece_layer = kvec.layers.TextVectorization(tokenizer=Tokenizer.from_str(f.read()))
    layers = {"keras": keras_layer, "wordpiece": wordpiece_layer}
    for name, layer in layers.items():
        first = [keras.ops.convert_to_numpy(layer(batch)) for batch in batches]
        np.savez(os.path.join(folder, f"{name}_ids.npz"), *first)
    print(keras.backend.backend(), flush=True)
    for line in sys.stdin:
        if not line.strip():
            break
        print(one_pass(layers[line.strip()], batches), flush=True)


if __name__ == "__main__":
    main()
