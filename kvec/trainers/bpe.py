"""Byte-pair encoding training (Sennrich et al., 2016, "Neural Machine Translation of Rare Words with
Subword Units").

Start from the characters of every word and repeatedly merge the most frequent adjacent pair of symbols
into a new symbol, until the vocabulary reaches ``vocab_size``. Pair counts are kept up to date
incrementally: a merge only touches the words that contain the pair, and reports count deltas for the
pairs around each merged occurrence. A max-heap serves the most frequent pair.

Two tie rules decide between pairs of equal count:

- ``"ids"`` (default) reproduces Hugging Face ``tokenizers``' ``BpeTrainer`` exactly: the pair with the
  smallest ``(id_a, id_b)`` wins. Every heap entry carries the set of words it was pushed for, stale
  counts are refreshed lazily, and a merge never decrements the merged pair's own count, so a pair can
  be merged again from an older entry. The vocabulary and the merge list then equal the library's for the
  same word counts.
- ``"first"``: the pair that occurs first in corpus order (words in the order given, left to right inside
  a word) wins. This is the worked BPE example of the design articles, which recounts all pairs in a
  fresh dict each round and takes the first maximum.
"""

from __future__ import annotations

import heapq
import sys
import warnings
from array import array
from collections.abc import Callable, Iterable, Mapping
from typing import cast

from kvec._subword import bpe_merge_loop
from kvec.added_vocabulary import AddedToken
from kvec.common.arguments import check_int, must_be, wrong_type
from kvec.common.progress import progress_bar
from kvec.contracts import Trainer
from kvec.models.bpe import BPE
from kvec.trainers.options import (
    from_state,
    initial_alphabet_option,
    special_tokens_option,
    to_state,
    token_state,
)

TIE_RULES = ("ids", "first")


