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

from kvec.contracts import Trainer
from kvec.models.wordpiece import WordPiece
from kvec.progress import progress_bar
from kvec.trainers.bpe import (
    BpeTrainer,
    _count_pairs,
    _Word,
    first_in_corpus,
    merge_everywhere,
    new_vocabulary,
    word_count_items,
)

SCORINGS = ("frequency", "likelihood")


class WordPieceTrainer(Trainer):
    """Learn a WordPiece vocabulary from word counts.

    Args:
        vocab_size: the target size, special tokens included.
        min_frequency: pairs seen fewer times are never merged.
        special_tokens: tokens that take the first ids.
        limit_alphabet, initial_alphabet: as in :class:`kvec.trainers.BpeTrainer` (``frequency`` only).
        continuing_subword_prefix: the mark of non-initial pieces.
        scoring: ``"frequency"`` or ``"likelihood"`` (see the module docstring).
        unk_token: the unknown token of the resulting model.
        show_progress: show a progress bar of the merges.

    Example:
        >>> trainer = WordPieceTrainer(vocab_size=9, scoring="likelihood")
        >>> model = trainer.train_from_counts({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5})
        >>> list(model.vocab)
        ['##g', '##n', '##s', '##u', 'b', 'h', 'p', '##gs', 'hu']
    """

    def __init__(
        self,
        vocab_size=30000,
        min_frequency=0,
        special_tokens=(),
        limit_alphabet=None,
        initial_alphabet=(),
        continuing_subword_prefix="##",
        scoring="frequency",
        unk_token="[UNK]",
        show_progress=False,
    ):
        if scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {SCORINGS}, got {scoring!r}")
        if not isinstance(continuing_subword_prefix, str) or not continuing_subword_prefix:
            raise ValueError("continuing_subword_prefix must be a non-empty str")
        if scoring == "likelihood" and (limit_alphabet is not None or initial_alphabet):
            raise ValueError("limit_alphabet and initial_alphabet apply to scoring='frequency' only")
        self._bpe = BpeTrainer(
            vocab_size=vocab_size,
            min_frequency=min_frequency,
            special_tokens=special_tokens,
            limit_alphabet=limit_alphabet,
            initial_alphabet=initial_alphabet,
            continuing_subword_prefix=continuing_subword_prefix,
            show_progress=show_progress,
        )
        self.scoring = scoring
        self.unk_token = unk_token

    @property
    def special_tokens(self):
        return self._bpe.special_tokens

    def train_from_counts(
        self, word_counts: Mapping[str, int] | Iterable[tuple[str, int]], n_jobs: int = 1
    ) -> WordPiece:
        """Train on a ``{word: count}`` mapping (or ``(word, count)`` pairs), words in corpus order."""
        if self.scoring == "frequency":
            vocab = self._bpe.train_from_counts(word_counts).vocab
        else:
            vocab = self._likelihood(word_count_items(word_counts))
        return WordPiece(vocab, unk_token=self.unk_token, continuing_subword_prefix=self._bpe.continuing_subword_prefix)

    def _likelihood(self, items):
        bpe = self._bpe
        prefix = bpe.continuing_subword_prefix
        vocab, tokens, add = new_vocabulary(bpe.special_tokens)
        alphabet = {}
        for word, _ in items:
            if word:
                alphabet[word[0]] = None
                alphabet.update(dict.fromkeys(prefix + c for c in word[1:]))
        for token in sorted(alphabet):
            add(token)
        words = [_Word([vocab[w[0]]] + [vocab[prefix + c] for c in w[1:]]) for w, _ in items if w]
        counts = [count for w, count in items if w]

        pair_counts, where = _count_pairs(words, counts)
        symbol_counts = {}
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
