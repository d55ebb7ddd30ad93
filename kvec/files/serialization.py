"""kvec's own file format for subword tokenizers: versioned JSON, written atomically.

A document is ``{"kvec_format": 1, "model": {"type": ..., "config": ...}, "normalizer": ...,
"pre_tokenizer": ..., "decoder": ..., "post_processor": ..., "special_tokens": [[token, id], ...],
"added_tokens": [[token, id], ...]}`` (a file without ``added_tokens`` has none; an entry may end with
``{option: value}``, the :class:`kvec.added_vocabulary.AddedToken` options that differ from the
defaults) and, where set, ``"truncation"`` and ``"padding"``: the arguments of ``enable_truncation``
and ``enable_padding``. Each stage is stored as its type name and its ``get_config()``, and rebuilt
with ``type(**config)`` from the registry below, so nothing in a file is ever executed. A save writes a
temporary file in the same folder, flushes it to disk and renames it over the target: a reader sees
the old file or the new one, never a partial one.
"""

import json
from typing import Any

# the stage modules register their stages (kvec.contracts.registered) as they are imported
from kvec import chinese, decoders, models, normalizers, pre_tokenizers, processors  # noqa: F401
from kvec.added_vocabulary import AddedToken
from kvec.common.patterns import Regex, pattern_json
from kvec.contracts import STAGE_TYPES
from kvec.custom_stages import CustomNormalizer, CustomPreTokenizer, cannot_save
from kvec.errors import FormatError, parse_json
from kvec.files.atomic import atomic_write
from kvec.files.vocab_reading import read_text

FORMAT_VERSION = 1


def to_document(tokenizer):
    """The JSON-ready dict of a :class:`kvec.Pipeline`."""
    document: dict[str, Any] = {"kvec_format": FORMAT_VERSION}
    for stage in STAGE_TYPES:
        component = getattr(tokenizer, stage)
        document[stage] = None if component is None else component_document(stage, component)
    document["special_tokens"], document["added_tokens"] = [], []
    for token, token_id in tokenizer.added_vocabulary.saved():
        entry: list[object] = [token.content, token_id]
        defaults = AddedToken(special=token.special).options()  # the list it is in says "special"
        options = {name: value for name, value in token.options().items() if value != defaults[name]}
        if options:
            entry.append(options)
        document["special_tokens" if token.special else "added_tokens"].append(entry)
    for setting in ("truncation", "padding"):
        if getattr(tokenizer, setting) is not None:
            document[setting] = getattr(tokenizer, setting)
    return document


def component_document(stage, component):
    """``{"type": ..., "config": ...}`` of one pipeline stage (``TypeError`` for an unknown type)."""
    if isinstance(component, (CustomNormalizer, CustomPreTokenizer)):
        raise ValueError(cannot_save(component))
    registry = STAGE_TYPES[stage]
    name = type(component).__name__
    if registry.get(name) is not type(component):
        raise TypeError(f"{stage} of type {name} cannot be saved (known: {sorted(registry)})")
    config = component.get_config()
    nested = component.nested_stages
    if nested is not None:
        config = {nested: [component_document(stage, part) for part in getattr(component, nested)]}
    if component.takes_pattern:  # a literal str or a Regex, told apart as tokenizer.json does
        config = {**config, "pattern": pattern_json(config["pattern"])}
    return {"type": name, "config": config}


def _pattern(cls, value):
    """A ``Split``'s or ``Replace``'s pattern from its document: ``{"String": ...}`` or ``{"Regex": ...}``;
    a bare str is what files written before kvec had :class:`kvec.common.patterns.Regex` hold, where a
    ``Split`` took an expression and ``Replace`` a literal string."""
    if isinstance(value, dict) and len(value) == 1 and isinstance(next(iter(value.values())), str):
        if "Regex" in value:
            return Regex(value["Regex"])
        if "String" in value:
            return value["String"]
    if isinstance(value, str) and cls is STAGE_TYPES["pre_tokenizer"]["Split"]:
        return Regex(value)
    return value  # the constructor names what is wrong


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
    if version != FORMAT_VERSION or isinstance(version, bool):  # (true == 1 in Python, not in JSON)
        raise FormatError(source, f"unsupported kvec_format {version!r} (this kvec reads {FORMAT_VERSION})")
    stages: dict[str, Any] = {}
    for stage in STAGE_TYPES:
        entry = document.get(stage)
        if entry is None:
            if stage == "model":
                raise FormatError(source, "no model")
            stages[stage] = None
            continue
        stages[stage] = component(stage, entry, source)
    stages["added_tokens"] = _added_tokens(document, source)
    for setting in ("truncation", "padding"):
        if document.get(setting) is not None:
            if not isinstance(document[setting], dict):
                raise FormatError(source, f"{setting} must be an object of enable_{setting}'s arguments")
            stages[setting] = document[setting]
    return stages


