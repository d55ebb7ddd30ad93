"""Models holding ``kvec.layers.TextVectorization`` saved for serving (``model.export``,
``tf.saved_model.save``) and served by ``tf.saved_model.load(...).serve`` in a fresh process, with
the in-process model's outputs; a layer that cannot be served stops the save with a kvec error."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from kvec.chinese import Jieba  # noqa: E402
from kvec.errors import ExportError  # noqa: E402
from kvec.layers import TextVectorization  # noqa: E402

SERVE_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import tensorflow as tf
    import kvec.layers  # registers kvec's ops
    served = tf.saved_model.load(sys.argv[1])
    outputs = served.serve(tf.constant(json.loads(sys.argv[2])))
    print(json.dumps(np.asarray(outputs).tolist()))
    """
)


def served_in_a_fresh_process(path, texts):
    """What the SavedModel at ``path`` serves for ``texts``, loaded by another Python process."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    run = subprocess.run(
        [sys.executable, "-c", SERVE_SCRIPT, path, json.dumps(texts)], capture_output=True, text=True, env=env
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return np.array(json.loads(run.stdout.strip().splitlines()[-1]))


class ListModel(keras.Model):
    """A subclassed model that tracks its layers in a list, as Keras' own export tests do."""

    def __init__(self, layer_list):
        super().__init__()
        self.layer_list = layer_list

    def call(self, inputs):
        for layer in self.layer_list:
            inputs = layer(inputs)
        return inputs


def test_a_subclassed_model_tracking_a_keras_style_layer_in_a_list_exports_and_serves(tmp_path):
    # tf.saved_model.save traces the model's default signature with float32 inputs: the layer casts
    # them, as Keras' does, instead of refusing them
    layer = TextVectorization()
    layer.adapt(["one two", "three four", "five six"])
    model = ListModel([layer, keras.layers.Embedding(10, 4), keras.layers.Dense(1)])
    texts = ["one two three four", "six five seven"]
    expected = np.asarray(model(tf.constant(texts)))
    path = str(tmp_path / "exported")
    model.export(path, input_signature=[tf.TensorSpec([None], tf.string)])
    np.testing.assert_allclose(served_in_a_fresh_process(path, texts), expected, rtol=1e-6)


def test_a_layer_that_runs_python_stops_the_save_with_an_export_error(tmp_path):
    layer = TextVectorization(tokenizer=Jieba(), output_sequence_length=4)
    layer.adapt(["我爱北京", "北京天安门"])
    inputs = keras.Input(shape=(), dtype="string")
    model = keras.Model(inputs, keras.layers.Embedding(layer.vocabulary_size(), 2)(layer(inputs)))
    for save in (model.export, lambda path: tf.saved_model.save(model, path)):
        path = tmp_path / "exported"
        with pytest.raises(ExportError, match="tf.numpy_function.*SavedModel cannot hold"):
            save(str(path))
        assert not (path / "saved_model.pb").exists()
