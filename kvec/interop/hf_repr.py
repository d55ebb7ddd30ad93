"""Hugging Face ``tokenizers``' ``repr()`` and ``str()`` of a tokenizer and of its stages.

``tokenizers`` prints an object as the serde structure its ``tokenizer.json`` entry is written from:
a struct as ``Name(field=value, ...)`` (its ``type`` field left out), a map as ``{"key":value, ...}``,
a list as ``[...]``, a tuple as ``(...)``, a unit enum variant bare (``prepend_scheme=always``), a
newtype variant as ``Name(value)``, strings in double quotes (unescaped), floats as Rust prints an
``f64`` (``0`` for ``0.0``, never an exponent), booleans ``True``/``False``, ``None``. ``repr`` shows at
most 99 elements of a list, tuple or map and then ``...``; ``str`` at most 5, and cuts strings after
100 bytes with ``...``.

The rendering starts from kvec's ``tokenizer.json`` documents (:mod:`kvec.interop.huggingface`); where
JSON loses what the serde structure has (enum variants written as strings or one-key objects, tuples
written as lists, struct names), the field names say which it was. A stage ``tokenizer.json`` cannot
hold is shown as ``TypeName(argument=value, ...)`` from its ``get_config()``.

Importing this module makes kvec's stages and :class:`kvec.pipeline.Pipeline` print so (it fills in
:data:`kvec.contracts.PRINTERS`; the lower layers cannot import it).
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal
from typing import Any

from kvec.contracts import PRINTERS, Stage
from kvec.interop import huggingface as hf_json
from kvec.models import BPE

# (max elements shown + 1, max string bytes) of repr() and str()
_REPR = (100, None)
_STR = (6, 100)
_MAX_DEPTH = {_REPR: 200, _STR: 20}

_UNIT_FIELDS = frozenset({"behavior", "prepend_scheme", "direction", "strategy"})
_TUPLE_FIELDS = frozenset({"sep", "cls"})


class _Struct:
    """A serde struct: ``Name(field=value, ...)``; a field named ``type`` is not shown."""

    def __init__(self, name: str, fields: list[tuple[str, Any]], variant: bool = False) -> None:
        self.name, self.fields, self.variant = name, fields, variant


class _Unit:
    def __init__(self, name: str) -> None:
        self.name = name


class _Newtype:
    def __init__(self, name: str, value: Any) -> None:
        self.name, self.value = name, value


class _Tuple:
    def __init__(self, items: Any) -> None:
        self.items = items


class _Seq:
    """A list whose items are converted (by ``convert``) only when they are shown."""

    def __init__(self, items: Any, convert: Any) -> None:
        self.items, self.convert = items, convert


class _Map:
    def __init__(self, items: Any, convert: Any = None) -> None:
        self.items, self.convert = items, convert


class _F32:
    def __init__(self, value: float) -> None:
        self.value = value


class _Raw:
    """Text shown as it is (an argument of a stage ``tokenizer.json`` cannot hold)."""

    def __init__(self, text: str) -> None:
        self.text = text


def rust_float(value: float) -> str:
    """``value`` as Rust's ``Display`` of an ``f64`` writes it: shortest round-trip digits, no exponent."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = format(Decimal(repr(value)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


# ---- the JSON documents as serde structures ----------------------------------------------------------


def _stage(document: Any) -> Any:
    """A stage's ``tokenizer.json`` entry (an object with a ``type``) as its serde structure."""
    if not isinstance(document, dict):
        return _value(document)
    kind = document.get("type")
    return _Struct(str(kind), [(key, _field(kind, key, value)) for key, value in document.items()])


