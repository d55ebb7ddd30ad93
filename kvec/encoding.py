"""What a tokenizer gives for one text or a pair: :class:`Encoding`, with Hugging Face's fields and methods.

An encoding holds, token by token, the id, the token, its ``(start, end)`` offsets in its text, its word
(the index of the pre-tokenized word it came from, None for special tokens the post-processor added), its
type id, whether it is special, and its attention mask (0 for padding). ``sequence_ranges`` says which
tokens belong to which sequence of a pair. Truncation keeps the tokens that fit and puts the rest in
``overflowing`` (windows of the same length, ``stride`` tokens shared with the window before);
:meth:`Encoding.merge` joins encodings (and their overflowing ones) as a post-processor does, and
:meth:`Encoding.pad` pads to a length. These follow Hugging Face ``tokenizers`` exactly, so that code
written against its ``Encoding`` reads kvec's the same way.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

from kvec.common.arguments import wrong_type

__all__ = ["Encoding", "non_negative_int", "one_of", "pad_encodings", "truncate_encodings"]

Span = tuple[int, int]
DIRECTIONS = ("left", "right")
STRATEGIES = ("longest_first", "only_first", "only_second")


class Encoding:
    """The result of :meth:`kvec.Pipeline.encode`.

    Attributes:
        ids: token ids.
        tokens: token strings.
        offsets: ``(start, end)`` character offsets of each token in its original text (``(0, 0)`` for
            special tokens added by the post-processor, and for padding).
        word_ids: the index of the word each token comes from, within its sequence (None for special
            tokens the post-processor added, and for padding). ``words`` is the same list.
        type_ids: the segment of each token (0 for the first sequence, 1 for the second, or as the
            post-processor's template says).
        special_tokens_mask: 1 for special tokens added by the post-processor, and for padding.
        attention_mask: 1 for every token, 0 for padding.
        sequence_ids: the sequence each token belongs to (None for added special tokens).
        overflowing: what truncation cut off, as encodings of their own.

    ``encode_batch`` fills only ``ids`` up front; the rest is worked out on first access, so pipelines
    that only need ids never pay for it.

    Example:
        >>> e = Encoding([5, 6, 7], tokens=["un", "##able", "!"], offsets=[(0, 2), (2, 6), (6, 7)], words=[0, 0, 1])
        >>> e.word_to_tokens(0), e.char_to_token(3), e.token_to_chars(2)
        ((0, 2), 1, (6, 7))
        >>> e.pad(5, pad_id=0)
        >>> e.ids, e.attention_mask, e.word_ids
        ([5, 6, 7, 0, 0], [1, 1, 1, 0, 0], [0, 0, 1, None, None])
    """

    # ids, _tokenizer and _text are what encode_batch sets (csrc/python/encoder/id_rows.c), the others None
    __slots__ = (
        "ids",
        "_tokenizer",
        "_text",
        "_tokens",
        "_offsets",
        "_type_ids",
        "_special_tokens_mask",
        "_words",
        "_attention_mask",
        "_overflowing",
        "_sequence_ranges",
    )

    def __init__(
        self,
        ids: list[int],
        tokens: list[str] | None = None,
        offsets: list[Span] | None = None,
        source: tuple[Any, Any] | None = None,
        type_ids: list[int] | None = None,
        special_tokens_mask: list[int] | None = None,
        words: list[int | None] | None = None,
        attention_mask: list[int] | None = None,
        overflowing: list[Encoding] | None = None,
        sequence_ranges: dict[int, tuple[int, int]] | None = None,
    ) -> None:
        self.ids = ids
        # the tokenizer and text that work out the rest on first access (encode_batch's encodings)
        self._tokenizer: Any = None if source is None else source[0]
        self._text: Any = None if source is None else source[1]
        n = len(ids)
        lazy = source is not None  # the fields below are None until worked out (typed Any for that)
        self._tokens: Any = tokens if tokens is not None or lazy else [""] * n
        self._offsets: Any = offsets if offsets is not None or lazy else [(0, 0)] * n
        self._type_ids: Any = type_ids if type_ids is not None or lazy else [0] * n
        self._special_tokens_mask: Any = special_tokens_mask if special_tokens_mask is not None or lazy else [0] * n
        self._words: Any = words if words is not None or lazy else [None] * n
        self._attention_mask: Any = attention_mask if attention_mask is not None or lazy else [1] * n
        self._overflowing: Any = overflowing if overflowing is not None or lazy else []
        self._sequence_ranges: Any = sequence_ranges if sequence_ranges is not None or lazy else {}

    def _fill(self) -> None:
        """Every field of a lazy encoding, from its tokenizer's full encoding of its text."""
        tokenizer = self._tokenizer
        if tokenizer is None:
            return
        full = tokenizer._batch_encoding(self._text)
        for name in Encoding.__slots__[3:]:
            if getattr(self, name) is None:
                setattr(self, name, getattr(full, name))
        self._tokenizer = self._text = None

    def _field(self, name: str) -> Any:
        value = getattr(self, name)
        if value is None:
            tokenizer = self._tokenizer
            # tokens alone need no encoding, unless one is the text it covers (see _tokens_of_ids)
            tokens = tokenizer._tokens_of_ids(self.ids) if tokenizer is not None and name == "_tokens" else None
            if tokens is not None:
                self._tokens = tokens
                return tokens
            self._fill()
            value = getattr(self, name)
        return value

    @property
    def tokens(self) -> list[str]:
        return self._field("_tokens")

    @property
    def offsets(self) -> list[Span]:
        return self._field("_offsets")

    @property
    def type_ids(self) -> list[int]:
        return self._field("_type_ids")

    @property
    def special_tokens_mask(self) -> list[int]:
        return self._field("_special_tokens_mask")

    @property
    def attention_mask(self) -> list[int]:
        return self._field("_attention_mask")

    @property
    def word_ids(self) -> list[int | None]:
        return self._field("_words")

    @property
    def words(self) -> list[int | None]:
        """The same as :attr:`word_ids`: Hugging Face's older name, deprecated there as here."""
        warnings.warn(
            "Encoding.words is deprecated, please use Encoding.word_ids instead", DeprecationWarning, stacklevel=2
        )
        return self._field("_words")

    @property
    def overflowing(self) -> list[Encoding]:
        return self._field("_overflowing")

    @property
    def sequence_ranges(self) -> dict[int, tuple[int, int]]:
        return self._field("_sequence_ranges")

    @property
    def n_sequences(self) -> int:
        """How many sequences the encoding holds (1 unless it is a pair)."""
        return len(self.sequence_ranges) or 1

    @property
    def sequence_ids(self) -> list[int | None]:
        sequences: list[int | None] = [None] * len(self.ids)
        for sequence in range(self.n_sequences):
            start, stop = self._sequence_range(sequence)
            sequences[start:stop] = [sequence] * (stop - start)
        return sequences

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return (
            f"Encoding(num_tokens={len(self.ids)}, attributes=[ids, type_ids, tokens, offsets, attention_mask, "
            "special_tokens_mask, overflowing])"
        )

    # ---- alignment ----

    def _sequence_range(self, sequence_index: int) -> tuple[int, int]:
        return self.sequence_ranges.get(sequence_index, (0, len(self.ids)))

    def set_sequence_id(self, sequence_id: int) -> None:
        """Mark every token as part of sequence ``sequence_id``."""
        self._fill()
        self._sequence_ranges[non_negative_int(sequence_id, "sequence_id")] = (0, len(self.ids))

    def set_type_ids(self, type_ids: list[int]) -> None:
        """Replace the type ids (one per token)."""
        self._fill()
        if len(type_ids) != len(self.ids):
            raise ValueError(f"{len(type_ids)} type ids for {len(self.ids)} tokens")
        self._type_ids = list(type_ids)

    def word_to_tokens(self, word_index: int, sequence_index: int = 0) -> tuple[int, int] | None:
        """The tokens ``(start, end)`` of word ``word_index`` of sequence ``sequence_index``, or None."""
        start, stop = self._sequence_range(non_negative_int(sequence_index, "sequence_index"))
        words = self.word_ids
        if stop > len(words):
            return None
        found = [i for i in _while_not_past(words[start:stop], non_negative_int(word_index, "word_index"))]
        return (start + found[0], start + found[-1] + 1) if found else None

    def word_to_chars(self, word_index: int, sequence_index: int = 0) -> Span | None:
        """The offsets ``(start, end)`` of word ``word_index`` of sequence ``sequence_index``, or None."""
        tokens = self.word_to_tokens(word_index, sequence_index)
        if tokens is None or tokens[1] == 0:
            return None
        offsets = self.offsets
        return offsets[tokens[0]][0], offsets[tokens[1] - 1][1]

    def token_to_sequence(self, token_index: int) -> int | None:
        """The sequence token ``token_index`` belongs to, or None."""
        token_index = non_negative_int(token_index, "token_index")
        if token_index > len(self.ids):
            return None
        ranges = self.sequence_ranges
        if not ranges:
            return 0
        return next((sequence for sequence, (a, b) in ranges.items() if a <= token_index < b), None)

    def token_to_chars(self, token_index: int) -> Span | None:
        """The offsets of token ``token_index`` in its text, or None."""
        if self.token_to_sequence(token_index) is None or token_index >= len(self.ids):
            return None
        return self.offsets[token_index]

    def token_to_word(self, token_index: int) -> int | None:
        """The word of token ``token_index`` within its sequence, or None."""
        if self.token_to_sequence(token_index) is None or token_index >= len(self.ids):
            return None
        return self.word_ids[token_index]

    def char_to_token(self, char_pos: int, sequence_index: int = 0) -> int | None:
        """The token that covers character ``char_pos`` of sequence ``sequence_index``, or None."""
        char_pos = non_negative_int(char_pos, "char_pos")
        start, stop = self._sequence_range(non_negative_int(sequence_index, "sequence_index"))
        offsets = self.offsets
        if stop > len(offsets):
            return None
        return next((start + i for i, (a, b) in enumerate(offsets[start:stop]) if a <= char_pos < b), None)

    def char_to_word(self, char_pos: int, sequence_index: int = 0) -> int | None:
        """The word that holds character ``char_pos`` of sequence ``sequence_index``, or None."""
        token = self.char_to_token(char_pos, sequence_index)
        return None if token is None else self.token_to_word(token)

    # ---- truncation, merging, padding ----

    def truncate(self, max_length: int, stride: int = 0, direction: str = "right") -> None:
        """Keep ``max_length`` tokens (the first, or with ``direction="left"`` the last); the rest goes to
        :attr:`overflowing` as encodings of ``max_length`` tokens, each starting with the last ``stride``
        tokens of the one before."""
        max_length, stride = non_negative_int(max_length, "max_length"), non_negative_int(stride, "stride")
        direction = one_of(direction, "direction", DIRECTIONS)
        self._fill()
        n = len(self.ids)
        if max_length >= n:
            return
        if max_length == 0:
            whole = self._copy()
            self._become(Encoding([]))
            self._overflowing.append(whole)
            return
        if stride >= max_length:
            raise ValueError(f"stride ({stride}) must be smaller than max_length ({max_length})")
        step = max_length - stride
        windows = []
        if direction == "right":
            for start in range(0, n, step):
                stop = min(start + max_length, n)
                windows.append((start, stop))
                if stop == n:
                    break
        else:
            for last in range(n - 1, -1, -step):
                start = max(0, last + 1 - max_length)
                windows.append((start, last + 1))
                if start == 0:
                    break
        kept = self._slice(*windows[0])
        kept._overflowing = [self._slice(*window) for window in windows[1:]]
        self._become(kept)

    def _slice(self, start: int, stop: int) -> Encoding:
        return Encoding(
            self.ids[start:stop],
            tokens=self._tokens[start:stop],
            offsets=self._offsets[start:stop],
            type_ids=self._type_ids[start:stop],
            special_tokens_mask=self._special_tokens_mask[start:stop],
            words=self._words[start:stop],
            attention_mask=self._attention_mask[start:stop],
        )

    def _copy(self) -> Encoding:
        self._fill()
        return Encoding(
            list(self.ids),
            tokens=list(self.tokens),
            offsets=list(self._offsets),
            type_ids=list(self._type_ids),
            special_tokens_mask=list(self._special_tokens_mask),
            words=list(self._words),
            attention_mask=list(self._attention_mask),
            overflowing=[o._copy() for o in self._overflowing],
            sequence_ranges=dict(self._sequence_ranges),
        )

    def _become(self, other: Encoding) -> None:
        for name in Encoding.__slots__:
            setattr(self, name, getattr(other, name))

    @staticmethod
    def merge(encodings: Iterable[Encoding], growing_offsets: bool = True) -> Encoding:
        """One encoding of ``encodings`` back to back (their overflowing ones combined too); with
        ``growing_offsets`` each one's offsets continue from the end of the one before."""
        merged = Encoding([])
        for encoding in encodings:
            merged._merge_with(encoding, growing_offsets)
        return merged

    def _merge_with(self, other: Encoding, growing_offsets: bool) -> None:
        self._fill()
        other._fill()
        overflowing = []
        for mine in self._overflowing:
            for theirs in [other, *other._overflowing]:  # merging reads `theirs` and never changes it
                combined = mine._copy()
                combined._merge_with(theirs, growing_offsets)
                overflowing.append(combined)
        for theirs in other._overflowing:
            combined = self._copy()
            combined._merge_with(theirs, growing_offsets)
            overflowing.append(combined)
        n = len(self.ids)
        for sequence, (start, stop) in other._sequence_ranges.items():
            self._sequence_ranges[sequence] = (n + start, n + stop)
        shift = self._offsets[-1][1] if growing_offsets and self._offsets else 0
        self.ids = self.ids + other.ids
        self._tokens = self.tokens + other.tokens
        self._offsets = self._offsets + [(a + shift, b + shift) for a, b in other._offsets]
        self._type_ids = self._type_ids + other._type_ids
        self._special_tokens_mask = self._special_tokens_mask + other._special_tokens_mask
        self._words = self._words + other._words
        self._attention_mask = self._attention_mask + other._attention_mask
        self._overflowing = overflowing

    def pad(
        self, length: int, direction: str = "right", pad_id: int = 0, pad_type_id: int = 0, pad_token: str = "[PAD]"
    ) -> None:
        """Pad to ``length`` tokens (on the right, or the left), and the overflowing encodings too."""
        length = non_negative_int(length, "length")
        direction = one_of(direction, "direction", DIRECTIONS)
        self._fill()
        for encoding in self._overflowing:
            encoding.pad(length, direction, pad_id, pad_type_id, pad_token)
        missing = length - len(self.ids)
        if missing <= 0:
            return
        fields = {
            "ids": pad_id,
            "_tokens": pad_token,
            "_offsets": (0, 0),
            "_type_ids": pad_type_id,
            "_special_tokens_mask": 1,
            "_words": None,
            "_attention_mask": 0,
        }
        for name, value in fields.items():
            current = getattr(self, name)
            setattr(self, name, [value] * missing + current if direction == "left" else current + [value] * missing)
        if direction == "left":
            self._sequence_ranges = {s: (a + missing, b + missing) for s, (a, b) in self._sequence_ranges.items()}


def _while_not_past(words: list[int | None], word: int) -> Iterable[int]:
    """The positions of ``word`` in ``words``, up to the first later word (None is before every word)."""
    for i, w in enumerate(words):
        if w is not None and w > word:
            return
        if w == word:
            yield i


def non_negative_int(value: Any, name: str) -> int:
    """``value``, checked to be an int (not a bool) >= 0; the errors name the argument."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise wrong_type(name, "an int", value)
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


def one_of(value: Any, name: str, allowed: tuple[str, ...]) -> str:
    """``value``, checked to be one of ``allowed``; the error names the argument."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


def truncate_encodings(
    first: Encoding, second: Encoding | None, max_length: int, stride: int, strategy: str, direction: str
) -> None:
    """Truncate one encoding, or a pair, to ``max_length`` tokens in all, in place, as Hugging Face's
    strategies do: ``longest_first`` takes from the longer one (halving when both are too long),
    ``only_first`` / ``only_second`` from one of them only."""
    if max_length == 0:
        first.truncate(0, stride, direction)
        if second is not None:
            second.truncate(0, stride, direction)
        return
    total = len(first) + (len(second) if second is not None else 0)
    if total <= max_length:
        return
    excess = total - max_length
    if strategy == "longest_first":
        if second is None:
            first.truncate(max_length, stride, direction)
            return
        n1, n2 = len(first), len(second)
        swapped = n1 > n2
        if swapped:
            n1, n2 = n2, n1
        n2 = n1 if n1 > max_length else max(n1, max_length - n1)
        if n1 + n2 > max_length:
            n1 = max_length // 2
            n2 = n1 + max_length % 2
        if swapped:
            n1, n2 = n2, n1
        first.truncate(n1, stride, direction)
        second.truncate(n2, stride, direction)
        return
    if strategy == "only_second" and second is None:
        raise ValueError("truncation strategy 'only_second' needs a second sequence")
    target = first if strategy == "only_first" else second
    assert target is not None
    if len(target) <= excess:
        raise ValueError(
            f"truncation strategy {strategy!r}: the sequence ({len(target)} tokens) is too short to remove "
            f"{excess} tokens from it"
        )
    target.truncate(len(target) - excess, stride, direction)


def pad_encodings(
    encodings: list[Encoding],
    length: int | None,
    pad_to_multiple_of: int | None,
    direction: str,
    pad_id: int,
    pad_type_id: int,
    pad_token: str,
) -> None:
    """Pad every encoding, in place, to ``length`` (None: the longest of them), rounded up to a multiple
    of ``pad_to_multiple_of``."""
    if not encodings:
        return
    target = length if length is not None else max(len(e) for e in encodings)
    if pad_to_multiple_of and target % pad_to_multiple_of:
        target += pad_to_multiple_of - target % pad_to_multiple_of
    for encoding in encodings:
        encoding.pad(target, direction, pad_id, pad_type_id, pad_token)