def _added_tokens(document, source):
    """``[(AddedToken, id), ...]`` of a document's ``special_tokens`` then ``added_tokens``: entries
    ``[token, id]``, or ``[token, id, {option: value}]`` for the options that differ from the defaults."""
    tokens = []
    for key in ("special_tokens", "added_tokens"):
        entries = document.get(key, [])
        if not isinstance(entries, list):
            raise FormatError(source, f"{key} must be a list of [token, id] entries")
        for position, entry in enumerate(entries):
            if not (
                isinstance(entry, list)
                and len(entry) in (2, 3)
                and isinstance(entry[0], str)
                and entry[0]
                and isinstance(entry[1], int)
                and not isinstance(entry[1], bool)
                and (len(entry) == 2 or isinstance(entry[2], dict))
            ):
                raise FormatError(source, f"{key}[{position}] must be [token, id] or [token, id, {{options}}]")
            options = entry[2] if len(entry) == 3 else {}
            unknown = sorted(set(options) - {"single_word", "lstrip", "rstrip", "normalized"})
            if unknown or not all(isinstance(value, bool) for value in options.values()):
                raise FormatError(source, f"{key}[{position}] has invalid options {options!r}")
            tokens.append((AddedToken(entry[0], special=key == "special_tokens", **options), entry[1]))
    return tokens


def component(stage, entry, source):
    """Rebuild one stage from :func:`component_document` output; ``FormatError`` names ``source``."""
    registry = STAGE_TYPES[stage]
    if not isinstance(entry, dict) or not isinstance(entry.get("config"), dict):
        raise FormatError(source, f'{stage} must be an object with "type" and a "config" object')
    kind = entry.get("type")
    cls = registry.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise FormatError(source, f"unknown {stage} type {entry.get('type')!r} (known: {sorted(registry)})")
    config = entry["config"]
    if stage == "model":  # the constructors take file paths from a caller; a file never names a file to read
        written = {"vocab": "a mapping of token to id", "merges": "a list of (left, right) pairs"}
        if kind == "Unigram":
            written["vocab"] = "a list of (piece, score) pairs"
        for name, form in written.items():
            if isinstance(config.get(name), str):
                raise FormatError(source, f"invalid model config ({name} must be {form}, got str)")
    key = cls.nested_stages
    if key is not None:
        parts = config.get(key)
        if not isinstance(parts, list):
            raise FormatError(source, f'a {kind} {stage} needs a "{key}" list')
        config = {key: [component(stage, part, source) for part in parts]}
    try:
        if cls.takes_pattern and "pattern" in config:
            config = {**config, "pattern": _pattern(cls, config["pattern"])}
        return cls(**config)
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError) as e:
        raise FormatError(source, f"invalid {stage} config ({e})") from None


def loads(text, source="kvec tokenizer JSON string"):
    """The stages of a tokenizer in kvec's JSON ``text``; ``FormatError`` naming ``source``."""
    hint = "Pipeline.from_str takes the JSON string, not a path; use Pipeline.from_file(path)"
    return from_document(parse_json(text, source, path_hint=hint), source)


def load(path):
    path, text = read_text(path)
    return loads(text, source=path)


def save(document, path):
    """Write ``document`` as JSON to ``path`` atomically (see :mod:`kvec.files.atomic`)."""
    with atomic_write(path) as f:
        json.dump(document, f, ensure_ascii=False)
