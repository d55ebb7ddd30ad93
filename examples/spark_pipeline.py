"""Spark from text to trained model: count on Spark, train a BPE on the driver, encode on Spark into
training shards, and train a small Keras model from the shards.

The task is that of ``classify_with_tokenizer.py`` (docstring paragraphs of the standard library by
topic, see ``stdlib_topics.py``), as a Spark table of ``(text, label)`` rows:

1. ``kvec.spark.count_words`` counts the words of the training texts on the executors; the driver
   trains a 2,000-token BPE (``kvec.presets.keras_subword("bpe", 2000)``) from the counts alone.
2. ``kvec.spark.encode`` turns every text into its BPE ids on the executors (the tokenizer is
   broadcast once), and ``kvec.spark.write_shards`` writes the ids and labels as TFRecord shards.
3. ``kvec.layers.shards.dataset_from_shards`` reads the shards back as padded batches, grouped by
   length, and a small model learns the topics from them.

Run: ``.venv/bin/python examples/spark_pipeline.py`` (Spark runs on ``local[2]``; it needs pyspark,
pyarrow, a Java runtime and TensorFlow: ``pip install 'kvec[spark,keras]'``).
"""

import os
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the executors run this Python, with kvec

import keras  # noqa: E402
import numpy as np  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

from kvec import spark as kvec_spark  # noqa: E402
from kvec.layers.shards import dataset_from_shards  # noqa: E402
from kvec.presets import keras_subword  # noqa: E402

VOCAB_SIZE, MAXLEN = 2000, 96


def main(data=None, spark=None, vocab_size=VOCAB_SIZE, epochs=12, shard_format="tfrecord"):
    """Run the example; returns ``(validation accuracy, chance)``.

    ``data`` is ``(train_texts, train_labels, val_texts, val_labels)`` (default: ``stdlib_topics.load()``);
    ``spark`` a ``SparkSession`` to use (default: a new one on ``local[2]``, stopped at the end).
    """
    keras.utils.set_random_seed(0)
    if data is None:
        import stdlib_topics

        data = stdlib_topics.load()
    train_texts, train_labels, val_texts, val_labels = data
    session = spark or (
        SparkSession.builder.master("local[2]")
        .appName("kvec-spark-pipeline")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    try:
        train = session.createDataFrame(list(zip(train_texts, map(int, train_labels))), "text string, label long")
        val = session.createDataFrame(list(zip(val_texts, map(int, val_labels))), "text string, label long")

        # 1. count on Spark, train on the driver
        tokenizer, trainer = keras_subword("bpe", vocab_size)
        counts = kvec_spark.count_words(train, tokenizer, column="text")
        tokenizer.train_from_counts(counts, trainer)
        print(f"{len(counts)} distinct words counted on Spark; BPE of {tokenizer.get_vocab_size()} tokens")

        with tempfile.TemporaryDirectory() as folder:
            # 2. encode on Spark into shards
            for name, frame in (("train", train), ("val", val)):
                encoded = kvec_spark.encode(frame, tokenizer, column="text")  # label, input_ids
                info = kvec_spark.write_shards(encoded, os.path.join(folder, name), format=shard_format)
                print(f"{name}: {sum(info.rows)} rows in {len(info.files)} {shard_format} shards")

            # 3. train from the shards
            options = {"label": "label", "maxlen": MAXLEN, "inputs": "input_ids"}
            train_batches = dataset_from_shards(os.path.join(folder, "train"), batch_size=32, shuffle=True, **options)
            val_batches = dataset_from_shards(os.path.join(folder, "val"), batch_size=64, bucket=False, **options)
            model = keras.Sequential(
                [
                    keras.Input(shape=(None,), dtype="int32"),
                    keras.layers.Embedding(tokenizer.get_vocab_size(), 32, mask_zero=True),  # [PAD] is id 0
                    keras.layers.GlobalAveragePooling1D(),
                    keras.layers.Dense(32, activation="relu"),
                    keras.layers.Dense(int(max(np.max(train_labels), np.max(val_labels))) + 1, activation="softmax"),
                ]
            )
            model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
            model.fit(train_batches, epochs=epochs, shuffle=False, verbose=0)  # the dataset shuffles
            _, accuracy = model.evaluate(val_batches, verbose=0)
    finally:
        if spark is None:
            session.stop()
    chance = np.bincount(np.asarray(val_labels)).max() / len(val_labels)
    print(f"validation accuracy: {accuracy:.3f} (chance {chance:.3f})")
    return accuracy, chance


if __name__ == "__main__":
    main()
