"""Hugging Face ``tokenizer.json`` files, both ways.

:func:`load_tokenizer_json` builds a :class:`kvec.pipeline.Pipeline` from a file written by
``tokenizers`` (``Tokenizer.save``) or shipped with a model: a BPE, WordPiece or Unigram model with the
common normalizers, pre-tokenizers, post-processors and decoders. A component kvec does not have
raises :class:`kvec.errors.FormatError` naming it and the file. :func:`save_tokenizer_json` writes a
kvec pipeline in that format, so ``tokenizers.Tokenizer.from_file`` reads it.

The file's ``truncation`` and ``padding`` sections are read into the pipeline (see
:meth:`kvec.pipeline.Pipeline.enable_truncation` and :meth:`~kvec.pipeline.Pipeline.enable_padding`)
and written back.
"""

from __future__ import annotations

import json
import math
import os
import warnings
from typing import Any

import regex

from kvec import decoders, normalizers, pretokenizers, processors, serialization
from kvec.added_vocabulary import AddedToken
from kvec.custom_stages import CustomNormalizer, CustomPreTokenizer, cannot_save
from kvec.errors import FormatError, check_json_depth, parse_json
from kvec.models import BPE, Unigram, WordLevel, WordPiece
from kvec.models.base import MAX_ID
from kvec.patterns import Regex
from kvec.pipeline import Pipeline
from kvec.processors import TemplateProcessing

__all__ = [
    "from_tokenizer_json_document",
    "from_tokenizer_json_str",
    "load_tokenizer_json",
    "save_tokenizer_json",
    "to_tokenizer_json_str",
]

_TRUNCATION_STRATEGIES = {"LongestFirst": "longest_first", "OnlyFirst": "only_first", "OnlySecond": "only_second"}
_DIRECTIONS = {"Left": "left", "Right": "right"}
_BEHAVIORS = {
    "Removed": "removed",
    "Isolated": "isolated",
    "MergedWithPrevious": "merged_with_previous",
    "MergedWithNext": "merged_with_next",
    "Contiguous": "contiguous",
}


def load_tokenizer_json(path: str | os.PathLike[str]) -> Pipeline:
    """The pipeline stored in a Hugging Face ``tokenizer.json`` file.

    Raises:
        kvec.errors.FormatError: the file is not such a document, is truncated, or uses a component
            kvec does not have (the message names it).
    """
    path, text = serialization.read_text(path)
    return from_tokenizer_json_str(text, source=path)


def from_tokenizer_json_str(text: str, source: str | os.PathLike[str] = "tokenizer.json string") -> Pipeline:
    """:func:`load_tokenizer_json` of the file's text."""
    hint = "from_tokenizer_json_str takes the JSON string, not a path; use load_tokenizer_json(path)"
    return _from_document(parse_json(text, source, parse_float=serde_json_float, path_hint=hint), source)


_U64_MAX = 2**64 - 1
_POW10 = [float(f"1e{k}") for k in range(309)]
_NUMBER = regex.compile(r"(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?")


def serde_json_float(text: str) -> float:
    """A JSON number as ``tokenizers`` reads it (serde_json without ``float_roundtrip``), which may be
    an ulp off the nearest double: the digits that fit a u64, as a double, then divided (or multiplied)
    by one power of ten. A Unigram model's near-tied scores are then the same as Hugging Face's.

    Example:
        >>> serde_json_float("-119.81331877417195"), float("-119.81331877417195")
        (-119.81331877417196, -119.81331877417195)
    """
    match = _NUMBER.fullmatch(text)
    if match is None:
        return float(text)
    sign, integer, fraction, exponent_text = match.groups()
    significand, exponent, full = 0, 0, False
    for digit in integer:
        if not full and significand * 10 + int(digit) <= _U64_MAX:
            significand = significand * 10 + int(digit)
        else:  # the digits past a u64 only scale it
            full = True
            exponent += 1
    for digit in fraction or "":
        if significand * 10 + int(digit) > _U64_MAX:
            break  # the digits past a u64 are dropped
        significand = significand * 10 + int(digit)
        exponent -= 1
    exponent += int(exponent_text or 0)
    value = float(significand)
    while True:
        if abs(exponent) < len(_POW10):
            value = value * _POW10[exponent] if exponent >= 0 else value / _POW10[-exponent]
            break
        if value == 0.0 or exponent > 0:
            value = value * math.inf if exponent > 0 and value else value
            break
        value /= 1e308
        exponent += 308
    return -value if sign else value


