"""Reading the files a tokenizer ships in: every kvec loader opens a user's file through
:func:`open_regular`, :func:`read_bytes` or :func:`read_text`, and the plain vocabulary files
(``vocab.txt`` for WordPiece, ``vocab.json`` and ``merges.txt`` for BPE and WordLevel) are read here.

A loader reads regular files only, and none larger than :data:`MAX_FILE_BYTES`. Both are checked with
``os.stat`` before the file is opened, so a FIFO never blocks a load, a device is never read, and a
2 GB file is refused without being read; the file is then opened without blocking and checked again
through its descriptor, so a file swapped in between is refused too. Each reader raises
:class:`kvec.errors.FormatError` naming the file (and line) when the file is not what it should be.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from kvec.errors import FormatError, NotAFileError, file_kind, parse_json

__all__ = [
    "MAX_FILE_BYTES",
    "open_regular",
    "read_bytes",
    "read_lines",
    "read_merges_txt",
    "read_text",
    "read_vocab_json",
    "read_vocab_txt",
]

Path = str | os.PathLike[str]

#: The largest file a kvec loader reads: 1 GiB. The largest tokenizer files published are about 35 MB
#: (a ``tokenizer.json`` of 256,000 tokens); a JSON document takes several times its size in memory
#: once parsed, so a larger file is refused by its size before it is read.
MAX_FILE_BYTES = 1 << 30

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def _check_loadable(path: str, status: os.stat_result) -> None:
    if not stat.S_ISREG(status.st_mode):
        raise NotAFileError(path, file_kind(status.st_mode), "reads")
    if status.st_size > MAX_FILE_BYTES:
        raise FormatError(
            path, f"{status.st_size} bytes: larger than any file kvec loads (at most {MAX_FILE_BYTES} bytes)"
        )


def open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading in binary, after checking that it is a regular file of at most
    :data:`MAX_FILE_BYTES` (:class:`kvec.errors.NotAFileError` or :class:`kvec.errors.FormatError`
    naming it otherwise).

    Example:
        >>> open_regular(os.devnull)
        Traceback (most recent call last):
        ...
        kvec.errors.NotAFileError: /dev/null: a character device, not a regular file: kvec reads regular files only
    """
    path = os.fspath(path)
    _check_loadable(path, os.stat(path))
    fd = os.open(path, _OPEN_FLAGS)
    try:
        _check_loadable(path, os.fstat(fd))  # the file opened is the file checked
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_bytes(path: Path) -> tuple[str, bytes]:
    """``(path, content)`` of a regular file of at most :data:`MAX_FILE_BYTES` (see :func:`open_regular`)."""
    path = os.fspath(path)
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        data = f.read(size + 1)  # a buffer of the checked size, and one byte to see if it grew
    if len(data) > size:
        raise FormatError(path, "the file grew while it was read")
    return path, data


def read_text(path: Path, encoding: str = "utf-8") -> tuple[str, str]:
    """``(path, text)`` of a UTF-8 file (``encoding="utf-8-sig"``: a byte-order mark is dropped), its
    line ends read as ``open`` reads them (``\\r\\n`` and ``\\r`` become ``\\n``); ``FormatError``
    naming the file when it is not UTF-8."""
    path, data = read_bytes(path)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as e:
        raise FormatError(path, f"not UTF-8 text ({e})") from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return path, text


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
