"""Small real text and models trained on it by Hugging Face ``tokenizers``, shared by the interop tests."""

import inspect

import tokenizers
from hypothesis import strategies as st
from strategies import STABLE_CHARS
from tokenizers import decoders, models, normalizers, pre_tokenizers, processors, trainers


def real_text():
    """Lines of the standard library's docstrings: small real text, the same on every machine with
    this Python."""
    import csv
    import email
    import html
    import json as json_module

    lines = []
    for module in (json_module, csv, email, html, inspect):
        for _, member in sorted(vars(module).items()):
            doc = inspect.getdoc(member) if callable(member) else None
            if doc:
                lines += [line for line in doc.split("\n") if line.strip()]
    return lines


TEXTS = real_text()
WORDS = sorted({w for line in TEXTS for w in line.split()})[:400]
TEXT = st.lists(
    st.one_of(st.sampled_from(WORDS), st.sampled_from([" ", "  ", "\n", "[CLS]", "<s>", "12"]), STABLE_CHARS),
    max_size=20,
).map("".join)


def hf_trained(kind):
    if kind == "bytelevel_bpe":
        tok = tokenizers.Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        alphabet = pre_tokenizers.ByteLevel.alphabet()
        tok.train_from_iterator(
            TEXTS, trainers.BpeTrainer(vocab_size=600, initial_alphabet=alphabet, special_tokens=["<pad>", "<s>"])
        )
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A", pair="<s> $A $B:1", special_tokens=[("<s>", 1)]
        )
    elif kind == "bert_wordpiece":
        tok = tokenizers.Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer()
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece()
        tok.train_from_iterator(
            TEXTS, trainers.WordPieceTrainer(vocab_size=500, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"])
        )
        tok.post_processor = processors.BertProcessing(
            ("[SEP]", tok.token_to_id("[SEP]")), ("[CLS]", tok.token_to_id("[CLS]"))
        )
    elif kind == "bpe_sequence":
        tok = tokenizers.Tokenizer(models.BPE(unk_token="[UNK]", continuing_subword_prefix="##"))
        tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(), normalizers.Lowercase()])
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [pre_tokenizers.Whitespace(), pre_tokenizers.Digits(individual_digits=True)]
        )
        tok.train_from_iterator(
            TEXTS, trainers.BpeTrainer(vocab_size=500, special_tokens=["[UNK]"], continuing_subword_prefix="##")
        )
    else:
        tok = tokenizers.Tokenizer(models.Unigram())
        tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        tok.train_from_iterator(
            TEXTS, trainers.UnigramTrainer(vocab_size=400, special_tokens=["<unk>"], unk_token="<unk>")
        )
    return tok
