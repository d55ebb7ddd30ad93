"""Pre-tokenizers: split a text into the words a subword model works on, keeping offsets.

``pre_tokenize(text)`` returns a list of :class:`Piece`: the word as the model sees it, plus, for each of
its characters, the ``(start, end)`` span of original characters it came from. Most pieces are plain
substrings; byte-level pieces spell each UTF-8 byte of the original as one printable character.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable
from dataclasses import replace
from functools import cache
from typing import Any, ClassVar, cast

import regex

from kvec._keras import WordSplitter
from kvec.common.arguments import must_be, wrong_type
from kvec.common.patterns import Regex, compile_pattern, find_matches, pattern_json
from kvec.contracts import JsonState, Piece, PreTokenizer, StageList, WordTable, registered, utf8_text
from kvec.unicode import char_classes, hf_unicode
from kvec.unicode.scripts import ANY, script_classes

__all__ = [
    "CL100K_PATTERN",
    "DEFAULT_FILTERS",
    "BertPreTokenizer",
    "ByteLevel",
    "CharDelimiterSplit",
    "Digits",
    "FixedLength",
    "KerasFilters",
    "Metaspace",
    "Piece",
    "Punctuation",
    "Regex",
    "SentencePiece",
    "Sequence",
    "Split",
    "UnicodeScripts",
    "Whitespace",
    "WhitespaceSplit",
    "byte_level_bytes",
    "byte_spelling",
    "byte_level_decode",
    "bytes_to_unicode",
]


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's printable spelling of the 256 byte values.

    Printable Latin-1 bytes (``!``..``~``, 0xA1..0xAC, 0xAE..0xFF) stand for themselves; the other 68
    bytes, in ascending order, map to ``chr(256 + n)`` (space is ``Ġ``, newline ``Ċ``).
    """
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    mapping, extra = {}, 0
    for b in range(256):
        if b in printable:
            mapping[b] = chr(b)
        else:
            mapping[b] = chr(256 + extra)
            extra += 1
    return mapping


# the legacy Keras Tokenizer's filters: all punctuation plus tab and newline, less the ' character
DEFAULT_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'

_BYTE_TO_CHAR = bytes_to_unicode()
_CHAR_TO_BYTE = {c: b for b, c in _BYTE_TO_CHAR.items()}
_LATIN1_TO_SPELLING = {b: c for b, c in _BYTE_TO_CHAR.items()}
_GPT2_PATTERN = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
#: tiktoken's cl100k_base expression (GPT-4's; Llama 3's tokenizer.json splits with it too)
CL100K_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"""
    r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)


@registered
class ByteLevel(JsonState, PreTokenizer):
    """GPT-2's byte-level pre-tokenizer.

    Splits with GPT-2's regular expression (contractions, letters, digits, other symbols, spaces), then
    spells every UTF-8 byte as one printable character, so any text is covered by 256 base symbols.

    Args:
        add_prefix_space: prepend a space when the text does not start with one, so the first word is
            spelled like the others (``Ġword``).
        trim_offsets: kept for ``tokenizers``' files and API (its ByteLevel is also a post-processor,
            where this trims offsets: see :class:`kvec.processors.ByteLevel`); it does not change the
            words.
        use_regex: split with the regular expression (else the whole text is one piece).
        type: ``"ByteLevel"`` only: what ``json.loads(pre_tokenizer.__getstate__())`` holds besides
            the settings, so that ``ByteLevel(**state)`` rebuilds it, as in ``tokenizers``.

    Example:
        >>> [p.text for p in ByteLevel().pre_tokenize("Hello world!")]
        ['ĠHello', 'Ġworld', '!']
    """

    trim_offsets = True  # what a ByteLevel pickled by a kvec from before the setting has

    def __init__(
        self, add_prefix_space: bool = True, trim_offsets: bool = True, use_regex: bool = True, **state: str
    ) -> None:
        self._state_keywords(state)
        self.add_prefix_space = add_prefix_space
        self.trim_offsets = trim_offsets
        self.use_regex = use_regex

    def get_config(self) -> dict[str, Any]:
        return {
            "add_prefix_space": self.add_prefix_space,
            "trim_offsets": self.trim_offsets,
            "use_regex": self.use_regex,
        }

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {
            "type": "ByteLevel",
            "add_prefix_space": self.add_prefix_space,
            "trim_offsets": self.trim_offsets,
            "use_regex": self.use_regex,
        }

    @staticmethod
    def char_classes() -> bytes:
        """The classes of GPT-2's expression for the C encoder: other, whitespace, letters, numbers."""
        return char_classes.table(runs=(r"\s", r"\p{L}", r"\p{N}"))

    def word_table(self) -> WordTable | None:
        classes = self.char_classes() if self.use_regex else b""  # without the expression: one word
        prefix = " " if self.add_prefix_space else ""
        spelling = "".join(_BYTE_TO_CHAR[b] for b in range(256))
        expression = "gpt2" if self.use_regex else ""
        return WordTable(classes, expression=expression, prefix=prefix, spelled=True, byte_spelling=spelling)

    @staticmethod
    def alphabet() -> list[str]:
        """The 256 characters of the byte spelling (pass them as a trainer's ``initial_alphabet``)."""
        return sorted(_BYTE_TO_CHAR.values())

    def pre_tokenize(self, text: str, first: int = True) -> list[Piece]:
        prefix = self.add_prefix_space and text and not text.startswith(" ")
        source = " " + text if prefix else text
        shift = 1 if prefix else 0
        pieces = []
        for start, end in self._matches(source):
            chunk = source[start:end]
            spelled = _spell(chunk)
            if len(spelled) == len(chunk):  # one byte per character: offsets follow positions
                pieces.append(Piece(spelled, start - shift))
                continue
            spans = []
            for i in range(start, end):
                original = max(i - shift, 0)  # the added space is aligned with the first character
                spans.extend([(original, original + 1)] * len(source[i].encode("utf-8", "surrogatepass")))
            pieces.append(Piece(spelled, start - shift, spans))
        return pieces

    def split_words(self, text: str, first: int = True) -> list[str]:
        """The words without offsets and before spelling; ``spell`` turns each into what the model
        sees. Training counts these and spells only the distinct ones."""
        if self.add_prefix_space and text and not text.startswith(" "):
            text = " " + text
        if not self.use_regex:
            return [text] if text else []
        return _GPT2_PATTERN.findall(text)

    @staticmethod
    def spell(word: str) -> str:
        return _spell(word)

    def _matches(self, text):
        if not self.use_regex:
            return [(0, len(text))] if text else []
        return [m.span() for m in _GPT2_PATTERN.finditer(text)]


