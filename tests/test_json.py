"""JSON written by kvec loads in keras_preprocessing / tf.keras, and theirs loads in kvec."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kvec
from kvec.errors import FormatError
from tests.support import Oracle

legacy = Oracle("keras_preprocessing.text")

TEXTS = st.lists(st.text(alphabet="abc ABC,.'中文", max_size=20), max_size=10)


def state(tok):
    return (
        list(tok.word_counts.items()),
        dict(tok.word_docs),
        dict(tok.index_docs),
        list(tok.word_index.items()),
        list(tok.index_word.items()),
        tok.document_count,
    )


@given(first=TEXTS, second=TEXTS, oov=st.sampled_from([None, "<OOV>"]), num_words=st.sampled_from([None, 3]))
def test_legacy_json_loads_and_keeps_fitting(first, second, oov, num_words):
    theirs = legacy.Tokenizer(num_words=num_words, oov_token=oov)
    theirs.fit_on_texts(first)
    loaded = kvec.tokenizer_from_json(theirs.to_json())
    assert state(loaded) == state(theirs)
    assert loaded.texts_to_sequences(first + second) == theirs.texts_to_sequences(first + second)
    # The legacy loader cannot be fitted further; kvec's continues exactly as an uninterrupted fit.
    loaded.fit_on_texts(second)
    reference = legacy.Tokenizer(num_words=num_words, oov_token=oov)
    reference.fit_on_texts(first)
    reference.fit_on_texts(second)
    assert state(loaded) == state(reference)
    assert loaded.texts_to_sequences(first + second) == reference.texts_to_sequences(first + second)


@given(texts=TEXTS, oov=st.sampled_from([None, "<OOV>"]))
def test_kvec_json_loads_in_legacy_and_in_keras(texts, oov):
    ours = kvec.Tokenizer(num_words=4, oov_token=oov)
    ours.fit_on_texts(texts)
    document = ours.to_json()
    theirs = legacy.tokenizer_from_json(document)
    assert theirs.texts_to_sequences(texts + ["b z"]) == ours.texts_to_sequences(texts + ["b z"])
    again = kvec.tokenizer_from_json(document)
    assert state(again) == state(ours)
    assert again.to_json() == document


def test_kvec_json_loads_in_keras_3_legacy_copy():
    keras_text = pytest.importorskip("keras.src.legacy.preprocessing.text")
    ours = kvec.Tokenizer(oov_token="<OOV>")
    ours.fit_on_texts(["the cat", "the hat"])
    theirs = keras_text.tokenizer_from_json(ours.to_json())
    assert theirs.texts_to_sequences(["the bat"]) == ours.texts_to_sequences(["the bat"]) == [[2, 1]]


@pytest.mark.parametrize(
    "document, problem",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", 'expected an object with a "config" object'),
        ('{"config": {}}', 'config has no "word_counts"'),
        (
            json.dumps(
                {
                    "config": {
                        "word_counts": "{",
                        "word_docs": "{}",
                        "index_docs": "{}",
                        "index_word": "{}",
                        "word_index": "{}",
                    }
                }
            ),
            '"word_counts" is not valid JSON',
        ),
        (
            json.dumps(
                {
                    "config": {
                        "word_counts": "{}",
                        "word_docs": "{}",
                        "index_docs": '{"x": 1}',
                        "index_word": "{}",
                        "word_index": "{}",
                    }
                }
            ),
            "index keys must be integers",
        ),
        (
            json.dumps(
                {
                    "config": {
                        "word_counts": "{}",
                        "word_docs": "{}",
                        "index_docs": "{}",
                        "index_word": "{}",
                        "word_index": "{}",
                        "evil": 1,
                    }
                }
            ),
            "unknown config keys",
        ),
    ],
)
def test_corrupt_json_raises_format_error(document, problem):
    with pytest.raises(FormatError, match=problem) as info:
        kvec.tokenizer_from_json(document)
    assert "tokenizer JSON string" in str(info.value)
    assert isinstance(info.value, ValueError)
