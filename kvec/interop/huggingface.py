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
from kvec.errors import FormatError, MeaningError, check_json_depth, parse_json
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

_SENTENCEPIECE_WORDS = pretokenizers.SentencePiece.WORDS_JSON
_ASCII_DIGITS = pretokenizers.SentencePiece.DIGITS_JSON
_TRUNCATION_STRATEGIES = {"LongestFirst": "longest_first", "OnlyFirst": "only_first", "OnlySecond": "only_second"}
_DIRECTIONS = {"Left": "left", "Right": "right"}
_BEHAVIORS = pretokenizers.HF_BEHAVIORS


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
                viterbi="huggingface",  # the file's meaning: tokenizers' lattice per word
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
            if entry.get("pretokenizers") == [_SENTENCEPIECE_WORDS, _ASCII_DIGITS]:
                return pretokenizers.SentencePiece(split_digits=True)
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


def save_tokenizer_json(tokenizer: Pipeline, path: str | os.PathLike[str], huggingface_meaning: bool = False) -> None:
    """Write a kvec pipeline as a Hugging Face ``tokenizer.json`` (atomically), which ``tokenizers``
    encodes to the pipeline's ids. Raises ``ValueError`` naming a component that format cannot hold,
    and :class:`kvec.errors.MeaningError` naming a stage that ``tokenizers`` would run otherwise: a
    Unigram model with sentencepiece's rule (``viterbi="sentencepiece"``: ``.model`` files,
    :func:`kvec.presets.sentencepiece_style`), which ``tokenizers`` segments word by word in float64
    and whose byte pieces it matches in text. ``huggingface_meaning=True`` writes such a pipeline
    anyway, with Hugging Face's meaning, and warns that some texts get other ids.

    Example:
        >>> from kvec.models import Unigram
        >>> from kvec.presets import sentencepiece_style
        >>> tok = sentencepiece_style(Unigram([("<unk>", 0.0), ("▁", -1.0), ("a", -2.0)], unk_id=0))
        >>> save_tokenizer_json(tok, "sp.json")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        kvec.errors.MeaningError: the model Unigram follows sentencepiece's rule (viterbi='sentencepiece'), ...
    """
    _check_meaning(tokenizer, huggingface_meaning, stacklevel=3)
    serialization.save(json.loads(_document_text(tokenizer)), path)


def to_tokenizer_json_str(tokenizer: Pipeline, huggingface_meaning: bool = False) -> str:
    """The ``tokenizer.json`` text of a kvec pipeline (see :func:`save_tokenizer_json`)."""
    _check_meaning(tokenizer, huggingface_meaning, stacklevel=3)
    return _document_text(tokenizer)


def _document_text(tokenizer):
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
        "normalizer": _write(tokenizer.normalizer),
        "pre_tokenizer": _write(tokenizer.pre_tokenizer),
        "post_processor": _write(tokenizer.post_processor),
        "decoder": _write(tokenizer.decoder),
        "model": _write(tokenizer.model),
    }
    return json.dumps(document, ensure_ascii=False)


def _check_meaning(tokenizer, huggingface_meaning, stacklevel):
    """:class:`MeaningError` (or with ``huggingface_meaning`` a warning, for the caller ``stacklevel``
    frames up) where ``tokenizers`` would segment with another rule than the model's."""
    if tokenizer.model is None:
        raise ValueError("the tokenizer has no model yet: train it first")
    if not isinstance(huggingface_meaning, bool):
        raise TypeError(f"huggingface_meaning must be a bool, got {type(huggingface_meaning).__name__}")
    if not (isinstance(tokenizer.model, Unigram) and tokenizer.model.viterbi == "sentencepiece"):
        return
    changes = (
        "tokenizer.json means Hugging Face's rule: a lattice per word with float64 sums and tokenizers' "
        "tie order, byte pieces such as '<0x41>' matched in text, no unmatchable pieces"
    )
    if not huggingface_meaning:
        raise MeaningError(
            "the model Unigram follows sentencepiece's rule (viterbi='sentencepiece'), which tokenizer.json "
            f"cannot hold: {changes}, so some texts would get other ids; pass huggingface_meaning=True to "
            "write it with that meaning"
        )
    warnings.warn(
        f"the model Unigram follows sentencepiece's rule (viterbi='sentencepiece'); written with Hugging "
        f"Face's meaning ({changes}): near-tied segmentations and such texts may get other ids",
        UserWarning,
        stacklevel=stacklevel,
    )


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


def _write(component):
    """A stage's tokenizer.json entry, as the stage states it (:meth:`kvec.contracts.Stage.to_tokenizer_json`)."""
    return None if component is None else component.to_tokenizer_json()
