"""The Unicode script of every code point as Hugging Face's ``UnicodeScripts`` pre-tokenizer sees it.

``tokenizers`` classifies characters with its own table, generated from the Unicode 9.0.0 Scripts.txt
(the scripts sentencepiece splits on): a code point unassigned there has no script ("Any", never a
boundary), and Hiragana, Katakana and U+30FC (the prolonged sound mark) count as Han, as in
sentencepiece's Unigram; the space is "Any" too. kvec takes each character's script from the
``regex`` module's (newer) Unicode, for the code points assigned in 9.0.0
(:func:`kvec.unicode.hf_unicode.is_assigned_9`), less the four whose script has changed since 9.0.0.

Example:
    >>> [SCRIPT_NAMES[i - 1] for i in map(script_classes().__getitem__, map(ord, "aあ漢"))]
    ['Latin', 'Han', 'Han']
"""

from __future__ import annotations

from functools import cache

import regex

from kvec.unicode import hf_unicode

__all__ = ["ANY", "SCRIPT_NAMES", "script_classes"]

#: The scripts of Unicode 9.0.0 (class ``i + 1`` is ``SCRIPT_NAMES[i]``; class 0, ``ANY``, is no script).
SCRIPT_NAMES = tuple(
    """
    Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak
    Bengali Bhaiksuki Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian
    Caucasian_Albanian Chakma Cham Cherokee Common Coptic Cuneiform Cypriot Cyrillic Deseret
    Devanagari Duployan Egyptian_Hieroglyphs Elbasan Ethiopic Georgian Glagolitic Gothic Grantha
    Greek Gujarati Gurmukhi Han Hangul Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic Inherited
    Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kayah_Li
    Kharoshthi Khmer Khojki Khudawadi Lao Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian
    Lydian Mahajani Malayalam Mandaic Manichaean Marchen Meetei_Mayek Mende_Kikakui
    Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean
    New_Tai_Lue Newa Nko Ogham Ol_Chiki Old_Hungarian Old_Italic Old_North_Arabian Old_Permic
    Old_Persian Old_South_Arabian Old_Turkic Oriya Osage Osmanya Pahawh_Hmong Palmyrene
    Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic Samaritan Saurashtra Sharada
    Shavian Siddham SignWriting Sinhala Sora_Sompeng Sundanese Syloti_Nagri Syriac Tagalog
    Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangut Telugu Thaana Thai Tibetan Tifinagh
    Tirhuta Ugaritic Vai Warang_Citi Yi
    """.split()
)
ANY = 0

# Script values that changed after 9.0.0, with their 9.0.0 value (Scripts.txt of 9.0.0 and later).
_SCRIPTS_IN_9 = {0x0589: "Common", 0x061C: "Common", 0x0953: "Devanagari", 0x0954: "Devanagari"}
_FUSED = {"Hiragana": "Han", "Katakana": "Han"}  # sentencepiece's rule, which tokenizers follows


@cache
def script_classes() -> bytes:
    """One byte per code point: its script's class (see :data:`SCRIPT_NAMES`) as ``UnicodeScripts``
    sees it, or :data:`ANY`. Made on first use (about a second)."""
    classes = bytearray(0x110000)
    assigned = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000 and hf_unicode.is_assigned_9(chr(c)))
    number = {name: i + 1 for i, name in enumerate(SCRIPT_NAMES)}
    for name in SCRIPT_NAMES:
        value = number[_FUSED.get(name, name)]
        for run in regex.finditer(rf"\p{{Script={name}}}+", assigned):
            for c in run.group():
                classes[ord(c)] = value
    for code_point, name in _SCRIPTS_IN_9.items():
        classes[code_point] = number[name]
    classes[0x30FC] = number["Han"]
    classes[ord(" ")] = ANY
    return bytes(classes)
