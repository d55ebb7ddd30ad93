"""Encoding from 8 threads and from worker processes gives the serial results, for every kind of
tokenizer (the word caches are shared by the threads)."""

from concurrent.futures import ProcessPoolExecutor

import pytest

from kvec import Tokenizer
from kvec.chinese import Jieba
from kvec.presets import keras_subword
from tests.support import TEXTS, in_threads

KINDS = ["wordpiece", "bytelevel_bpe", "unigram", "keras", "keras_jieba"]


def build(kind):
    if kind == "keras":
        tok = Tokenizer(num_words=500, oov_token="?")
        tok.fit_on_texts(TEXTS)
        return tok
    if kind == "keras_jieba":
        tok = Tokenizer(analyzer=Jieba())
        tok.fit_on_texts(TEXTS[:300] + ["我爱北京天安门", "自然语言处理"])
        return tok
    tok, trainer = keras_subword(kind, 500 if kind != "wordpiece" else 300)
    tok.train_from_iterator(TEXTS, trainer)
    return tok


def encode(tok, texts):
    if isinstance(tok, Tokenizer):
        return tok.texts_to_sequences(texts)
    return [e.ids for e in tok.encode_batch(texts)]


def encode_in_worker(args):
    tok, texts = args
    return encode(tok, texts)


@pytest.fixture(scope="module", params=KINDS)
def tokenizer(request):
    return build(request.param)


def batches():
    texts = TEXTS + [t.upper() for t in TEXTS[:500]] + ["我爱北京天安门 " * 3, "", "  "]
    return [texts[i::16] for i in range(16)]


def test_eight_threads_give_the_serial_ids(tokenizer):
    parts = batches()
    serial = [encode(tokenizer, part) for part in parts]
    fresh = build_copy(tokenizer)  # a cold cache, filled by all threads at once
    assert in_threads(lambda part: encode(fresh, part), parts) == serial


def test_worker_processes_give_the_serial_ids(tokenizer):
    parts = batches()[:4]
    with ProcessPoolExecutor(max_workers=2) as pool:
        assert list(pool.map(encode_in_worker, [(tokenizer, part) for part in parts])) == [
            encode(tokenizer, p) for p in parts
        ]


def build_copy(tok):
    import pickle

    return pickle.loads(pickle.dumps(tok))
