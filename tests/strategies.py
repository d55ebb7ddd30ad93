"""Hypothesis strategies shared by the parity tests.

Parity with a Rust library is only meaningful for characters whose Unicode properties both sides agree
on. Hugging Face tokenizers' character tables and regex engine follow older Unicode versions than
Python's ``unicodedata`` (14.0) and the ``regex`` module (newer still), so recently assigned code points
can be letters or combining marks on one side and unassigned on the other. ``STABLE_CHARS`` draws only
from blocks whose assignments have not changed since Unicode 6.
"""

from hypothesis import strategies as st

_STABLE_RANGES = [
    (0x0000, 0x052F),  # Latin, IPA, spacing modifiers, combining diacritics, Greek, Cyrillic
    (0x0590, 0x05FF),  # Hebrew
    (0x0E00, 0x0E5B),  # Thai
    (0x1100, 0x11FF),  # Hangul jamo
    (0x1E00, 0x1FFF),  # Latin extended additional, Greek extended
    (0x2000, 0x206F),  # general punctuation
    (0x20A0, 0x20B5),  # currency symbols
    (0x2100, 0x24FF),  # letterlike, number forms, arrows, math, enclosed alphanumerics
    (0x3000, 0x30FF),  # CJK punctuation, hiragana, katakana
    (0x3300, 0x33FF),  # CJK compatibility
    (0x4E00, 0x9FCB),  # CJK unified ideographs
    (0xAC00, 0xD7A3),  # Hangul syllables
    (0xFB00, 0xFB06),  # Latin ligatures
    (0xFF00, 0xFFEF),  # half- and full-width forms
    (0x1F600, 0x1F64F),  # emoticons
]

STABLE_CHARS = st.one_of(
    *[st.characters(min_codepoint=lo, max_codepoint=hi, blacklist_categories=("Cs", "Cn")) for lo, hi in _STABLE_RANGES]
)
