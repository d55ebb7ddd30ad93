"""Byte-level BPE through the pipeline: Hugging Face tokenizers parity and lossless round trips."""

import json

from hypothesis import given
from hypothesis import strategies as st

from kvec import decoders
from kvec.models import BPE
from kvec.pipeline import Tokenizer
from kvec.pretokenizers import ByteLevel, bytes_to_unicode
from kvec.trainers import BpeTrainer
from tests.support import STABLE_CHARS, Oracle

HFTokenizer = Oracle("tokenizers", "Tokenizer")
hf_decoders = Oracle("tokenizers.decoders")
hf_models = Oracle("tokenizers.models")
hf_pre_tokenizers = Oracle("tokenizers.pre_tokenizers")
hf_trainers = Oracle("tokenizers.trainers")

# Rust strings hold no lone surrogates, and the two regex engines follow different Unicode versions, so
# the comparisons with the library use characters whose properties are long settled (see strategies.py).
PIECES = STABLE_CHARS | st.sampled_from([" ", "  ", "\n", "\t", "'s", "'ll", "'re", "é", "中文", "🤗", "ab", "12"])
TEXT = st.lists(PIECES, max_size=25).map("".join)
CORPUS = st.lists(TEXT, min_size=1, max_size=8)


def hf_byte_level(add_prefix_space=True):
    tokenizer = HFTokenizer(hf_models.BPE())
    tokenizer.pre_tokenizer = hf_pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
    tokenizer.decoder = hf_decoders.ByteLevel()
    return tokenizer


def kvec_byte_level(add_prefix_space=True):
    return Tokenizer(None, pre_tokenizer=ByteLevel(add_prefix_space=add_prefix_space), decoder=decoders.ByteLevel())


def test_bytes_to_unicode_is_gpt2s_table():
    table = bytes_to_unicode()
    assert len(set(table.values())) == 256
    assert table[ord(" ")] == "Ġ" and table[ord("\n")] == "Ċ" and table[ord("A")] == "A"
    assert sorted(table.values()) == sorted(hf_pre_tokenizers.ByteLevel.alphabet())


@given(text=TEXT, add_prefix_space=st.booleans())
def test_pre_tokenizer_equals_hf(text, add_prefix_space):
    ours = [(p.text, p.offsets(0, len(p.text))) for p in ByteLevel(add_prefix_space).pre_tokenize(text)]
    theirs = hf_pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space).pre_tokenize_str(text)
    assert ours == theirs


@given(
    corpus=CORPUS, vocab_size=st.integers(256, 330), probe=st.lists(TEXT, max_size=5), add_prefix_space=st.booleans()
)
def test_training_and_encoding_equal_hf(corpus, vocab_size, probe, add_prefix_space):
    alphabet = ByteLevel.alphabet()
    theirs = hf_byte_level(add_prefix_space)
    theirs.train_from_iterator(
        corpus, hf_trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=alphabet, show_progress=False)
    )
    ours = kvec_byte_level(add_prefix_space)
    ours.train_from_iterator(corpus, BpeTrainer(vocab_size=vocab_size, initial_alphabet=alphabet))
    model = json.loads(theirs.to_str())["model"]
    assert ours.get_vocab() == model["vocab"]
    assert ours.model.merges == [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in model["merges"]]
    for text in corpus + probe:
        expected = theirs.encode(text)
        got = ours.encode(text)
        assert got.ids == expected.ids
        assert got.tokens == expected.tokens
        assert got.offsets == expected.offsets
        assert ours.decode(got.ids) == theirs.decode(expected.ids)


@given(text=st.text(max_size=60))
def test_decode_encode_round_trip_is_lossless(text):
    tokenizer = kvec_byte_level(add_prefix_space=False)
    tokenizer.model = BpeTrainer(vocab_size=300, initial_alphabet=ByteLevel.alphabet()).train_from_counts(
        {"Ġthe": 5, "the": 3, "ing": 4, "Ġa": 2}
    )
    assert tokenizer.decode(tokenizer.encode(text).ids) == text
    assert tokenizer.decode_batch([e.ids for e in tokenizer.encode_batch([text, text[::-1]])]) == [text, text[::-1]]


def test_loaded_vocab_and_merges_encode_like_hf():
    corpus = ["The quick brown fox jumps over the lazy dog.", "Le cœur a ses raisons 中文 🤗!"] * 3
    theirs = hf_byte_level()
    theirs.train_from_iterator(
        corpus, hf_trainers.BpeTrainer(vocab_size=320, initial_alphabet=ByteLevel.alphabet(), show_progress=False)
    )
    model = json.loads(theirs.to_str())["model"]
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in model["merges"]]
    ours = Tokenizer(BPE(model["vocab"], merges), pre_tokenizer=ByteLevel(), decoder=decoders.ByteLevel())
    for text in corpus + ["unseen words: zebra, Ωmega, 12345"]:
        assert ours.encode(text).ids == theirs.encode(text).ids
        assert ours.encode(text).offsets == theirs.encode(text).offsets
