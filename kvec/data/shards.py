"""Training shards: rows of token ids in files, written by :func:`kvec.spark.write_shards` and read back
here as NumPy arrays and :class:`kvec.data.batching.TokenBatches` (the ``tf.data`` reader is
:func:`kvec.layers.shards.dataset_from_shards`).

A shard folder holds one file per partition of the data that was written, ``part-00000.tfrecord``
(TensorFlow's TFRecord of ``tf.train.Example``) or ``part-00000.parquet`` (Parquet, through pyarrow),
and ``kvec_shards.json``, written last: the format, the columns and the files with their row counts, in
the rows' order. A folder without it was not written by kvec, or its writing did not finish.

Every shard has an ``input_ids`` column (a list of ints per row) and may have an ``attention_mask``
column (the rows were padded; the mask's 1s mark the real ids). Other columns (labels, keys) are ints,
floats or strings, alone or in lists. The readers give each row's real ids: padding is dropped by the
mask, so batches are padded again, batch by batch, as :class:`kvec.data.batching.TokenBatches` pads them.
Columns read back as ``int64``, ``float32`` (what TFRecord stores) or ``bytes``, whichever the format.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from kvec.data.batching import TokenBatches
from kvec.errors import FormatError, NotAFileError, file_kind, parse_json
from kvec.files.atomic import atomic_write

__all__ = [
    "FORMATS",
    "SHARDS_FILE",
    "ShardColumn",
    "ShardInfo",
    "ShardRows",
    "batches_from_shards",
    "read_info",
    "read_shards",
    "real_ids",
    "tfrecord_features",
    "shard_chunks",
    "shard_file_name",
    "write_info",
]

SHARDS_FILE = "kvec_shards.json"
FORMATS = ("tfrecord", "parquet")
IDS, MASK = "input_ids", "attention_mask"
KINDS = ("int", "float", "bytes")
FORMAT_VERSION = 1
_SHARD_NAME = re.compile(r"part-[0-9]{5,}\.(tfrecord|parquet)")
_NUMPY_TYPES = {"int": np.int64, "float": np.float32, "bytes": object}
_TFRECORD_CHUNK = 4096  # records parsed at once by the NumPy reader
_PARQUET_BATCH_ROWS = 8192  # rows of a Parquet shard read at once


def shard_file_name(partition: int, format: str) -> str:
    """The name of partition ``partition``'s file.

    Example:
        >>> shard_file_name(3, "tfrecord")
        'part-00003.tfrecord'
    """
    return f"part-{partition:05d}.{format}"


@dataclass(frozen=True)
class ShardColumn:
    """One column of the shards: its name, ``kind`` (``"int"``, ``"float"`` or ``"bytes"``) and whether
    each row holds a list of values (``is_list``) or one."""

    name: str
    kind: str
    is_list: bool


@dataclass(frozen=True)
class ShardInfo:
    """What ``kvec_shards.json`` says of a shard folder: its ``format``, ``columns``, and ``files`` (names
    in the folder) with the number of ``rows`` of each, in the rows' order."""

    folder: str
    format: str
    columns: tuple[ShardColumn, ...]
    files: tuple[str, ...]
    rows: tuple[int, ...]

    @property
    def paths(self) -> list[str]:
        """The files' paths, in order."""
        return [os.path.join(self.folder, name) for name in self.files]

    @property
    def padded(self) -> bool:
        """Whether the rows were padded (the shards hold an ``attention_mask``)."""
        return any(c.name == MASK for c in self.columns)

    def column(self, name: str) -> ShardColumn:
        """The column called ``name``; ``ValueError`` naming the columns there are."""
        for column in self.columns:
            if column.name == name:
                return column
        raise ValueError(f"the shards in {self.folder} have no column {name!r}: they have {self.names()}")

    def names(self) -> list[str]:
        return [column.name for column in self.columns]

    def to_document(self) -> dict[str, Any]:
        return {
            "kvec_format": FORMAT_VERSION,
            "kind": "shards",
            "format": self.format,
            "columns": [{"name": c.name, "kind": c.kind, "list": c.is_list} for c in self.columns],
            "files": [{"name": name, "rows": rows} for name, rows in zip(self.files, self.rows)],
        }