def _field(kind: Any, key: str, value: Any) -> Any:
    if key == "type":
        return value
    if key in _UNIT_FIELDS and isinstance(value, str):
        return _Unit(value)
    if key == "pattern" and isinstance(value, dict) and len(value) == 1:
        ((name, inner),) = value.items()
        return _Newtype(name, inner)
    if key == "dropout" and isinstance(value, float):
        return _F32(value)
    if key == "vocab":
        if isinstance(value, dict):
            return _Map(value)
        return _Seq(value, _tuple)
    if key == "merges" and isinstance(value, list):
        return _Seq(value, lambda merge: _tuple(merge) if isinstance(merge, list) else merge)
    if key in _TUPLE_FIELDS and isinstance(value, list):
        return _tuple(value)
    if kind == "TemplateProcessing" and key in ("single", "pair"):
        return _Seq(value, _template_piece)
    if kind == "TemplateProcessing" and key == "special_tokens":
        return _Map(dict(sorted(value.items())), lambda token: _Struct("SpecialToken", list(token.items())))
    if isinstance(value, list):
        return _Seq(value, _stage)
    if isinstance(value, dict) and "type" in value:
        return _stage(value)
    return _value(value)


def _tuple(value: Any) -> Any:
    return _Tuple(value) if isinstance(value, list) else value


def _template_piece(piece: Any) -> Any:
    ((name, fields),) = piece.items()
    converted = [(key, _Unit(value) if name == "Sequence" and key == "id" else value) for key, value in fields.items()]
    return _Struct(name, converted, variant=True)


def _value(value: Any) -> Any:
    if isinstance(value, dict):
        return _Map(value, _value)
    if isinstance(value, list):
        return _Seq(value, _value)
    return value


def _settings(name: str, document: dict[str, Any] | None) -> Any:
    if document is None:
        return None
    return _Struct(
        name,
        [
            (key, _Newtype(*next(iter(value.items()))) if isinstance(value, dict) else _field(None, key, value))
            for key, value in document.items()
        ],
    )


def _fallback(component: Any) -> Any:
    """``TypeName(argument=value, ...)`` from ``get_config()``, for a stage tokenizer.json cannot hold."""
    try:
        config = dict(component.get_config())
    except Exception:  # noqa: BLE001 - a repr never raises
        config = {}
    return _Struct(type(component).__name__, [(key, _config_value(value)) for key, value in config.items()])


