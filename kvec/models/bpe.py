"""The BPE model: turn one pre-tokenized word into tokens with a ranked merge list.

A word starts as its characters (with ``continuing_subword_prefix`` on all but the first and
``end_of_word_suffix`` on the last). Then the adjacent pair with the lowest merge rank is merged, the
leftmost on ties, until no pair of the word is in the merge list. With ``dropout`` each candidate merge
is skipped with that probability (BPE-dropout, Provilkov et al., 2020), from a seedable generator.

Characters missing from the vocabulary become ``<0xNN>`` byte tokens when ``byte_fallback`` is set and
all those tokens exist, else ``unk_token`` (consecutive ones fused into one with ``fuse_unk``), else
they are dropped. Given the same vocabulary and merges, the ids equal Hugging Face ``tokenizers``' BPE.
"""

from __future__ import annotations

import os
import struct
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from itertools import islice
from typing import Any, cast

from kvec._subword import BpeRanks
from kvec.common.arguments import check_bool, check_count, check_number, check_seed, check_str, wrong_type
from kvec.contracts import registered
from kvec.errors import NotNativeError
from kvec.files.vocab_reading import Path, read_merges_txt, read_vocab_json
from kvec.models import spec_bytes
from kvec.models.base import SubwordModel, checked_vocab

__all__ = ["BPE"]


