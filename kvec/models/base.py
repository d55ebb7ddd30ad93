"""What every subword model offers once it can segment a word into ``(id, start, end)`` spans."""

__all__ = ["SubwordModel"]


class SubwordModel:
    """Vocabulary look-ups and token lists for a model that sets ``vocab`` (``{token: id}``) and
    ``id_to_token`` and defines ``tokenize_spans(word)``, its own segmentation."""

    def get_vocab(self):
        """The ``{token: id}`` dictionary (a copy)."""
        return dict(self.vocab)

    def token_to_id(self, token):
        """The id of ``token``, or None."""
        return self.vocab.get(token)

    def tokenize(self, word):
        """The tokens of one pre-tokenized word."""
        return [self.id_to_token[i] for i, _, _ in self.tokenize_spans(word)]

    def tokenize_ids(self, word):
        """The token ids of one pre-tokenized word."""
        return [i for i, _, _ in self.tokenize_spans(word)]

    def __reduce__(self):
        # native tables do not pickle: a copy (for worker processes) is rebuilt from the configuration
        return (_from_config, (type(self), self.get_config()))

    def __call__(self, text):
        """The tokens of a text split on whitespace: a bare model is an ``analyzer`` for
        :class:`kvec.Tokenizer` too (a pipeline adds normalization and a decoder)."""
        return [token for word in text.split() for token in self.tokenize(word)]


def _from_config(cls, config):
    return cls(**config)
