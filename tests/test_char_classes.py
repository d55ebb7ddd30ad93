"""Character class tables: a class of code points and ranges is filled without a regular expression,
and gives exactly the code points that ``regex`` matches."""

import numpy as np
import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from kvec.pretokenizers import BertPreTokenizer, Whitespace
from kvec.unicode import char_classes, hf_unicode

# The classes of the pre-tokenizers named after Hugging Face's, as they write them.
HF_CLASSES = [
    f"[{hf_unicode.WHITE_SPACE}]",
    f"[^{hf_unicode.WORD}{hf_unicode.WHITE_SPACE}]",
    f"[{hf_unicode.PUNCTUATION}]",
    f"[{hf_unicode.NUMBER}]",
]


@pytest.mark.parametrize("pattern", HF_CLASSES, ids=["whitespace", "not-word-or-space", "punctuation", "number"])
def test_hf_classes_fill_as_regex_matches(pattern):
    assert char_classes._class_ranges(pattern) is not None
    assert np.array_equal(char_classes._matches(pattern), char_classes._matches_by_regex(pattern))


def test_the_hf_pre_tokenizers_tables_need_no_regex(monkeypatch):
    def refuse(pattern):
        raise AssertionError(f"matched {pattern[:40]!r}... against every code point")

    monkeypatch.setattr(char_classes, "_matches_by_regex", refuse)
    char_classes.table.cache_clear()
    try:
        assert Whitespace.char_classes() and BertPreTokenizer.char_classes()
    finally:
        char_classes.table.cache_clear()


CODE_POINTS = st.integers(0, 0x10FFFF).filter(lambda c: not 0xD800 <= c <= 0xDFFF)
SPECIAL = "\\[]^-"


def written(code_point, style):
    char = chr(code_point)
    if style == "code" or not char.isprintable() or char in " &|~":
        return f"\\U{code_point:08X}"
    return "\\" + char if char in SPECIAL else char


@st.composite
def code_point_classes(draw):
    """A class of code points and ranges, written with \\U escapes, escaped specials or plain characters."""
    items, ranges = [], []
    for _ in range(draw(st.integers(1, 8))):
        first = draw(CODE_POINTS | st.sampled_from([ord(c) for c in SPECIAL + "az09"]))
        last = draw(st.just(first) | st.integers(first, min(first + 300, 0x10FFFF)))
        styles = st.sampled_from(["code", "plain"])
        item = written(first, draw(styles))
        if last != first:
            item += "-" + written(last, draw(styles))
        items.append(item)
        ranges.append((first, last))
    negated = draw(st.booleans())
    return "[" + "^" * negated + "".join(items) + "]", ranges


@given(code_point_classes())
def test_code_point_classes_match_as_regex(case):
    pattern, ranges = case
    if not any(operator in pattern for operator in ("&&", "||", "~~", "--")):  # those go to regex: still equal
        assert char_classes._class_ranges(pattern) is not None, pattern
    hits = char_classes._matches(pattern)
    compiled = regex.compile(pattern)
    probes = {0, 0x10FFFF} | {
        c for first, last in ranges for c in (first - 1, first, last, last + 1) if 0 <= c <= 0x10FFFF
    }
    for code_point in sorted(probes):
        assert bool(hits[code_point]) == (compiled.fullmatch(chr(code_point)) is not None), (pattern, hex(code_point))


@pytest.mark.parametrize(
    "pattern",
    [r"\s", r"[\s]", r"[\p{L}a]", "[a-]", "[-a]", "[[:alpha:]]", "[]", "[^]", "[b-a]", "[a--b]", "[a&&b]", "[ab]+"],
)
def test_other_patterns_go_to_regex(pattern):
    assert char_classes._class_ranges(pattern) is None
