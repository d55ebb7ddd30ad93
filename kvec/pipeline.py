"""A subword tokenizer: normalizer -> pre-tokenizer -> model, and a decoder back.

Data flows one way: the normalizer cleans the text (remembering where each character came from), the
pre-tokenizer cuts it into pieces (words, with the original offsets of
each character), the model turns each piece into tokens, and the encoding collects ids, tokens and
offsets into the original text. The decoder turns tokens back into text.
"""

import json
from itertools import chain

from kvec import serialization
from kvec.normalizers import Normalized
from kvec.pretokenizers import Piece
from kvec.trainers.counting import count_words, iterate_files

__all__ = ["Encoding", "Tokenizer"]


class Encoding:
    """The result of :meth:`Tokenizer.encode`.

    Attributes:
        ids: token ids.
        tokens: token strings.
        offsets: ``(start, end)`` character offsets of each token in the original text.
        attention_mask: 1 for every token.

    ``encode_batch`` fills only ``ids`` up front; ``tokens`` and ``offsets`` are worked out on first
    access, so pipelines that only need ids never pay for them.
    """

    __slots__ = ("ids", "_tokens", "_offsets", "_source")

    def __init__(self, ids, tokens=None, offsets=None, source=None):
        self.ids = ids
        self._tokens = tokens
        self._offsets = offsets
        self._source = source  # (tokenizer, text) to work out tokens and offsets later

    @property
    def tokens(self):
        if self._tokens is None:
            id_to_token = self._source[0].model.id_to_token
            self._tokens = [id_to_token[i] for i in self.ids]
        return self._tokens

    @property
    def offsets(self):
        if self._offsets is None:
            tokenizer, text = self._source
            self._offsets = tokenizer.encode(text).offsets
        return self._offsets

    @property
    def attention_mask(self):
        return [1] * len(self.ids)

    def __len__(self):
        return len(self.ids)

    def __repr__(self):
        return f"Encoding(ids={self.ids!r}, tokens={self.tokens!r})"


_WORD_CACHE_SIZE = 1 << 18


class WordSource:
    """Normalize, then pre-tokenize: the words a trainer counts."""

    def __init__(self, normalizer, pre_tokenizer):
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer

    def split_words(self, text):
        if self.normalizer is not None:
            text = self.normalizer.normalize_str(text)
        if self.pre_tokenizer is None:
            return [text] if text else []
        return self.pre_tokenizer.split_words(text)

    def spell(self, word):
        return word if self.pre_tokenizer is None else self.pre_tokenizer.spell(word)


