"""A Jieba's dictionary calls (words added, deleted, tuned, loaded) reach a layer's ``.keras`` file and
an exported SavedModel (the op's description): the served words are jieba's after the same calls."""

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")
jieba = pytest.importorskip("jieba")

from kvec.chinese import Jieba  # noqa: E402
from kvec.layers import TextVectorization  # noqa: E402
from tests.test_chinese import TRAVEL_TEXTS, edited  # noqa: E402
from tests.test_layer_export import exported_and_served, needs_ops  # noqa: E402


@pytest.fixture(scope="module")
def segmented():
    """An edited Jieba and jieba's words of TRAVEL_TEXTS after the same calls."""
    jieba.dt.check_initialized()
    return edited(Jieba(), jieba.dt)


def words_of(layer, rows):
    vocabulary = layer.get_vocabulary()
    return [[vocabulary[i] for i in row if i] for row in rows]


def test_a_keras_file_keeps_the_words(segmented, tmp_path):
    segmenter, expected = segmented
    layer = TextVectorization(tokenizer=segmenter, output_sequence_length=12)
    layer.adapt(TRAVEL_TEXTS)
    assert words_of(layer, np.asarray(layer(tf.constant(TRAVEL_TEXTS)))) == expected
    inputs = keras.Input(shape=(), dtype="string")
    model = keras.Model(
        inputs, keras.layers.Dense(2)(keras.layers.Flatten()(keras.layers.Embedding(40, 3)(layer(inputs))))
    )
    path = str(tmp_path / "jieba.keras")
    model.save(path)
    loaded = keras.models.load_model(path)  # the layer's tokenizer made anew from the file
    assert loaded.layers[1].tokenizer is not segmenter
    assert words_of(loaded.layers[1], np.asarray(loaded.layers[1](tf.constant(TRAVEL_TEXTS)))) == expected
    outputs = np.asarray(model.predict(np.array(TRAVEL_TEXTS, dtype=object), verbose=0))
    np.testing.assert_allclose(np.asarray(loaded.predict(np.array(TRAVEL_TEXTS, dtype=object), verbose=0)), outputs)


@needs_ops
def test_an_exported_savedmodel_serves_the_words(segmented, tmp_path):
    segmenter, expected = segmented
    layer = TextVectorization(tokenizer=segmenter, ragged=True)
    served = exported_and_served(layer, TRAVEL_TEXTS, TRAVEL_TEXTS, tmp_path)
    assert words_of(layer, served) == expected


@needs_ops
def test_words_added_after_the_first_call_reach_the_layers_op():
    # the op's description is made again once the segmenter's dictionary changed, as the Python route
    # sees the new word at once
    segmenter = Jieba()
    layer = TextVectorization(tokenizer=segmenter, output_sequence_length=8)
    text = "石墨烯材料"
    layer.adapt([text, "石墨 烯 材料"])
    before = words_of(layer, np.asarray(layer(tf.constant([text]))))
    assert before == [segmenter.split_words(text)]
    segmenter.add_word("石墨烯")
    layer.adapt([text, "石墨烯"])  # the new word joins the layer's vocabulary
    after = words_of(layer, np.asarray(layer(tf.constant([text]))))
    assert after == [segmenter.split_words(text)] == [["石墨烯", "材料"]]
    assert after != before
