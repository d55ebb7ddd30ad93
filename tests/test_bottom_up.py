"""Google's bottom-up WordPiece learner: the identical vocabulary list to tensorflow_text's learner."""

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec.trainers import BottomUpWordPieceTrainer, learn_vocabulary
from tests.support import Oracle

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
learner = Oracle("tensorflow_text.tools.wordpiece_vocab.wordpiece_tokenizer_learner_lib")

WORD_COUNTS = st.dictionaries(
    st.text(alphabet="abcdé中", min_size=1, max_size=7), st.integers(0, 60), min_size=1, max_size=40
)
OPTIONS = st.fixed_dictionaries(
    dict(
        vocab_size=st.integers(1, 60),
        reserved_tokens=st.sampled_from([[], ["[UNK]", "[PAD]"], ["ab", "[UNK]"]]),
        lower_thresh=st.sampled_from([None, 0, 1, 5, 10]),
        upper_thresh=st.sampled_from([None, 50, 10_000_000]),
        num_iterations=st.integers(0, 4),
        max_token_length=st.sampled_from([2, 3, 50]),
        max_unique_chars=st.sampled_from([2, 3, 1000]),
        max_input_tokens=st.sampled_from([-1, 5, 5_000_000]),
        slack_ratio=st.sampled_from([0.0, 0.05, 0.5]),
        include_joiner_token=st.booleans(),
        joiner=st.sampled_from(["##", "@"]),
    )
)


@settings(max_examples=150)
@given(word_counts=WORD_COUNTS, options=OPTIONS)
def test_vocabulary_equals_tensorflow_text(word_counts, options):
    assert learn_vocabulary(word_counts, **options) == learner.learn(dict(word_counts), **options)


def test_defaults_on_a_real_text_equal_tensorflow_text():
    import codecs
    import this
    from collections import Counter

    import regex

    words = Counter(regex.findall(r"\w+|[^\w\s]", codecs.decode(this.s, "rot13").lower()))
    for vocab_size in (40, 100, 400):
        assert learn_vocabulary(words, vocab_size, ["[PAD]", "[UNK]"], lower_thresh=1) == learner.learn(
            dict(words), vocab_size, ["[PAD]", "[UNK]"], lower_thresh=1
        )


def test_trainer_builds_a_wordpiece_model():
    trainer = BottomUpWordPieceTrainer(vocab_size=30, reserved_tokens=["[UNK]"], lower_thresh=1)
    model = trainer.train_from_counts({"low": 20, "lower": 12, "lowest": 11, "new": 15})
    assert model.vocab["[UNK]"] == 0
    pieces = model.tokenize("lowest")
    assert "[UNK]" not in pieces and "".join(p.removeprefix("##") for p in pieces) == "lowest"
    assert model.tokenize("xyz") == ["[UNK]"]


def test_bad_input():
    with pytest.raises(ValueError, match="word_counts is empty"):
        learn_vocabulary({}, 10)
    with pytest.raises(TypeError, match="the count of 'a' must be an int, got str"):
        learn_vocabulary({"a": "3"}, 10)


@settings(max_examples=60)
@given(
    word_counts=st.dictionaries(
        st.text(alphabet="ab#@", min_size=1, max_size=6), st.integers(1, 40), min_size=1, max_size=25
    ),
    joiner=st.sampled_from(["##", "#", "a"]),
    vocab_size=st.integers(1, 30),
)
def test_words_containing_the_joiner_equal_tensorflow_text(word_counts, joiner, vocab_size):
    # such words can spell a joined token, so these take the string-keyed rounds
    options = dict(vocab_size=vocab_size, reserved_tokens=[], lower_thresh=1, joiner=joiner)
    assert learn_vocabulary(word_counts, **options) == learner.learn(dict(word_counts), **options)


@pytest.mark.parametrize("word_counts", [{"abcd": 0, "bc": 0}, {"abcd": 0, "bcd": 1}, {"abcd": 1, "abx": 2}])
def test_threshold_zero_keeps_prefixes_counted_zero_as_tensorflow_text(word_counts):
    # at a threshold <= 0 the prefixes whose discounted count is 0 ("ab", "abc") are tokens too
    for bounds in (dict(lower_thresh=0, upper_thresh=None), dict(lower_thresh=None, upper_thresh=0)):
        options = dict(vocab_size=3, reserved_tokens=[], **bounds)
        assert learn_vocabulary(word_counts, **options) == learner.learn(dict(word_counts), **options)
