"""sentencepiece ``.model`` files, read without the sentencepiece or protobuf packages.

:func:`load_sentencepiece_model` builds the pipeline the model file describes: sentencepiece's
normalizer (its precompiled character map, whitespace rules and dummy prefix), its words (a new word
at each ``▁``, digits apart with ``split_digits``), the Unigram or BPE model with its byte fallback,
user-defined symbols kept whole, and a decoder back to text. Control pieces (``<s>``, ``</s>``) and
unused pieces keep their ids but never match text, as in sentencepiece.
"""

from __future__ import annotations

import base64
import math
import os

from kvec import decoders, normalizers, pre_tokenizers
from kvec.decoders.pieces import UNK_SURFACE
from kvec.errors import FormatError
from kvec.files.vocab_reading import read_bytes
from kvec.interop.protobuf import as_float, as_int32, last, read_message
from kvec.models import BPE, Unigram
from kvec.pipeline import Pipeline

__all__ = ["load_sentencepiece_model"]

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
UNIGRAM, BPE_TYPE = 1, 2


class _ModelProto:
    """The field numbers kvec reads of sentencepiece_model.proto's messages, by their names there."""

    PIECES, TRAINER_SPEC, NORMALIZER_SPEC, DENORMALIZER_SPEC = 1, 2, 3, 5


class _SentencePiece:
    PIECE, SCORE, TYPE = 1, 2, 3


class _TrainerSpec:
    MODEL_TYPE = 3
    SPLIT_BY_WHITESPACE = 22
    TREAT_WHITESPACE_AS_SUFFIX = 24
    SPLIT_DIGITS = 25
    ALLOW_WHITESPACE_ONLY_PIECES = 26
    BYTE_FALLBACK = 35
    UNK_ID = 40
    UNK_SURFACE = 44


class _NormalizerSpec:
    PRECOMPILED_CHARSMAP, ADD_DUMMY_PREFIX, REMOVE_EXTRA_WHITESPACES, ESCAPE_WHITESPACES = 2, 3, 4, 5
    NORMALIZATION_RULE_TSV = 6


def load_sentencepiece_model(path: str | os.PathLike[str]) -> Pipeline:
    """The pipeline of a sentencepiece ``.model`` file (Unigram or BPE).

    Raises:
        kvec.errors.FormatError: the file is not a sentencepiece model, is truncated, or uses a model
            type kvec does not have (word, char); the message names the file.
    """
    path, data = read_bytes(path)
    model = read_message(data, path)
    trainer = read_message(last(model, _ModelProto.TRAINER_SPEC, b"", path), path)
    spec = read_message(last(model, _ModelProto.NORMALIZER_SPEC, b"", path), path)
    pieces: list[tuple[str, float, int]] = []
    for raw in model.get(_ModelProto.PIECES, []):
        if not isinstance(raw, bytes):
            raise FormatError(path, "field 1 has the wrong wire type")
        fields = read_message(raw, path)
        piece = _text(last(fields, _SentencePiece.PIECE, b"", path), f"piece {len(pieces)}", path)
        if not piece:
            raise FormatError(path, f"piece {len(pieces)} is empty")
        score = as_float(last(fields, _SentencePiece.SCORE, bytes(4), path), path)
        if not math.isfinite(score):
            raise FormatError(path, f"piece {len(pieces)} ({piece[:40]!r}) has the score {score}: not a finite number")
        kind = last(fields, _SentencePiece.TYPE, NORMAL, path)
        # protobuf's rule for an enum value the schema does not name: the field reads as its default
        pieces.append((piece, score, kind if NORMAL <= kind <= BYTE else NORMAL))
    if not pieces:
        raise FormatError(path, "no pieces: not a sentencepiece model")
    _refuse_unsupported(trainer, spec, read_message(last(model, _ModelProto.DENORMALIZER_SPEC, b"", path), path), path)
    model_type = last(trainer, _TrainerSpec.MODEL_TYPE, UNIGRAM, path)
    byte_fallback = bool(last(trainer, _TrainerSpec.BYTE_FALLBACK, 0, path))
    split_digits = bool(last(trainer, _TrainerSpec.SPLIT_DIGITS, 0, path))
    unknown = [i for i, (_, _, kind) in enumerate(pieces) if kind == UNKNOWN]
    unk_id = unknown[0] if unknown else as_int32(last(trainer, _TrainerSpec.UNK_ID, 0, path))
    symbols = [piece for piece, _, kind in pieces if kind == USER_DEFINED]
    unmatchable = [i for i, (_, _, kind) in enumerate(pieces) if kind in (CONTROL, UNUSED)]
    normalizer = normalizers.SentencePieceNormalizer(
        base64.b64encode(last(spec, _NormalizerSpec.PRECOMPILED_CHARSMAP, b"", path)).decode("ascii"),
        add_dummy_prefix=bool(last(spec, _NormalizerSpec.ADD_DUMMY_PREFIX, 1, path)),
        remove_extra_whitespaces=bool(last(spec, _NormalizerSpec.REMOVE_EXTRA_WHITESPACES, 1, path)),
        escape_whitespaces=bool(last(spec, _NormalizerSpec.ESCAPE_WHITESPACES, 1, path)),
        user_defined_symbols=symbols,
    )
    try:
        if model_type == UNIGRAM:
            # as sentencepiece scores them: a user-defined symbol always beats the normal pieces inside it,
            # and an unknown character costs the lowest normal score less 10
            normal = [score for _, score, kind in pieces if kind == NORMAL] or [0.0]
            best = max(normal)
            vocab = [(p, len(p) * best - 0.1 if kind == USER_DEFINED else s) for p, s, kind in pieces]
            subwords = Unigram(
                vocab,
                unk_id=unk_id,
                byte_fallback=byte_fallback,
                unmatchable=unmatchable,
                unk_score=min(normal) - 10.0,
                viterbi="sentencepiece",
            )
        elif model_type == BPE_TYPE:
            subwords = _bpe(pieces, unk_id, byte_fallback)
        else:
            raise FormatError(path, f"unsupported model type {model_type} (kvec reads Unigram and BPE models)")
    except (ValueError, TypeError, KeyError) as e:
        if isinstance(e, FormatError):
            raise
        raise FormatError(path, f"invalid model ({e})") from None
    # a Unigram lattice spans the whole text, as sentencepiece's does: its float sums, and so its choice
    # between equal scores, carry on from word to word. sentencepiece's BPE merges run over the whole
    # text too; cut at each ▁ (faster, a cache of words) they give the same ids where no piece holds a
    # ▁ past its first character: split_by_whitespace, no whitespace-only pieces, spaces escaped as ▁
    words = None
    if (
        model_type == BPE_TYPE
        and last(trainer, _TrainerSpec.SPLIT_BY_WHITESPACE, 1, path)
        and not last(trainer, _TrainerSpec.ALLOW_WHITESPACE_ONLY_PIECES, 0, path)
        and last(spec, _NormalizerSpec.ESCAPE_WHITESPACES, 1, path)
    ):
        words = pre_tokenizers.SentencePiece(split_digits=split_digits)
    tokenizer = Pipeline(
        subwords,
        pre_tokenizer=words,
        decoder=decoders.SentencePiece(
            add_dummy_prefix=normalizer.add_dummy_prefix,
            remove_extra_whitespaces=normalizer.remove_extra_whitespaces,
            control_tokens=[piece for piece, _, kind in pieces if kind == CONTROL],
            unk_token=pieces[unk_id][0] if 0 <= unk_id < len(pieces) else None,
            unk_surface=_text(
                last(trainer, _TrainerSpec.UNK_SURFACE, UNK_SURFACE.encode("utf-8"), path), "unk_surface", path
            ),
            keep_surrogates=False,
        ),
        normalizer=normalizer,
    )
    if symbols and model_type == BPE_TYPE:  # a Unigram lattice holds them with their bonus instead
        tokenizer.add_tokens(symbols)
    return tokenizer