class Tokenizer:
    """A subword tokenizer made of a pre-tokenizer, a model and a decoder.

    Args:
        model: a subword model such as :class:`kvec.models.BPE`.
        normalizer: cleans the text first (offsets still point into the original text).
        pre_tokenizer: splits text into words (for example :class:`kvec.pretokenizers.ByteLevel`);
            None treats the whole text as one word.
        decoder: turns tokens back into text; None joins tokens with spaces.

    Example:
        >>> from kvec.pretokenizers import ByteLevel
        >>> from kvec.trainers import BpeTrainer
        >>> from kvec import decoders
        >>> tok = Tokenizer(None, pre_tokenizer=ByteLevel(add_prefix_space=False), decoder=decoders.ByteLevel())
        >>> tok.train_from_iterator(["low lower lowest"] * 3, BpeTrainer(vocab_size=270, initial_alphabet=ByteLevel.alphabet()))
        >>> tok.encode("lower lowest").tokens
        ['low', 'e', 'r', 'Ġlowest']
        >>> tok.decode(tok.encode("slow lowly").ids)
        'slow lowly'
    """

    def __init__(self, model, pre_tokenizer=None, decoder=None, normalizer=None):
        self.model = model
        self.pre_tokenizer = pre_tokenizer
        self.decoder = decoder
        self.normalizer = normalizer

    def __setattr__(self, name, value):
        if name in ("model", "pre_tokenizer", "normalizer"):
            # encode_batch's cache of word -> ids holds only while these stages stay the same
            self.__dict__["_word_ids"] = {}
        object.__setattr__(self, name, value)

    # ---- vocabulary ----

    def get_vocab(self):
        return self.model.get_vocab()

    def get_vocab_size(self):
        return len(self.model.vocab)

    def token_to_id(self, token):
        return self.model.vocab.get(token)

    def id_to_token(self, token_id):
        return self.model.id_to_token.get(token_id)

    # ---- encoding ----

    def _pieces(self, text):
        if self.pre_tokenizer is None:
            return [Piece(text, 0)] if text else []
        return self.pre_tokenizer.pre_tokenize(text)

    def _words(self):
        """What training counts: normalized, pre-tokenized words (a picklable object)."""
        return WordSource(self.normalizer, self.pre_tokenizer)

    def encode(self, text):
        """Encode one text into an :class:`Encoding` (ids, tokens, offsets)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        normalized = None
        if self.normalizer is not None:
            normalized = self.normalizer.normalize(Normalized.of(text))
            text = normalized.text
        ids, offsets = [], []
        for piece in self._pieces(text):
            for token_id, start, end in self.model.tokenize_spans(piece.text):
                ids.append(token_id)
                span = piece.offsets(start, end)
                offsets.append(span if normalized is None else normalized.original(*span))
        id_to_token = self.model.id_to_token
        return Encoding(ids, [id_to_token[i] for i in ids], offsets)

    def encode_batch(self, texts):
        """Encode a list of texts; ids come from a per-word cache, tokens and offsets on demand."""
        words_of = self._words()
        spell, tokenize_ids = words_of.spell, self.model.tokenize_ids
        cache = self._word_ids if not getattr(self.model, "dropout", None) else None
        encodings = []
        for position, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"texts[{position}] must be a str, got {type(text).__name__}")
            words = words_of.split_words(text)
            if cache is None:
                ids = [i for word in words for i in tokenize_ids(spell(word))]
            else:
                try:
                    ids = list(chain.from_iterable(map(cache.__getitem__, words)))
                except KeyError:
                    if len(cache) > _WORD_CACHE_SIZE:
                        cache.clear()
                    for word in words:
                        if word not in cache:
                            cache[word] = tokenize_ids(spell(word))
                    ids = list(chain.from_iterable(map(cache.__getitem__, words)))
            encodings.append(Encoding(ids, source=(self, text)))
        return encodings

    def decode(self, ids):
        """Turn ids back into text with the decoder."""
        id_to_token = self.model.id_to_token
        tokens = []
        for position, token_id in enumerate(ids):
            token = id_to_token.get(token_id)
            if token is None:
                raise ValueError(f"ids[{position}] = {token_id!r} is not in the vocabulary")
            tokens.append(token)
        if self.decoder is None:
            return " ".join(tokens)
        return self.decoder.decode(tokens)

    def decode_batch(self, sequences):
        return [self.decode(ids) for ids in sequences]

    # ---- saving and loading ----

    def to_str(self):
        """The tokenizer as kvec's versioned JSON."""
        return json.dumps(serialization.to_document(self), ensure_ascii=False)

    @classmethod
    def from_str(cls, text):
        """Rebuild a tokenizer from :meth:`to_str` output (``kvec.errors.FormatError`` if it is corrupt)."""
        return cls(**serialization.loads(text))

    def save(self, path):
        """Write the tokenizer to ``path`` atomically: the old file or the new one, never a partial one."""
        serialization.save(serialization.to_document(self), path)

    @classmethod
    def from_file(cls, path):
        """Load a tokenizer written by :meth:`save`; a corrupt file raises ``FormatError`` naming it."""
        return cls(**serialization.load(path))

    # ---- training ----

    def train_from_iterator(self, iterator, trainer, n_jobs=1, show_progress=False):
        """Count the pre-tokenized words of the texts and train ``trainer``; the model is replaced.

        Words are counted in first-occurrence order, streaming, in ``n_jobs`` processes; the result is
        the same for every ``n_jobs``.
        """
        counts = count_words(iterator, self._words(), n_jobs=n_jobs, show_progress=show_progress)
        self.model = trainer.train_from_counts(counts)

    def train(self, files, trainer, n_jobs=1, show_progress=False):
        """Train on text files, one text per line (see :meth:`train_from_iterator`)."""
        self.train_from_iterator(iterate_files(files), trainer, n_jobs=n_jobs, show_progress=show_progress)
