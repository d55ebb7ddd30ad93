"""The legacy Keras ``texts_to_matrix`` / ``sequences_to_matrix``: rows of word indices as a matrix of
one column per index, dense (NumPy, as the legacy code) or sparse (``scipy.sparse.csr_matrix``, the
same numbers with memory in proportion to the distinct words of each row).

Column ``j`` of row ``i`` holds, for the index ``j`` in row ``i``'s indices: 1 (``binary``), its count
(``count``), its count divided by the row's length (``freq``) or ``(1 + ln count) * ln(1 + documents /
(1 + document frequency))`` (``tfidf``), each evaluated with the legacy code's scalar expressions, so
the floats are the same bit for bit. Indices ``>= width`` are left out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["MATRIX_MODES", "count_matrix"]

MATRIX_MODES = ("binary", "count", "tfidf", "freq")


def count_matrix(
    ids: NDArray[np.int64],
    lengths: NDArray[np.int64],
    width: int,
    mode: str,
    document_frequency: NDArray[np.int64] | None = None,
    documents: int = 0,
    sparse: bool = False,
) -> Any:
    """The ``(len(lengths), width)`` float64 matrix of ``ids`` (``lengths[i]`` of them for row ``i``).

    Args:
        ids, lengths: the rows' indices back to back (non-negative int64), and each row's count of them.
        width: the number of columns; larger indices are left out.
        mode: ``"binary"``, ``"count"``, ``"freq"`` or ``"tfidf"``.
        document_frequency: with ``tfidf``, the number of documents holding each index (``width`` ints).
        documents: with ``tfidf``, the number of documents fitted.
        sparse: a ``scipy.sparse.csr_matrix`` (sorted indices, no explicit zeros where the dense
            matrix has none) instead of a NumPy array.

    Example:
        >>> ids, lengths = np.array([1, 3, 3, 0]), np.array([3, 1])
        >>> count_matrix(ids, lengths, 4, "count")
        array([[0., 1., 0., 2.],
               [1., 0., 0., 0.]])
        >>> print(count_matrix(ids, lengths, 4, "count", sparse=True))  # doctest: +NORMALIZE_WHITESPACE
        <Compressed Sparse Row sparse matrix of dtype 'float64'
            with 3 stored elements and shape (2, 4)>
          Coords    Values
          (0, 1)    1.0
          (0, 3)    2.0
          (1, 0)    1.0
    """
    if mode not in MATRIX_MODES:
        raise ValueError(f"Unknown vectorization mode: {mode!r}; expected one of {MATRIX_MODES}")
    if mode == "tfidf" and document_frequency is None:
        raise ValueError("tfidf needs the document frequency of each index")
    rows = len(lengths)
    row_of = np.repeat(np.arange(rows, dtype=np.int64), lengths)
    kept = ids < width
    row_of, kept_ids = row_of[kept], ids[kept]
    if not sparse:
        return _dense(row_of, kept_ids, rows, width, mode, lengths, document_frequency, documents)
    cells, counts = np.unique(row_of * width + kept_ids, return_counts=True)  # row-major order
    cell_rows, cell_columns = np.divmod(cells, width) if width else (cells, cells)
    values = _values(mode, counts, cell_rows, cell_columns, lengths, document_frequency, documents)
    return _csr(values, cell_rows, cell_columns, rows, width)


def _dense(row_of, ids, rows, width, mode, lengths, document_frequency, documents):
    """The dense matrix, its cells written in place (no sort: the page faults of a large matrix are the
    floor, and a sort would double it)."""
    x = np.zeros((rows, width))
    flat = x.reshape(-1)
    cells = row_of * width + ids
    if mode == "binary":
        flat[cells] = 1.0
        return x
    np.add.at(flat, cells, 1.0)
    if mode == "count":
        return x
    counts = flat[cells]
    if mode == "freq":
        flat[cells] = counts / lengths[row_of]
        return x
    flat[cells] = _tfidf(counts.astype(np.int64), ids, document_frequency, documents)
    return x


def _values(mode, counts, cell_rows, cell_columns, lengths, document_frequency, documents):
    """Each distinct cell's value in ``mode`` (float64), from its count of indices."""
    if mode == "binary":
        return np.ones(len(counts))
    if mode == "count":
        return counts.astype(np.float64)
    if mode == "freq":
        return counts / lengths[cell_rows]
    return _tfidf(counts, cell_columns, document_frequency, documents)


def _tfidf(counts, columns, document_frequency, documents):
    """``(1 + ln count) * ln(1 + documents / (1 + document frequency))``, with the legacy scalars."""
    term = _scalar_table(counts.max(initial=0), lambda c: 1 + np.log(c))[counts]
    inverse = _map_unique(document_frequency, lambda df: np.log(1 + documents / (1 + df)))
    return term * inverse[columns]


def _csr(values, cell_rows, cell_columns, rows, width):
    try:
        from scipy.sparse import csr_matrix  # an optional dependency, loaded on first use
    except ImportError:
        raise ImportError("sparse=True needs scipy: pip install 'kvec[sparse]'") from None
    index = np.int32 if max(width, len(values)) < 2**31 else np.int64
    indptr = np.zeros(rows + 1, dtype=index)
    np.cumsum(np.bincount(cell_rows, minlength=rows), out=indptr[1:])
    return csr_matrix((values, cell_columns.astype(index), indptr), shape=(rows, width))


def _scalar_table(largest: int, scalar_function: Callable[[int], float]) -> NDArray[np.float64]:
    """``table[c] == scalar_function(c)`` for ``1 <= c <= largest`` (small positive ints such as counts)."""
    table = np.zeros(int(largest) + 1)
    table[1:] = [scalar_function(c) for c in range(1, int(largest) + 1)]
    return table


def _map_unique(values: NDArray[np.int64], scalar_function: Callable[[int], float]) -> NDArray[np.float64]:
    """Apply ``scalar_function`` to each distinct value once (exactly the legacy scalar arithmetic)."""
    if values.size == 0:
        return np.zeros(0)
    distinct, inverse = np.unique(values, return_inverse=True)
    mapped = np.array([scalar_function(int(v)) for v in distinct], dtype=np.float64)
    return mapped[inverse]
