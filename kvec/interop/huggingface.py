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
import os
import warnings
from typing import Any

from kvec import decoders, normalizers, pre_tokenizers, processors
from kvec.added_vocabulary import AddedToken
from kvec.common.arguments import MAX_ID, wrong_type
from kvec.common.patterns import Regex
from kvec.errors import FormatError, MeaningError, check_json_depth, parse_json
from kvec.files import serialization
from kvec.files.json_numbers import serde_json_float
from kvec.interop.json_fields import REQUIRED, Fields, json_type
from kvec.models import BPE, Unigram, WordLevel, WordPiece
from kvec.pipeline import Pipeline
from kvec.processors import TemplateProcessing

__all__ = [
    "from_tokenizer_json_document",
    "from_tokenizer_json_str",
    "load_tokenizer_json",
    "save_tokenizer_json",
    "to_tokenizer_json_str",
]

_SENTENCEPIECE_WORDS = pre_tokenizers.SentencePiece.WORDS_JSON
_ASCII_DIGITS = pre_tokenizers.SentencePiece.DIGITS_JSON
_TRUNCATION_STRATEGIES = {"LongestFirst": "longest_first", "OnlyFirst": "only_first", "OnlySecond": "only_second"}
_DIRECTIONS = {"Left": "left", "Right": "right"}
_BEHAVIORS = pre_tokenizers.HF_BEHAVIORS


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
    top = Fields(document, "", source)
    reader = _Reader()
    try:
        tokenizer = Pipeline(
            reader.model(top.object("model")),
            pre_tokenizer=reader.optional(top.object("pre_tokenizer", None, nullable=True), reader.pre_tokenizer),
            decoder=reader.optional(top.object("decoder", None, nullable=True), reader.decoder),
            normalizer=reader.optional(top.object("normalizer", None, nullable=True), reader.normalizer),
            post_processor=reader.optional(top.object("post_processor", None, nullable=True), reader.post_processor),
        )
    except FormatError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, OverflowError) as e:
        raise FormatError(source, f"invalid component ({type(e).__name__}: {e})") from None
    reader.added_tokens(tokenizer, top.objects("added_tokens", []))
    reader.truncation(tokenizer, top.object("truncation", None, nullable=True))
    reader.padding(tokenizer, top.object("padding", None, nullable=True))
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


def _named(entry, name, table, default):
    """The kvec name of the field ``name`` of ``entry`` (a string, one of ``table``'s keys)."""
    value = entry.text(name, default)
    if value not in table:
        where = entry.where(name)
        section = where.rsplit(".", 1)[0]
        entry.fail(f"{section}: unknown {name} {value!r:.40} ({where} must be one of {', '.join(table)})")
    return table[value]


def _is_id(value):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_ID


def _token_and_id(entry, name):
    """A BertProcessing or RobertaProcessing ``[token, id]`` field."""
    return tuple(entry.pair(name, lambda v: isinstance(v, str), _is_id, "a [token, id] pair"))


