"""``kvec.layers.TextBatches``: the batches of ``TokenBatches`` as a Keras ``PyDataset`` and as a
``tf.data.Dataset``, read by ``model.fit``."""

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from kvec import Tokenizer  # noqa: E402
from kvec.data.batching import TokenBatches  # noqa: E402
from kvec.layers import TextBatches  # noqa: E402


def sequences(count=90, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.integers(1, 30, size=rng.integers(1, 25)).tolist() for _ in range(count)]


def test_the_py_dataset_and_the_tf_dataset_give_token_batches():
    seqs, labels = sequences(), np.arange(90) % 2
    expected = list(TokenBatches(seqs, labels=labels, batch_size=8, shuffle=True, seed=4))
    batches = TextBatches(seqs, labels=labels, batch_size=8, shuffle=True, seed=4)
    assert len(batches) == len(expected)
    for (inputs, y), (want, want_y) in zip((batches[i] for i in range(len(batches))), expected):
        assert inputs["input_ids"].tolist() == want["input_ids"].tolist()
        assert inputs["attention_mask"].tolist() == want["attention_mask"].tolist()
        assert y.tolist() == want_y.tolist()
    from_tf = [(x["input_ids"].numpy().tolist(), y.numpy().tolist()) for x, y in batches.as_dataset()]
    assert from_tf == [(x["input_ids"].tolist(), y.tolist()) for x, y in expected]
    # a shuffled dataset moves to its next epoch after each full pass
    again = [x["input_ids"].numpy().tolist() for x, _ in batches.as_dataset()]
    assert again != [x for x, _ in from_tf]

    def rows(batches):  # the ids are >= 1: zeros are padding
        return sorted(tuple(i for i in row if i) for batch in batches for row in batch)

    assert rows(again) == rows(x for x, _ in from_tf)


def test_model_fit_reads_the_batches():
    keras.utils.set_random_seed(0)
    texts = ["good fine great nice"[: 4 + i % 15] + " good" for i in range(40)] + [
        "bad awful poor"[: 3 + i % 11] + " bad" for i in range(40)
    ]
    labels = np.array([1] * 40 + [0] * 40)
    tok = Tokenizer()
    tok.fit_on_texts(texts)
    batches = TextBatches.from_texts(texts, tok, labels=labels, batch_size=8, shuffle=True, inputs="input_ids")
    model = keras.Sequential(
        [
            keras.layers.Embedding(len(tok.word_index) + 1, 8, mask_zero=True),
            keras.layers.GlobalAveragePooling1D(),
            keras.layers.Dense(1),
        ]
    )
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss=keras.losses.BinaryCrossentropy(from_logits=True))
    history = model.fit(batches, epochs=8, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0] / 2
    history = model.fit(batches.as_dataset(), epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])


def test_dict_inputs_reach_a_functional_model():
    ids = keras.Input(shape=(None,), dtype="int32", name="input_ids")
    mask = keras.Input(shape=(None,), dtype="int32", name="attention_mask")
    x = keras.layers.Embedding(40, 4)(ids)
    weights = keras.ops.expand_dims(keras.ops.cast(mask, "float32"), -1)
    pooled = keras.ops.sum(x * weights, axis=1) / keras.ops.maximum(keras.ops.sum(weights, axis=1), 1.0)
    model = keras.Model({"input_ids": ids, "attention_mask": mask}, keras.layers.Dense(1)(pooled))
    model.compile(optimizer="adam", loss="mse")
    batches = TextBatches(sequences(40), labels=np.zeros(40), batch_size=8)
    model.fit(batches, epochs=1, verbose=0)
    assert model.predict(batches, verbose=0).shape == (40, 1)
    assert batches.as_dataset().cardinality().numpy() == len(batches)


def test_misuse_raises_clear_errors():
    with pytest.raises(ValueError, match='inputs must be "dict" or "input_ids"'):
        TextBatches([[1]], inputs="ids")
    with pytest.raises(ValueError, match="batch_size must be a positive int"):
        TextBatches([[1]], batch_size=0)
