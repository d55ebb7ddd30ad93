"""A trained BPE inside ``kvec.layers.TextVectorization``, in a ``tf.data`` pipeline, saved and reloaded.

The same task as ``classify_with_tokenizer.py`` (docstring paragraphs of the standard library by topic):

1. ``layer.adapt`` trains a 2,000-token BPE (``kvec.presets.keras_subword("bpe", 2000)``) on the
   training texts; the layer then maps texts to its ids, padded to 96.
2. ``tf.data`` maps batches of texts through the layer (``num_parallel_calls=AUTOTUNE``) and a small
   model learns from the ids.
3. The layer and the model are joined into one model from raw strings to topics, saved to ``.keras``
   and loaded back with ``keras.models.load_model`` (no ``custom_objects``: ``import kvec.layers``
   registers the layer, and the trained BPE is stored in the file). The predictions must not change.

Run: ``.venv/bin/python examples/subword_layer_tf_data.py``.
"""

import os
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import stdlib_topics  # noqa: E402
import tensorflow as tf  # noqa: E402

import kvec.layers  # noqa: E402
from kvec.presets import keras_subword  # noqa: E402

MAXLEN = 96


def main():
    keras.utils.set_random_seed(0)
    train_texts, train_labels, val_texts, val_labels = stdlib_topics.load()
    layer = kvec.layers.TextVectorization(tokenizer=keras_subword("bpe", 2000), output_sequence_length=MAXLEN)
    layer.adapt(train_texts)
    pieces = layer.tokenizer.encode(val_texts[0]).tokens
    print(f"BPE of {layer.vocabulary_size()} tokens; a validation text starts {pieces[:10]}")

    def to_ids(texts, labels):
        return layer(texts), labels

    train = tf.data.Dataset.from_tensor_slices((train_texts, train_labels)).shuffle(len(train_texts), seed=0).batch(32)
    train = train.map(to_ids, num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE)
    val = tf.data.Dataset.from_tensor_slices((val_texts, val_labels)).batch(64)
    val = val.map(to_ids, num_parallel_calls=tf.data.AUTOTUNE)

    classifier = stdlib_topics.classifier(layer.vocabulary_size(), MAXLEN)
    classifier.fit(train, validation_data=val, epochs=12, shuffle=False, verbose=0)  # the dataset shuffles
    _, accuracy = classifier.evaluate(val, verbose=0)
    chance = np.bincount(val_labels).max() / len(val_labels)
    print(f"validation accuracy: {accuracy:.3f} (chance {chance:.3f})")

    texts = keras.Input(shape=(), dtype="string")
    end_to_end = keras.Model(texts, classifier(layer(texts)))
    before = end_to_end.predict(tf.constant(val_texts), verbose=0)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "topics.keras")
        end_to_end.save(path)
        reloaded = keras.models.load_model(path)
    after = reloaded.predict(tf.constant(val_texts), verbose=0)
    same = np.array_equal(before, after)
    print(f"reloaded model, predictions identical: {same}")
    print(f"reloaded model says {stdlib_topics.LABELS[int(after[0].argmax())]!r} for: {val_texts[0][:70]}...")
    if not same:
        raise SystemExit("the reloaded model predicts differently")


if __name__ == "__main__":
    main()