class BpeTrainer(Trainer):
    """Learn a :class:`kvec.models.BPE` vocabulary and merge list from word counts.

    Args:
        vocab_size: the target size, special tokens and alphabet included (it is exceeded only when
            those alone are larger).
        min_frequency: pairs seen fewer times than this are never merged.
        special_tokens: tokens that take the first ids, in order (str or :class:`kvec.AddedToken`;
            kept as AddedToken made special, and registered with the tokenizer after training).
        limit_alphabet: keep at most this many characters (the most frequent); others are skipped.
        initial_alphabet: characters always in the alphabet, even if absent from the corpus.
        continuing_subword_prefix: prepended to every non-initial symbol (``"##"`` for WordPiece).
        end_of_word_suffix: appended to the last symbol of every word (``"</w>"`` in the original paper).
        max_token_length: no token longer than this many characters is created.
        tie_break: ``"ids"`` (Hugging Face parity) or ``"first"`` (first pair in corpus order).
        byte_fallback: add the 256 tokens ``<0x00>``..``<0xFF>`` after the special tokens and make the
            model spell characters outside its alphabet with them (sentencepiece's BPE option).
        show_progress: show a progress bar of the merges (needs ``tqdm``; on by default, as in
            Hugging Face).

    Every option is also a settable attribute; pickling gives the JSON bytes of Hugging Face's
    ``BpeTrainer.__getstate__``.

    Example:
        >>> trainer = BpeTrainer(vocab_size=8)
        >>> model = trainer.train_from_counts({"hug": 10, "pug": 5, "hugs": 5})
        >>> model.merges
        [('u', 'g'), ('h', 'ug'), ('p', 'ug')]
    """

    trains = BPE  # the model class it trains: a pipeline with another kind of model refuses it

    def __init__(
        self,
        vocab_size: int = 30000,
        min_frequency: int = 0,
        special_tokens: Iterable[str | AddedToken] = (),
        limit_alphabet: int | None = None,
        initial_alphabet: Iterable[str] = (),
        continuing_subword_prefix: str | None = None,
        end_of_word_suffix: str | None = None,
        max_token_length: int | None = None,
        tie_break: str = "ids",
        byte_fallback: bool = False,
        show_progress: bool = True,
    ) -> None:
        check_int(vocab_size, "vocab_size", 0)
        check_int(min_frequency, "min_frequency", 0)
        if limit_alphabet is not None:
            check_int(limit_alphabet, "limit_alphabet", 0)
        if max_token_length is not None:
            check_int(max_token_length, "max_token_length", 1)
        if tie_break not in TIE_RULES:
            raise ValueError(f"tie_break must be one of {TIE_RULES}, got {tie_break!r}")
        for name, value in (
            ("continuing_subword_prefix", continuing_subword_prefix),
            ("end_of_word_suffix", end_of_word_suffix),
        ):
            if value is not None and not isinstance(value, str):
                raise wrong_type(name, "a str or None", value)
        self.vocab_size = vocab_size
        self.min_frequency = min_frequency
        self.special_tokens = special_tokens
        self.limit_alphabet = limit_alphabet
        self.initial_alphabet = initial_alphabet
        self.continuing_subword_prefix = continuing_subword_prefix
        self.end_of_word_suffix = end_of_word_suffix
        self.max_token_length = max_token_length
        self.tie_break = tie_break
        self.byte_fallback = byte_fallback
        self.show_progress = show_progress

    _special_tokens: list[AddedToken]  # stored by the properties below
    _initial_alphabet: list[str]
    special_tokens = special_tokens_option(
        """The special tokens, as :class:`kvec.AddedToken` (a str given becomes ``AddedToken(token,
        special=True)``); they take the first ids, and training registers them with the tokenizer."""
    )
    initial_alphabet = initial_alphabet_option("""The characters always in the alphabet.""")

    def _state_fields(self):
        """The fields of Hugging Face's BpeTrainer, in its order, then kvec's own where they differ
        from their defaults."""
        fields = {
            "min_frequency": self.min_frequency,
            "vocab_size": self.vocab_size,
            "show_progress": self.show_progress,
            "progress_format": "Indicatif",
            "special_tokens": [token_state(t) for t in self._special_tokens],
            "limit_alphabet": self.limit_alphabet,
            "initial_alphabet": list(self._initial_alphabet),
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "end_of_word_suffix": self.end_of_word_suffix,
            "max_token_length": self.max_token_length,
            "words": {},
        }
        if self.tie_break != "ids":
            fields["tie_break"] = self.tie_break
        if self.byte_fallback:
            fields["byte_fallback"] = True
        return fields

    def __getstate__(self) -> bytes:
        """The trainer as the JSON bytes of Hugging Face's ``BpeTrainer.__getstate__``."""
        return to_state("BpeTrainer", self._state_fields())

    def __setstate__(self, state: bytes) -> None:
        self.__init__(**from_state("BpeTrainer", state))  # type: ignore[misc]

    def train_from_counts(self, word_counts: Mapping[str, int] | Iterable[tuple[str, int]], n_jobs: int = 1) -> BPE:
        """Train on a ``{word: count}`` mapping (or an iterable of ``(word, count)`` pairs).

        The order of the words matters only for the ``"first"`` tie rule and for the ids of prefixed or
        suffixed characters; pass words in first-occurrence order for results that follow the corpus.
        """
        items = word_count_items(word_counts)
        vocab, tokens, add = new_vocabulary(t.content for t in self._special_tokens)
        if self.byte_fallback:
            for b in range(256):
                add(f"<0x{b:02X}>")
        for c in self._alphabet(items):
            add(c)
        if len(vocab) > self.vocab_size:
            warnings.warn(
                f"vocab_size {self.vocab_size} is smaller than the special tokens"
                f"{', byte tokens' if self.byte_fallback else ''} and characters of the alphabet: the "
                f"vocabulary keeps all {len(vocab)} of them, with no merges (pass limit_alphabet to "
                "cap the alphabet)",
                UserWarning,
                stacklevel=2,
            )
        ids, sizes, counts = self._split_words(items, vocab, add)

        merge_round = _merge_like_hf if self.tie_break == "ids" else _merge_first_in_corpus
        merges = merge_round(self, ids, sizes, counts, vocab, tokens, add)
        return BPE(
            vocab=vocab,
            merges=[(tokens[a], tokens[b]) for a, b in merges],
            continuing_subword_prefix=self.continuing_subword_prefix,
            end_of_word_suffix=self.end_of_word_suffix,
            byte_fallback=self.byte_fallback,
        )

    def _alphabet(self, items):
        """Characters weighted by word count; the rarest dropped past ``limit_alphabet``; in code point order."""
        weight: dict[str, int] = {}
        for word, count in items:
            for c in word:
                weight[c] = weight.get(c, 0) + count
        for c in self._initial_alphabet:
            weight[c] = sys.maxsize
        kept = list(weight)
        if self.limit_alphabet is not None and len(kept) > self.limit_alphabet:
            # Rarest first; among equal weights the higher code point goes first (Hugging Face leaves
            # that order unspecified).
            kept.sort(key=lambda c: (weight[c], -ord(c)))
            kept = kept[len(kept) - self.limit_alphabet :]
        return sorted(kept)

    def _split_words(self, items, vocab, add):
        """The words as symbol ids back to back (``array('i')``), each word's length (``array('q')``)
        and the counts: 4 bytes a character, so a single word of millions of characters fits."""
        prefix, suffix = self.continuing_subword_prefix, self.end_of_word_suffix
        ids, sizes, counts = array("i"), array("q"), []
        for word, count in items:
            before = len(ids)
            if prefix or suffix:
                last = len(word) - 1
                for i, c in enumerate(word):
                    if c not in vocab:
                        continue  # outside the alphabet: skipped, its neighbours become adjacent
                    s = c
                    if i > 0 and prefix:
                        s = prefix + s
                    if i == last and suffix:
                        s = s + suffix
                    ids.append(add(s))
            else:
                ids.extend(vocab[c] for c in word if c in vocab)
            sizes.append(len(ids) - before)
            counts.append(count)
        return ids, sizes, counts

    def _new_token(self, tokens, a, b):
        part_b = tokens[b]
        prefix = self.continuing_subword_prefix
        if prefix and part_b.startswith(prefix):
            part_b = part_b[len(prefix) :]
        return tokens[a] + part_b


