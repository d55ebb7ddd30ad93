"""kvec on Apache Spark (``pip install 'kvec[spark]'``): count the words of a corpus, encode its texts into
token ids, and write the ids as training shards, all on the executors.

* :func:`count_words`: ``{word: count}`` in first-occurrence order, equal to counting in one process,
  so a trainer on the driver gives the same model (:mod:`kvec.spark.counting`).
* :func:`encode`: a DataFrame of token ids (and attention masks when padded) from any kvec tokenizer,
  equal to the single-process ids, in the input's order (:mod:`kvec.spark.encoding`).
* :func:`write_shards`: the encoded rows as TFRecord or Parquet files, read back for ``model.fit`` by
  :func:`kvec.data.shards.batches_from_shards` or :func:`kvec.layers.shards.dataset_from_shards`
  (:mod:`kvec.spark.shards`).

.. code-block:: python

    from pyspark.sql import SparkSession
    from kvec import spark
    from kvec.presets import keras_subword

    session = SparkSession.builder.getOrCreate()
    corpus = session.read.parquet("hdfs:///corpus")                   # columns text, label
    tok, trainer = keras_subword("bpe", 32000)
    tok.train_from_counts(spark.count_words(corpus, tok, column="text"), trainer)
    encoded = spark.encode(corpus, tok, column="text")                # label, input_ids
    spark.write_shards(encoded, "/shared/shards", format="tfrecord")

The executors need kvec (and pyarrow; TensorFlow to write TFRecord) in the Python that runs them
(``PYSPARK_PYTHON``).
"""

try:  # the optional dependency, named before anything else needs it
    import pyspark  # noqa: F401
except ModuleNotFoundError as error:
    raise ModuleNotFoundError(
        f"kvec.spark needs pyspark, and {error.name} is not installed: pip install 'kvec[spark]'", name=error.name
    ) from error

from kvec.spark.counting import count_words  # noqa: E402
from kvec.spark.encoding import encode  # noqa: E402
from kvec.spark.shards import write_shards  # noqa: E402

__all__ = ["count_words", "encode", "write_shards"]
