"""Ready-made pipelines for the common tokenizer families.

``sentencepiece_style`` reads raw text the way sentencepiece does: no word segmentation beyond spaces,
spaces kept as ``▁``, a dummy prefix, optional single digits and user-defined symbols, and a decoder
that undoes it all (byte-fallback tokens included). It works with any model, Unigram or BPE.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kvec import decoders, normalizers
from kvec.common.arguments import must_be
from kvec.contracts import Model, Normalizer, Trainer
from kvec.models import Unigram
from kvec.pipeline import Pipeline
from kvec.pre_tokenizers import DEFAULT_FILTERS, ByteLevel, KerasFilters, SentencePiece
from kvec.trainers import BpeTrainer, UnigramTrainer, WordPieceTrainer

__all__ = ["SUBWORD_KINDS", "keras_subword", "sentencepiece_style"]

ESCAPE = "\ufdd0"  # a noncharacter: never assigned, so text rarely holds it


def sentencepiece_style(
    model: Model | None = None,
    normalizer: Normalizer | None = None,
    add_dummy_prefix: bool = True,
    split_digits: bool = False,
    user_defined_symbols: Iterable[str] = (),
) -> Pipeline:
    """A :class:`kvec.pipeline.Pipeline` that reads text as sentencepiece does.

    Args:
        model: the subword model, or None to train one (``train_from_iterator`` with, say,
            ``UnigramTrainer(byte_fallback=True)``). A :class:`kvec.models.Unigram` made without a
            ``viterbi`` rule is given sentencepiece's (the pipeline holds a copy with
            ``viterbi="sentencepiece"``): one lattice over each text, float32 sums, byte pieces only
            for fallback, as sentencepiece encodes. One made with ``viterbi="huggingface"`` keeps
            Hugging Face's meaning (a lattice per word, as a ``tokenizer.json`` means), and so does a
            model trained in the pipeline, which exports to ``tokenizer.json`` with the same ids.
        normalizer: None (the default) keeps the text as it is, so decoding gives it back exactly;
            sentencepiece's lossy NFKC default is ``kvec.normalizers.NFKC()``, opt-in here. Spaces
            become ``▁`` after it (``Prepend`` and ``Replace`` normalizers), so user-defined symbols
            match where sentencepiece matches them.
        add_dummy_prefix: prepend ``▁`` to the text (even before a leading space, so nothing is
            lost), so a first word is spelled as any other.
        split_digits: every digit 0-9 is a token of its own.
        user_defined_symbols: strings always kept whole (and decoded as themselves).

    A literal ``▁`` in the text, which sentencepiece would read as a space, is escaped as U+FDD0
    U+FDD1 (and U+FDD0 itself as U+FDD0 U+FDD0), so with byte fallback ``decode(encode(x)) == x`` for
    every text. Given a sentencepiece model's pieces and scores, texts without those characters get
    sentencepiece's ids exactly.

    Example:
        >>> from kvec.trainers import UnigramTrainer
        >>> tok = sentencepiece_style(split_digits=True)
        >>> tok.train_from_iterator(["low lower lowest 2024"] * 10, UnigramTrainer(vocab_size=270, byte_fallback=True))
        >>> tok.encode("lowest 42").tokens[-3:]  # split_digits: one token per digit
        ['▁', '4', '2']
        >>> tok.decode(tok.encode("  Göteborg 42").ids)
        '  Göteborg 42'
    """
    # a literal ▁ would read as a space: it is escaped (and the escape character itself) first
    escapes: list[Normalizer] = [
        normalizers.Replace(ESCAPE, ESCAPE * 2),
        normalizers.Replace("▁", ESCAPE + decoders.ESCAPED_SPACE_MARK),
    ]
    spaces: list[Normalizer] = [normalizers.Prepend("▁")] if add_dummy_prefix else []
    spaces.append(normalizers.Replace(" ", "▁"))
    if isinstance(model, Unigram) and not model.viterbi_given:
        model = Unigram(**{**model.get_config(), "viterbi": "sentencepiece"})
    tokenizer = Pipeline(
        model,
        pre_tokenizer=SentencePiece(split_digits=split_digits),
        decoder=decoders.SentencePiece(add_dummy_prefix=add_dummy_prefix, escape=ESCAPE),
        normalizer=normalizers.Sequence(([normalizer] if normalizer is not None else []) + escapes + spaces),
    )
    if user_defined_symbols:
        tokenizer.add_tokens(list(user_defined_symbols))
    return tokenizer


SUBWORD_KINDS = ("bpe", "bytelevel_bpe", "wordpiece", "unigram")


def keras_subword(
    kind: str,
    vocab_size: int,
    lower: bool = True,
    filters: str | Iterable[str] | None = None,
    split: str = " ",
    **trainer_options: Any,
) -> tuple[Pipeline, Trainer]:
    """An untrained pipeline and its trainer for ``kvec.Tokenizer(subword=kind)``.

    ``"bpe"`` and ``"wordpiece"`` split words with the Keras rule (``filters``, ``split``) and mark
    word-inner pieces with ``##``; ``"bytelevel_bpe"`` is GPT-2's byte-level BPE (no filters: nothing is
    lost); ``"unigram"`` reads raw text as sentencepiece does, with byte fallback. ``lower`` adds a
    lowercasing normalizer. ``trainer_options`` go to the trainer; its special tokens default to a
    padding token first (id 0, as Keras pads with 0) and, where the model needs one, an unknown token,
    and ``show_progress`` to False.

    Example:
        >>> tok, trainer = keras_subword("wordpiece", 60)
        >>> tok.train_from_iterator(["Low, lower, lowest!"] * 5, trainer)
        >>> tok.decode(tok.encode("LOWEST low").ids)
        'lowest low'
    """
    if kind not in SUBWORD_KINDS:
        raise ValueError(f"subword must be one of {SUBWORD_KINDS}, got {kind!r}")
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
        raise must_be("vocab_size", "a positive int", vocab_size)
    lowercase = normalizers.Lowercase() if lower else None
    # the trainers show progress by default, as Hugging Face's do; Keras' Tokenizer never prints
    trainer_options.setdefault("show_progress", False)
    if kind == "unigram":
        trainer_options.setdefault("byte_fallback", True)
        trainer_options.setdefault("special_tokens", ["<pad>", "<unk>"])
        trainer_options.setdefault("algorithm", "sentencepiece")
        return sentencepiece_style(normalizer=lowercase), UnigramTrainer(vocab_size=vocab_size, **trainer_options)
    if kind == "bytelevel_bpe":
        trainer_options.setdefault("initial_alphabet", ByteLevel.alphabet())
        trainer_options.setdefault("special_tokens", ["[PAD]"])
        # no prefix space: decoding gives the text back exactly
        words = ByteLevel(add_prefix_space=False)
        tokenizer = Pipeline(None, pre_tokenizer=words, decoder=decoders.ByteLevel(), normalizer=lowercase)
        return tokenizer, BpeTrainer(vocab_size=vocab_size, **trainer_options)
    keras_words = KerasFilters(DEFAULT_FILTERS if filters is None else filters, split)
    tokenizer = Pipeline(
        None, pre_tokenizer=keras_words, decoder=decoders.WordPiece(cleanup=False), normalizer=lowercase
    )
    if kind == "wordpiece":
        trainer_options.setdefault("special_tokens", ["[PAD]", "[UNK]"])
        return tokenizer, WordPieceTrainer(vocab_size=vocab_size, **trainer_options)
    trainer_options.setdefault("special_tokens", ["[PAD]"])
    trainer_options.setdefault("continuing_subword_prefix", "##")
    return tokenizer, BpeTrainer(vocab_size=vocab_size, **trainer_options)