def byte_spelling(text: str) -> str:
    """``text`` spelled byte by byte: each UTF-8 byte as its printable character (GPT-2's, see
    :func:`bytes_to_unicode`)."""
    return _spell(text)


def _spell(chunk):
    """The byte spelling of a string: its UTF-8 bytes read as Latin-1, then mapped to GPT-2's characters."""
    return chunk.encode("utf-8", "surrogatepass").decode("latin-1").translate(_LATIN1_TO_SPELLING)


class _RegexWords(PreTokenizer):
    """A pre-tokenizer whose words are the matches of one regular expression (``_pattern``)."""

    _pattern: Any = None  # a compiled expression: set by each kind

    def get_config(self) -> dict[str, Any]:
        return {}

    def pre_tokenize(self, text: str, first: int = True) -> list[Piece]:
        return [Piece(m.group(), m.start()) for m in self._pattern.finditer(text)]

    def split_words(self, text: str, first: int = True) -> list[str]:
        return self._pattern.findall(text)


class _CharClassWords(_RegexWords):
    """A pre-tokenizer that cuts by character class alone: a table of one class per code point
    (:meth:`char_classes`, built from the same patterns) gives the C encoder the same words."""

    @abstractmethod
    def char_classes(self) -> bytes:
        """The class of every code point as ``bytes`` (see :func:`kvec.unicode.char_classes.table`)."""

    def word_table(self) -> WordTable | None:
        return WordTable(self.char_classes())


class _ClassLetterWords(_CharClassWords):
    """A pre-tokenizer whose ``_pattern`` runs over the text's class letters (:func:`char_classes.letters`),
    not the text: fast however many ranges its classes have. Its classes depend on its type alone."""

    def pre_tokenize(self, text: str, first: int = True) -> list[Piece]:
        return [Piece(text[a:b], a) for a, b in self._spans(text)]

    def split_words(self, text: str, first: int = True) -> list[str]:
        return [text[a:b] for a, b in self._spans(text)]

    def _spans(self, text):
        return [m.span() for m in self._pattern.finditer(text.translate(_class_letters(type(self))))]


@cache
def _class_letters(kind):
    """The class letters of a :class:`_ClassLetterWords` type, worked out once."""
    return char_classes.letters(kind.char_classes())


@registered
class Whitespace(_ClassLetterWords):
    """Words of ``\\w+`` and runs of other non-space characters ``[^\\w\\s]+``, with Hugging Face's
    classes: ``\\w`` of Unicode 16.0.0 and ``\\s`` of Unicode 17.0.0 (see :mod:`kvec.unicode.hf_unicode`).

    Example:
        >>> [p.text for p in Whitespace().pre_tokenize("Hi, there!")]
        ['Hi', ',', 'there', '!']
    """

    _pattern = regex.compile("2+|3+")  # over the text's class letters: word characters, other non-spaces

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__}

    @staticmethod
    def char_classes() -> bytes:
        return char_classes.table(
            dropped=f"[{hf_unicode.WHITE_SPACE}]", runs=(f"[^{hf_unicode.WORD}{hf_unicode.WHITE_SPACE}]",)
        )


