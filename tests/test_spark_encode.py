"""Encoding on Spark (local[2]): every kind of kvec tokenizer gives, row for row and in the input's
order, the ids of single-process ``encode_batch`` / ``texts_to_sequences``, and with ``maxlen`` those
of ``pad_sequences`` with the mask of the real ids."""

import numpy as np
import pytest

from kvec import Tokenizer
from kvec.chinese import Jieba
from kvec.presets import keras_subword
from kvec.sequence import pad_sequences
from tests.spark_session import shared_session, skip_without_spark
from tests.support import TEXTS

skip_without_spark()

from pyspark.errors import PythonException  # noqa: E402

from kvec import spark as kvec_spark  # noqa: E402
from kvec.spark.encoding import padded_ids  # noqa: E402
from kvec.spark.tokenizers import portable, rebuild  # noqa: E402


@pytest.fixture(scope="module")
def session():
    return shared_session()


CHINESE = [
    "我爱北京天安门",
    "自然语言处理是人工智能的一个分支",
    "今天天气很好，我们去公园散步吧。",
    "他说：“研究生命起源需要耐心。”",
    "机器学习模型需要大量数据",
    "",
    "上海和北京都是大城市",
    "Python 与 Keras 一起用来训练模型",
] * 5


def pipeline():
    tok, trainer = keras_subword("bpe", 400)
    tok.train_from_iterator(TEXTS, trainer)
    return tok


def keras_words():
    tok = Tokenizer(num_words=300, oov_token="<OOV>")
    tok.fit_on_texts(TEXTS)
    return tok


def keras_subwords():
    tok = Tokenizer(subword="wordpiece", vocab_size=300)
    tok.fit_on_texts(TEXTS)
    return tok


def keras_jieba():
    tok = Tokenizer(analyzer=Jieba())
    tok.fit_on_texts(CHINESE[:6])  # later texts hold words it has not seen
    return tok


TOKENIZERS = {"pipeline": pipeline, "keras": keras_words, "keras_subword": keras_subwords, "jieba": keras_jieba}


def single_process_ids(tok, texts):
    if isinstance(tok, Tokenizer):
        return tok.texts_to_sequences(texts)
    return [encoding.ids for encoding in tok.encode_batch(texts)]


def labelled_frame(session, texts):
    """A DataFrame of (key, text, label) in 3 partitions, in key order."""
    rows = [(i, text, i % 3) for i, text in enumerate(texts)]
    frame = session.createDataFrame(rows, ["key", "text", "label"]).repartition(3, "key").sortWithinPartitions("key")
    return frame, [row.text for row in frame.collect()]  # the frame's own order


@pytest.mark.parametrize("kind", sorted(TOKENIZERS))
def test_ids_equal_single_process_ids_ragged_and_padded(session, kind):
    tok = TOKENIZERS[kind]()
    texts = CHINESE if kind == "jieba" else TEXTS[:300]
    frame, ordered = labelled_frame(session, texts)
    expected = single_process_ids(tok, ordered)
    assert sum(map(len, expected)) > len(expected)  # the oracle itself says something

    ragged = kvec_spark.encode(frame, tok, column="text").collect()
    assert [row.input_ids for row in ragged] == expected
    assert [(row.key, row.label) for row in ragged] == [(r.key, r.label) for r in frame.collect()]
    assert ragged[0].asDict().keys() == {"key", "label", "input_ids"}

    longest = max(map(len, expected))
    for maxlen, padding, truncating in [(7, "pre", "pre"), (longest + 2, "post", "post"), (5, "post", "pre")]:
        padded = kvec_spark.encode(frame, tok, maxlen=maxlen, padding=padding, truncating=truncating, value=0)
        rows = padded.collect()
        ids = np.array([row.input_ids for row in rows])
        assert ids.tolist() == pad_sequences(expected, maxlen, padding=padding, truncating=truncating).tolist()
        kept = [min(len(e), maxlen) for e in expected]
        mask = pad_sequences([[1] * n for n in kept], maxlen, padding=padding)
        assert [row.attention_mask for row in rows] == mask.tolist()
    assert padded.schema["input_ids"].dataType.simpleString() == "array<int>"
    assert padded.schema["attention_mask"].dataType.simpleString() == "array<tinyint>"


def test_an_rdd_of_str_and_text_files(session, tmp_path):
    tok = keras_words()
    rdd = session.sparkContext.parallelize(TEXTS[:200], 4)
    rows = kvec_spark.encode(rdd, tok, maxlen=12, padding="post", value=9).collect()
    expected = pad_sequences(tok.texts_to_sequences(TEXTS[:200]), 12, padding="post", value=9)
    assert [row.input_ids for row in rows] == expected.tolist()
    path = tmp_path / "texts.txt"
    path.write_text("\n".join(TEXTS[:50]) + "\n", encoding="utf-8")
    from_file = kvec_spark.encode(str(path), tok, spark=session).collect()
    assert [row.input_ids for row in from_file] == tok.texts_to_sequences(TEXTS[:50])


