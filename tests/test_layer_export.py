"""Models holding ``kvec.layers.TextVectorization`` saved for serving (``model.export``,
``tf.saved_model.save``) and served by ``tf.saved_model.load(...).serve`` in a fresh process, with
the in-process model's outputs; a layer that cannot be served stops the save with a kvec error."""

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
from kvec.errors import ExportError  # noqa: E402
from kvec.layers import TextVectorization, op_library  # noqa: E402
from kvec.normalizers import BertNormalizer  # noqa: E402
from kvec.pipeline import Pipeline  # noqa: E402
from kvec.presets import keras_subword  # noqa: E402
from kvec.pretokenizers import BertPreTokenizer  # noqa: E402
from kvec.trainers import WordPieceTrainer  # noqa: E402

# the op library needs a C++ compiler; without one the layer falls back (the last test) and these skip
needs_ops = pytest.mark.skipif(op_library.load() is None, reason=f"no op library here: {op_library.failure()}")

TRAIN = ["the cat sat on the mat", "The dog's bone!", "naïve café, x-y z", "[UNK] and [PAD] are special"] * 6
TEXTS = ["the cat ate the bone", "", "NAÏVE dogs [PAD] sat?", "unknown wörds: ǅ ß İ"]

SERVE_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import tensorflow as tf
    import kvec.layers  # registers kvec's ops
    served = tf.saved_model.load(sys.argv[1])
    outputs = served.serve(tf.constant(json.loads(sys.argv[2])))
    if isinstance(outputs, tf.RaggedTensor):
        print(json.dumps(outputs.to_list()))
    else:
        print(json.dumps(np.asarray(outputs).tolist()))
    """
)


def served_in_a_fresh_process(path, texts):
    """What the SavedModel at ``path`` serves for ``texts``, loaded by another Python process, as lists."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    run = subprocess.run(
        [sys.executable, "-c", SERVE_SCRIPT, path, json.dumps(texts)], capture_output=True, text=True, env=env
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


class ListModel(keras.Model):
    """A subclassed model that tracks its layers in a list, as Keras' own export tests do."""

    def __init__(self, layer_list):
        super().__init__()
        self.layer_list = layer_list

    def call(self, inputs):
        for layer in self.layer_list:
            inputs = layer(inputs)
        return inputs


def test_a_subclassed_model_tracking_a_keras_style_layer_in_a_list_exports_and_serves(tmp_path):
    # tf.saved_model.save traces the model's default signature with float32 inputs: the layer casts
    # them, as Keras' does, instead of refusing them
    layer = TextVectorization()
    layer.adapt(["one two", "three four", "five six"])
    model = ListModel([layer, keras.layers.Embedding(10, 4), keras.layers.Dense(1)])
    texts = ["one two three four", "six five seven"]
    expected = np.asarray(model(tf.constant(texts)))
    path = str(tmp_path / "exported")
    model.export(path, input_signature=[tf.TensorSpec([None], tf.string)])
    np.testing.assert_allclose(served_in_a_fresh_process(path, texts), expected, rtol=1e-6)


def test_a_layer_that_runs_python_stops_the_save_with_an_export_error(tmp_path):
    # an analyzer of the user's own is Python the graph cannot hold
    layer = TextVectorization(tokenizer=Tokenizer(analyzer=str.split), output_sequence_length=4)
    layer.adapt(["我爱 北京", "北京 天安门"])
    inputs = keras.Input(shape=(), dtype="string")
    model = keras.Model(inputs, keras.layers.Embedding(layer.vocabulary_size(), 2)(layer(inputs)))
    for save in (model.export, lambda path: tf.saved_model.save(model, path)):
        path = tmp_path / "exported"
        with pytest.raises(ExportError, match="tf.numpy_function.*SavedModel cannot hold"):
            save(str(path))
        assert not (path / "saved_model.pb").exists()


def trained_one_step(model, texts):
    model.compile(optimizer="sgd", loss="mse")
    targets = np.zeros((len(texts), *model.output_shape[1:]), dtype="float32")
    model.fit(tf.constant(texts), targets, batch_size=len(texts), epochs=1, verbose=0)
    return model