@registered
class WhitespaceSplit(_CharClassWords):
    """Split on whitespace only.

    Example:
        >>> [p.text for p in WhitespaceSplit().pre_tokenize("Hi, there!")]
        ['Hi,', 'there!']
    """

    _pattern = regex.compile(r"\S+")

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__}

    @staticmethod
    def char_classes() -> bytes:
        return char_classes.table(dropped=r"\s")


@registered
class BertPreTokenizer(_ClassLetterWords):
    """BERT's split: whitespace separates words and is dropped; every punctuation character (Unicode
    punctuation or ASCII symbol) is a word of its own. The classes are Hugging Face's (whitespace of
    Unicode 17.0.0, punctuation of Unicode 8.0.0: see :mod:`kvec.unicode.hf_unicode`).

    Example:
        >>> [p.text for p in BertPreTokenizer().pre_tokenize("Hey, it's $5!")]
        ['Hey', ',', 'it', "'", 's', '$', '5', '!']
    """

    _pattern = regex.compile("2+|1")  # over the text's class letters: runs of other characters, punctuation

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__}

    @staticmethod
    def char_classes() -> bytes:
        return char_classes.table(dropped=f"[{hf_unicode.WHITE_SPACE}]", alone=f"[{hf_unicode.PUNCTUATION}]")


# HF's classes (kvec.unicode.hf_unicode): ASCII symbols and Unicode 8.0.0's punctuation; Rust's char::is_numeric
_PUNCTUATION = regex.compile(f"[{hf_unicode.PUNCTUATION}]")
_DIGIT = regex.compile(f"[{hf_unicode.NUMBER}]")
_ALONE = regex.compile("1")  # an isolated character among class letters (char_classes.letters)
BEHAVIORS = ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")
#: Hugging Face's name of each behavior, as tokenizer.json spells it
HF_BEHAVIORS = {
    "Removed": "removed",
    "Isolated": "isolated",
    "MergedWithPrevious": "merged_with_previous",
    "MergedWithNext": "merged_with_next",
    "Contiguous": "contiguous",
}


def hf_behavior(behavior: str) -> str:
    """tokenizer.json's name of a split ``behavior`` ("merged_with_next" is "MergedWithNext")."""
    return next(name for name, known in HF_BEHAVIORS.items() if known == behavior)


def _split_spans(text, pattern, behavior, invert=False):
    """Cut ``text`` at the matches of ``pattern`` (with ``invert``, at the stretches between them) with
    Hugging Face's delimiter rules."""
    segments = [(a, b, match != invert) for a, b, match in find_matches(pattern, text)]  # (start, end, is_match)
    if behavior == "removed":
        return [(a, b) for a, b, match in segments if not match and b > a]
    if behavior == "isolated":
        return [(a, b) for a, b, _ in segments if b > a]  # as tokenizers, no empty word
    merged: list[tuple[int, int, bool]] = []
    if behavior == "contiguous":  # neighbours of one kind join (inverted, the stretches between matches)
        for a, b, match in segments:
            if merged and merged[-1][2] == match:
                merged[-1] = (merged[-1][0], b, match)
            else:
                merged.append((a, b, match))
    elif behavior == "merged_with_previous":
        previous_match = False
        for a, b, match in segments:
            if match and not previous_match and merged:
                merged[-1] = (merged[-1][0], b, False)
            else:
                merged.append((a, b, match))
            previous_match = match
    else:  # merged_with_next
        next_match = False
        for a, b, match in reversed(segments):
            if match and not next_match and merged:
                merged[-1] = (a, merged[-1][1], False)
            else:
                merged.append((a, b, match))
            next_match = match
        merged.reverse()
    return [(a, b) for a, b, _ in merged if b > a]


class _DelimiterSplit(PreTokenizer):
    """Split at single characters matched by ``_pattern``, with a Hugging Face delimiter behavior."""

    _pattern: Any = None  # a compiled expression: set by each kind

    def word_table(self) -> WordTable | None:
        pattern = self._pattern.pattern
        if self.behavior == "removed":
            return WordTable(char_classes.table(dropped=pattern))
        if self.behavior == "contiguous":
            return WordTable(char_classes.table(runs=(pattern,)))
        merge = {"merged_with_previous": "previous", "merged_with_next": "next"}.get(self.behavior, "")
        return WordTable(char_classes.table(alone=pattern), merge=merge)

    def __init__(self, behavior: str = "isolated") -> None:
        if behavior not in BEHAVIORS:
            raise ValueError(f"behavior must be one of {BEHAVIORS}, got {behavior!r}")
        self.behavior = behavior

    def get_config(self) -> dict[str, Any]:
        return {"behavior": self.behavior}

    def pre_tokenize(self, text: str, first: int = True) -> list[Piece]:
        return [Piece(text[a:b], a) for a, b in _split_spans(text, self._pattern, self.behavior)]

    def split_words(self, text: str, first: int = True) -> list[str]:
        return [text[a:b] for a, b in _split_spans(text, self._pattern, self.behavior)]


