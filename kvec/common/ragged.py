"""Many rows of ids as one flat array and the length of each row.

Every consumer of ids in bulk (the Keras layer, the training batches) takes them in this shape: it is
what ``tf.RaggedTensor.from_row_lengths`` and NumPy's padding want, and it costs one allocation per
batch instead of one list per text.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np
from numpy.typing import NDArray

from kvec.common.arguments import wrong_type

__all__ = ["rows_to_ragged"]


def rows_to_ragged(rows: Sequence[Sequence[int]]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(values, row_lengths)`` int64 arrays of a list of id lists.

    Example:
        >>> values, row_lengths = rows_to_ragged([[5, 6], [], [7]])
        >>> values.tolist(), row_lengths.tolist()
        ([5, 6, 7], [2, 0, 1])
    """
    try:
        row_lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        values = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=int(row_lengths.sum()))
    except (TypeError, ValueError, OverflowError):
        _raise_bad_row(rows)
        raise
    return values, row_lengths


def _raise_bad_row(rows: Sequence[Sequence[int]]) -> None:
    """``TypeError``/``ValueError`` naming the first row that is not a list of ids, or the first id that
    is not an int64 (the rows were refused by NumPy, which names neither)."""
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__len__"):
        raise wrong_type("rows", "a list of id lists", rows)
    for position, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
            raise wrong_type(f"rows[{position}]", "a list of int ids", row)
        for index, value in enumerate(row):
            if not isinstance(value, (int, np.integer)):
                raise wrong_type(f"rows[{position}][{index}]", "an int id", value)
            if not -(2**63) <= value < 2**63:
                raise ValueError(f"rows[{position}][{index}] = {value} does not fit an int64")
