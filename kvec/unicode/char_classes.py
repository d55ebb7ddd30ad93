"""Character class tables: the words of a pre-tokenizer that cuts text by character class alone.

Many pre-tokenizers only look at one character at a time: whitespace separates words, punctuation is a
word of its own, and the other characters form words of maximal runs. Such a pre-tokenizer is a table
with one class per code point, and the native encoder (``csrc/core/spec_encoder.h``) splits texts with it
without any regular expression. The tables are built from the pre-tokenizers' own patterns, so both
ways give the same words.
"""

from functools import cache, lru_cache

import numpy as np
import regex

__all__ = ["DROPPED", "ALONE", "RUN", "MERGED_APART", "table", "in_turn", "letters"]

DROPPED, ALONE, RUN = 0, 1, 2  # RUN and any class above it: maximal runs of that class form a word
MERGED_APART = 3  # in a table of merged words (WordTable.merge): a word of its own that ends a run
_CODE_POINTS = 0x110000


@cache
def _every_code_point():
    return np.arange(_CODE_POINTS, dtype=np.uint32).tobytes().decode("utf-32-le", "surrogatepass")


def _matches(pattern):
    """A boolean array: which code points match the one-character ``pattern``."""
    ranges = _class_ranges(pattern)
    if ranges is not None:
        return _in_ranges(*ranges)
    return _matches_by_regex(pattern)


# One item of a character class written as code points: \U and eight hex digits, an escaped \ [ ] ^ -,
# or a plain character; a range is two items joined by "-".
_ITEM = regex.compile(r"\\U([0-9A-Fa-f]{8})|\\([\\\[\]^-])|([^\\\[\]-])")


def _class_ranges(pattern):
    """``(negated, [(first, last), ...])`` when ``pattern`` is one character class of code points and
    ranges only (as :mod:`kvec.unicode.hf_unicode` writes its classes), else None.

    Such a class matches exactly its code points, so its table needs no regular expression: matching
    a class of hundreds of ranges against every code point takes seconds (Hugging Face's ``\\w`` and
    whitespace of ``Whitespace`` about 5 s), filling ranges takes milliseconds. Anything else (a
    property, a shorthand such as ``\\s``, a nested set) goes to ``regex``.
    """
    if len(pattern) < 3 or pattern[0] != "[" or pattern[-1] != "]":
        return None
    negated = pattern[1] == "^"
    body, position, ranges = pattern[1 + negated : -1], 0, []
    if not body or any(operator in body for operator in ("&&", "||", "~~", "--")):  # set operations (regex V1)
        return None
    while position < len(body):
        first, position = _class_item(body, position)
        if first is None:
            return None
        last = first
        if body.startswith("-", position):
            last, position = _class_item(body, position + 1)
            if last is None or last < first:
                return None
        ranges.append((first, last))
    return negated, ranges


def _class_item(body, position):
    """The code point of the item at ``position`` and the position after it, or (None, position)."""
    match = _ITEM.match(body, position)
    if match is None:
        return None, position
    code, escaped, plain = match.groups()
    return (int(code, 16) if code else ord(escaped or plain)), match.end()


def _in_ranges(negated, ranges):
    hits = np.zeros(_CODE_POINTS + 1, dtype=np.int32)
    for first, last in ranges:
        if last >= _CODE_POINTS:
            raise ValueError(f"U+{last:X} is not a code point")
        hits[first] += 1
        hits[last + 1] -= 1
    inside = np.cumsum(hits[:_CODE_POINTS]) > 0
    return ~inside if negated else inside


