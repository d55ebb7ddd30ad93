"""Errors raised by kvec.

Bad arguments raise the built-in ``TypeError`` / ``ValueError`` with a message that names the argument,
the position and the type. Anything wrong with serialized data (a tokenizer JSON string or a file)
raises :class:`FormatError`, which is also a ``ValueError`` so existing ``except ValueError`` blocks keep
working.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any


def parse_json(text: str, source: str | os.PathLike[str], parse_float: Callable[[str], float] | None = None) -> Any:
    """The document in JSON ``text``; :class:`FormatError` naming ``source`` when it is not JSON.
    ``parse_float`` reads the numbers with a fraction or an exponent (as ``json.loads`` takes it)."""
    try:
        return json.loads(text, parse_float=parse_float)
    except json.JSONDecodeError as e:
        raise FormatError(source, f"not valid JSON ({e})") from None


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


class ExportError(KvecError):
    """A model cannot be saved for serving (``model.export``, ``tf.saved_model.save``): what it holds
    would not run where the SavedModel is loaded. The message says which layer and why."""
