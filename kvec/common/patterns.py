"""Patterns that ``Split`` and ``Replace`` look for: a plain ``str`` is found literally, a :class:`Regex`
as a regular expression, as in Hugging Face ``tokenizers`` (``tokenizers.Regex``).

:func:`find_matches` cuts a text into the stretches a pattern matches and those between them, with the
rules of ``tokenizers``' regex engine (Oniguruma) for empty matches: an empty match right after a match
is skipped.
"""

from __future__ import annotations

from typing import Any

import regex

from kvec.common.arguments import wrong_type

__all__ = ["Pattern", "Regex", "compile_pattern", "find_matches", "pattern_json"]


class Regex:
    """A regular expression for ``Split`` and ``Replace`` (a plain ``str`` there is a literal string).

    Args:
        pattern: the expression, in the syntax of the ``regex`` module (``\\p{L}``, lookarounds...).

    Example:
        >>> from kvec.pre_tokenizers import Split
        >>> [p.text for p in Split(Regex(r"\\d+"), "removed").pre_tokenize("a12b3")]
        ['a', 'b']
    """

    __slots__ = ("pattern", "_compiled")

    def __init__(self, pattern: str) -> None:
        if not isinstance(pattern, str):
            raise wrong_type("pattern", "a str", pattern)
        try:
            compiled = regex.compile(pattern)
        except regex.error as e:
            raise ValueError(f"pattern {pattern!r} is not a valid regular expression ({e})") from None
        self.pattern = pattern
        self._compiled = compiled

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Regex) and other.pattern == self.pattern

    def __hash__(self) -> int:
        return hash((Regex, self.pattern))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Regex, (self.pattern,))


Pattern = str | Regex  # what Split and Replace take


def pattern_json(pattern: Pattern) -> dict[str, str]:
    """A pattern as the files hold it: ``{"String": text}`` (found literally) or ``{"Regex": text}``.

    Example:
        >>> pattern_json("-"), pattern_json(Regex(r"\\s+"))
        ({'String': '-'}, {'Regex': '\\\\s+'})
    """
    return {"Regex": pattern.pattern} if isinstance(pattern, Regex) else {"String": pattern}


def compile_pattern(pattern: Pattern, name: str = "pattern") -> regex.Pattern[str]:
    """The compiled expression of a pattern: a ``str`` escaped (found literally), a :class:`Regex` as
    it is; ``TypeError`` naming ``name`` for anything else."""
    if isinstance(pattern, Regex):
        return pattern._compiled
    if isinstance(pattern, str):
        return regex.compile(regex.escape(pattern))
    raise wrong_type(name, "a str or a kvec.common.patterns.Regex", pattern)


def find_matches(compiled: regex.Pattern[str], text: str) -> list[tuple[int, int, bool]]:
    """``[(start, end, is_match), ...]``: ``text`` cut into the matches of ``compiled`` (possibly empty)
    and the stretches between them, in order, covering it. Searches go left to right; an empty match
    that ends where the previous match ended is skipped, as Oniguruma's ``find_iter`` does (Python's
    ``finditer`` would keep it). An empty text is one empty stretch that is not a match."""
    if not text:
        return [(0, 0, False)]
    segments = []
    previous = 0  # where the last match ended
    last_match_end = -1
    position = 0
    length = len(text)
    while position <= length:
        found = compiled.search(text, position)
        if found is None:
            break
        start, end = found.span()
        if start == end and end == last_match_end:
            position = end + 1
            continue
        if start > previous:
            segments.append((previous, start, False))
        segments.append((start, end, True))
        previous = last_match_end = position = end
    if previous < length:
        segments.append((previous, length, False))
    return segments