class _Word:
    """A word as symbol ids, each with its length in characters."""

    __slots__ = ("ids", "lengths")

    def __init__(self, ids):
        self.ids = ids
        self.lengths = [1] * len(ids)

    def pairs(self):
        return zip(self.ids, self.ids[1:])

    def merge(self, a, b, new, max_length):
        """Merge every non-overlapping ``(a, b)``, left to right; return ``[(pair, delta), ...]``."""
        ids, lengths = self.ids, self.lengths
        changes = []
        i = 0
        while i < len(ids) - 1:
            if ids[i] == a and ids[i + 1] == b:
                length = lengths[i] + lengths[i + 1]
                if i > 0:
                    changes.append(((ids[i - 1], a), -1))
                    if lengths[i - 1] + length < max_length:
                        changes.append(((ids[i - 1], new), 1))
                ids[i : i + 2] = [new]
                lengths[i : i + 2] = [length]
                if i < len(ids) - 1:
                    changes.append(((b, ids[i + 1]), -1))
                    if lengths[i + 1] + length < max_length:
                        changes.append(((new, ids[i + 1]), 1))
            i += 1
        return changes


def _count_pairs(words, counts):
    pair_counts: dict[tuple[int, int], int] = {}
    where: dict[tuple[int, int], set[int]] = {}  # pair -> the words it occurs in
    for w, (word, count) in enumerate(zip(words, counts)):
        for pair in word.pairs():
            pair_counts[pair] = pair_counts.get(pair, 0) + count
            where.setdefault(pair, set()).add(w)
    return pair_counts, where


def merge_everywhere(
    words: list[_Word],
    counts: list[int],
    where: dict[tuple[int, int], set[int]],
    pair_counts: dict[tuple[int, int], int],
    a: int,
    b: int,
    new: int,
    max_length: float,  # inf: no limit
) -> tuple[set[tuple[int, int]], int]:
    """Merge ``(a, b)`` into ``new`` in every word ``where`` lists for it, applying the count deltas.

    Returns the pairs whose count changed and the number of occurrences merged (weighted by count).
    """
    changed_pairs, merged = set(), 0
    for w in sorted(where.pop((a, b))):
        word, count = words[w], counts[w]
        before = len(word.ids)
        for changed, delta in word.merge(a, b, new, max_length):
            pair_counts[changed] = pair_counts.get(changed, 0) + delta * count
            changed_pairs.add(changed)
            if delta > 0:
                where.setdefault(changed, set()).add(w)
        merged += (before - len(word.ids)) * count
    return changed_pairs, merged


