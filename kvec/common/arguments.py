"""The checks of public arguments, and the one wording of each kind of error they raise.

Every message names the argument (with its index or key where it is an item of one) and says what it
must be:

- a wrong type is a ``TypeError``: ``"{name} must be {expected}, got {type name}"``
  (:func:`wrong_type`);
- a value outside a bound is a ``ValueError``: ``"{name} must be >= {minimum}, got {value}"``, or
  ``"{name} must be between {minimum} and {maximum}, got {value}"`` with both bounds
  (:func:`out_of_bounds`);
- a value outside a set that a phrase describes (``"a positive int"``, ``"one of ('pre', 'post')"``) is
  ``"{name} must be {description}, got {value!r}"`` (:func:`must_be`), a ``ValueError`` unless the
  caller says otherwise;
- an id outside what the native core holds is ``"{name} = {value} is out of range: ids are 0 to
  {MAX_ID}"`` (:func:`check_id`).

Ints are Python or NumPy ints and never bools; numbers are ints or floats.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

__all__ = [
    "MAX_ID",
    "check_bool",
    "check_count",
    "check_id",
    "check_int",
    "check_number",
    "check_seed",
    "check_str",
    "is_int",
    "must_be",
    "out_of_bounds",
    "type_name",
    "wrong_type",
]

#: The largest token id: the native core holds ids as int32 (``csrc/core``).
MAX_ID = 2**31 - 1


def type_name(value: object) -> str:
    """The name of ``value``'s type, as the messages print it."""
    return type(value).__name__


def wrong_type(name: str, expected: str, value: object) -> TypeError:
    """The error of an argument ``name`` of the wrong type: ``expected`` is a phrase (``"an int"``)."""
    return TypeError(f"{name} must be {expected}, got {type_name(value)}")


def out_of_bounds(name: str, value: object, minimum: object, maximum: object = None) -> ValueError:
    """The error of an argument ``name`` below ``minimum`` (or outside ``[minimum, maximum]``)."""
    if maximum is None:
        return ValueError(f"{name} must be >= {minimum}, got {value}")
    return ValueError(f"{name} must be between {minimum} and {maximum}, got {value}")


def must_be(name: str, description: str, value: object, error: type[Exception] = ValueError) -> Exception:
    """The error of an argument ``name`` outside the values ``description`` names."""
    return error(f"{name} must be {description}, got {value!r}")


def is_int(value: object) -> bool:
    """Whether ``value`` is a Python or NumPy int (a bool is not)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_int(value: Any, name: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as an int within the bounds given; the errors above otherwise."""
    if not is_int(value):
        raise wrong_type(name, "an int", value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise out_of_bounds(name, value, minimum, maximum)
    return int(value)


def check_count(value: Any, name: str, limit: int = 2**63 - 1) -> int:
    """``value`` as an int from 0 to ``limit``."""
    return check_int(value, name, 0, limit)


def check_id(value: Any, name: str) -> int:
    """``value`` as an int id from 0 to :data:`MAX_ID`."""
    if not is_int(value):
        raise wrong_type(name, "an int id", value)
    if not 0 <= value <= MAX_ID:
        raise ValueError(f"{name} = {value} is out of range: ids are 0 to {MAX_ID}")
    return int(value)


def check_number(value: Any, name: str, finite: bool = False) -> float:
    """``value`` (an int or a float) as a float; with ``finite``, infinities and NaN are refused."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise wrong_type(name, "a number", value)
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if finite and not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number, got {value!r:.40}")
    return number


def check_bool(value: Any, name: str) -> bool:
    """``value`` (a bool or a NumPy bool) as a bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise wrong_type(name, "a bool", value)
    return bool(value)


def check_str(value: Any, name: str, optional: bool = False) -> Any:
    """``value``, checked to be a str (or None when ``optional``)."""
    if not (isinstance(value, str) or (optional and value is None)):
        raise wrong_type(name, "a str or None" if optional else "a str", value)
    return value


def check_seed(value: Any) -> random.Random:
    """A generator seeded with ``value`` (None, an int, a float, a str or bytes, as
    ``random.Random`` takes them); ``TypeError`` naming ``seed`` otherwise."""
    if isinstance(value, np.integer):
        value = int(value)
    if value is not None and not isinstance(value, (int, float, str, bytes, bytearray)):
        raise wrong_type("seed", "None or an int", value)
    return random.Random(value)
