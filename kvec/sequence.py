"""Padding sequences into training tensors, and skip-gram pairs for word2vec.

:func:`pad_sequences` returns exactly what ``keras.utils.pad_sequences`` (Keras 3) returns - values,
dtype, shape and error types - but places all values with a few vectorised NumPy operations instead of
one Python-level conversion per sequence. It works on NumPy 2, where the copy in ``keras_preprocessing``
crashes.

:func:`skipgrams` and :func:`make_sampling_table` are ``keras_preprocessing`` 1.1.2's word2vec helpers,
which Keras 3 dropped. ``skipgrams`` draws from Python's global ``random`` exactly as the legacy code
does, call for call, so a script that seeds ``random`` gets the same couples and labels, and leaves
``random`` in the same state for whatever it draws next.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np
from numpy.typing import NDArray

from kvec._keras import fill_padded
from kvec.common.arguments import check_int, check_number, must_be, wrong_type

__all__ = ["make_sampling_table", "pad_sequences", "skipgrams"]

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


# keras_preprocessing rounds the Euler-Mascheroni constant to three places; the tables equal its only so.
_GAMMA = 0.577
_SEED_TYPES = (int, float, str, bytes, bytearray)


def make_sampling_table(size: int, sampling_factor: float = 1e-5) -> NDArray[np.float64]:
    """A word2vec sampling table: the probability of keeping the word of each frequency rank.

    ``table[i]`` is ``min(1, sqrt(f_i / sampling_factor) / (f_i / sampling_factor))`` for the frequency
    ``f_i`` that Zipf's law gives the ``i``-th most frequent word, as in Mikolov et al.'s subsampling of
    frequent words. Pass it to :func:`skipgrams` as ``sampling_table``. The values equal
    ``keras_preprocessing.sequence.make_sampling_table``'s exactly.

    Args:
        size: the number of ranks (the vocabulary size), at least 1. Rank 0 (padding) gets rank 1's value.
        sampling_factor: the word2vec sampling factor, a number > 0; larger keeps more frequent words.

    Returns:
        A float64 array of shape ``(size,)``.

    Raises:
        TypeError: ``size`` is not an int, or ``sampling_factor`` not a real number.
        ValueError: ``size`` < 1, or ``sampling_factor`` not finite and > 0.

    Example:
        The most frequent words (the lowest ranks) are kept least often:

        >>> make_sampling_table(5, sampling_factor=0.01).round(3).tolist()
        [0.1, 0.1, 0.173, 0.235, 0.289]
    """
    size = check_int(size, "size", minimum=1)
    factor = check_number(sampling_factor, "sampling_factor")
    if not factor > 0:
        raise must_be("sampling_factor", "> 0", sampling_factor)
    rank = np.arange(size, dtype=np.int64)
    rank[0] = 1
    inverse_frequency = rank * (np.log(rank) + _GAMMA) + 0.5 - 1.0 / (12.0 * rank)
    scaled = factor * inverse_frequency
    # The legacy division, not np.sqrt alone: the two differ in the last bit.
    return np.minimum(1.0, scaled / np.sqrt(scaled))


def skipgrams(
    sequence: Sequence[int],
    vocabulary_size: int,
    window_size: int = 4,
    negative_samples: float = 1.0,
    shuffle: bool = True,
    categorical: bool = False,
    sampling_table: Sequence[float] | None = None,
    seed: int | float | str | bytes | None = None,
) -> tuple[list[list[int]], list[Any]]:
    """Skip-gram word pairs of one sequence of word indices, for training word2vec.

    Each word ``w`` of ``sequence`` gives a positive couple ``[w, c]`` (label 1) for every word ``c``
    at most ``window_size`` places away; index 0 is padding and takes part in no couple. Then
    ``int(len(positives) * negative_samples)`` negative couples ``[w, r]`` (label 0) pair the words of
    the positive couples, shuffled, with random indices ``r`` in ``[1, vocabulary_size)``.

    The draws come from Python's global ``random``, in keras_preprocessing 1.1.2's order: one
    ``random.random()`` per non-zero word when ``sampling_table`` is given (the word is kept when its
    table entry is at least the draw), one shuffle of the words of the positive couples when
    ``negative_samples`` > 0 (even if it gives no negative couple) and one ``randint`` per negative couple.
    With ``shuffle``, ``random`` is then seeded with ``seed`` (or with ``random.randint(0, 10**7)``) and
    the couples shuffled, then seeded again and the labels shuffled. So after the same ``random.seed``,
    with the same arguments, the result equals the legacy function's, and so does ``random``'s state.
    ``seed`` only fixes the shuffle: the sampling and the negative words still depend on ``random``'s
    state.

    Args:
        sequence: word indices (ints >= 0), such as one row of ``Tokenizer.texts_to_sequences``; 0 is
            padding. As in the legacy code, an index >= ``vocabulary_size`` is paired as given (a
            published example passes ``len(word_index)``, one short).
        vocabulary_size: the largest word index + 1: negative words are drawn from ``[1, vocabulary_size)``.
        window_size: how many words on each side of a word are its context (an int >= 0).
        negative_samples: negative couples per positive couple (a number >= 0; 0 draws none).
        shuffle: shuffle the couples (and their labels alike) before returning them.
        categorical: labels ``[0, 1]`` (positive) and ``[1, 0]`` (negative) instead of 1 and 0.
        sampling_table: ``None`` or the probability of keeping each word index, usually
            :func:`make_sampling_table` ``(vocabulary_size)``.
        seed: the seed of the shuffle (an int, float, str or bytes, as ``random.seed`` takes).

    Returns:
        ``(couples, labels)``: a list of ``[word, context]`` lists, and a list of their labels.

    Raises:
        TypeError: an argument has the wrong type, or ``sequence[i]`` is not an int.
        ValueError: ``sequence[i]`` is negative or beyond ``sampling_table``, ``window_size`` or
            ``negative_samples`` is negative, or negative words are to be drawn from a
            ``vocabulary_size`` below 2.

    Example:
        >>> couples, labels = skipgrams([1, 2, 3], vocabulary_size=4, window_size=1, negative_samples=0,
        ...                             shuffle=False)
        >>> couples, labels
        ([[1, 2], [2, 1], [2, 3], [3, 2]], [1, 1, 1, 1])
        >>> couples, labels = skipgrams([1, 2, 3], vocabulary_size=4, window_size=1, seed=7)
        >>> len(couples), sorted(labels)
        (8, [0, 0, 0, 0, 1, 1, 1, 1])
    """
    vocabulary_size = check_int(vocabulary_size, "vocabulary_size", minimum=0)
    window_size = check_int(window_size, "window_size", minimum=0)
    ratio = check_number(negative_samples, "negative_samples")
    if not 0 <= ratio < math.inf:
        raise must_be("negative_samples", "a finite number >= 0", negative_samples)
    words = _word_indices(sequence, vocabulary_size, sampling_table)
    seed = _seed_argument(seed)

    couples = []
    for i, word in enumerate(words):
        if not word or (sampling_table is not None and sampling_table[word] < random.random()):
            continue
        for j in range(max(0, i - window_size), min(len(words), i + window_size + 1)):
            if j != i and words[j]:
                couples.append([word, words[j]])
    positives = len(couples)
    negatives = 0
    if ratio > 0:
        negatives = int(positives * negative_samples)  # as given: a NumPy float32 multiplies in float32
        targets = [couple[0] for couple in couples]
        random.shuffle(targets)  # even when no negative is drawn: the legacy code does, and random moves on
        if negatives and vocabulary_size < 2:
            raise ValueError(f"negative words are drawn from [1, vocabulary_size), empty for {vocabulary_size}")
        last = vocabulary_size - 1
        couples.extend([targets[k % positives], random.randint(1, last)] for k in range(negatives))
    labels: list[Any]
    if categorical:
        labels = [[0, 1] for _ in range(positives)] + [[1, 0] for _ in range(negatives)]
    else:
        labels = [1] * positives + [0] * negatives
    if shuffle:
        if seed is None:
            # keras_preprocessing writes 10e6, a float that Python 3.12's randint refuses: the same draw.
            seed = random.randint(0, 10_000_000)
        random.seed(seed)
        random.shuffle(couples)
        random.seed(seed)
        random.shuffle(labels)
    return couples, labels


def _seed_argument(seed):
    if isinstance(seed, np.integer):
        return int(seed)
    if seed is not None and not isinstance(seed, _SEED_TYPES):
        raise wrong_type("seed", "None, an int, a float, a str or bytes", seed)
    return seed


def _word_indices(sequence, vocabulary_size, sampling_table):
    """``sequence`` as a list of its own elements (the couples hold them as given), checked."""
    if isinstance(sequence, (str, bytes)) or not hasattr(sequence, "__len__"):
        raise wrong_type("sequence", "a list of word indices", sequence)
    words = list(sequence)
    table_size = None
    if sampling_table is not None:
        if isinstance(sampling_table, (str, bytes)) or not hasattr(sampling_table, "__len__"):
            kind = type(sampling_table).__name__
            raise TypeError(f"sampling_table must be None or a sequence of probabilities, got {kind}")
        table_size = len(sampling_table)
    for i, word in enumerate(words):
        if isinstance(word, bool) or not isinstance(word, (int, np.integer)):
            raise wrong_type(f"sequence[{i}]", "an int word index", word)
        if word < 0:
            raise ValueError(f"sequence[{i}] is {word}: word indices are >= 0")
        if word and table_size is not None and word >= table_size:
            raise ValueError(f"sequence[{i}] is {word}, beyond sampling_table (of length {table_size})")
    return words