def _merge_like_hf(trainer, ids, sizes, counts, vocab, tokens, add):
    """The merge loop of Hugging Face's BpeTrainer (native: entry word sets and lazy refresh included)."""
    bar = progress_bar(trainer.show_progress, total=trainer.vocab_size, initial=len(vocab), desc="BPE merges")

    def add_merge(a, b):
        new = add(trainer._new_token(tokens, a, b))
        bar.update(len(vocab) - bar.n)
        return new, len(vocab)

    merges = bpe_merge_loop(
        ids,
        sizes,
        counts,
        trainer.vocab_size,
        len(vocab),
        trainer.min_frequency,
        trainer.max_token_length or sys.maxsize,
        add_merge,
    )
    bar.close()
    # A pair merged twice keeps its last rank, as in the library's merge map.
    last_rank = {pair: rank for rank, pair in enumerate(merges)}
    return sorted(last_rank, key=last_rank.__getitem__)


def _merge_first_in_corpus(trainer, ids, sizes, counts, vocab, tokens, add):
    """Most frequent pair, ties to the first occurrence in corpus order; every occurrence merged."""
    words, at = [], 0
    for size in sizes:
        words.append(_Word(ids[at : at + size].tolist()))
        at += size
    max_length = trainer.max_token_length or sys.maxsize
    pair_counts, where = _count_pairs(words, counts)
    heap = [(-count, pair) for pair, count in pair_counts.items() if count > 0]
    heapq.heapify(heap)
    merges = []
    bar = progress_bar(trainer.show_progress, total=trainer.vocab_size, initial=len(vocab), desc="BPE merges")
    while len(vocab) < trainer.vocab_size:
        best = _pop_best_first(heap, pair_counts, words)
        if best is None or trainer.min_frequency > pair_counts[best]:
            break
        a, b = best
        new = add(trainer._new_token(tokens, a, b))
        merges.append(best)
        del pair_counts[best]
        changed_pairs, _ = merge_everywhere(words, counts, where, pair_counts, a, b, new, max_length)
        for pair in changed_pairs:
            count = pair_counts.get(pair, 0)
            if count > 0:
                heapq.heappush(heap, (-count, pair))
            else:
                pair_counts.pop(pair, None)
                where.pop(pair, None)
        bar.update(len(vocab) - bar.n)
    bar.close()
    return merges


def _pop_best_first(heap, pair_counts, words):
    """Pop every current entry of the top count; return the one occurring first, push the others back."""
    tied: list[tuple[int, int]] = []
    top: int | None = None
    while heap:
        negative, pair = heap[0]
        if pair_counts.get(pair) != -negative:
            heapq.heappop(heap)  # stale: the current count has its own entry
            continue
        if top is not None and -negative != top:
            break
        top = -negative
        tied.append(heapq.heappop(heap)[1])
    if not tied:
        return None
    best = first_in_corpus(words, set(tied))
    for pair in tied:
        if pair != best:
            heapq.heappush(heap, (-cast(int, top), pair))
    return best


def word_count_items(word_counts: Mapping[str, int] | Iterable[tuple[str, int]]) -> list[tuple[str, int]]:
    """Validated ``(word, count)`` pairs from a mapping or an iterable of pairs, in the given order."""
    items = list(word_counts.items() if isinstance(word_counts, Mapping) else word_counts)
    for i, (word, count) in enumerate(items):
        if not isinstance(word, str):
            raise wrong_type(f"word_counts: word {i}", "a str", word)
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise must_be(f"word_counts: the count of {word!r}", "a non-negative int", count)
    return items


def new_vocabulary(special_tokens: Iterable[str]) -> tuple[dict[str, int], list[str], Callable[[str], int]]:
    """``(vocab, tokens, add)``: ``{token: id}``, the tokens by id, and ``add(token) -> id``
    (which gives a new token the next id); the special tokens are already in."""
    vocab: dict[str, int] = {}
    tokens: list[str] = []

    def add(token):
        if token not in vocab:
            vocab[token] = len(tokens)
            tokens.append(token)
        return vocab[token]

    for token in special_tokens:
        add(token)
    return vocab, tokens, add


def first_in_corpus(words: Iterable[_Word], candidates: set[tuple[int, int]]) -> tuple[int, int]:
    """The candidate pair that occurs first, scanning words in order and each word left to right."""
    return next(pair for word in words for pair in word.pairs() if pair in candidates)
