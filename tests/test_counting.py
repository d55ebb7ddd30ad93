"""Word counting: the same counts, in the same order, and the same trained model for every n_jobs."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec import decoders
from kvec.pipeline import Tokenizer
from kvec.pretokenizers import ByteLevel, WhitespaceSplit
from kvec.trainers import BpeTrainer
from kvec.trainers.counting import count_words

TEXTS = st.lists(st.text(alphabet="ab cé中\n", max_size=12), max_size=60)


@settings(max_examples=25)
@given(texts=TEXTS, chunk_size=st.integers(1, 7))
def test_counts_and_order_do_not_depend_on_n_jobs(texts, chunk_size):
    serial = count_words(texts, WhitespaceSplit(), n_jobs=1, chunk_size=chunk_size)
    assert serial == Counter(w for t in texts for w in t.split())
    order = list(dict.fromkeys(w for t in texts for w in t.split()))
    assert list(serial) == order
    parallel = count_words(iter(texts), WhitespaceSplit(), n_jobs=2, chunk_size=chunk_size)
    assert list(parallel.items()) == list(serial.items())


def test_trained_models_are_byte_identical_for_n_jobs_1_and_2(tmp_path):
    texts = [f"line {i} with words {i % 7} and {i % 13} ünïcode 中文 {i % 3}" for i in range(3000)]
    saved = []
    for n_jobs in (1, 2):
        tokenizer = Tokenizer(None, pre_tokenizer=ByteLevel(), decoder=decoders.ByteLevel())
        tokenizer.train_from_iterator(
            (t for t in texts), BpeTrainer(vocab_size=320, initial_alphabet=ByteLevel.alphabet()), n_jobs=n_jobs
        )
        saved.append(tokenizer.to_str())
    assert saved[0] == saved[1]


def test_train_from_files(tmp_path):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("low lower\nlowest\r\n", encoding="utf-8")
    second.write_text("newer low\n", encoding="utf-8")
    from_files = Tokenizer(None, pre_tokenizer=WhitespaceSplit())
    from_files.train([first, second], BpeTrainer(vocab_size=30))
    from_texts = Tokenizer(None, pre_tokenizer=WhitespaceSplit())
    from_texts.train_from_iterator(["low lower", "lowest", "newer low"], BpeTrainer(vocab_size=30))
    assert from_files.to_str() == from_texts.to_str()


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_bad_text_names_its_position(n_jobs):
    with pytest.raises(TypeError, match=r"texts\[5\] must be a str, got NoneType"):
        count_words(["a"] * 5 + [None], WhitespaceSplit(), n_jobs=n_jobs, chunk_size=2)


def test_n_jobs_must_be_positive():
    with pytest.raises(ValueError, match="n_jobs must be a positive int or -1"):
        count_words(["a"], None, n_jobs=0)
