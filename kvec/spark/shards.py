"""Training shards written from Spark: each partition of an encoded DataFrame becomes one file, written
by its executor, and the driver writes ``kvec_shards.json`` last (the layout is in :mod:`kvec.data.shards`).

TFRecord files are written by TensorFlow's ``tf.io.TFRecordWriter`` (one ``tf.train.Example`` per row),
Parquet files by pyarrow's ``ParquetWriter`` straight from the partition's Arrow record batches. Each
file is written under a temporary name and renamed when complete, so a retried task replaces it whole.
"""

from __future__ import annotations

import os
from typing import Any, cast

import numpy as np

from kvec.common.arguments import wrong_type
from kvec.data.shards import FORMATS, IDS, MASK, SHARDS_FILE, ShardColumn, ShardInfo, shard_file_name, write_info

__all__ = ["write_shards"]

_INT_TYPES = ("tinyint", "smallint", "int", "bigint", "boolean")
_FLOAT_TYPES = ("float", "double")
_BYTES_TYPES = ("string", "binary")
_TEMPORARY_SUFFIX = ".tmp"


def write_shards(df: Any, path: str | os.PathLike[str], format: str = "tfrecord", overwrite: bool = False) -> ShardInfo:
    """Write the rows of ``df`` (what :func:`kvec.spark.encode` returns) as training shards in the folder
    ``path``, one file per partition, in the rows' order; returns what ``kvec_shards.json`` says.

    Args:
        df: a DataFrame with an ``input_ids`` column (arrays of ints), maybe ``attention_mask``, and
            other columns of ints, floats or strings, alone or in arrays (labels, keys). Every
            column is written.
        path: a folder on a filesystem the driver and every executor share (any local folder in
            ``local`` mode). It must be empty or new; with ``overwrite``, a folder of kvec shards is
            emptied first (a folder holding other files never is).
        format: ``"tfrecord"`` (TensorFlow on the executors, ``pip install 'kvec[keras]'``) or
            ``"parquet"`` (pyarrow).

    Read the shards back with :func:`kvec.data.shards.batches_from_shards` (NumPy) or
    :func:`kvec.layers.shards.dataset_from_shards` (``tf.data``).

    Example:
        >>> encoded = kvec.spark.encode(frame, tok)  # doctest: +SKIP
        >>> write_shards(encoded, "/data/shards", format="parquet").rows  # doctest: +SKIP
        (5000, 5000, 4821)
    """
    from pyspark import TaskContext
    from pyspark.sql import DataFrame

    if not isinstance(df, DataFrame):
        raise wrong_type("df", "a pyspark DataFrame", df)
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
    columns = tuple(_shard_column(field) for field in df.schema.fields)
    if ShardColumn(IDS, "int", True) not in columns:
        raise ValueError(
            f"df needs an {IDS!r} column of int arrays (what kvec.spark.encode returns); it has {df.columns}"
        )
    if MASK in df.columns and ShardColumn(MASK, "int", True) not in columns:
        raise ValueError(f"df's {MASK!r} column must hold int arrays")
    folder = os.path.abspath(os.fspath(path))
    _prepare_folder(folder, bool(overwrite))

    def write_partition(batches):
        context = cast(TaskContext, TaskContext.get())  # set in every task
        partition = context.partitionId()
        name = shard_file_name(partition, format)
        final = os.path.join(folder, name)
        temporary = os.path.join(folder, f".{name}.{context.taskAttemptId()}{_TEMPORARY_SUFFIX}")
        write = _write_tfrecord if format == "tfrecord" else _write_parquet
        rows = write(temporary, batches, columns, partition)
        if rows:
            os.replace(temporary, final)
        elif os.path.exists(temporary):
            os.unlink(temporary)
        yield _summary(partition, name if rows else "", rows)

    written = df.mapInArrow(write_partition, "partition int, file string, rows long").collect()
    for leftover in os.listdir(folder):  # the files of failed attempts
        if leftover.startswith(".part-") and leftover.endswith(_TEMPORARY_SUFFIX):
            os.unlink(os.path.join(folder, leftover))
    files = sorted((row["partition"], row["file"], row["rows"]) for row in written if row["rows"])
    info = ShardInfo(folder, format, columns, tuple(f for _, f, _ in files), tuple(int(r) for _, _, r in files))
    write_info(info)
    return info