def from_tokenizer_json_document(document: Any, source: str | os.PathLike[str]) -> Pipeline:
    """:func:`load_tokenizer_json` of the parsed document; ``source`` names it in errors."""
    check_json_depth(document, source)  # the readers of nested stages recurse
    return _from_document(document, source)


def _from_document(document: Any, source: str | os.PathLike[str]) -> Pipeline:
    if isinstance(document, dict) and "kvec_format" in document:
        raise FormatError(
            source, "this is a kvec tokenizer file, not a Hugging Face tokenizer.json: load it with Pipeline.from_file"
        )
    if not isinstance(document, dict) or not isinstance(document.get("model"), dict):
        raise FormatError(source, 'expected an object with a "model" object')
    _warn_of_the_unknown(document, source)
    reader = _Reader(source)
    try:
        tokenizer = Pipeline(
            reader.model(document["model"]),
            pre_tokenizer=reader.optional(document.get("pre_tokenizer"), reader.pre_tokenizer),
            decoder=reader.optional(document.get("decoder"), reader.decoder),
            normalizer=reader.optional(document.get("normalizer"), reader.normalizer),
            post_processor=reader.optional(document.get("post_processor"), reader.post_processor),
        )
    except FormatError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, OverflowError) as e:
        raise FormatError(source, f"invalid component ({type(e).__name__}: {e})") from None
    reader.added_tokens(tokenizer, document.get("added_tokens") or [])
    reader.truncation(tokenizer, document.get("truncation"))
    reader.padding(tokenizer, document.get("padding"))
    return tokenizer


_SECTIONS = frozenset(
    ["version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer", "post_processor"]
    + ["decoder", "model"]
)  # a tokenizer.json's top-level fields


def _warn_of_the_unknown(document, source):
    """A warning for each top-level field kvec does not know, and for a format version other than 1.0:
    what they say is not read."""
    unknown = sorted(set(document) - _SECTIONS)
    if unknown:
        warnings.warn(f"{source}: unknown fields, ignored: {', '.join(unknown)}", UserWarning, stacklevel=3)
    version = document.get("version", "1.0")
    if version != "1.0":
        warnings.warn(
            f"{source}: format version {version!r}; kvec reads version '1.0', so what is new in it is not read",
            UserWarning,
            stacklevel=3,
        )


def _named(table, name):
    """``table[name]``, or None where ``name`` is not one of its keys (nor even a str)."""
    return table.get(name) if isinstance(name, str) else None