@registered
class Punctuation(_DelimiterSplit):
    """Split at punctuation (Unicode 8.0.0's punctuation and ASCII symbols, as HF: see
    :mod:`kvec.unicode.hf_unicode`), each mark handled by ``behavior``:
    ``removed``, ``isolated`` (default), ``merged_with_previous``, ``merged_with_next``, ``contiguous``.

    Example:
        >>> [p.text for p in Punctuation().pre_tokenize("Hey, you!")]
        ['Hey', ',', ' you', '!']
    """

    _pattern = _PUNCTUATION

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": "Punctuation", "behavior": hf_behavior(self.behavior)}

    def _spans(self, text):
        # at the class letters' "1"s: the same places, found faster than by the class of punctuation
        letters = char_classes.letters(char_classes.table(alone=self._pattern.pattern))
        return _split_spans(text.translate(letters), _ALONE, self.behavior)

    def pre_tokenize(self, text: str, first: int = True) -> list[Piece]:
        return [Piece(text[a:b], a) for a, b in self._spans(text)]

    def split_words(self, text: str, first: int = True) -> list[str]:
        return [text[a:b] for a, b in self._spans(text)]


@registered
class CharDelimiterSplit(_DelimiterSplit):
    """Split on one character, which is dropped (Hugging Face's ``CharDelimiterSplit``).

    Example:
        >>> [p.text for p in CharDelimiterSplit("x").pre_tokenize("helloxthere")]
        ['hello', 'there']
    """

    def __init__(self, delimiter: str) -> None:
        super().__init__("removed")
        self.delimiter = delimiter

    @property
    def delimiter(self) -> str:
        """The character words are cut at (setting it takes effect at once)."""
        return self._delimiter

    @delimiter.setter
    def delimiter(self, delimiter: str) -> None:
        if not isinstance(delimiter, str):
            raise wrong_type("delimiter", "a str", delimiter)
        if len(delimiter) != 1:
            raise must_be("delimiter", "one character: expected a string of length 1", delimiter)
        self._pattern = compile_pattern(delimiter, "delimiter")
        self._delimiter = delimiter

    def get_config(self) -> dict[str, Any]:
        return {"delimiter": self.delimiter}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__, **self.get_config()}


@registered
class FixedLength(PreTokenizer):
    """Cut the text into pieces of ``length`` characters (the last one may be shorter), as Hugging
    Face's ``FixedLength``.

    Example:
        >>> [p.text for p in FixedLength(length=3).pre_tokenize("Hello")]
        ['Hel', 'lo']
    """

    def __init__(self, length: int = 5) -> None:
        if isinstance(length, bool) or not isinstance(length, int):
            raise wrong_type("length", "an int", length)
        if length < 1:
            raise ValueError(f"length must be >= 1, got {length}")
        self.length = length

    def get_config(self) -> dict[str, Any]:
        return {"length": self.length}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__, **self.get_config()}

    def pre_tokenize(self, text: str, first: int = True) -> list[Piece]:
        return [Piece(text[a : a + self.length], a) for a in range(0, len(text), self.length)]

    def split_words(self, text: str, first: int = True) -> list[str]:
        return [text[a : a + self.length] for a in range(0, len(text), self.length)]


@registered
class UnicodeScripts(PreTokenizer):
    """Split where the Unicode script changes, as Hugging Face's ``UnicodeScripts`` (and sentencepiece)
    do: Hiragana and Katakana count as Han, spaces and characters without a script never start a word
    (they join the word before them; leading ones are dropped). The scripts: :mod:`kvec.unicode.scripts`.

    Example:
        >>> [p.text for p in UnicodeScripts().pre_tokenize("どこ Where 漢字123")]
        ['どこ ', 'Where ', '漢字', '123']
    """

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__}

    def _spans(self, text):
        classes = script_classes()
        starts, last = [], None
        for position, c in enumerate(text):
            script = classes[ord(c)]
            if script == ANY:
                continue
            if script != last:
                starts.append(position)
            last = script
        return list(zip(starts, starts[1:] + [len(text)]))

    def pre_tokenize(self, text: str, first: int = True) -> list[Piece]:
        return [Piece(text[a:b], a) for a, b in self._spans(text)]

    def split_words(self, text: str, first: int = True) -> list[str]:
        return [text[a:b] for a, b in self._spans(text)]