def _shard_column(field):
    """The :class:`kvec.data.shards.ShardColumn` of a DataFrame field; ``TypeError`` for a type shards
    cannot hold."""
    data_type = field.dataType
    is_list = data_type.typeName() == "array"
    element = data_type.elementType.simpleString() if is_list else data_type.simpleString()
    for kind, names in (("int", _INT_TYPES), ("float", _FLOAT_TYPES), ("bytes", _BYTES_TYPES)):
        if element in names:
            return ShardColumn(field.name, kind, is_list)
    raise TypeError(
        f"df: the column {field.name!r} holds {data_type.simpleString()}; shards hold ints, floats and "
        "strings, alone or in arrays (drop or convert it before writing)"
    )


def _prepare_folder(folder, overwrite):
    """Make ``folder`` an empty folder to write shards in (empty a kvec shard folder with ``overwrite``)."""
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise NotADirectoryError(f"path: {folder} is a file, not a folder")
    present = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    if present:
        if not overwrite:
            raise FileExistsError(f"path: {folder} is not empty: pass overwrite=True to replace the kvec shards there")
        ours = [
            name
            for name in present
            if name == SHARDS_FILE
            or (name.startswith(("part-", ".part-")) and name.endswith((".tfrecord", ".parquet", _TEMPORARY_SUFFIX)))
        ]
        others = sorted(set(present) - set(ours))
        if SHARDS_FILE not in present or others:
            raise FileExistsError(
                f"path: {folder} holds files kvec did not write ({(others or present)[:5]}): "
                "overwrite only replaces a folder of kvec shards"
            )
        os.unlink(os.path.join(folder, SHARDS_FILE))  # first: a half-emptied folder reads as unfinished
        for name in ours:
            if name != SHARDS_FILE:
                os.unlink(os.path.join(folder, name))
    os.makedirs(folder, exist_ok=True)


def _summary(partition, name, rows):
    import pyarrow as pa

    return pa.RecordBatch.from_arrays(
        [pa.array([partition], pa.int32()), pa.array([name], pa.string()), pa.array([rows], pa.int64())],
        names=["partition", "file", "rows"],
    )


def _checked(batch, columns, partition):
    """``batch`` after checking it holds no nulls (shards cannot)."""
    for column, array in zip(columns, batch.columns):
        if array.null_count:
            raise ValueError(f"df: the column {column.name!r} holds nulls (partition {partition}); shards cannot")
        if column.is_list and array.flatten().null_count:
            raise ValueError(f"df: the arrays of {column.name!r} hold nulls (partition {partition}); shards cannot")
    return batch


def _write_batches(batches, columns, partition, open_writer, write):
    """Write each non-empty record batch of the partition, checked for nulls, with ``write(writer,
    batch)`` through one writer that ``open_writer(schema)`` opens at the first of them and that is
    closed whatever happens; the number of rows."""
    writer, rows = None, 0
    try:
        for batch in batches:
            if not batch.num_rows:
                continue
            if writer is None:
                writer = open_writer(batch.schema)
            write(writer, _checked(batch, columns, partition))
            rows += batch.num_rows
    finally:
        if writer is not None:
            writer.close()
    return rows


def _write_parquet(file, batches, columns, partition):
    """Write the partition's record batches to one Parquet file; the number of rows."""
    import pyarrow.parquet as pq

    return _write_batches(
        batches, columns, partition, lambda schema: pq.ParquetWriter(file, schema), lambda w, b: w.write_batch(b)
    )


def _write_tfrecord(file, batches, columns, partition):
    """Write the partition's rows to one TFRecord file of ``tf.train.Example``; the number of rows."""
    import tensorflow as tf

    def write(writer, batch):
        cells = [_python_cells(array, column) for array, column in zip(batch.columns, columns)]
        for row in range(batch.num_rows):
            feature = {column.name: _feature(tf, column.kind, cell(row)) for column, cell in zip(columns, cells)}
            writer.write(tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString())

    return _write_batches(batches, columns, partition, lambda schema: tf.io.TFRecordWriter(file), write)


def _python_cells(array, column):
    """``cell(row)``: the values of one row of a column, as a list of Python ints, floats or bytes."""
    if column.is_list:
        offsets = np.asarray(array.offsets)
        values = _python_values(array.flatten(), column.kind)
        first = int(offsets[0])
        return lambda row: values[offsets[row] - first : offsets[row + 1] - first]
    values = _python_values(array, column.kind)
    return lambda row: values[row : row + 1]


def _python_values(array, kind):
    values = array.to_pylist()
    if kind == "bytes":
        return [v.encode("utf-8") if isinstance(v, str) else v for v in values]
    return values


def _feature(tf, kind, values):
    if kind == "int":
        return tf.train.Feature(int64_list=tf.train.Int64List(value=values))
    if kind == "float":
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