@registered
class BPE(SubwordModel):
    """A byte-pair-encoding model.

    Args:
        vocab: ``{token: id}``.
        merges: the merge list, highest priority first, as ``(left, right)`` token pairs.
        unk_token: the token for unknown characters, or None to drop them.
        continuing_subword_prefix, end_of_word_suffix: as used in training.
        dropout: probability of skipping each merge (None or 0: deterministic, cached).
        byte_fallback: use ``<0x00>``..``<0xFF>`` tokens for unknown characters.
        fuse_unk: fuse consecutive unknown characters into one ``unk_token``.
        ignore_merges: a word that is itself in the vocabulary is emitted whole.
        cache_capacity: words remembered (deterministic mode only).
        seed: seed of the dropout generator.

    Example:
        >>> model = BPE({"h": 0, "u": 1, "g": 2, "ug": 3, "hug": 4}, [("u", "g"), ("h", "ug")])
        >>> model.tokenize("hugug")
        ['hug', 'ug']
    """

    def __init__(
        self,
        vocab: Mapping[str, int] | Path | None = None,
        merges: Iterable[tuple[str, ...]] | Path | None = None,
        unk_token: str | None = None,
        continuing_subword_prefix: str | None = None,
        end_of_word_suffix: str | None = None,
        dropout: float | None = None,
        byte_fallback: bool = False,
        fuse_unk: bool = False,
        ignore_merges: bool = False,
        cache_capacity: int = 10000,
        seed: int | None = None,
    ) -> None:
        if isinstance(vocab, (str, os.PathLike)):  # tokenizers' BPE("vocab.json", "merges.txt")
            if not isinstance(merges, (str, os.PathLike)):
                wrong = type(merges).__name__
                raise TypeError(f"with vocab a vocab.json path, merges must be the path of its merges.txt, got {wrong}")
            vocab, merges = self.read_file(vocab, merges)
        if dropout is not None:
            dropout = check_number(dropout, "dropout", finite=True)
            if not 0.0 <= dropout <= 1.0:
                raise ValueError(f"dropout must be between 0 and 1, got {dropout}")
        self.vocab = checked_vocab(vocab)
        self.id_to_token = {i: t for t, i in self.vocab.items()}
        self.merges = _checked_merges(merges)
        self.unk_token = check_str(unk_token, "unk_token", optional=True)
        self.continuing_subword_prefix = check_str(continuing_subword_prefix, "continuing_subword_prefix", True)
        self.end_of_word_suffix = check_str(end_of_word_suffix, "end_of_word_suffix", optional=True)
        self.dropout = dropout
        self.byte_fallback = check_bool(byte_fallback, "byte_fallback")
        self.fuse_unk = check_bool(fuse_unk, "fuse_unk")
        self.ignore_merges = check_bool(ignore_merges, "ignore_merges")
        self.cache_capacity = check_count(cache_capacity, "cache_capacity")
        generator = check_seed(seed)
        self._cache: OrderedDict[str, list[tuple[int, int, int]]] = OrderedDict()
        self._ranks = {}
        prefix_length = len(continuing_subword_prefix or "")
        for rank, (a, b) in enumerate(self.merges):
            for side, token in (("left", a), ("right", b)):
                if token not in self.vocab:
                    raise ValueError(f"merges[{rank}]: {side} token {token!r} is not in the vocabulary")
            if prefix_length and b.startswith(continuing_subword_prefix):
                b = b[prefix_length:]
            merged = a + b
            if merged not in self.vocab:
                raise ValueError(f"merges[{rank}]: the merged token {merged!r} is not in the vocabulary")
            self._ranks[(self.vocab[a], self.vocab[self.merges[rank][1]])] = (rank, self.vocab[merged])
        # the native table mirrors _ranks: a pair listed twice keeps its last rank, as in the library
        self.merge_table = [
            (a, b, new) for (a, b), (_, new) in sorted(self._ranks.items(), key=lambda item: item[1][0])
        ]
        self._native = BpeRanks(self.merge_table)
        self._native.seed(generator.getstate()[1])  # dropout draws as Python's random.Random(seed)

    @staticmethod
    def read_file(vocab: Path, merges: Path) -> tuple[dict[str, int], list[tuple[str, str]]]:
        """``(vocab, merges)`` of a ``vocab.json`` and a ``merges.txt`` (Hugging Face's helper)."""
        return read_vocab_json(vocab), read_merges_txt(merges)

    @classmethod
    def from_file(cls, vocab: Path, merges: Path, **kwargs: Any) -> BPE:
        """A BPE model from a ``vocab.json`` and a ``merges.txt``; ``kwargs`` as the constructor's.

        Example:
            >>> import json, os, tempfile
            >>> folder = tempfile.mkdtemp()
            >>> with open(os.path.join(folder, "vocab.json"), "w") as f:
            ...     json.dump({"a": 0, "b": 1, "ab": 2}, f)
            >>> with open(os.path.join(folder, "merges.txt"), "w") as f:
            ...     _ = f.write("#version: 0.2\\na b\\n")
            >>> BPE.from_file(os.path.join(folder, "vocab.json"), os.path.join(folder, "merges.txt")).tokenize("ab")
            ['ab']
        """
        return cls(*cls.read_file(vocab, merges), **kwargs)

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if not name.startswith("_") and "_cache" in self.__dict__:
            self._cache.clear()  # a new setting (a prefix, unk_token...): words are segmented again

    def native_symbols(self, byte_spelling: str = "") -> dict[str, Any] | None:
        """How the native core (``csrc/core/bpe.h``) makes a word's first symbols, as the tables
        :meth:`native_model` writes; None where only Python can (an id past int32, a byte symbol missing
        from the vocabulary, a lone surrogate in an affix)."""
        if any(not 0 <= i <= 0x7FFFFFFF for i in self.id_to_token):
            return None
        vocab = self.vocab
        prefix, suffix = self.continuing_subword_prefix or "", self.end_of_word_suffix or ""
        # the symbol kinds: 1 after the first character (the prefix before it), 2 last (the suffix after)
        kinds = [k for k in range(4) if (prefix or not k & 1) and (suffix or not k & 2)]
        affixes = {k: (prefix if k & 1 else "", suffix if k & 2 else "") for k in kinds}
        chars, spelled = {}, None
        for token, token_id in vocab.items():
            for k, (before, after) in affixes.items():
                middle = len(token) - len(before) - len(after)
                if middle == 1 and token.startswith(before) and token.endswith(after):
                    chars[k << 32 | ord(token[len(before)])] = token_id
        if byte_spelling:
            spelled = [-1] * 1024
            for k, (before, after) in affixes.items():
                for b, c in enumerate(byte_spelling):
                    spelled[k * 256 + b] = vocab.get(before + c + after, -1)
                    if spelled[k * 256 + b] < 0:
                        return None  # an unknown byte symbol: the Python rules
        byte_ids = [vocab.get(f"<0x{b:02X}>", -1) for b in range(256)] if self.byte_fallback else None
        unk_id = -1 if self.unk_token is None else vocab.get(self.unk_token, -2)  # -2: Python raises
        try:
            encoded = (prefix.encode("utf-8"), suffix.encode("utf-8"))
        except UnicodeEncodeError:  # a lone surrogate: Python's byte fallback raises on it
            return None
        return {
            "chars": chars,
            "spelled": spelled,
            "byte_ids": byte_ids,
            "unk_id": unk_id,
            "fuse_unk": self.fuse_unk,
            "prefix": encoded[0],
            "suffix": encoded[1],
            "whole": vocab if self.ignore_merges else None,
            "spelling": byte_spelling,
        }

    @property
    def sampling(self) -> bool:
        return bool(self.dropout)  # dropout draws each word's merges afresh

    def get_config(self) -> dict[str, Any]:
        """Everything needed to rebuild the model (the dropout generator's state aside)."""
        return {
            "vocab": self.vocab,
            "merges": [list(pair) for pair in self.merges],
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "end_of_word_suffix": self.end_of_word_suffix,
            "dropout": self.dropout,
            "byte_fallback": self.byte_fallback,
            "fuse_unk": self.fuse_unk,
            "ignore_merges": self.ignore_merges,
        }

    def to_tokenizer_json(self) -> dict[str, Any]:
        if self.dropout:
            raise ValueError("model BPE with dropout has no tokenizer.json form")
        return self.serde_structure()

    def serde_structure(self) -> dict[str, Any]:
        """The fields of tokenizers' BPE in its order, the dropout included (what ``repr`` prints; a
        ``tokenizer.json`` holds no dropout of kvec's, see :meth:`to_tokenizer_json`)."""
        return {
            "type": "BPE",
            "dropout": float(self.dropout) if self.dropout else None,
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "end_of_word_suffix": self.end_of_word_suffix,
            "fuse_unk": self.fuse_unk,
            "byte_fallback": self.byte_fallback,
            "ignore_merges": self.ignore_merges,
            "vocab": self.vocab,
            "merges": [list(pair) for pair in self.merges],
        }

    #: a byte-level pre-tokenizer's words, spelled byte by byte, are segmented by the native encoder
    spells_bytes = True

    def native_model(self, byte_spelling: str = "") -> bytes:
        """Kind 3 (``csrc/core/bpe.h``): the merges and the first symbols' tables, the arguments the
        model gives its own native segmentation (:meth:`native_symbols`)."""
        if self.sampling:
            raise NotNativeError("BPE dropout draws its merges at random: a served model would not be repeatable")
        symbols = self.native_symbols(byte_spelling)
        if symbols is None:
            raise NotNativeError(
                "the BPE model has an id past int32, an affix that is not UTF-8, or byte symbols not in its vocabulary"
            )
        u32 = spec_bytes.u32
        merges = [value for merge in self.merge_table for value in merge]
        chars = b"".join(struct.pack("<Qi", key, token_id) for key, token_id in symbols["chars"].items())
        byte_ids = symbols["byte_ids"]
        fallback = u32(0) if byte_ids is None else u32(1) + struct.pack("<256i", *byte_ids)
        parts = [u32(spec_bytes.BPE_MODEL), u32(len(self.merge_table)), struct.pack(f"<{len(merges)}i", *merges)]
        parts += [u32(len(symbols["chars"])), chars, fallback, struct.pack("<q", symbols["unk_id"])]
        parts += [u32(int(symbols["fuse_unk"])), u32(len(symbols["prefix"])), symbols["prefix"]]
        parts += [u32(len(symbols["suffix"])), symbols["suffix"]]
        spelled = symbols["spelled"]
        parts.append(u32(0) if spelled is None else u32(1) + struct.pack("<1024i", *spelled))
        whole = symbols["whole"]
        if whole is None:
            parts.append(u32(0))
        else:
            parts += [u32(1), spec_bytes.tokens({t: i for t, i in whole.items() if t})]
            if spelled is not None:
                parts.append(struct.pack("<256I", *map(ord, byte_spelling)))
        return b"".join(parts)

    def tokenize_spans(self, word: str) -> list[tuple[int, int, int]]:
        """``[(id, start, end), ...]``: each token with the span of word characters it covers."""
        if not word:
            return []
        if self.ignore_merges and word in self.vocab:
            return [(self.vocab[word], 0, len(word))]
        if self.dropout:
            return self._merge_native(self._symbols(word), self.dropout)
        cached = self._cache.get(word)
        if cached is None:
            cached = self._merge_native(self._symbols(word))
            if self.cache_capacity and len(word) < 256:
                if len(self._cache) >= self.cache_capacity:
                    self._cache.popitem(last=False)
                self._cache[word] = cached
        return list(cached)

    def tokenize_ids(self, word: str) -> list[int]:
        """The token ids of one word. A long word (256 characters or more, never cached) whose
        characters are all in the vocabulary skips the spans: its memory stays a few dozen bytes a
        character."""
        if len(word) < 256 or self.dropout or (self.ignore_merges and word in self.vocab):
            return [i for i, _, _ in self.tokenize_spans(word)]
        ids = self._plain_symbol_ids(word)
        if ids is None:
            return [i for i, _, _ in self.tokenize_spans(word)]
        return self._native.merge(ids, False)

    def _plain_symbol_ids(self, word):
        """The initial symbol ids of a word, or None when a character needs the unknown rules."""
        get, prefix, suffix = self.vocab.get, self.continuing_subword_prefix, self.end_of_word_suffix
        if prefix:
            ids = [get(word[0])]
            ids.extend(get(prefix + c) for c in islice(word, 1, None))
        else:
            ids = list(map(get, word))
        if suffix:
            last = word[-1] if len(word) == 1 or not prefix else prefix + word[-1]
            ids[-1] = get(last + suffix)
        return None if None in ids else ids

    def _symbols(self, word):
        """Initial ``(id, start, end)`` symbols of a word, with the library's unknown-character rules."""
        vocab, prefix, suffix = self.vocab, self.continuing_subword_prefix, self.end_of_word_suffix
        symbols: list[tuple[int, ...]] = []
        unk: list[int] | None = None  # a pending unknown symbol [id, start, end] (fused runs are one symbol)
        last = len(word) - 1
        for i, c in enumerate(word):
            s = c
            if i > 0 and prefix:
                s = prefix + s
            if i == last and suffix:
                s = s + suffix
            token_id = vocab.get(s)
            if token_id is not None:
                if unk is not None:
                    symbols.append(tuple(unk))
                    unk = None
                symbols.append((token_id, i, i + 1))
                continue
            if self.byte_fallback:
                byte_ids = [vocab.get(f"<0x{b:02X}>") for b in s.encode("utf-8")]
                if None not in byte_ids:
                    # as in the library, a pending unk is emitted after these
                    symbols.extend((cast(int, b), i, i + 1) for b in byte_ids)
                    continue
            if self.unk_token is not None:
                unk_id = vocab.get(self.unk_token)
                if unk_id is None:
                    raise ValueError(f"unk_token {self.unk_token!r} is not in the vocabulary")
                if unk is not None and self.fuse_unk:
                    unk[2] = i + 1
                    continue
                if unk is not None:
                    symbols.append(tuple(unk))
                unk = [unk_id, i, i + 1]
        if unk is not None:
            symbols.append(tuple(unk))
        return symbols

    def _merge_native(self, symbols, dropout=0.0):
        """The merges applied to the symbols, lowest rank first and leftmost on ties, in C; with
        ``dropout``, each merge is skipped with that probability (see ``kvec._subword.BpeRanks``)."""
        ids, starts = self._native.merge([symbol[0] for symbol in symbols], True, dropout or 0.0)
        ends = starts[1:] + [len(symbols)]
        return [(i, symbols[s][1], symbols[e - 1][2]) for i, s, e in zip(ids, starts, ends)]


def _checked_merges(merges):
    """The merge list as ``(left, right)`` tuples of str; ``TypeError`` naming the entry otherwise."""
    if merges is None:
        return []
    if isinstance(merges, (str, bytes, Mapping)):
        raise wrong_type("merges", "a list of (left, right) pairs", merges)
    checked = []
    for rank, pair in enumerate(merges):
        if not (
            isinstance(pair, (tuple, list)) and len(pair) == 2 and isinstance(pair[0], str) and isinstance(pair[1], str)
        ):
            raise TypeError(f"merges[{rank}] must be a (left, right) pair of str tokens, got {pair!r:.60}")
        checked.append(tuple(pair))
    return checked
