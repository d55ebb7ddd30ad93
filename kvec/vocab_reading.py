"""Reading the plain files a model's vocabulary ships in: ``vocab.txt`` (WordPiece), ``vocab.json`` and
``merges.txt`` (BPE, WordLevel). Each reader returns what the model takes and raises
:class:`kvec.errors.FormatError` naming the file and line when the file is not what it should be.
"""

from __future__ import annotations

import os

from kvec.errors import FormatError, parse_json

__all__ = ["read_lines", "read_merges_txt", "read_text", "read_vocab_json", "read_vocab_txt"]

Path = str | os.PathLike[str]


def read_text(path: Path) -> tuple[str, str]:
    """``(path, text)`` of a UTF-8 file; ``FormatError`` naming the file when it is not UTF-8."""
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            return path, f.read()
    except UnicodeDecodeError as e:
        raise FormatError(path, f"not UTF-8 text ({e})") from None


def read_lines(path: Path) -> tuple[str, list[str]]:
    """``(path, lines)``: the file's lines without line ends (a last empty line is no line)."""
    path, text = read_text(path)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return path, lines


def read_vocab_txt(path: Path) -> dict[str, int]:
    """``{token: id}`` of a ``vocab.txt``: one token per line, its id the line's number from 0."""
    path, lines = read_lines(path)
    vocab = {line.rstrip(): number for number, line in enumerate(lines)}
    if not vocab:
        raise FormatError(path, "no tokens")
    return vocab


def read_vocab_json(path: Path) -> dict[str, int]:
    """``{token: id}`` of a ``vocab.json``."""
    path, text = read_text(path)
    vocab = parse_json(text, path)
    if not isinstance(vocab, dict) or not all(
        isinstance(t, str) and isinstance(i, int) and not isinstance(i, bool) for t, i in vocab.items()
    ):
        raise FormatError(path, "expected an object of token: id")
    return vocab


def read_merges_txt(path: Path) -> list[tuple[str, str]]:
    """The merges of a ``merges.txt``, in rank order: a line is two tokens and one space (a
    ``#version`` line is skipped)."""
    path, lines = read_lines(path)
    merges = []
    for number, line in enumerate(lines, start=1):
        if line.startswith("#version"):
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise FormatError(path, f"line {number} is not two tokens separated by a space: {line[:80]!r}")
        merges.append((parts[0], parts[1]))
    return merges
