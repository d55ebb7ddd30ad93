"""What kvec's own models share beyond the :class:`kvec.contracts.Model` contract."""

from kvec.contracts import Model

__all__ = ["SubwordModel"]


class SubwordModel(Model):
    """A :class:`kvec.contracts.Model` that pickles through its configuration and is an analyzer."""

    def __reduce__(self):
        # native tables do not pickle: a copy (for worker processes) is rebuilt from the configuration
        return (_from_config, (type(self), self.get_config()))

    def __call__(self, text):
        """The tokens of a text split on whitespace: a bare model is an ``analyzer`` for
        :class:`kvec.Tokenizer` too (a pipeline adds normalization and a decoder)."""
        # the vocabulary's tokens, as a pipeline analyzer gives them (an unknown one is the unk token)
        return [self.id_to_token[i] for word in text.split() for i in self.tokenize_ids(word)]


def _from_config(cls, config):
    return cls(**config)
