"""Normalizers: clean up text before pre-tokenization, keeping track of where every character came from.

``normalize(text)`` returns a :class:`Normalized`: the new text and, for each of its characters, the
``(start, end)`` span of original characters it stands for, so token offsets can point into the
original text. Every transformation works character by character (decompositions, case mappings and
removals keep exact spans), following Hugging Face ``tokenizers``' alignment rules for decomposition,
reordering and composition.
"""

from __future__ import annotations

import unicodedata
from array import array
from collections.abc import Callable, Iterable
from functools import cache
from typing import cast

import regex

from kvec.charsmap import CharsMap
from kvec.contracts import Decomposition, Normalized, Normalizer

__all__ = [
    "BertNormalizer",
    "Lowercase",
    "NFC",
    "NFD",
    "NFKC",
    "NFKD",
    "Normalized",
    "OpenCC",
    "Prepend",
    "Replace",
    "Sequence",
    "SentencePieceNormalizer",
    "StripAccents",
]


class Lowercase(Normalizer):
    """Lowercase each character (no context rules such as the Greek final sigma, as in HF).

    Example:
        >>> Lowercase().normalize_str("HELLO Σ")
        'hello σ'
    """

    def normalize(self, normalized):
        return normalized.map(str.lower)

    def keeps(self, char):
        return char.lower() == char

    def character_rule(self):
        return str.lower

    def normalize_str(self, text):
        # str.lower lowercases a final sigma by its context; character by character it is always σ
        return text.lower() if "\u03a3" not in text else "".join(map(str.lower, text))


class OpenCC(Normalizer):
    """Chinese script conversion with OpenCC, such as Traditional to Simplified (``config="t2s"``).

    Needs the ``opencc`` package (``pip install kvec[chinese]``). A conversion that keeps the length
    maps characters one to one; otherwise each character is converted on its own, so every output
    character still knows its span.

    Example:
        >>> OpenCC("t2s").normalize_str("漢語自然語言處理")
        '汉语自然语言处理'
    """

    def __init__(self, config: str = "t2s") -> None:
        try:
            import opencc
        except ImportError:
            raise ImportError("the OpenCC normalizer needs the opencc package: pip install kvec[chinese]") from None
        self.config = config
        self._converter = opencc.OpenCC(config)

    def get_config(self):
        return {"config": self.config}

    def __getstate__(self):  # the converter is rebuilt in another process
        return {"config": self.config}

    def __setstate__(self, state):
        self.__init__(state["config"])

    def normalize(self, normalized):
        converted = self._converter.convert(normalized.text)
        if len(converted) == len(normalized.text):
            return Normalized(converted, normalized.spans)
        return normalized.map(self._converter.convert)


class Prepend(Normalizer):
    """Put ``prepend`` before a non-empty text (its characters stand for the first character's span).

    Example:
        >>> Prepend("▁").normalize_str("Hey")
        '▁Hey'
    """

    def __init__(self, prepend: str) -> None:
        if not isinstance(prepend, str):
            raise TypeError(f"prepend must be a str, got {type(prepend).__name__}")
        self.prepend = prepend

    def get_config(self):
        return {"prepend": self.prepend}

    def normalize_token(self, text):
        return text  # a token inside a text gets no prefix (unlike Hugging Face, which adds it)

    def normalize(self, normalized):
        if not normalized.text:
            return normalized
        return Normalized(self.prepend + normalized.text, [normalized.spans[0]] * len(self.prepend) + normalized.spans)

    def normalize_str(self, text):
        return self.prepend + text if text else text


class Replace(Normalizer):
    """Replace every occurrence of the string ``pattern`` by ``content``, left to right; the new
    characters stand for the span of the replaced ones.

    Example:
        >>> Replace(" ", "▁").normalize_str("Hey you")
        'Hey▁you'
    """

    def __init__(self, pattern: str, content: str) -> None:
        if not isinstance(pattern, str) or not pattern:
            raise ValueError(f"pattern must be a non-empty str, got {pattern!r}")
        if not isinstance(content, str):
            raise TypeError(f"content must be a str, got {type(content).__name__}")
        self.pattern = pattern
        self.content = content

    def get_config(self):
        return {"pattern": self.pattern, "content": self.content}

    def keeps(self, char):
        return char not in self.pattern

    def normalize_str(self, text):
        return text.replace(self.pattern, self.content)  # left to right, as normalize

    def character_rule(self):
        if len(self.pattern) != 1:
            return None
        pattern, content = self.pattern, self.content
        return lambda c: content if c == pattern else c

    def normalize(self, normalized):
        text, spans = normalized.text, normalized.spans
        chars, new_spans, position = [], [], 0
        while True:
            found = text.find(self.pattern, position)
            end = len(text) if found < 0 else found
            chars.append(text[position:end])
            new_spans.extend(spans[position:end])
            if found < 0:
                break
            position = found + len(self.pattern)
            chars.append(self.content)
            new_spans.extend([(spans[found][0], spans[position - 1][1])] * len(self.content))
        return Normalized("".join(chars), new_spans)


