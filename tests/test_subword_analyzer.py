"""A subword pipeline as the Keras Tokenizer's analyzer equals keras_preprocessing on the same token lists."""

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st
from keras_preprocessing import text as legacy

import kvec
from kvec import decoders
from kvec.pipeline import Tokenizer
from kvec.pretokenizers import ByteLevel
from kvec.trainers import BpeTrainer

CORPUS = ["The cat sat on the mat.", "The dog ate the cat's food!", "Cats and dogs, dogs and cats."] * 3
BPE = Tokenizer(None, pre_tokenizer=ByteLevel(), decoder=decoders.ByteLevel())
BPE.train_from_iterator(CORPUS, BpeTrainer(vocab_size=300, initial_alphabet=ByteLevel.alphabet()))


@settings(max_examples=40)
@given(texts=st.lists(st.sampled_from(CORPUS + ["unseen zebra", "", "cat cat cat"]), max_size=8),
       num_words=st.sampled_from([None, 5, 50]), oov=st.sampled_from([None, "<OOV>"]))
@example(texts=[""], num_words=None, oov=None)  # no vocabulary: both refuse to build matrices
def test_bpe_analyzer_equals_legacy_on_token_lists(texts, num_words, oov):
    ours = kvec.Tokenizer(num_words=num_words, oov_token=oov, analyzer=BPE)
    theirs = legacy.Tokenizer(num_words=num_words, oov_token=oov, lower=False)
    ours.fit_on_texts(texts)
    theirs.fit_on_texts([BPE(t) for t in texts])
    assert list(ours.word_index.items()) == list(theirs.word_index.items())
    assert list(ours.word_counts.items()) == list(theirs.word_counts.items())
    probe = CORPUS + ["a new sentence"]
    assert ours.texts_to_sequences(probe) == theirs.texts_to_sequences([BPE(t) for t in probe])
    expected = outcome(theirs.texts_to_matrix, [BPE(t) for t in probe], "tfidf")
    got = outcome(ours.texts_to_matrix, probe, "tfidf")
    if isinstance(expected, Exception):  # no vocabulary and no num_words: both refuse
        assert type(got) is type(expected)
    else:
        assert np.array_equal(got, expected)


def outcome(function, *args):
    try:
        return function(*args)
    except Exception as e:  # compared by type
        return e
