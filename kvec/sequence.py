"""Padding sequences into training tensors.

:func:`pad_sequences` returns exactly what ``keras.utils.pad_sequences`` (Keras 3) returns - values,
dtype, shape and error types - but places all values with a few vectorised NumPy operations instead of
one Python-level conversion per sequence. It works on NumPy 2, where the copy in ``keras_preprocessing``
crashes.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np
from numpy.typing import NDArray

from kvec._native import fill_padded

__all__ = ["pad_sequences"]

_PADDING = ("pre", "post")
_NATIVE_DTYPES = tuple(np.dtype(t) for t in ("int32", "int64", "float32", "float64"))


def pad_sequences(
    sequences: Sequence[Sequence[Any]],
    maxlen: int | None = None,
    dtype: Any = "int32",
    padding: str = "pre",
    truncating: str = "pre",
    value: Any = 0.0,
) -> NDArray[Any]:
    """Pad (and truncate) sequences to a common length.

    Args:
        sequences: a list of sequences (lists, tuples or arrays). Every element must have a length; the
            samples may themselves be arrays (the output then has shape ``(n, maxlen) + sample_shape``).
        maxlen: the output length; defaults to the longest sequence.
        dtype: the output dtype. Floats are truncated silently into integer dtypes. Use ``object`` or a
            string dtype for string values.
        padding: ``"pre"`` or ``"post"``: pad before or after each sequence.
        truncating: ``"pre"`` or ``"post"``: drop values from the start or the end of longer sequences.
        value: the padding value.

    Returns:
        A NumPy array of shape ``(len(sequences), maxlen) + sample_shape``.

    Raises:
        ValueError: ``sequences`` or one of its elements is not iterable, ``padding`` / ``truncating`` is
            not ``"pre"`` or ``"post"``, a string ``value`` is given with a numeric dtype, or samples
            have inconsistent shapes.

    Example:
        >>> pad_sequences([[1], [2, 3], [4, 5, 6]])
        array([[0, 0, 1],
               [0, 2, 3],
               [4, 5, 6]], dtype=int32)
        >>> pad_sequences([[1], [2, 3], [4, 5, 6]], maxlen=2, padding="post", truncating="post")
        array([[1, 0],
               [2, 3],
               [4, 5]], dtype=int32)
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    num_samples = len(sequences)
    # Lists of plain numbers fill natively in one pass: at once when maxlen is known (no lengths
    # needed), else after the general checks below, but never tried twice.
    native = type(sequences) is list and padding in _PADDING and truncating in _PADDING
    if native and maxlen is not None:
        x = _native_padded(sequences, maxlen, dtype, padding, truncating, value)
        if x is not None:
            return x
        native = False
    lengths = _lengths(sequences)
    sample_shape = _sample_shape(sequences)

    if maxlen is None:
        maxlen = np.max(lengths)  # ValueError on an empty list, as in Keras

    is_dtype_str = np.issubdtype(dtype, np.str_) or np.issubdtype(dtype, np.bytes_)
    if isinstance(value, str) and dtype is not object and not is_dtype_str:
        raise ValueError(
            f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\n"
            "You should set `dtype=object` for variable length strings."
        )

    x = np.full((num_samples, maxlen) + sample_shape, value, dtype=dtype)
    nonempty = lengths > 0
    if not nonempty.any():
        return x
    # Keras checks these per non-empty sequence, truncating first; an all-empty input never reaches them.
    if truncating not in _PADDING:
        raise ValueError(f'Truncating type "{truncating}" not understood')
    fast = padding in _PADDING and sample_shape == () and dtype is not None and x.dtype.kind in "biufc"
    if not (fast and _place_flat(x, sequences, lengths, maxlen, dtype, padding, truncating, value, native)):
        _place_each(x, sequences, maxlen, dtype, padding, truncating, sample_shape)
    return x