def test_a_pipeline_keeps_its_truncation_but_not_its_batch_padding(session):
    tok = pipeline()
    tok.enable_truncation(max_length=6)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    frame, ordered = labelled_frame(session, TEXTS[:120])
    rows = kvec_spark.encode(frame, tok).collect()
    tok.no_padding()
    assert [row.input_ids for row in rows] == [e.ids for e in tok.encode_batch(ordered)]
    assert max(len(row.input_ids) for row in rows) == 6
    assert tok.truncation is not None  # encoding changed nothing in the caller's tokenizer


def test_bad_arguments_raise_before_spark_runs(session):
    frame = session.createDataFrame([("a b", 1)], ["text", "label"])
    tok = keras_words()
    with pytest.raises(ValueError, match="maxlen must be a positive int or None, got 0"):
        kvec_spark.encode(frame, tok, maxlen=0)
    with pytest.raises(ValueError, match='padding must be "pre" or "post", got \'left\''):
        kvec_spark.encode(frame, tok, maxlen=3, padding="left")
    with pytest.raises(ValueError, match="value must be an int that fits int32"):
        kvec_spark.encode(frame, tok, maxlen=3, value=2**40)
    with pytest.raises(TypeError, match=r"a Jieba splits words but gives no ids: fit a kvec.Tokenizer\(analyzer=Jieba"):
        kvec_spark.encode(frame, Jieba())
    with pytest.raises(ValueError, match="this Tokenizer has an empty word_index: call fit_on_texts first"):
        kvec_spark.encode(frame, Tokenizer())
    with pytest.raises(ValueError, match="this pipeline has no model yet"):
        kvec_spark.encode(frame, keras_subword("bpe", 100)[0])
    with pytest.raises(TypeError, match="tokenizer must be a kvec.Pipeline, a kvec model or a fitted"):
        kvec_spark.encode(frame, "bert")
    with pytest.raises(ValueError, match=r"has no column 'body'; it has \['text', 'label'\]"):
        kvec_spark.encode(frame, tok, column="body")
    with pytest.raises(TypeError, match="column: 'label' must hold strings, it holds bigint"):
        kvec_spark.encode(frame, tok, column="label")
    clash = session.createDataFrame([("a b", [1])], ["text", "input_ids"])
    with pytest.raises(ValueError, match=r"already has columns named \['input_ids'\]"):
        kvec_spark.encode(clash, tok)
    with pytest.raises(TypeError, match="data must be an RDD, a DataFrame or paths, got int"):
        kvec_spark.encode(3, tok)


def test_bad_rows_fail_the_job_with_a_clear_message(session):
    tok = keras_words()
    nulls = session.createDataFrame([("a b",), (None,)], "text string")
    with pytest.raises(PythonException, match="column 'text' holds a null instead of a text"):
        kvec_spark.encode(nulls, tok).collect()
    mixed = session.sparkContext.parallelize(["a b", 7], 1)
    with pytest.raises(PythonException, match="item 1 of the RDD's partition 0 must be a str, got int"):
        kvec_spark.encode(mixed, tok).collect()


# ---- without Spark: the pieces encode is made of ------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_padded_ids_equal_pad_sequences(seed):
    rng = np.random.default_rng(seed)
    rows = [rng.integers(1, 50, size=n).tolist() for n in rng.integers(0, 12, size=40)]
    values = np.array([i for row in rows for i in row], dtype=np.int64)
    lengths = np.array(list(map(len, rows)), dtype=np.int64)
    for maxlen in (1, 5, 13):
        for padding in ("pre", "post"):
            for truncating in ("pre", "post"):
                ids, mask = padded_ids(values, lengths, maxlen, padding, truncating, value=-1)
                expected = pad_sequences(rows, maxlen, padding=padding, truncating=truncating, value=-1)
                assert ids.tolist() == expected.tolist()
                assert mask.sum(axis=1).tolist() == np.minimum(lengths, maxlen).tolist()
                assert (ids[mask == 0] == -1).all()


def test_tokenizers_travel_as_their_json_and_a_custom_analyzer_pickled():
    for make in TOKENIZERS.values():
        tok = make()
        travelled = portable(tok)
        assert travelled.kind == ("keras" if isinstance(tok, Tokenizer) else "pipeline")
        assert single_process_ids(rebuild(travelled), CHINESE + TEXTS[:50]) == single_process_ids(
            tok, CHINESE + TEXTS[:50]
        )
    assert portable(keras_words()).key == portable(keras_words()).key  # the same tokenizer, the same key
    custom = Tokenizer(analyzer=str.split)
    custom.fit_on_texts(TEXTS[:50])
    travelled = portable(custom)
    assert travelled.kind == "pickled"
    assert rebuild(travelled).texts_to_sequences(TEXTS[:50]) == custom.texts_to_sequences(TEXTS[:50])
