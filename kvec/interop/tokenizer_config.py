"""transformers' ``tokenizer_config.json`` and ``special_tokens_map.json``, read into a pipeline.

transformers keeps a tokenizer's call settings beside its ``tokenizer.json``: ``model_max_length``,
``padding_side``, ``truncation_side``, ``model_input_names``, ``clean_up_tokenization_spaces`` and the
named special tokens (``pad_token``...). :func:`kvec.load` and ``Pipeline.from_pretrained`` apply them
to the pipeline of a folder. kvec reads local paths only: :func:`local_path` raises
:class:`kvec.errors.NotLocalError` for a Hub name, saying how to download it.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import regex

from kvec.common.arguments import wrong_type
from kvec.errors import FormatError, NotLocalError, parse_json
from kvec.pipeline import Pipeline
from kvec.transformers_calls import SPECIAL_ROLES

__all__ = ["CONFIG", "SPECIAL_MAP", "apply_tokenizer_config", "local_path"]

CONFIG, SPECIAL_MAP = "tokenizer_config.json", "special_tokens_map.json"
#: a Hub repository id: a name, or an owner and a name
_HUB_ID = regex.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)?")
_LARGEST_CONFIG = 1 << 24  # tokenizer_config.json holds settings and, at most, a chat template


def local_path(name: str | os.PathLike[str]) -> Path:
    """``name`` as an existing local path; :class:`NotLocalError` (a ``FileNotFoundError``) saying how
    to download a Hub tokenizer when there is none."""
    if not isinstance(name, (str, os.PathLike)):
        raise wrong_type("path", "a str or a path", name)
    found = Path(name)
    if found.exists():
        return found
    text = os.fspath(name)
    if not _HUB_ID.fullmatch(text):  # a path, which no Hub name could be: the system's own error
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), text)
    message = (
        f"{text!r} is no local folder or file: kvec loads local folders and files only. If it is a Hugging "
        f"Face Hub name, download it first: huggingface-cli download {text} --local-dir DIR (or "
        f"huggingface_hub.snapshot_download({text!r}, local_dir=DIR)), then load DIR"
    )
    raise NotLocalError(message)


def apply_tokenizer_config(tokenizer: Pipeline, folder: str | os.PathLike[str]) -> None:
    """Give ``tokenizer`` the settings of the ``special_tokens_map.json`` and ``tokenizer_config.json``
    in ``folder`` (the latter wins), as transformers reads them; a named special token missing from the
    vocabulary is registered as a special token, as transformers registers it. A file that is not
    such a JSON object raises ``FormatError`` naming it."""
    settings: dict[str, Any] = {}
    for name in (SPECIAL_MAP, CONFIG):
        path = Path(folder) / name
        if path.is_file():
            settings.update(_read_object(path))
    source = Path(folder) / CONFIG
    for role in SPECIAL_ROLES:
        if role in settings:
            token = _token_text(settings[role], role, source)
            setattr(tokenizer, role, token)
            if token is not None and tokenizer.token_to_id(token) is None:
                tokenizer.add_special_tokens([token])
    for key in ("model_max_length", "padding_side", "truncation_side", "model_input_names"):
        if settings.get(key) is not None:
            try:
                setattr(tokenizer, key, settings[key])
            except (TypeError, ValueError) as error:
                raise FormatError(source, f"invalid {key} ({error})") from None
    if isinstance(settings.get("clean_up_tokenization_spaces"), bool):
        tokenizer.clean_up_tokenization_spaces = settings["clean_up_tokenization_spaces"]


def _read_object(path: Path) -> dict[str, Any]:
    if path.stat().st_size > _LARGEST_CONFIG:
        raise FormatError(path, f"larger than {_LARGEST_CONFIG} bytes: not a tokenizer configuration")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise FormatError(path, f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    document = parse_json(text, path)
    if not isinstance(document, dict):
        raise FormatError(path, f"must hold a JSON object, got {type(document).__name__}")
    if isinstance(document.get("model_max_length"), float):  # transformers writes 1e30 as an int; some files do not
        document["model_max_length"] = int(document["model_max_length"])
    return document


def _token_text(value: Any, role: str, source: Path) -> str | None:
    """A special token as transformers writes it: a str, or an ``AddedToken`` as ``{"content": ...}``."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]
    raise FormatError(source, f"{role} must be a str or an AddedToken object, got {type(value).__name__}")