def _native_padded(sequences, maxlen, dtype, padding, truncating, value):
    """The whole job in one native pass when every sequence is a list of plain ints or floats.

    Returns None when anything needs the general path (which then raises what Keras raises).
    """
    if isinstance(value, str) or dtype is None or maxlen == 0:
        return None
    try:
        target = np.dtype(dtype)
    except TypeError:
        return None
    if target not in _NATIVE_DTYPES:
        return None
    try:
        if _sample_shape(sequences) != ():
            return None
        x = np.full((len(sequences), maxlen), value, dtype=dtype)
    except Exception:
        return None  # the general path raises it, after the checks Keras makes first
    return x if fill_padded(x, sequences, padding == "pre", truncating == "pre") else None


def _lengths(sequences):
    try:
        return np.fromiter(map(len, sequences), dtype=np.int64, count=len(sequences))
    except TypeError as e:
        for s in sequences:
            try:
                len(s)
            except TypeError:
                raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: {str(s)}") from e
        raise


def _sample_shape(sequences):
    """The shape of one timestep, from the first non-empty sequence, converted whole (as Keras does)."""
    for s in sequences:
        try:
            if len(s):
                return np.asarray(s).shape[1:]
        except TypeError as e:
            raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: {str(s)}") from e
    return ()


def _place_flat(x, sequences, lengths, maxlen, dtype, padding, truncating, value, native):
    """Convert every kept value in one pass and scatter them with a boolean mask.

    Returns False (leaving ``x`` untouched) when the values are not plain scalars, so the per-sequence
    path can handle them or raise the same error Keras raises.
    """
    if maxlen == 0 and truncating == "pre":
        return False  # s[-0:] keeps the whole sequence in Keras, which then fails to broadcast
    if native and x.dtype in _NATIVE_DTYPES:
        if fill_padded(x, sequences, padding == "pre", truncating == "pre"):
            return True
        np.copyto(x, value, casting="unsafe")  # undo the partial fill, as np.full filled it
    kept_lengths = np.minimum(lengths, maxlen)
    try:
        if isinstance(sequences, np.ndarray) and sequences.ndim == 2:
            block = sequences[:, -maxlen:] if truncating == "pre" else sequences[:, :maxlen]
            values = np.asarray(block, dtype=dtype).reshape(-1)
        else:
            kept = _kept(sequences, lengths, maxlen, truncating)
            values = np.fromiter(chain.from_iterable(kept), dtype=x.dtype, count=int(kept_lengths.sum()))
    except (TypeError, ValueError, OverflowError):
        return False
    columns = np.arange(maxlen)
    if padding == "post":
        mask = columns < kept_lengths[:, None]
    else:
        mask = columns >= (maxlen - kept_lengths)[:, None]
    x[mask] = values
    return True


def _kept(sequences, lengths, maxlen, truncating):
    """Each sequence cut to at most ``maxlen`` values; only the long ones are sliced."""
    long = np.flatnonzero(lengths > maxlen)
    if long.size == 0:
        return sequences
    kept = list(sequences)
    for i in long.tolist():
        s = kept[i]
        kept[i] = s[-maxlen:] if truncating == "pre" else s[:maxlen]
    return kept


def _place_each(x, sequences, maxlen, dtype, padding, truncating, sample_shape):
    """The reference algorithm, one vectorised copy per sequence."""
    for idx, s in enumerate(sequences):
        if not len(s):
            continue
        trunc = s[-maxlen:] if truncating == "pre" else s[:maxlen]
        trunc = np.asarray(trunc, dtype=dtype)
        if trunc.shape[1:] != sample_shape:
            raise ValueError(
                f"Shape of sample {trunc.shape[1:]} of sequence at position {idx} "
                f"is different from expected shape {sample_shape}"
            )
        if padding == "post":
            x[idx, : len(trunc)] = trunc
        elif padding == "pre":
            x[idx, -len(trunc) :] = trunc
        else:
            raise ValueError(f'Padding type "{padding}" not understood')
