"""WordLevel training: the vocabulary of :class:`kvec.models.WordLevel` is the most frequent words.

The special tokens come first, then the words seen at least ``min_frequency`` times by decreasing
count, words of equal count in code point order (as Hugging Face ``tokenizers``' ``WordLevelTrainer``),
until ``vocab_size`` tokens.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kvec.added_vocabulary import AddedToken
from kvec.common.arguments import must_be
from kvec.common.progress import progress_bar
from kvec.contracts import Trainer
from kvec.models.wordlevel import WordLevel
from kvec.trainers.bpe import word_count_items
from kvec.trainers.options import (
    from_state,
    special_tokens_option,
    to_state,
    token_state,
)

__all__ = ["WordLevelTrainer"]


class WordLevelTrainer(Trainer):
    """Learn a WordLevel vocabulary from word counts.

    Args:
        vocab_size: the most tokens, special tokens included.
        min_frequency: words seen fewer times are left out.
        show_progress: show a progress bar while the words are ranked (on by default, as in Hugging Face).
        special_tokens: tokens that take the first ids (str or :class:`kvec.AddedToken`, kept as
            AddedToken made special).
        unk_token: the unknown token of the resulting model (kvec's: a trained model is a new one).

    Example:
        >>> model = WordLevelTrainer(special_tokens=["<unk>"]).train_from_counts({"b": 2, "c": 1, "a": 2})
        >>> model.vocab
        {'<unk>': 0, 'a': 1, 'b': 2, 'c': 3}
    """

    trains = WordLevel  # the model class it trains: a pipeline with another kind of model refuses it

    def __init__(
        self,
        vocab_size: int = 30000,
        min_frequency: int = 0,
        show_progress: bool = True,
        special_tokens: Iterable[str | AddedToken] = (),
        unk_token: str = "<unk>",
    ) -> None:
        for name, value in (("vocab_size", vocab_size), ("min_frequency", min_frequency)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise must_be(name, "a non-negative int", value)
        self.vocab_size = vocab_size
        self.min_frequency = min_frequency
        self.show_progress = show_progress
        self.special_tokens = special_tokens
        self.unk_token = unk_token

    _special_tokens: list[AddedToken]  # stored by the properties below
    special_tokens = special_tokens_option(
        """The special tokens, as :class:`kvec.AddedToken` made special (settable)."""
    )

    def __getstate__(self) -> bytes:
        """The trainer as the JSON bytes of Hugging Face's ``WordLevelTrainer.__getstate__`` (then
        ``unk_token`` where it is not ``"<unk>"``)."""
        fields = {
            "min_frequency": self.min_frequency,
            "vocab_size": self.vocab_size,
            "show_progress": self.show_progress,
            "special_tokens": [token_state(t) for t in self._special_tokens],
            "words": {},
        }
        if self.unk_token != "<unk>":
            fields["unk_token"] = self.unk_token
        return to_state("WordLevelTrainer", fields)

    def __setstate__(self, state: bytes) -> None:
        self.__init__(**from_state("WordLevelTrainer", state))  # type: ignore[misc]

    def train_from_counts(
        self, word_counts: Mapping[str, int] | Iterable[tuple[str, int]], n_jobs: int = 1
    ) -> WordLevel:
        """A model of the special tokens and the most frequent words of ``{word: count}``."""
        counts: dict[str, int] = {}
        for word, count in word_count_items(word_counts):
            counts[word] = counts.get(word, 0) + count
        bar = progress_bar(self.show_progress, total=len(counts), desc="WordLevel words")
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        bar.update(len(counts))
        bar.close()
        words = [word for word, count in ranked if count >= self.min_frequency]
        vocab: dict[str, int] = {}
        specials = [t.content for t in self._special_tokens]
        for token_id, token in enumerate([*specials, *words][: self.vocab_size]):
            vocab[token] = token_id  # a word that is also a special token takes its later id, as in HF
        return WordLevel(vocab, unk_token=self.unk_token)
