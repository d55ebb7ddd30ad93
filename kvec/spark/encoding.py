"""Token ids of a Spark table of texts, computed on the executors by kvec's batch encoders.

The tokenizer is broadcast once (:mod:`kvec.spark.tokenizers`) and rebuilt once per executor's Python
worker. Each partition reaches the worker as Arrow record batches (``DataFrame.mapInArrow``); a batch's
texts go to the tokenizer's batch encoder in one call, and its ids come back as one flat array that
becomes the Arrow list column without a Python object per row. Padding is NumPy over the whole batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from kvec.common.arguments import must_be
from kvec.data.shards import IDS, MASK
from kvec.spark.inputs import text_frame
from kvec.spark.tokenizers import ShippedTokenizer, portable, token_ids

__all__ = ["encode", "padded_ids"]

PADDING_SIDES = ("pre", "post")
_INT32 = np.iinfo(np.int32)


def encode(
    data: Any,
    tokenizer: Any,
    column: str | None = None,
    maxlen: int | None = None,
    padding: str = "pre",
    truncating: str = "pre",
    value: int = 0,
    spark: Any = None,
) -> Any:
    """The token ids of every text of ``data``, encoded on the executors, as a DataFrame.

    Args:
        data: a DataFrame (its only string column, or ``column``), an RDD of str, or a path, glob or
            list of them read as text files (one text per line) by ``spark`` (default: the active
            session).
        tokenizer: a :class:`kvec.pipeline.Pipeline` (or a bare model), or a fitted
            :class:`kvec.Tokenizer`, with any analyzer (a subword pipeline, a
            :class:`kvec.chinese.Jieba`).
        column: the DataFrame column holding the texts.
        maxlen: None keeps every row whole (``input_ids`` of any length, no mask); an int truncates and
            pads every row to ``maxlen`` ids and adds ``attention_mask`` (1 for an id, 0 for padding).
        padding, truncating: ``"pre"`` or ``"post"``, where to pad and where to cut, as
            :func:`kvec.sequence.pad_sequences` (whose defaults these are).
        value: the id of the padding cells.
        spark: the ``SparkSession`` that reads paths.

    Returns:
        A DataFrame with the columns of ``data`` but the text column, then ``input_ids`` (array of
        int) and, with ``maxlen``, ``attention_mask`` (array of tinyint), in the rows' input order (the
        same partitions, in the same order; text files in the order Spark reads them). A row's ids
        are the tokenizer's own: ``encode_batch(texts)[i].ids`` for a pipeline, with its truncation but
        not its batch padding, ``texts_to_sequences(texts)[i]`` for a Tokenizer, and with ``maxlen``
        row ``i`` of ``pad_sequences(those, maxlen, padding=padding, truncating=truncating,
        value=value)``. Nothing runs until an action asks for the rows.

    Each task encodes its Arrow batches (``spark.sql.execution.arrow.maxRecordsPerBatch`` rows each) on
    as many threads as it has CPUs (``spark.task.cpus``).

    Example:
        >>> frame = session.createDataFrame([("the cat sat", 1), ("a dog", 0)], ["text", "label"])  # doctest: +SKIP
        >>> encode(frame, tok, maxlen=4).collect()[0]  # doctest: +SKIP
        Row(label=1, input_ids=[0, 2, 5, 3], attention_mask=[0, 1, 1, 1])
    """
    from pyspark import TaskContext
    from pyspark.sql.types import ArrayType, ByteType, IntegerType, StructField, StructType

    if maxlen is not None and (isinstance(maxlen, bool) or not isinstance(maxlen, (int, np.integer)) or maxlen < 1):
        raise must_be("maxlen", "a positive int or None", maxlen)
    for name, side in (("padding", padding), ("truncating", truncating)):
        if side not in PADDING_SIDES:
            raise ValueError(f'{name} must be "pre" or "post", got {side!r}')
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not _INT32.min <= value <= _INT32.max:
        raise must_be("value", "an int that fits int32", value)
    travelled = portable(tokenizer)  # checked before Spark does anything
    frame, text = text_frame(data, column, spark)
    kept = [f for f in frame.schema.fields if f.name != text]
    clashes = sorted({IDS, MASK} & {f.name for f in kept})
    if clashes:
        raise ValueError(f"data already has columns named {clashes}: rename them before encoding")
    fields = kept + [StructField(IDS, ArrayType(IntegerType(), containsNull=False), nullable=False)]
    if maxlen is not None:
        fields.append(StructField(MASK, ArrayType(ByteType(), containsNull=False), nullable=False))
    schema = StructType(fields)
    schema_names = [f.name for f in fields]
    text_index = frame.columns.index(text)
    kept_indices = [i for i, name in enumerate(frame.columns) if name != text]
    shipped = ShippedTokenizer(travelled, frame.sparkSession.sparkContext)
    shape = None if maxlen is None else (int(maxlen), padding, truncating, int(value))

    def encode_batches(batches):
        worker = shipped.tokenizer()
        context = TaskContext.get()
        n_threads = max(1, context.cpus()) if context is not None else 1
        for batch in batches:
            texts = batch.column(text_index)
            if texts.null_count:
                partition = context.partitionId() if context is not None else "?"
                raise ValueError(f"column {text!r} holds a null instead of a text (partition {partition})")
            values, row_lengths = token_ids(worker, texts.to_pylist(), n_threads)
            yield _record_batch(batch, kept_indices, values, row_lengths, shape, schema_names)

    return frame.mapInArrow(encode_batches, schema)


def padded_ids(
    values: NDArray[np.int64],
    row_lengths: NDArray[np.int64],
    maxlen: int,
    padding: str = "pre",
    truncating: str = "pre",
    value: int = 0,
) -> tuple[NDArray[np.int32], NDArray[np.int8]]:
    """``(ids, mask)``, ``[rows, maxlen]`` arrays of ragged ids ``(values, row_lengths)`` truncated and
    padded as :func:`kvec.sequence.pad_sequences` does, in one NumPy pass; ``mask`` is 1 where an id is.

    Example:
        >>> ids, mask = padded_ids(np.array([5, 6, 7, 8]), np.array([3, 0, 1]), 2)
        >>> ids.tolist(), mask.tolist()
        ([[6, 7], [0, 0], [0, 8]], [[1, 1], [0, 0], [0, 1]])
    """
    rows = len(row_lengths)
    kept = np.minimum(row_lengths, maxlen)
    starts = np.cumsum(row_lengths) - row_lengths
    first = starts + (row_lengths - kept if truncating == "pre" else 0)
    total = int(kept.sum())
    row_of = np.repeat(np.arange(rows), kept)
    within = np.arange(total) - np.repeat(np.cumsum(kept) - kept, kept)
    cell = within + (np.repeat(maxlen - kept, kept) if padding == "pre" else 0)
    ids = np.full((rows, maxlen), value, dtype=np.int32)
    mask = np.zeros((rows, maxlen), dtype=np.int8)
    ids[row_of, cell] = values[np.repeat(first, kept) + within]
    mask[row_of, cell] = 1
    return ids, mask


def _record_batch(batch, kept_indices, values, row_lengths, shape, names):
    """The output Arrow batch: the kept columns, then the ids (and the mask)."""
    import pyarrow as pa

    if len(values) and (values.min() < _INT32.min or values.max() > _INT32.max):
        raise ValueError("the tokenizer gave an id that does not fit int32")
    columns = [batch.column(i) for i in kept_indices]
    if shape is None:
        offsets = np.zeros(len(row_lengths) + 1, dtype=np.int32)
        np.cumsum(row_lengths, out=offsets[1:])
        columns.append(pa.ListArray.from_arrays(pa.array(offsets), pa.array(values.astype(np.int32))))
    else:
        maxlen, padding, truncating, value = shape
        ids, mask = padded_ids(values, row_lengths, maxlen, padding, truncating, value)
        offsets = pa.array(np.arange(0, ids.size + 1, maxlen, dtype=np.int32))
        columns.append(pa.ListArray.from_arrays(offsets, pa.array(ids.ravel())))
        columns.append(pa.ListArray.from_arrays(offsets, pa.array(mask.ravel())))
    return pa.RecordBatch.from_arrays(columns, names=names)