@registered
class Digits(PreTokenizer):
    """Split digits (Nd, Nl and No of Unicode 17.0.0: Rust's ``char::is_numeric``, as HF) from the
    rest, as runs or one digit at a time.

    Example:
        >>> [p.text for p in Digits().pre_tokenize("a123b4")], [p.text for p in Digits(True).pre_tokenize("a12")]
        (['a', '123', 'b', '4'], ['a', '1', '2'])
    """

    def __init__(self, individual_digits: bool = False) -> None:
        self.individual_digits = individual_digits

    def get_config(self) -> dict[str, Any]:
        return {"individual_digits": self.individual_digits}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__, **self.get_config()}

    def _spans(self, text):
        # at the class letters' "1"s: the same places, found faster than by the class of numbers
        letters = char_classes.letters(char_classes.table(alone=_DIGIT.pattern))
        return _split_spans(text.translate(letters), _ALONE, "isolated" if self.individual_digits else "contiguous")

    def word_table(self) -> WordTable | None:
        if self.individual_digits:
            return WordTable(char_classes.table(alone=_DIGIT.pattern))
        return WordTable(char_classes.table(runs=(_DIGIT.pattern,)))

    def pre_tokenize(self, text: str, first: int = True) -> list[Piece]:
        return [Piece(text[a:b], a) for a, b in self._spans(text)]

    def split_words(self, text: str, first: int = True) -> list[str]:
        return [text[a:b] for a, b in self._spans(text)]


@registered
class KerasFilters(_CharClassWords):
    """The legacy Keras word rule as a pipeline stage: every ``filters`` character and ``split`` separates
    words, and separators are dropped (lowercasing belongs to a normalizer such as ``Lowercase``).

    Args:
        filters: the separator characters (default: the Keras filters).
        split: one more separator character (the Keras ``split``; one character).

    Example:
        >>> [p.text for p in KerasFilters().pre_tokenize("Hello, world! It's me.")]
        ['Hello', 'world', "It's", 'me']
    """

    def __init__(self, filters: str | Iterable[str] = DEFAULT_FILTERS, split: str = " ") -> None:
        if not isinstance(split, str) or len(split) != 1:
            raise ValueError(f"split must be one character here, got {split!r} (kvec.Tokenizer takes longer ones)")
        self.filters = filters
        self.split = split

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name in ("filters", "split") and "filters" in self.__dict__ and "split" in self.__dict__:
            self._compile()  # set after construction too: the words follow the new separators

    def _compile(self):
        separators = sorted(set(self.filters) | {self.split})
        self._pattern = regex.compile("[^" + "".join(regex.escape(c) for c in separators) + "]+")  # offsets
        self._splitter = WordSplitter("".join(separators))  # the words: the Keras rule's one implementation

    def __getstate__(self) -> dict[str, Any]:
        return {"filters": self.filters, "split": self.split}  # the C splitter is made again

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._compile()

    def get_config(self) -> dict[str, Any]:
        return {"filters": self.filters, "split": self.split}

    def to_tokenizer_json(self) -> dict[str, Any]:
        """The Keras rule as a ``Split``: every filter character and the split character separate words,
        and vanish."""
        separators = "".join(sorted(set(self.filters) | {self.split}))
        pattern = "[" + "".join("\\" + c if c in "\\]^-[" else c for c in separators) + "]"
        return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Removed", "invert": False}

    def split_words(self, text: str, first: int = True) -> list[str]:
        return self._splitter.split(text, False)

    def char_classes(self) -> bytes:
        return char_classes.separators((*self.filters, self.split))


PREPEND_SCHEMES = ("always", "first", "never")


def metaspace_replacement(replacement: str) -> str:
    """``replacement`` checked as Hugging Face's Metaspace checks it: one character."""
    if not isinstance(replacement, str):
        raise wrong_type("replacement", "a str", replacement)
    if len(replacement) != 1:
        raise must_be("replacement", "one character: expected a string of length 1", replacement)
    return replacement


def metaspace_prepend_scheme(prepend_scheme: str) -> str:
    """``prepend_scheme`` checked as Hugging Face's Metaspace checks it: one of ``PREPEND_SCHEMES``."""
    if prepend_scheme not in PREPEND_SCHEMES:
        raise ValueError(f"prepend_scheme must be one of {PREPEND_SCHEMES}, got {prepend_scheme!r}")
    return prepend_scheme