def _matches_by_regex(pattern):
    every = _every_code_point()
    marked = regex.sub(pattern, "\0", every)
    if len(marked) != _CODE_POINTS:
        raise ValueError(f"{pattern!r} must match single characters")
    as_numbers = np.frombuffer(marked.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    hits = as_numbers == 0
    hits[0] = regex.fullmatch(pattern, "\0") is not None
    return hits


@lru_cache(maxsize=16)
def table(dropped=None, alone=None, runs=()):
    """The class of every code point as ``bytes``: ``dropped`` matches separate words and vanish,
    ``alone`` matches are words of their own, each pattern of ``runs`` is a class of its own, and all
    other characters share class ``RUN``. Patterns match one character; later ones win.

    Example:
        >>> bert = table(dropped=r"\\s", alone=r"[,.]")
        >>> [bert[ord(c)] for c in "a ,"]
        [2, 0, 1]
    """
    classes = np.full(_CODE_POINTS, RUN, dtype=np.uint8)
    for number, pattern in enumerate(runs, start=RUN + 1):
        classes[_matches(pattern)] = number
    if alone is not None:
        classes[_matches(alone)] = ALONE
    if dropped is not None:
        classes[_matches(dropped)] = DROPPED
    return classes.tobytes()


@lru_cache(maxsize=16)
def letters(classes):
    """A table of classes as a ``str.translate`` table: each code point becomes the digit of its class
    (``"0"`` dropped, ``"1"`` alone, ``"2"`` runs, ``"3"``...). A regular expression over the translated
    text finds words at the same places as over the text, and fast however large the classes'
    patterns are (a character class of hundreds of ranges is slow to match).

    Example:
        >>> "a ,b".translate(letters(table(dropped=r"\\s", alone=r"[,.]")))
        '2012'
    """
    return (np.frombuffer(classes, dtype=np.uint8) + ord("0")).tobytes().decode("latin-1")


def separators(chars):
    """The table of a pre-tokenizer whose words are maximal runs of characters not in ``chars``."""
    classes = np.full(_CODE_POINTS, RUN, dtype=np.uint8)
    classes[[ord(c) for c in set(chars)]] = DROPPED
    return classes.tobytes()


@lru_cache(maxsize=16)
def in_turn(*tables):
    """The one table that cuts as ``tables`` do one after the other, each cutting the words of the one
    before (a ``Sequence`` of pre-tokenizers), or None when it would need more than 256 classes.

    A character is dropped if any table drops it, else alone if any table makes it alone; two
    neighbours stay in one word when every table gives them the same run class. Tables shorter than
    the code points give ``RUN`` past their end, as the C encoder reads them.

    Example:
        >>> words, digits = table(dropped=r"\\s"), table(alone=r"\\d")
        >>> [in_turn(words, digits)[ord(c)] for c in "a 1b"]
        [2, 0, 1, 2]
    """
    combined = None
    for one in tables:
        classes = np.full(_CODE_POINTS, RUN, dtype=np.uint8)
        classes[: len(one)] = np.frombuffer(one, dtype=np.uint8)
        combined = classes if combined is None else _both(combined, classes)
        if combined is None:
            return None
    return b"" if combined is None else combined.tobytes()


def apart_in_merged(merged, cuts):
    """The table of a merged-word table (``WordTable.merge``) whose words are then cut by ``cuts``, a
    table that only makes characters alone (``ALONE``, the rest ``RUN``; ``Digits(individual_digits=
    True)``): each of them becomes a word of its own, ``MERGED_APART``, even a delimiter. None when
    ``cuts`` does more than that.

    Example:
        >>> merged, digits = b"\\x02\\x02\\x01", table(alone=r"\\d")
        >>> list(apart_in_merged(merged, digits)[:3]), apart_in_merged(merged, digits)[ord("7")]
        ([2, 2, 1], 3)
    """
    cuts_array = np.frombuffer(cuts, dtype=np.uint8)
    if not np.isin(cuts_array, (ALONE, RUN)).all():
        return None
    length = max(len(merged), len(cuts))
    classes = np.full(length, RUN, dtype=np.uint8)
    classes[: len(merged)] = np.frombuffer(merged, dtype=np.uint8)
    classes[: len(cuts)][cuts_array == ALONE] = MERGED_APART
    return classes.tobytes()


def _both(first, second):
    """in_turn of two tables as arrays, or None past 256 classes."""
    dropped = (first == DROPPED) | (second == DROPPED)
    alone = ((first == ALONE) | (second == ALONE)) & ~dropped
    runs = ~dropped & ~alone
    # each pair of run classes is a class of its own
    pairs = first.astype(np.uint16) * 256 + second
    kinds, numbered = np.unique(pairs[runs], return_inverse=True)
    if len(kinds) > 256 - RUN:
        return None
    out = np.empty(_CODE_POINTS, dtype=np.uint8)
    out[dropped], out[alone] = DROPPED, ALONE
    out[runs] = RUN + numbered
    return out
