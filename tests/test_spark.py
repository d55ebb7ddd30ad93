"""Word counting on Spark in local mode: the same counts, in the same order, as counting in one process,
so a trainer gives the same model."""

import pytest

from kvec.presets import keras_subword
from kvec.pretokenizers import ByteLevel, Whitespace
from kvec.trainers.counting import count_words
from tests.spark_session import shared_session, skip_without_spark
from tests.support import TEXTS

skip_without_spark()

from kvec import spark as kvec_spark  # noqa: E402


@pytest.fixture(scope="module")
def session():
    return shared_session()


@pytest.mark.parametrize("splitter", ["pipeline", "byte_level", "whole_texts"])
def test_spark_counts_equal_in_process_counts(session, splitter):
    if splitter == "pipeline":
        tokenizer, _ = keras_subword("wordpiece", 300)
        expected = count_words(TEXTS, tokenizer.training_words())
    elif splitter == "byte_level":
        tokenizer = ByteLevel()
        expected = count_words(TEXTS, tokenizer)
    else:
        tokenizer = None
        expected = count_words(TEXTS, None)
    rdd = session.sparkContext.parallelize(TEXTS, 5)
    counted = kvec_spark.count_words(rdd, tokenizer)
    assert list(counted.items()) == list(expected.items())  # the order too
    frame = session.createDataFrame([(i, t) for i, t in enumerate(TEXTS)], ["id", "text"]).repartition(3, "id")
    frame = frame.sortWithinPartitions("id")
    by_column = kvec_spark.count_words(session.createDataFrame([(t,) for t in TEXTS], ["text"]), tokenizer)
    assert list(by_column.items()) == list(expected.items())
    assert dict(kvec_spark.count_words(frame, tokenizer, column="text")) == dict(expected)


def test_text_files_train_the_same_model(session, tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    in_process, trainer = keras_subword("bpe", 400)
    in_process.train_from_iterator(TEXTS, trainer)
    on_spark, trainer = keras_subword("bpe", 400)
    on_spark.train_from_counts(kvec_spark.count_words(str(path), on_spark, spark=session), trainer)
    assert on_spark.to_str() == in_process.to_str()


def test_misuse_raises_clear_errors(session):
    with pytest.raises(ValueError, match="string columns \\['a', 'b'\\]: say which with column="):
        kvec_spark.count_words(session.createDataFrame([("x", "y")], ["a", "b"]), Whitespace())
    with pytest.raises(TypeError, match="data must be an RDD, a DataFrame or paths, got int"):
        kvec_spark.count_words(3, Whitespace())
    with pytest.raises(TypeError, match="tokenizer must be a kvec pipeline or a pre-tokenizer"):
        kvec_spark.count_words(session.sparkContext.parallelize(["a"]), 3)
