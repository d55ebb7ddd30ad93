"""What kvec's Spark functions take as texts: an RDD of str, a DataFrame with a string column, or paths of
text files (one text per line); turned into the RDD of str that counting reads, or the DataFrame that
encoding reads. Both keep the texts' order: the same partitions, in the same order."""

from __future__ import annotations

from typing import Any

from kvec.common.arguments import wrong_type

__all__ = ["text_column", "text_frame", "text_rdd"]

TEXT_COLUMN = "text"  # the column an RDD of str becomes


def text_rdd(data: Any, column: str | None = None, spark: Any = None) -> Any:
    """An RDD of str from an RDD, a DataFrame (its only string column, or ``column``) or paths."""
    from pyspark import RDD
    from pyspark.sql import DataFrame

    if isinstance(data, RDD):
        return data
    if isinstance(data, DataFrame):
        return data.select(text_column(data, column)).rdd.map(lambda row: row[0])
    if isinstance(data, (str, list, tuple)):
        return _read_text(data, spark).rdd.map(lambda row: row[0])
    raise wrong_type("data", "an RDD, a DataFrame or paths", data)


def text_frame(data: Any, column: str | None = None, spark: Any = None) -> tuple[Any, str]:
    """``(frame, column)``: a DataFrame and the name of its text column. A DataFrame comes back as it
    is; an RDD of str becomes a DataFrame of one column, ``text``; paths are read as text files (one
    text per line, column ``value``)."""
    from pyspark import RDD
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StringType, StructField, StructType

    if isinstance(data, DataFrame):
        return data, text_column(data, column)
    if isinstance(data, RDD):

        def checked(partition, texts):
            for position, text in enumerate(texts):
                if not isinstance(text, str):
                    raise TypeError(
                        f"data: item {position} of the RDD's partition {partition} must be a str, "
                        f"got {type(text).__name__}"
                    )
                yield (text,)

        session = SparkSession.builder.getOrCreate()
        schema = StructType([StructField(TEXT_COLUMN, StringType(), nullable=False)])
        return session.createDataFrame(data.mapPartitionsWithIndex(checked), schema), TEXT_COLUMN
    if isinstance(data, (str, list, tuple)):
        frame = _read_text(data, spark)
        return frame, frame.columns[0]
    raise wrong_type("data", "an RDD, a DataFrame or paths", data)


def text_column(frame: Any, column: str | None) -> str:
    """The name of ``frame``'s text column: ``column``, or its only string column."""
    strings = [f.name for f in frame.schema.fields if f.dataType.typeName() == "string"]
    if column is None:
        if len(strings) != 1:
            raise ValueError(f"the DataFrame has string columns {strings}: say which with column=")
        return strings[0]
    if not isinstance(column, str):
        raise wrong_type("column", "a str", column)
    if column not in frame.columns:
        raise ValueError(f"column: the DataFrame has no column {column!r}; it has {frame.columns}")
    if column not in strings:
        kind = frame.schema[column].dataType.simpleString()
        raise TypeError(f"column: {column!r} must hold strings, it holds {kind}")
    return column


def _read_text(paths, spark):
    from pyspark.sql import SparkSession

    session = spark or SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()
    return session.read.text(list(paths) if not isinstance(paths, str) else paths)
