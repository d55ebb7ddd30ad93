"""Normalizers: clean up text before pre-tokenization, keeping track of where every character came from.

``normalize(text)`` returns a :class:`Normalized`: the new text and, for each of its characters, the
``(start, end)`` span of original characters it stands for, so token offsets can point into the
original text. Every transformation works character by character (decompositions, case mappings and
removals keep exact spans), following Hugging Face ``tokenizers``' alignment rules for decomposition,
reordering and composition.
"""

from __future__ import annotations

import base64
import unicodedata
from array import array
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, Literal, cast

import regex

from kvec.common.arguments import wrong_type
from kvec.common.patterns import Regex, compile_pattern, find_matches, pattern_json
from kvec.contracts import Decomposition, Normalized, Normalizer, StageList, registered
from kvec.models.spec_bytes import SENTENCEPIECE_NORMALIZER, string, u32
from kvec.pre_tokenizers import byte_spelling
from kvec.unicode import hf_unicode
from kvec.unicode.charsmap import CharsMap

__all__ = [
    "BertNormalizer",
    "ByteLevel",
    "Lowercase",
    "NFC",
    "NFD",
    "NFKC",
    "NFKD",
    "Normalized",
    "OpenCC",
    "Precompiled",
    "Prepend",
    "Regex",
    "Replace",
    "Sequence",
    "SentencePieceNormalizer",
    "Strip",
    "StripAccents",
]


@registered
class Lowercase(Normalizer):
    """Lowercase each character as HF does (Rust's ``char::to_lowercase``, Unicode 17.0.0, see
    :mod:`kvec.unicode.hf_unicode`): no context rules such as the Greek final sigma.

    Example:
        >>> Lowercase().normalize_str("HELLO Σ")
        'hello σ'
    """

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__}

    def normalize(self, normalized: Normalized) -> Normalized:
        return normalized.map(hf_unicode.lower)

    def keeps(self, char: str) -> bool:
        return hf_unicode.lower(char) == char

    def character_rule(self) -> Callable[[str], str | None] | None:
        return hf_unicode.lower

    def normalize_str(self, text: str) -> str:
        return hf_unicode.lowercase(text)


