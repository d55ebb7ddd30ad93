"""Pre-tokenizers: split a text into the words a subword model works on, keeping offsets.

``pre_tokenize(text)`` returns a list of :class:`Piece`: the word as the model sees it, plus, for each of
its characters, the ``(start, end)`` span of original characters it came from. Most pieces are plain
substrings; byte-level pieces spell each UTF-8 byte of the original as one printable character.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable
from dataclasses import replace

import regex

from kvec import char_classes
from kvec._native import WordSplitter
from kvec.contracts import Piece, PreTokenizer, WordTable, utf8_text

__all__ = [
    "CL100K_PATTERN",
    "DEFAULT_FILTERS",
    "BertPreTokenizer",
    "ByteLevel",
    "Digits",
    "KerasFilters",
    "Metaspace",
    "Piece",
    "Punctuation",
    "SentencePiece",
    "Sequence",
    "Split",
    "Whitespace",
    "WhitespaceSplit",
    "byte_level_bytes",
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


class ByteLevel(PreTokenizer):
    """GPT-2's byte-level pre-tokenizer.

    Splits with GPT-2's regular expression (contractions, letters, digits, other symbols, spaces), then
    spells every UTF-8 byte as one printable character, so any text is covered by 256 base symbols.

    Args:
        add_prefix_space: prepend a space when the text does not start with one, so the first word is
            spelled like the others (``Ġword``).
        use_regex: split with the regular expression (else the whole text is one piece).

    Example:
        >>> [p.text for p in ByteLevel().pre_tokenize("Hello world!")]
        ['ĠHello', 'Ġworld', '!']
    """

    def __init__(self, add_prefix_space: bool = True, use_regex: bool = True) -> None:
        self.add_prefix_space = add_prefix_space
        self.use_regex = use_regex

    def get_config(self):
        return {"add_prefix_space": self.add_prefix_space, "use_regex": self.use_regex}

    @staticmethod
    def char_classes():
        """The classes of GPT-2's expression for the C encoder: other, whitespace, letters, numbers."""
        return char_classes.table(runs=(r"\s", r"\p{L}", r"\p{N}"))

    def word_table(self):
        classes = self.char_classes() if self.use_regex else b""  # without the expression: one word
        prefix = " " if self.add_prefix_space else ""
        spelling = "".join(_BYTE_TO_CHAR[b] for b in range(256))
        expression = "gpt2" if self.use_regex else ""
        return WordTable(classes, expression=expression, prefix=prefix, spelled=True, byte_spelling=spelling)

    @staticmethod
    def alphabet():
        """The 256 characters of the byte spelling (pass them as a trainer's ``initial_alphabet``)."""
        return sorted(_BYTE_TO_CHAR.values())

    def pre_tokenize(self, text, first=True):
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

    def split_words(self, text, first=True):
        """The words without offsets and before spelling; ``spell`` turns each into what the model
        sees. Training counts these and spells only the distinct ones."""
        if self.add_prefix_space and text and not text.startswith(" "):
            text = " " + text
        if not self.use_regex:
            return [text] if text else []
        return _GPT2_PATTERN.findall(text)

    @staticmethod
    def spell(word):
        return _spell(word)

    def _matches(self, text):
        if not self.use_regex:
            return [(0, len(text))] if text else []
        return [m.span() for m in _GPT2_PATTERN.finditer(text)]


def _spell(chunk):
    """The byte spelling of a string: its UTF-8 bytes read as Latin-1, then mapped to GPT-2's characters."""
    return chunk.encode("utf-8", "surrogatepass").decode("latin-1").translate(_LATIN1_TO_SPELLING)


class _RegexWords(PreTokenizer):
    """A pre-tokenizer whose words are the matches of one regular expression (``_pattern``)."""

    _pattern = None

    def get_config(self):
        return {}

    def pre_tokenize(self, text, first=True):
        return [Piece(m.group(), m.start()) for m in self._pattern.finditer(text)]

    def split_words(self, text, first=True):
        return self._pattern.findall(text)


