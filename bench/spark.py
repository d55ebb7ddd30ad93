"""Encoding on Spark against encoding in one process: ``kvec.spark.encode`` on ``local[2]`` vs the same
tokenizer's single-process batch encoder, over the same texts, with identical ids.

Usage::

    .venv/bin/python bench/spark.py CORPUS [--runs 3] [--limit N] [--partitions 4] [--skip WORKLOAD ...]

Workloads (the names ``--skip`` takes), each over every line of CORPUS (or the first ``--limit``):

1. ``bpe``: a BPE of 8000 tokens (``kvec.presets.keras_subword("bpe", 8000)``) trained on the first
   20,000 lines: Spark ``encode`` vs ``encode_batch(lines)`` (one thread per core, its default). The
   second line compares the same Spark time with ``encode_ragged`` (the ids alone, no ``Encoding``
   objects).
2. ``keras``: ``kvec.Tokenizer(num_words=20000, oov_token="<OOV>")`` fitted on every line: Spark
   ``encode`` vs ``texts_to_sequences(lines)``.

The texts are a cached DataFrame of ``--partitions`` partitions, made from the very lines the single
process reads, so both sides start from texts in memory. Spark's time is a whole job that encodes
every row on the executors and keeps the ids there (the ``noop`` writer): the tokenizer's broadcast,
the Arrow transfers to and from the Python workers, the encoding and the scheduling. Each side runs
once untimed first (Spark's workers start and rebuild the tokenizer, which they keep across jobs, as
they keep their word caches; the single process keeps its tokenizer too), then the runs alternate.
"per row" is (Spark time - the anchor's time) / rows: against the single process, what Spark adds to
each row; against "Spark floor" (the same job with a Python step that passes the texts through
untouched, so Spark's own cost of moving them), what encoding on the executors costs a row. The ids
Spark gives must equal the single process's, row for row, or the script stops.

The ratios follow ``bench/harness.py`` with Spark as "kvec" and the single process as the anchor:
below 1.00x Spark is faster.
"""

import argparse
import os
import sys

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the executors run this Python, with kvec

import statistics  # noqa: E402

import numpy as np  # noqa: E402
from harness import mismatch, positive_int, print_convention, read_lines, report, timed  # noqa: E402

from kvec import Tokenizer  # noqa: E402
from kvec import spark as kvec_spark  # noqa: E402
from kvec.common.ragged import rows_to_ragged  # noqa: E402
from kvec.presets import keras_subword  # noqa: E402

VOCAB_SIZE = 8000
TRAINING_LINES = 20000
NUM_WORDS = 20000
WORKLOADS = ("bpe", "keras")


def spark_session(partitions):
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("kvec-bench-spark")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "4g")
        # the cached texts stay as they are in memory: reading them costs Spark no decompression
        .config("spark.sql.inMemoryColumnarStorage.compressed", "false")
        .config("spark.sql.shuffle.partitions", str(partitions))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def cached_texts(session, lines, partitions):
    """The lines as a cached DataFrame of one ``text`` column, in order, in ``partitions`` slices."""
    rdd = session.sparkContext.parallelize([(line,) for line in lines], partitions)
    frame = session.createDataFrame(rdd, "text string").cache()
    count = frame.count()
    if count != len(lines):
        mismatch("texts", f"Spark holds {count} rows, the corpus {len(lines)}")
    return frame


def spark_ids(encoded):
    """``(values, row_lengths)`` of the ``input_ids`` Spark computed, brought to the driver by Arrow."""
    column = encoded.select("input_ids").toArrow().column("input_ids").combine_chunks()
    return np.asarray(column.flatten(), dtype=np.int64), np.asarray(column.value_lengths(), dtype=np.int64)


def passed_through(batches):
    """A Python step that leaves the texts as they are: what any Arrow job over them costs."""
    yield from batches


def floor_job(frame):
    """Spark's own cost for these texts: the same job shape as ``encode`` (the cached texts through a
    Python worker as Arrow batches and back, kept on the executors), with nothing computed."""
    passed = frame.mapInArrow(passed_through, frame.schema)
    return lambda: passed.write.format("noop").mode("overwrite").save()


def compare(workload, frame, tokenizer, anchors, expected, runs):
    """Time Spark ``encode`` (a whole job, the ids kept on the executors) against each anchor, ``(name,
    function)``, and Spark's floor (:func:`floor_job`), in alternation; ``expected`` is the ``(values,
    row_lengths)`` Spark must give."""
    encoded = kvec_spark.encode(frame, tokenizer)

    def on_spark():
        encoded.write.format("noop").mode("overwrite").save()

    # untimed: the workers start, the tokenizer travels, and the ids must be the single process's
    values, lengths = spark_ids(encoded)
    if not np.array_equal(lengths, expected[1]):
        mismatch(workload, "the rows' lengths differ from the single process's")
    if not np.array_equal(values, expected[0]):
        mismatch(workload, "the ids differ from the single process's")
    anchors = [*anchors, ("Spark floor", floor_job(frame))]
    for _, anchor in anchors:
        anchor()
    spark_times, anchor_times = [], {name: [] for name, _ in anchors}
    for _ in range(runs):
        spark_times.append(timed(on_spark)[1])
        for name, anchor in anchors:
            anchor_times[name].append(timed(anchor)[1])
    rows = len(lengths)
    for name, times in anchor_times.items():
        overhead = (statistics.median(spark_times) - statistics.median(times)) / rows * 1e6
        report(f"{workload} vs {name}", name, spark_times, times, f"  per row {overhead:+.2f} us")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus")
    parser.add_argument("--runs", type=positive_int, default=3)
    parser.add_argument("--limit", type=positive_int, default=None, help="only the first N lines")
    parser.add_argument("--partitions", type=positive_int, default=4)
    parser.add_argument("--skip", nargs="*", default=[], choices=WORKLOADS)
    args = parser.parse_args()
    lines = read_lines(args.corpus, args.limit)
    print_convention()
    print(f"Spark local[2] vs one process; {len(lines)} lines, {args.partitions} partitions, anchors in the same run")
    session = spark_session(args.partitions)
    try:
        frame = cached_texts(session, lines, args.partitions)
        if "bpe" not in args.skip:
            tokenizer, trainer = keras_subword("bpe", VOCAB_SIZE)
            tokenizer.train_from_iterator(lines[:TRAINING_LINES], trainer)
            expected = rows_to_ragged([e.ids for e in tokenizer.encode_batch(lines)])
            anchors = [
                ("encode_batch", lambda: tokenizer.encode_batch(lines)),
                ("encode_ragged", lambda: tokenizer.encode_ragged(lines)),
            ]
            compare("bpe", frame, tokenizer, anchors, expected, args.runs)
        if "keras" not in args.skip:
            keras_tokenizer = Tokenizer(num_words=NUM_WORDS, oov_token="<OOV>")
            keras_tokenizer.fit_on_texts(lines)
            expected = rows_to_ragged(keras_tokenizer.texts_to_sequences(lines))
            anchors = [("texts_to_sequences", lambda: keras_tokenizer.texts_to_sequences(lines))]
            compare("keras", frame, keras_tokenizer, anchors, expected, args.runs)
    finally:
        session.stop()


if __name__ == "__main__":
    main()
