"""``kvec.layers.TextVectorization``: Keras' outputs without a tokenizer, the tokenizer's ids with one,
in ``tf.data`` and in models, and a ``.keras`` round trip in a fresh process."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from kvec import Tokenizer  # noqa: E402
from kvec.chinese import Jieba  # noqa: E402
from kvec.errors import FormatError  # noqa: E402
from kvec.layers import TextVectorization  # noqa: E402
from kvec.pipeline import Pipeline  # noqa: E402
from kvec.presets import keras_subword  # noqa: E402
from kvec.pretokenizers import Whitespace  # noqa: E402

WORDS = ["the", "cat", "sat", "on", "mat", "The", "DOG", "dog's", "ate", "a", "b", "c", "x-y", "z!", "é", "naïve"]


def corpus(seed, n=40):
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=rng.integers(0, 12))) + rng.choice(["", ".", "  ", "?!"]) for _ in range(n)]


def dense(x):
    if isinstance(x, tf.SparseTensor):
        x = tf.sparse.to_dense(x)
    if isinstance(x, tf.RaggedTensor):
        return x.to_list()
    return np.asarray(x).tolist()


KERAS_CASES = [
    {},
    {"output_sequence_length": 5},
    {"max_tokens": 6, "output_sequence_length": 7},
    {"ngrams": 2, "standardize": "lower"},
    {"split": "character", "standardize": None},
    {"ragged": True},
    {"output_mode": "multi_hot"},
    {"output_mode": "multi_hot", "max_tokens": 8, "pad_to_max_tokens": True},
    {"output_mode": "count", "ngrams": (1, 3)},
    {"output_mode": "tf_idf"},
    {"output_mode": "tf_idf", "max_tokens": 5, "pad_to_max_tokens": True},
    {"output_mode": "multi_hot", "sparse": True},
    {"output_mode": "count", "sparse": True, "standardize": "strip_punctuation"},
    {"output_mode": "one_hot", "split": None},
]


@pytest.mark.parametrize(
    "arguments", KERAS_CASES, ids=lambda a: ",".join(f"{k}={v}" for k, v in a.items()) or "defaults"
)
@pytest.mark.parametrize("seed", [0, 1])
def test_without_a_tokenizer_the_layer_is_keras(arguments, seed):
    train, test = corpus(seed), corpus(seed + 100)
    ours, theirs = TextVectorization(**arguments), keras.layers.TextVectorization(**arguments)
    ours.adapt(tf.data.Dataset.from_tensor_slices(train).batch(7))
    theirs.adapt(tf.data.Dataset.from_tensor_slices(train).batch(7))
    assert ours.get_vocabulary() == theirs.get_vocabulary()
    assert ours.vocabulary_size() == theirs.vocabulary_size()
    assert dense(ours(test)) == dense(theirs(test))
    assert dense(ours(tf.constant(test[:3]))) == dense(theirs(tf.constant(test[:3])))
    # in-graph: the whole pipeline traces into one tf.function
    graph = tf.function(lambda x: ours(x))
    assert dense(graph(tf.constant(test))) == dense(theirs(test))


def ids_of(tokenizer, texts):
    if isinstance(tokenizer, Pipeline):
        return [e.ids for e in tokenizer.encode_batch(texts)]
    return tokenizer.texts_to_sequences(texts)


def pad(rows, length=None):
    length = max(map(len, rows), default=0) if length is None else length
    return [row[:length] + [0] * (length - len(row[:length])) for row in rows]


@pytest.fixture(scope="module")
def segmenter():
    return Jieba()


@pytest.mark.parametrize(
    "kind", ["keras", "keras_oov", "subword_bpe", "wordpiece", "bytelevel_bpe", "unigram", "bare_model"]
)
def test_a_tokenizer_gives_its_own_ids(kind):
    train, test = corpus(3, 60), corpus(4)
    if kind == "keras":
        tokenizer = Tokenizer(num_words=9)
    elif kind == "keras_oov":
        tokenizer = Tokenizer(oov_token="<unk>")
    elif kind == "subword_bpe":
        tokenizer = Tokenizer(subword="bpe", vocab_size=70)
    elif kind == "bare_model":
        pipeline, trainer = keras_subword("wordpiece", 60)
        pipeline.train_from_iterator(train, trainer)
        tokenizer = pipeline.model
    else:
        tokenizer = keras_subword(kind, {"bytelevel_bpe": 300, "unigram": 300}.get(kind, 60))
    layer = TextVectorization(tokenizer=tokenizer, output_sequence_length=9)
    layer.adapt(train)
    inner = layer.tokenizer
    if isinstance(inner, Pipeline) and kind == "bare_model":
        assert inner.model is tokenizer
    expected = ids_of(inner, test)
    assert dense(layer(test)) == pad(expected, 9)
    assert dense(layer(np.array(test, dtype=object))) == pad(expected, 9)
    ragged = TextVectorization(tokenizer=inner, ragged=True)
    assert dense(ragged(test)) == expected
    assert dense(TextVectorization(tokenizer=inner)(test)) == pad(expected)
    assert dense(layer(test[1])) == pad(expected[1:2], 9)[0]  # a scalar text
    vocabulary = layer.get_vocabulary()
    assert all(0 <= i < len(vocabulary) for row in expected for i in row)
    assert layer.vocabulary_size() == len(vocabulary)


def test_counting_modes_over_ids_follow_the_ids():
    train, test = corpus(5, 50), corpus(6)
    pipeline, trainer = keras_subword("wordpiece", 60)
    pipeline.train_from_iterator(train, trainer)
    expected = [e.ids for e in pipeline.encode_batch(test)]
    depth = pipeline.get_vocab_size()
    counts = np.zeros((len(test), depth), np.float32)
    for row, ids in enumerate(expected):
        np.add.at(counts[row], ids, 1)
    multi = TextVectorization(tokenizer=pipeline, output_mode="multi_hot")
    assert dense(multi(test)) == (counts > 0).astype(np.float32).tolist()
    count = TextVectorization(tokenizer=pipeline, output_mode="count", sparse=True)
    assert isinstance(count(test), tf.SparseTensor) and dense(count(test)) == counts.tolist()
    sparse_multi = TextVectorization(tokenizer=pipeline, output_mode="multi_hot", sparse=True)
    assert isinstance(sparse_multi(test), tf.SparseTensor)
    assert dense(sparse_multi(test)) == (counts > 0).astype(np.float32).tolist()
    wide = TextVectorization(tokenizer=pipeline, output_mode="count", max_tokens=depth + 5, pad_to_max_tokens=True)
    assert np.asarray(wide(test)).shape == (len(test), depth + 5)
    tfidf = TextVectorization(tokenizer=pipeline, output_mode="tf_idf")
    tfidf.adapt(train)
    documents = np.zeros(depth)
    for ids in (e.ids for e in pipeline.encode_batch(train)):
        documents[list(set(ids))] += 1
    idf = np.log(1 + len(train) / (1 + documents))
    np.testing.assert_allclose(np.asarray(tfidf(test)), counts * idf, rtol=1e-6)
    sparse_tfidf = TextVectorization(tokenizer=pipeline, output_mode="tf_idf", sparse=True)
    sparse_tfidf.adapt(train)
    assert isinstance(sparse_tfidf(test), tf.SparseTensor)
    np.testing.assert_allclose(np.asarray(dense(sparse_tfidf(test))), counts * idf, rtol=1e-6)


def test_a_jieba_layer_looks_up_jieba_words(segmenter):
    train = ["我爱自然语言处理", "我爱北京天安门", "自然语言处理很有趣", "北京 的 天安门"]
    test = ["我爱北京", "语言处理有趣吗", "天安门"]
    layer = TextVectorization(tokenizer=segmenter, output_sequence_length=6)
    layer.adapt(train)
    vocabulary = [str(t) for t in layer.get_vocabulary()]
    counts = {}
    for text in train:
        for word in segmenter(text):
            counts[word] = counts.get(word, 0) + 1
    assert vocabulary[:2] == ["", "[UNK]"] and sorted(vocabulary[2:]) == sorted(counts)
    assert [counts[w] for w in vocabulary[2:]] == sorted(counts.values(), reverse=True)
    index = {w: i for i, w in enumerate(vocabulary)}
    assert dense(layer(test)) == pad([[index.get(w, 1) for w in segmenter(t)] for t in test], 6)


@pytest.mark.parametrize("splitter", ["jieba", "whitespace"])
def test_word_splitters_adapt_on_unbatched_and_batched_datasets(splitter, segmenter):
    texts = corpus(11, 30) + ["我爱北京天安门", "天安门 很 大"]
    tokenizer = segmenter if splitter == "jieba" else Whitespace()
    vocabularies = []
    for data in (texts, tf.data.Dataset.from_tensor_slices(texts), tf.data.Dataset.from_tensor_slices(texts).batch(5)):
        layer = TextVectorization(tokenizer=tokenizer, max_tokens=20)
        layer.adapt(data)
        vocabularies.append([str(t) for t in layer.get_vocabulary()])
    counts = {}
    for text in texts:
        for word in tokenizer.split_words(text):
            counts[word] = counts.get(word, 0) + 1
    assert vocabularies[0] == vocabularies[1] == vocabularies[2]
    assert [counts[w] for w in vocabularies[0][2:]] == sorted(counts.values(), reverse=True)[:18]


def test_the_layer_runs_in_tf_data_with_parallel_calls(segmenter):
    texts = corpus(7, 100)
    for tokenizer in (keras_subword("bpe", 80), Whitespace(), None):
        layer = TextVectorization(tokenizer=tokenizer, output_sequence_length=8)
        layer.adapt(texts)
        eager = dense(layer(texts))
        batched = tf.data.Dataset.from_tensor_slices(texts).batch(16).map(layer, num_parallel_calls=tf.data.AUTOTUNE)
        assert [row for batch in batched for row in dense(batch)] == eager
        single = tf.data.Dataset.from_tensor_slices(texts).map(layer, num_parallel_calls=tf.data.AUTOTUNE)
        assert [dense(row) for row in single] == eager


def test_adapt_reads_arrays_datasets_and_generators():
    texts = corpus(8, 30)
    sources = [
        texts,
        np.array(texts),
        tf.data.Dataset.from_tensor_slices(texts),
        tf.data.Dataset.from_tensor_slices(texts).batch(4),
        (texts[i : i + 5] for i in range(0, len(texts), 5)),
    ]
    results = []
    for source in sources:
        layer = TextVectorization(tokenizer=Tokenizer(oov_token="?"))
        layer.adapt(source)
        results.append(layer.get_vocabulary())
    expected = Tokenizer(oov_token="?")
    expected.fit_on_texts(texts)
    assert results == [[""] + list(expected.word_index)] * len(sources)


MODEL_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import keras, numpy as np
    import kvec.layers  # registers the layer: no custom_objects
    model = keras.models.load_model(sys.argv[1])
    texts = json.loads(sys.argv[2])
    print(json.dumps(np.asarray(model.predict(np.array(texts, dtype=object), verbose=0)).tolist()))
    """
)


