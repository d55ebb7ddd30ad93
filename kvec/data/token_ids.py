"""Token ids of many texts from any kvec tokenizer, as one flat array and the length of each row
(see :mod:`kvec.common.ragged`).

This module sits above both tokenizers: it takes a :class:`kvec.Tokenizer` (the Keras one), a
:class:`kvec.pipeline.Pipeline`, or a bare model, and gives their ids in the one shape the Keras layer
and the training batches read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from kvec.common.ragged import rows_to_ragged
from kvec.contracts import Model
from kvec.pipeline import Pipeline
from kvec.pre_tokenizers import WhitespaceSplit
from kvec.text import Tokenizer

__all__ = ["as_id_tokenizer", "ragged_ids", "rows_to_ragged"]


def as_id_tokenizer(tokenizer: Any) -> Tokenizer | Pipeline:
    """``tokenizer`` as something :func:`ragged_ids` reads: a :class:`kvec.Tokenizer` or a
    :class:`kvec.pipeline.Pipeline` (a bare model becomes a pipeline over whitespace-separated words).
    Raises ``TypeError`` for anything else."""
    if isinstance(tokenizer, Model):
        return Pipeline(tokenizer, pre_tokenizer=WhitespaceSplit())
    if isinstance(tokenizer, (Tokenizer, Pipeline)):
        return tokenizer
    raise TypeError(
        f"tokenizer must be a kvec.Tokenizer, a kvec.Pipeline or a kvec model, got {type(tokenizer).__name__}"
    )


def ragged_ids(tokenizer: Any, texts: Sequence[str]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
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
    tokenizer = as_id_tokenizer(tokenizer)
    if isinstance(tokenizer, Pipeline):
        return tokenizer.encode_ragged(texts)
    return rows_to_ragged(tokenizer.texts_to_sequences(texts))
