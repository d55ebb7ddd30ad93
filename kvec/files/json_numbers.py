"""JSON numbers as Hugging Face ``tokenizers`` reads them, and the texts it reads back exactly.

``tokenizers`` parses ``tokenizer.json`` with serde_json without its ``float_roundtrip`` feature, so a
number's text may come out an ulp off the nearest double. A Unigram model's scores are summed along
every path, and near-tied paths are told apart by such ulps: a file then means the scores
``tokenizers`` reads, not those it was written from. :func:`serde_json_float` reads a number as
``tokenizers`` does; :func:`serde_json_text` writes one so that ``tokenizers`` reads that very double,
where some text does (not every double is read exactly from any text).
"""

from __future__ import annotations

import math

import regex

__all__ = ["serde_json_float", "serde_json_text", "serde_readable"]

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


# significant digits tried for a text serde_json reads exactly, and how far from the nearest such
# decimal in units of its last digit (serde_json divides a u64 of at most 20 digits by a power of ten)
_TEXT_DIGITS = (17, 18, 19)
_TEXT_REACH = 64


def serde_json_text(value: float) -> str | None:
    """A JSON number's text that ``tokenizers`` reads as exactly ``value`` (:func:`serde_json_float`),
    the shortest found (``repr`` where it does), or None where no text of up to 19 significant digits
    is read as it.

    Example:
        >>> text = serde_json_text(-119.81331877417195)
        >>> text != repr(-119.81331877417195), serde_json_float(text) == -119.81331877417195
        (True, True)
    """
    shortest = repr(value)
    if not math.isfinite(value) or serde_json_float(shortest) == value:
        return shortest if math.isfinite(value) else None
    for digits in _TEXT_DIGITS:
        mantissa, exponent = f"{abs(value):.{digits - 1}e}".split("e")
        nearest, scale = int(mantissa.replace(".", "")), int(exponent) - (digits - 1)
        for step in range(_TEXT_REACH + 1):
            for candidate in (nearest + step, nearest - step) if step else (nearest,):
                text = _positional(candidate, scale, value < 0)
                if serde_json_float(text) == value:
                    return text
    return None


def serde_readable(value: float) -> float:
    """The double ``tokenizers`` reads from ``value``'s shortest text: a value :func:`serde_json_text`
    can write exactly (a trainer's scores are made such, so that a model means the same saved).

    Example:
        >>> serde_readable(-119.81331877417195)
        -119.81331877417196
    """
    return serde_json_float(repr(value)) if math.isfinite(value) else value


def _positional(significand: int, scale: int, negative: bool) -> str:
    """``significand * 10**scale`` as a plain JSON number (no exponent)."""
    digits = str(significand)
    if scale >= 0:
        text = digits + "0" * scale + ".0"
    elif -scale < len(digits):
        text = digits[:scale] + "." + digits[scale:]
    else:
        text = "0." + "0" * (-scale - len(digits)) + digits
    return ("-" if negative else "") + text
