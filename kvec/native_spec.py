"""A pipeline described in bytes for kvec's native encoder outside Python (``csrc/core/spec_encoder.h``
states the format): what the TensorFlow op library's kernels encode with, so that a SavedModel holds
the whole tokenizer and serves without Python.

The description is made from the same descriptions the Python encoder runs on: the normalizer's
character rule (:meth:`kvec.contracts.Normalizer.character_rule`), the pre-tokenizer's word table
(:meth:`kvec.contracts.PreTokenizer.word_table`), the model's vocabulary and the post-processor's
affixes (its ids around each text), so the ids are the pipeline's own.

Described today: no normalizer or one that works character by character (``Lowercase``, ``NFKC``...
where no character depends on its neighbours), special and added tokens, a pre-tokenizer that cuts
words by character class (``BertPreTokenizer``, ``Whitespace``, ``WhitespaceSplit``, ``KerasFilters``,
``Digits``, ``Punctuation``, their ``Sequence``s, or none), a WordPiece model, and a post-processor
that only puts ids around a text. :func:`describe` says what else stops it.

Example:
    >>> from kvec.models import WordPiece
    >>> from kvec.pipeline import Pipeline
    >>> from kvec.pretokenizers import Whitespace
    >>> spec = describe(Pipeline(WordPiece({"[UNK]": 0, "a": 1}), pre_tokenizer=Whitespace()))
    >>> spec[:4]
    b'KVEC'
"""

from __future__ import annotations

import json
import struct
from functools import lru_cache

from kvec import serialization
from kvec.contracts import Normalizer
from kvec.errors import KvecError
from kvec.models.wordpiece import WordPiece
from kvec.pipeline import Pipeline

__all__ = ["NotNativeError", "describe"]

VERSION = 1
PAGES = 0x1100  # pages of 256 code points
SAME = 0xFFFFFFFF  # a character map entry: the code point stays itself
WORDPIECE = 1


class NotNativeError(KvecError):
    """The pipeline has a stage the native encoder outside Python does not run; the message names it."""


def describe(pipeline: Pipeline) -> bytes:
    """The description of ``pipeline`` for the native encoder; :class:`NotNativeError` naming the stage
    it cannot describe."""
    if not isinstance(pipeline, Pipeline):
        raise NotNativeError(f"only a kvec.pipeline.Pipeline is described, got {type(pipeline).__name__}")
    model = pipeline.model
    if not isinstance(model, WordPiece):
        raise NotNativeError(f"the model is {type(model).__name__}; described: WordPiece")
    affixes = pipeline._affixes()
    if affixes is None:
        name = type(pipeline.post_processor).__name__
        raise NotNativeError(f"the post-processor {name} does more than put ids around a text")
    table = None if pipeline.pre_tokenizer is None else pipeline.pre_tokenizer.word_table()
    if pipeline.pre_tokenizer is not None and (
        table is None or table.expression or table.merge or table.replace or table.prefix or table.spelled
    ):
        raise NotNativeError(
            f"the pre-tokenizer {type(pipeline.pre_tokenizer).__name__} does not cut words by character class alone"
        )
    classes = b"" if table is None else bytes(table.classes).rstrip(b"\x02")  # past the table: class 2
    added = pipeline.added_vocabulary
    parts = [b"KVEC", _u32(VERSION), _normalizer(pipeline.normalizer)]
    parts += [_tokens(added.special), _tokens(added.normalized_ids)]
    parts += [_u32(len(classes)), bytes(classes), _wordpiece(model), _ids(affixes[0]), _ids(affixes[1])]
    return b"".join(parts)


def _u32(value):
    return struct.pack("<I", value)


def _ids(ids):
    ids = [int(i) for i in ids]
    return _u32(len(ids)) + struct.pack(f"<{len(ids)}q", *ids)


def _string(text):
    return _u32(len(text)) + struct.pack(f"<{len(text)}I", *map(ord, text))


def _tokens(ids):
    return _u32(len(ids)) + b"".join(_string(token) + struct.pack("<q", token_id) for token, token_id in ids.items())


def _wordpiece(model):
    for token, token_id in model.vocab.items():
        if not 0 <= token_id < 2**63:
            raise NotNativeError(f"the id of {token!r} ({token_id}) is not an int64 >= 0")
    header = struct.pack("<Iqq", WORDPIECE, model.max_input_chars_per_word, model.vocab.get(model.unk_token, -1))
    pieces = b"".join(_string(token) + struct.pack("<q", token_id) for token, token_id in model.vocab.items())
    return header + _string(model.continuing_subword_prefix) + _u32(len(model.vocab)) + pieces


def _normalizer(normalizer: Normalizer | None) -> bytes:
    if normalizer is None:
        return _u32(0)
    document = serialization.component_document("normalizer", normalizer)
    return _u32(1) + _character_map(json.dumps(document, sort_keys=True))


@lru_cache(maxsize=8)
def _character_map(config: str) -> bytes:
    """The character map of the normalizer serialized as ``config``: what its character rule makes of
    every code point (pages of 256 that are equal are stored once)."""
    normalizer = serialization.component("normalizer", json.loads(config), "normalizer")
    rule = normalizer.character_rule()
    name = type(normalizer).__name__
    if rule is None:
        raise NotNativeError(f"the normalizer {name} does not work character by character")
    page_index: dict[bytes, int] = {}
    page_of: list[int] = []
    pool: list[int] = []  # each replacement: its length, then its code points
    replacements: dict[str, int] = {}  # a replacement -> its place in the pool
    for page in range(PAGES):
        entries = []
        for c in range(page * 256, page * 256 + 256):
            form = rule(chr(c))
            if form is None:
                raise NotNativeError(f"the normalizer {name} changes U+{c:04X} by its neighbours")
            if form == chr(c):
                entries.append(SAME)
                continue
            if form not in replacements:
                replacements[form] = len(pool)
                pool += [len(form), *map(ord, form)]
            entries.append(replacements[form])
        packed = struct.pack("<256I", *entries)
        page_of.append(page_index.setdefault(packed, len(page_index)))
    return b"".join(
        [_u32(len(page_index)), struct.pack(f"<{PAGES}I", *page_of), *page_index, _u32(len(pool))]
        + [struct.pack(f"<{len(pool)}I", *pool)]
    )
