"""The TensorFlow op and encode_batch run one encoder (csrc/core/spec_encoder.h): fed the same
pipelines and texts, they give the same ids."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

tf = pytest.importorskip("tensorflow")

from kvec.layers import op_library  # noqa: E402
from kvec.native_spec import describe  # noqa: E402
from tests.one_encoder_pipelines import ALPHABET, keras_words, pipelines  # noqa: E402

LIBRARY = op_library.load()
pytestmark = pytest.mark.skipif(LIBRARY is None, reason="kvec's op library could not be built here")
PIPELINES = pipelines()
KERAS = keras_words()
TEXTS = st.lists(st.text(st.sampled_from(ALPHABET), max_size=30), max_size=8)


def op_ids(tokenizer, texts):
    raw = tf.constant([text.encode() for text in texts], dtype=tf.string)
    values, splits = LIBRARY.kvec_encode(raw, spec=describe(tokenizer))
    return tf.RaggedTensor.from_row_splits(values, splits).to_list()


@pytest.mark.parametrize("name", sorted(PIPELINES))
@settings(max_examples=40, deadline=None)
@given(texts=TEXTS)
def test_the_op_and_encode_batch_give_the_same_ids(name, texts):
    pipeline = PIPELINES[name]
    assert op_ids(pipeline, texts) == [e.ids for e in pipeline.encode_batch(texts)]


@settings(max_examples=40, deadline=None)
@given(texts=TEXTS)
def test_the_op_and_the_keras_word_lookup_give_the_same_ids(texts):
    assert op_ids(KERAS, texts) == KERAS.texts_to_sequences(texts)
