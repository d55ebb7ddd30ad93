"""``kvec.layers.TextVectorization`` in a grain pipeline feeding ``model.fit`` on JAX, without TensorFlow.

The task of ``classify_with_tokenizer.py`` (docstring paragraphs of the standard library by topic):

1. ``layer.adapt`` trains a 2,000-token WordPiece (``kvec.presets.keras_subword``) on the training texts.
2. A ``grain.MapDataset`` shuffles the (text, label) pairs, batches them, and maps each batch of texts
   through the layer (NumPy and kvec's C core: no TensorFlow, no JAX tracing of strings).
3. ``model.fit`` reads the grain dataset directly, as Keras does for JAX.

Needs ``pip install 'kvec[jax]'``. Run: ``python examples/grain_jax.py``.
"""

import os

os.environ.setdefault("KERAS_BACKEND", "jax")

import grain  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402
import stdlib_topics  # noqa: E402

import kvec.layers  # noqa: E402
from kvec.presets import keras_subword  # noqa: E402

MAXLEN = 96


def batches(layer, texts, labels, seed=None):
    """A grain dataset of ``(ids, labels)`` batches of 32."""
    pairs = grain.MapDataset.source(list(zip(texts, labels.tolist())))
    if seed is not None:
        pairs = pairs.shuffle(seed=seed)

    def vectorize(batch):
        texts, labels = zip(*batch)
        return keras.ops.convert_to_numpy(layer(list(texts))), np.asarray(labels)

    return pairs.batch(32, batch_fn=vectorize)


def main():
    keras.utils.set_random_seed(0)
    train_texts, train_labels, val_texts, val_labels = stdlib_topics.load()
    layer = kvec.layers.TextVectorization(tokenizer=keras_subword("wordpiece", 2000), output_sequence_length=MAXLEN)
    layer.adapt(train_texts)
    print(f"backend {keras.backend.backend()}; WordPiece of {layer.vocabulary_size()} tokens")

    classifier = stdlib_topics.classifier(layer.vocabulary_size(), MAXLEN, "int32")
    for epoch in range(12):  # a new shuffle each epoch
        classifier.fit(batches(layer, train_texts, train_labels, seed=epoch), epochs=1, shuffle=False, verbose=0)
    _, accuracy = classifier.evaluate(batches(layer, val_texts, val_labels), verbose=0)
    chance = np.bincount(val_labels).max() / len(val_labels)
    print(f"validation accuracy: {accuracy:.3f} (chance {chance:.3f})")


if __name__ == "__main__":
    main()