def _config_value(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return _Seq(list(value), _config_value)
    if isinstance(value, dict):
        return _Map(value, _config_value)
    if hasattr(value, "get_config"):
        return _Raw(repr(value))
    return _Raw(repr(value))


def _document(component: Any) -> Any:
    """A stage's tokenizer.json entry; a BPE with dropout, which that format does not hold, as the serde
    structure shows it."""
    if isinstance(component, BPE):
        return component.serde_structure()
    return component.to_tokenizer_json()


def _structure(component: Any) -> Any:
    """The serde structure of a stage: from its tokenizer.json entry, or else its config."""
    if isinstance(component, Stage):
        try:
            return _stage(_document(component))
        except Exception:  # noqa: BLE001 - kvec-only stages and settings fall back
            return _fallback(component)
    return _fallback(component)


def _pipeline_structure(pipeline: Any) -> Any:
    def stage(name: str) -> Any:
        component = getattr(pipeline, name)
        return None if component is None else _structure(component)

    added = []
    for token, token_id in pipeline.added_vocabulary.saved():
        added.append({"id": token_id, "content": token.content, **token.options()})
    added.sort(key=lambda entry: entry["id"])
    try:
        truncation = _settings("TruncationParams", hf_json._truncation_json(pipeline.truncation))
        padding = _settings("PaddingParams", hf_json._padding_json(pipeline.padding))
    except Exception:  # noqa: BLE001
        truncation = _Raw(repr(pipeline.truncation))
        padding = _Raw(repr(pipeline.padding))
    return _Struct(
        "Tokenizer",
        [
            ("version", "1.0"),
            ("truncation", truncation),
            ("padding", padding),
            ("added_tokens", _Seq(added, _value)),
            ("normalizer", stage("normalizer")),
            ("pre_tokenizer", stage("pre_tokenizer")),
            ("post_processor", stage("post_processor")),
            ("decoder", stage("decoder")),
            ("model", stage("model")),
        ],
    )


# ---- writing, as tokenizers' serializer does ----------------------------------------------------------


class _Writer:
    def __init__(self, limits: tuple[int, int | None]) -> None:
        self.max_elements, self.max_string = limits
        self.max_depth = _MAX_DEPTH[limits]
        self.parts: list[str] = []
        self.last = ""
        self.level = 0
        self.counts = [0] * self.max_depth

    def put(self, text: str) -> None:
        if text:
            self.parts.append(text)
            self.last = text[-1]

    def open(self, text: str) -> None:
        self.put(text)
        self.level = min(self.max_depth - 1, self.level + 1)
        self.counts[self.level] = 0

    def close(self, text: str) -> None:
        self.counts[self.level] = 0
        self.level = max(0, self.level - 1)
        self.put(text)

    def element(self, opening: str) -> bool:
        """Count one element of a list, tuple or map: True when it is shown."""
        self.counts[self.level] += 1
        count = self.counts[self.level]
        if count < self.max_elements:
            if self.last != opening:
                self.put(", ")
            return True
        if count == self.max_elements:
            self.put(", ...")
        return False

    def string(self, text: str) -> None:
        if self.max_string is not None:
            data = text.encode("utf-8")
            if len(data) > self.max_string:
                text = data[: self.max_string].decode("utf-8", "ignore") + "..."
        self.put('"' + text + '"')

    def write(self, value: Any) -> None:
        if value is None:
            self.put("None")
        elif isinstance(value, bool):
            self.put("True" if value else "False")
        elif isinstance(value, int):
            self.put(str(value))
        elif isinstance(value, float):
            self.put(rust_float(value))
        elif isinstance(value, str):
            self.string(value)
        elif isinstance(value, _F32):
            self.put(rust_float(struct.unpack("f", struct.pack("f", value.value))[0]))
        elif isinstance(value, _Unit):
            self.put(value.name)
        elif isinstance(value, _Raw):
            self.put(value.text)
        elif isinstance(value, _Newtype):
            self.put(value.name + "(")
            self.write(value.value)
            self.put(")")
        elif isinstance(value, _Struct):
            self.open(value.name + "(")
            for key, field in value.fields:
                if self.last != "(":
                    self.put(", ")
                if key != "type" or value.variant:
                    self.put(key + "=")
                    self.write(field)
            self.close(")")
        elif isinstance(value, (_Seq, list)):
            items, convert = (value.items, value.convert) if isinstance(value, _Seq) else (value, _value)
            self.items("[", "]", items, convert)
        elif isinstance(value, _Tuple):
            self.items("(", ")", value.items, _value)
        elif isinstance(value, (_Map, dict)):
            entries, convert = (value.items, value.convert) if isinstance(value, _Map) else (value, _value)
            self.open("{")
            for key, item in entries.items():
                if not self.element("{"):
                    break
                self.write(key)
                self.put(":")
                self.write(item if convert is None else convert(item))
            self.close("}")
        else:
            self.put(repr(value))

    def items(self, opening: str, closing: str, items: Any, convert: Any) -> None:
        self.open(opening)
        for item in items:
            if not self.element(opening):
                break
            self.write(convert(item))
        self.close(closing)


def _render(structure: Any, limits: tuple[int, int | None]) -> str:
    writer = _Writer(limits)
    writer.write(structure)
    return "".join(writer.parts)


def _safely(build: Any, thing: Any, limits: tuple[int, int | None]) -> str:
    try:
        return _render(build(thing), limits)
    except Exception:  # noqa: BLE001 - a repr never raises
        return f"{type(thing).__name__}()"


def stage_repr(component: Any) -> str:
    """``repr()`` of a stage (model, normalizer, pre-tokenizer, post-processor or decoder)."""
    return _safely(_structure, component, _REPR)


def stage_str(component: Any) -> str:
    """``str()`` of a stage: :func:`stage_repr` with long lists and strings cut short."""
    return _safely(_structure, component, _STR)


def pipeline_repr(pipeline: Any) -> str:
    """``repr()`` of a :class:`kvec.pipeline.Pipeline`, as ``tokenizers`` writes a ``Tokenizer``'s."""
    return _safely(_pipeline_structure, pipeline, _REPR)


def pipeline_str(pipeline: Any) -> str:
    """``str()`` of a :class:`kvec.pipeline.Pipeline`: :func:`pipeline_repr` cut short."""
    return _safely(_pipeline_structure, pipeline, _STR)


PRINTERS.update(
    stage_repr=stage_repr,
    stage_str=stage_str,
    pipeline_repr=pipeline_repr,
    pipeline_str=pipeline_str,
)