class _Reader:
    """Turns the components of one document into kvec's; errors name ``source``."""

    def __init__(self, source):
        self.source = source

    def fail(self, message):
        raise FormatError(self.source, message)

    def truncation(self, tokenizer, entry):
        """The ``truncation`` section: null, or max_length, stride, strategy and direction."""
        if entry is None:
            return
        if not isinstance(entry, dict):
            self.fail("truncation must be an object or null")
        strategy = _named(_TRUNCATION_STRATEGIES, entry.get("strategy", "LongestFirst"))
        direction = _named(_DIRECTIONS, entry.get("direction", "Right"))
        if strategy is None or direction is None:
            self.fail(f"truncation: unknown strategy {entry.get('strategy')!r} or direction {entry.get('direction')!r}")
        try:
            tokenizer.enable_truncation(entry.get("max_length"), entry.get("stride", 0), strategy, direction)
        except (TypeError, ValueError) as e:
            self.fail(f"truncation: {e}")

    def padding(self, tokenizer, entry):
        """The ``padding`` section: null, or its strategy (``"BatchLongest"`` or ``{"Fixed": n}``) and
        what padding puts."""
        if entry is None:
            return
        if not isinstance(entry, dict):
            self.fail("padding must be an object or null")
        strategy = entry.get("strategy", "BatchLongest")
        if strategy == "BatchLongest":
            length = None
        elif isinstance(strategy, dict) and list(strategy) == ["Fixed"]:
            length = strategy["Fixed"]
        else:
            self.fail(f"padding: unknown strategy {strategy!r}")
        direction = _named(_DIRECTIONS, entry.get("direction", "Right"))
        if direction is None:
            self.fail(f"padding: unknown direction {entry.get('direction')!r}")
        try:
            tokenizer.enable_padding(
                direction=direction,
                pad_id=entry.get("pad_id", 0),
                pad_type_id=entry.get("pad_type_id", 0),
                pad_token=entry.get("pad_token", "[PAD]"),
                length=length,
                pad_to_multiple_of=entry.get("pad_to_multiple_of"),
            )
        except (TypeError, ValueError) as e:
            self.fail(f"padding: {e}")

    @staticmethod
    def optional(entry, read):
        return None if entry is None else read(entry)

    def kind(self, entry, stage):
        if not isinstance(entry, dict) or not isinstance(entry.get("type"), str):
            self.fail(f'{stage} must be an object with a "type"')
        return entry["type"]

    def model(self, entry):
        kind = self.kind(entry, "model")
        if kind == "BPE":
            merges = [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in entry.get("merges", [])]
            if any(len(m) != 2 for m in merges):
                self.fail("model.merges must hold pairs of tokens")
            return BPE(
                entry["vocab"],
                merges,
                unk_token=entry.get("unk_token"),
                continuing_subword_prefix=entry.get("continuing_subword_prefix"),
                end_of_word_suffix=entry.get("end_of_word_suffix"),
                dropout=entry.get("dropout"),
                byte_fallback=bool(entry.get("byte_fallback", False)),
                fuse_unk=bool(entry.get("fuse_unk", False)),
                ignore_merges=bool(entry.get("ignore_merges", False)),
            )
        if kind == "WordPiece":
            return WordPiece(
                entry["vocab"],
                unk_token=entry.get("unk_token", "[UNK]"),
                max_input_chars_per_word=entry.get("max_input_chars_per_word", 100),
                continuing_subword_prefix=entry.get("continuing_subword_prefix", "##"),
            )
        if kind == "Unigram":
            return Unigram(
                [tuple(pair) for pair in entry["vocab"]],
                unk_id=entry.get("unk_id"),
                byte_fallback=bool(entry.get("byte_fallback", False)),
            )
        if kind == "WordLevel":
            return WordLevel(entry["vocab"], unk_token=entry.get("unk_token", "<unk>"))
        self.fail(f"unsupported model {kind!r} (kvec reads BPE, WordPiece, WordLevel and Unigram)")

    def normalizer(self, entry):
        kind = self.kind(entry, "normalizer")
        if kind == "Sequence":
            return normalizers.Sequence([self.normalizer(n) for n in entry["normalizers"]])
        if kind == "BertNormalizer":
            return normalizers.BertNormalizer(
                clean_text=entry.get("clean_text", True),
                handle_chinese_chars=entry.get("handle_chinese_chars", True),
                strip_accents=entry.get("strip_accents"),
                lowercase=entry.get("lowercase", True),
            )
        if kind in ("Lowercase", "NFC", "NFD", "NFKC", "NFKD", "StripAccents"):
            return getattr(normalizers, kind)()
        if kind == "Prepend":
            return normalizers.Prepend(entry["prepend"])
        if kind == "Strip":
            return normalizers.Strip(left=entry.get("strip_left", True), right=entry.get("strip_right", True))
        if kind == "ByteLevel":
            return normalizers.ByteLevel()
        if kind == "Precompiled":
            return normalizers.Precompiled(entry.get("precompiled_charsmap") or "")
        if kind == "Replace":
            return normalizers.Replace(self.pattern(entry.get("pattern")), entry["content"])
        self.fail(f"unsupported normalizer {kind!r}")

    def pre_tokenizer(self, entry):
        kind = self.kind(entry, "pre_tokenizer")
        if kind == "Sequence":
            return pretokenizers.Sequence([self.pre_tokenizer(p) for p in entry["pretokenizers"]])
        if kind == "ByteLevel":
            return pretokenizers.ByteLevel(
                add_prefix_space=entry.get("add_prefix_space", True),
                trim_offsets=entry.get("trim_offsets", True),
                use_regex=entry.get("use_regex", True),
            )
        if kind in ("BertPreTokenizer", "Whitespace", "WhitespaceSplit"):
            return getattr(pretokenizers, kind)()
        if kind == "Metaspace":
            return pretokenizers.Metaspace(**self.metaspace(entry))
        if kind == "Punctuation":
            return pretokenizers.Punctuation(self.behavior(entry.get("behavior", "Isolated")))
        if kind == "Digits":
            return pretokenizers.Digits(individual_digits=entry.get("individual_digits", False))
        if kind == "Split":
            return self.split(entry)
        if kind == "CharDelimiterSplit":
            return pretokenizers.CharDelimiterSplit(entry["delimiter"])
        if kind == "FixedLength":
            return pretokenizers.FixedLength(entry.get("length", 5))
        if kind == "UnicodeScripts":
            return pretokenizers.UnicodeScripts()
        self.fail(f"unsupported pre_tokenizer {kind!r}")

    def split(self, entry):
        """The Split forms kvec writes: sentencepiece's words, and the Keras rule."""
        pattern, behavior, invert = entry.get("pattern") or {}, entry.get("behavior"), bool(entry.get("invert"))
        if pattern == {"String": "▁"} and behavior == "MergedWithNext" and not invert:
            return pretokenizers.SentencePiece()
        regex_text = pattern.get("Regex", "")
        if (
            behavior == "Removed"
            and not invert
            and len(regex_text) > 2
            and regex_text[0] == "["
            and regex_text[-1] == "]"
        ):
            body, chars, i = regex_text[1:-1], [], 0
            while i < len(body):
                if body[i] == "\\" and i + 1 < len(body):
                    i += 1
                chars.append(body[i])
                i += 1
            if chars and "^" not in body[:1]:
                return pretokenizers.KerasFilters(filters="".join(chars[1:]), split=chars[0])
        if ("Regex" in pattern or "String" in pattern) and behavior in _BEHAVIORS:
            return pretokenizers.Split(self.pattern(pattern), self.behavior(behavior), invert=invert)
        self.fail(f"unsupported pre_tokenizer Split with pattern {pattern!r} and behavior {behavior!r}")

    def pattern(self, pattern):
        """A Split's or Replace's pattern: ``{"String": text}`` (found literally) or ``{"Regex": text}``."""
        if isinstance(pattern, dict) and len(pattern) == 1 and isinstance(next(iter(pattern.values())), str):
            if "String" in pattern:
                return pattern["String"]
            if "Regex" in pattern:
                return Regex(pattern["Regex"])
        self.fail(f'unsupported pattern {pattern!r} (expected {{"String": ...}} or {{"Regex": ...}})')

    @staticmethod
    def metaspace(entry):
        """The arguments of a Metaspace pre-tokenizer or decoder."""
        scheme = entry.get("prepend_scheme")
        if scheme is None:  # files before tokenizers 0.14 say add_prefix_space
            scheme = "always" if entry.get("add_prefix_space", True) else "never"
        return {
            "replacement": entry.get("replacement", "▁"),
            "prepend_scheme": scheme,
            "split": entry.get("split", True),
        }

    def behavior(self, name):
        if name not in _BEHAVIORS:
            self.fail(f"unknown split behavior {name!r}")
        return _BEHAVIORS[name]

    def decoder(self, entry):
        kind = self.kind(entry, "decoder")
        if kind == "ByteLevel":
            return decoders.ByteLevel()
        if kind == "WordPiece":
            return decoders.WordPiece(prefix=entry.get("prefix", "##"), cleanup=entry.get("cleanup", True))
        if kind == "Metaspace":
            return decoders.Metaspace(**self.metaspace(entry))
        if kind == "Sequence":
            parts = entry.get("decoders")
            if not isinstance(parts, list):
                self.fail("a Sequence decoder needs a decoders list")
            return decoders.Sequence([self.decoder(part) for part in parts])
        if kind == "Replace":
            return decoders.Replace(self.pattern(entry.get("pattern")), entry["content"])
        if kind in ("ByteFallback", "Fuse"):
            return getattr(decoders, kind)()
        if kind == "Strip":
            return decoders.Strip(entry.get("content", " "), entry.get("start", 0), entry.get("stop", 0))
        if kind == "CTC":
            names = ("pad_token", "word_delimiter_token", "cleanup")
            return decoders.CTC(**{name: entry[name] for name in names if name in entry})
        if kind == "BPEDecoder":
            return decoders.BPEDecoder(entry.get("suffix", "</w>"))
        self.fail(f"unsupported decoder {kind!r}")

    def post_processor(self, entry):
        kind = self.kind(entry, "post_processor")
        if kind == "Sequence":
            parts = entry.get("processors")
            if not isinstance(parts, list):
                self.fail("a Sequence post_processor needs a processors list")
            return processors.Sequence([self.post_processor(part) for part in parts])
        if kind == "ByteLevel":
            names = ("add_prefix_space", "trim_offsets", "use_regex")
            return processors.ByteLevel(**{name: entry[name] for name in names if name in entry})
        if kind == "TemplateProcessing":
            specials = entry.get("special_tokens") or {}
            if not isinstance(specials, dict) or not all(isinstance(special, dict) for special in specials.values()):
                self.fail("a TemplateProcessing's special_tokens must be an object of objects")
            try:
                return TemplateProcessing(
                    self.template(entry["single"]),
                    self.template(entry["pair"]) if entry.get("pair") else None,
                    special_tokens=[{"id": name, **special} for name, special in specials.items()],
                )
            except (TypeError, ValueError) as error:
                self.fail(f"invalid TemplateProcessing ({error})")
        if kind == "BertProcessing":
            return processors.BertProcessing(tuple(entry["sep"]), tuple(entry["cls"]))
        if kind == "RobertaProcessing":
            return processors.RobertaProcessing(
                tuple(entry["sep"]),
                tuple(entry["cls"]),
                trim_offsets=entry.get("trim_offsets", True),
                add_prefix_space=entry.get("add_prefix_space", True),
            )
        self.fail(f"unsupported post_processor {kind!r}")

    def template(self, pieces):
        parts = []
        for piece in pieces:
            if "Sequence" in piece:
                name, type_id = "$" + piece["Sequence"]["id"], piece["Sequence"].get("type_id", 0)
            elif "SpecialToken" in piece:
                name, type_id = piece["SpecialToken"]["id"], piece["SpecialToken"].get("type_id", 0)
            else:
                self.fail(f"unknown template piece {piece!r}")
            parts.append(f"{name}:{type_id}")
        return " ".join(parts)

    def added_tokens(self, tokenizer, entries):
        tokens = []
        if not isinstance(entries, list):
            self.fail("added_tokens must be a list")
        for position, entry in enumerate(entries):
            if (
                not isinstance(entry, dict)
                or not isinstance(entry.get("content"), str)
                or not entry["content"]
                or not isinstance(entry.get("id"), int)
                or isinstance(entry["id"], bool)
            ):
                self.fail(f"added_tokens[{position}] must have a non-empty str content and an int id")
            if not 0 <= entry["id"] <= MAX_ID:
                self.fail(f"added_tokens[{position}].id = {entry['id']} is out of range: ids are 0 to {MAX_ID}")
            options = {}
            for flag in ("single_word", "lstrip", "rstrip", "normalized", "special"):
                value = entry.get(flag, flag == "normalized" and not entry.get("special", False))
                if not isinstance(value, bool):
                    self.fail(f"added_tokens[{position}].{flag} must be true or false, got {value!r}")
                options[flag] = value
            tokens.append((AddedToken(entry["content"], **options), entry["id"]))
        tokenizer.added_vocabulary.restore(tokens, tokenizer.normalizer)
        tokenizer._word_ids = {}
        tokenizer._word_encoder = None


