"""How a tokenizer travels to Spark executors: as its own JSON document, broadcast once, rebuilt once in
each executor's Python worker and kept there for every task that follows.

A :class:`kvec.pipeline.Pipeline` (or a bare model, which becomes one) travels as ``to_str()``; a
:class:`kvec.Tokenizer` as ``to_json()``, which holds its kvec analyzer (a pipeline or a
:class:`kvec.chinese.Jieba`). A Tokenizer whose analyzer is another callable has no JSON form for it,
so it travels pickled by PySpark's cloudpickle instead. A pipeline's padding setting stays behind:
padding to the longest text of a batch means nothing for a table cut into partitions (pad with
``maxlen`` instead); its truncation travels and applies. A Jieba's user words travel with it; a
dictionary file it was given (``Jieba(dictionary=...)``) must be at the same path on the executors.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from kvec.chinese import Jieba
from kvec.common.ragged import rows_to_ragged
from kvec.contracts import Model, PreTokenizer
from kvec.data.token_ids import as_id_tokenizer
from kvec.pipeline import Pipeline
from kvec.text import Tokenizer, tokenizer_from_json

__all__ = ["PortableTokenizer", "ShippedTokenizer", "portable", "rebuild", "token_ids"]

_KEPT_TOKENIZERS = 4  # tokenizers a worker keeps rebuilt (jobs with other tokenizers rebuild theirs)
_rebuilt: OrderedDict[str, Tokenizer | Pipeline] = OrderedDict()
_rebuilt_lock = threading.Lock()


@dataclass(frozen=True)
class PortableTokenizer:
    """A tokenizer as it travels: ``kind`` (``"pipeline"``, ``"keras"`` or ``"pickled"``), its
    ``payload`` (JSON text, or pickled bytes) and ``key``, a digest of both that names it in a worker's
    cache."""

    kind: str
    payload: str | bytes
    key: str


def portable(tokenizer: Any) -> PortableTokenizer:
    """``tokenizer`` (a :class:`kvec.pipeline.Pipeline`, a bare kvec model, or a fitted
    :class:`kvec.Tokenizer`) in the form that travels; ``TypeError`` / ``ValueError`` for what cannot
    give token ids.

    Example:
        >>> tok = Tokenizer()
        >>> tok.fit_on_texts(["a b b"])
        >>> rebuild(portable(tok)).texts_to_sequences(["b a"])
        [[1, 2]]
    """
    if isinstance(tokenizer, Model):
        tokenizer = as_id_tokenizer(tokenizer)  # a pipeline over whitespace-separated words
    if isinstance(tokenizer, Pipeline):
        if tokenizer.model is None:
            raise ValueError("tokenizer: this pipeline has no model yet: train it before encoding")
        if tokenizer.padding is not None:
            tokenizer = Pipeline.from_str(tokenizer.to_str())
            tokenizer.no_padding()
        return _made("pipeline", tokenizer.to_str())
    if isinstance(tokenizer, Tokenizer):
        if tokenizer.subword is not None and tokenizer.analyzer is None:
            raise ValueError("tokenizer: this Tokenizer(subword=...) has no model yet: call fit_on_texts first")
        if not tokenizer.word_index:
            raise ValueError("tokenizer: this Tokenizer has an empty word_index: call fit_on_texts first")
        if tokenizer.analyzer is None or isinstance(tokenizer.analyzer, (Pipeline, Jieba)):
            return _made("keras", tokenizer.to_json(ensure_ascii=False))
        from pyspark import cloudpickle

        return _made("pickled", cloudpickle.dumps(tokenizer))
    if isinstance(tokenizer, PreTokenizer):
        raise TypeError(
            f"tokenizer: a {type(tokenizer).__name__} splits words but gives no ids: fit a "
            f"kvec.Tokenizer(analyzer={type(tokenizer).__name__}(...)) on the texts and pass that"
        )
    raise TypeError(
        f"tokenizer must be a kvec.Pipeline, a kvec model or a fitted kvec.Tokenizer, got {type(tokenizer).__name__}"
    )


def _made(kind, payload):
    data = payload.encode("utf-8") if isinstance(payload, str) else payload
    return PortableTokenizer(kind, payload, hashlib.sha256(kind.encode("ascii") + b"\0" + data).hexdigest())


def rebuild(travelled: PortableTokenizer) -> Tokenizer | Pipeline:
    """The tokenizer a :class:`PortableTokenizer` carries, made anew."""
    if travelled.kind == "pipeline":
        return Pipeline.from_str(cast(str, travelled.payload))
    if travelled.kind == "keras":
        return tokenizer_from_json(cast(str, travelled.payload))
    from pyspark import cloudpickle

    return cloudpickle.loads(cast(bytes, travelled.payload))


class ShippedTokenizer:
    """A tokenizer broadcast to a Spark cluster: what a task's closure captures (the broadcast handle,
    not the tokenizer). :meth:`tokenizer` rebuilds it once per worker process and keeps it (the last
    few, by their digest), so a worker's later tasks find it ready.

    Example:
        >>> shipped = ShippedTokenizer(portable(tok), session.sparkContext)  # doctest: +SKIP
        >>> rdd.mapPartitions(lambda texts: [shipped.tokenizer().encode_batch(list(texts))])  # doctest: +SKIP
    """

    def __init__(self, travelled: PortableTokenizer, spark_context: Any) -> None:
        self.kind, self.key = travelled.kind, travelled.key
        self._payload = spark_context.broadcast(travelled.payload)

    def tokenizer(self) -> Tokenizer | Pipeline:
        with _rebuilt_lock:
            tokenizer = _rebuilt.get(self.key)
            if tokenizer is not None:
                _rebuilt.move_to_end(self.key)
                return tokenizer
        # only a worker that has not rebuilt it yet reads the broadcast
        tokenizer = rebuild(PortableTokenizer(self.kind, self._payload.value, self.key))
        with _rebuilt_lock:
            _rebuilt[self.key] = tokenizer
            while len(_rebuilt) > _KEPT_TOKENIZERS:
                _rebuilt.popitem(last=False)
        return tokenizer


def token_ids(
    tokenizer: Tokenizer | Pipeline, texts: list[str], n_threads: int = 1
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(values, row_lengths)`` of the ids of ``texts``, by the tokenizer's batch encoder: a pipeline's
    ``encode_ragged`` (its ``encode_batch`` where it truncates), a Tokenizer's ``texts_to_sequences``."""
    if isinstance(tokenizer, Pipeline):
        if tokenizer.truncation is None:
            return tokenizer.encode_ragged(texts, n_threads=n_threads)
        return rows_to_ragged([encoding.ids for encoding in tokenizer.encode_batch(texts, n_threads=n_threads)])
    return rows_to_ragged(tokenizer.texts_to_sequences(texts))