@pytest.mark.parametrize("kind", ["wordpiece", "keras", "jieba", "plain", "tf_idf"])
def test_a_saved_model_reloads_in_a_fresh_process_with_the_same_outputs(kind, tmp_path, segmenter):
    train = corpus(9, 60) + ["我爱自然语言处理", "北京天安门"]
    test = corpus(10, 8) + ["我爱北京"]
    arguments = {"output_sequence_length": 10}
    if kind == "wordpiece":
        arguments["tokenizer"] = keras_subword("wordpiece", 90)
    elif kind == "keras":
        arguments["tokenizer"] = Tokenizer(oov_token="<unk>")
    elif kind == "jieba":
        arguments["tokenizer"] = segmenter
    elif kind == "tf_idf":
        arguments = {"tokenizer": keras_subword("wordpiece", 90), "output_mode": "tf_idf"}
    layer = TextVectorization(**arguments)
    layer.adapt(train)
    inputs = keras.Input(shape=(), dtype="string")
    x = layer(inputs)
    if kind != "tf_idf":
        x = keras.layers.Embedding(layer.vocabulary_size(), 4)(x)
        x = keras.layers.GlobalAveragePooling1D()(x)
    outputs = keras.layers.Dense(2)(x)
    model = keras.Model(inputs, outputs)
    expected = np.asarray(model.predict(np.array(test, dtype=object), verbose=0))
    path = str(tmp_path / "model.keras")
    model.save(path)
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    run = subprocess.run(
        [sys.executable, "-c", MODEL_SCRIPT, path, json.dumps(test)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    np.testing.assert_allclose(np.array(json.loads(run.stdout.strip().splitlines()[-1])), expected, rtol=1e-6)


def test_sequential_models_train_with_the_layer_inside():
    texts = ["good great fine", "bad awful poor", "great good", "awful bad"] * 8
    labels = np.array([1, 0, 1, 0] * 8)
    layer = TextVectorization(tokenizer=keras_subword("wordpiece", 40), output_sequence_length=4)
    layer.adapt(texts)
    model = keras.Sequential(
        [
            layer,
            keras.layers.Embedding(layer.vocabulary_size(), 8),
            keras.layers.GlobalAveragePooling1D(),
            keras.layers.Dense(1),
        ]
    )
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss=keras.losses.BinaryCrossentropy(from_logits=True))
    dataset = tf.data.Dataset.from_tensor_slices((texts, labels)).batch(8)
    history = model.fit(dataset, epochs=15, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0] / 2


def test_misuse_raises_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="tokenizer= replaces split="):
        TextVectorization(tokenizer=Tokenizer(), split="whitespace")
    with pytest.raises(ValueError, match="ngrams do not apply"):
        TextVectorization(tokenizer=Tokenizer(), ngrams=2)
    with pytest.raises(ValueError, match="vocabulary= and idf_weights= do not apply"):
        TextVectorization(tokenizer=Tokenizer(), vocabulary=["a"])
    with pytest.raises(ValueError, match="one_hot"):
        TextVectorization(tokenizer=Tokenizer(), output_mode="one_hot")
    with pytest.raises(TypeError, match="tokenizer must be a kvec.Tokenizer.*got int"):
        TextVectorization(tokenizer=3)
    with pytest.raises(ValueError, match="call adapt\\(\\) first"):
        TextVectorization(tokenizer=keras_subword("bpe", 50))(["a"])
    with pytest.raises(ValueError, match="set_vocabulary does not apply"):
        TextVectorization(tokenizer=Tokenizer()).set_vocabulary(["a"])
    pipeline, _ = keras_subword("bpe", 50)
    with pytest.raises(ValueError, match="no model and no trainer"):
        TextVectorization(tokenizer=pipeline).adapt(["a b"])
    layer = TextVectorization(tokenizer=Tokenizer())
    layer.adapt(["a b"])
    layer.save_assets(str(tmp_path))
    (tmp_path / "kvec_tokenizer.json").write_text('{"kvec_tokenizer": {"config": 3}}')
    with pytest.raises(FormatError, match="kvec_tokenizer.json"):
        layer.load_assets(str(tmp_path))
    (tmp_path / "kvec_tokenizer.json").write_text("{not json")
    with pytest.raises(FormatError, match="kvec_tokenizer.json: not valid JSON"):
        layer.load_assets(str(tmp_path))


def test_importing_the_portable_layer_on_tensorflow_leaves_the_registered_name_to_the_graph_layer():
    # kvec>TextVectorization names the backend's class; the portable one's module imported on TensorFlow
    # (its docs, its tests) must not take the name, or a .keras file would load without the graph op
    import kvec.layers.portable  # noqa: F401
    from kvec.layers.tf_vectorization import TextVectorization as GraphLayer

    assert keras.saving.get_registered_object("kvec>TextVectorization") is GraphLayer
