"""Normalizers and pre-tokenizers written in Python, as ``tokenizers`` takes them.

``Normalizer.custom(obj)`` wraps an object whose ``normalize(normalized)`` changes the
:class:`NormalizedString` it is given in place; ``PreTokenizer.custom(obj)`` one whose
``pre_tokenize(pretok)`` cuts the :class:`PreTokenizedString` it is given (``pretok.split(function)``).
Every change keeps the original span of each character, with ``tokenizers``' alignment rules, so
offsets point into the original text. A pipeline holding a custom stage encodes on the Python route
(the stage is Python), and cannot be saved: as in ``tokenizers``, the file could not rebuild it.

Example:
    >>> from kvec.normalizers import Normalizer
    >>> class Shout:
    ...     def normalize(self, normalized):
    ...         normalized.uppercase()
    ...         normalized.replace("!", "!!")
    >>> Normalizer.custom(Shout()).normalize_str("hey!")
    'HEY!!'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kvec.common.arguments import must_be, wrong_type
from kvec.common.patterns import Regex, compile_pattern
from kvec.contracts import CUSTOM_STAGES, Normalized, Normalizer, Piece, PreTokenizer, Span
from kvec.normalizers import NFC, NFD, NFKC, NFKD, Lowercase, Replace, Strip
from kvec.pre_tokenizers import BEHAVIORS, _split_spans

__all__ = ["CustomNormalizer", "CustomPreTokenizer", "NormalizedString", "PreTokenizedString", "cannot_save"]

_EXPIRED = (
    "Cannot use a NormalizedStringRefMut outside `normalize`: a custom stage may change the "
    "NormalizedString it is given only during its call"
)


def cannot_save(stage: Any) -> str:
    """The error message for saving a pipeline that holds the custom ``stage`` (tokenizers' rule)."""
    kind = "normalizer" if isinstance(stage, CustomNormalizer) else "pre-tokenizer"
    return (
        f"a custom {kind} ({type(stage.implementation).__name__}, written in Python) cannot be saved: the file "
        f"could not rebuild it. Put a built-in {kind} in its place before saving, and the custom one back after"
    )


class NormalizedString:
    """A text being normalized: the ``original`` text, the ``normalized`` one, and the original span
    of each normalized character, kept through every change (``tokenizers``' ``NormalizedString``).

    Example:
        >>> import unicodedata
        >>> n = NormalizedString("Héllo  ")
        >>> n.nfd(); n.filter(lambda c: not unicodedata.combining(c)); n.rstrip(); n.lowercase()
        >>> n, n[1:3].original
        (NormalizedString(original="Héllo  ", normalized="hello"), 'él')
    """

    __slots__ = ("_root", "_original", "_normalized", "_expired")

    def __init__(self, sequence: str) -> None:
        if not isinstance(sequence, str):
            raise wrong_type("sequence", "a str", sequence)
        self._root = self._original = sequence
        self._normalized = Normalized.of(sequence)
        self._expired = False

    @classmethod
    def _of(cls, root: str, normalized: Normalized, original: str | None = None) -> NormalizedString:
        """A NormalizedString of ``normalized``, whose spans point into ``root``; its ``original`` is the
        part of ``root`` they cover unless given."""
        made = cls.__new__(cls)
        made._root, made._normalized, made._expired = root, normalized, False
        spans = normalized.spans
        if original is None:
            original = root[min(a for a, _ in spans) : max(b for _, b in spans)] if spans else ""
        made._original = original
        return made

    def _live(self) -> Normalized:
        if self._expired:
            raise ValueError(_EXPIRED)
        return self._normalized

    def _apply(self, normalizer: Normalizer) -> None:
        self._normalized = normalizer.normalize(self._live())

    @property
    def normalized(self) -> str:
        """The normalized text."""
        return self._live().text

    @property
    def original(self) -> str:
        """The original text (of a slice: the original text its characters come from)."""
        self._live()
        return self._original

    def _spans(self) -> list[Span]:
        return list(self._live().spans)

    def __len__(self) -> int:
        return len(self.normalized)

    def __str__(self) -> str:
        return self.normalized

    def __repr__(self) -> str:
        return f'NormalizedString(original="{self.original}", normalized="{self.normalized}")'

    def __getitem__(self, item: slice) -> NormalizedString:
        """The characters ``item`` of the normalized text, with their original spans."""
        if not isinstance(item, slice) or item.step not in (None, 1):
            raise TypeError(f"a NormalizedString is sliced with a slice of step 1, got {item!r}")
        current = self._live()
        start, stop, _ = item.indices(len(current.text))
        stop = max(start, stop)
        return NormalizedString._of(self._root, Normalized(current.text[start:stop], current.spans[start:stop]))

    def slice(self, item: slice) -> NormalizedString:
        """Same as ``self[item]``."""
        return self[item]

    def nfd(self) -> None:
        """Unicode canonical decomposition."""
        self._apply(NFD())

    def nfkd(self) -> None:
        """Unicode compatibility decomposition."""
        self._apply(NFKD())

    def nfc(self) -> None:
        """Unicode canonical composition."""
        self._apply(NFC())

    def nfkc(self) -> None:
        """Unicode compatibility composition."""
        self._apply(NFKC())

    def lowercase(self) -> None:
        """Lowercase every character."""
        self._apply(Lowercase())

    def uppercase(self) -> None:
        """Uppercase every character (one may become several, each with its span)."""
        self._changed(lambda c: c.upper())

    def map(self, function: Callable[[str], str]) -> None:
        """Replace each character by ``function(character)``, one character."""

        def one(c):
            replaced = function(c)
            if not isinstance(replaced, str) or len(replaced) != 1:
                raise TypeError(f"map's function must return one character, got {replaced!r} for {c!r}")
            return replaced

        self._changed(one)

    def filter(self, function: Callable[[str], bool]) -> None:
        """Keep the characters for which ``function`` is true."""
        current = self._live()
        kept = [(c, span) for c, span in zip(current.text, current.spans) if function(c)]
        self._normalized = Normalized("".join(c for c, _ in kept), [span for _, span in kept])

    def for_each(self, function: Callable[[str], Any]) -> None:
        """Call ``function`` on each character."""
        for c in self._live().text:
            function(c)

    def _changed(self, function: Callable[[str], str]) -> None:
        self._normalized = self._live().map(function)

    def prepend(self, s: str) -> None:
        """Put ``s`` before the text, aligned with its first character (nothing on an empty text)."""
        current = self._live()
        if current.text and s:
            self._normalized = Normalized(s + current.text, [current.spans[0]] * len(s) + current.spans)

    def append(self, s: str) -> None:
        """Put ``s`` after the text, aligned with its last character (with nothing on an empty text)."""
        current = self._live()
        last = current.spans[-1] if current.spans else (0, 0)
        self._normalized = Normalized(current.text + s, current.spans + [last] * len(s))

    def strip(self) -> None:
        """Remove whitespace at both ends."""
        self._apply(Strip(True, True))

    def lstrip(self) -> None:
        """Remove whitespace at the start."""
        self._apply(Strip(True, False))

    def rstrip(self) -> None:
        """Remove whitespace at the end."""
        self._apply(Strip(False, True))

    def clear(self) -> None:
        """Remove every character."""
        self._live()
        self._normalized = Normalized("", [])

    def replace(self, pattern: str | Regex, content: str) -> None:
        """Replace every match of ``pattern`` (a str, or a :class:`kvec.common.patterns.Regex`) by ``content``."""
        self._apply(Replace(pattern, content))

    def split(self, pattern: str | Regex, behavior: str) -> list[NormalizedString]:
        """The pieces of the text cut at ``pattern``, with a delimiter ``behavior`` (``"removed"``,
        ``"isolated"``, ``"merged_with_previous"``, ``"merged_with_next"``, ``"contiguous"``)."""
        if behavior not in BEHAVIORS:
            raise ValueError(f"behavior must be one of {BEHAVIORS}, got {behavior!r}")
        text = self.normalized
        return [self[a:b] for a, b in _split_spans(text, compile_pattern(pattern), behavior)]


def _as_normalized_string(value: Any, name: str) -> NormalizedString:
    if isinstance(value, NormalizedString):
        return value
    if isinstance(value, str):  # a piece given as text: its own original
        return NormalizedString(value)
    raise wrong_type(name, "a NormalizedString", value)


class PreTokenizedString:
    """A text being cut into words: its splits, each a :class:`NormalizedString` with the original
    span of every character (``tokenizers``' ``PreTokenizedString``).

    Example:
        >>> p = PreTokenizedString("Hey there")
        >>> p.split(lambda i, n: n.split(" ", "removed"))
        >>> p.get_splits()
        [('Hey', (0, 3), None), ('there', (4, 9), None)]
    """

    def __init__(self, sequence: str) -> None:
        if not isinstance(sequence, str):
            raise wrong_type("sequence", "a str", sequence)
        self._root = sequence
        self._splits = [NormalizedString(sequence)] if sequence else []

    def split(self, function: Callable[[int, NormalizedString], Any]) -> None:
        """Replace each split by the list of :class:`NormalizedString` ``function(index, split)``
        returns (empty ones are dropped)."""
        splits = []
        for index, piece in enumerate(self._splits):
            given = NormalizedString._of(piece._root, piece._normalized, piece._original)
            try:  # the pieces may be the split itself: taken (copied) before it expires
                for position, part in enumerate(function(index, given)):
                    part = _as_normalized_string(part, f"split's result[{position}]")
                    if part._live().text:
                        splits.append(NormalizedString._of(part._root, part._normalized, part._original))
            finally:
                given._expired = True
        self._splits = splits

    def normalize(self, function: Callable[[NormalizedString], Any]) -> None:
        """Call ``function`` on each split, which may change it in place."""
        for piece in self._splits:
            function(piece)
        self._splits = [piece for piece in self._splits if piece._live().text]

    def get_splits(self, offset_referential: str = "original", offset_type: str = "char") -> list[tuple]:
        """``[(text, (start, end), tokens), ...]`` of each split: offsets into the original text
        (``"original"``) or into the normalized splits (``"normalized"``), in characters (``"char"``) or
        UTF-8 bytes (``"byte"``); ``tokens`` is None (no model ran)."""
        if offset_referential not in ("original", "normalized"):
            raise must_be("offset_referential", "'original' or 'normalized'", offset_referential)
        if offset_type not in ("char", "byte"):
            raise must_be("offset_type", "'char' or 'byte'", offset_type)
        found = []
        position = 0  # where the split starts in the normalized splits put together
        for piece in self._splits:
            text, spans = piece.normalized, piece._spans()
            if offset_referential == "original":
                start, end = (spans[0][0], spans[-1][1]) if spans else (0, 0)
                base = self._root
            else:
                start, end = position, position + len(text)
                base = "".join(p.normalized for p in self._splits)
            if offset_type == "byte":
                start, end = len(base[:start].encode()), len(base[:end].encode())
            found.append((text, (start, end), None))
            position += len(text)
        return found

    def _pieces(self) -> list[Piece]:
        return [Piece(piece.normalized, 0, piece._spans()) for piece in self._splits]


def _failed(stage: str, custom: Any, method: str, error: Exception) -> ValueError:
    return ValueError(f"the custom {stage} {type(custom).__name__}.{method} raised {type(error).__name__}: {error}")


class CustomNormalizer(Normalizer):
    """A normalizer written in Python: ``custom.normalize(normalized_string)`` changes the
    :class:`NormalizedString` in place (see :meth:`kvec.contracts.Normalizer.custom`)."""

    def __init__(self, custom: Any) -> None:
        if not callable(getattr(custom, "normalize", None)):
            raise TypeError(f"a custom normalizer needs a normalize method, got {type(custom).__name__}")
        self.implementation = custom

    def normalize(self, normalized: Any) -> Any:
        """With a :class:`NormalizedString` (as tokenizers' ``normalize``), change it in place; with a
        pipeline's :class:`kvec.contracts.Normalized`, return the changed copy."""
        if isinstance(normalized, NormalizedString):
            normalized._live()
            self._call(normalized)
            return None
        given = NormalizedString._of("", normalized, normalized.text)
        try:
            self._call(given)
            return given._live()
        finally:
            given._expired = True

    def _call(self, given: NormalizedString) -> None:
        try:
            self.implementation.normalize(given)
        except Exception as error:
            raise _failed("normalizer", self.implementation, "normalize", error) from error

    def get_config(self) -> dict[str, Any]:
        raise ValueError(cannot_save(self))

    def to_tokenizer_json(self) -> dict[str, Any]:
        raise ValueError(cannot_save(self))

    def __repr__(self) -> str:
        return f"CustomNormalizer({self.implementation!r})"


class CustomPreTokenizer(PreTokenizer):
    """A pre-tokenizer written in Python: ``custom.pre_tokenize(pretok)`` cuts the
    :class:`PreTokenizedString` in place (see :meth:`kvec.contracts.PreTokenizer.custom`)."""

    def __init__(self, custom: Any) -> None:
        if not callable(getattr(custom, "pre_tokenize", None)):
            raise TypeError(f"a custom pre-tokenizer needs a pre_tokenize method, got {type(custom).__name__}")
        self.implementation = custom

    def pre_tokenize(self, text: Any, first: int = True) -> Any:
        """With a :class:`PreTokenizedString` (as tokenizers' ``pre_tokenize``), cut it in place; with a
        pipeline's text, return its words."""
        if isinstance(text, PreTokenizedString):
            self._call(text)
            return None
        pretok = PreTokenizedString(text)
        self._call(pretok)
        return pretok._pieces()

    def _call(self, pretok: PreTokenizedString) -> None:
        try:
            self.implementation.pre_tokenize(pretok)
        except Exception as error:
            raise _failed("pre-tokenizer", self.implementation, "pre_tokenize", error) from error

    def split_words(self, text: str, first: int = True) -> list[str]:
        return [piece.text for piece in self.pre_tokenize(text, first)]

    def get_config(self) -> dict[str, Any]:
        raise ValueError(cannot_save(self))

    def to_tokenizer_json(self) -> dict[str, Any]:
        raise ValueError(cannot_save(self))

    def __repr__(self) -> str:
        return f"CustomPreTokenizer({self.implementation!r})"


CUSTOM_STAGES.update(normalizer=CustomNormalizer, pre_tokenizer=CustomPreTokenizer)