@registered
class OpenCC(Normalizer):
    """Chinese script conversion with OpenCC, such as Traditional to Simplified (``config="t2s"``).

    Needs the ``opencc`` package (``pip install 'kvec[chinese]'``). A conversion that keeps the length
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
            raise ImportError("the OpenCC normalizer needs the opencc package: pip install 'kvec[chinese]'") from None
        self._opencc = opencc
        self.config = config

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name == "config":  # set after construction too: the converter follows it
            self._converter = self._opencc.OpenCC(value)

    def get_config(self) -> dict[str, Any]:
        return {"config": self.config}

    def __getstate__(self) -> dict[str, Any]:  # the converter is rebuilt in another process
        return {"config": self.config}

    def __setstate__(self, state: dict[str, Any]) -> None:
        OpenCC.__init__(self, state["config"])

    def normalize(self, normalized: Normalized) -> Normalized:
        converted = self._converter.convert(normalized.text)
        if len(converted) == len(normalized.text):
            return Normalized(converted, normalized.spans)
        return normalized.map(self._converter.convert)


@registered
class Prepend(Normalizer):
    """Put ``prepend`` before a non-empty text (its characters stand for the first character's span).

    Example:
        >>> Prepend("▁").normalize_str("Hey")
        '▁Hey'
    """

    def __init__(self, prepend: str) -> None:
        if not isinstance(prepend, str):
            raise wrong_type("prepend", "a str", prepend)
        self.prepend = prepend

    def get_config(self) -> dict[str, Any]:
        return {"prepend": self.prepend}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": "Prepend", "prepend": self.prepend}

    def normalize_token(self, text: str) -> str:
        return text  # a token inside a text gets no prefix (unlike Hugging Face, which adds it)

    def normalize(self, normalized: Normalized) -> Normalized:
        if not normalized.text:
            return normalized
        return Normalized(self.prepend + normalized.text, [normalized.spans[0]] * len(self.prepend) + normalized.spans)

    def normalize_str(self, text: str) -> str:
        return self.prepend + text if text else text


@registered
class Replace(Normalizer):
    """Replace every match of ``pattern`` by ``content``, left to right, as Hugging Face's ``Replace``:
    a ``str`` pattern is found literally, a :class:`Regex` is a regular expression. Every new
    character stands for the last character of its match (for an empty match, the character before
    it), as ``tokenizers`` aligns them.

    Example:
        >>> Replace(" ", "▁").normalize_str("Hey you"), Replace(Regex(r"\\s+"), " ").normalize_str("a \\t b")
        ('Hey▁you', 'a b')
    """

    takes_pattern = True

    def __init__(self, pattern: str | Regex, content: str) -> None:
        self._compiled = compile_pattern(pattern)
        self._pattern = pattern
        if not isinstance(content, str):
            raise wrong_type("content", "a str", content)
        self.content = content

    @property
    def pattern(self) -> str | Regex:
        """Not readable, as in ``tokenizers``: the pattern is in ``get_config()["pattern"]``. Setting it
        raises too: make a new ``Replace``."""
        raise Exception("Cannot get pattern")

    @pattern.setter
    def pattern(self, pattern: str | Regex) -> None:
        raise Exception("Cannot set pattern, please instantiate a new replace pattern instead")

    def get_config(self) -> dict[str, Any]:
        return {"pattern": self._pattern, "content": self.content}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": "Replace", "pattern": pattern_json(self._pattern), "content": self.content}

    def _literal(self):
        """The pattern when it is a non-empty literal string, else None."""
        return self._pattern if isinstance(self._pattern, str) and self._pattern else None

    def keeps(self, char: str) -> bool:
        if isinstance(self._pattern, Regex):
            return False
        return char not in self._pattern  # an empty pattern inserts content, but keeps every character

    def normalize_str(self, text: str) -> str:
        literal = self._literal()
        if literal is not None:
            return text.replace(literal, self.content)  # leftmost, not overlapping: as the matches
        return self.normalize(Normalized.of(text)).text

    def character_rule(self) -> Callable[[str], str | None] | None:
        literal = self._literal()
        if literal is None or len(literal) != 1:
            return None
        content = self.content
        return lambda c: content if c == literal else c

    def normalize(self, normalized: Normalized) -> Normalized:
        text, spans = normalized.text, normalized.spans
        chars, new_spans = [], []
        for start, end, is_match in find_matches(self._compiled, text):
            if not is_match:
                chars.append(text[start:end])
                new_spans.extend(spans[start:end])
                continue
            chars.append(self.content)
            # tokenizers inserts the content after the match, removed: each new character shares the
            # span of the character before it, the match's last one
            new_spans.extend([spans[end - 1] if end else (0, 0)] * len(self.content))
        return Normalized("".join(chars), new_spans)


@registered
class Strip(Normalizer):
    """Remove the whitespace (Unicode ``White_Space``) at the start (``left``) and at the end (``right``)
    of the text, as Hugging Face's ``Strip``; the characters kept keep their spans.

    Example:
        >>> Strip().normalize_str("  hello world \\n"), Strip(right=False).normalize_str("  hello  ")
        ('hello world', 'hello  ')
    """

    def __init__(self, left: bool = True, right: bool = True) -> None:
        self.left = left
        self.right = right

    def get_config(self) -> dict[str, Any]:
        return {"left": self.left, "right": self.right}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": "Strip", "strip_left": self.left, "strip_right": self.right}

    def keeps(self, char: str) -> bool:
        return not hf_unicode.is_whitespace(char)

    def _bounds(self, text):
        start, end = 0, len(text)
        if self.left:
            while start < end and hf_unicode.is_whitespace(text[start]):
                start += 1
        if self.right:
            while end > start and hf_unicode.is_whitespace(text[end - 1]):
                end -= 1
        return start, end

    def normalize(self, normalized: Normalized) -> Normalized:
        start, end = self._bounds(normalized.text)
        return Normalized(normalized.text[start:end], normalized.spans[start:end])

    def normalize_str(self, text: str) -> str:
        start, end = self._bounds(text)
        return text[start:end]


@registered
class ByteLevel(Normalizer):
    """Spell every UTF-8 byte of the text as one printable character, as GPT-2's byte-level
    pre-tokenizer does (Hugging Face's ``normalizers.ByteLevel``); the characters of a character's
    bytes stand for its span.

    Example:
        >>> ByteLevel().normalize_str("hello\\nwörld")
        'helloĊwÃ¶rld'
    """

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__}

    def normalize(self, normalized: Normalized) -> Normalized:
        return normalized.map(byte_spelling)

    def normalize_str(self, text: str) -> str:
        return byte_spelling(text)

    def keeps(self, char: str) -> bool:
        return "!" <= char <= "~"  # the ASCII bytes spelled as themselves

    def character_rule(self) -> Callable[[str], str | None] | None:
        return byte_spelling


@registered
class Precompiled(Normalizer):
    """A sentencepiece model's precompiled character map (its NFKC and more), applied as Hugging Face's
    ``Precompiled`` applies it: each grapheme cluster (of fewer than 6 UTF-8 bytes) that starts with a
    key of the map becomes that key's replacement (the shortest such key), else each of its characters
    is looked up alone. Only the map: no whitespace rules (see :class:`SentencePieceNormalizer` for
    sentencepiece's own normalization).

    Args:
        precompiled_charsmap: the map as stored in a ``.model`` file: ``bytes``, or base64 text as
            ``tokenizer.json`` holds it (empty: no mapping).

    Example:
        >>> Precompiled(b"").normalize_str("ｶﾞ①")  # an empty map leaves the text as it is
        'ｶﾞ①'
    """

    def __init__(self, precompiled_charsmap: bytes | str) -> None:
        self.precompiled_charsmap = precompiled_charsmap

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "precompiled_charsmap":
            if isinstance(value, (bytes, bytearray)):
                self._map = CharsMap(bytes(value))
            elif isinstance(value, str):
                self._map = CharsMap.from_base64(value)
            else:
                raise wrong_type("precompiled_charsmap", "bytes or base64 str", value)
        super().__setattr__(name, value)

    def get_config(self) -> dict[str, Any]:
        return {"precompiled_charsmap": base64.b64encode(self._map.blob).decode("ascii")}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__, **self.get_config()}

    def __reduce__(self) -> tuple[Any, ...]:  # the C table is made again from the map's bytes
        return (Precompiled, (self._map.blob,))

    def normalize(self, normalized: Normalized) -> Normalized:
        stream: list[tuple[str, int]] = []
        modified = False
        for grapheme in _GRAPHEME.findall(normalized.text):
            if len(grapheme.encode("utf-8", "surrogatepass")) < 6:
                replacement = self._map.shortest_match(grapheme)
                if replacement is not None:
                    modified = True
                    _replaced(stream, len(grapheme), replacement)
                    continue
            for c in grapheme:
                replacement = self._map.shortest_match(c)
                if replacement is None:
                    stream.append((c, 0))
                else:
                    modified = True
                    _replaced(stream, 1, replacement)
        return normalized.transform(stream) if modified else normalized


_GRAPHEME = regex.compile(r"\X", regex.DOTALL)


def _replaced(stream, old_length, new):
    """``new`` in place of ``old_length`` characters, with tokenizers' changes for Precompiled: each new
    character replaces one, the extra ones are inserted, and the last one before (possibly the previous
    character) removes what is left."""
    stream.extend((c, 0) for c in new)
    difference = len(new) - old_length
    if difference > 0:
        for k in range(len(stream) - difference, len(stream)):
            stream[k] = (stream[k][0], 1)
    elif difference < 0 and stream:
        stream[-1] = (stream[-1][0], stream[-1][1] + difference)


@registered
class StripAccents(Normalizer):
    """Remove every mark (categories Mn, Mc and Me of Unicode 9.0.0, as HF's StripAccents: see
    :mod:`kvec.unicode.hf_unicode`); use after NFD or NFKD.

    Example:
        >>> StripAccents().normalize_str(NFD().normalize_str("Café"))
        'Cafe'
    """

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__}

    def normalize(self, normalized: Normalized) -> Normalized:
        return normalized.map(_without_mark)

    def keeps(self, char: str) -> bool:
        return _without_mark(char) == char

    def character_rule(self) -> Callable[[str], str | None] | None:
        return _without_mark


def _without_mark(c):
    return "" if hf_unicode.is_mark(c) else c


class _UnicodeForm(Normalizer):
    """A Unicode normalization form of Unicode 9.0.0, as HF's (see :mod:`kvec.unicode.hf_unicode`): a code
    point assigned later is left as it is, a starter."""

    form: hf_unicode.Form  # set by each form

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__}

    def normalize(self, normalized: Normalized) -> Normalized:
        # (char, change): the first char of a decomposition replaces its source, others are inserted
        stream: list[tuple[str, int]] = []
        for c in normalized.text:
            parts = hf_unicode.decompose(c, self._decomposition())
            stream.extend((d, 1 if i else 0) for i, d in enumerate(parts))
        stream = hf_unicode.canonical_order(stream, _first)
        if self.form in ("NFC", "NFKC"):
            stream = _compose(stream)
        return normalized.transform(stream)

    def normalize_str(self, text: str) -> str:
        return hf_unicode.normalize(self.form, text)

    def keeps(self, char: str) -> bool:
        # only marks move when decomposing; composing may join a character to the next one
        return self.form in ("NFD", "NFKD") and self.character_rule()(char) == char

    def character_rule(self) -> Callable[[str], str | None]:
        # A character is normalized alone unless its decomposition starts with a character that may
        # join the one before it: a combining mark (reordered with the marks before it, or composed)
        # or, when composing, the second character of a composition (Hangul vowels and trailing
        # consonants, and a few more).
        decomposition = self._decomposition()
        seconds = _composition_seconds() if self.form in ("NFC", "NFKC") else frozenset()

        def rule(c):
            first = hf_unicode.decompose(c, decomposition)[:1]
            if hf_unicode.combining(first) or first in seconds:
                return None
            return self.normalize(Normalized.of(c)).text

        return rule

    def decomposition(self) -> Decomposition | None:
        composes = self.form in ("NFC", "NFKC")
        return Decomposition(_unchanged, self._decomposition(), _unchanged, compose=composes)

    def _decomposition(self) -> Literal["NFD", "NFKD"]:
        return "NFKD" if "K" in self.form else "NFD"


def _unchanged(c):
    return c


def _first(item):
    return item[0]


@registered
class NFD(_UnicodeForm):
    """Canonical decomposition.

    Example:
        >>> [hex(ord(c)) for c in NFD().normalize_str("é")]
        ['0x65', '0x301']
    """

    form = "NFD"


@registered
class NFKD(_UnicodeForm):
    """Compatibility decomposition."""

    form = "NFKD"


@registered
class NFC(_UnicodeForm):
    """Canonical decomposition, then canonical composition.

    Example:
        >>> NFC().normalize_str("e\\u0301") == "\\u00e9"
        True
    """

    form = "NFC"


@registered
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
            if hf_unicode.compose(first, second) == chr(code_point):
                seconds.add(second)
    return frozenset(seconds)


def _compose(stream):
    """Canonical composition: a character joins the last starter unless blocked.

    The composite takes over what both consumed: ``change = change(starter) + change(absorbed) - 1``.
    """
    out: list[tuple[str, int]] = []
    starter = None  # index in out of the last starter
    last_class = 0
    for c, change in stream:
        ccc = hf_unicode.combining(c)
        if starter is not None and (last_class < ccc or (last_class == 0 and starter == len(out) - 1)):
            composite = hf_unicode.compose(out[starter][0], c)
            if composite is not None:
                out[starter] = (composite, out[starter][1] + change - 1)
                continue
        if ccc == 0:
            starter = len(out)
            last_class = 0
        else:
            last_class = ccc
        out.append((c, change))
    return out


def _is_chinese(c):
    return _CHINESE.match(c) is not None


# the CJK ideographs BERT puts spaces around (HF's ranges)
_CHINESE = regex.compile(
    "[\u4e00-\u9fff\u3400-\u4dbf\U00020000-\U0002a6df\U0002a700-\U0002b73f\U0002b740-\U0002b81f"
    "\U0002b920-\U0002ceaf\uf900-\ufaff\U0002f800-\U0002fa1f]"
)


@registered
class BertNormalizer(Normalizer):
    """BERT's normalizer, as Hugging Face's: every code point is classified by HF's tables
    (:mod:`kvec.unicode.hf_unicode`), so a BERT vocabulary gets the ids it was trained with.

    Args:
        clean_text: remove NUL, U+FFFD and control characters (Cc, Cf and Co of Unicode 8.0.0, not tab,
            newline or carriage return; unassigned code points stay), turn every whitespace into a space.
        handle_chinese_chars: put spaces around CJK ideographs so each becomes a word.
        strip_accents: NFD (Unicode 9.0.0) and remove nonspacing marks (Mn of Unicode 8.0.0); None
            follows ``lowercase``.
        lowercase: lowercase every character (Unicode 17.0.0, as :class:`Lowercase`).

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

    def get_config(self) -> dict[str, Any]:
        return {
            "clean_text": self.clean_text,
            "handle_chinese_chars": self.handle_chinese_chars,
            "strip_accents": self.strip_accents,
            "lowercase": self.lowercase,
        }

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__, **self.get_config()}

    def normalize_str(self, text: str) -> str:
        # as normalize, on the text alone: each step over the whole text at once
        if self.clean_text:
            text = _BERT_SPACES.sub(" ", _BERT_REMOVED.sub("", text))
        if self.handle_chinese_chars:
            text = _CHINESE.sub(r" \g<0> ", text)
        if self.lowercase if self.strip_accents is None else self.strip_accents:
            text = hf_unicode.remove_nonspacing_marks(hf_unicode.normalize("NFD", text))
        return hf_unicode.lowercase(text) if self.lowercase else text

    def normalize(self, normalized: Normalized) -> Normalized:
        if self.clean_text:
            normalized = normalized.map(_clean)
        if self.handle_chinese_chars:
            normalized = normalized.map(lambda c: f" {c} " if _is_chinese(c) else c)
        strip = self.lowercase if self.strip_accents is None else self.strip_accents
        if strip:  # BERT removes nonspacing marks (Mn) only, unlike StripAccents
            normalized = NFD().normalize(normalized).map(_without_nonspacing_mark)
        if self.lowercase:
            normalized = Lowercase().normalize(normalized)
        return normalized

    def keeps(self, char: str) -> bool:
        return self.character_rule()(char) == char

    def character_rule(self) -> Callable[[str], str | None]:
        strip = self.lowercase if self.strip_accents is None else self.strip_accents

        def rule(c):
            text = self.normalize_str(c)
            # with accents stripped, a mark that stays may be reordered with the marks around it
            return None if strip and any(map(hf_unicode.combining, text)) else text

        return rule

    def decomposition(self) -> Decomposition | None:
        if not (self.lowercase if self.strip_accents is None else self.strip_accents):
            return None  # the character rule says it all
        cleaned = BertNormalizer(self.clean_text, self.handle_chinese_chars, strip_accents=False, lowercase=False)
        before = cast(Callable[[str], str], cleaned.character_rule())
        lowercase = self.lowercase

        def after(c):  # the nonspacing marks removed, then lowercased
            if hf_unicode.is_nonspacing_mark(c):
                return ""
            return hf_unicode.lower(c) if lowercase else c

        return Decomposition(before, "NFD", after)


def _clean(c):
    # Controls go first, even those that are also whitespace (form feed, U+0085); tab, newline and
    # carriage return are kept as whitespace.
    if _BERT_REMOVED.match(c):
        return ""
    return " " if _BERT_SPACES.match(c) else c


def _without_nonspacing_mark(c):
    return "" if hf_unicode.is_nonspacing_mark(c) else c


# _clean over a whole text: the characters it removes (NUL and U+FFFD, and controls but tab, newline
# and carriage return), then those it makes spaces
_BERT_REMOVED = regex.compile(f"(?![\t\n\r])[{hf_unicode.CONTROL}\ufffd]")
_BERT_SPACES = regex.compile(f"[{hf_unicode.WHITE_SPACE}]")


@registered
class Sequence(StageList, Normalizer):
    """Apply normalizers one after the other. ``sequence[i]`` is the i-th normalizer, and can be
    replaced (``sequence[1] = Strip()``); ``len(sequence)`` counts them.

    Example:
        >>> Sequence([NFD(), StripAccents(), Lowercase()]).normalize_str("Ångström")
        'angstrom'
    """

    nested_stages = "normalizers"

    _stages_attribute = "normalizers"
    _stage_type = Normalizer

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": "Sequence", "normalizers": [n.to_tokenizer_json() for n in self.normalizers]}

    def __init__(self, normalizers: Iterable[Normalizer]) -> None:
        self.normalizers = list(normalizers)

    def normalize(self, normalized: Normalized) -> Normalized:
        for normalizer in self.normalizers:
            normalized = normalizer.normalize(normalized)
        return normalized

    def normalize_token(self, text: str) -> str:
        for normalizer in self.normalizers:
            text = normalizer.normalize_token(text)
        return text

    def normalize_str(self, text: str) -> str:
        for normalizer in self.normalizers:
            text = normalizer.normalize_str(text)
        return text

    def normalize_batch(self, texts: list[str]) -> list[str]:
        for normalizer in self.normalizers:
            texts = normalizer.normalize_batch(texts)
        return texts

    def keeps(self, char: str) -> bool:
        return all(normalizer.keeps(char) for normalizer in self.normalizers)

    def character_rule(self) -> Callable[[str], str | None] | None:
        rules = [normalizer.character_rule() for normalizer in self.normalizers]
        if any(rule is None for rule in rules):
            return None
        return _composed(cast(list[Callable[[str], "str | None"]], rules))

    def decomposition(self) -> Decomposition | None:
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


@registered
class SentencePieceNormalizer(Normalizer):
    """sentencepiece's own normalization, as a ``.model`` file specifies it: its precompiled character
    map (NFKC and more, longest match first), then leading, trailing and repeated spaces removed,
    spaces written ``▁`` and a ``▁`` prepended. User-defined symbols pass through unchanged. It runs in
    C (``csrc/core/precompiled_charsmap.c``), in the native encoder too; offsets follow sentencepiece's.

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

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name == "precompiled_charsmap":  # set after construction too: the map follows it
            self._map = CharsMap.from_base64(value)
        elif name == "user_defined_symbols":
            # longest first: at each position the longest symbol that starts there is kept whole
            self._symbols = tuple(sorted(set(value), key=len, reverse=True))

    def get_config(self) -> dict[str, Any]:
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

    def normalize(self, normalized: Normalized) -> Normalized:
        text, starts, ends = self._normalize(normalized.text, spans=True)
        spans = normalized.spans
        out_spans = [
            (spans[start][0], spans[start][0]) if start == end else (spans[start][0], spans[end - 1][1])
            for start, end in zip(array("q", starts), array("q", ends))
        ]
        return Normalized(text, out_spans)

    def normalize_str(self, text: str) -> str:
        return self._normalize(text, spans=False)[0]

    def normalize_token(self, text: str) -> str:
        """The character map alone: a user-defined symbol is matched as it is."""
        return self._map.normalize(text, self._symbols)[0]

    def native_normalizer(self) -> bytes:
        """Its rules, its map's trie and replacements, its user-defined symbols (longest first)."""
        rules = self.add_dummy_prefix | self.remove_extra_whitespaces << 1 | self.escape_whitespaces << 2
        symbols = [symbol for symbol in self._symbols if symbol]
        trie, replacements = self._map.trie, self._map.replacements
        parts = [u32(SENTENCEPIECE_NORMALIZER), u32(rules), u32(len(trie)), trie, u32(len(replacements)), replacements]
        return b"".join([*parts, u32(len(symbols)), *map(string, symbols)])
