"""Metaspace, Punctuation and Digits pre-tokenizers and the Metaspace decoder: Hugging Face parity."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvec import decoders
from kvec.models import WordPiece
from kvec.pipeline import Tokenizer
from kvec.pretokenizers import BEHAVIORS, PREPEND_SCHEMES, Digits, Metaspace, Punctuation
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
