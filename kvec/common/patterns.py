"""Patterns that ``Split`` and ``Replace`` look for: a plain ``str`` is found literally, a :class:`Regex`
as a regular expression, as in Hugging Face ``tokenizers`` (``tokenizers.Regex``).

:func:`find_matches` cuts a text into the stretches a pattern matches and those between them, with the
rules of ``tokenizers``' regex engine (Oniguruma) for empty matches: an empty match right after a match
is skipped.

A :class:`Regex` also keeps Oniguruma's (Ruby syntax) anchors, which differ from Python's: ``^`` and
``$`` hold at every line's start and end (``^`` not after a text's final newline), and ``\\Z`` at the
end or before a final newline. :func:`oniguruma_anchors` rewrites them into the ``regex`` module's terms.
"""

from __future__ import annotations

from typing import Any

import regex

from kvec.common.arguments import wrong_type

__all__ = ["Pattern", "Regex", "compile_pattern", "find_matches", "oniguruma_anchors", "pattern_json"]

# Oniguruma's anchors (Ruby syntax, as tokenizers compiles a Regex) in the regex module's terms
LINE_START = r"(?:\A|(?<=\n)(?!\z))"  # ^: a line's start, not after the final newline
LINE_END = r"(?=\n|\z)"  # $: before every newline and at the end
END_OR_FINAL_NEWLINE = r"(?=\n?\z)"  # \Z


def oniguruma_anchors(pattern: str) -> str:
    """``pattern`` with ``^``, ``$`` and ``\\Z`` outside character classes written as Oniguruma reads
    them (see the module's docstring); everything else is copied as it is.

    Example:
        >>> print(oniguruma_anchors(r"^ +|[$^]\\Z"))
        (?:\\A|(?<=\\n)(?!\\z)) +|[$^](?=\\n?\\z)
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            escape = pattern[i : i + 2]
            out.append(END_OR_FINAL_NEWLINE if escape == "\\Z" else escape)
            i += 2
        elif c == "[":
            end = _class_end(pattern, i)
            out.append(pattern[i:end])
            i = end
        else:
            out.append(LINE_START if c == "^" else LINE_END if c == "$" else c)
            i += 1
    return "".join(out)


def _class_end(pattern: str, start: int) -> int:
    """The index just past the character class opening at ``pattern[start]`` (``[``): a ``^`` and a
    ``]`` right after the opening are members, as are POSIX classes (``[:alpha:]``) and escapes."""
    i, n = start + 1, len(pattern)
    if i < n and pattern[i] == "^":
        i += 1
    if i < n and pattern[i] == "]":
        i += 1
    while i < n and pattern[i] != "]":
        if pattern[i] == "\\":
            i += 2
        elif pattern.startswith("[:", i) and ":]" in pattern[i + 2 :]:
            i = pattern.index(":]", i + 2) + 2
        else:
            i += 1
    return min(i + 1, n)


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
            compiled = regex.compile(oniguruma_anchors(pattern))
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