# ---- writing ---------------------------------------------------------------------------------------


def save_tokenizer_json(tokenizer: Pipeline, path: str | os.PathLike[str]) -> None:
    """Write a kvec pipeline as a Hugging Face ``tokenizer.json`` (atomically). Raises ``ValueError``
    naming a component that format cannot hold."""
    serialization.save(json.loads(to_tokenizer_json_str(tokenizer)), path)


def to_tokenizer_json_str(tokenizer: Pipeline) -> str:
    """The ``tokenizer.json`` text of a kvec pipeline (see :func:`save_tokenizer_json`)."""
    if tokenizer.model is None:
        raise ValueError("the tokenizer has no model yet: train it first")
    # tokenizers gives a token its model id, or else the next id after the model's vocabulary, in order
    model_vocab, next_id = tokenizer.model.get_vocab(), len(tokenizer.model.get_vocab())
    for token, token_id in sorted(tokenizer.added_vocabulary.ids.items(), key=lambda item: item[1]):
        expected = model_vocab.get(token)
        if expected is None:
            expected, next_id = next_id, next_id + 1
        if token_id != expected:
            raise ValueError(
                f"added token {token!r} has id {token_id}, but tokenizer.json would give it {expected} "
                "(tokenizers numbers added tokens right after the model's vocabulary)"
            )
    added = [
        {"id": token_id, "content": token.content, **token.options()}
        for token, token_id in tokenizer.added_vocabulary.saved()
    ]
    document = {
        "version": "1.0",
        "truncation": _truncation_json(tokenizer.truncation),
        "padding": _padding_json(tokenizer.padding),
        "added_tokens": sorted(added, key=lambda entry: entry["id"]),
        "normalizer": _write(_normalizer_json, tokenizer.normalizer),
        "pre_tokenizer": _write(_pre_tokenizer_json, tokenizer.pre_tokenizer),
        "post_processor": _write(_post_processor_json, tokenizer.post_processor),
        "decoder": _write(_decoder_json, tokenizer.decoder),
        "model": _model_json(tokenizer.model),
    }
    return json.dumps(document, ensure_ascii=False)


