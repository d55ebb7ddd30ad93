"""The kvec side of bench/layers.py's backend lines: ``kvec.layers.TextVectorization`` eagerly on JAX (or
``$KERAS_BACKEND``), in a venv without TensorFlow.

    KERAS_BACKEND=jax .venv-backends/bin/python bench/layers_backend.py FOLDER RUNS

``FOLDER`` holds what bench/layers.py wrote: ``lines.json`` (the texts), ``batch_size``,
``vocabulary.json`` (Keras' vocabulary) and ``wordpiece.json`` (the kvec pipeline). Each pass calls
the layer on every batch (an object array of str) and waits for the backend's arrays; the ids of the first pass go to
``keras_ids.npz`` and ``wordpiece_ids.npz`` (one padded matrix per batch), the times of every pass to
``times.json``.
"""

import json
import os
import sys

import keras
import numpy as np
from harness import timed

import kvec.layers
from kvec.pipeline import Tokenizer


def passes(layer, batches, runs):
    """The first pass's outputs (as NumPy) and the seconds of each of ``runs`` passes."""
    first = [keras.ops.convert_to_numpy(layer(batch)) for batch in batches]
    times = []
    for _ in range(runs):
        outputs, seconds = timed(lambda: [layer(batch) for batch in batches])
        for output in outputs:  # the arrays exist by now; JAX's dispatch is asynchronous
            keras.ops.convert_to_numpy(output)
        times.append(seconds)
    return first, times


def main():
    folder, runs = sys.argv[1], int(sys.argv[2])

    def load(name):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            return json.load(f)

    lines, batch_size = load("lines.json"), load("batch_size")
    # one NumPy array per batch, as Keras users pass texts (Layer.__call__ walks a list item by item)
    batches = [np.array(lines[i : i + batch_size], dtype=object) for i in range(0, len(lines), batch_size)]
    keras_layer = kvec.layers.TextVectorization(vocabulary=load("vocabulary.json")[2:])
    with open(os.path.join(folder, "wordpiece.json"), encoding="utf-8") as f:
        wordpiece_layer = kvec.layers.TextVectorization(tokenizer=Tokenizer.from_str(f.read()))
    times = {"backend": keras.backend.backend()}
    for name, layer in (("keras", keras_layer), ("wordpiece", wordpiece_layer)):
        first, times[name] = passes(layer, batches, runs)
        np.savez(os.path.join(folder, f"{name}_ids.npz"), *first)
    with open(os.path.join(folder, "times.json"), "w", encoding="utf-8") as f:
        json.dump(times, f)


if __name__ == "__main__":
    main()