class StripAccents(Normalizer):
    """Remove every mark (categories Mn, Mc and Me, as HF's StripAccents); use after NFD or NFKD.

    Example:
        >>> StripAccents().normalize_str(NFD().normalize_str("Café"))
        'Cafe'
    """

    def normalize(self, normalized):
        return normalized.map(_without_mark)

    def keeps(self, char):
        return _without_mark(char) == char

    def character_rule(self):
        return _without_mark


def _without_mark(c):
    return "" if unicodedata.category(c).startswith("M") else c


class _UnicodeForm(Normalizer):
    form = ""  # NFD, NFKD, NFC or NFKC: set by each form

    def normalize(self, normalized):
        stream = []  # (char, change): the first char of a decomposition replaces its source, others are inserted
        for c in normalized.text:
            parts = unicodedata.normalize("NFKD" if "K" in self.form else "NFD", c)
            stream.extend((d, 1 if i else 0) for i, d in enumerate(parts))
        stream = _canonical_order(stream)
        if self.form in ("NFC", "NFKC"):
            stream = _compose(stream)
        return normalized.transform(stream)

    def keeps(self, char):
        # only marks move when decomposing; composing may join a character to the next one
        return self.form in ("NFD", "NFKD") and self.character_rule()(char) == char

    def character_rule(self):
        # A character is normalized alone unless its decomposition starts with a character that may
        # join the one before it: a combining mark (reordered with the marks before it, or composed)
        # or, when composing, the second character of a composition (Hangul vowels and trailing
        # consonants, and a few more).
        decomposition = "NFKD" if "K" in self.form else "NFD"
        seconds = _composition_seconds() if self.form in ("NFC", "NFKC") else frozenset()

        def rule(c):
            first = unicodedata.normalize(decomposition, c)[:1]
            if unicodedata.combining(first) or first in seconds:
                return None
            return self.normalize(Normalized.of(c)).text

        return rule

    def decomposition(self):
        composes = self.form in ("NFC", "NFKC")
        return Decomposition(_unchanged, "NFKD" if "K" in self.form else "NFD", _unchanged, compose=composes)


def _unchanged(c):
    return c


class NFD(_UnicodeForm):
    """Canonical decomposition.

    Example:
        >>> [hex(ord(c)) for c in NFD().normalize_str("é")]
        ['0x65', '0x301']
    """

    form = "NFD"


class NFKD(_UnicodeForm):
    """Compatibility decomposition."""

    form = "NFKD"


class NFC(_UnicodeForm):
    """Canonical decomposition, then canonical composition.

    Example:
        >>> NFC().normalize_str("e\\u0301") == "\\u00e9"
        True
    """

    form = "NFC"


class NFKC(_UnicodeForm):
    """Compatibility decomposition, then canonical composition.

    Example:
        >>> NFKC().normalize_str("ﬁ①")
        'fi1'
    """

    form = "NFKC"


@cache
def _composition_seconds():
    """The characters that compose with the starter before them (the second of a primary composite)."""
    seconds = {chr(c) for c in range(0x1161, 0x1176)} | {chr(c) for c in range(0x11A8, 0x11C3)}  # Hangul V, T
    for code_point in range(0x110000):
        parts = unicodedata.decomposition(chr(code_point)).split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            first, second = chr(int(parts[0], 16)), chr(int(parts[1], 16))
            if unicodedata.normalize("NFC", first + second) == chr(code_point):
                seconds.add(second)
    return frozenset(seconds)


def _canonical_order(stream):
    """Stable sort of each run of combining characters by combining class (changes move with them)."""
    stream = list(stream)
    i, n = 0, len(stream)
    while i < n:
        if unicodedata.combining(stream[i][0]) == 0:
            i += 1
            continue
        j = i
        while j < n and unicodedata.combining(stream[j][0]) != 0:
            j += 1
        stream[i:j] = sorted(stream[i:j], key=lambda item: unicodedata.combining(item[0]))
        i = j
    return stream


