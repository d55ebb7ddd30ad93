"""What kvec's own models share beyond the :class:`kvec.contracts.Model` contract: pickling through the
configuration, being an analyzer, and the checks of what their constructors are given."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvec.common.arguments import MAX_ID, check_id, type_name, wrong_type
from kvec.contracts import Model

__all__ = ["SubwordModel", "checked_vocab"]


class SubwordModel(Model):
    """A :class:`kvec.contracts.Model` that pickles through its configuration and is an analyzer."""

    def __reduce__(self) -> tuple[Any, ...]:
        # native tables do not pickle: a copy (for worker processes) is rebuilt from the configuration
        return (_from_config, (type(self), self.get_config()))

    def __call__(self, text: str) -> list[str]:
        """The tokens of a text split on whitespace: a bare model is an ``analyzer`` for
        :class:`kvec.Tokenizer` too (a pipeline adds normalization and a decoder)."""
        # the vocabulary's tokens, as a pipeline analyzer gives them (an unknown one is the unk token)
        return [self.id_to_token[i] for word in text.split() for i in self.tokenize_ids(word)]


def _from_config(cls, config):
    return cls(**config)


def checked_vocab(vocab: Any, name: str = "vocab") -> dict[str, int]:
    """``vocab`` as a new ``{token: id}`` dict: str tokens, int ids from 0 to :data:`MAX_ID` (NumPy
    ints become Python ints); ``TypeError`` or ``ValueError`` naming the entry otherwise.

    Example:
        >>> checked_vocab({"a": 0, "b": 1})
        {'a': 0, 'b': 1}
        >>> checked_vocab({"a": 2**40})
        Traceback (most recent call last):
        ...
        ValueError: vocab['a'] = 1099511627776 is out of range: ids are 0 to 2147483647
    """
    if vocab is None:
        return {}
    if not isinstance(vocab, Mapping):
        raise wrong_type(name, "a mapping of token to id", vocab)
    ids = list(vocab.values())
    if (
        not set(map(type, vocab)) - {str}
        and not set(map(type, ids)) - {int}
        and (not ids or (min(ids) >= 0 and max(ids) <= MAX_ID))
    ):
        return dict(vocab)
    checked = {}
    for token, token_id in vocab.items():
        if not isinstance(token, str):
            raise TypeError(f"{name} must map str tokens to ids, got the key {token!r:.60} ({type_name(token)})")
        checked[token] = check_id(token_id, f"{name}[{token!r:.60}]")
    return checked