def _truncation_json(truncation):
    if truncation is None:
        return None
    return {
        "direction": _key_of(_DIRECTIONS, truncation["direction"]),
        "max_length": truncation["max_length"],
        "strategy": _key_of(_TRUNCATION_STRATEGIES, truncation["strategy"]),
        "stride": truncation["stride"],
    }


def _padding_json(padding):
    if padding is None:
        return None
    return {
        "strategy": "BatchLongest" if padding["length"] is None else {"Fixed": padding["length"]},
        "direction": _key_of(_DIRECTIONS, padding["direction"]),
        "pad_to_multiple_of": padding["pad_to_multiple_of"],
        "pad_id": padding["pad_id"],
        "pad_type_id": padding["pad_type_id"],
        "pad_token": padding["pad_token"],
    }


def _key_of(table, value):
    return next(key for key, known in table.items() if known == value)


def _write(function, component):
    return None if component is None else function(component)


def _unsupported(stage, component):
    if isinstance(component, (CustomNormalizer, CustomPreTokenizer)):
        raise ValueError(cannot_save(component))
    raise ValueError(f"{stage} {type(component).__name__} has no tokenizer.json form")


def _model_json(model):
    if isinstance(model, WordLevel):
        return {"type": "WordLevel", **model.get_config()}
    if isinstance(model, BPE):
        if model.dropout:
            _unsupported("model", model)
        return {
            "type": "BPE",
            "dropout": None,
            "unk_token": model.unk_token,
            "continuing_subword_prefix": model.continuing_subword_prefix,
            "end_of_word_suffix": model.end_of_word_suffix,
            "fuse_unk": model.fuse_unk,
            "byte_fallback": model.byte_fallback,
            "ignore_merges": model.ignore_merges,
            "vocab": model.vocab,
            "merges": [list(pair) for pair in model.merges],
        }
    if isinstance(model, WordPiece):
        return {
            "type": "WordPiece",
            "unk_token": model.unk_token,
            "continuing_subword_prefix": model.continuing_subword_prefix,
            "max_input_chars_per_word": model.max_input_chars_per_word,
            "vocab": model.vocab,
        }
    if isinstance(model, Unigram):
        if model.nbest_size is not None:
            _unsupported("model", model)
        return {
            "type": "Unigram",
            "unk_id": model.unk_id,
            "vocab": [list(p) for p in model.pieces],
            "byte_fallback": model.byte_fallback,
        }
    _unsupported("model", model)


