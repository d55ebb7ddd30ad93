"""Errors raised by kvec.

Bad arguments raise the built-in ``TypeError`` / ``ValueError`` with a message that names the argument,
the position and the type. Anything wrong with serialized data (a tokenizer JSON string or a file)
raises :class:`FormatError`, which is also a ``ValueError`` so existing ``except ValueError`` blocks keep
working.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from typing import Any

#: The deepest nesting of arrays and objects a JSON document may have: serde_json's limit, so Hugging
#: Face's tokenizers reads no deeper document either, and kvec's readers (some of them recursive) never
#: meet one that exhausts Python's stack.
MAX_JSON_DEPTH = 128


def parse_json(
    text: str,
    source: str | os.PathLike[str],
    parse_float: Callable[[str], float] | None = None,
    path_hint: str | None = None,
) -> Any:
    """The document in JSON ``text``; :class:`FormatError` naming ``source`` when it is not JSON, is
    nested more than :data:`MAX_JSON_DEPTH` deep or holds an integer too long for Python to read.
    ``parse_float`` reads the numbers with a fraction or an exponent (as ``json.loads`` takes it).
    ``path_hint`` is added to the message when ``text`` is not JSON but looks like a file's path (a
    string reader given a path): what to call instead.

    Example:
        >>> parse_json('{"a": [1, 2]}', "example")
        {'a': [1, 2]}
        >>> parse_json("[" * 1000 + "]" * 1000, "example")
        Traceback (most recent call last):
        ...
        kvec.errors.FormatError: example: JSON nested more than 128 deep
    """
    try:
        document = json.loads(text, parse_float=parse_float)
    except json.JSONDecodeError as e:
        problem = f"not valid JSON ({e})"
        if path_hint is not None and looks_like_path(text):
            problem = f"{problem}; {path_hint}"
        raise FormatError(source, problem) from None
    except RecursionError:
        raise FormatError(source, f"JSON nested more than {MAX_JSON_DEPTH} deep") from None
    except ValueError as e:  # an integer past Python's int-digit limit
        raise FormatError(source, f"a number too long to read ({str(e).split(';')[0]})") from None
    check_json_depth(document, source)
    return document


def check_json_depth(document: Any, source: str | os.PathLike[str]) -> None:
    """:class:`FormatError` naming ``source`` when a parsed document's arrays and objects nest more
    than :data:`MAX_JSON_DEPTH` deep (checked level by level, without recursion)."""
    level, depth = [document], 0
    while level:
        level = [
            child
            for node in level
            if type(node) is dict or type(node) is list
            for child in (node.values() if type(node) is dict else node)
            if type(child) is dict or type(child) is list
        ]
        depth += 1
        if depth > MAX_JSON_DEPTH:
            raise FormatError(source, f"JSON nested more than {MAX_JSON_DEPTH} deep")


def looks_like_path(text: str) -> bool:
    """Whether ``text`` reads as a file's path rather than a JSON document: one short line that names
    an existing file or ends with ``.json``."""
    if not isinstance(text, str):
        return False
    candidate = text.strip()
    if not candidate or len(candidate) > 4096 or "\n" in candidate or candidate[0] in "{[":
        return False
    try:
        return candidate.lower().endswith(".json") or os.path.isfile(candidate)
    except (OSError, ValueError):  # a name the system cannot look up (a NUL character, too long)
        return False


class KvecError(Exception):
    """Base class of every error that kvec raises on its own account."""


class FormatError(KvecError, ValueError):
    """Serialized data (a JSON string or a file) is corrupt, truncated or of an unknown kind.

    ``source`` names where the data came from: a file path, or a short description such as
    ``"tokenizer JSON string"``.
    """

    def __init__(self, source: str | os.PathLike[str], problem: str) -> None:
        self.source = source
        self.problem = problem
        super().__init__(f"{source}: {problem}")


class NotNativeError(KvecError):
    """A pipeline has a stage that the native encoder outside Python (the TensorFlow op, see
    :mod:`kvec.native_spec`) does not run; the message names the stage."""


class MeaningError(KvecError, ValueError):
    """A tokenizer cannot be written in a format without changing its ids: the format's library would
    segment some text otherwise (``save_tokenizer_json`` of a Unigram model with sentencepiece's rule).
    The message names the stage, what the format means, and the keyword that writes it with that
    meaning anyway."""


class NotLocalError(KvecError, FileNotFoundError):
    """A tokenizer was asked for by a name that is no local folder or file. kvec reads local folders
    and files only (it never downloads); the message says how to fetch a Hugging Face Hub tokenizer."""


class ExportError(KvecError):
    """A model cannot be saved for serving (``model.export``, ``tf.saved_model.save``): what it holds
    would not run where the SavedModel is loaded. The message says which layer and why."""


class NotAFileError(KvecError, ValueError):
    """A path that kvec was asked to read or replace is not a regular file: a FIFO, a device, a socket
    or a folder. kvec reads and replaces regular files only, so a save never turns ``/dev/null`` or a
    named pipe into a regular file, and a load never blocks on a pipe or reads a device.

    ``path`` is the path as given; ``kind`` says what it is (``"a FIFO"``).
    """

    def __init__(self, path: str | os.PathLike[str], kind: str, action: str) -> None:
        self.path = os.fspath(path)
        self.kind = kind
        super().__init__(f"{self.path}: {kind}, not a regular file: kvec {action} regular files only")


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def file_kind(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words: ``"a regular file"``, ``"a FIFO"``, ...

    Example:
        >>> file_kind(os.stat(os.devnull).st_mode)
        'a character device'
    """
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((kind for test, kind in _KINDS if test(mode)), "a special file")