class _CharClassWords(_RegexWords):
    """A pre-tokenizer that cuts by character class alone: a table of one class per code point
    (:meth:`char_classes`, built from the same patterns) gives the C encoder the same words."""

    @abstractmethod
    def char_classes(self):
        """The class of every code point as ``bytes`` (see :func:`kvec.char_classes.table`)."""

    def word_table(self):
        return WordTable(self.char_classes())


class Whitespace(_CharClassWords):
    """Words of ``\\w+`` and runs of other non-space characters ``[^\\w\\s]+``.

    Example:
        >>> [p.text for p in Whitespace().pre_tokenize("Hi, there!")]
        ['Hi', ',', 'there', '!']
    """

    _pattern = regex.compile(r"\w+|[^\w\s]+")

    @staticmethod
    def char_classes():
        return char_classes.table(dropped=r"\s", runs=(r"[^\w\s]",))


class WhitespaceSplit(_CharClassWords):
    """Split on whitespace only.

    Example:
        >>> [p.text for p in WhitespaceSplit().pre_tokenize("Hi, there!")]
        ['Hi,', 'there!']
    """

    _pattern = regex.compile(r"\S+")

    @staticmethod
    def char_classes():
        return char_classes.table(dropped=r"\s")


class BertPreTokenizer(_CharClassWords):
    """BERT's split: whitespace separates words and is dropped; every punctuation character (Unicode
    punctuation or ASCII symbol) is a word of its own.

    Example:
        >>> [p.text for p in BertPreTokenizer().pre_tokenize("Hey, it's $5!")]
        ['Hey', ',', 'it', "'", 's', '$', '5', '!']
    """

    _pattern = regex.compile(r"[^\p{White_Space}\p{P}!-/:-@\[-`{-~]+|[\p{P}!-/:-@\[-`{-~]")

    @staticmethod
    def char_classes():
        return char_classes.table(dropped=r"\p{White_Space}", alone=r"[\p{P}!-/:-@\[-`{-~]")


_PUNCTUATION = regex.compile(r"[\p{P}!-/:-@\[-`{-~]")
_DIGIT = regex.compile(r"\p{N}")
BEHAVIORS = ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")


def _split_spans(text, pattern, behavior):
    """Cut ``text`` at each single-character match of ``pattern`` with Hugging Face's delimiter rules."""
    segments, position = [], 0  # (start, end, is_match)
    for m in pattern.finditer(text):
        if m.start() > position:
            segments.append((position, m.start(), False))
        segments.append((m.start(), m.end(), True))
        position = m.end()
    if position < len(text):
        segments.append((position, len(text), False))
    if behavior == "removed":
        return [(a, b) for a, b, match in segments if not match]
    if behavior == "isolated":
        return [(a, b) for a, b, _ in segments]
    merged = []
    if behavior == "contiguous":
        for a, b, match in segments:
            if match and merged and merged[-1][2]:
                merged[-1] = (merged[-1][0], b, True)
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
    return [(a, b) for a, b, _ in merged]


class _DelimiterSplit(PreTokenizer):
    """Split at single characters matched by ``_pattern``, with a Hugging Face delimiter behavior."""

    _pattern = None

    def word_table(self):
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

    def get_config(self):
        return {"behavior": self.behavior}

    def pre_tokenize(self, text, first=True):
        return [Piece(text[a:b], a) for a, b in _split_spans(text, self._pattern, self.behavior)]

    def split_words(self, text, first=True):
        return [text[a:b] for a, b in _split_spans(text, self._pattern, self.behavior)]


class Punctuation(_DelimiterSplit):
    """Split at punctuation (Unicode punctuation and ASCII symbols), each mark handled by ``behavior``:
    ``removed``, ``isolated`` (default), ``merged_with_previous``, ``merged_with_next``, ``contiguous``.

    Example:
        >>> [p.text for p in Punctuation().pre_tokenize("Hey, you!")]
        ['Hey', ',', ' you', '!']
    """

    _pattern = _PUNCTUATION


