"""The WordPiece model: BERT's greedy longest-match-first tokenization of one pre-tokenized word.

From the start of the word, take the longest prefix that is in the vocabulary, then continue from where
it ended, looking up ``continuing_subword_prefix + rest`` for the non-initial pieces. If some position
has no match, or the word is longer than ``max_input_chars_per_word`` characters, the whole word becomes
``unk_token``. Given the same vocabulary, the ids equal Hugging Face ``tokenizers``' WordPiece.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Mapping
from typing import Any

from kvec._encoder import id_rows
from kvec._spec import SpecEncoder
from kvec.common.arguments import check_count, check_str
from kvec.contracts import registered
from kvec.files.vocab_reading import read_vocab_txt
from kvec.models import spec_bytes
from kvec.models.base import SubwordModel, checked_vocab

__all__ = ["WordPiece"]


@registered
class WordPiece(SubwordModel):
    """A WordPiece model.

    Args:
        vocab: ``{token: id}``.
        unk_token: the token for words that cannot be matched.
        max_input_chars_per_word: longer words become ``unk_token``.
        continuing_subword_prefix: marks non-initial pieces.

    Example:
        >>> model = WordPiece({"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3, "aff": 4})
        >>> model.tokenize("unaffable"), model.tokenize("unknown")
        (['un', '##aff', '##able'], ['[UNK]'])
    """

    def __init__(
        self,
        vocab: Mapping[str, int] | str | os.PathLike[str] | None = None,
        unk_token: str = "[UNK]",
        max_input_chars_per_word: int = 100,
        continuing_subword_prefix: str = "##",
    ) -> None:
        if isinstance(vocab, (str, os.PathLike)):  # tokenizers' WordPiece("vocab.txt")
            vocab = read_vocab_txt(vocab)
        self.vocab = checked_vocab(vocab)
        self.id_to_token = {i: t for t, i in self.vocab.items()}
        self.unk_token = check_str(unk_token, "unk_token")
        self.max_input_chars_per_word = check_count(max_input_chars_per_word, "max_input_chars_per_word")
        self.continuing_subword_prefix = check_str(continuing_subword_prefix, "continuing_subword_prefix")
        self._encoder: tuple[SpecEncoder, dict[int, int], dict[int, list[str]]] | None = None  # see _native

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if not name.startswith("_"):  # a new setting: the native encoder is made again, with it
            self.__dict__["_encoder"] = None

    @staticmethod
    def read_file(vocab: str) -> dict[str, int]:
        """``{token: id}`` of a ``vocab.txt`` (Hugging Face's helper)."""
        return read_vocab_txt(vocab)

    @classmethod
    def from_file(cls, vocab: str, **kwargs: Any) -> WordPiece:
        """A WordPiece model from a ``vocab.txt``; ``kwargs`` as the constructor's."""
        return cls(cls.read_file(vocab), **kwargs)

    def get_config(self) -> dict[str, Any]:
        return {
            "vocab": self.vocab,
            "unk_token": self.unk_token,
            "max_input_chars_per_word": self.max_input_chars_per_word,
            "continuing_subword_prefix": self.continuing_subword_prefix,
        }

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {
            "type": "WordPiece",
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "max_input_chars_per_word": self.max_input_chars_per_word,
            "vocab": self.vocab,
        }

    def native_model(self, byte_spelling: str = "") -> bytes:
        """Kind 1: the longest-match limit, the unknown id, the continuing prefix and the vocabulary."""
        unk_id = self.vocab.get(self.unk_token, -1)
        header = struct.pack("<Iqq", spec_bytes.WORDPIECE, self.max_input_chars_per_word, unk_id)
        return header + spec_bytes.string(self.continuing_subword_prefix) + spec_bytes.tokens(self.vocab)

    def tokenize_spans(self, word: str) -> list[tuple[int, int, int]]:
        """``[(id, start, end), ...]`` for one word: the longest piece of the vocabulary at each point,
        and the unknown token for the whole word when it is too long or some part matches no piece. The
        native encoder finds the pieces; each spans its token's characters (less the continuing prefix
        after the first), the longest such token where several share an id."""
        ids = self.tokenize_ids(word)
        if len(ids) == 1:  # the whole word: one piece, or the unknown token
            return [(ids[0], 0, len(word))]
        _, lengths, shared = self._native()
        prefix, spans, start, cut = self.continuing_subword_prefix, [], 0, 0
        for token_id in ids:
            width = lengths.get(token_id)
            if width is None:  # several tokens have the id: the longest one the word has here
                tokens = shared[token_id]
                found = [len(t) for t in tokens if t.startswith(prefix[:cut]) and word.startswith(t[cut:], start)]
                width = max(found, default=len(tokens[0]))  # (none: a piece of a lone surrogate's bytes)
            spans.append((token_id, start, start + width - cut))
            start += width - cut
            cut = len(prefix)
        return spans

    def tokenize_ids(self, word: str) -> list[int]:
        """The ids of one word, from the native encoder of the model alone (:meth:`native_model`)."""
        if not isinstance(word, str):
            raise TypeError(f"word must be a str, got {type(word).__name__}")
        if not word:
            return []
        encoder = (self._encoder or self._native())[0]
        try:
            encoded = encoder.encode([word])
        except ValueError:
            try:  # a lone surrogate: its UTF-8 bytes (surrogatepass) match no piece
                encoded = encoder.encode([word.encode("utf-8", "surrogatepass")])
            except ValueError:
                raise ValueError(f"unk_token {self.unk_token!r} is not in the vocabulary") from None
        return id_rows(*encoded)[0]

    def _native(self) -> tuple[SpecEncoder, dict[int, int], dict[int, list[str]]]:
        """The native encoder of the model alone, each id's token length, and the tokens of the ids
        that several tokens have, made on first use."""
        if self._encoder is None:
            by_id: dict[int, list[str]] = {}
            for token, token_id in self.vocab.items():
                by_id.setdefault(token_id, []).append(token)
            lengths = {token_id: len(tokens[0]) for token_id, tokens in by_id.items() if len(tokens) == 1}
            shared = {token_id: tokens for token_id, tokens in by_id.items() if len(tokens) > 1}
            self._encoder = (SpecEncoder(spec_bytes.model_alone(self.native_model())), lengths, shared)
        return self._encoder
