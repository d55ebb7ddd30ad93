"""The WordLevel model and its trainer against Hugging Face ``tokenizers`` 0.23: the trained vocabulary
(ties in count ordered as there), the ids and offsets of encodings, tokenizer.json both ways and kvec's
own format."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec.interop.huggingface import from_tokenizer_json_str, to_tokenizer_json_str
from kvec.models import WordLevel
from kvec.pipeline import Pipeline
from kvec.pretokenizers import Whitespace
from kvec.trainers import WordLevelTrainer
from tests.support import TEXTS, Oracle

hf = Oracle("tokenizers")

CORPUS = ["b a c a b d", "e f e f", "zz yy xx ww", "a b c d e f g", "é è é ê 中 中"]
WORDS = st.sampled_from(["a", "b", "c", "zz", "é", "中", "unknown", "!", "a!", "  "])
TEXT = st.lists(WORDS, max_size=8).map(" ".join)


def trained_pair(corpus, **options):
    specials = options.pop("special_tokens", [])
    theirs = hf.Tokenizer(hf.models.WordLevel(unk_token="[UNK]"))
    theirs.pre_tokenizer = hf.pre_tokenizers.Whitespace()
    theirs.train_from_iterator(corpus, hf.trainers.WordLevelTrainer(special_tokens=specials, **options))
    ours = Pipeline(None, pre_tokenizer=Whitespace())
    ours.train_from_iterator(corpus, WordLevelTrainer(special_tokens=specials, unk_token="[UNK]", **options))
    return ours, theirs


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"special_tokens": ["[UNK]", "[PAD]"]},
        {"special_tokens": ["[UNK]", "a"]},  # a special token that is also a word
        {"vocab_size": 6, "special_tokens": ["[UNK]"]},
        {"min_frequency": 2},
    ],
)
def test_trained_vocabularies_equal_hugging_face(options):
    ours, theirs = trained_pair(CORPUS, **options)
    assert ours.get_vocab() == theirs.get_vocab()
    ours, theirs = trained_pair(TEXTS[:200], **options)
    assert ours.get_vocab() == theirs.get_vocab()


@settings(max_examples=60)
@given(st.lists(TEXT, min_size=1, max_size=4))
def test_encodings_equal_hugging_face(texts):
    ours, theirs = trained_pair(CORPUS, special_tokens=["[UNK]"])
    for text in texts:
        mine, want = ours.encode(text), theirs.encode(text)
        assert (mine.ids, mine.tokens, mine.offsets, mine.word_ids) == (
            want.ids,
            want.tokens,
            want.offsets,
            want.word_ids,
        )
    assert [e.ids for e in ours.encode_batch(texts)] == [e.ids for e in theirs.encode_batch(texts)]


def test_tokenizer_json_both_ways_and_kvec_json():
    ours, theirs = trained_pair(CORPUS, special_tokens=["[UNK]"])
    texts = ["a b zz", "中 unknown é"]
    want = [e.ids for e in theirs.encode_batch(texts)]
    assert [e.ids for e in from_tokenizer_json_str(theirs.to_str()).encode_batch(texts)] == want
    again = hf.Tokenizer.from_str(to_tokenizer_json_str(ours))
    assert [e.ids for e in again.encode_batch(texts)] == want
    assert json.loads(to_tokenizer_json_str(ours))["model"] == json.loads(theirs.to_str())["model"]
    assert [e.ids for e in Pipeline.from_str(ours.to_str()).encode_batch(texts)] == want


def test_a_word_without_an_unknown_token_is_an_error_as_in_hugging_face():
    vocab = {"a": 0}
    with pytest.raises(Exception, match="Missing \\[UNK\\] token"):
        hf.Tokenizer(hf.models.WordLevel(vocab, unk_token="[UNK]")).encode("b")
    with pytest.raises(ValueError, match="unk_token"):
        Pipeline(WordLevel(vocab, unk_token="[UNK]"), pre_tokenizer=Whitespace()).encode("b")
    with pytest.raises(ValueError, match="min_frequency"):
        WordLevelTrainer(min_frequency=-1)