def _normalizer_json(normalizer):
    if isinstance(normalizer, normalizers.Sequence):
        return {"type": "Sequence", "normalizers": [_normalizer_json(n) for n in normalizer.normalizers]}
    if isinstance(normalizer, normalizers.BertNormalizer):
        return {"type": "BertNormalizer", **normalizer.get_config()}
    if isinstance(normalizer, normalizers.Replace):
        return {
            "type": "Replace",
            "pattern": _pattern_json(normalizer.get_config()["pattern"]),
            "content": normalizer.content,
        }
    if isinstance(normalizer, normalizers.Prepend):
        return {"type": "Prepend", "prepend": normalizer.prepend}
    if isinstance(normalizer, normalizers.Strip):
        return {"type": "Strip", "strip_left": normalizer.left, "strip_right": normalizer.right}
    if isinstance(normalizer, normalizers.Precompiled):
        return {"type": "Precompiled", **normalizer.get_config()}
    if type(normalizer) is normalizers.ByteLevel:
        return {"type": "ByteLevel"}
    for name in ("Lowercase", "NFC", "NFD", "NFKC", "NFKD", "StripAccents"):
        if type(normalizer) is getattr(normalizers, name):
            return {"type": name}
    _unsupported("normalizer", normalizer)


def _pattern_json(pattern):
    return {"Regex": pattern.pattern} if isinstance(pattern, Regex) else {"String": pattern}