class MetaspaceOptions:
    """Metaspace's three settings, shared by the pre-tokenizer and the decoder: ``replacement`` (the one
    character that stands for a space) and ``prepend_scheme`` are checked when set, as ``tokenizers``
    checks them."""

    def __init__(self, replacement: str = "▁", prepend_scheme: str = "always", split: bool = True) -> None:
        self.replacement = replacement
        self.prepend_scheme = prepend_scheme
        self.split = split

    @property
    def replacement(self) -> str:
        """The one character that stands for a space (setting it checks it)."""
        return self._replacement

    @replacement.setter
    def replacement(self, replacement: str) -> None:
        self._replacement = metaspace_replacement(replacement)

    @property
    def prepend_scheme(self) -> str:
        """``"always"``, ``"first"`` or ``"never"`` (setting it checks it)."""
        return self._prepend_scheme

    @prepend_scheme.setter
    def prepend_scheme(self, prepend_scheme: str) -> None:
        self._prepend_scheme = metaspace_prepend_scheme(prepend_scheme)

    def get_config(self) -> dict[str, Any]:
        return {"replacement": self.replacement, "prepend_scheme": self.prepend_scheme, "split": self.split}


@registered
class Metaspace(MetaspaceOptions, PreTokenizer):
    """SentencePiece's view of spaces: every space becomes ``replacement`` (``▁``), one is prepended
    (``prepend_scheme``: ``always``; ``first``, only at the very start of the original text; ``never``),
    and with ``split`` every ``▁`` starts a new word.

    Example:
        >>> [p.text for p in Metaspace().pre_tokenize("Hey  my friend")]
        ['▁Hey', '▁', '▁my', '▁friend']
    """

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__, **self.get_config()}

    def _spelled(self, text, first):
        spelled = text.replace(" ", self.replacement)
        prepend = (
            bool(spelled)
            and not spelled.startswith(self.replacement)
            and (self.prepend_scheme == "always" or (self.prepend_scheme == "first" and first))
        )
        return (self.replacement + spelled, -1) if prepend else (spelled, 0)

    def word_table(self) -> WordTable | None:
        # with split, the replacement is the one delimiter, each joining the text after it
        classes = bytearray([char_classes.RUN]) * (ord(self.replacement) + 1) if self.split else bytearray()
        if self.split:
            classes[ord(self.replacement)] = char_classes.ALONE
        prefix = "" if self.prepend_scheme == "never" else self.replacement  # a whole text is the first
        return WordTable(
            bytes(classes),
            merge="next" if self.split else "",
            replace=(" ", self.replacement),
            prefix=prefix,
        )

    def _words(self, spelled):
        """The words of the spelled text, which they cover end to end: with ``split``, each
        replacement starts a new one (a string split, not a search per delimiter: a trainer's
        counting splits every line of its corpus)."""
        if not self.split:
            return [spelled] if spelled else []
        head, *rest = spelled.split(self.replacement)
        return ([head] if head else []) + [self.replacement + part for part in rest]

    def pre_tokenize(self, text: str, first: int = True) -> list[Piece]:
        spelled, start = self._spelled(text, first)
        pieces = []
        for word in self._words(spelled):
            pieces.append(Piece(word, start))
            start += len(word)
        return pieces

    def split_words(self, text: str, first: int = True) -> list[str]:
        return self._words(self._spelled(text, first)[0])


@registered
class SentencePiece(_RegexWords):
    """sentencepiece's words in text already spelled with ``▁`` for spaces (by the normalizers of
    :func:`kvec.presets.sentencepiece_style`): each ``▁`` starts a new word, as no piece holds ``▁``
    elsewhere than first. With ``split_digits`` each digit 0-9 is a word of its own.

    Example:
        >>> [p.text for p in SentencePiece(split_digits=True).pre_tokenize("▁▁Hey▁42x")]
        ['▁', '▁Hey', '▁', '4', '2', 'x']
    """

    # the words shape training only: a Unigram model segments the whole text, as sentencepiece does
    whole_text_models = True

    def __init__(self, split_digits: bool = False) -> None:
        self.split_digits = split_digits

    @property
    def split_digits(self) -> bool:
        """Whether each digit is a word of its own (setting it takes effect at once)."""
        return self._split_digits

    @split_digits.setter
    def split_digits(self, split_digits: bool) -> None:
        self._split_digits = split_digits
        self._pattern = regex.compile("[0-9]|▁[^▁0-9]*|[^▁0-9]+" if split_digits else "▁[^▁]*|[^▁]+")

    def get_config(self) -> dict[str, Any]:
        return {"split_digits": self.split_digits}

    def word_table(self) -> WordTable | None:
        # merged_with_next at each ▁ (a delimiter, ALONE), and with split_digits each digit a word apart
        classes = bytearray([char_classes.RUN]) * (ord("▁") + 1)
        classes[ord("▁")] = char_classes.ALONE
        if self.split_digits:
            classes[ord("0") : ord("9") + 1] = bytes([char_classes.MERGED_APART]) * 10
        return WordTable(bytes(classes), merge="next")

    #: sentencepiece's words as tokenizer.json writes them: a word starts at each ▁ (the normalizers
    #: spelled spaces so), a split merged with what follows; with split_digits each digit 0-9 apart (HF's
    #: Digits would cut every Unicode number)
    WORDS_JSON: ClassVar[dict[str, Any]] = {
        "type": "Split",
        "pattern": {"String": "▁"},
        "behavior": "MergedWithNext",
        "invert": False,
    }
    DIGITS_JSON: ClassVar[dict[str, Any]] = {
        "type": "Split",
        "pattern": {"Regex": "[0-9]"},
        "behavior": "Isolated",
        "invert": False,
    }

    def to_tokenizer_json(self) -> dict[str, Any]:
        if not self.split_digits:
            return dict(self.WORDS_JSON)
        return {"type": "Sequence", "pretokenizers": [dict(self.WORDS_JSON), dict(self.DIGITS_JSON)]}


