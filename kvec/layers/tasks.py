"""``kvec.layers.TextTask``: raw strings in, predictions out, on every Keras backend.

On JAX and PyTorch, Keras turns a model's inputs into backend arrays before its compiled step, and a
string array has no such form ("data type 'string' not understood"). In the style of keras_hub's
``Task`` and ``Preprocessor``, a :class:`TextTask` holds a ``preprocessor`` (such as
:class:`kvec.layers.TextVectorization`), which runs on each batch of strings outside the compiled step,
and a ``backbone``, a Keras model over the preprocessor's outputs, which ``fit``, ``evaluate`` and
``predict`` train and run. On TensorFlow it works the same way. The task saves to a ``.keras`` file
with both parts, and loads on any backend.
"""

from __future__ import annotations

import math
from typing import Any

import keras
import numpy as np

__all__ = ["TextTask"]


class _Preprocessed(keras.utils.PyDataset):
    """Batches of ``texts`` (and ``labels``) through ``preprocessor``, as NumPy arrays."""

    def __init__(self, preprocessor, texts, labels, batch_size, shuffle, seed=0):
        super().__init__()
        self.preprocessor = preprocessor
        self.texts = np.asarray(texts, dtype=object).reshape(-1)
        self.labels = None if labels is None else np.asarray(labels)
        if self.labels is not None and len(self.labels) != len(self.texts):
            raise ValueError(f"got {len(self.texts)} texts and {len(self.labels)} labels: give one label per text")
        self.batch_size = batch_size
        self.order = np.arange(len(self.texts))
        self.shuffle = shuffle
        self.rng = np.random.default_rng(seed)
        if shuffle:
            self.rng.shuffle(self.order)

    @property
    def num_batches(self):
        return math.ceil(len(self.texts) / self.batch_size)

    def __len__(self):
        return self.num_batches

    def __getitem__(self, index):
        rows = self.order[index * self.batch_size : (index + 1) * self.batch_size]
        x = keras.ops.convert_to_numpy(self.preprocessor(self.texts[rows]))
        return x if self.labels is None else (x, self.labels[rows])

    def on_epoch_end(self):
        if self.shuffle:
            self.rng.shuffle(self.order)


def _is_text(x):
    """Whether ``x`` is a list or array of strings, which the task preprocesses."""
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "OUS"
    return isinstance(x, (list, tuple)) and bool(x) and isinstance(x[0], (str, bytes))


@keras.saving.register_keras_serializable(package="kvec")
class TextTask(keras.Model):
    """A model over raw strings: ``preprocessor`` on each batch, then ``backbone``.

    Args:
        preprocessor: a layer from strings to arrays, such as :class:`kvec.layers.TextVectorization`
            (adapted, or with its vocabulary).
        backbone: a Keras model (or layer) over the preprocessor's outputs.

    ``fit(x, y, batch_size=32, epochs=1, validation_data=(texts, labels), shuffle=True, ...)``,
    ``evaluate(x, y, ...)`` and ``predict(x, ...)`` take lists or arrays of strings (other inputs go
    to the backbone as they are); ``task(texts)`` calls both parts eagerly.

    Example:
        >>> import kvec.layers
        >>> layer = kvec.layers.TextVectorization(output_sequence_length=4)
        >>> layer.adapt(["a good film", "a dull film"])
        >>> inputs = keras.Input(shape=(4,), dtype="int64")
        >>> outputs = keras.layers.Dense(1)(keras.layers.Embedding(layer.vocabulary_size(), 2)(inputs))
        >>> task = TextTask(layer, keras.Model(inputs, outputs))
        >>> task.compile("adam", "mse")
        >>> task.predict(["a good film"], verbose=0).shape
        (1, 4, 1)
    """

    def __init__(self, preprocessor: Any, backbone: Any, **kwargs):
        super().__init__(**kwargs)
        self.preprocessor = preprocessor
        self.backbone = backbone

    def call(self, inputs, training=None):
        if _is_text(inputs):
            inputs = self.preprocessor(inputs)
        return self.backbone(inputs, training=training)

    def _data(self, x, y, batch_size, shuffle):
        if not _is_text(x):
            return None
        return _Preprocessed(self.preprocessor, x, y, batch_size or 32, shuffle)

    def fit(self, x=None, y=None, batch_size=None, epochs=1, validation_data=None, shuffle=True, **kwargs):
        data = self._data(x, y, batch_size, shuffle)
        if isinstance(validation_data, tuple) and _is_text(validation_data[0]):
            validation_data = self._data(validation_data[0], validation_data[1], batch_size, False)
        if data is None:
            return super().fit(
                x, y, batch_size=batch_size, epochs=epochs, validation_data=validation_data, shuffle=shuffle, **kwargs
            )
        return super().fit(data, epochs=epochs, validation_data=validation_data, **kwargs)

    def evaluate(self, x=None, y=None, batch_size=None, **kwargs):
        data = self._data(x, y, batch_size, False)
        if data is None:
            return super().evaluate(x, y, batch_size=batch_size, **kwargs)
        return super().evaluate(data, **kwargs)

    def predict(self, x, batch_size=None, **kwargs):
        data = self._data(x, None, batch_size, False)
        if data is None:
            return super().predict(x, batch_size=batch_size, **kwargs)
        return super().predict(data, **kwargs)

    def get_config(self):
        config = super().get_config()
        config.update(
            preprocessor=keras.saving.serialize_keras_object(self.preprocessor),
            backbone=keras.saving.serialize_keras_object(self.backbone),
        )
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        preprocessor = keras.saving.deserialize_keras_object(config.pop("preprocessor"))
        backbone = keras.saving.deserialize_keras_object(config.pop("backbone"))
        return cls(preprocessor, backbone, **config)
