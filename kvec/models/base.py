"""What kvec's own models share beyond the :class:`kvec.contracts.Model` contract: pickling through the
configuration, being an analyzer, and the checks of what their constructors are given."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

import numpy as np

from kvec.contracts import Model

__all__ = [
    "MAX_ID",
    "SubwordModel",
    "check_bool",
    "check_count",
    "check_id",
    "check_score",
    "check_seed",
    "check_token",
    "checked_vocab",
]

#: The largest token id: the native core holds ids as int32 (``csrc/core``).
MAX_ID = 2**31 - 1


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


def _type_name(value: Any) -> str:
    return type(value).__name__


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
        raise TypeError(f"{name} must be a mapping of token to id, got {_type_name(vocab)}")
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
            raise TypeError(f"{name} must map str tokens to ids, got the key {token!r:.60} ({_type_name(token)})")
        checked[token] = check_id(token_id, f"{name}[{token!r:.60}]")
    return checked


def check_id(value: Any, name: str) -> int:
    """``value`` as an int id from 0 to :data:`MAX_ID`; ``TypeError``/``ValueError`` naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int id, got {_type_name(value)}")
    if not 0 <= value <= MAX_ID:
        raise ValueError(f"{name} = {value} is out of range: ids are 0 to {MAX_ID}")
    return int(value)


def check_count(value: Any, name: str, limit: int = 2**63 - 1) -> int:
    """``value`` as an int from 0 to ``limit``; ``TypeError``/``ValueError`` naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {_type_name(value)}")
    if not 0 <= value <= limit:
        raise ValueError(f"{name} must be between 0 and {limit}, got {value}")
    return int(value)


def check_score(value: Any, name: str) -> float:
    """``value`` (an int or a float, not a bool) as a finite float; ``TypeError``/``ValueError``
    naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {_type_name(value)}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number, got {value!r:.40}")
    return number


def check_bool(value: Any, name: str) -> bool:
    """``value`` (a bool, or a NumPy bool) as a bool; ``TypeError`` naming ``name`` otherwise."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {_type_name(value)}")
    return bool(value)


def check_token(value: Any, name: str, optional: bool = False) -> Any:
    """``value``, checked to be a str (or None when ``optional``); ``TypeError`` naming ``name``."""
    if not (isinstance(value, str) or (optional and value is None)):
        wanted = "a str or None" if optional else "a str"
        raise TypeError(f"{name} must be {wanted}, got {_type_name(value)}")
    return value


def check_seed(value: Any) -> random.Random:
    """A generator seeded with ``value`` (None, an int, a float, a str or bytes, as
    ``random.Random`` takes them); ``TypeError`` naming ``seed`` otherwise."""
    if isinstance(value, np.integer):
        value = int(value)
    if value is not None and not isinstance(value, (int, float, str, bytes, bytearray)):
        raise TypeError(f"seed must be None or an int, got {_type_name(value)}")
    return random.Random(value)
