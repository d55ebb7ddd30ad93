"""``kvec.layers.TextVectorization`` in a ``keras.utils.PyDataset``, and ``kvec.layers.TextTask`` for raw
strings in, predictions out, on any backend (``KERAS_BACKEND=jax``, ``torch`` or ``tensorflow``).

The task of ``classify_with_tokenizer.py`` (docstring paragraphs of the standard library by topic):

1. ``layer.adapt`` learns Keras' word vocabulary (no tokenizer: Keras' own rules, run by kvec).
2. A ``PyDataset`` gives batches of ids from the layer, in two threads, to ``model.fit``.
3. A ``TextTask`` joins the layer and the trained model: ``predict`` takes the validation texts as
   strings, on JAX and PyTorch too, and the task saves to ``.keras`` and loads with the same outputs.

Run: ``KERAS_BACKEND=jax python examples/pydataset_task.py``.
"""

import os
import tempfile

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import stdlib_topics  # noqa: E402

import kvec.layers  # noqa: E402

MAXLEN = 96


class TopicBatches(keras.utils.PyDataset):
    """Shuffled batches of ``(ids, labels)``: the layer vectorizes each batch as it is read."""

    def __init__(self, layer, texts, labels, batch_size=32, **kwargs):
        super().__init__(**kwargs)
        self.layer, self.texts, self.labels, self.batch_size = (
            layer,
            np.asarray(texts, dtype=object),
            labels,
            batch_size,
        )
        self.order = np.random.default_rng(0).permutation(len(texts))

    def __len__(self):
        return -(-len(self.texts) // self.batch_size)

    def __getitem__(self, index):
        rows = self.order[index * self.batch_size : (index + 1) * self.batch_size]
        return keras.ops.convert_to_numpy(self.layer(self.texts[rows])), self.labels[rows]


def main():
    keras.utils.set_random_seed(0)
    train_texts, train_labels, val_texts, val_labels = stdlib_topics.load()
    layer = kvec.layers.TextVectorization(max_tokens=20000, output_sequence_length=MAXLEN)
    layer.adapt(train_texts)
    print(f"backend {keras.backend.backend()}; {layer.vocabulary_size()} words")

    classifier = stdlib_topics.classifier(layer.vocabulary_size(), MAXLEN)
    classifier.fit(TopicBatches(layer, train_texts, train_labels, workers=2), epochs=12, verbose=0)

    task = kvec.layers.TextTask(layer, classifier)
    task.compile(loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    predictions = task.predict(val_texts, verbose=0)  # raw strings in
    accuracy = float(np.mean(predictions.argmax(axis=1) == val_labels))
    chance = np.bincount(val_labels).max() / len(val_labels)
    print(f"validation accuracy: {accuracy:.3f} (chance {chance:.3f})")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "topics.keras")
        task.save(path)
        same = np.array_equal(keras.models.load_model(path).predict(val_texts, verbose=0), predictions)
    print(f"reloaded task, predictions identical: {same}")
    if not same:
        raise SystemExit("the reloaded task predicts differently")


if __name__ == "__main__":
    main()
