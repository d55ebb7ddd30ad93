"""WordPiece training: a vocabulary for :class:`kvec.models.WordPiece`.

Words start as their first character followed by ``##``-prefixed characters, and adjacent symbols are
merged until the vocabulary reaches ``vocab_size``. Two ways to choose the next merge:

- ``scoring="frequency"`` (default): the most frequent pair, which is what Hugging Face ``tokenizers``'
  ``WordPieceTrainer`` does (its BPE trainer with ``continuing_subword_prefix="##"``, keeping the
  vocabulary and dropping the merges).
- ``scoring="likelihood"``: the pair with the highest ``freq(ab) / (freq(a) * freq(b))``, the score of
  the original WordPiece paper as the design articles present it, ties to the first pair in corpus
  order. Pair and symbol counts are updated incrementally after every merge. This reproduces the
  articles' worked vocabularies.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kvec.added_vocabulary import AddedToken
from kvec.common.progress import progress_bar
from kvec.contracts import Trainer
from kvec.models.wordpiece import WordPiece
from kvec.trainers.bpe import (
    BpeTrainer,
    _count_pairs,
    _Word,
    first_in_corpus,
    merge_everywhere,
    new_vocabulary,
    word_count_items,
)
from kvec.trainers.options import from_state, to_state

SCORINGS = ("frequency", "likelihood")


def _bpe_option(name):
    """An attribute kept by the inner BpeTrainer (Hugging Face's WordPieceTrainer is one, too)."""

    def get(self):
        return getattr(self._bpe, name)

    def set(self, value):
        setattr(self._bpe, name, value)

    return property(get, set, doc=f"The ``{name}`` option (settable).")


class WordPieceTrainer(Trainer):
    """Learn a WordPiece vocabulary from word counts.

    Args:
        vocab_size: the target size, special tokens included.
        min_frequency: pairs seen fewer times are never merged.
        special_tokens: tokens that take the first ids (str or :class:`kvec.AddedToken`, kept as
            AddedToken made special, as in :class:`kvec.trainers.BpeTrainer`).
        limit_alphabet, initial_alphabet, end_of_word_suffix: as in :class:`kvec.trainers.BpeTrainer`
            (``frequency`` only; the suffixed tokens are in the vocabulary, as Hugging Face trains it).
        continuing_subword_prefix: the mark of non-initial pieces.
        scoring: ``"frequency"`` or ``"likelihood"`` (see the module docstring).
        unk_token: the unknown token of the resulting model.
        show_progress: show a progress bar of the merges (on by default, as in Hugging Face).

    Every Hugging Face option is also a settable attribute; pickling gives the JSON bytes of its
    ``WordPieceTrainer.__getstate__``.

    Example:
        >>> trainer = WordPieceTrainer(vocab_size=9, scoring="likelihood")
        >>> model = trainer.train_from_counts({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5})
        >>> list(model.vocab)
        ['##g', '##n', '##s', '##u', 'b', 'h', 'p', '##gs', 'hu']
    """

    trains = WordPiece  # the model class it trains: a pipeline with another kind of model refuses it

    def __init__(
        self,
        vocab_size: int = 30000,
        min_frequency: int = 0,
        special_tokens: Iterable[str | AddedToken] = (),
        limit_alphabet: int | None = None,
        initial_alphabet: Iterable[str] = (),
        continuing_subword_prefix: str = "##",
        scoring: str = "frequency",
        unk_token: str = "[UNK]",
        show_progress: bool = True,
        end_of_word_suffix: str | None = None,
    ) -> None:
        if scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {SCORINGS}, got {scoring!r}")
        if continuing_subword_prefix is not None and not isinstance(continuing_subword_prefix, str):
            raise TypeError(
                f"continuing_subword_prefix must be a str or None, got {type(continuing_subword_prefix).__name__}"
            )
        self._bpe = BpeTrainer(
            vocab_size=vocab_size,
            min_frequency=min_frequency,
            special_tokens=special_tokens,
            limit_alphabet=limit_alphabet,
            initial_alphabet=initial_alphabet,
            continuing_subword_prefix=continuing_subword_prefix,
            end_of_word_suffix=end_of_word_suffix,
            show_progress=show_progress,
        )
        self.scoring = scoring
        self.unk_token = unk_token
        self._check_likelihood()

    vocab_size = _bpe_option("vocab_size")
    min_frequency = _bpe_option("min_frequency")
    special_tokens = _bpe_option("special_tokens")
    limit_alphabet = _bpe_option("limit_alphabet")
    initial_alphabet = _bpe_option("initial_alphabet")
    continuing_subword_prefix = _bpe_option("continuing_subword_prefix")
    end_of_word_suffix = _bpe_option("end_of_word_suffix")
    show_progress = _bpe_option("show_progress")

    def _check_likelihood(self):
        bpe = self._bpe
        if self.scoring != "likelihood":
            return
        if bpe.limit_alphabet is not None or bpe.initial_alphabet or bpe.end_of_word_suffix is not None:
            raise ValueError(
                "limit_alphabet, initial_alphabet and end_of_word_suffix apply to scoring='frequency' only"
            )
        if not bpe.continuing_subword_prefix:
            raise ValueError("scoring='likelihood' needs a non-empty continuing_subword_prefix")

    def __getstate__(self) -> bytes:
        """The trainer as the JSON bytes of Hugging Face's ``WordPieceTrainer.__getstate__`` (kvec's own
        options follow where they differ from their defaults)."""
        fields: dict[str, Any] = {"bpe_trainer": self._bpe._state_fields()}
        if self.scoring != "frequency":
            fields["scoring"] = self.scoring
        if self.unk_token != "[UNK]":
            fields["unk_token"] = self.unk_token
        return to_state("WordPieceTrainer", fields)

    def __setstate__(self, state: bytes) -> None:
        fields = from_state("WordPieceTrainer", state)
        bpe = BpeTrainer.__new__(BpeTrainer)
        bpe.__setstate__(to_state("BpeTrainer", fields.pop("bpe_trainer")))
        self.__init__(  # type: ignore[misc]
            vocab_size=bpe.vocab_size,
            min_frequency=bpe.min_frequency,
            special_tokens=bpe._special_tokens,
            limit_alphabet=bpe.limit_alphabet,
            initial_alphabet=bpe.initial_alphabet,
            continuing_subword_prefix=bpe.continuing_subword_prefix,
            end_of_word_suffix=bpe.end_of_word_suffix,
            show_progress=bpe.show_progress,
            **fields,
        )

    def train_from_counts(
        self, word_counts: Mapping[str, int] | Iterable[tuple[str, int]], n_jobs: int = 1
    ) -> WordPiece:
        """Train on a ``{word: count}`` mapping (or ``(word, count)`` pairs), words in corpus order.

        As in Hugging Face, the vocabulary is the one :class:`BpeTrainer` learns with these options
        (``end_of_word_suffix`` included: the suffixed tokens are in it), and the model's continuing
        prefix is ``continuing_subword_prefix`` (``"##"`` when that is None)."""
        self._check_likelihood()
        if self.scoring == "frequency":
            vocab = self._bpe.train_from_counts(word_counts).vocab
        else:
            vocab = self._likelihood(word_count_items(word_counts))
        prefix = self._bpe.continuing_subword_prefix
        return WordPiece(vocab, unk_token=self.unk_token, continuing_subword_prefix="##" if prefix is None else prefix)

    def _likelihood(self, items):
        bpe = self._bpe
        prefix = bpe.continuing_subword_prefix
        vocab, tokens, add = new_vocabulary(t.content for t in bpe._special_tokens)
        alphabet: dict[str, None] = {}
        for word, _ in items:
            if word:
                alphabet[word[0]] = None
                alphabet.update(dict.fromkeys(prefix + c for c in word[1:]))
        for token in sorted(alphabet):
            add(token)
        words = [_Word([vocab[w[0]]] + [vocab[prefix + c] for c in w[1:]]) for w, _ in items if w]
        counts = [count for w, count in items if w]

        pair_counts, where = _count_pairs(words, counts)
        symbol_counts: dict[int, int] = {}
        for word, count in zip(words, counts):
            for symbol in word.ids:
                symbol_counts[symbol] = symbol_counts.get(symbol, 0) + count

        bar = progress_bar(bpe.show_progress, total=bpe.vocab_size, initial=len(vocab), desc="WordPiece merges")
        while len(vocab) < bpe.vocab_size:
            scores = {
                pair: freq / (symbol_counts[pair[0]] * symbol_counts[pair[1]])
                for pair, freq in pair_counts.items()
                if freq > 0 and freq >= bpe.min_frequency
            }
            if not scores:
                break
            top = max(scores.values())
            a, b = first_in_corpus(words, {pair for pair, score in scores.items() if score == top})
            new = add(bpe._new_token(tokens, a, b))
            _, merged = merge_everywhere(words, counts, where, pair_counts, a, b, new, float("inf"))
            symbol_counts[a] -= merged
            symbol_counts[b] -= merged
            symbol_counts[new] = symbol_counts.get(new, 0) + merged
            del pair_counts[(a, b)]
            bar.update(len(vocab) - bar.n)
        bar.close()
        return vocab