@registered
class Split(PreTokenizer):
    """Words cut by a pattern, with one of Hugging Face's delimiter behaviors: ``"isolated"`` keeps each
    match and each stretch between matches as words (tiktoken's patterns match every character, so
    their words are the matches), ``"removed"`` drops the matches, and so on. As in ``tokenizers``, a
    ``str`` pattern is found literally and a :class:`Regex` is a regular expression; ``invert`` swaps
    the matches and the stretches between them.

    Example:
        >>> [p.text for p in Split(Regex(r"\\p{N}{1,3}")).pre_tokenize("ab12345c")]
        ['ab', '123', '45', 'c']
        >>> [p.text for p in Split(".", "removed").pre_tokenize("a.b-c")]
        ['a', 'b-c']
    """

    takes_pattern = True

    def __init__(self, pattern: str | Regex, behavior: str = "isolated", invert: bool = False) -> None:
        self._pattern = compile_pattern(pattern)
        self._pattern_value = pattern
        self.behavior = behavior
        self.invert = invert

    @property
    def pattern(self) -> str | Regex:
        """Not readable, as in ``tokenizers``: the pattern is in ``get_config()["pattern"]``. Setting it
        raises too: make a new ``Split``."""
        raise Exception("Cannot get pattern")

    @pattern.setter
    def pattern(self, pattern: str | Regex) -> None:
        raise Exception("Cannot set pattern, please instantiate a new split pattern instead")

    @property
    def behavior(self) -> str:
        """What becomes of the matches (one of ``BEHAVIORS``)."""
        return self._behavior

    @behavior.setter
    def behavior(self, behavior: str) -> None:
        if behavior not in BEHAVIORS:
            raise ValueError(f"behavior must be one of {BEHAVIORS}, got {behavior!r}")
        self._behavior = behavior

    def get_config(self) -> dict[str, Any]:
        return {"pattern": self._pattern_value, "behavior": self.behavior, "invert": self.invert}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {
            "type": "Split",
            "pattern": pattern_json(self.get_config()["pattern"]),
            "behavior": hf_behavior(self.behavior),
            "invert": self.invert,
        }

    def word_table(self) -> WordTable | None:
        # the expressions of byte-level tokenizers cut in C; each matches every character, so with
        # "isolated" the words are its matches
        pattern = self._pattern_value
        if not isinstance(pattern, Regex) or self.behavior != "isolated" or self.invert:
            return None
        expression = {_GPT2_PATTERN.pattern: "gpt2", CL100K_PATTERN: "cl100k"}.get(pattern.pattern)
        if expression is None:
            return None
        return WordTable(char_classes.table(runs=(r"\s", r"\p{L}", r"\p{N}", r"[\r\n]")), expression=expression)

    def _spans(self, text):
        return _split_spans(text, self._pattern, self.behavior, self.invert)

    def pre_tokenize(self, text: str, first: int = True) -> list[Piece]:
        return [Piece(text[a:b], a) for a, b in self._spans(text)]

    def split_words(self, text: str, first: int = True) -> list[str]:
        return [text[a:b] for a, b in self._spans(text)]


def _leading(piece: Piece, leading: int) -> int:
    """How many of ``piece``'s first characters lie in the text's first ``leading`` characters (those that
    start where the original text starts)."""
    count = 0
    while leading and count < len(piece.text) and piece.offsets(count, count + 1)[0] < leading:
        count += 1
    return count