class _Reader:
    """Turns the components of one document into kvec's. Every field is read through
    :class:`kvec.interop.json_fields.Fields`, with the type ``tokenizers`` gives it: an error names the
    file and the field's path."""

    def truncation(self, tokenizer, entry):
        """The ``truncation`` section: null, or max_length, stride, strategy and direction."""
        if entry is None:
            return
        strategy = _named(entry, "strategy", _TRUNCATION_STRATEGIES, "LongestFirst")
        direction = _named(entry, "direction", _DIRECTIONS, "Right")
        try:
            tokenizer.enable_truncation(entry.count("max_length"), entry.count("stride", 0), strategy, direction)
        except (TypeError, ValueError) as e:
            entry.fail(f"truncation: {e}")

    def padding(self, tokenizer, entry):
        """The ``padding`` section: null, or its strategy (``"BatchLongest"`` or ``{"Fixed": n}``) and
        what padding puts."""
        if entry is None:
            return
        strategy = entry.entry.get("strategy", "BatchLongest")
        if strategy == "BatchLongest":
            length = None
        elif isinstance(strategy, dict) and list(strategy) == ["Fixed"]:
            length = strategy["Fixed"]
            if not isinstance(length, int) or isinstance(length, bool) or length < 0:
                where = entry.where("strategy") + ".Fixed"
                entry.fail(f"padding: length must be an int >= 0 ({where} is {json_type(length)})")
        else:
            entry.fail(f'padding.strategy must be "BatchLongest" or {{"Fixed": length}}, got {json_type(strategy)}')
        direction = _named(entry, "direction", _DIRECTIONS, "Right")
        try:
            tokenizer.enable_padding(
                direction=direction,
                pad_id=entry.count("pad_id", 0),
                pad_type_id=entry.count("pad_type_id", 0),
                pad_token=entry.text("pad_token", "[PAD]"),
                length=length,
                pad_to_multiple_of=entry.count("pad_to_multiple_of", None, nullable=True),
            )
        except (TypeError, ValueError) as e:
            entry.fail(f"padding: {e}")

    @staticmethod
    def optional(entry, read):
        return None if entry is None else read(entry)

    @staticmethod
    def kind(entry):
        return entry.text("type")

    def model(self, entry):
        kind = self.kind(entry)
        if kind == "BPE":
            merges = []
            for i, merge in enumerate(entry.array("merges", [])):
                if isinstance(merge, str) and " " in merge:
                    merges.append(tuple(merge.split(" ", 1)))
                elif isinstance(merge, list) and len(merge) == 2 and all(isinstance(part, str) for part in merge):
                    merges.append(tuple(merge))
                else:
                    entry.fail(
                        f'model.merges[{i}] must be a [left, right] pair or "left right", got {json_type(merge)}'
                    )
            return BPE(
                entry.token_ids("vocab"),
                merges,
                unk_token=entry.text("unk_token", None, nullable=True),
                continuing_subword_prefix=entry.text("continuing_subword_prefix", None, nullable=True),
                end_of_word_suffix=entry.text("end_of_word_suffix", None, nullable=True),
                dropout=entry.number("dropout", None, nullable=True),
                # tokenizers reads these three as optional: null is their default, false
                byte_fallback=entry.flag("byte_fallback", False, nullable=True) or False,
                fuse_unk=entry.flag("fuse_unk", False, nullable=True) or False,
                ignore_merges=entry.flag("ignore_merges", False, nullable=True) or False,
            )
        if kind == "WordPiece":
            return WordPiece(
                entry.token_ids("vocab"),
                unk_token=entry.text("unk_token", "[UNK]"),
                max_input_chars_per_word=entry.count("max_input_chars_per_word", 100),
                continuing_subword_prefix=entry.text("continuing_subword_prefix", "##"),
            )
        if kind == "Unigram":
            pieces = entry.array("vocab")
            for i, piece in enumerate(pieces):
                if not (
                    isinstance(piece, list)
                    and len(piece) == 2
                    and isinstance(piece[0], str)
                    and isinstance(piece[1], (int, float))
                    and not isinstance(piece[1], bool)
                ):
                    entry.fail(f"model.vocab[{i}] must be a [piece, score] pair, got {json_type(piece)}")
            return Unigram(
                [tuple(pair) for pair in pieces],
                unk_id=entry.count("unk_id", None, nullable=True),
                byte_fallback=entry.flag("byte_fallback", False),
                viterbi="huggingface",  # the file's meaning: tokenizers' lattice per word
            )
        if kind == "WordLevel":
            return WordLevel(entry.token_ids("vocab"), unk_token=entry.text("unk_token", "<unk>"))
        entry.fail(f"unsupported model {kind!r} (kvec reads BPE, WordPiece, WordLevel and Unigram)")

    def normalizer(self, entry):
        kind = self.kind(entry)
        if kind == "Sequence":
            return normalizers.Sequence([self.normalizer(n) for n in entry.objects("normalizers")])
        if kind == "BertNormalizer":
            return normalizers.BertNormalizer(
                clean_text=entry.flag("clean_text", True),
                handle_chinese_chars=entry.flag("handle_chinese_chars", True),
                strip_accents=entry.flag("strip_accents", None, nullable=True),
                lowercase=entry.flag("lowercase", True),
            )
        if kind in ("Lowercase", "NFC", "NFD", "NFKC", "NFKD", "StripAccents"):
            return getattr(normalizers, kind)()
        if kind == "Prepend":
            return normalizers.Prepend(entry.text("prepend"))
        if kind == "Strip":
            return normalizers.Strip(left=entry.flag("strip_left", True), right=entry.flag("strip_right", True))
        if kind == "ByteLevel":
            return normalizers.ByteLevel()
        if kind == "Precompiled":
            return normalizers.Precompiled(entry.text("precompiled_charsmap", None, nullable=True) or "")
        if kind == "Replace":
            return normalizers.Replace(self.pattern(entry), entry.text("content"))
        entry.fail(f"unsupported normalizer {kind!r}")

    def pre_tokenizer(self, entry):
        kind = self.kind(entry)
        if kind == "Sequence":
            if entry.entry.get("pretokenizers") == [_SENTENCEPIECE_WORDS, _ASCII_DIGITS]:
                return pre_tokenizers.SentencePiece(split_digits=True)
            return pre_tokenizers.Sequence([self.pre_tokenizer(p) for p in entry.objects("pretokenizers")])
        if kind == "ByteLevel":
            return pre_tokenizers.ByteLevel(
                add_prefix_space=entry.flag("add_prefix_space", True),
                trim_offsets=entry.flag("trim_offsets", True),
                use_regex=entry.flag("use_regex", True),
            )
        if kind in ("BertPreTokenizer", "Whitespace", "WhitespaceSplit"):
            return getattr(pre_tokenizers, kind)()
        if kind == "Metaspace":
            return pre_tokenizers.Metaspace(**self.metaspace(entry))
        if kind == "Punctuation":
            return pre_tokenizers.Punctuation(_named(entry, "behavior", _BEHAVIORS, "Isolated"))
        if kind == "Digits":
            return pre_tokenizers.Digits(individual_digits=entry.flag("individual_digits", False))
        if kind == "Split":
            return self.split(entry)
        if kind == "CharDelimiterSplit":
            return pre_tokenizers.CharDelimiterSplit(entry.text("delimiter"))
        if kind == "FixedLength":
            return pre_tokenizers.FixedLength(entry.count("length", 5))
        if kind == "UnicodeScripts":
            return pre_tokenizers.UnicodeScripts()
        entry.fail(f"unsupported pre_tokenizer {kind!r}")

    def split(self, entry):
        """The Split forms kvec writes: sentencepiece's words, and the Keras rule."""
        pattern = self.pattern(entry)
        behavior = _named(entry, "behavior", _BEHAVIORS, REQUIRED)
        invert = entry.flag("invert", False)
        if pattern == "▁" and behavior == "merged_with_next" and not invert:
            return pre_tokenizers.SentencePiece()
        regex_text = pattern.pattern if isinstance(pattern, Regex) else ""
        if (
            behavior == "removed"
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
                return pre_tokenizers.KerasFilters(filters="".join(chars[1:]), split=chars[0])
        return pre_tokenizers.Split(pattern, behavior, invert=invert)

    @staticmethod
    def pattern(entry):
        """A Split's or Replace's ``pattern``: ``{"String": text}`` (found literally) or
        ``{"Regex": text}``."""
        pattern = entry.object("pattern")
        if len(pattern.entry) != 1 or not ("String" in pattern or "Regex" in pattern):
            entry.fail(f'{entry.where("pattern")} must be {{"String": text}} or {{"Regex": text}}')
        if "String" in pattern:
            return pattern.text("String")
        return Regex(pattern.text("Regex"))

    @staticmethod
    def metaspace(entry):
        """The arguments of a Metaspace pre-tokenizer or decoder."""
        scheme = entry.text("prepend_scheme", None)
        if scheme is None:  # files before tokenizers 0.14 say add_prefix_space
            scheme = "always" if entry.flag("add_prefix_space", True) else "never"
        split = entry.flag("split", True, nullable=True)  # tokenizers reads a null split as its default
        return {
            "replacement": entry.text("replacement", "▁"),
            "prepend_scheme": scheme,
            "split": True if split is None else split,
        }

    def decoder(self, entry):
        kind = self.kind(entry)
        if kind == "ByteLevel":
            return decoders.ByteLevel()
        if kind == "WordPiece":
            return decoders.WordPiece(prefix=entry.text("prefix", "##"), cleanup=entry.flag("cleanup", True))
        if kind == "Metaspace":
            return decoders.Metaspace(**self.metaspace(entry))
        if kind == "Sequence":
            return decoders.Sequence([self.decoder(part) for part in entry.objects("decoders")])
        if kind == "Replace":
            return decoders.Replace(self.pattern(entry), entry.text("content"))
        if kind in ("ByteFallback", "Fuse"):
            return getattr(decoders, kind)()
        if kind == "Strip":
            return decoders.Strip(entry.text("content", " "), entry.count("start", 0), entry.count("stop", 0))
        if kind == "CTC":
            return decoders.CTC(
                pad_token=entry.text("pad_token", "<pad>"),
                word_delimiter_token=entry.text("word_delimiter_token", "|"),
                cleanup=entry.flag("cleanup", True),
            )
        if kind == "BPEDecoder":
            return decoders.BPEDecoder(entry.text("suffix", "</w>"))
        entry.fail(f"unsupported decoder {kind!r}")

    def post_processor(self, entry):
        kind = self.kind(entry)
        if kind == "Sequence":
            return processors.Sequence([self.post_processor(part) for part in entry.objects("processors")])
        if kind == "ByteLevel":
            return processors.ByteLevel(
                add_prefix_space=entry.flag("add_prefix_space", True),
                trim_offsets=entry.flag("trim_offsets", True),
                use_regex=entry.flag("use_regex", True),
            )
        if kind == "TemplateProcessing":
            tokens = []
            specials = entry.object("special_tokens", None, nullable=True)
            for name in specials.entry if specials is not None else ():
                special = specials.object(name)
                ids = special.array("ids", [])
                for position, value in enumerate(ids):
                    if not _is_id(value):
                        where = f"{special.where('ids')}[{position}]"
                        entry.fail(f"{where} must be an id from 0 to {MAX_ID}, got {json_type(value)}")
                tokens.append({"id": special.text("id", name), "ids": ids, "tokens": special.strings("tokens", [])})
            pair = entry.objects("pair", None) if entry.entry.get("pair") else None
            try:
                return TemplateProcessing(
                    self.template(entry.objects("single")),
                    self.template(pair) if pair else None,
                    special_tokens=tokens,
                )
            except (TypeError, ValueError) as error:
                entry.fail(f"invalid TemplateProcessing ({error})")
        if kind == "BertProcessing":
            return processors.BertProcessing(_token_and_id(entry, "sep"), _token_and_id(entry, "cls"))
        if kind == "RobertaProcessing":
            return processors.RobertaProcessing(
                _token_and_id(entry, "sep"),
                _token_and_id(entry, "cls"),
                trim_offsets=entry.flag("trim_offsets", True),
                add_prefix_space=entry.flag("add_prefix_space", True),
            )
        entry.fail(f"unsupported post_processor {kind!r}")

    @staticmethod
    def template(pieces):
        parts = []
        for piece in pieces:
            if "Sequence" in piece:
                sequence = piece.object("Sequence")
                name = "$" + _named(sequence, "id", {"A": "A", "B": "B"}, REQUIRED)
            elif "SpecialToken" in piece:
                sequence = piece.object("SpecialToken")
                name = sequence.text("id")
            else:
                piece.fail(f'{piece.path} must be {{"Sequence": ...}} or {{"SpecialToken": ...}}')
            parts.append(f"{name}:{sequence.count('type_id', 0)}")
        return " ".join(parts)

    @staticmethod
    def added_tokens(tokenizer, entries):
        tokens = []
        for position, entry in enumerate(entries):
            content, token_id = entry.text("content"), entry.count("id")
            if not content:
                entry.fail(f"added_tokens[{position}].content must be a non-empty string")
            if not 0 <= token_id <= MAX_ID:
                entry.fail(f"added_tokens[{position}].id = {token_id} is out of range: ids are 0 to {MAX_ID}")
            special = entry.flag("special", False)
            options = {flag: entry.flag(flag, False) for flag in ("single_word", "lstrip", "rstrip")}
            options["normalized"] = entry.flag("normalized", not special)
            tokens.append((AddedToken(content, special=special, **options), token_id))
        tokenizer.added_vocabulary.restore(tokens, tokenizer.normalizer)
        tokenizer._forget_native_encoder()


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
        raise wrong_type("huggingface_meaning", "a bool", huggingface_meaning)
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
