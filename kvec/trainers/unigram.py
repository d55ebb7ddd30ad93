"""Train a Unigram model as Hugging Face's ``UnigramTrainer`` does (``algorithm="huggingface"``, the
default) or as sentencepiece does (``algorithm="sentencepiece"``); both follow Kudo (2018).

The sentencepiece algorithm:

1. Seeds: every character, then the substrings that label inner nodes of the generalized suffix tree
   of the distinct words (each word counted once, not weighted by its count; sentencepiece finds them
   in its lines): every substring found at two places or more that are followed by different
   characters or that end their words, and every other word (so that a corpus of words found once
   still gives pieces), scored by frequency times length; the best ``seed_size`` of
   them (on ties the lesser substring first), as log probabilities. A seed never mixes Unicode scripts
   (Hiragana and Katakana count as Han), mixes digits with letters, or puts ``▁`` anywhere but first.
2. EM: expected counts of every piece by forward-backward over each word's lattice, weighted by the
   word's count; pieces expected less than 0.5 times go, and the rest score
   ``digamma(count) - digamma(total)``. ``n_sub_iterations`` rounds per step.
3. Pruning: each piece whose removal would lose the least likelihood (its count moved to its best
   split into other pieces) goes, keeping ``shrinking_factor`` of the vocabulary, until it is within
   10% of ``vocab_size``.
4. The final vocabulary: special tokens (and the 256 byte tokens of ``byte_fallback``), the characters
   of ``character_coverage`` and ``initial_alphabet``, then the best pieces, exactly ``vocab_size`` in
   all (fewer when the corpus has fewer pieces, as in Hugging Face).

Hugging Face's algorithm differs in these steps:

1. Seeds: the characters by count (then character) descending, then the substrings that label inner
   nodes of the suffix tree of the distinct words joined by NULs (as above, but a word's end is one
   character, so a substring always followed by it is no node), best first and on ties the greater
   substring first; no script or ``▁`` rule and no ``character_coverage``.
2. EM: the same, with Hugging Face's digamma; best paths in float64.
3. Pruning: a piece better split into others goes only when on no best path; the unknown character
   counts as a piece; the alternatives' sum grows by the piece's count times the number of pieces (as
   Hugging Face computes it); the pieces kept whatever come first, then the candidates by loss, and
   when those kept already pass the target every candidate stays.
4. The final vocabulary: the special tokens, every character of the corpus and of ``initial_alphabet``,
   then the pieces in the model's order until ``vocab_size`` (all of them when the characters already
   fill it, so the vocabulary can pass ``vocab_size``, as in Hugging Face), sorted by score. Where
   Hugging Face's order is that of a hash set (characters of equal score, the small penalties of
   characters the model lost), kvec's is the characters' order above.

The counting and the lattices run natively; training is deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np
import regex

from kvec._unigram import Lattice, release_free_memory
from kvec.added_vocabulary import AddedToken
from kvec.common.progress import progress_bar
from kvec.contracts import Trainer
from kvec.files.json_numbers import serde_readable
from kvec.models.unigram import Unigram
from kvec.trainers.options import (
    from_state,
    initial_alphabet_option,
    special_tokens_option,
    to_state,
    token_state,
)

__all__ = ["UnigramTrainer"]

WHITESPACE = "▁"
EXPECTED_COUNT_THRESHOLD = 0.5
MISSING_CHAR_PENALTY = 0.0001
ALGORITHMS = ("huggingface", "sentencepiece")
SEEDS_INNER_NODES, SEEDS_REPEATS = 0, 1  # the seed rules of Lattice.seed (csrc/python/unigram/unigram.h)

# scripts that keep apart in one piece; a character of none of them goes with any
_SCRIPTS = [
    "Latin",
    "Han",
    "Cyrillic",
    "Greek",
    "Arabic",
    "Hebrew",
    "Hangul",
    "Thai",
    "Devanagari",
    "Armenian",
    "Georgian",
    "Bengali",
    "Tamil",
    "Ethiopic",
    "Khmer",
    "Lao",
    "Myanmar",
    "Tibetan",
]
_SCRIPT_PATTERN = regex.compile(
    "|".join(f"(\\p{{Script={s}}})" for s in _SCRIPTS) + r"|([\p{Hiragana}\p{Katakana}ー])|(\p{Nd})"
)


def _script_class(char):
    """1.. for the scripts above (Hiragana/Katakana with Han), one class for digits, 0 for the rest."""
    match = _SCRIPT_PATTERN.match(char)
    if match is None:
        return 0
    group = match.lastindex
    if group == len(_SCRIPTS) + 1:
        return _SCRIPTS.index("Han") + 1
    return group


class UnigramTrainer(Trainer):
    """Learns a :class:`kvec.models.Unigram` from word counts.

    Args:
        vocab_size: the size of the final vocabulary, special tokens included.
        special_tokens: tokens placed first in the vocabulary (score 0); str or :class:`kvec.AddedToken`,
            kept as AddedToken made special and registered with the tokenizer after training.
        unk_token: the unknown token; the vocabulary starts with it when it is not a special token
            (the ``special_tokens`` attribute stays as given, as in Hugging Face).
        character_coverage: the share of character occurrences the alphabet must cover; rarer
            characters become unknown.
        max_piece_length: the longest piece, in characters.
        seed_size: how many substrings seed the vocabulary.
        shrinking_factor: the share of pieces each pruning step keeps.
        n_sub_iterations: EM rounds between pruning steps.
        split_by_unicode_script: pieces never mix scripts (or digits with letters).
        byte_fallback: add the 256 tokens ``<0x00>``..``<0xFF>`` after the special tokens, and make
            the model spell unknown characters with them.
        show_progress: tqdm progress bars, when tqdm is installed (on by default, as in Hugging Face).
        initial_alphabet: characters always in the vocabulary, even if absent from the corpus or
            rarer than ``character_coverage`` keeps.
        algorithm: ``"huggingface"`` (the default: Hugging Face's training, the same vocabulary as its
            ``UnigramTrainer``) or ``"sentencepiece"`` (sentencepiece's, with ``character_coverage``,
            ``split_by_unicode_script`` and exactly ``vocab_size`` tokens). ``character_coverage`` below 1
            needs ``"sentencepiece"``; ``split_by_unicode_script`` applies to it only.

    A corpus that cannot give ``vocab_size`` pieces gives a smaller vocabulary, as in Hugging Face.
    Every option is also an attribute; pickling gives the JSON bytes of Hugging Face's
    ``UnigramTrainer.__getstate__``.

    Example:
        >>> trainer = UnigramTrainer(vocab_size=12, special_tokens=["<unk>"])
        >>> model = trainer.train_from_counts({"▁low": 8, "▁lower": 5, "▁lowest": 4, "▁newer": 3})
        >>> model.tokenize("▁lowest")
        ['▁lowe', 's', 't']
    """

    trains = Unigram  # the model class it trains: a pipeline with another kind of model refuses it

    def __init__(
        self,
        vocab_size: int = 8000,
        special_tokens: Iterable[str | AddedToken] = (),
        unk_token: str | None = "<unk>",
        character_coverage: float = 1.0,
        max_piece_length: int = 16,
        seed_size: int = 1_000_000,
        shrinking_factor: float = 0.75,
        n_sub_iterations: int = 2,
        split_by_unicode_script: bool = True,
        byte_fallback: bool = False,
        show_progress: bool = True,
        initial_alphabet: Iterable[str] = (),
        algorithm: str = "huggingface",
    ) -> None:
        for name, value, minimum in (
            ("vocab_size", vocab_size, 1),
            ("max_piece_length", max_piece_length, 1),
            ("seed_size", seed_size, 1),
            ("n_sub_iterations", n_sub_iterations, 1),
        ):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int, got {type(value).__name__}")
            if value < minimum:
                raise ValueError(f"{name} must be >= {minimum}, got {value}")
        for name, number in (("character_coverage", character_coverage), ("shrinking_factor", shrinking_factor)):
            if isinstance(number, bool) or not isinstance(number, (int, float)):
                raise TypeError(f"{name} must be a number, got {type(number).__name__}")
        if not 0.0 < character_coverage <= 1.0:
            raise ValueError(f"character_coverage must be in (0, 1], got {character_coverage}")
        if character_coverage != 1.0 and algorithm == "huggingface":
            raise ValueError("character_coverage is an option of algorithm='sentencepiece', not of 'huggingface'")
        if not 0.0 < shrinking_factor < 1.0:
            raise ValueError(f"shrinking_factor must be in (0, 1), got {shrinking_factor}")
        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {', '.join(map(repr, ALGORITHMS))}, got {algorithm!r}")
        if unk_token is not None and (not isinstance(unk_token, str) or not unk_token):
            raise TypeError(f"unk_token must be a non-empty str or None, got {unk_token!r}")
        self.special_tokens = special_tokens
        self.initial_alphabet = initial_alphabet
        self.vocab_size = vocab_size
        self.unk_token = unk_token
        self.character_coverage = character_coverage
        self.max_piece_length = max_piece_length
        self.seed_size = seed_size
        self.shrinking_factor = shrinking_factor
        self.n_sub_iterations = n_sub_iterations
        self.split_by_unicode_script = split_by_unicode_script
        self.byte_fallback = byte_fallback
        self.show_progress = show_progress
        self.algorithm = algorithm

    _special_tokens: list[AddedToken]  # stored by the properties below
    _initial_alphabet: list[str]
    special_tokens = special_tokens_option(
        """The special tokens as given, as :class:`kvec.AddedToken` made special (settable). Training
        puts ``unk_token`` before them when it is not among them, as Hugging Face does, but only these
        are registered with the tokenizer."""
    )
    initial_alphabet = initial_alphabet_option(
        """Characters always in the vocabulary, even if absent from the corpus (settable)."""
    )

    def _specials(self) -> list[str]:
        """The special tokens that lead the vocabulary: ``unk_token`` first when missing from them."""
        specials = [t.content for t in self._special_tokens]
        if self.unk_token is not None and self.unk_token not in specials:
            specials.insert(0, self.unk_token)
        return specials

    def __getstate__(self) -> bytes:
        """The trainer as the JSON bytes of Hugging Face's ``UnigramTrainer.__getstate__`` (kvec's own
        options follow where they differ from their defaults)."""
        fields = {
            "show_progress": self.show_progress,
            "vocab_size": self.vocab_size,
            "n_sub_iterations": self.n_sub_iterations,
            "shrinking_factor": self.shrinking_factor,
            "special_tokens": [token_state(t) for t in self._special_tokens],
            "initial_alphabet": list(self._initial_alphabet),
            "unk_token": self.unk_token,
            "max_piece_length": self.max_piece_length,
            "seed_size": self.seed_size,
            "words": {},
        }
        for name, default in (
            ("character_coverage", 1.0),
            ("split_by_unicode_script", True),
            ("byte_fallback", False),
            ("algorithm", "huggingface"),
        ):
            if getattr(self, name) != default:
                fields[name] = getattr(self, name)
        return to_state("UnigramTrainer", fields)

    def __setstate__(self, state: bytes) -> None:
        self.__init__(**from_state("UnigramTrainer", state))  # type: ignore[misc]

    def train_from_counts(self, word_counts: Mapping[str, int] | Iterable[tuple[str, int]], n_jobs: int = 1) -> Unigram:
        """Train on ``{word: count}`` (or ``(word, count)`` pairs) and return the model; the lattices
        run in ``n_jobs`` threads, with the same result for every ``n_jobs``."""
        # two lists, not a list of pairs: the words of a large corpus take less room so
        words: list[str] = []
        counts: list[int] = []
        pairs = word_counts.items() if hasattr(word_counts, "items") else word_counts
        for i, (word, count) in enumerate(pairs):
            if not isinstance(word, str):
                raise TypeError(f"word_counts: word {i} must be a str, got {type(word).__name__}")
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise TypeError(f"word_counts: the count of {word!r} must be a non-negative int, got {count!r}")
            if word and count > 0:
                words.append(word)
                counts.append(count)
        # the lattice holds the words from here: the lists go, and the caller's counts with them where the
        # caller handed them over (a pipeline's training does), their memory back to the system before
        # the peak of training, the seeds
        lattice = Lattice(words, counts)
        total = float(sum(counts))
        del word_counts, pairs, words, counts
        release_free_memory()
        weight = _char_weights(lattice)
        if self.algorithm == "huggingface":
            return self._train_hugging_face(lattice, weight, total, n_jobs)
        required = self._required_chars(weight)
        fixed = self._fixed_tokens()
        if len(fixed) + len(required) > self.vocab_size:
            special = len(self._specials())
            parts = [f"{special} special token{'s' if special != 1 else ''}"]
            if self.byte_fallback:
                parts.append("256 byte tokens")
            raise ValueError(
                f"vocab_size {self.vocab_size} is too small: it needs {len(fixed) + len(required)} tokens for "
                f"{' and '.join(parts)} and the {len(required)} characters that cover "
                f"character_coverage={self.character_coverage} of the text (lower character_coverage or "
                "raise vocab_size)"
            )
        classes = self._classes(weight, required)
        seeded = [(c, n) for c, n in required if n > 0]  # an initial-alphabet character absent: finalize only
        lattice.seed(
            [c for c, _ in seeded],
            [n for _, n in seeded],
            self.max_piece_length,
            classes,
            ord(WHITESPACE),
            self.seed_size,
            SEEDS_REPEATS,
            n_jobs,
        )
        desired = int(self.vocab_size * 1.1)
        bar = progress_bar(self.show_progress, desc="Unigram EM and pruning steps")
        while True:
            for _ in range(self.n_sub_iterations):
                scores = self._em_step(lattice, n_jobs)
            bar.update()
            if len(scores) <= desired:
                break
            scores = self._prune(lattice, scores, total, desired, n_jobs)
        bar.close()
        return self._finalize(lattice.pieces(), scores, required)

    def _train_hugging_face(self, lattice, weight, total, n_jobs):
        """Hugging Face's training (``algorithm="huggingface"``): see the class docstring."""
        chars = sorted(weight.items(), key=lambda item: (item[1], item[0]), reverse=True)
        required = [c for c, _ in chars] + [c for c in self._initial_alphabet if c not in weight]
        if len(required) > self.vocab_size:
            raise ValueError(
                f"vocab_size {self.vocab_size} is too small: the corpus and initial_alphabet have "
                f"{len(required)} characters"
            )
        lattice.configure(0.0, -1, b"", 1)  # the best paths by Hugging Face's float64 sums
        seed_size = max(self.seed_size, len(chars) + 1)  # Hugging Face stops once seed_size is reached
        lattice.seed(
            [c for c, _ in chars],
            [n for _, n in chars],
            self.max_piece_length,
            {},
            -1,
            seed_size,
            SEEDS_INNER_NODES,
            n_jobs,
        )
        desired = self.vocab_size * 11 // 10
        bar = progress_bar(self.show_progress, desc="Unigram EM and pruning steps")
        while True:
            for _ in range(self.n_sub_iterations):
                scores = self._em_step(lattice, n_jobs, _hf_digamma)
            bar.update()
            if len(scores) + 1 <= desired:  # Hugging Face counts its training <UNK> piece
                break
            scores = self._prune_hugging_face(lattice, scores, total, desired, n_jobs)
        bar.close()
        return self._finalize_hugging_face(lattice.pieces(), scores, required)

    def _prune_hugging_face(self, lattice, scores, total, desired, n_jobs):
        """Hugging Face's pruning: as :meth:`_prune`, but a piece with a better split goes only when on no
        best path, the unknown character counts as a piece, the alternatives' sum grows by the piece's
        count times the number of pieces, and the kept pieces come first, then the candidates by loss."""
        alt_scores, alt_ids, alt_lengths = (
            np.frombuffer(b, dtype=t) for b, t in zip(lattice.alternatives(n_jobs), (np.float64, np.int32, np.int32))
        )
        counts = np.frombuffer(lattice.viterbi_counts(n_jobs, True))
        freq, unknown = counts[:-1], counts[-1]
        n_pieces = len(scores) + 1  # with <UNK>
        freq_sum = float(np.cumsum(np.concatenate(([unknown], freq)))[-1]) if len(freq) else float(unknown)
        single = np.isnan(alt_scores)
        own_best = ~single & ~(alt_scores > scores)  # the piece is its own best split: it has an alternative
        kept = np.flatnonzero(~own_best & ((freq > 0) | single))
        candidates = np.flatnonzero(own_best & (freq > 0))
        lengths = alt_lengths[candidates]
        starts = _exclusive_cumsum(alt_lengths)[candidates]
        boundaries = _exclusive_cumsum(lengths)
        pieces = alt_ids[np.repeat(starts - boundaries, lengths) + np.arange(lengths.sum())]
        own = freq[candidates]
        alt_freq = np.where(pieces >= 0, freq[np.maximum(pieces, 0)], unknown) + np.repeat(own, lengths)
        log_sum_alt = np.log(freq_sum + own * (n_pieces - 1))
        log_prob_alt = (
            np.add.reduceat(np.log(alt_freq) - np.repeat(log_sum_alt, lengths), boundaries)
            if len(candidates)
            else np.zeros(0)
        )
        loss = own / total * ((np.log(own) - math.log(freq_sum)) - log_prob_alt)
        size = max(desired, int(n_pieces * self.shrinking_factor))
        room = size - 1 - len(kept)  # Hugging Face stops at exactly `size`: past it, every candidate stays
        chosen = candidates[np.argsort(-loss, kind="stable")]
        if room >= 0:
            chosen = chosen[:room]
        keep = np.concatenate((kept, chosen)).astype(np.int64)
        lattice.retain(keep.tobytes(), scores[keep].tobytes())
        return scores[keep]

    def _finalize_hugging_face(self, pieces, scores, required):
        """Hugging Face's final vocabulary: the characters, then the pieces in the model's order until
        vocab_size (all of them when the characters fill it), sorted by score (stable)."""
        score_of = dict(zip(pieces, scores.tolist()))
        # Hugging Face starts from +inf when no piece has a score (an empty corpus): a model needs finite
        # scores (sampling subtracts them, tokenizer.json cannot hold inf), so 0.0 stands in for it
        lowest = min(score_of.values()) if score_of else 0.0
        final, inserted, penalty = [], {"<UNK>"}, 0.0  # Hugging Face's training unknown piece stays out
        for char in required:
            if char in score_of:
                final.append((char, score_of[char]))
            else:
                final.append((char, lowest + penalty))
                penalty += MISSING_CHAR_PENALTY
            inserted.add(char)
        fixed = self._fixed_tokens()
        room = self.vocab_size - len(fixed)
        for piece in pieces:
            if piece in inserted:
                continue
            inserted.add(piece)
            final.append((piece, score_of[piece]))
            if len(final) == room:
                break
        # scores tokenizers reads back exactly from a tokenizer.json, so that the model means the same saved
        final = [(piece, serde_readable(score)) for piece, score in final]
        final.sort(key=lambda item: -item[1])
        vocab = [(token, 0.0) for token in fixed] + final
        unk_id = fixed.index(self.unk_token) if self.unk_token is not None else None
        return Unigram(vocab, unk_id=unk_id, byte_fallback=self.byte_fallback)

    def _fixed_tokens(self):
        """The tokens placed first: the special tokens, then the byte tokens of byte_fallback."""
        return self._specials() + ([f"<0x{b:02X}>" for b in range(256)] if self.byte_fallback else [])

    def _required_chars(self, weight):
        """The most frequent characters covering ``character_coverage`` of all occurrences (``weight``,
        as :func:`_char_weights` gives them), as ``[(char, count)]`` by count then character."""
        ranked = sorted(weight.items(), key=lambda item: (-item[1], item[0]))
        total, covered = sum(weight.values()), 0
        required: list[tuple[str, int]] = []
        for char, count in ranked:
            if required and covered / total >= self.character_coverage:
                break
            required.append((char, count))
            covered += count
        # the initial alphabet is always in: its characters of the corpus with their counts (they
        # seed as the others), then those absent from it, in code point order
        kept = {c for c, _ in required}
        required += [(c, weight[c]) for c in self._initial_alphabet if c in weight and c not in kept]
        required += [(c, 0) for c in sorted(self._initial_alphabet) if c not in weight]
        return required

    def _classes(self, weight, required):
        """``{code point: class}`` of the corpus's characters (the keys of ``weight``) for the seed
        search: -1 keeps a rare character out of every seed."""
        allowed = {c for c, _ in required}
        classes = {}
        for char in weight:
            if char not in allowed:
                classes[ord(char)] = -1
            elif self.split_by_unicode_script:
                cls = _script_class(char)
                if cls:
                    classes[ord(char)] = cls
        return classes

    @staticmethod
    def _em_step(lattice, n_jobs, digamma=None):
        """Expected counts, then the pieces expected at least 0.5 times, scored by digamma."""
        expected = np.frombuffer(lattice.expected_counts(n_jobs))
        keep = np.flatnonzero(expected >= EXPECTED_COUNT_THRESHOLD)
        # the pieces that go (and the trie of the million seeds) go before any other array is made, so
        # that the two never take memory at once: that was the peak of training
        lattice.retain(keep.astype(np.int64, copy=False))  # read in place, not copied
        kept = expected[keep]
        del expected, keep  # one float per piece: the first step has the million seeds
        # no piece left (an empty corpus): no scores, and no digamma of 0
        if digamma is None:
            scores = _digamma(kept) - _digamma(np.array([kept.sum()]))[0] if len(kept) else kept
        else:  # Hugging Face's digamma, of the total summed in order
            scores = digamma(kept) - digamma(np.cumsum(kept)[-1:])[0] if len(kept) else kept
        lattice.rescore(scores.tobytes())
        return scores

    def _prune(self, lattice, scores, total, desired, n_jobs):
        """Drop the pieces whose removal costs the least likelihood, keeping shrinking_factor of them.

        A piece whose own text is better split is never chosen and goes; one on no best segmentation
        goes; a character stays. Any other piece would move its count to its best split into other
        pieces: its loss is the likelihood that costs, and the pieces losing least go.
        """
        alt_scores, alt_ids, alt_lengths = (
            np.frombuffer(b, dtype=t) for b, t in zip(lattice.alternatives(n_jobs), (np.float64, np.int32, np.int32))
        )
        freq = np.frombuffer(lattice.viterbi_counts(n_jobs))
        freq_sum = freq.sum()
        has_alternative = ~np.isnan(alt_scores)
        used = freq > 0
        always = np.flatnonzero(used & ~has_alternative)
        candidates = np.flatnonzero(used & has_alternative & ~(alt_scores > scores))
        # the loss of each candidate from its alternative's pieces (an unknown edge, id -1, has count 0)
        lengths = alt_lengths[candidates]
        starts = _exclusive_cumsum(alt_lengths)[candidates]  # each alternative in alt_ids
        boundaries = _exclusive_cumsum(lengths)  # each candidate's alternative in `pieces`
        pieces = alt_ids[np.repeat(starts - boundaries, lengths) + np.arange(lengths.sum())]
        own = freq[candidates]
        alt_freq = np.where(pieces >= 0, freq[np.maximum(pieces, 0)], 0.0) + np.repeat(own, lengths)
        log_sum_alt = np.log(freq_sum + own * (lengths - 1))
        log_prob_alt = (
            np.add.reduceat(np.log(alt_freq), boundaries) - lengths * log_sum_alt if len(candidates) else np.zeros(0)
        )
        loss = own / total * ((np.log(own) - math.log(freq_sum)) - log_prob_alt)
        size = max(desired, int(self.shrinking_factor * len(scores)))
        order = np.lexsort((candidates, -loss))
        chosen = candidates[order[: max(size - len(always), 0)]]
        keep = np.sort(np.concatenate((always, chosen)))
        lattice.retain(keep.astype(np.int64).tobytes(), scores[keep].tobytes())
        return scores[keep]

    def _finalize(self, pieces, scores, required):
        """Special tokens, the required characters, then the best pieces: exactly vocab_size."""
        score_of = dict(zip(pieces, scores.tolist()))
        lowest = min(score_of.values()) if score_of else 0.0
        final, penalty = {}, 0.0
        for char, _ in required:
            if char in score_of:
                final[char] = score_of[char]
            else:
                final[char] = lowest + penalty
                penalty += MISSING_CHAR_PENALTY
        fixed = self._fixed_tokens()
        room = self.vocab_size - len(fixed)
        for piece, score in sorted(score_of.items(), key=lambda item: (-item[1], item[0])):
            if len(final) >= room:
                break
            if piece not in final and piece not in fixed:
                final[piece] = score
        # a corpus with fewer pieces than vocab_size gives a smaller vocabulary, as in Hugging Face
        # scores tokenizers reads back exactly from a tokenizer.json, so that the model means the same saved
        ranked = sorted(
            ((piece, serde_readable(score)) for piece, score in final.items()), key=lambda item: (-item[1], item[0])
        )
        vocab = [(token, 0.0) for token in fixed] + ranked
        unk_id = fixed.index(self.unk_token) if self.unk_token is not None else None
        return Unigram(vocab, unk_id=unk_id, byte_fallback=self.byte_fallback)


