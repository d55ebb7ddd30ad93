"""A subword pipeline as the Keras Tokenizer's analyzer equals keras_preprocessing on the same token lists."""

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

import kvec
from kvec import decoders
from kvec.pipeline import Tokenizer
from kvec.pretokenizers import ByteLevel
from kvec.trainers import BpeTrainer
from tests.support import Oracle

legacy = Oracle("keras_preprocessing.text")

CORPUS = ["The cat sat on the mat.", "The dog ate the cat's food!", "Cats and dogs, dogs and cats."] * 3
BPE = Tokenizer(None, pre_tokenizer=ByteLevel(), decoder=decoders.ByteLevel())
BPE.train_from_iterator(CORPUS, BpeTrainer(vocab_size=300, initial_alphabet=ByteLevel.alphabet()))


@settings(max_examples=40)
@given(
    texts=st.lists(st.sampled_from(CORPUS + ["unseen zebra", "", "cat cat cat"]), max_size=8),
    num_words=st.sampled_from([None, 5, 50]),
    oov=st.sampled_from([None, "<OOV>"]),
)
@example(texts=[""], num_words=None, oov=None)  # no vocabulary: both refuse to build matrices
def test_bpe_analyzer_equals_legacy_on_token_lists(texts, num_words, oov):
    ours = kvec.Tokenizer(num_words=num_words, oov_token=oov, analyzer=BPE)
    theirs = legacy.Tokenizer(num_words=num_words, oov_token=oov, lower=False)
    ours.fit_on_texts(texts)
    theirs.fit_on_texts([BPE.analyze(t) for t in texts])
    assert list(ours.word_index.items()) == list(theirs.word_index.items())
    assert list(ours.word_counts.items()) == list(theirs.word_counts.items())
    probe = CORPUS + ["a new sentence"]
    assert ours.texts_to_sequences(probe) == theirs.texts_to_sequences([BPE.analyze(t) for t in probe])
    expected = outcome(theirs.texts_to_matrix, [BPE.analyze(t) for t in probe], "tfidf")
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


def test_sequences_to_texts_uses_the_pipeline_decoder():
    tokenizer = kvec.Tokenizer(analyzer=BPE)
    tokenizer.fit_on_texts(CORPUS)
    # the pipeline's own decoding (ByteLevel with its prefix space, as HF decodes it)
    assert tokenizer.sequences_to_texts(tokenizer.texts_to_sequences(CORPUS[:3])) == [
        BPE.decode(BPE.encode(t).ids) for t in CORPUS[:3]
    ]
    assert [t.strip() for t in tokenizer.sequences_to_texts(tokenizer.texts_to_sequences(CORPUS[:3]))] == CORPUS[:3]


def test_json_round_trip_keeps_the_pipeline_analyzer():
    tokenizer = kvec.Tokenizer(num_words=40, oov_token="<OOV>", analyzer=BPE)
    tokenizer.fit_on_texts(CORPUS)
    loaded = kvec.tokenizer_from_json(tokenizer.to_json())
    probe = CORPUS + ["unseen zebra"]
    assert loaded.texts_to_sequences(probe) == tokenizer.texts_to_sequences(probe)
    assert loaded.sequences_to_texts(loaded.texts_to_sequences(probe)) == tokenizer.sequences_to_texts(
        tokenizer.texts_to_sequences(probe)
    )
    loaded.fit_on_texts(["the cat"])  # fits further with the same analyzer
    tokenizer.fit_on_texts(["the cat"])
    assert loaded.word_index == tokenizer.word_index


def test_json_round_trip_keeps_a_jieba_analyzer(tmp_path):
    from kvec.chinese import Jieba

    tokenizer = kvec.Tokenizer(analyzer=Jieba(user_dict=["自然语言处理"], cache_dir=str(tmp_path)))
    tokenizer.fit_on_texts(["我爱自然语言处理", "北京天安门"])
    loaded = kvec.tokenizer_from_json(tokenizer.to_json())
    assert isinstance(loaded.analyzer, Jieba) and loaded.analyzer.user_words == tokenizer.analyzer.user_words
    loaded.analyzer.cache_dir = str(tmp_path)
    assert loaded.texts_to_sequences(["自然语言处理在北京"]) == tokenizer.texts_to_sequences(["自然语言处理在北京"])


def test_a_plain_callable_analyzer_is_not_stored_and_legacy_json_loads():
    tokenizer = kvec.Tokenizer(analyzer=str.split)
    tokenizer.fit_on_texts(["a b"])
    assert "analyzer" not in tokenizer.get_config()
    theirs = legacy.Tokenizer()
    theirs.fit_on_texts(["a b b"])
    assert kvec.tokenizer_from_json(theirs.to_json()).word_index == theirs.word_index
