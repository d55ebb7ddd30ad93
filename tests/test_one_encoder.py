"""encode_batch and encode_ragged of a pipeline kvec describes natively take one route: kvec's native
encoder (kvec._spec over csrc/core/spec_encoder.h, the TensorFlow op's); the reference encoder,
Pipeline.encode, serves only what C cannot describe, and the two give the same ids."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec._spec import SpecEncoder
from kvec.models import Unigram, WordPiece
from kvec.native_spec import describe
from kvec.pipeline import Pipeline
from kvec.presets import sentencepiece_style
from kvec.pretokenizers import Regex, Split
from tests.one_encoder_pipelines import ALPHABET, keras_words, pipelines

PIPELINES = pipelines()
TEXTS = st.lists(st.text(st.sampled_from(ALPHABET), max_size=30), max_size=8)


@pytest.fixture
def no_reference_encoder(monkeypatch):
    """Pipeline.encode (and each batch item's) made to fail: a batch that reaches it fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError("the reference encoder was called")

    monkeypatch.setattr(Pipeline, "encode", refuse)
    monkeypatch.setattr(Pipeline, "_encode_input", refuse)


@pytest.mark.parametrize("name", sorted(PIPELINES))
@settings(max_examples=30)
@given(texts=TEXTS)
def test_a_described_pipeline_is_encoded_by_the_native_encoder_alone(name, texts):
    pipeline = PIPELINES[name]
    expected = [pipeline.encode(text).ids for text in texts]  # the reference encoder, text by text
    encoder, python_first = pipeline._fast_encoder()
    assert isinstance(encoder, SpecEncoder) and not python_first
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Pipeline, "encode", lambda *a, **k: pytest.fail("the reference encoder was called"))
        patch.setattr(Pipeline, "_encode_input", lambda *a, **k: pytest.fail("the reference encoder was called"))
        assert [e.ids for e in pipeline.encode_batch(texts, n_threads=2)] == expected
        values, row_lengths = pipeline.encode_ragged(texts)
    assert row_lengths.tolist() == [len(ids) for ids in expected]
    assert values.tolist() == [i for ids in expected for i in ids]


def test_the_native_encoder_is_the_description_s_and_is_made_again_when_a_stage_changes():
    pipeline = Pipeline(WordPiece({"[UNK]": 0, "a": 1, "b": 2, "##b": 3}))
    first, _ = pipeline._fast_encoder()
    assert pipeline._fast_encoder()[0] is first  # made once
    assert pipeline.encode_batch(["ab"])[0].ids == [1, 3]
    pipeline.model.continuing_subword_prefix = ""  # a setting: tokenizers reads it at every call
    assert pipeline._fast_encoder()[0] is not first
    assert pipeline.encode_batch(["ab"])[0].ids == [1, 2] == pipeline.encode("ab").ids
    again, _ = pipeline._fast_encoder()
    pipeline.add_tokens(["ab"])
    assert pipeline._fast_encoder()[0] is not again
    assert pipeline.encode_batch(["ab"])[0].ids == pipeline.encode("ab").ids == [4]


def test_what_c_cannot_describe_is_encoded_by_the_reference_encoder(no_reference_encoder):
    pipeline = Pipeline(WordPiece({"[UNK]": 0, "a": 1}), pre_tokenizer=Split(Regex(r"a+|\s"), "removed"))
    assert pipeline._fast_encoder() is None
    with pytest.raises(AssertionError, match="reference encoder was called"):
        pipeline.encode_batch(["a a"])


def test_a_text_the_native_encoder_cannot_take_goes_to_the_reference_encoder():
    pipeline = PIPELINES["bert"]
    texts = ["low \ud800 a", "low"]  # a lone surrogate: no UTF-8 carries it
    assert [e.ids for e in pipeline.encode_batch(texts)] == [pipeline.encode(t).ids for t in texts]


def test_the_keras_word_lookup_is_described_for_the_same_encoder():
    tokenizer = keras_words()
    texts = ["the cat sat", "naïve 中文 unknown", ""]
    values, row_lengths = SpecEncoder(describe(tokenizer)).encode(texts)
    rows = np.split(np.frombuffer(values, dtype=np.int64), np.cumsum(np.frombuffer(row_lengths, dtype=np.int64))[:-1])
    assert [row.tolist() for row in rows] == tokenizer.texts_to_sequences(texts)


WIDE = "abcdefghijkl"  # a node with more children than UNIGRAM_ASCII_FANOUT reads its ASCII ones from a row


def wide_unigram(viterbi):
    """A Unigram whose root, "▁" and "a" each have many ASCII children and a non-ASCII one or two."""
    pieces = ["<unk>", *WIDE, "é", "中", "▁", *(f"▁{c}" for c in WIDE + "é"), *(f"a{c}" for c in WIDE + "中")]
    pieces += [f"ab{c}" for c in WIDE] + ["▁ab", "▁abc", "lé", "▁中a"]
    vocab = [(piece, -1.0 - len(piece) * 0.5 - (i % 7) * 0.125) for i, piece in enumerate(pieces)]
    return Unigram(vocab, unk_id=0, viterbi=viterbi)


@pytest.mark.parametrize("viterbi", ["sentencepiece", "huggingface"])
@settings(max_examples=60)
@given(texts=st.lists(st.text(st.sampled_from(WIDE + "mé中▁ "), max_size=24), min_size=1, max_size=6))
def test_wide_trie_nodes_segment_as_the_reference_encoder(viterbi, texts):
    pipeline = sentencepiece_style(wide_unigram(viterbi))
    expected = [pipeline.encode(text).ids for text in texts]
    assert pipeline._fast_encoder() is not None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Pipeline, "encode", lambda *a, **k: pytest.fail("the reference encoder was called"))
        assert [e.ids for e in pipeline.encode_batch(texts, n_threads=2)] == expected
