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

__all__ = ["rows_to_ragged"]


def rows_to_ragged(rows: Sequence[Sequence[int]]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(values, row_lengths)`` int64 arrays of a list of id lists.

    Example:
        >>> values, row_lengths = rows_to_ragged([[5, 6], [], [7]])
        >>> values.tolist(), row_lengths.tolist()
        ([5, 6, 7], [2, 0, 1])
    """
    row_lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    values = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=int(row_lengths.sum()))
    return values, row_lengths