def _refuse_unsupported(trainer, spec, denormalizer, path):
    """A :class:`FormatError` naming the first option of the file's ``trainer_spec``,
    ``normalizer_spec`` or ``denormalizer_spec`` that changes how sentencepiece encodes or decodes and
    that kvec does not follow exactly. The options read elsewhere (model type, byte fallback, split
    digits, the character map, dummy prefix, whitespace rules, unk id) are followed; the others of the
    trainer spec (split by script, number or whitespace, delimiters, sizes...) only shape training, and
    the pieces a model holds carry their effect."""
    if last(trainer, _TrainerSpec.TREAT_WHITESPACE_AS_SUFFIX, 0, path):
        raise FormatError(path, "treat_whitespace_as_suffix=true is not supported (kvec puts ▁ before words)")
    if denormalizer and (
        last(denormalizer, _NormalizerSpec.PRECOMPILED_CHARSMAP, b"", path)
        or last(denormalizer, _NormalizerSpec.NORMALIZATION_RULE_TSV, b"", path)
    ):
        raise FormatError(path, "a denormalizer_spec (decoding rules) is not supported")


def _text(data, field, path):
    """A string field's bytes as text; a :class:`FormatError` naming ``field`` when they are not UTF-8."""
    try:
        return data.decode("utf-8")
    except (UnicodeDecodeError, AttributeError):
        raise FormatError(path, f"{field} is not UTF-8 text") from None


def _bpe(pieces, unk_id, byte_fallback):
    """sentencepiece BPE as merges: a piece is made of the two pieces whose merge gives the highest
    score, and merges are ranked by the merged piece's score (highest first)."""
    vocab = {piece: i for i, (piece, _, _) in enumerate(pieces)}
    normal = {piece: score for piece, score, kind in pieces if kind in (NORMAL, USER_DEFINED)}
    merges = []
    for piece, score in normal.items():
        for cut in range(1, len(piece)):
            left, right = piece[:cut], piece[cut:]
            if left in normal and right in normal:
                merges.append((score, vocab[piece], left, right))
    merges.sort(key=lambda m: (-m[0], m[1]))
    return BPE(
        vocab,
        [(left, right) for _, _, left, right in merges],
        unk_token=pieces[unk_id][0] if 0 <= unk_id < len(pieces) else None,
        byte_fallback=byte_fallback,
        fuse_unk=True,
    )
