"""What the trainers share about their options: special tokens as :class:`kvec.AddedToken`, initial
alphabets, and the pickled state (the JSON bytes Hugging Face ``tokenizers`` gives for the same trainer).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from kvec.added_vocabulary import AddedToken
from kvec.common.arguments import must_be

__all__ = [
    "alphabet_list",
    "from_state",
    "initial_alphabet_option",
    "special_token_list",
    "special_tokens_option",
    "to_state",
    "token_state",
]


def special_token_list(tokens: Iterable[str | AddedToken] | None) -> list[AddedToken]:
    """The special tokens of a trainer, as Hugging Face keeps them: a str becomes
    ``AddedToken(token, special=True)``; an AddedToken is made special (the caller's token too, as in
    Hugging Face) and copied."""
    if isinstance(tokens, (str, AddedToken)):
        raise TypeError("special_tokens must be a list of str or AddedToken, not a single token")
    result = []
    for i, token in enumerate(() if tokens is None else tokens):
        token = AddedToken.of(token, True, "special_tokens", i)
        if not token.content:
            raise TypeError(f"special_tokens[{i}] must be a non-empty str or AddedToken, got {token!r}")
        result.append(token)
    return result


def copies(tokens: list[AddedToken]) -> list[AddedToken]:
    """Copies of the tokens (Hugging Face's getters give new objects: changing one leaves the trainer as it is)."""
    return [AddedToken.of(token, False, "special_tokens", i) for i, token in enumerate(tokens)]


def special_tokens_option(doc: str) -> Any:
    """The ``special_tokens`` property of a trainer (stored as ``_special_tokens``): set with
    :func:`special_token_list`, read as :func:`copies`."""

    def get(trainer: Any) -> list[AddedToken]:
        return copies(trainer._special_tokens)

    def set_(trainer: Any, tokens: Iterable[str | AddedToken]) -> None:
        trainer._special_tokens = special_token_list(tokens)

    return property(get, set_, doc=doc)


def initial_alphabet_option(doc: str) -> Any:
    """The ``initial_alphabet`` property of a trainer (stored as ``_initial_alphabet``), set with
    :func:`alphabet_list`."""

    def get(trainer: Any) -> list[str]:
        return list(trainer._initial_alphabet)

    def set_(trainer: Any, chars: Iterable[str]) -> None:
        trainer._initial_alphabet = alphabet_list(chars)

    return property(get, set_, doc=doc)


def alphabet_list(chars: Iterable[str] | None) -> list[str]:
    """An initial alphabet: single characters, each once, in the given order."""
    if isinstance(chars, str):
        chars = list(chars)
    result = []
    for i, c in enumerate(() if chars is None else chars):
        if not isinstance(c, str) or len(c) != 1:
            raise must_be(f"initial_alphabet[{i}]", "a single character", c)
        if c not in result:
            result.append(c)
    return result


def token_state(token: AddedToken) -> dict[str, Any]:
    """An added token as Hugging Face serializes it."""
    return {
        "content": token.content,
        "single_word": token.single_word,
        "lstrip": token.lstrip,
        "rstrip": token.rstrip,
        "normalized": token.normalized,
        "special": token.special,
    }


def to_state(kind: str, fields: dict[str, Any]) -> bytes:
    """``{kind: fields}`` as compact UTF-8 JSON, the bytes Hugging Face's ``__getstate__`` gives."""
    return json.dumps({kind: fields}, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def from_state(kind: str, state: bytes | str) -> dict[str, Any]:
    """The fields of a state written by :func:`to_state` (or by Hugging Face) for a ``kind`` trainer."""
    document = json.loads(state)
    if not isinstance(document, dict) or set(document) != {kind}:
        raise ValueError(f"not the state of a {kind}: {state[:80]!r}")
    fields = dict(document[kind])
    fields.pop("words", None)  # the words Hugging Face's trainer was fed: kvec trainers keep none
    fields.pop("progress_format", None)
    if "special_tokens" in fields:
        fields["special_tokens"] = [AddedToken(**token) for token in fields["special_tokens"]]
    return fields