@needs_ops
@pytest.mark.parametrize(
    "arguments",
    [
        {"output_sequence_length": 12},
        {"ragged": True},
        {"output_mode": "multi_hot"},
        {"output_mode": "count", "max_tokens": 200, "pad_to_max_tokens": True},
        {"output_mode": "tf_idf"},
    ],
    ids=["int", "ragged", "multi_hot", "count", "tf_idf"],
)
def test_a_wordpiece_model_exports_and_serves_its_outputs_in_a_fresh_process(arguments, tmp_path):
    exported_and_served(
        TextVectorization(tokenizer=keras_subword("wordpiece", 120), **arguments), TRAIN, TEXTS, tmp_path
    )


def exported_and_served(layer, train, texts, tmp_path):
    """A model around ``layer`` (adapted to ``train``; trained one step unless it outputs ragged ids)
    serves ``texts`` from a fresh process as it does here; the served outputs."""
    layer.adapt(train)
    inputs = keras.Input(shape=(), dtype="string")
    x = layer(inputs)
    if layer._ragged:
        model = keras.Model(inputs, x)  # the ids themselves, ragged
    else:
        if layer._output_mode == "int":
            x = keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(layer.vocabulary_size(), 4)(x))
        model = trained_one_step(keras.Model(inputs, keras.layers.Dense(2)(x)), train)
    outputs = model(tf.constant(texts))
    path = str(tmp_path / "exported")
    model.export(path)
    served = served_in_a_fresh_process(path, texts)
    if isinstance(outputs, tf.RaggedTensor):
        assert served == outputs.to_list()
    else:
        np.testing.assert_allclose(served, np.asarray(outputs), rtol=1e-6)
    return served


@needs_ops
@pytest.mark.parametrize(
    "tokenizer, arguments",
    [
        (lambda: Tokenizer(num_words=12, oov_token="<unk>"), {"output_sequence_length": 8}),
        (lambda: Tokenizer(char_level=True), {"output_mode": "multi_hot"}),
        (lambda: keras_subword("bpe", 120), {"output_sequence_length": 8}),
        (lambda: keras_subword("bytelevel_bpe", 300), {"output_mode": "count"}),
        (lambda: keras_subword("unigram", 300), {"output_sequence_length": 8}),
        (lambda: Tokenizer(subword="unigram", vocab_size=300, num_words=250), {"output_mode": "tf_idf"}),
        (lambda: Tokenizer(subword="wordpiece", vocab_size=100, oov_token="<unk>"), {"output_sequence_length": 8}),
        (lambda: BertPreTokenizer(), {"output_sequence_length": 8, "ngrams": 2}),
        (
            lambda: (bert_uncased(), WordPieceTrainer(vocab_size=100, special_tokens=["[PAD]", "[UNK]"])),
            {"ragged": True},
        ),
    ],
    ids=[
        "words_num_words_oov",
        "char_level_multi_hot",
        "subword_bpe",
        "bytelevel_bpe_count",
        "unigram_sentencepiece_style",
        "keras_unigram_tf_idf",
        "keras_subword",
        "splitter",
        "bert_uncased_ragged",
    ],
)
def test_keras_tokenizer_subword_and_splitter_models_export_and_serve_in_a_fresh_process(
    tokenizer, arguments, tmp_path
):
    exported_and_served(TextVectorization(tokenizer=tokenizer(), **arguments), TRAIN, TEXTS, tmp_path)


CHINESE_TRAIN = ["我爱北京天安门", "自然语言处理很有趣", "我们在北京学习机器学习", "New York的iPhone很贵"] * 4
CHINESE_TEXTS = ["我在New York学习自然语言处理", "", "北京大学生的iPhone", "没见过的词：龘靐"]


def bert_uncased():
    """BERT's uncased normalizer (NFD, nonspacing marks removed, lowercase) and pre-tokenizer."""
    return Pipeline(None, normalizer=BertNormalizer(), pre_tokenizer=BertPreTokenizer())


def jieba_pipeline(mode):
    pipeline = Pipeline(None, pre_tokenizer=Jieba(mode=mode))
    return pipeline, WordPieceTrainer(vocab_size=150, special_tokens=["[PAD]", "[UNK]"])


