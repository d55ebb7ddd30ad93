"""Word counting on Apache Spark, for corpora no single machine should count.

The executors split and count the words of their partitions; only the table of distinct words (each
with its count and where it first occurs) reaches the driver, which orders it by first occurrence and
spells it as :func:`kvec.trainers.counting.count_words` does. The result is the same dict, in the same
order, as counting in one process, so any kvec trainer gives the same model.
"""

from __future__ import annotations

from typing import Any

from kvec.common.arguments import wrong_type
from kvec.contracts import PreTokenizer
from kvec.pipeline import Pipeline, TrainingWords
from kvec.spark.inputs import text_rdd
from kvec.trainers.counting import spell_counts

__all__ = ["count_words"]


def count_words(
    data: Any,
    tokenizer: Pipeline | PreTokenizer | TrainingWords | None = None,
    column: str | None = None,
    spark: Any = None,
) -> dict[str, int]:
    """``{word: count}`` of the words of the texts in ``data``, in first-occurrence order.

    Args:
        data: an RDD of str; a DataFrame (its only string column, or ``column``); or a path, glob or
            list of them, read as text files (one text per line) by ``spark`` (default: the active
            session).
        tokenizer: a :class:`kvec.pipeline.Pipeline` (its normalizer, pre-tokenizer and added tokens
            decide the words, as in its own training) or a pre-tokenizer; None counts whole texts.
        column: the DataFrame column holding the texts.
        spark: the ``SparkSession`` for paths.

    Example:
        >>> tok, trainer = keras_subword("bpe", 32000)  # doctest: +SKIP
        >>> counts = count_words(session.read.text("hdfs:///corpus/*.txt"), tok)  # doctest: +SKIP
        >>> tok.train_from_counts(counts, trainer)  # doctest: +SKIP
    """
    words = _words_of(tokenizer)
    texts = text_rdd(data, column, spark)

    def count_partition(rows):
        found: dict[str, list[Any]] = {}  # word -> [count, (line, position) of its first occurrence]
        for text, line in rows:
            if not isinstance(text, str):
                raise wrong_type(f"texts[{line}]", "a str", text)
            split = ([text] if text else []) if words is None else words.split_words(text)
            for position, word in enumerate(split):
                entry = found.get(word)
                if entry is None:
                    found[word] = [1, (line, position)]
                else:
                    entry[0] += 1
        return ((word, (count, first)) for word, (count, first) in found.items())

    def combine(a, b):
        return a[0] + b[0], min(a[1], b[1])

    table = texts.zipWithIndex().mapPartitions(count_partition).reduceByKey(combine).collect()
    table.sort(key=lambda item: item[1][1])
    return spell_counts({word: count for word, (count, _) in table}, words)


def _words_of(tokenizer):
    """What splits and spells the words: a pipeline's training words, or a pre-tokenizer."""
    if tokenizer is None:
        return None
    if isinstance(tokenizer, Pipeline):
        return tokenizer.training_words()
    if isinstance(tokenizer, (PreTokenizer, TrainingWords)):
        return tokenizer
    raise wrong_type("tokenizer", "a kvec pipeline or a pre-tokenizer", tokenizer)