def write_info(info: ShardInfo) -> None:
    """Write ``kvec_shards.json`` into ``info.folder`` (atomically: a reader never finds half of it)."""
    with atomic_write(os.path.join(info.folder, SHARDS_FILE)) as f:
        json.dump(info.to_document(), f, ensure_ascii=False, indent=1)


def read_info(path: str | os.PathLike[str]) -> ShardInfo:
    """The :class:`ShardInfo` of the shard folder ``path``; a :class:`kvec.errors.FormatError` naming
    ``kvec_shards.json`` when it is missing or corrupt.

    Example:
        >>> info = read_info("shards/")  # doctest: +SKIP
        >>> info.format, info.names(), info.files  # doctest: +SKIP
        ('tfrecord', ['label', 'input_ids'], ('part-00000.tfrecord', 'part-00001.tfrecord'))
    """
    folder = os.fspath(path)
    source = os.path.join(folder, SHARDS_FILE)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{folder}: no such shard folder")
    try:
        with open(source, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise FormatError(
            source, "missing: the folder was not written by kvec.spark.write_shards, or its writing did not finish"
        ) from None
    except UnicodeDecodeError as e:
        raise FormatError(source, f"not UTF-8 text ({e})") from None
    document = parse_json(text, source)
    if not isinstance(document, dict) or document.get("kind") != "shards":
        raise FormatError(source, 'expected an object with "kind": "shards"')
    if document.get("kvec_format") != FORMAT_VERSION:
        raise FormatError(source, f"unknown kvec_format {document.get('kvec_format')!r} (this kvec reads 1)")
    format = document.get("format")
    if format not in FORMATS:
        raise FormatError(source, f"format must be one of {FORMATS}, got {format!r}")
    columns = tuple(_column(entry, source) for entry in _list(document, "columns", source))
    names = [c.name for c in columns]
    if len(set(names)) != len(names):
        raise FormatError(source, f"columns named twice in {names}")
    if ShardColumn(IDS, "int", True) not in columns:
        raise FormatError(source, f'no "{IDS}" column of int lists')
    if MASK in names and ShardColumn(MASK, "int", True) not in columns:
        raise FormatError(source, f'"{MASK}" must be a column of int lists')
    files, rows = [], []
    for entry in _list(document, "files", source):
        name, count = (entry.get("name"), entry.get("rows")) if isinstance(entry, dict) else (None, None)
        # the names come from a file: only shard names in this folder, never a path elsewhere
        if not isinstance(name, str) or not _SHARD_NAME.fullmatch(name) or not name.endswith("." + format):
            raise FormatError(source, f"a file entry must name a {format} shard such as part-00000.{format}: {entry!r}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise FormatError(source, f"the rows of {name} must be an int >= 0, got {count!r}")
        files.append(name)
        rows.append(count)
    return ShardInfo(folder, format, columns, tuple(files), tuple(rows))


def _list(document, key, source):
    value = document.get(key)
    if not isinstance(value, list):
        raise FormatError(source, f'"{key}" must be a list')
    return value


def _column(entry, source):
    if not isinstance(entry, dict):
        raise FormatError(source, f"a column must be an object, got {entry!r}")
    name, kind, is_list = entry.get("name"), entry.get("kind"), entry.get("list")
    if not isinstance(name, str) or kind not in KINDS or not isinstance(is_list, bool):
        raise FormatError(source, f'a column needs a "name", a "kind" in {KINDS} and a boolean "list": {entry!r}')
    return ShardColumn(name, kind, is_list)


# ---- reading into NumPy ------------------------------------------------------------------------------


@dataclass
class ShardRows:
    """The rows of a shard folder, in order: each row's real ids as ``(values, row_lengths)`` (int64,
    see :mod:`kvec.common.ragged`), and the other ``columns`` asked for, one NumPy array each (a list column as
    ``(values, row_lengths)`` too)."""

    values: NDArray[np.int64]
    row_lengths: NDArray[np.int64]
    columns: dict[str, Any] = field(default_factory=dict)


def read_shards(path: str | os.PathLike[str], columns: Iterable[str] = ()) -> ShardRows:
    """All rows of the shard folder ``path`` in memory: the real ids of each row (padding dropped by
    the ``attention_mask``) and the ``columns`` named.

    TFRecord shards are read by TensorFlow's reader (``pip install 'kvec[keras]'``), Parquet shards by
    pyarrow. What the rows cannot be read as raises :class:`kvec.errors.FormatError` naming the file
    (and the row, counted from 0, where it is known): see :func:`shard_chunks`.

    Example:
        >>> rows = read_shards("shards/", columns=["label"])  # doctest: +SKIP
        >>> rows.values[: rows.row_lengths[0]], rows.columns["label"][0]  # doctest: +SKIP
        (array([ 12, 845,   7]), 1)
    """
    info = read_info(path)
    wanted = list(dict.fromkeys(columns))
    for name in wanted:
        if name in (IDS, MASK):
            raise ValueError(f"columns: {name!r} is read as the rows' ids; name the other columns")
        info.column(name)
    read_columns = [IDS] + ([MASK] if info.padded else []) + wanted
    parts: dict[str, list[Any]] = {name: [] for name in read_columns}
    for _, _, chunk in shard_chunks(info, read_columns):
        for name in read_columns:
            parts[name].append(chunk[name])
    joined = {name: _joined(pieces, info.column(name)) for name, pieces in parts.items()}
    values, row_lengths = joined.pop(IDS)
    if info.padded:
        values, row_lengths = _unpadded(values, row_lengths, joined.pop(MASK), info.folder)
    return ShardRows(values, row_lengths, joined)


def batches_from_shards(path: str | os.PathLike[str], label: str | None = None, **options: Any) -> TokenBatches:
    """:class:`kvec.data.batching.TokenBatches` of the rows of the shard folder ``path`` (read by
    :func:`read_shards`), with the column ``label`` as the labels.

    ``options`` are those of :class:`kvec.data.batching.TokenBatches` (``batch_size``, ``maxlen``,
    ``padding``, ``truncating``, ``pad_value``, ``bucket``, ``bucket_window``, ``shuffle``, ``seed``,
    ``dtype``): padded rows come back as their real ids and are padded batch by batch.

    Example:
        >>> batches = batches_from_shards("shards/", label="label", batch_size=64)  # doctest: +SKIP
        >>> inputs, labels = batches[0]  # doctest: +SKIP
        >>> inputs["input_ids"].shape, inputs["attention_mask"].shape  # doctest: +SKIP
        ((64, 41), (64, 41))
    """
    if label in (IDS, MASK):
        raise ValueError(f"label: {label!r} is read as the rows' ids; name another column")
    rows = read_shards(path, [] if label is None else [label])
    labels = None
    if label is not None:
        labels = rows.columns[label]
        if isinstance(labels, tuple):
            raise ValueError(f"label: the column {label!r} holds lists; labels must be one value per row")
    return TokenBatches((rows.values, rows.row_lengths), labels=labels, **options)


def _joined(pieces, column):
    """One column of every file, joined: an array, or ``(values, row_lengths)`` for a list column."""
    if not column.is_list:
        return np.concatenate(pieces) if pieces else np.zeros(0, _NUMPY_TYPES[column.kind])
    if not pieces:
        return np.zeros(0, _NUMPY_TYPES[column.kind]), np.zeros(0, np.int64)
    return np.concatenate([p[0] for p in pieces]), np.concatenate([p[1] for p in pieces])


def _unpadded(values, row_lengths, mask, folder):
    """The ids the mask marks as real, after checking the mask's rows match the ids' rows."""
    mask_values, mask_lengths = mask
    if not np.array_equal(mask_lengths, row_lengths):
        raise FormatError(folder, f"the shards' {MASK} rows are not as long as their {IDS} rows")
    return real_ids(values, row_lengths, mask_values)


def real_ids(
    values: NDArray[np.int64], row_lengths: NDArray[np.int64], mask_values: NDArray[Any]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(values, row_lengths)`` of the ids that a padded row's mask marks as real (its nonzero cells),
    row by row; ``mask_values`` is the mask's rows one after the other, as ``values`` is the ids'.

    Example:
        >>> values, row_lengths = real_ids(np.array([0, 5, 6, 7, 0, 0]), np.array([3, 3]), np.array([0, 1, 1, 1, 0, 0]))
        >>> values.tolist(), row_lengths.tolist()
        ([5, 6, 7], [2, 1])
    """
    kept = np.asarray(mask_values) != 0
    ends = np.cumsum(row_lengths)
    counted = np.concatenate([[0], np.cumsum(kept, dtype=np.int64)])
    return values[kept], counted[ends] - counted[ends - row_lengths]


def shard_chunks(info: ShardInfo, names: Iterable[str]) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """The rows of every shard file of ``info``, chunk by chunk and checked: ``(file, first row of the
    chunk in its file, {name: array or (values, row_lengths)})`` for the columns ``names``.

    This is the one reader of shard files, under :func:`read_shards` and
    :func:`kvec.layers.shards.dataset_from_shards`, so both refuse the same files with the same
    :class:`kvec.errors.FormatError`, naming the file (and the row, counted from 0, where known):

    - a file that is missing, not a regular file, or a symlink that resolves outside the shard folder;
    - a file that is not Parquet or TFRecord of these columns, or a column of another type (floats
      where ids are ints: an id is never truncated);
    - a null row or a null inside a list;
    - an ``input_ids`` id that is negative, or an int past int64 (a uint64 of 2**63 or more);
    - a file holding another number of rows than ``kvec_shards.json`` says.
    """
    columns = [info.column(name) for name in names]
    read = _tfrecord_chunks if info.format == "tfrecord" else _parquet_chunks
    for file, expected in zip(info.paths, info.rows):
        _check_shard_file(file, info.folder)
        row = 0
        for raw in read(file, columns):
            chunk = {column.name: _checked(raw[column.name], column, file, row) for column in columns}
            first = chunk[columns[0].name]
            yield file, row, chunk
            row += len(first[1]) if isinstance(first, tuple) else len(first)
        if row != expected:
            raise FormatError(file, f"holds {row} rows, {SHARDS_FILE} says {expected}")


def _check_shard_file(file, folder):
    """A shard listed by the manifest is a regular file inside the shard folder (a symlink is followed
    only as far as the folder: the manifest never makes kvec read a file elsewhere)."""
    try:
        mode = os.stat(file).st_mode
    except FileNotFoundError:
        raise FormatError(file, f"missing: {SHARDS_FILE} lists it") from None
    real, inside = os.path.realpath(file), os.path.realpath(folder)
    if os.path.dirname(real) != inside:
        raise FormatError(file, f"resolves to {real}, outside the shard folder {inside}")
    if not stat.S_ISREG(mode):
        raise NotAFileError(file, file_kind(mode), "reads shards from")


def _parquet_chunks(file, columns):
    """``{name: pyarrow array}`` of each record batch of one Parquet shard."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        with pq.ParquetFile(file) as shard:
            for batch in shard.iter_batches(batch_size=_PARQUET_BATCH_ROWS, columns=[c.name for c in columns]):
                yield {column.name: batch.column(column.name) for column in columns}
    except (pa.ArrowException, OSError) as e:
        raise FormatError(file, f"not a readable Parquet file of these columns ({e})") from None


def _checked(array, column, file, first_row):
    """One chunk of a column as NumPy (``(values, row_lengths)`` for a list), after the checks of
    :func:`shard_chunks`. ``array`` is pyarrow's (Parquet) or already NumPy (TFRecord, whose int64
    lists hold no null and no unsigned value)."""
    if isinstance(array, tuple):
        values, lengths = array
    elif isinstance(array, np.ndarray):
        values, lengths = array, None
    else:
        values, lengths = _from_arrow(array, column, file, first_row)
    if column.name == IDS and values.size and values.min() < 0:
        at = int(np.argmin(values))
        raise FormatError(file, f"row {_row_of(at, lengths, first_row)}: the id {values[at]} in {IDS!r} is negative")
    return values if lengths is None else (values, lengths)


def _row_of(position, lengths, first_row):
    """The row (in its file) of the value at ``position`` of a chunk's values."""
    if lengths is None:
        return first_row + position
    return first_row + int(np.searchsorted(np.cumsum(lengths), position, side="right"))


def _from_arrow(array, column, file, first_row):
    """``(values, row_lengths or None)`` of a pyarrow array, refusing nulls and types the column's
    kind cannot hold."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if array.null_count:
        row = first_row + int(np.flatnonzero(array.is_null().to_numpy(zero_copy_only=False))[0])
        raise FormatError(file, f"row {row}: {column.name!r} is null")
    if not column.is_list:
        return _numpy_values(array, column, file, lambda at: first_row + at), None
    if not pa.types.is_list(array.type) and not pa.types.is_large_list(array.type):
        raise FormatError(file, f"the column {column.name!r} holds {array.type}, not lists")
    parents = None

    def row_of(at):
        nonlocal parents
        parents = np.asarray(pc.list_parent_indices(array)) if parents is None else parents
        return first_row + int(parents[at])

    flat = array.flatten()
    if flat.null_count:
        at = int(np.flatnonzero(flat.is_null().to_numpy(zero_copy_only=False))[0])
        raise FormatError(file, f"row {row_of(at)}: the {column.name!r} list holds a null")
    return _numpy_values(flat, column, file, row_of), np.asarray(array.value_lengths(), dtype=np.int64)


_INT64_MAX = np.iinfo(np.int64).max


def _numpy_values(array, column, file, row_of):
    """A pyarrow array of one column's values as NumPy, in the column kind's type; ``row_of(i)`` is
    the row of value ``i`` (for the message of a value int64 cannot hold)."""
    import pyarrow as pa

    wanted = {"int": pa.types.is_integer, "float": pa.types.is_floating, "bytes": pa.types.is_string}
    kind_type = array.type
    if column.kind == "bytes" and (pa.types.is_binary(kind_type) or pa.types.is_string(kind_type)):
        values = array.to_pylist()
        encoded = np.empty(len(values), dtype=object)
        encoded[:] = [v.encode("utf-8") if isinstance(v, str) else v for v in values]
        return encoded
    if not (wanted[column.kind](kind_type) or (column.kind == "int" and pa.types.is_boolean(kind_type))):
        raise FormatError(file, f"the column {column.name!r} holds {kind_type}, not {column.kind} values")
    values = array.to_numpy(zero_copy_only=False)
    if values.dtype == np.uint64 and values.size and values.max() > _INT64_MAX:
        at = int(np.argmax(values))
        raise FormatError(file, f"row {row_of(at)}: the value {values[at]} in {column.name!r} is past int64")
    return np.asarray(values, dtype=_NUMPY_TYPES[column.kind])


def tfrecord_features(columns):
    """The ``tf.io.parse_example`` features of ``columns`` (TensorFlow imported on first use)."""
    import tensorflow as tf

    dtypes = {"int": tf.int64, "float": tf.float32, "bytes": tf.string}
    return {
        c.name: tf.io.RaggedFeature(dtypes[c.kind], row_splits_dtype=tf.int64)
        if c.is_list
        else tf.io.FixedLenFeature([], dtypes[c.kind])
        for c in columns
    }


def _tfrecord_chunks(file, columns):
    """``{name: array or (values, row_lengths)}`` of each chunk of records of one TFRecord shard,
    through TensorFlow's reader."""
    import tensorflow as tf

    features = tfrecord_features(columns)
    records = tf.data.TFRecordDataset(file).batch(_TFRECORD_CHUNK)
    parsed = records.map(lambda serialized: tf.io.parse_example(serialized, features))
    iterator = iter(parsed)
    while True:
        try:
            chunk = next(iterator)
        except StopIteration:
            return
        except (tf.errors.DataLossError, tf.errors.InvalidArgumentError) as e:
            problem = e.message.splitlines()[0]
            problem = problem[problem.find("Key: ") :] if "Key: " in problem else problem.split("}} ")[-1]
            raise FormatError(file, f"not a readable TFRecord file of kvec shards ({problem})") from None
        found: dict[str, Any] = {}
        for column in columns:
            tensor = chunk[column.name]
            if column.is_list:
                found[column.name] = (
                    np.asarray(tensor.flat_values.numpy(), _NUMPY_TYPES[column.kind]),
                    np.asarray(tensor.row_lengths().numpy(), np.int64),
                )
            else:
                found[column.name] = np.asarray(tensor.numpy(), _NUMPY_TYPES[column.kind])
        yield found