def _pre_tokenizer_json(pre_tokenizer):
    if isinstance(pre_tokenizer, pretokenizers.Sequence):
        return {"type": "Sequence", "pretokenizers": [_pre_tokenizer_json(p) for p in pre_tokenizer.pretokenizers]}
    if isinstance(pre_tokenizer, pretokenizers.ByteLevel):
        return {
            "type": "ByteLevel",
            "add_prefix_space": pre_tokenizer.add_prefix_space,
            "trim_offsets": pre_tokenizer.trim_offsets,
            "use_regex": pre_tokenizer.use_regex,
        }
    if isinstance(pre_tokenizer, pretokenizers.KerasFilters):
        # the Keras rule: every filter character and the split character separate words, and vanish
        separators = "".join(sorted(set(pre_tokenizer.filters) | {pre_tokenizer.split}))
        pattern = "[" + "".join("\\" + c if c in "\\]^-[" else c for c in separators) + "]"
        return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Removed", "invert": False}
    if isinstance(pre_tokenizer, pretokenizers.SentencePiece):
        # a word starts at each ▁ (the normalizers spelled spaces so): a split merged with what follows
        words = {"type": "Split", "pattern": {"String": "▁"}, "behavior": "MergedWithNext", "invert": False}
        if not pre_tokenizer.split_digits:
            return words
        return {"type": "Sequence", "pretokenizers": [words, {"type": "Digits", "individual_digits": True}]}
    if isinstance(pre_tokenizer, pretokenizers.Split):
        behavior = {v: k for k, v in _BEHAVIORS.items()}[pre_tokenizer.behavior]
        return {
            "type": "Split",
            "pattern": _pattern_json(pre_tokenizer.get_config()["pattern"]),
            "behavior": behavior,
            "invert": pre_tokenizer.invert,
        }
    if isinstance(pre_tokenizer, pretokenizers.Metaspace):
        return {"type": "Metaspace", **pre_tokenizer.get_config()}
    if isinstance(pre_tokenizer, (pretokenizers.CharDelimiterSplit, pretokenizers.FixedLength)):
        return {"type": type(pre_tokenizer).__name__, **pre_tokenizer.get_config()}
    if isinstance(pre_tokenizer, (pretokenizers.Punctuation, pretokenizers.Digits)):
        config = pre_tokenizer.get_config()
        if "behavior" in config:
            config["behavior"] = {v: k for k, v in _BEHAVIORS.items()}[config["behavior"]]
        return {"type": type(pre_tokenizer).__name__, **config}
    for name in ("BertPreTokenizer", "Whitespace", "WhitespaceSplit", "UnicodeScripts"):
        if type(pre_tokenizer) is getattr(pretokenizers, name):
            return {"type": name}
    _unsupported("pre_tokenizer", pre_tokenizer)


