"""Metaspace, Punctuation and Digits pre-tokenizers and the Metaspace decoder: Hugging Face parity."""

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvec import decoders, pretokenizers
from kvec.models import WordPiece
from kvec.pipeline import Tokenizer
from kvec.pretokenizers import (
    BEHAVIORS,
    PREPEND_SCHEMES,
    Digits,
    KerasFilters,
    Metaspace,
    Punctuation,
    Sequence,
    WhitespaceSplit,
)
from kvec.text import text_to_word_sequence
from tests.support import STABLE_CHARS, Oracle

HFTokenizer = Oracle("tokenizers", "Tokenizer")
hf_decoders = Oracle("tokenizers.decoders")
hf_models = Oracle("tokenizers.models")
hf_pre_tokenizers = Oracle("tokenizers.pre_tokenizers")

TEXT = st.lists(
    st.sampled_from([" ", "  ", "▁", "a", "B", "1", "23", "٣", "½", ",", "!!", "¿", "$", "-", "中", "\n"])
    | STABLE_CHARS,
    max_size=14,
).map("".join)


def pieces(pre_tokenizer, text, **kwargs):
    return [(p.text, p.offsets(0, len(p.text))) for p in pre_tokenizer.pre_tokenize(text, **kwargs) if p.text]


@pytest.mark.parametrize("scheme", PREPEND_SCHEMES)
@pytest.mark.parametrize("split", [True, False])
@given(text=TEXT)
def test_metaspace_equals_hf(scheme, split, text):
    theirs = hf_pre_tokenizers.Metaspace(prepend_scheme=scheme, split=split).pre_tokenize_str(text)
    assert pieces(Metaspace(prepend_scheme=scheme, split=split), text) == theirs
    assert Metaspace(prepend_scheme=scheme, split=split).split_words(text) == [t for t, _ in theirs]


@pytest.mark.parametrize("behavior", BEHAVIORS)
@given(text=TEXT)
def test_punctuation_equals_hf(behavior, text):
    assert pieces(Punctuation(behavior), text) == hf_pre_tokenizers.Punctuation(behavior=behavior).pre_tokenize_str(
        text
    )


@pytest.mark.parametrize("individual", [True, False])
@given(text=TEXT)
def test_digits_equal_hf(individual, text):
    assert pieces(Digits(individual), text) == hf_pre_tokenizers.Digits(individual_digits=individual).pre_tokenize_str(
        text
    )


@pytest.mark.parametrize("scheme", PREPEND_SCHEMES)
@given(tokens=st.lists(st.sampled_from(["▁Hey", "▁", "my", "▁friend", "▁▁", "a▁b", " x"]), max_size=6))
def test_metaspace_decoder_equals_hf(scheme, tokens):
    assert decoders.Metaspace(prepend_scheme=scheme).decode(tokens) == hf_decoders.Metaspace(
        prepend_scheme=scheme
    ).decode(tokens)


@pytest.mark.parametrize("scheme", PREPEND_SCHEMES)
@given(text=st.lists(st.sampled_from(["<s>", " ", "a", "b", "ab", "▁"]), max_size=8).map("".join))
def test_metaspace_first_scheme_after_special_tokens_equals_hf(scheme, text):
    vocab = {t: i for i, t in enumerate(["<unk>", "<s>", "▁", "a", "b", "▁a", "▁b", "ab", "▁ab", "##a", "##b", "##▁"])}
    theirs = HFTokenizer(hf_models.WordPiece(vocab, unk_token="<unk>"))
    theirs.pre_tokenizer = hf_pre_tokenizers.Metaspace(prepend_scheme=scheme)
    theirs.decoder = hf_decoders.Metaspace(prepend_scheme=scheme)
    theirs.add_special_tokens(["<s>"])
    ours = Tokenizer(
        WordPiece(vocab, unk_token="<unk>"),
        pre_tokenizer=Metaspace(prepend_scheme=scheme),
        decoder=decoders.Metaspace(prepend_scheme=scheme),
    )
    ours.add_special_tokens(["<s>"])
    expected, got = theirs.encode(text), ours.encode(text)
    assert (got.ids, got.offsets) == (expected.ids, expected.offsets)
    assert ours.decode(got.ids) == theirs.decode(expected.ids)
    batch = [text, text + " <s>", " " + text] * 30  # the native path, special tokens left to encode
    assert [e.ids for e in ours.encode_batch(batch, n_threads=2)] == [e.ids for e in theirs.encode_batch(batch)]


def test_bad_arguments():
    with pytest.raises(ValueError, match="behavior must be one of"):
        Punctuation("drop")
    with pytest.raises(ValueError, match="prepend_scheme must be one of"):
        Metaspace(prepend_scheme="sometimes")
    with pytest.raises(ValueError, match="replacement must be one character"):
        Metaspace(replacement="__")


