"""Typed reading of a JSON document's objects: each field is taken with its type checked, and a field of
the wrong type raises :class:`kvec.errors.FormatError` naming the file and the field's path
(``decoder.decoders[1].prefix must be a string, got the number 7``).

A reader of a format (``tokenizer.json``) takes every field through one :class:`Fields`, so a file that
loads holds no value that would fail later, deep inside a stage, with a bare ``TypeError``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from kvec.errors import FormatError
from kvec.models.base import checked_vocab

__all__ = ["REQUIRED", "Fields", "json_type"]


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: The default of a field that must be present.
REQUIRED: Any = _Required()


def json_type(value: Any) -> str:
    """``value``'s JSON type in words, with a short view of it: ``"the number 7"``, ``"null"``.

    Example:
        >>> json_type(7), json_type("x"), json_type(["a", 1]), json_type(None)
        ('the number 7', "the string 'x'", 'the array ["a", 1]', 'null')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {value!r:.40}"
    if isinstance(value, str):
        return f"the string {value!r:.40}"
    text = json.dumps(value, ensure_ascii=False)
    return f"the {'array' if isinstance(value, list) else 'object'} {text[:40]}{'...' if len(text) > 40 else ''}"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Fields:
    """One object of a JSON document at ``path`` (``"decoder"``, ``"normalizer.normalizers[0]"``) in
    ``source``, read field by field. Each reader takes the field ``name``, or ``default`` when it is
    absent (``REQUIRED``: absent is an error); with ``nullable``, a ``null`` reads as None.

    Example:
        >>> entry = Fields({"type": "WordPiece", "prefix": 7}, "decoder", "tokenizer.json")
        >>> entry.text("type")
        'WordPiece'
        >>> entry.text("prefix", "##")
        Traceback (most recent call last):
        ...
        kvec.errors.FormatError: tokenizer.json: decoder.prefix must be a string, got the number 7
    """

    def __init__(self, entry: Any, path: str, source: str | os.PathLike[str]) -> None:
        if not isinstance(entry, dict):
            raise FormatError(source, f"{path or 'the document'} must be an object, got {json_type(entry)}")
        self.entry: dict[str, Any] = entry
        self.path = path
        self.source = source

    def where(self, name: str) -> str:
        """The path of the field ``name``."""
        return f"{self.path}.{name}" if self.path else name

    def fail(self, message: str) -> None:
        raise FormatError(self.source, message)

    def __contains__(self, name: str) -> bool:
        return name in self.entry

    def _take(self, name: str, default: Any, nullable: bool, check: Callable[[Any], bool], expected: str) -> Any:
        if name not in self.entry:
            if default is REQUIRED:
                self.fail(f"{self.where(name)} is missing")
            return default
        value = self.entry[name]
        if value is None and nullable:
            return None
        if not check(value):
            self.fail(f"{self.where(name)} must be {expected}, got {json_type(value)}")
        return value

    def text(self, name: str, default: Any = REQUIRED, nullable: bool = False) -> Any:
        """A string field."""
        return self._take(name, default, nullable, lambda v: isinstance(v, str), "a string")

    def flag(self, name: str, default: Any = REQUIRED, nullable: bool = False) -> Any:
        """A true/false field."""
        return self._take(name, default, nullable, lambda v: isinstance(v, bool), "true or false")

    def count(self, name: str, default: Any = REQUIRED, nullable: bool = False) -> Any:
        """A non-negative integer field (a Rust ``usize`` or ``u32``)."""
        return self._take(name, default, nullable, lambda v: _is_int(v) and v >= 0, "a non-negative integer")

    def number(self, name: str, default: Any = REQUIRED, nullable: bool = False) -> Any:
        """A number field (an integer or a fraction)."""
        return self._take(
            name, default, nullable, lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "a number"
        )

    def array(self, name: str, default: Any = REQUIRED, nullable: bool = False) -> Any:
        """An array field, its items unchecked."""
        return self._take(name, default, nullable, lambda v: isinstance(v, list), "an array")

    def strings(self, name: str, default: Any = REQUIRED) -> list[str]:
        """An array of strings."""
        values = self.array(name, default)
        for i, value in enumerate(values):
            if not isinstance(value, str):
                self.fail(f"{self.where(name)}[{i}] must be a string, got {json_type(value)}")
        return values

    def object(self, name: str, default: Any = REQUIRED, nullable: bool = False) -> Any:
        """An object field as :class:`Fields` (``default`` or None as they are)."""
        value = self._take(name, default, nullable, lambda v: isinstance(v, dict), "an object")
        return Fields(value, self.where(name), self.source) if isinstance(value, dict) else value

    def objects(self, name: str, default: Any = REQUIRED) -> list[Fields]:
        """An array of objects, each as :class:`Fields`."""
        return [
            Fields(item, f"{self.where(name)}[{i}]", self.source) for i, item in enumerate(self.array(name, default))
        ]

    def token_ids(self, name: str) -> dict[str, int]:
        """An object of ``token: id`` (a vocabulary), its ids integers from 0 to
        :data:`kvec.models.base.MAX_ID` (checked as the models check them)."""
        vocab = self._take(name, REQUIRED, False, lambda v: isinstance(v, dict), "an object of token: id")
        try:
            return checked_vocab(vocab, self.where(name))
        except (TypeError, ValueError) as e:
            raise FormatError(self.source, str(e)) from None

    def pair(self, name: str, first: Callable[[Any], bool], second: Callable[[Any], bool], expected: str) -> Any:
        """A two-item array whose items pass ``first`` and ``second`` (``expected`` says what it is)."""
        return self._take(
            name,
            REQUIRED,
            False,
            lambda v: isinstance(v, list) and len(v) == 2 and first(v[0]) and second(v[1]),
            expected,
        )