class Digits(PreTokenizer):
    """Split digits (``\\p{N}``) from the rest, as runs or one digit at a time.

    Example:
        >>> [p.text for p in Digits().pre_tokenize("a123b4")], [p.text for p in Digits(True).pre_tokenize("a12")]
        (['a', '123', 'b', '4'], ['a', '1', '2'])
    """

    def __init__(self, individual_digits: bool = False) -> None:
        self.individual_digits = individual_digits

    def get_config(self):
        return {"individual_digits": self.individual_digits}

    def _spans(self, text):
        return _split_spans(text, _DIGIT, "isolated" if self.individual_digits else "contiguous")

    def word_table(self):
        if self.individual_digits:
            return WordTable(char_classes.table(alone=_DIGIT.pattern))
        return WordTable(char_classes.table(runs=(_DIGIT.pattern,)))

    def pre_tokenize(self, text, first=True):
        return [Piece(text[a:b], a) for a, b in self._spans(text)]

    def split_words(self, text, first=True):
        return [text[a:b] for a, b in self._spans(text)]


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
        self._compile()

    def _compile(self):
        separators = sorted(set(self.filters) | {self.split})
        self._pattern = regex.compile("[^" + "".join(regex.escape(c) for c in separators) + "]+")  # offsets
        self._splitter = WordSplitter("".join(separators))  # the words: the Keras rule's one implementation

    def __getstate__(self):
        return {"filters": self.filters, "split": self.split}  # the C splitter is made again

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._compile()

    def get_config(self):
        return {"filters": self.filters, "split": self.split}

    def split_words(self, text, first=True):
        return self._splitter.split(text, False)

    def char_classes(self):
        return char_classes.separators(self.filters + self.split)


PREPEND_SCHEMES = ("always", "first", "never")


class Metaspace(PreTokenizer):
    """SentencePiece's view of spaces: every space becomes ``replacement`` (``▁``), one is prepended
    (``prepend_scheme``: ``always``; ``first``, only at the very start of the original text; ``never``),
    and with ``split`` every ``▁`` starts a new word.

    Example:
        >>> [p.text for p in Metaspace().pre_tokenize("Hey  my friend")]
        ['▁Hey', '▁', '▁my', '▁friend']
    """

    def __init__(self, replacement: str = "▁", prepend_scheme: str = "always", split: bool = True) -> None:
        if not isinstance(replacement, str) or len(replacement) != 1:
            raise ValueError(f"replacement must be one character, got {replacement!r}")
        if prepend_scheme not in PREPEND_SCHEMES:
            raise ValueError(f"prepend_scheme must be one of {PREPEND_SCHEMES}, got {prepend_scheme!r}")
        self.replacement = replacement
        self.prepend_scheme = prepend_scheme
        self.split = split
        self._split_pattern = regex.compile(regex.escape(replacement))

    def get_config(self):
        return {"replacement": self.replacement, "prepend_scheme": self.prepend_scheme, "split": self.split}

    def _spelled(self, text, first):
        spelled = text.replace(" ", self.replacement)
        prepend = (
            bool(spelled)
            and not spelled.startswith(self.replacement)
            and (self.prepend_scheme == "always" or (self.prepend_scheme == "first" and first))
        )
        return (self.replacement + spelled, -1) if prepend else (spelled, 0)

    def word_table(self):
        # with split, the replacement is the one delimiter, each joining the text after it
        classes = bytearray([char_classes.RUN]) * (ord(self.replacement) + 1) if self.split else bytearray()
        if self.split:
            classes[ord(self.replacement)] = char_classes.ALONE
        prefix = "" if self.prepend_scheme == "never" else self.replacement  # a whole text is the first
        return WordTable(
            bytes(classes), merge="next" if self.split else "", replace=(" ", self.replacement), prefix=prefix
        )

    def _spans(self, spelled):
        if not self.split:
            return [(0, len(spelled))] if spelled else []
        return _split_spans(spelled, self._split_pattern, "merged_with_next")

    def pre_tokenize(self, text, first=True):
        spelled, base = self._spelled(text, first)
        return [Piece(spelled[a:b], a + base) for a, b in self._spans(spelled)]

    def split_words(self, text, first=True):
        spelled, _ = self._spelled(text, first)
        return [spelled[a:b] for a, b in self._spans(spelled)]


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
        self._pattern = regex.compile("[0-9]|▁[^▁0-9]*|[^▁0-9]+" if split_digits else "▁[^▁]*|[^▁]+")

    def get_config(self):
        return {"split_digits": self.split_digits}