@registered
class Sequence(StageList, PreTokenizer):
    """Apply pre-tokenizers one after the other: each cuts the pieces of the one before.
    ``sequence[i]`` is the i-th pre-tokenizer, and can be replaced (``sequence[1] = Metaspace()``);
    ``len(sequence)`` counts them.

    Example:
        >>> [p.text for p in Sequence([Whitespace(), Digits(individual_digits=True)]).pre_tokenize("Call 911!")]
        ['Call', '9', '1', '1', '!']
    """

    nested_stages = "pretokenizers"

    _stages_attribute = "pretokenizers"
    _stage_type = PreTokenizer

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": "Sequence", "pretokenizers": [p.to_tokenizer_json() for p in self.pretokenizers]}

    def __init__(self, pretokenizers: Iterable[PreTokenizer]) -> None:
        self.pretokenizers = list(pretokenizers)

    def pre_tokenize(self, text: str, first: int = True) -> list[Piece]:
        pieces, leading = [Piece(text, 0)], int(first)
        for stage in self.pretokenizers:
            cut = []
            for piece in pieces:
                # as tokenizers, a piece is first when it starts at the original text's first character
                for sub in stage.pre_tokenize(piece.text, _leading(piece, leading)):
                    spans = [piece.offsets(*sub.offsets(i, i + 1)) for i in range(len(sub.text))]
                    cut.append(Piece(sub.text, spans[0][0] if spans else piece.base, spans))
            pieces = cut
        return pieces

    def split_words(self, text: str, first: int = True) -> list[str]:
        if first and prepends_at_first_only(self):  # which words are first follows their offsets
            return [piece.text for piece in self.pre_tokenize(text, first)]
        words, leading = [text], first  # leading: the first word starts at the text's first character
        for stage in self.pretokenizers:
            cut = [
                stage.spell(part)
                for position, word in enumerate(words)
                for part in stage.split_words(word, leading and position == 0)
            ]
            if leading:  # the first piece's offsets say whether the new first word still starts there
                pieces = stage.pre_tokenize(words[0], True) if words else []
                leading = bool(pieces) and bool(pieces[0].text) and pieces[0].offsets(0, 1)[0] == 0
            words = cut
        return words

    def word_table(self) -> WordTable | None:
        # stages that only cut by class make one table; a stage that does more leaves it to Python
        tables = [stage.word_table() for stage in self.pretokenizers]
        if len(tables) == 2 and tables[0] is not None and not tables[0].spelled and _spells_only(tables[1]):
            return replace(tables[0], spelled=True, byte_spelling=cast(WordTable, tables[1]).byte_spelling)  # Llama 3
        known = [t for t in tables if t is not None]
        if len(known) < len(tables) or any(t.expression or t.replace or t.prefix or t.spelled for t in known):
            return None
        if len(known) == 2 and known[0].merge and not known[1].merge:  # merged words, then digits apart
            classes = char_classes.apart_in_merged(known[0].classes, known[1].classes)
            return None if classes is None else WordTable(classes, merge=known[0].merge)
        if any(t.merge for t in known):
            return None
        classes = char_classes.in_turn(*(t.classes for t in known))
        return None if classes is None else WordTable(classes)

    @staticmethod
    def spell(word: str) -> str:
        return word  # every stage has spelled its words already


def prepends_at_first_only(pre_tokenizer: PreTokenizer | None) -> bool:
    """Whether ``pre_tokenizer`` (or a stage of it) puts a prefix only before the piece that starts the
    original text (Metaspace's ``prepend_scheme="first"``): its words then depend on where a normalizer
    moved the text's first character."""
    if isinstance(pre_tokenizer, Sequence):
        return any(map(prepends_at_first_only, pre_tokenizer.pretokenizers))
    return isinstance(pre_tokenizer, Metaspace) and pre_tokenizer.prepend_scheme == "first"


def _spells_only(table):
    """Whether a stage's table only spells the words it is given byte by byte (ByteLevel without its
    expression or prefix space)."""
    return table is not None and table.spelled and table.classes == b"" and not table.prefix and not table.expression


def byte_level_bytes(token: str) -> bytes:
    """The bytes a byte-spelled token stands for. A token with a character outside the byte alphabet
    (an added token such as ``"héllo wörld"``) stands for its own UTF-8 bytes, as in Hugging Face's
    decoder."""
    try:
        return bytes(map(_CHAR_TO_BYTE.__getitem__, token))
    except KeyError:
        return token.encode("utf-8", "surrogatepass")


def byte_level_decode(tokens: Iterable[str]) -> str:
    """Turn byte-spelled tokens back into the original string (see :func:`byte_level_bytes`). Lone
    surrogates round-trip; a byte sequence that is not UTF-8 (from ids that split a character) decodes
    with U+FFFD in its place (:func:`kvec.contracts.utf8_text`)."""
    return utf8_text(b"".join(map(byte_level_bytes, tokens)))