def _char_weights(lattice):
    """``{char: occurrences}`` of the characters of the lattice's words, each occurrence weighted by
    its word's count, in code point order."""
    chars, counts = lattice.char_counts()
    return dict(zip(chars, np.frombuffer(counts, dtype=np.int64).tolist()))


def _hf_digamma(x):
    """Hugging Face's digamma (recurrence up to 7, then its series), on an array of positive values."""
    x = np.array(x, dtype=np.float64)
    result = np.zeros_like(x)
    small = x < 7.0
    while small.any():
        result[small] -= 1.0 / x[small]
        x[small] += 1.0
        small = x < 7.0
    x -= 0.5
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    series = np.log(x) + (1.0 / 24.0) * xx2 - 7.0 / 960.0 * xx4 + (31.0 / 8064.0) * xx4 * xx2
    return result + (series - (127.0 / 30720.0) * xx4 * xx4)


def _exclusive_cumsum(values):
    """Where each run starts when runs of these lengths are laid end to end."""
    return np.concatenate(([0], np.cumsum(values)[:-1])).astype(np.int64)


def _digamma(x):
    """The digamma function on an array of positive values (recurrence up to 6, then the asymptotic
    series)."""
    x = np.array(x, dtype=np.float64)
    result = np.zeros_like(x)
    small = x < 6.0
    while small.any():
        result[small] -= 1.0 / x[small]
        x[small] += 1.0
        small = x < 6.0
    inverse = 1.0 / x
    inverse2 = inverse * inverse
    series = inverse2 * (
        1.0 / 12 - inverse2 * (1.0 / 120 - inverse2 * (1.0 / 252 - inverse2 * (1.0 / 240 - inverse2 / 132)))
    )
    return result + np.log(x) - 0.5 * inverse - series