@needs_ops
@pytest.mark.parametrize(
    "tokenizer, arguments",
    [
        (lambda: Jieba(user_dict=["New York", "自然语言处理"]), {"output_sequence_length": 8}),
        (lambda: Jieba(mode="search", hmm=False), {"ragged": True}),
        (lambda: Tokenizer(analyzer=Jieba(mode="full"), num_words=20, oov_token="?"), {"output_mode": "multi_hot"}),
        (lambda: jieba_pipeline("accurate"), {"output_sequence_length": 8}),
        (lambda: jieba_pipeline("search"), {"output_mode": "tf_idf"}),
    ],
    ids=["splitter_user_words", "splitter_search_ragged", "keras_analyzer_multi_hot", "pipeline", "pipeline_tf_idf"],
)
def test_jieba_layers_export_and_serve_in_a_fresh_process(tokenizer, arguments, tmp_path):
    layer = TextVectorization(tokenizer=tokenizer(), **arguments)
    served = exported_and_served(layer, CHINESE_TRAIN, CHINESE_TEXTS, tmp_path)
    if arguments.get("ragged"):  # jieba's words, not one id per text
        assert any(len(row) > 1 for row in served)


@needs_ops
def test_the_op_gives_the_tokenizers_ids_and_leaves_no_python_in_the_graph():
    pipeline, trainer = keras_subword("wordpiece", 120)
    pipeline.train_from_iterator(TRAIN, trainer)
    layer = TextVectorization(tokenizer=pipeline, ragged=True)
    graph = tf.function(layer).get_concrete_function(tf.TensorSpec([None], tf.string)).graph
    kinds = {op.type for op in graph.get_operations()}
    assert "KvecEncode" in kinds and not kinds & {"PyFunc", "PyFuncStateless", "EagerPyFunc"}
    assert layer(tf.constant(TEXTS)).to_list() == [e.ids for e in pipeline.encode_batch(TEXTS)]


@needs_ops
def test_a_subclassed_model_tracking_a_tokenizer_layer_in_a_list_exports_and_serves(tmp_path):
    layer = TextVectorization(tokenizer=keras_subword("wordpiece", 120), output_sequence_length=6)
    layer.adapt(TRAIN)
    model = ListModel([layer, keras.layers.Embedding(layer.vocabulary_size(), 4), keras.layers.Dense(1)])
    expected = np.asarray(model(tf.constant(TEXTS)))
    path = str(tmp_path / "exported")
    model.export(path, input_signature=[tf.TensorSpec([None], tf.string)])
    np.testing.assert_allclose(served_in_a_fresh_process(path, TEXTS), expected, rtol=1e-6)


FALLBACK_SCRIPT = textwrap.dedent(
    """
    import sys, warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import keras
        import tensorflow as tf
        from kvec.errors import ExportError
        from kvec.layers import TextVectorization
        from kvec.presets import keras_subword
        layer = TextVectorization(tokenizer=keras_subword("wordpiece", 60), ragged=True)
        layer.adapt(["the cat sat", "the dog ate"])
        ids = layer(tf.constant(["the cat ate"])).to_list()
        ids_again = layer(tf.constant(["the cat ate"])).to_list()
    assert ids == ids_again == [list(layer.tokenizer.encode("the cat ate").ids)], ids
    kvec_warnings = [w.category.__name__ for w in caught if w.category.__module__.startswith("kvec")]
    assert kvec_warnings == ["OpLibraryWarning"], kvec_warnings
    inputs = keras.Input(shape=(), dtype="string")
    model = keras.Model(inputs, layer(inputs))
    try:
        model.export(sys.argv[1])
    except ExportError as e:
        print("ExportError:", e)
    """
)


def test_without_a_compiler_the_layer_warns_once_runs_python_and_refuses_to_export(tmp_path):
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CXX": str(tmp_path / "no-such-compiler")}
    env["KVEC_CACHE_DIR"] = str(tmp_path / "cache")
    path = tmp_path / "exported"
    run = subprocess.run([sys.executable, "-c", FALLBACK_SCRIPT, str(path)], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "ExportError:" in run.stdout and "op library could not be built" in run.stdout
    assert "no-such-compiler" in run.stdout
    assert not (path / "saved_model.pb").exists()
