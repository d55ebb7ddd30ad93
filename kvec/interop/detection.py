"""One loader for every tokenizer file kvec reads: the format is told from the file's contents.

=================================  ==========================================================
What the file holds                Loaded by
=================================  ==========================================================
kvec's JSON (``"kvec_format"``)    :meth:`kvec.pipeline.Pipeline.from_file`
Hugging Face ``tokenizer.json``    :func:`kvec.interop.huggingface.load_tokenizer_json`
sentencepiece ``.model``           :func:`kvec.interop.sentencepiece_model.load_sentencepiece_model`
BERT ``vocab.txt``                 :func:`kvec.interop.vocab_files.load_bert_vocab`
GPT-2 ``vocab.json``               :func:`kvec.interop.vocab_files.load_gpt2_files` (with the
                                   ``merges.txt`` beside it)
tiktoken ranks                     :func:`kvec.interop.tiktoken_ranks.load_tiktoken`
legacy Keras ``Tokenizer`` JSON    :func:`kvec.text.tokenizer_from_json` (a :class:`kvec.Tokenizer`)
=================================  ==========================================================

A folder is read as the files a pretrained tokenizer ships with: ``tokenizer.json`` first, then a
``.model``, ``vocab.json`` with ``merges.txt``, and ``vocab.txt``; its ``tokenizer_config.json`` and
``special_tokens_map.json`` (transformers' settings and special tokens) are applied to the pipeline.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import regex

from kvec.errors import FormatError, parse_json
from kvec.files.vocab_reading import open_regular, read_text
from kvec.interop.huggingface import load_tokenizer_json
from kvec.interop.sentencepiece_model import load_sentencepiece_model
from kvec.interop.tiktoken_ranks import load_tiktoken
from kvec.interop.tokenizer_config import apply_tokenizer_config, local_path
from kvec.interop.vocab_files import load_bert_vocab, load_gpt2_files
from kvec.pipeline import Pipeline
from kvec.text import Tokenizer, tokenizer_from_json

__all__ = ["detect_format", "load"]

_FOLDER_FILES = ("tokenizer.json", "*.model", "vocab.json", "vocab.txt")
_TIKTOKEN_LINE = regex.compile(r"[A-Za-z0-9+/]+=*\s+\d+")
_SAMPLE = 1 << 16  # what is read to tell a text format


def load(path: str | os.PathLike[str]) -> Pipeline | Tokenizer:
    """Load the tokenizer in ``path`` (a file or a pretrained tokenizer's folder), whatever its format.

    Raises:
        kvec.errors.FormatError: naming the file, when no format kvec reads fits it, or when the
            format's own loader finds it corrupt.
        kvec.errors.NotLocalError: there is no such file or folder (a ``FileNotFoundError``; for a
            name such as ``"bert-base-uncased"`` the message says how to download it: kvec reads
            local paths only).

    Example:
        >>> import os, tempfile
        >>> folder = tempfile.mkdtemp()
        >>> with open(os.path.join(folder, "vocab.txt"), "w") as f:
        ...     _ = f.write("[PAD]\\n[UNK]\\n[CLS]\\n[SEP]\\nun\\n##able\\n")
        >>> detect_format(folder), load(folder).encode("Unable").tokens
        ('vocab.txt', ['[CLS]', 'un', '##able', '[SEP]'])
    """
    loaded = _load(path)
    if isinstance(loaded, Pipeline) and Path(path).is_dir():
        apply_tokenizer_config(loaded, path)  # transformers' settings and special tokens
    return loaded


def _load(path: str | os.PathLike[str]) -> Pipeline | Tokenizer:
    found, kind, document = _detect(path)
    if kind == "kvec":
        return Pipeline.from_document(document, str(found))
    if kind == "tokenizer.json":  # read again, its numbers as tokenizers reads them (serde_json_float)
        return load_tokenizer_json(found)
    if kind == "keras":
        return tokenizer_from_json(json.dumps(document))
    if kind == "sentencepiece":
        return load_sentencepiece_model(found)
    if kind == "vocab.json":
        merges = found.with_name("merges.txt")
        if not merges.is_file():
            raise FormatError(found, f"a GPT-2 vocab.json needs its merges.txt beside it ({merges} is missing)")
        return load_gpt2_files(found, merges)
    if kind == "tiktoken":
        return load_tiktoken(found)
    return load_bert_vocab(found)


def detect_format(path: str | os.PathLike[str]) -> str:
    """The format :func:`load` reads ``path`` as: ``"kvec"``, ``"tokenizer.json"``, ``"keras"``,
    ``"sentencepiece"``, ``"vocab.json"``, ``"tiktoken"`` or ``"vocab.txt"`` (``FormatError`` for none)."""
    return _detect(path)[1]


def _detect(path: str | os.PathLike[str]) -> tuple[Path, str, Any]:
    """``(file, format, parsed JSON document or None)``."""
    found = local_path(path)
    if found.is_dir():
        found = _folder_file(found)
    with open_regular(found) as stream:  # a FIFO, a device or a huge file is refused before it is read
        head = stream.read(_SAMPLE)
    text = _as_text(head)
    if text is None:
        if head[:1] == b"\n":  # a ModelProto starts with its pieces (field 1, length-delimited)
            return found, "sentencepiece", None
        raise FormatError(found, "a binary file that is not a sentencepiece model (" + _KNOWN + ")")
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return _json_format(found)
    if stripped.startswith("[") and _is_json(found):  # a vocab.txt may start with "[PAD]"
        raise FormatError(found, "a JSON document that is not an object (" + _KNOWN + ")")
    if stripped.startswith("#version"):
        raise FormatError(found, "a GPT-2 merges.txt: load its vocab.json (or the folder holding both) with kvec.load")
    lines = [line for line in stripped.splitlines()[:50] if line.strip()]
    if not lines:
        raise FormatError(found, "the file is empty (" + _KNOWN + ")")
    if all(_TIKTOKEN_LINE.fullmatch(line.strip()) for line in lines):
        return found, "tiktoken", None
    return found, "vocab.txt", None


_KNOWN = (
    "kvec reads its own JSON, tokenizer.json, sentencepiece .model, vocab.txt, GPT-2 vocab.json + merges.txt, "
    "tiktoken ranks and the legacy Keras Tokenizer's JSON"
)


def _folder_file(folder: Path) -> Path:
    for pattern in _FOLDER_FILES:
        matches = sorted(path for path in folder.glob(pattern) if path.is_file())
        if matches:
            return matches[0]
    raise FormatError(folder, f"no tokenizer file in the folder (looked for {', '.join(_FOLDER_FILES)})")


def _as_text(head: bytes) -> str | None:
    """``head`` as UTF-8 text (a character cut at the end of the sample is fine), or None."""
    if b"\0" in head:
        return None
    try:
        return head.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        if error.start >= len(head) - 3:  # only the sample's last character is cut
            return head[: error.start].decode("utf-8-sig")
        return None


def _is_json(found: Path) -> bool:
    try:
        parse_json(read_text(found, encoding="utf-8-sig")[1], found)
    except FormatError as error:
        if error.problem.startswith(("not valid JSON", "not UTF-8 text")):
            return False
        raise  # JSON, but nested too deep or with too long a number
    return True


def _json_format(found: Path) -> tuple[Path, str, Any]:
    text = read_text(found, encoding="utf-8-sig")[1]
    document = parse_json(text, found)
    if not isinstance(document, dict):
        raise FormatError(found, "a JSON document that is not an object (" + _KNOWN + ")")
    if "kvec_format" in document:
        return found, "kvec", document
    if document.get("class_name") == "Tokenizer" and isinstance(document.get("config"), dict):
        return found, "keras", document
    if isinstance(document.get("model"), dict):
        return found, "tokenizer.json", document
    if document and all(isinstance(k, str) and isinstance(v, int) for k, v in document.items()):
        return found, "vocab.json", document
    raise FormatError(found, "a JSON object of no known tokenizer format (" + _KNOWN + ")")
