"""Tokens added to a tokenizer on top of its model's vocabulary, matched before the model runs.

Two kinds, as in Hugging Face ``tokenizers``:

* special tokens (``add_special_tokens``) are matched case-sensitively in the raw text, before the
  normalizer, and ``decode(skip_special_tokens=True)`` leaves them out;
* added tokens (``add_tokens``) are matched in the normalized text, against their own normalized form
  (with a lowercasing normalizer ``"Hello"`` matches ``"HELLO"``), and are always decoded. A
  ``Prepend`` normalizer does not prefix a token's form: it belongs to the start of a text.

Matching is leftmost, then longest. A matched span is never pre-tokenized or split by the model.
A token already in the model's vocabulary keeps its id; any other token gets the next free id.
"""

import re
from bisect import bisect_right
from itertools import accumulate

__all__ = ["AddedVocabulary"]


class AddedVocabulary:
    """The special and added tokens of a :class:`kvec.pipeline.Tokenizer` and their matchers."""

    def __init__(self):
        self.ids = {}  # token -> id, in registration order
        self.special = {}  # the special tokens -> id
        self._by_id = {}  # id -> token, as the decoder sees it (an added token's normalized form)
        self._normalized_ids = {}  # normalized form -> id (the first token registered with that form)
        self._special_pattern = self._normalized_pattern = None

    def __bool__(self):
        return bool(self.ids)

    def add(self, tokens, special, model, normalizer, argument="tokens"):
        """Register ``tokens``; returns how many were not registered before (Hugging Face's count,
        which includes tokens the model already knows)."""
        tokens = list(tokens)
        for position, token in enumerate(tokens):
            if not isinstance(token, str) or not token:
                raise TypeError(f"{argument}[{position}] must be a non-empty str, got {token!r}")
        registered = self._assign([t for t in dict.fromkeys(tokens) if t not in self.ids], special, model)
        self.refresh(normalizer)
        return registered

    def reassign(self, model, normalizer):
        """Give every registered token its id again, in registration order, for a new ``model`` (after
        training): a token the model knows takes the model's id, any other the next free one."""
        registered, special = list(self.ids), set(self.special)
        self.ids, self.special = {}, {}
        for token in registered:
            self._assign([token], token in special, model)
        self.refresh(normalizer)

    def _assign(self, tokens, special, model):
        vocab = {} if model is None else model.vocab
        next_id = self._next_id(vocab)
        for token in tokens:
            token_id = vocab.get(token)
            if token_id is None:
                token_id, next_id = next_id, next_id + 1
            self.ids[token] = token_id
            if special:
                self.special[token] = token_id
        return len(tokens)

    def _next_id(self, vocab):
        """Hugging Face's rule: after the model's ids, or after the highest added id beyond them."""
        size = len(vocab)
        if not self.ids:
            return size
        highest = max(self.ids.values())
        return highest + 1 if highest >= size or size == 0 else size

    def refresh(self, normalizer):
        """Rebuild the matchers (the normalized forms change with the normalizer)."""
        self._by_id, self._normalized_ids = {}, {}
        for token, token_id in self.ids.items():
            if token in self.special:
                self._by_id.setdefault(token_id, token)
                continue
            form = token if normalizer is None else normalizer.normalize_token(token)
            self._by_id.setdefault(token_id, form)
            if form:  # a token that normalizes to nothing can never match
                self._normalized_ids.setdefault(form, token_id)
        self._special_pattern = _alternatives(self.special)
        self._normalized_pattern = _alternatives(self._normalized_ids)

    def restore(self, special, added, normalizer):
        """Install saved ``{token: id}`` maps of special and added tokens."""
        self.special = dict(special)
        self.ids = {**self.special, **added}
        self.refresh(normalizer)

    @property
    def added(self):
        """``{token: id}`` of the added (non-special) tokens."""
        return {token: token_id for token, token_id in self.ids.items() if token not in self.special}

    @property
    def normalized_forms(self):
        """The normalized forms the added (non-special) tokens are matched by."""
        return list(self._normalized_ids)

    @property
    def normalized_ids(self):
        """``{normalized form: id}`` of the added (non-special) tokens, as they are matched."""
        return dict(self._normalized_ids)

    def decoded_tokens(self):
        """``{id: token}`` of every added id, as the decoder sees it."""
        return dict(self._by_id)

    def id_to_token(self, token_id):
        """The token of an added id (an added token's normalized form, as the decoder sees it)."""
        return self._by_id.get(token_id)

    def matching_texts(self, texts, normalized_texts):
        """The positions of the texts where a special token occurs (in ``texts``) or an added token
        (in ``normalized_texts``, the same texts normalized): only those need the matchers."""
        found = set()
        for pool, forms in ((texts, self.special), (normalized_texts, self._normalized_ids)):
            if not forms:
                continue
            if any("\0" in form for form in forms):  # the separator below: every text may match
                return set(range(len(texts)))
            joined = "\0".join(pool)
            starts = list(accumulate((len(text) + 1 for text in pool), initial=0))
            for form in forms:
                position = joined.find(form)
                while position >= 0:
                    index = bisect_right(starts, position) - 1
                    found.add(index)
                    position = joined.find(form, starts[index + 1])
        return found

    def split_raw(self, text):
        """``(start, end, id)`` spans covering ``text``; ``id`` is None between special tokens."""
        return _split(text, self._special_pattern, self.special)

    def split_normalized(self, text):
        """``(start, end, id)`` spans covering normalized ``text``; ``id`` is None between added tokens."""
        return _split(text, self._normalized_pattern, self._normalized_ids)


def _alternatives(tokens):
    """A regex of the tokens, longest first: at the leftmost match the longest one wins."""
    if not tokens:
        return None
    return re.compile("|".join(map(re.escape, sorted(tokens, key=len, reverse=True))))


def _split(text, pattern, ids):
    if pattern is None:
        return [(0, len(text), None)]
    spans, position = [], 0
    for match in pattern.finditer(text):
        if match.start() > position:
            spans.append((position, match.start(), None))
        spans.append((match.start(), match.end(), ids[match.group()]))
        position = match.end()
    if position < len(text) or not spans:
        spans.append((position, len(text), None))
    return spans
