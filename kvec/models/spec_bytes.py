"""The byte primitives of the native description (``csrc/core/spec_encoder.h`` states the format), shared
by :mod:`kvec.native_spec` and the stages that write their own sections (:meth:`kvec.contracts.Model.
native_model`): little-endian u32 counts, int64 ids, strings as u32 code points.

Example:
    >>> u32(1) + string("ab") == b"\\x01\\x00\\x00\\x00" + b"\\x02\\x00\\x00\\x00a\\x00\\x00\\x00b\\x00\\x00\\x00"
    True
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping

from kvec.errors import NotNativeError

__all__ = [
    "BPE_MODEL",
    "NO_NORMALIZER",
    "RUNS",
    "SENTENCEPIECE_NORMALIZER",
    "SPLIT",
    "UNIGRAM",
    "WORDPIECE",
    "WORD_LOOKUP",
    "checked_id",
    "class_runs",
    "description",
    "ids",
    "model_alone",
    "string",
    "tokens",
    "u32",
]

WORDPIECE, WORD_LOOKUP, BPE_MODEL, SPLIT, UNIGRAM = 1, 2, 3, 4, 5  # model kinds
SENTENCEPIECE_NORMALIZER = 4  # the normalizer kind a stage writes itself (kvec.native_spec writes 0 to 3)
NO_NORMALIZER = 0  # the normalizer kind of none
RUNS = 2  # the character class of a run of characters that is one word (csrc/core/class_runs.h)
VERSION = 2  # the description format's


def u32(value: int) -> bytes:
    return struct.pack("<I", value)


def ids(values: Iterable[int]) -> bytes:
    """u32 n, then n int64 ids."""
    values = [int(i) for i in values]
    return u32(len(values)) + struct.pack(f"<{len(values)}q", *values)


def string(text: str) -> bytes:
    """u32 length, then the code points as u32."""
    return u32(len(text)) + struct.pack(f"<{len(text)}I", *map(ord, text))


def checked_id(token: object, token_id: object) -> int:
    """``token_id`` where it is an int64 >= 0; :class:`NotNativeError` naming ``token`` otherwise."""
    if isinstance(token_id, bool) or not isinstance(token_id, int) or not 0 <= token_id < 2**63:
        raise NotNativeError(f"the id of {token!r} ({token_id!r}) is not an int64 >= 0")
    return token_id


def tokens(entries: Mapping[str, int]) -> bytes:
    """``{string: id}`` entries: u32 n, then each string and its id (checked)."""
    parts = (string(token) + struct.pack("<q", checked_id(token, token_id)) for token, token_id in entries.items())
    return u32(len(entries)) + b"".join(parts)


def class_runs(table: bytes, default: int, expression: str = "", prefix: str = "", jieba: bytes = b"") -> bytes:
    """The pre-tokenizer: its class table, the class past it, its expression (with jieba's section
    after it), its prefix."""
    expressions = {"": 0, "gpt2": 1, "cl100k": 2, "whole": 3, "jieba": 4, "merged_next": 5, "merged_previous": 6}
    return u32(len(table)) + table + u32(default) + u32(expressions[expression]) + jieba + string(prefix)


def description(
    normalizer: bytes,
    pre_tokenizer: bytes,
    model: bytes,
    special: dict[str, int] | None = None,
    added: dict[str, int] | None = None,
    affixes: tuple[list[int], list[int]] = ([], []),
    id_map: bytes | None = None,
) -> bytes:
    """The sections, in the order ``csrc/core/spec_encoder.h`` states them."""
    parts = [b"KVEC", u32(VERSION), normalizer, tokens(special or {}), tokens(added or {}), pre_tokenizer, model]
    parts += [ids(affixes[0]), ids(affixes[1]), u32(0) if id_map is None else u32(1) + id_map]
    return b"".join(parts)


def model_alone(model: bytes) -> bytes:
    """The description of a model's section alone: no normalizer, no special or added tokens, each text
    one word."""
    return description(u32(NO_NORMALIZER) + string(""), class_runs(b"", RUNS), model)
