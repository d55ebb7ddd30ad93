"""The WordLevel model: each pre-tokenized word is one token of the vocabulary, or the unknown token.

Given the same vocabulary, the ids equal Hugging Face ``tokenizers``' WordLevel.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from kvec.common.arguments import check_str
from kvec.contracts import registered
from kvec.files.vocab_reading import read_vocab_json
from kvec.models.base import SubwordModel, checked_vocab

__all__ = ["WordLevel"]


@registered
class WordLevel(SubwordModel):
    """A word-level model: a word is its own token when the vocabulary has it, else ``unk_token``.

    Args:
        vocab: ``{token: id}``.
        unk_token: the token of words missing from the vocabulary; a word is an error where the
            vocabulary has neither (as in Hugging Face).

    Example:
        >>> model = WordLevel({"<unk>": 0, "hello": 1, "world": 2})
        >>> model.tokenize("hello"), model.tokenize("hi")
        (['hello'], ['<unk>'])
    """

    def __init__(
        self, vocab: Mapping[str, int] | str | os.PathLike[str] | None = None, unk_token: str = "<unk>"
    ) -> None:
        if isinstance(vocab, (str, os.PathLike)):  # tokenizers' WordLevel("vocab.json")
            vocab = read_vocab_json(vocab)
        self.vocab = checked_vocab(vocab)
        check_str(unk_token, "unk_token")
        self.id_to_token = {i: t for t, i in self.vocab.items()}
        self.unk_token = unk_token

    @staticmethod
    def read_file(vocab: str) -> dict[str, int]:
        """``{token: id}`` of a ``vocab.json`` (Hugging Face's helper)."""
        return read_vocab_json(vocab)

    @classmethod
    def from_file(cls, vocab: str, unk_token: str = "<unk>") -> WordLevel:
        """A WordLevel model from a ``vocab.json``."""
        return cls(cls.read_file(vocab), unk_token=unk_token)

    def get_config(self) -> dict[str, Any]:
        return {"vocab": self.vocab, "unk_token": self.unk_token}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": "WordLevel", **self.get_config()}

    def tokenize_spans(self, word: str) -> list[tuple[int, int, int]]:
        """``[(id, 0, len(word))]``: the word's id, or the unknown token's."""
        return [(self._id(word), 0, len(word))]

    def tokenize_ids(self, word: str) -> list[int]:
        return [self._id(word)]

    def _id(self, word):
        found = self.vocab.get(word)
        if found is None:
            found = self.vocab.get(self.unk_token)
            if found is None:
                raise ValueError(f"WordLevel: {word!r} and the unk_token {self.unk_token!r} are not in the vocabulary")
        return found
