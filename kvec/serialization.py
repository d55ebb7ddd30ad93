"""kvec's own file format for subword tokenizers: versioned JSON, written atomically.

A document is ``{"kvec_format": 1, "model": {"type": ..., "config": ...}, "normalizer": ...,
"pre_tokenizer": ..., "decoder": ..., "post_processor": ..., "special_tokens": [[token, id], ...],
"added_tokens": [[token, id], ...]}`` (a file without ``added_tokens`` has none). Each stage is stored
as its type name and its ``get_config()``, and rebuilt with ``type(**config)`` from the registry below,
so nothing in a file is ever executed. A save writes a temporary file in the same folder, flushes it to
disk and renames it over the target: a reader sees the
old file or the new one, never a partial one.
"""

import json
import os

from kvec import chinese, decoders, normalizers, pretokenizers, processors
from kvec.atomic import atomic_write
from kvec.errors import FormatError, parse_json
from kvec.models import BPE, Unigram, WordPiece

FORMAT_VERSION = 1

_STAGES = {
    "model": {"BPE": BPE, "Unigram": Unigram, "WordPiece": WordPiece},
    "normalizer": {
        name: getattr(normalizers, name)
        for name in (
            "BertNormalizer",
            "Lowercase",
            "NFC",
            "NFD",
            "NFKC",
            "NFKD",
            "OpenCC",
            "Prepend",
            "Replace",
            "Sequence",
            "SentencePieceNormalizer",
            "StripAccents",
        )
    },
    "pre_tokenizer": {
        "BertPreTokenizer": pretokenizers.BertPreTokenizer,
        "ByteLevel": pretokenizers.ByteLevel,
        "Digits": pretokenizers.Digits,
        "Jieba": chinese.Jieba,
        "KerasFilters": pretokenizers.KerasFilters,
        "Metaspace": pretokenizers.Metaspace,
        "Punctuation": pretokenizers.Punctuation,
        "SentencePiece": pretokenizers.SentencePiece,
        "Sequence": pretokenizers.Sequence,
        "Split": pretokenizers.Split,
        "Whitespace": pretokenizers.Whitespace,
        "WhitespaceSplit": pretokenizers.WhitespaceSplit,
    },
    "decoder": {
        "ByteLevel": decoders.ByteLevel,
        "Metaspace": decoders.Metaspace,
        "SentencePiece": decoders.SentencePiece,
        "WordPiece": decoders.WordPiece,
    },
    "post_processor": {"TemplateProcessing": processors.TemplateProcessing},
}


def to_document(tokenizer):
    """The JSON-ready dict of a :class:`kvec.pipeline.Tokenizer`."""
    document = {"kvec_format": FORMAT_VERSION}
    for stage in _STAGES:
        component = getattr(tokenizer, stage)
        document[stage] = None if component is None else component_document(stage, component)
    added = tokenizer.added_vocabulary
    document["special_tokens"] = [[token, token_id] for token, token_id in added.special.items()]
    document["added_tokens"] = [[token, token_id] for token, token_id in added.added.items()]
    return document


def component_document(stage, component):
    """``{"type": ..., "config": ...}`` of one pipeline stage (``TypeError`` for an unknown type)."""
    registry = _STAGES[stage]
    name = type(component).__name__
    if registry.get(name) is not type(component):
        raise TypeError(f"{stage} of type {name} cannot be saved (known: {sorted(registry)})")
    if isinstance(component, normalizers.Sequence):
        config = {"normalizers": [component_document(stage, n) for n in component.normalizers]}
    elif isinstance(component, pretokenizers.Sequence):
        config = {"pretokenizers": [component_document(stage, p) for p in component.pretokenizers]}
    else:
        config = component.get_config()
    return {"type": name, "config": config}


def from_document(document, source):
    """Rebuild the stages of a tokenizer from a parsed document; ``source`` names it in errors."""
    if not isinstance(document, dict):
        raise FormatError(source, "expected a JSON object")
    version = document.get("kvec_format")
    if version is None and isinstance(document.get("model"), dict) and "added_tokens" in document:
        raise FormatError(
            source,
            "this is a Hugging Face tokenizer.json, not a kvec tokenizer file: load it with "
            "kvec.interop.huggingface.load_tokenizer_json",
        )
    if version != FORMAT_VERSION:
        raise FormatError(source, f"unsupported kvec_format {version!r} (this kvec reads {FORMAT_VERSION})")
    stages = {}
    for stage in _STAGES:
        entry = document.get(stage)
        if entry is None:
            if stage == "model":
                raise FormatError(source, "no model")
            stages[stage] = None
            continue
        stages[stage] = component(stage, entry, source)
    for key in ("special_tokens", "added_tokens"):
        pairs = document.get(key, [])
        if not isinstance(pairs, list) or not all(
            isinstance(e, list) and len(e) == 2 and isinstance(e[0], str) and e[0] and isinstance(e[1], int)
            for e in pairs
        ):
            raise FormatError(source, f"{key} must be a list of [token, id] pairs")
        stages[key] = dict(pairs)
    return stages


def component(stage, entry, source):
    """Rebuild one stage from :func:`component_document` output; ``FormatError`` names ``source``."""
    registry = _STAGES[stage]
    if not isinstance(entry, dict) or not isinstance(entry.get("config"), dict):
        raise FormatError(source, f'{stage} must be an object with "type" and a "config" object')
    cls = registry.get(entry.get("type"))
    if cls is None:
        raise FormatError(source, f"unknown {stage} type {entry.get('type')!r} (known: {sorted(registry)})")
    config = entry["config"]
    if cls in (normalizers.Sequence, pretokenizers.Sequence):
        key = "normalizers" if cls is normalizers.Sequence else "pretokenizers"
        parts = config.get(key)
        if not isinstance(parts, list):
            raise FormatError(source, f'a Sequence {stage} needs a "{key}" list')
        config = {key: [component(stage, part, source) for part in parts]}
    try:
        return cls(**config)
    except (TypeError, ValueError, AttributeError, KeyError) as e:
        raise FormatError(source, f"invalid {stage} config ({e})") from None


def loads(text, source="kvec tokenizer JSON string"):
    return from_document(parse_json(text, source), source)


def read_text(path):
    """``(path, text)`` of a UTF-8 file; ``FormatError`` naming the file when it is not UTF-8."""
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            return path, f.read()
    except UnicodeDecodeError as e:
        raise FormatError(path, f"not UTF-8 text ({e})") from None


def load(path):
    path, text = read_text(path)
    return loads(text, source=path)


def save(document, path):
    """Write ``document`` as JSON to ``path`` atomically (see :mod:`kvec.atomic`)."""
    with atomic_write(path) as f:
        json.dump(document, f, ensure_ascii=False)
