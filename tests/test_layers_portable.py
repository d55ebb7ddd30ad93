"""The layer on JAX and PyTorch in this process's environment: ``import kvec.layers`` loads no
TensorFlow there, the layer pickles (as ``torch.utils.data.DataLoader`` sends it to its worker
processes) with the same outputs, and what this host cannot do raises an error that says what to use.

Each check runs in a fresh interpreter per backend (Keras fixes its backend at import)."""

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("keras")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BACKENDS = [b for b in ("jax", "torch") if importlib.util.find_spec(b) is not None]


def run(backend, code):
    env = dict(os.environ, KERAS_BACKEND=backend, PYTHONPATH=ROOT)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("backend", BACKENDS)
def test_kvec_layers_imports_no_tensorflow_on_other_backends(backend):
    out = run(backend, "import sys, kvec.layers; print('tensorflow' in sys.modules, kvec.layers.TextVectorization)")
    assert out.split()[0] == "False"
    assert "kvec.layers.portable.TextVectorization" in out


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_layer_pickles_with_its_tokenizer(backend):
    out = run(
        backend,
        """
        import pickle, keras, numpy as np, kvec.layers
        from kvec.presets import keras_subword
        texts = ["a good film", "a dull film", "good acting and a good story", "dull and slow"] * 3
        for tokenizer in (None, keras_subword("wordpiece", 60)):
            layer = kvec.layers.TextVectorization(tokenizer=tokenizer, output_sequence_length=6)
            layer.adapt(texts)
            copy = pickle.loads(pickle.dumps(layer))
            a, b = keras.ops.convert_to_numpy(layer(texts)), keras.ops.convert_to_numpy(copy(texts))
            print(np.array_equal(a, b), a.shape)
        """,
    )
    assert out.split("\n")[:2] == ["True (12, 6)", "True (12, 6)"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_what_needs_tensorflow_says_what_to_use(backend):
    out = run(
        backend,
        """
        import kvec.layers
        for arguments in ({"sparse": True, "output_mode": "count"}, {"split": lambda x: x}):
            try:
                kvec.layers.TextVectorization(**arguments)
            except ValueError as e:
                print(e)
        """,
    )
    assert "sparse=True needs the TensorFlow backend" in out
    assert "split= as a callable needs the TensorFlow backend" in out and "tokenizer=" in out


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_inputs_name_the_item(backend):
    out = run(
        backend,
        """
        import kvec.layers
        layer = kvec.layers.TextVectorization(vocabulary=["a"])
        try:
            layer(["a", 3])
        except TypeError as e:
            print(e)
        """,
    )
    assert "item 1 is a int" in out