def _compose(stream):
    """Canonical composition: a character joins the last starter unless blocked.

    The composite takes over what both consumed: ``change = change(starter) + change(absorbed) - 1``.
    """
    out = []
    starter = None  # index in out of the last starter
    last_class = 0
    for c, change in stream:
        ccc = unicodedata.combining(c)
        if starter is not None and (last_class < ccc or (last_class == 0 and starter == len(out) - 1)):
            composite = unicodedata.normalize("NFC", out[starter][0] + c)
            if len(composite) == 1:
                out[starter] = (composite, out[starter][1] + change - 1)
                continue
        if ccc == 0:
            starter = len(out)
            last_class = 0
        else:
            last_class = ccc
        out.append((c, change))
    return out


_CONTROL_CATEGORIES = {"Cc", "Cf", "Cn", "Co"}
_WHITESPACE = regex.compile(r"\p{White_Space}")


def _is_chinese(c):
    cp = ord(c)
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B920 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


class BertNormalizer(Normalizer):
    """BERT's normalizer.

    Args:
        clean_text: remove control characters and U+FFFD, turn every whitespace into a space.
        handle_chinese_chars: put spaces around CJK ideographs so each becomes a word.
        strip_accents: NFD and remove nonspacing marks (Mn); None follows ``lowercase``.
        lowercase: lowercase every character.

    Example:
        >>> BertNormalizer().normalize_str("Héllo\\tWORLD 中文")
        'hello world  中  文 '
    """

    def __init__(
        self,
        clean_text: bool = True,
        handle_chinese_chars: bool = True,
        strip_accents: bool | None = None,
        lowercase: bool = True,
    ) -> None:
        self.clean_text = clean_text
        self.handle_chinese_chars = handle_chinese_chars
        self.strip_accents = strip_accents
        self.lowercase = lowercase

    def get_config(self):
        return {
            "clean_text": self.clean_text,
            "handle_chinese_chars": self.handle_chinese_chars,
            "strip_accents": self.strip_accents,
            "lowercase": self.lowercase,
        }

    def normalize(self, normalized):
        if self.clean_text:
            normalized = normalized.map(_clean)
        if self.handle_chinese_chars:
            normalized = normalized.map(lambda c: f" {c} " if _is_chinese(c) else c)
        strip = self.lowercase if self.strip_accents is None else self.strip_accents
        if strip:  # BERT removes nonspacing marks (Mn) only, unlike StripAccents
            normalized = NFD().normalize(normalized).map(lambda c: "" if unicodedata.category(c) == "Mn" else c)
        if self.lowercase:
            normalized = Lowercase().normalize(normalized)
        return normalized

    def keeps(self, char):
        return self.character_rule()(char) == char

    def character_rule(self):
        strip = self.lowercase if self.strip_accents is None else self.strip_accents

        def rule(c):
            text = self.normalize(Normalized.of(c)).text
            # with accents stripped, a mark that stays may be reordered with the marks around it
            return None if strip and any(map(unicodedata.combining, text)) else text

        return rule

    def decomposition(self):
        if not (self.lowercase if self.strip_accents is None else self.strip_accents):
            return None  # the character rule says it all
        cleaned = BertNormalizer(self.clean_text, self.handle_chinese_chars, strip_accents=False, lowercase=False)
        before = cast(Callable[[str], str], cleaned.character_rule())
        lowercase = self.lowercase

        def after(c):  # the nonspacing marks removed, then lowercased
            if unicodedata.category(c) == "Mn":
                return ""
            return c.lower() if lowercase else c

        return Decomposition(before, "NFD", after)


def _clean(c):
    # Controls go first, even those that are also whitespace (form feed, U+0085); tab, newline and
    # carriage return are kept as whitespace.
    if c in ("\0", "\ufffd"):
        return ""
    if c not in "\t\n\r" and unicodedata.category(c) in _CONTROL_CATEGORIES:
        return ""
    if c in "\t\n\r" or _WHITESPACE.match(c):
        return " "
    return c


