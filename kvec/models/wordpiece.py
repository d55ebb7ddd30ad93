"""The WordPiece model: BERT's greedy longest-match-first tokenization of one pre-tokenized word.

From the start of the word, take the longest prefix that is in the vocabulary, then continue from where
it ended, looking up ``continuing_subword_prefix + rest`` for the non-initial pieces. If some position
has no match, or the word is longer than ``max_input_chars_per_word`` characters, the whole word becomes
``unk_token``. Given the same vocabulary, the ids equal Hugging Face ``tokenizers``' WordPiece.
"""

from kvec.models.base import SubwordModel

__all__ = ["WordPiece"]


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

    def __init__(self, vocab, unk_token="[UNK]", max_input_chars_per_word=100, continuing_subword_prefix="##"):
        self.vocab = dict(vocab)
        self.id_to_token = {i: t for t, i in self.vocab.items()}
        self.unk_token = unk_token
        self.max_input_chars_per_word = max_input_chars_per_word
        self.continuing_subword_prefix = continuing_subword_prefix
        self._longest = max((len(t) for t in self.vocab), default=0)

    def get_config(self):
        return {
            "vocab": self.vocab,
            "unk_token": self.unk_token,
            "max_input_chars_per_word": self.max_input_chars_per_word,
            "continuing_subword_prefix": self.continuing_subword_prefix,
        }

    def tokenize_spans(self, word):
        """``[(id, start, end), ...]`` for one word."""
        if not word:
            return []
        if len(word) > self.max_input_chars_per_word:
            return [(self._unk_id(), 0, len(word))]
        vocab, prefix = self.vocab, self.continuing_subword_prefix
        pieces, start, n = [], 0, len(word)
        while start < n:
            end = min(n, start + self._longest)  # nothing longer can match
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else prefix + word[start:end]
                found = vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return [(self._unk_id(), 0, n)]
            pieces.append((found, start, end))
            start = end
        return pieces

    def _unk_id(self):
        unk_id = self.vocab.get(self.unk_token)
        if unk_id is None:
            raise ValueError(f"unk_token {self.unk_token!r} is not in the vocabulary")
        return unk_id
