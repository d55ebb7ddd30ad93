"""kvec.spark.encode (local[2]) with a Jieba whose dictionary was changed (words added, deleted, tuned,
loaded) gives the ids of one process: the words travel to the executors."""

import pytest

from tests.spark_session import shared_session, skip_without_spark

skip_without_spark()
jieba = pytest.importorskip("jieba")

from kvec import Tokenizer  # noqa: E402
from kvec import spark as kvec_spark  # noqa: E402
from kvec.chinese import Jieba  # noqa: E402
from kvec.pipeline import Pipeline  # noqa: E402
from kvec.trainers import WordPieceTrainer  # noqa: E402
from tests.test_chinese import TRAVEL_TEXTS, edited  # noqa: E402
from tests.test_spark_encode import labelled_frame, single_process_ids  # noqa: E402


@pytest.fixture(scope="module")
def session():
    return shared_session()


@pytest.mark.parametrize("kind", ["keras_analyzer", "pipeline"])
def test_spark_encode_with_an_edited_jieba_equals_one_process(session, kind):
    jieba.dt.check_initialized()
    segmenter, _ = edited(Jieba(), jieba.dt)  # its words are jieba's after the calls
    if kind == "keras_analyzer":
        tok = Tokenizer(analyzer=segmenter)
        tok.fit_on_texts(TRAVEL_TEXTS)
    else:
        tok = Pipeline(None, pre_tokenizer=segmenter)
        tok.train_from_iterator(TRAVEL_TEXTS, WordPieceTrainer(vocab_size=80))
    texts = TRAVEL_TEXTS * 4
    frame, ordered = labelled_frame(session, texts)
    expected = single_process_ids(tok, ordered)
    assert [row.input_ids for row in kvec_spark.encode(frame, tok, column="text").collect()] == expected