class Sequence(Normalizer):
    """Apply normalizers one after the other.

    Example:
        >>> Sequence([NFD(), StripAccents(), Lowercase()]).normalize_str("Ångström")
        'angstrom'
    """

    def __init__(self, normalizers: Iterable[Normalizer]) -> None:
        self.normalizers = list(normalizers)

    def normalize(self, normalized):
        for normalizer in self.normalizers:
            normalized = normalizer.normalize(normalized)
        return normalized

    def normalize_token(self, text):
        for normalizer in self.normalizers:
            text = normalizer.normalize_token(text)
        return text

    def normalize_str(self, text):
        for normalizer in self.normalizers:
            text = normalizer.normalize_str(text)
        return text

    def normalize_batch(self, texts):
        for normalizer in self.normalizers:
            texts = normalizer.normalize_batch(texts)
        return texts

    def keeps(self, char):
        return all(normalizer.keeps(char) for normalizer in self.normalizers)

    def character_rule(self):
        rules = [normalizer.character_rule() for normalizer in self.normalizers]
        if any(rule is None for rule in rules):
            return None
        return _composed(cast(list[Callable[[str], "str | None"]], rules))

    def decomposition(self):
        # the first stage that decomposes splits the sequence; every other stage is a character rule
        # (one that still needs its neighbours makes the native table refuse that character)
        for place, stage in enumerate(self.normalizers):
            split = stage.decomposition()
            if split is None:
                continue
            rules = [normalizer.character_rule() for i, normalizer in enumerate(self.normalizers) if i != place]
            if any(rule is None for rule in rules):
                return None
            before = _composed([*rules[:place], split.before])
            after = _composed([split.after, *rules[place:]])
            return Decomposition(before, split.form, after, split.compose)
        return None


def _composed(rules):
    """One character through each rule in turn (None as soon as one says the neighbours matter)."""

    def rule(c):
        text = c
        for one in rules:
            parts = []
            for d in text:
                part = one(d)
                if part is None:
                    return None
                parts.append(part)
            text = "".join(parts)
        return text

    return rule


class SentencePieceNormalizer(Normalizer):
    """sentencepiece's own normalization, as a ``.model`` file specifies it: its precompiled character
    map (NFKC and more, longest match first), then leading, trailing and repeated spaces removed,
    spaces written ``▁`` and a ``▁`` prepended. User-defined symbols pass through unchanged. It runs in
    C (``csrc/charsmap.c``); offsets follow sentencepiece's.

    Args:
        precompiled_charsmap: the map as stored in the model (base64 text; empty: no mapping).
        add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces: as in sentencepiece's
            ``NormalizerSpec``.
        user_defined_symbols: strings left as they are.

    Example:
        >>> SentencePieceNormalizer().normalize_str("  Hello   world ")
        '▁Hello▁world'
    """

    def __init__(
        self,
        precompiled_charsmap: str = "",
        add_dummy_prefix: bool = True,
        remove_extra_whitespaces: bool = True,
        escape_whitespaces: bool = True,
        user_defined_symbols: Iterable[str] = (),
    ) -> None:
        self.precompiled_charsmap = precompiled_charsmap
        self.add_dummy_prefix = bool(add_dummy_prefix)
        self.remove_extra_whitespaces = bool(remove_extra_whitespaces)
        self.escape_whitespaces = bool(escape_whitespaces)
        self.user_defined_symbols = list(user_defined_symbols)
        self._map = CharsMap.from_base64(precompiled_charsmap)
        # longest first: at each position the longest symbol that starts there is kept whole
        self._symbols = tuple(sorted(set(self.user_defined_symbols), key=len, reverse=True))

    def get_config(self):
        return {
            "precompiled_charsmap": self.precompiled_charsmap,
            "add_dummy_prefix": self.add_dummy_prefix,
            "remove_extra_whitespaces": self.remove_extra_whitespaces,
            "escape_whitespaces": self.escape_whitespaces,
            "user_defined_symbols": self.user_defined_symbols,
        }

    def _normalize(self, text, spans):
        return self._map.normalize(
            text,
            self._symbols,
            self.add_dummy_prefix,
            self.remove_extra_whitespaces,
            self.escape_whitespaces,
            spans,
        )

    def normalize(self, normalized):
        text, starts, ends = self._normalize(normalized.text, spans=True)
        spans = normalized.spans
        out_spans = [
            (spans[start][0], spans[start][0]) if start == end else (spans[start][0], spans[end - 1][1])
            for start, end in zip(array("q", starts), array("q", ends))
        ]
        return Normalized(text, out_spans)

    def normalize_str(self, text):
        return self._normalize(text, spans=False)[0]

    def normalize_batch(self, texts):
        return self._map.normalize_batch(
            texts, self._symbols, self.add_dummy_prefix, self.remove_extra_whitespaces, self.escape_whitespaces
        )

    def normalize_token(self, text):
        """The character map alone: a user-defined symbol is matched as it is."""
        return self._map.normalize(text, self._symbols)[0]
