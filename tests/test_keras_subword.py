"""kvec.Tokenizer with a trained subword model or a model's own vocabulary: legacy semantics, JSON, HF ids."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kvec
from kvec import normalizers
from kvec.models import WordPiece
from kvec.pipeline import Pipeline
from kvec.pretokenizers import BertPreTokenizer
from tests.support import Oracle

legacy = Oracle("keras_preprocessing.text")
HFTokenizer = Oracle("tokenizers", "Tokenizer")
hf_models = Oracle("tokenizers.models")
hf_normalizers = Oracle("tokenizers.normalizers")
hf_pre_tokenizers = Oracle("tokenizers.pre_tokenizers")

CORPUS = [
    "The quick brown fox jumps over the lazy dog.",
    "Lower, lowest and newest: the widest words win!",
    "Keras tokenizers count words; subword models never miss one.",
    "The dog sleeps, the fox runs, the words wander.",
] * 5
KINDS = ["bpe", "bytelevel_bpe", "wordpiece", "unigram"]
TRAINED = {}


def trained(kind):
    if kind not in TRAINED:
        tokenizer = kvec.Tokenizer(
            subword=kind, vocab_size=300 if kind in ("bytelevel_bpe", "unigram") else 80, oov_token="<OOV>"
        )
        tokenizer.fit_on_texts(CORPUS)
        TRAINED[kind] = tokenizer
    return TRAINED[kind]


@pytest.mark.parametrize("kind", KINDS)
def test_subword_tokenizer_counts_its_tokens_with_legacy_semantics(kind):
    ours = trained(kind)
    theirs = legacy.Tokenizer(oov_token="<OOV>", lower=False)
    theirs.fit_on_texts([ours.analyzer(t) for t in CORPUS])
    assert list(ours.word_counts.items()) == list(theirs.word_counts.items())
    assert ours.word_index == theirs.word_index
    probe = CORPUS[:4] + ["an unseen sentence about zebras"]
    assert ours.texts_to_sequences(probe) == theirs.texts_to_sequences([ours.analyzer(t) for t in probe])


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=25, deadline=None)
@given(
    texts=st.lists(st.text(max_size=30) | st.sampled_from(CORPUS), max_size=5),
    num_words=st.sampled_from([None, 5, 40]),
)
def test_a_list_of_texts_takes_the_native_path_with_the_legacy_rules(kind, texts, num_words):
    # a list of str goes through the pipeline's batch encoder; the legacy rules on the analyzer's tokens
    ours = trained(kind)
    theirs = legacy.Tokenizer(oov_token="<OOV>", lower=False, num_words=num_words)
    theirs.fit_on_texts([ours.analyzer(t) for t in CORPUS])
    saved, ours.num_words = ours.num_words, num_words
    try:
        assert ours.texts_to_sequences(texts) == theirs.texts_to_sequences([ours.analyzer(t) for t in texts])
    finally:
        ours.num_words = saved


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=25, deadline=None)
@given(texts=st.lists(st.text(max_size=30) | st.sampled_from(CORPUS), max_size=6))
def test_fitting_a_list_counts_as_the_legacy_tokenizer_counts_the_analyzer_tokens(kind, texts):
    # a list of str is counted from the pipeline's batch encoder, every later fit adding to the counts
    ours = kvec.text.tokenizer_from_json(trained(kind).to_json())
    theirs = legacy.Tokenizer(oov_token="<OOV>", lower=False)
    theirs.fit_on_texts([ours.analyzer(t) for t in CORPUS])
    ours.fit_on_texts(texts)
    theirs.fit_on_texts([ours.analyzer(t) for t in texts])
    assert list(ours.word_counts.items()) == list(theirs.word_counts.items())
    assert dict(ours.word_docs) == dict(theirs.word_docs)
    assert (ours.word_index, ours.document_count) == (theirs.word_index, theirs.document_count)


@pytest.mark.parametrize("kind", KINDS)
def test_the_model_vocabulary_leaves_no_word_out(kind):
    # counting mode indexes the tokens seen in fitting; the model's own vocabulary covers every word
    ids = kvec.Tokenizer.from_model(trained(kind).analyzer)
    text = "quickest newer widely unmissed wanderers" if kind in ("bpe", "wordpiece") else "Zebras! 42 ünïcödé 😀"
    sequence = ids.texts_to_sequences([text])[0]
    assert 0 not in sequence and all(i in ids.index_word for i in sequence)
    unknown = trained(kind).analyzer.token_to_id("<unk>" if kind == "unigram" else "[UNK]")
    assert unknown is None or unknown not in sequence
    if kind in ("bytelevel_bpe", "unigram"):  # lossless models give the text back
        assert ids.sequences_to_texts([sequence]) == [text.lower()]


@pytest.mark.parametrize("kind", ["bpe", "wordpiece"])
def test_sequences_to_texts_joins_pieces_into_words(kind):
    ours = trained(kind)
    assert ours.sequences_to_texts(ours.texts_to_sequences(["The lazy dog, the widest words!"])) == [
        "the lazy dog the widest words"
    ]


def test_a_later_fit_keeps_the_model_and_adds_counts():
    tokenizer = kvec.Tokenizer(subword="wordpiece", vocab_size=80)
    tokenizer.fit_on_texts(CORPUS[:4])
    model = tokenizer.analyzer
    before = dict(tokenizer.word_counts)
    tokenizer.fit_on_texts(CORPUS[:1])
    assert tokenizer.analyzer is model and tokenizer.document_count == 5
    assert all(tokenizer.word_counts[t] >= c for t, c in before.items())


@pytest.mark.parametrize("kind", KINDS)
def test_json_round_trip_gives_identical_outputs(kind):
    ours = trained(kind)
    loaded = kvec.tokenizer_from_json(ours.to_json())
    probe = CORPUS[:4] + ["an unseen sentence"]
    assert loaded.texts_to_sequences(probe) == ours.texts_to_sequences(probe)
    assert loaded.sequences_to_texts(loaded.texts_to_sequences(probe)) == ours.sequences_to_texts(
        ours.texts_to_sequences(probe)
    )
    untrained = kvec.tokenizer_from_json(
        kvec.Tokenizer(
            subword=kind, vocab_size=300 if kind in ("bytelevel_bpe", "unigram") else 80, oov_token="<OOV>"
        ).to_json()
    )
    untrained.fit_on_texts(CORPUS)
    assert untrained.texts_to_sequences(probe) == ours.texts_to_sequences(probe)


BERT_VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "the",
    "dog",
    "##s",
    "run",
    "##ning",
    "un",
    "##able",
    "a",
    "b",
    ",",
    ".",
    "!",
    "中",
    "é",
    "e",
    "##e",
]


@settings(max_examples=60)
@given(
    texts=st.lists(
        st.lists(
            st.sampled_from(["The", "dogs", "running", "unable", "Été", "中", ",", ".", "!", " ", "x", "ab", "Run"]),
            max_size=8,
        ).map("".join),
        min_size=1,
        max_size=4,
    )
)
def test_model_id_mode_gives_hf_wordpiece_ids(texts):
    vocab = {t: i for i, t in enumerate(BERT_VOCAB)}
    theirs = HFTokenizer(hf_models.WordPiece(vocab, unk_token="[UNK]"))
    theirs.normalizer = hf_normalizers.BertNormalizer()
    theirs.pre_tokenizer = hf_pre_tokenizers.BertPreTokenizer()
    pipeline = Pipeline(WordPiece(vocab), pre_tokenizer=BertPreTokenizer(), normalizer=normalizers.BertNormalizer())
    ours = kvec.Tokenizer.from_model(pipeline)
    assert ours.word_index == {t: i for t, i in vocab.items() if i}
    ours.fit_on_texts(texts)  # counts only: the vocabulary stays the model's
    assert ours.word_index == {t: i for t, i in vocab.items() if i}
    assert ours.texts_to_sequences(texts) == [theirs.encode(t, add_special_tokens=False).ids for t in texts]
    again = kvec.tokenizer_from_json(ours.to_json())
    assert again.uses_model_vocabulary and again.texts_to_sequences(texts) == ours.texts_to_sequences(texts)


def test_bad_arguments():
    with pytest.raises(ValueError, match="subword must be one of"):
        kvec.Tokenizer(subword="bytes")
    with pytest.raises(ValueError, match="give an analyzer or a subword model to train, not both"):
        kvec.Tokenizer(subword="bpe", analyzer=str.split)
    with pytest.raises(TypeError, match="unexpected keyword argument 'merges'"):
        kvec.Tokenizer(subword="bpe", merges=3)
    with pytest.raises(TypeError, match="Unrecognized keyword arguments"):
        kvec.Tokenizer(merges=3)
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str to train the subword model, got list"):
        kvec.Tokenizer(subword="bpe").fit_on_texts(["a", ["b"]])
    with pytest.raises(TypeError, match="model must be a kvec.Pipeline or a kvec model, got dict"):
        kvec.Tokenizer.from_model({"a": 1})


def test_a_bare_model_is_an_analyzer_and_a_vocabulary():
    model = WordPiece({t: i for i, t in enumerate(BERT_VOCAB)})
    counting = kvec.Tokenizer(analyzer=model, lower=False)
    counting.fit_on_texts(["dogs running", "the dogs"])
    assert list(counting.word_index) == ["dog", "##s", "run", "##ning", "the"]
    ids = kvec.Tokenizer.from_model(model)
    assert ids.texts_to_sequences(["the dogs unable x"]) == [[4, 5, 6, 9, 10, 1]]
