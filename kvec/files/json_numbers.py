"""JSON numbers as Hugging Face ``tokenizers`` reads them, and the doubles it reads back as themselves.

``tokenizers`` parses ``tokenizer.json`` with serde_json without its ``float_roundtrip`` feature, so a
number's text may come out an ulp off the nearest double. A Unigram model's scores are summed along
every path, and near-tied paths are told apart by such ulps: a file then means the scores
``tokenizers`` reads, not those it was written from. :func:`serde_json_float` reads a number as
``tokenizers`` does; :func:`serde_readable` is the double nearest a value that it reads back as itself
from that value's shortest text (the text it writes, and kvec writes).
"""

from __future__ import annotations

import math

import regex

__all__ = ["serde_json_float", "serde_readable"]

_U64_MAX = 2**64 - 1
_POW10 = [float(f"1e{k}") for k in range(309)]
_NUMBER = regex.compile(r"(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?")


def serde_json_float(text: str) -> float:
    """A JSON number as ``tokenizers`` reads it (serde_json without ``float_roundtrip``), which may be
    an ulp off the nearest double: the digits that fit a u64, as a double, then divided (or multiplied)
    by one power of ten. A Unigram model's near-tied scores are then the same as Hugging Face's.

    Example:
        >>> serde_json_float("-119.81331877417195"), float("-119.81331877417195")
        (-119.81331877417196, -119.81331877417195)
    """
    match = _NUMBER.fullmatch(text)
    if match is None:
        return float(text)
    sign, integer, fraction, exponent_text = match.groups()
    fraction = fraction or ""
    if len(integer) + len(fraction) <= 19:  # every digit fits a u64 (the common case, without a loop)
        significand, exponent = int(integer + fraction), -len(fraction)
    else:
        significand, exponent = _u64_digits(integer, fraction)
    exponent += int(exponent_text or 0)
    value = float(significand)
    while True:
        if abs(exponent) < len(_POW10):
            value = value * _POW10[exponent] if exponent >= 0 else value / _POW10[-exponent]
            break
        if value == 0.0 or exponent > 0:
            value = value * math.inf if exponent > 0 and value else value
            break
        value /= 1e308
        exponent += 308
    return -value if sign else value


def _u64_digits(integer: str, fraction: str) -> tuple[int, int]:
    """serde_json's significand and power of ten of a number's digits: those that fit a u64; the
    integer digits past it only scale it, the fraction's are dropped."""
    significand, exponent, full = 0, 0, False
    for digit in integer:
        if not full and significand * 10 + int(digit) <= _U64_MAX:
            significand = significand * 10 + int(digit)
        else:
            full = True
            exponent += 1
    for digit in fraction:
        if significand * 10 + int(digit) > _U64_MAX:
            break
        significand = significand * 10 + int(digit)
        exponent -= 1
    return significand, exponent


def serde_readable(value: float) -> float:
    """The double nearest ``value`` that ``tokenizers`` reads back as itself from its shortest text (the
    text ``tokenizers`` and kvec write): what a Unigram trainer keeps, so that a model means the same
    once saved. One reading of the shortest text is almost always such a double; the few that are not
    reach one in a reading more.

    Example:
        >>> serde_readable(-119.81331877417195)
        -119.81331877417196
        >>> serde_readable(-119.81331877417196)
        -119.81331877417196
    """
    for _ in range(_READINGS):
        if not math.isfinite(value):
            return value
        read = serde_json_float(repr(value))
        if read == value:
            return value
        value = read
    return value


_READINGS = 8  # readings tried; one or two suffice