@given(
    text=TEXT | st.text(max_size=20),
    filters=st.sampled_from(['!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n', "", ",.", "a", "中，"]),
    split=st.sampled_from([" ", ",", "a"]),
)
def test_keras_filters_words_are_text_to_word_sequence(text, filters, split):
    from kvec import text_to_word_sequence
    from kvec.pretokenizers import KerasFilters

    found = KerasFilters(filters, split).pre_tokenize(text)
    assert [p.text for p in found] == text_to_word_sequence(text, filters, lower=False, split=split)
    assert all(text[slice(*p.offsets(0, len(p.text)))] == p.text for p in found)


WORDPIECE_VOCAB = {
    t: i
    for i, t in enumerate(
        ["[UNK]", "a", "B", "1", "2", "3", ",", "!", "$", "-", "中", "▁", "▁a", "▁B", "a,", ",a", "##a", "##,", "##!"]
        + ["##B", "##1", "##2", "##3", "##▁", "¿", "▁▁", "##中", "##-", "##$", "##¿"]
    )
}


def native_pair(hf_pre_tokenizer, ours):
    theirs = HFTokenizer(hf_models.WordPiece(WORDPIECE_VOCAB, unk_token="[UNK]"))
    theirs.pre_tokenizer = hf_pre_tokenizer
    tok = Tokenizer(WordPiece(WORDPIECE_VOCAB, unk_token="[UNK]"), pre_tokenizer=ours)
    assert tok._fast_encoder() is not None  # cut in C by the word encoder
    return theirs, tok


def assert_native_ids_equal(theirs, ours, texts):
    expected = [e.ids for e in theirs.encode_batch(texts)]
    assert [e.ids for e in ours.encode_batch(texts, n_threads=1)] == expected
    values, row_lengths = ours.encode_ragged(texts * 70, n_threads=2)  # parts on threads
    assert values.tolist() == [i for ids in expected * 70 for i in ids]
    assert row_lengths.tolist() == [len(ids) for ids in expected * 70]


@pytest.mark.parametrize("behavior", BEHAVIORS)
@given(texts=st.lists(TEXT, min_size=1, max_size=4))
def test_punctuation_on_the_native_path_equals_hf(behavior, texts):
    pair = native_pair(hf_pre_tokenizers.Punctuation(behavior=behavior), Punctuation(behavior))
    assert_native_ids_equal(*pair, texts)


@pytest.mark.parametrize("individual", [True, False])
@given(texts=st.lists(TEXT, min_size=1, max_size=4))
def test_digits_on_the_native_path_equal_hf(individual, texts):
    pair = native_pair(hf_pre_tokenizers.Digits(individual_digits=individual), Digits(individual))
    assert_native_ids_equal(*pair, texts)


@pytest.mark.parametrize("scheme", PREPEND_SCHEMES)
@pytest.mark.parametrize("split", [True, False])
@given(texts=st.lists(TEXT, min_size=1, max_size=4))
def test_metaspace_on_the_native_path_equals_hf(scheme, split, texts):
    pair = native_pair(
        hf_pre_tokenizers.Metaspace(prepend_scheme=scheme, split=split), Metaspace(prepend_scheme=scheme, split=split)
    )
    assert_native_ids_equal(*pair, texts)


SEQUENCES = {
    "whitespace, digits": lambda m: [m.Whitespace(), m.Digits(individual_digits=True)],
    "split, punctuation, digit runs": lambda m: [m.WhitespaceSplit(), m.Punctuation(), m.Digits()],
    "punctuation removed, contiguous digits": lambda m: [m.Punctuation("removed"), m.Digits(False)],
    "bert, digits": lambda m: [m.BertPreTokenizer(), m.Digits(individual_digits=True)],
}


@pytest.mark.parametrize("stages", SEQUENCES.values(), ids=SEQUENCES.keys())
@given(texts=st.lists(TEXT, min_size=1, max_size=4))
def test_a_sequence_of_class_cuts_on_the_native_path_equals_hf(stages, texts):
    pair = native_pair(hf_pre_tokenizers.Sequence(stages(hf_pre_tokenizers)), Sequence(stages(pretokenizers)))
    assert_native_ids_equal(*pair, texts)


def test_a_sequence_with_a_stage_that_does_more_than_cut_takes_the_python_path():
    assert Sequence([WhitespaceSplit(), Metaspace()]).word_table() is None
    assert Sequence([Punctuation("merged_with_next"), Digits()]).word_table() is None
    assert Sequence([]).word_table().classes == b""  # one word: the whole text


@given(text=TEXT)
def test_keras_filters_cut_words_with_the_keras_rule_and_pickle(text):
    stage = pickle.loads(pickle.dumps(KerasFilters(filters=",!$", split="-")))
    assert stage.split_words(text) == text_to_word_sequence(text, filters=",!$", lower=False, split="-")
    assert [p.text for p in stage.pre_tokenize(text)] == stage.split_words(text)
