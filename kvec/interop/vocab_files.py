"""Pretrained vocabularies as plain files: BERT's ``vocab.txt`` and GPT-2's ``vocab.json`` + ``merges.txt``.

Each loader builds the pipeline those files are used with, as Hugging Face's ``BertWordPieceTokenizer``
and ``ByteLevelBPETokenizer`` do, so the ids are the same. Bad files raise
:class:`kvec.errors.FormatError` naming the file and the line.
"""

from __future__ import annotations

import os

from kvec import decoders, normalizers, pre_tokenizers
from kvec.errors import FormatError
from kvec.files.vocab_reading import read_merges_txt, read_vocab_json, read_vocab_txt
from kvec.models import BPE, WordPiece
from kvec.models.base import checked_vocab
from kvec.pipeline import Pipeline
from kvec.processors import TemplateProcessing

__all__ = ["load_bert_vocab", "load_gpt2_files"]


def load_bert_vocab(
    path: str | os.PathLike[str],
    lowercase: bool = True,
    strip_accents: bool | None = None,
    clean_text: bool = True,
    handle_chinese_chars: bool = True,
    unk_token: str = "[UNK]",
    sep_token: str = "[SEP]",
    cls_token: str = "[CLS]",
    pad_token: str = "[PAD]",
    mask_token="[MASK]",
):
    """A BERT tokenizer from its ``vocab.txt`` (one token per line; a token's id is its line number).

    BERT's normalizer (``lowercase=False`` for cased models), BERT's word split, WordPiece, and
    ``[CLS] $A [SEP]`` (``[CLS] $A [SEP] $B:1 [SEP]:1`` for pairs); the five special tokens are
    registered when the vocabulary has them.

    Example:
        >>> import tempfile, os
        >>> folder = tempfile.mkdtemp()
        >>> with open(os.path.join(folder, "vocab.txt"), "w") as f:
        ...     _ = f.write("[PAD]\\n[UNK]\\n[CLS]\\n[SEP]\\nun\\n##able\\n")
        >>> bert = load_bert_vocab(os.path.join(folder, "vocab.txt"))
        >>> bert.encode("Unable").tokens
        ['[CLS]', 'un', '##able', '[SEP]']
    """
    vocab = read_vocab_txt(path)
    path = os.fspath(path)
    # without its unknown token, BERT could not encode a word that no piece spells
    for name, token in (("sep_token", sep_token), ("cls_token", cls_token), ("unk_token", unk_token)):
        if token not in vocab:
            raise FormatError(path, f"{name} {token!r} is not in the vocabulary")
    tokenizer = Pipeline(
        WordPiece(vocab, unk_token=unk_token),
        pre_tokenizer=pre_tokenizers.BertPreTokenizer(),
        decoder=decoders.WordPiece(),
        normalizer=normalizers.BertNormalizer(
            clean_text=clean_text,
            handle_chinese_chars=handle_chinese_chars,
            strip_accents=strip_accents,
            lowercase=lowercase,
        ),
        post_processor=TemplateProcessing(
            f"{cls_token} $A {sep_token}",
            f"{cls_token} $A {sep_token} $B:1 {sep_token}:1",
            special_tokens=[(cls_token, vocab[cls_token]), (sep_token, vocab[sep_token])],
        ),
    )
    tokenizer.add_special_tokens([t for t in (unk_token, sep_token, cls_token, pad_token, mask_token) if t in vocab])
    return tokenizer


def load_gpt2_files(
    vocab_path: str | os.PathLike[str], merges_path: str | os.PathLike[str], add_prefix_space: bool = False
) -> Pipeline:
    """A byte-level BPE tokenizer (GPT-2, RoBERTa) from its ``vocab.json`` and ``merges.txt``.

    Example:
        >>> import tempfile, os, json
        >>> folder = tempfile.mkdtemp()
        >>> with open(os.path.join(folder, "vocab.json"), "w") as f:
        ...     json.dump({"h": 0, "i": 1, "hi": 2, "Ġ": 3, "Ġhi": 4}, f)
        >>> with open(os.path.join(folder, "merges.txt"), "w") as f:
        ...     _ = f.write("#version: 0.2\\nh i\\nĠ hi\\n")
        >>> gpt2 = load_gpt2_files(os.path.join(folder, "vocab.json"), os.path.join(folder, "merges.txt"))
        >>> gpt2.encode("hi hi").tokens
        ['hi', 'Ġhi']
    """
    vocab, merges = read_vocab_json(vocab_path), read_merges_txt(merges_path)
    try:
        vocab = checked_vocab(vocab)
    except (TypeError, ValueError) as e:
        raise FormatError(os.fspath(vocab_path), str(e)) from None
    try:
        model = BPE(vocab, merges)
    except ValueError as e:
        raise FormatError(os.fspath(merges_path), str(e)) from None
    return Pipeline(
        model, pre_tokenizer=pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space), decoder=decoders.ByteLevel()
    )