class Split(PreTokenizer):
    """Words cut by a regular expression, with one of Hugging Face's delimiter behaviors: ``"isolated"``
    keeps each match and each stretch between matches as words (tiktoken's patterns match every
    character, so their words are the matches), ``"removed"`` drops the matches, and so on.

    Example:
        >>> [p.text for p in Split(r"\\p{N}{1,3}").pre_tokenize("ab12345c")]
        ['ab', '123', '45', 'c']
    """

    def __init__(self, pattern: str, behavior: str = "isolated") -> None:
        if behavior not in BEHAVIORS:
            raise ValueError(f"behavior must be one of {BEHAVIORS}, got {behavior!r}")
        self.pattern = pattern
        self.behavior = behavior
        self._pattern = regex.compile(pattern)

    def get_config(self):
        return {"pattern": self.pattern, "behavior": self.behavior}

    def word_table(self):
        # the expressions of byte-level tokenizers cut in C; each matches every character, so with
        # "isolated" the words are its matches
        expression = {_GPT2_PATTERN.pattern: "gpt2", CL100K_PATTERN: "cl100k"}.get(self.pattern)
        if expression is None or self.behavior != "isolated":
            return None
        return WordTable(char_classes.table(runs=(r"\s", r"\p{L}", r"\p{N}", r"[\r\n]")), expression=expression)

    def pre_tokenize(self, text, first=True):
        return [Piece(text[a:b], a) for a, b in _split_spans(text, self._pattern, self.behavior) if b > a]

    def split_words(self, text, first=True):
        return [text[a:b] for a, b in _split_spans(text, self._pattern, self.behavior) if b > a]


class Sequence(PreTokenizer):
    """Apply pre-tokenizers one after the other: each cuts the pieces of the one before.

    Example:
        >>> [p.text for p in Sequence([Whitespace(), Digits(individual_digits=True)]).pre_tokenize("Call 911!")]
        ['Call', '9', '1', '1', '!']
    """

    def __init__(self, pretokenizers: Iterable[PreTokenizer]) -> None:
        self.pretokenizers = list(pretokenizers)

    def pre_tokenize(self, text, first=True):
        pieces = [Piece(text, 0)]
        for stage in self.pretokenizers:
            cut = []
            for position, piece in enumerate(pieces):
                for sub in stage.pre_tokenize(piece.text, first and position == 0):
                    spans = [piece.offsets(*sub.offsets(i, i + 1)) for i in range(len(sub.text))]
                    cut.append(Piece(sub.text, spans[0][0] if spans else piece.base, spans))
            pieces = cut
        return pieces

    def split_words(self, text, first=True):
        words = [text]
        for stage in self.pretokenizers:
            words = [
                stage.spell(part)
                for position, word in enumerate(words)
                for part in stage.split_words(word, first and position == 0)
            ]
        return words

    def word_table(self):
        # stages that only cut by class make one table; a stage that does more leaves it to Python
        tables = [stage.word_table() for stage in self.pretokenizers]
        if len(tables) == 2 and tables[0] is not None and not tables[0].spelled and _spells_only(tables[1]):
            return replace(tables[0], spelled=True, byte_spelling=tables[1].byte_spelling)  # e.g. Llama 3's
        if any(t is None or t.expression or t.merge or t.replace or t.prefix or t.spelled for t in tables):
            return None
        classes = char_classes.in_turn(*(t.classes for t in tables))
        return None if classes is None else WordTable(classes)

    @staticmethod
    def spell(word):
        return word  # every stage has spelled its words already


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
