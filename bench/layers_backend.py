"""The kvec side of bench/layers.py's backend lines: ``kvec.layers.TextVectorization`` eagerly on JAX (or
``$KERAS_BACKEND``), in a venv without TensorFlow.

    KERAS_BACKEND=jax .venv-backends/bin/python bench/layers_backend.py FOLDER

``FOLDER`` holds what bench/layers.py wrote: ``lines.json`` (the texts), ``batch_size``,
``vocabulary.json`` (Keras' vocabulary) and ``wordpiece.json`` (the kvec pipeline). A pass calls the
layer on every batch (an object array of str) and waits for the backend's arrays. The ids of a first
pass go to ``keras_ids.npz`` and ``wordpiece_ids.npz`` (one padded matrix per batch); then the script
prints the backend's name and answers each line ``keras`` or ``wordpiece`` on its standard input with
the seconds of one pass of that layer, so bench/layers.py can interleave these passes with its
anchors' (an empty line ends it). A line ``floor keras`` or ``floor wordpiece`` times that layer's
floor instead: a pass that only makes its outputs, each batch's padded matrix of the first pass's shape
and dtype made as the layer makes its own (``kvec.layers.keras_rules.ragged_to_dense`` with no ids), in
buffers of its own (a :class:`~kvec.layers.keras_rules.ReusedBuffers` where no ids were ever written:
on JAX the layer's reused buffers are cleared only where the previous pass wrote ids, and the floor
leaves the layer's as that pass left them), and put on the device as the layer puts it, with no text
read.
"""

import json
import os
import sys

import keras
import numpy as np
from harness import timed

import kvec.layers
from kvec.layers.keras_rules import ReusedBuffers, ragged_to_dense
from kvec.pipeline import Tokenizer


def one_pass(layer, batches):
    """The seconds of one pass of ``layer`` over ``batches``."""
    outputs, seconds = timed(lambda: [layer(batch) for batch in batches])
    for output in outputs:  # the arrays exist by now; JAX's dispatch is asynchronous
        keras.ops.convert_to_numpy(output)
    return seconds


def floor_pass(shapes, buffers):
    """The seconds of a pass that only makes outputs of ``shapes`` (``(shape, dtype)`` pairs) as the
    layer makes its own, with no id in them, in ``buffers`` (the floor's own) instead of the layer's."""
    read_only = keras.backend.backend() == "jax"

    def outputs():
        no_ids = np.zeros(0, dtype=np.int64)
        return [
            on_device(ragged_to_dense(no_ids, np.zeros(shape[0], np.int64), shape[1], dtype, read_only, buffers))
            for shape, dtype in shapes
        ]

    made, seconds = timed(outputs)
    for output in made:
        keras.ops.convert_to_numpy(output)
    return seconds


def on_device(matrix):
    """``matrix`` as the backend's array, without a copy where JAX can take it as it is."""
    if keras.backend.backend() == "jax":
        import jax

        return jax.device_put(matrix, may_alias=True)
    return keras.ops.convert_to_tensor(matrix)


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
    shapes, floor_buffers = {}, ReusedBuffers()
    for name, layer in layers.items():
        first = [keras.ops.convert_to_numpy(layer(batch)) for batch in batches]
        np.savez(os.path.join(folder, f"{name}_ids.npz"), *first)
        shapes[name] = [(ids.shape, ids.dtype) for ids in first]
    print(keras.backend.backend(), flush=True)
    for line in sys.stdin:
        if not line.strip():
            break
        words = line.split()
        if words[0] == "floor":
            print(floor_pass(shapes[words[1]], floor_buffers), flush=True)
        else:
            print(one_pass(layers[words[0]], batches), flush=True)


if __name__ == "__main__":
    main()
