"""Token ids of many texts from any kvec tokenizer, as one flat array and the length of each row.

Every consumer of ids in bulk (the Keras layer, the training batches) takes them in this shape: it is
what ``tf.RaggedTensor.from_row_lengths`` and NumPy's padding want, and it costs one allocation per
batch instead of one list per text.
"""

from itertools import chain

import numpy as np

__all__ = ["as_id_tokenizer", "ragged_ids", "rows_to_ragged"]


def rows_to_ragged(rows):
    """``(values, row_lengths)`` int64 arrays of a list of id lists."""
    row_lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    values = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=int(row_lengths.sum()))
    return values, row_lengths


def as_id_tokenizer(tokenizer):
    """``tokenizer`` as something :func:`ragged_ids` reads: a :class:`kvec.Tokenizer` or a
    :class:`kvec.pipeline.Tokenizer` (a bare model becomes a pipeline over whitespace-separated words).
    Raises ``TypeError`` for anything else."""
    from kvec.models.base import SubwordModel
    from kvec.pipeline import Tokenizer as Pipeline
    from kvec.pretokenizers import WhitespaceSplit
    from kvec.text import Tokenizer

    if isinstance(tokenizer, SubwordModel):
        return Pipeline(tokenizer, pre_tokenizer=WhitespaceSplit())
    if isinstance(tokenizer, (Tokenizer, Pipeline)):
        return tokenizer
    raise TypeError(
        f"tokenizer must be a kvec.Tokenizer, a kvec.pipeline.Tokenizer or a kvec model, got {type(tokenizer).__name__}"
    )


def ragged_ids(tokenizer, texts):
    """``(values, row_lengths)``, int64 arrays: the ids of text ``i`` are the next ``row_lengths[i]``
    values. A :class:`kvec.Tokenizer` gives ``texts_to_sequences``, a pipeline ``encode`` ids.

    Example:
        >>> from kvec import Tokenizer
        >>> tok = Tokenizer()
        >>> tok.fit_on_texts(["a b b", "b c"])
        >>> values, row_lengths = ragged_ids(tok, ["b a", "c c c"])
        >>> values.tolist(), row_lengths.tolist()
        ([1, 2, 3, 3, 3], [2, 3])
    """
    from kvec.pipeline import Tokenizer as Pipeline

    tokenizer = as_id_tokenizer(tokenizer)
    if isinstance(tokenizer, Pipeline):
        return tokenizer.encode_ragged(texts)
    return rows_to_ragged(tokenizer.texts_to_sequences(texts))
