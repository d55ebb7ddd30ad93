"""Google's bottom-up WordPiece vocabulary learner (the algorithm behind tensorflow_text's
``bert_vocab_from_dataset`` / ``wordpiece_tokenizer_learner_lib.learn``).

For a count threshold ``t`` the learner counts, over every word, the substrings that start where a
current wordpiece starts (every position in the first round), keeps those seen at least ``t`` times
(longest first, discounting each kept token's prefixes so they are not counted twice), and repeats for
``num_iterations`` rounds. A binary search on ``t`` looks for the vocabulary closest below
``vocab_size`` (within ``slack_ratio``). The result is the identical vocabulary list tensorflow_text
produces for the same word counts and parameters.

The first round does not depend on the threshold, so it is computed once and shared by every step of
the binary search. The native rounds never discount: a token's discounted count equals the count of
its occurrences that run to the end of their word, so only those suffixes are counted (see
``count_suffixes`` in ``csrc/python/subword/bottom_up_trainer.c``). The rounds run natively (tokens keyed by their
characters and whether they carry the joiner); a word list in which some word contains the joiner
itself takes the Python rounds, where tokens are plain strings as in tensorflow_text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kvec._subword import BottomUpLearner
from kvec.common.arguments import wrong_type
from kvec.contracts import Trainer
from kvec.models.wordpiece import WordPiece

__all__ = ["BottomUpWordPieceTrainer", "learn_vocabulary"]


def learn_vocabulary(
    word_counts: Mapping[str, int] | Iterable[tuple[str, int]],
    vocab_size: int,
    reserved_tokens: Iterable[str] = (),
    upper_thresh: int = 10_000_000,
    lower_thresh: int = 10,
    num_iterations: int = 4,
    max_input_tokens: int | None = 5_000_000,
    max_token_length: int = 50,
    max_unique_chars: int = 1000,
    slack_ratio: float = 0.05,
    include_joiner_token: bool = True,
    joiner: str = "##",
) -> list[str]:
    """The vocabulary list for ``word_counts`` (a ``{word: count}`` mapping or ``(word, count)`` pairs).

    Arguments and defaults are those of tensorflow_text's ``learn``; ``max_input_tokens`` of ``None``
    or ``-1`` means no limit.

    The search can end above ``vocab_size`` when no threshold gets under it, as in tensorflow_text.

    Example:
        >>> counts = {"low": 20, "lower": 12, "lowest": 11, "new": 15}
        >>> learn_vocabulary(counts, vocab_size=14, reserved_tokens=["[UNK]"], lower_thresh=1)
        ['[UNK]', 'e', 'l', 'n', 'o', 'r', 's', 't', 'w', 'low', '##e', '##l', '##n', '##o', '##r', '##s', '##t', '##w']
    """
    items = list(word_counts.items() if isinstance(word_counts, Mapping) else word_counts)
    if not items:
        raise ValueError("word_counts is empty")
    for i, (word, count) in enumerate(items):
        if not isinstance(word, str):
            raise wrong_type(f"word_counts: word {i}", "a str", word)
        if isinstance(count, bool) or not isinstance(count, int):
            raise wrong_type(f"word_counts: the count of {word!r}", "an int", count)
    reserved_tokens = list(reserved_tokens)
    counts = [count for _, count in items]
    upper = max(counts) if upper_thresh is None else min(max(counts), upper_thresh)
    lower = min(counts) if lower_thresh is None else max(min(counts), lower_thresh)

    reserved = set(reserved_tokens)
    candidates = [(w, c) for w, c in items if len(w) <= max_token_length and w not in reserved]
    allowed = _allowed_chars(candidates, max_unique_chars)
    limit = -1 if max_input_tokens is None else max_input_tokens
    words: list[tuple[str, int]] = []
    for word, count in sorted(candidates, key=lambda item: item[1], reverse=True):
        if limit != -1 and len(words) >= limit:
            break
        if all(c in allowed for c in word):
            words.append((word, count))

    learner = _ThresholdLearner(words, max_token_length, num_iterations, include_joiner_token, joiner, reserved_tokens)
    slack = max(slack_ratio * vocab_size, 0)
    while True:
        thresh = (upper + lower) // 2
        vocab = learner.vocabulary(thresh)
        size = len(vocab)
        if (size <= vocab_size and vocab_size - size <= slack) or lower >= upper or thresh <= 1:
            return vocab
        if size > vocab_size:
            lower = thresh + 1
        else:
            upper = thresh - 1


def _allowed_chars(word_counts, max_unique_chars):
    weight: dict[str, int] = {}
    for word, count in word_counts:
        for c in word:
            weight[c] = weight.get(c, 0) + count
    ranked = sorted(sorted(weight.items()), key=lambda item: item[1], reverse=True)
    return {c for c, _ in ranked[:max_unique_chars]}


class _ThresholdLearner:
    """The learning rounds for one word list, answering ``vocabulary(thresh)``."""

    def __init__(self, words, max_token_length, num_iterations, include_joiner_token, joiner, reserved_tokens):
        self.words = words
        self.max_token_length = max_token_length
        self.num_iterations = num_iterations
        self.joiner = joiner if include_joiner_token else None
        self.reserved_tokens = reserved_tokens
        self.chars = {c for word, _ in words for c in word}
        self._first = None
        # The native rounds key tokens by (joined, characters): exact unless a word contains the joiner.
        if joiner == "" or (include_joiner_token and any(joiner in word for word, _ in words)):
            self.native = None
        else:
            self.native = BottomUpLearner([w for w, _ in words], [c for _, c in words], self.joiner)

    def _first_round(self):
        """Round one starts a substring at every position: its discounted counts fit every threshold."""
        if self._first is None:
            self._first = self._discounted(self._count_substrings(None))
        return self._first

    def vocabulary(self, thresh):
        if self.native is not None:
            tokens = self.native.tokens(thresh, self.num_iterations)
        else:
            tokens = self._with_chars({})
            for iteration in range(self.num_iterations):
                table = self._first_round() if iteration == 0 else self._discounted(self._count_substrings(tokens))
                tokens = self._with_chars(
                    {t: c for by_token in reversed(table) for t, c in by_token.items() if c >= thresh}
                )
        ordered = sorted(sorted(tokens.items()), key=lambda item: item[1], reverse=True)
        vocab = list(dict.fromkeys(self.reserved_tokens + sorted(self.chars) + [t for t, _ in ordered]))
        return vocab

    def _with_chars(self, tokens):
        for c in self.chars:
            tokens.setdefault(c, 1)
            if self.joiner is not None:
                tokens.setdefault(self.joiner + c, 1)
        return tokens

    def _count_substrings(self, tokens):
        """``table[length][token] = count`` of substrings starting at wordpiece starts."""
        joiner = self.joiner
        table: list[dict[str, int]] = [{} for _ in range(self.max_token_length + 1)]
        for word, count in self.words:
            if tokens is None:
                starts = range(len(word))
            else:
                starts = _piece_starts(word, tokens, joiner)
                if starts is None:
                    continue
            n = len(word)
            for start in starts:
                for end in range(start + 1, n + 1):
                    length = end - start
                    token = word[start:end] if start == 0 or joiner is None else joiner + word[start:end]
                    by_token = table[length]
                    by_token[token] = by_token.get(token, 0) + count
        return table

    def _discounted(self, table):
        """Longest first, subtract each token's count from its shorter prefixes (whatever the threshold)."""
        joined = len(self.joiner) if self.joiner is not None else 0
        for length in range(len(table) - 1, 0, -1):
            for token, count in table[length].items():
                if len(token) > length:  # carries the joiner
                    for i in range(1 + joined, length + joined):
                        shorter = table[i - joined]
                        prefix = token[:i]
                        if prefix in shorter:
                            shorter[prefix] -= count
                else:
                    for i in range(1, length):
                        prefix = token[:i]
                        if prefix in table[i]:
                            table[i][prefix] -= count
        return table


