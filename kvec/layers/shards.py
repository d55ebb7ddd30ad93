"""Training shards (:mod:`kvec.data.shards`) as a ``tf.data.Dataset`` of padded, length-bucketed batches, read
file by file as ``model.fit`` consumes them: TFRecord shards by TensorFlow's ``TFRecordDataset`` and
``parse_example``, Parquet shards by pyarrow, one record batch at a time.

Without ``shuffle`` the batches are exactly those of :class:`kvec.data.batching.TokenBatches` over the same
rows and options: windows of ``batch_size * bucket_window`` rows, each sorted by length (longest first,
ties in order) and cut into batches, each padded to its longest row.

The shards are read by :func:`kvec.data.shards.shard_chunks`, the reader of
:func:`kvec.data.shards.read_shards`, and checked whole when the dataset is made: a file either reader
cannot represent (nulls, ids past int64 or negative, float ids, row counts other than the manifest's,
a file outside the folder) raises the same :class:`kvec.errors.FormatError`, naming the file and row.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import tensorflow as tf

from kvec.data.batching import PADDING_SIDES
from kvec.data.shards import IDS, MASK, ShardInfo, read_info, real_ids, shard_chunks, tfrecord_features

__all__ = ["dataset_from_shards"]


def _positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def dataset_from_shards(
    path: str | os.PathLike[str],
    label: str | None = None,
    batch_size: int = 32,
    maxlen: int | None = None,
    padding: str = "post",
    truncating: str = "post",
    pad_value: int = 0,
    bucket: bool = True,
    bucket_window: int = 50,
    shuffle: bool = False,
    seed: int | None = 0,
    dtype: Any = "int32",
    inputs: str = "dict",
) -> tf.data.Dataset:
    """Batches of the rows of the shard folder ``path`` (written by :func:`kvec.spark.write_shards`) for
    ``model.fit``: ``({"input_ids": ids, "attention_mask": mask}, labels)``, both ``[batch, longest
    row]``, or the dict alone without ``label``.

    Args:
        path: the shard folder.
        label: the column holding one label per row (ints, or floats), or None.
        batch_size, maxlen, padding, truncating, pad_value, bucket, bucket_window, dtype: as in
            :class:`kvec.data.batching.TokenBatches`. Padded shards are read as their real ids (the
            ``attention_mask`` says which) and padded again batch by batch.
        shuffle: a new order every epoch: rows through a shuffle buffer of one bucketing window, then
            batches through one of ``bucket_window`` batches (``seed`` fixes both). A stream cannot be
            permuted whole, so shuffled batches differ from ``TokenBatches``'.
        inputs: ``"dict"`` (the default) or ``"input_ids"``, the id matrix alone.

    Example:
        >>> train = dataset_from_shards("shards/", label="label", batch_size=64, shuffle=True)  # doctest: +SKIP
        >>> model.fit(train, epochs=3)  # doctest: +SKIP
    """
    info = read_info(path)
    batch_size = _positive_int(batch_size, "batch_size")
    bucket_window = _positive_int(bucket_window, "bucket_window")
    if maxlen is not None:
        maxlen = _positive_int(maxlen, "maxlen")
    for name, side in (("padding", padding), ("truncating", truncating)):
        if side not in PADDING_SIDES:
            raise ValueError(f'{name} must be "pre" or "post", got {side!r}')
    if inputs not in ("dict", "input_ids"):
        raise ValueError(f'inputs must be "dict" or "input_ids", got {inputs!r}')
    if label is not None:
        if label in (IDS, MASK):
            raise ValueError(f"label: {label!r} is read as the rows' ids; name another column")
        column = info.column(label)
        if column.is_list or column.kind == "bytes":
            raise ValueError(f"label: the column {label!r} must hold one int or float per row")
    dtype = tf.as_dtype(np.dtype(dtype))
    # Every file is read once and checked now, by read_shards' own reader: a file it refuses raises
    # the same FormatError here, before training, not a TensorFlow error halfway through an epoch.
    for _ in shard_chunks(info, _names(info, label)):
        pass
    rows = _tfrecord_rows(info, label) if info.format == "tfrecord" else _parquet_rows(info, label)
    if maxlen is not None:
        rows = rows.map(lambda ids, y: (ids[-maxlen:] if truncating == "pre" else ids[:maxlen], y))
    window = batch_size * bucket_window
    if shuffle:
        rows = rows.shuffle(window, seed=seed, reshuffle_each_iteration=True)
    if bucket:  # each window longest first (a stable sort, as TokenBatches'), then cut in batches
        rows = rows.ragged_batch(window).map(_longest_first).unbatch()
    batches = rows.ragged_batch(batch_size).map(lambda ids, y: (_padded(ids, padding, pad_value, dtype), y))
    if shuffle:
        batches = batches.shuffle(bucket_window, seed=seed, reshuffle_each_iteration=True)
    # as many batches as TokenBatches makes (a window holds whole batches): model.fit knows an epoch's length
    batches = batches.apply(tf.data.experimental.assert_cardinality(-(-sum(info.rows) // batch_size)))
    if label is None:
        batches = batches.map(lambda x, y: x[IDS] if inputs == "input_ids" else x)
    elif inputs == "input_ids":
        batches = batches.map(lambda x, y: (x[IDS], y))
    return batches.prefetch(tf.data.AUTOTUNE)


def _longest_first(ids, labels):
    order = tf.argsort(-ids.row_lengths(), stable=True)
    return tf.gather(ids, order), tf.gather(labels, order)


def _padded(ids, padding, pad_value, dtype):
    """``{"input_ids", "attention_mask"}`` of a ragged batch, padded to its longest row."""
    lengths = ids.row_lengths()
    if padding == "post":
        dense = ids.to_tensor(default_value=tf.constant(pad_value, ids.dtype))
        mask = tf.sequence_mask(lengths, tf.shape(dense)[1])
    else:
        dense = tf.reverse(tf.reverse(ids, axis=[1]).to_tensor(default_value=tf.constant(pad_value, ids.dtype)), [1])
        mask = tf.reverse(tf.sequence_mask(lengths, tf.shape(dense)[1]), [1])
    return {IDS: tf.cast(dense, dtype), MASK: tf.cast(mask, dtype)}


def _label_dtype(info: ShardInfo, label):
    return tf.int64 if label is None or info.column(label).kind == "int" else tf.float32


def _names(info, label):
    """The columns read: the ids, the mask of padded shards and the label."""
    return [IDS] + ([MASK] if info.padded else []) + ([] if label is None else [label])


def _tfrecord_rows(info, label):
    """``(ids, label)`` per row (label 0 when there is none), through TensorFlow's TFRecord reader."""
    features = tfrecord_features([info.column(name) for name in _names(info, label)])
    padded = info.padded

    def parsed(serialized):
        example = tf.io.parse_example(serialized, features)
        ids = example[IDS]
        if padded:
            ids = tf.ragged.boolean_mask(ids, tf.not_equal(example[MASK], 0))
        labels = example[label] if label is not None else tf.zeros(tf.shape(serialized), tf.int64)
        return ids, labels

    records = tf.data.TFRecordDataset(info.paths)
    return records.batch(1024).map(parsed).unbatch()


def _parquet_rows(info, label):
    """``(ids, label)`` per row (label 0 when there is none), through pyarrow, one record batch at a
    time, converted and checked by :func:`kvec.data.shards.shard_chunks`."""
    label_type = _label_dtype(info, label)

    def record_batches():
        for _, _, chunk in shard_chunks(info, _names(info, label)):
            values, lengths = chunk[IDS]
            if info.padded:
                values, lengths = real_ids(values, lengths, chunk[MASK][0])
            labels = np.zeros(len(lengths), np.int64) if label is None else chunk[label]
            yield values, lengths, np.asarray(labels, label_type.as_numpy_dtype)

    signature = (
        tf.TensorSpec([None], tf.int64),
        tf.TensorSpec([None], tf.int64),
        tf.TensorSpec([None], label_type),
    )
    chunks = tf.data.Dataset.from_generator(record_batches, output_signature=signature)
    return chunks.map(lambda v, n, y: (tf.RaggedTensor.from_row_lengths(v, n), y)).unbatch()