def _post_processor_json(processor):
    if isinstance(processor, processors.Sequence):
        return {"type": "Sequence", "processors": [_post_processor_json(p) for p in processor.processors]}
    if isinstance(processor, processors.ByteLevel):
        return {"type": "ByteLevel", **processor.get_config()}
    if isinstance(processor, processors.BertProcessing):
        config = processor.get_config()
        return {"type": "BertProcessing", "sep": config["sep"], "cls": config["cls_token"]}
    if isinstance(processor, processors.RobertaProcessing):
        config = processor.get_config()
        return {
            "type": "RobertaProcessing",
            "sep": config["sep"],
            "cls": config["cls_token"],
            **{name: config[name] for name in ("trim_offsets", "add_prefix_space")},
        }
    if not isinstance(processor, TemplateProcessing):
        _unsupported("post_processor", processor)

    def template(pieces):
        return [
            {"Sequence": {"id": value, "type_id": type_id}}
            if kind == "sequence"
            else {"SpecialToken": {"id": value[0], "type_id": type_id}}
            for kind, value, type_id in pieces
        ]

    return {
        "type": "TemplateProcessing",
        "single": template(processor._single),
        "pair": template(processor._pair),
        "special_tokens": {
            name: {"id": name, "ids": ids, "tokens": tokens} for name, ids, tokens in processor.special_tokens
        },
    }


def _decoder_json(decoder):
    if isinstance(decoder, decoders.ByteLevel):
        return {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
    if isinstance(decoder, decoders.WordPiece):
        return {"type": "WordPiece", **decoder.get_config()}
    if isinstance(decoder, decoders.Metaspace):
        return {"type": "Metaspace", **decoder.get_config()}
    if isinstance(decoder, decoders.SentencePiece):
        # as the converters of sentencepiece models write it; kvec's escape of a literal ▁ is not undone
        steps = [
            {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
            {"type": "ByteFallback"},
            {"type": "Fuse"},
        ]
        if decoder.add_dummy_prefix:
            steps.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
        return {"type": "Sequence", "decoders": steps}
    if isinstance(decoder, decoders.Sequence):
        return {"type": "Sequence", "decoders": [_decoder_json(d) for d in decoder.decoders]}
    if isinstance(decoder, decoders.Replace):
        return {"type": "Replace", "pattern": _pattern_json(decoder.pattern), "content": decoder.content}
    if isinstance(decoder, decoders.Strip):
        return {"type": "Strip", "content": decoder.content, "start": decoder.left, "stop": decoder.right}
    if isinstance(decoder, (decoders.ByteFallback, decoders.Fuse, decoders.CTC, decoders.BPEDecoder)):
        return {"type": type(decoder).__name__, **decoder.get_config()}
    _unsupported("decoder", decoder)