def _piece_starts(word, tokens, joiner):
    """Where the greedy longest-match pieces of ``word`` start; None if it cannot be split."""
    starts, start, n = [], 0, len(word)
    while start < n:
        end = n
        while end > start:
            piece = word[start:end] if start == 0 or joiner is None else joiner + word[start:end]
            if piece in tokens:
                break
            end -= 1
        if end == start:
            return None
        starts.append(start)
        start = end
    return starts


class BottomUpWordPieceTrainer(Trainer):
    """Train a :class:`kvec.models.WordPiece` with the bottom-up learner.

    Takes the arguments of :func:`learn_vocabulary` (``reserved_tokens`` are also the special tokens)
    plus ``unk_token``.

    Example:
        >>> trainer = BottomUpWordPieceTrainer(vocab_size=14, reserved_tokens=["[UNK]"], lower_thresh=1)
        >>> trainer.train_from_counts({"low": 20, "lower": 12, "lowest": 11, "new": 15}).tokenize("slower")
        ['s', '##l', '##o', '##w', '##e', '##r']
    """

    trains = WordPiece  # the model class it trains: a pipeline with another kind of model refuses it

    def __init__(
        self,
        vocab_size: int,
        reserved_tokens: Iterable[str] = (),
        unk_token: str = "[UNK]",
        joiner: str = "##",
        **options: Any,
    ) -> None:
        self.vocab_size = vocab_size
        self.reserved_tokens = list(reserved_tokens)
        self.unk_token = unk_token
        self.joiner = joiner
        self.options = options

    # Trainer's attribute, read-only here: the reserved tokens are its one copy
    @property
    def special_tokens(self) -> list[str]:  # type: ignore[override]
        return self.reserved_tokens

    def train_from_counts(
        self, word_counts: Mapping[str, int] | Iterable[tuple[str, int]], n_jobs: int = 1
    ) -> WordPiece:
        vocab = learn_vocabulary(word_counts, self.vocab_size, self.reserved_tokens, joiner=self.joiner, **self.options)
        return WordPiece(
            {t: i for i, t in enumerate(vocab)}, unk_token=self.unk_token, continuing_subword_prefix=self.joiner
        )
