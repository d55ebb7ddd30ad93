"""kvec.Tokenizer against keras_preprocessing 1.1.2: every attribute and output exactly equal."""

import json
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kvec
from kvec import text as ktext
from tests.support import Oracle

legacy = Oracle("keras_preprocessing.text")

# Characters that exercise the rules: filters, the split character, apostrophes, case pairs (Greek final
# sigma, dotted I, German sharp s), CJK and its punctuation, combining marks, emoji, control chars.
ALPHABET = st.sampled_from(
    list("abcAB xyz")
    + list('!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n\r')
    + list("'’Σσς İıßẞ")
    + list("中文，。、")
    + ["e\u0301", "\u200d", "😀", "\x00", "\u2028", "Ab", "ab", "Σa"]
)
TEXTS = st.lists(st.lists(ALPHABET, max_size=25).map("".join), max_size=12)
TOKEN_LISTS = st.lists(
    st.lists(st.sampled_from(["a", "B", "b", "Σσ", "中", "", "x y", "<OOV>"]), max_size=8), max_size=6
)
FILTERS = st.sampled_from([ktext.DEFAULT_FILTERS, "", ",.", "ab", "，。,", ktext.DEFAULT_FILTERS + "，。", list("!? ")])
SPLITS = st.sampled_from([" ", ",", "a", "ab", "，", "\n"])
OOV = st.sampled_from([None, "<OOV>", "a", "b"])
NUM_WORDS = st.sampled_from([None, 0, 1, 2, 3, 5, 50])


@st.composite
def configs(draw):
    return dict(
        num_words=draw(NUM_WORDS),
        filters=draw(FILTERS),
        lower=draw(st.booleans()),
        split=draw(SPLITS),
        char_level=draw(st.booleans()),
        oov_token=draw(OOV),
    )


def both(config):
    return kvec.Tokenizer(**config), legacy.Tokenizer(**config)


def assert_same_state(ours, theirs):
    assert type(ours.word_counts) is type(theirs.word_counts)
    assert list(ours.word_counts.items()) == list(theirs.word_counts.items())
    assert dict(ours.word_docs) == dict(theirs.word_docs)
    assert dict(ours.index_docs) == dict(theirs.index_docs)
    assert list(ours.word_index.items()) == list(theirs.word_index.items())
    assert list(ours.index_word.items()) == list(theirs.index_word.items())
    assert ours.document_count == theirs.document_count


def assert_same_outputs(ours, theirs, texts):
    assert ours.texts_to_sequences(texts) == theirs.texts_to_sequences(texts)
    assert list(ours.texts_to_sequences_generator(texts)) == list(theirs.texts_to_sequences_generator(texts))
    sequences = theirs.texts_to_sequences(texts)
    probe = sequences + [[0, 1, 2, 3, 4, 5, 6, 7, 50, 99]]
    if theirs.oov_token is None or theirs.oov_token in theirs.word_index:
        assert ours.sequences_to_texts(probe) == theirs.sequences_to_texts(probe)
    if not theirs.num_words and not theirs.word_index:
        return
    for mode in ("binary", "count", "freq", "tfidf"):
        if mode == "tfidf" and not theirs.document_count:
            continue
        if texts:
            expected = theirs.texts_to_matrix(texts, mode=mode)
            got = ours.texts_to_matrix(texts, mode=mode)
            assert got.dtype == expected.dtype and np.array_equal(got, expected), mode
            assert_same_sparse(ours.texts_to_matrix(texts, mode=mode, sparse=True), expected, mode)
        expected = theirs.sequences_to_matrix(probe, mode=mode)
        got = ours.sequences_to_matrix(probe, mode=mode)
        assert got.dtype == expected.dtype and np.array_equal(got, expected), mode
        assert_same_sparse(ours.sequences_to_matrix(probe, mode=mode, sparse=True), expected, mode)


def assert_same_sparse(got, expected, mode):
    """A CSR matrix holding exactly the dense values, and only the non-zero ones."""
    scipy_sparse = pytest.importorskip("scipy.sparse")
    assert isinstance(got, scipy_sparse.csr_matrix), mode
    assert got.dtype == expected.dtype and got.shape == expected.shape, mode
    assert got.has_sorted_indices and got.nnz == np.count_nonzero(expected), mode
    assert np.array_equal(got.toarray(), expected), mode


@given(config=configs(), corpus=TEXTS, more=TEXTS, probe=TEXTS)
def test_fit_and_transform_match_legacy(config, corpus, more, probe):
    ours, theirs = both(config)
    ours.fit_on_texts(corpus)
    theirs.fit_on_texts(corpus)
    assert_same_state(ours, theirs)
    assert_same_outputs(ours, theirs, corpus + probe)
    # fit_on_texts is cumulative
    ours.fit_on_texts(more)
    theirs.fit_on_texts(more)
    assert_same_state(ours, theirs)
    assert_same_outputs(ours, theirs, more + probe)


@given(config=configs(), corpus=TOKEN_LISTS, texts=TEXTS)
def test_token_list_inputs_match_legacy(config, corpus, texts):
    ours, theirs = both(config)
    mixed = corpus + texts
    ours.fit_on_texts(mixed)
    theirs.fit_on_texts(mixed)
    assert_same_state(ours, theirs)
    assert_same_outputs(ours, theirs, mixed)


def assert_same_ids(ours, theirs, texts):
    """texts_to_sequences (the ids' types too), its generator, and texts_to_matrix where the ids are
    int64s >= 0 (legacy indexes its matrix with them: True picks every column, -1 the last; kvec's
    matrices refuse those and ids past int64) and legacy makes one."""
    expected = theirs.texts_to_sequences(texts)
    typed = [[(type(i), i) for i in row] for row in expected]
    assert [[(type(i), i) for i in row] for row in ours.texts_to_sequences(texts)] == typed
    assert list(ours.texts_to_sequences_generator(texts)) == list(theirs.texts_to_sequences_generator(texts))
    if any(kind is not int or not 0 <= i < 2**63 for row in typed for kind, i in row):
        return
    try:
        matrix = theirs.texts_to_matrix(texts, mode="count")
    except Exception:  # an index the legacy matrix cannot place
        return
    got = ours.texts_to_matrix(texts, mode="count")
    assert got.dtype == matrix.dtype and np.array_equal(got, matrix)


# Changes between calls, which kvec's native encoder (made once per settings and word_index) must follow.
EDITS = st.sampled_from(
    [
        ("num_words", 3),
        ("num_words", None),
        ("oov_token", "b"),
        ("oov_token", None),
        ("filters", ""),
        ("split", ","),
        ("lower", False),
        ("char_level", True),
        ("char_level", False),
        ("index", "a", 1),
        ("index", "zz", 2),
        ("index", "b", 9),
        ("index", "a", True),
        ("index", "a", 1.0),
        ("delete", "a"),
        ("replace", {"a": 1, "b": 2}),
        ("filters in place", list(",b")),
    ]
)


def apply_edit(tokenizer, edit):
    kind, *args = edit
    if kind == "index":
        tokenizer.word_index[args[0]] = args[1]  # in place
    elif kind == "filters in place":
        if isinstance(tokenizer.filters, list):  # the list may be shared by both tokenizers: idempotent
            tokenizer.filters[:] = args[0]
    elif kind == "delete":
        tokenizer.word_index.pop(args[0], None)
    elif kind == "replace":
        tokenizer.word_index = dict(args[0])
    else:
        setattr(tokenizer, kind, args[0])


@given(config=configs(), corpus=TEXTS, edits=st.lists(EDITS, max_size=5))
def test_edits_between_calls_match_legacy(config, corpus, edits):
    ours, theirs = both(config)
    ours.fit_on_texts(corpus)
    theirs.fit_on_texts(corpus)
    texts = corpus + ["a b A B zz", "b,a"]
    assert_same_ids(ours, theirs, texts)
    for edit in edits:
        apply_edit(ours, edit)
        apply_edit(theirs, edit)
        assert_same_ids(ours, theirs, texts)


@pytest.mark.parametrize("value", [True, -1, 2**63, 2**64, 1.5, np.int64(2), "x"])
@pytest.mark.parametrize("oov_token", [None, "<OOV>", "b"])
def test_an_index_that_is_not_an_int64_at_least_0_matches_legacy(value, oov_token):
    ours, theirs = both(dict(oov_token=oov_token))
    for tokenizer in (ours, theirs):
        tokenizer.fit_on_texts(["a b b c"])
        tokenizer.word_index["b"] = value
    assert_same_ids(ours, theirs, ["a b c d", "b"])


def test_an_index_set_in_place_to_an_equal_value_of_another_type_matches_legacy():
    """Each assignment shows, though the new value equals the old one (1 == True == 1.0)."""
    ours, theirs = both(dict(oov_token="<OOV>"))
    for tokenizer in (ours, theirs):
        tokenizer.fit_on_texts(["a b b c"])  # b is 2 (the OOV token is 1)
    texts = ["a b c d", "b"]
    assert_same_ids(ours, theirs, texts)
    for value in (True, 2, 2.0, np.int64(2), "2", 2, 1, True, 1.0, 1):
        ours.word_index["b"] = theirs.word_index["b"] = value
        assert_same_ids(ours, theirs, texts)
    ours.word_index["<OOV>"] = theirs.word_index["<OOV>"] = True
    assert_same_ids(ours, theirs, texts)


def test_settings_changed_after_a_first_call_match_legacy():
    """The native encoder of the first call is not kept past a change of any setting it depends on,
    a list of filters changed in place included."""
    texts = ["A b,c!d b", "d, e", "e!E"]
    changes = [
        ("num_words", 3),
        ("num_words", None),
        ("oov_token", "e"),
        ("oov_token", "<OOV>"),
        ("oov_token", None),
        ("lower", False),
        ("lower", True),
        ("split", ","),
        ("split", " "),
        ("char_level", True),
        ("char_level", False),
        ("filters", "!"),
        ("filters", list("!,")),
    ]
    ours, theirs = both({})
    for tokenizer in (ours, theirs):
        tokenizer.fit_on_texts(texts)
    assert_same_ids(ours, theirs, texts)
    for name, value in changes:
        setattr(ours, name, value)
        setattr(theirs, name, list(value) if isinstance(value, list) else value)  # a list of its own
        assert_same_ids(ours, theirs, texts)
    for filters in (ours.filters, theirs.filters):
        filters.remove(",")  # in place
    assert_same_ids(ours, theirs, texts)


def test_a_text_holding_a_lone_surrogate_matches_legacy():
    ours, theirs = both(dict(oov_token="<OOV>"))
    ours.fit_on_texts(["a b \ud800 b"])
    theirs.fit_on_texts(["a b \ud800 b"])
    assert_same_ids(ours, theirs, ["a \ud800 b", "b a", "\udfff"])


def test_a_batch_shared_between_threads_matches_legacy():
    """Hundreds of texts: kvec's native encoder shares them between threads (one per core)."""
    pick = np.random.default_rng(0).integers
    alphabet = list("abcAB xyz,.!") + ["Σ", "ς", "İ", "中", "😀", "\n"]
    texts = ["".join(alphabet[i] for i in pick(0, len(alphabet), pick(0, 40))) for _ in range(700)]
    for config in (dict(num_words=8, oov_token="<OOV>"), dict(char_level=True), dict(lower=False)):
        ours, theirs = both(config)
        ours.fit_on_texts(texts[:300])
        theirs.fit_on_texts(texts[:300])
        assert_same_ids(ours, theirs, texts)


def test_a_pickled_tokenizer_matches_legacy_after_use():
    import pickle

    ours, theirs = both(dict(num_words=3, oov_token="<OOV>"))
    ours.fit_on_texts(["a b b c", "c c d"])
    theirs.fit_on_texts(["a b b c", "c c d"])
    texts = ["a b c d e", "d"]
    assert_same_ids(ours, theirs, texts)  # the native encoder is made
    copy = pickle.loads(pickle.dumps(ours))
    assert_same_ids(copy, theirs, texts)
    copy.word_index["e"] = 2
    theirs.word_index["e"] = 2
    assert_same_ids(copy, theirs, texts)


@given(corpus=TEXTS, sequences=st.lists(st.lists(st.integers(0, 30), max_size=10), max_size=8))
def test_fit_on_sequences_and_matrices_match_legacy(corpus, sequences):
    ours, theirs = both(dict(num_words=20))
    ours.fit_on_texts(corpus)
    theirs.fit_on_texts(corpus)
    ours.fit_on_sequences(sequences)
    theirs.fit_on_sequences(sequences)
    assert_same_state(ours, theirs)
    for mode in ("binary", "count", "freq", "tfidf"):
        if mode == "tfidf" and not theirs.document_count:
            continue
        expected = theirs.sequences_to_matrix(sequences, mode)
        assert np.array_equal(ours.sequences_to_matrix(sequences, mode), expected)
        assert_same_sparse(ours.sequences_to_matrix(sequences, mode, sparse=True), expected, mode)


def test_padded_array_input_to_sequences_to_matrix():
    ours, theirs = both(dict(num_words=6))
    corpus = ["a b c d e f g", "a a b"]
    ours.fit_on_texts(corpus)
    theirs.fit_on_texts(corpus)
    padded = kvec.pad_sequences(theirs.texts_to_sequences(corpus), maxlen=8)
    # The legacy code needs lists (an array row has no truth value); kvec also takes the array as it is.
    for mode in ("binary", "count", "freq", "tfidf"):
        expected = theirs.sequences_to_matrix(padded.tolist(), mode)
        assert np.array_equal(ours.sequences_to_matrix(padded, mode), expected)
        assert np.array_equal(ours.sequences_to_matrix(list(padded), mode), expected)


def test_ties_keep_first_occurrence_order():
    corpus = ["z y x", "x y z w", "w"]
    ours, theirs = both({})
    ours.fit_on_texts(corpus)
    theirs.fit_on_texts(corpus)
    assert list(ours.word_index) == list(theirs.word_index) == ["z", "y", "x", "w"]


def test_oov_token_that_also_occurs_in_the_corpus():
    ours, theirs = both(dict(oov_token="the", num_words=3))
    corpus = ["the cat the hat", "a cat"]
    ours.fit_on_texts(corpus)
    theirs.fit_on_texts(corpus)
    assert_same_state(ours, theirs)
    assert_same_outputs(ours, theirs, corpus + ["unknown words here"])


def test_unfitted_oov_tokenizer_keeps_the_legacy_none_ids():
    ours, theirs = both(dict(oov_token="<OOV>"))
    assert ours.texts_to_sequences(["a b"]) == theirs.texts_to_sequences(["a b"]) == [[None, None]]


def test_bare_string_is_iterated_character_by_character():
    ours, theirs = both({})
    ours.fit_on_texts("abca")
    theirs.fit_on_texts("abca")
    assert_same_state(ours, theirs)


def test_generator_input():
    corpus = ["one two", "two three", "three"]
    ours, theirs = both(dict(oov_token="?"))
    ours.fit_on_texts(t for t in corpus)
    theirs.fit_on_texts(t for t in corpus)
    assert_same_state(ours, theirs)
    assert ours.texts_to_sequences(iter(corpus)) == theirs.texts_to_sequences(iter(corpus))


def test_nb_words_alias_warns_and_sets_num_words():
    with pytest.warns(UserWarning, match="nb_words"):
        tok = kvec.Tokenizer(nb_words=7)
    assert tok.num_words == 7
    with pytest.raises(TypeError, match="Unrecognized keyword arguments"):
        kvec.Tokenizer(bogus=1)


@given(text=st.lists(ALPHABET, max_size=30).map("".join), filters=FILTERS, lower=st.booleans(), split=SPLITS)
def test_text_to_word_sequence_matches_legacy(text, filters, lower, split):
    assert kvec.text_to_word_sequence(text, filters, lower, split) == legacy.text_to_word_sequence(
        text, filters, lower, split
    )


@given(text=st.lists(ALPHABET, max_size=30).map("".join), n=st.integers(2, 1000))
def test_hashing_helpers_match_legacy(text, n):
    assert kvec.hashing_trick(text, n, hash_function="md5") == legacy.hashing_trick(text, n, hash_function="md5")
    assert kvec.hashing_trick(text, n, hash_function=len) == legacy.hashing_trick(text, n, hash_function=len)
    # Python's salted hash is the same within one process, so one_hot matches in-process.
    assert kvec.one_hot(text, n) == legacy.one_hot(text, n)


def test_analyzer_matches_keras_legacy_copy():
    keras_text = pytest.importorskip("keras.src.legacy.preprocessing.text")
    corpus = ["Hello World", "hello there", ["A", "list", "input"]]
    analyzer = str.split  # no lowercasing: the analyzer replaces it
    ours = kvec.Tokenizer(oov_token="<unk>", analyzer=analyzer)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = keras_text.Tokenizer(oov_token="<unk>", analyzer=analyzer)
    ours.fit_on_texts(corpus)
    theirs.fit_on_texts(corpus)
    assert_same_state(ours, theirs)
    assert ours.texts_to_sequences(corpus + ["Hello you"]) == theirs.texts_to_sequences(corpus + ["Hello you"])


def test_an_analyzer_set_after_a_first_call_matches_keras_legacy_copy():
    """keras_preprocessing 1.1.2 applies an analyzer in fit_on_texts only; Keras' legacy copy (kvec's
    rule) in texts_to_sequences too. The native encoder of the first call is not kept past the change."""
    keras_text = pytest.importorskip("keras.src.legacy.preprocessing.text")
    texts = ["A b,c!d b", "d, e", "e!E"]
    ours = kvec.Tokenizer()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = keras_text.Tokenizer()
    ours.fit_on_texts(texts)
    theirs.fit_on_texts(texts)
    for analyzer in (None, str.split, None):
        ours.analyzer = theirs.analyzer = analyzer
        assert ours.texts_to_sequences(texts) == theirs.texts_to_sequences(texts)
        assert list(ours.texts_to_sequences_generator(texts)) == list(theirs.texts_to_sequences_generator(texts))


def test_get_config_matches_legacy_layout():
    ours, theirs = both(dict(num_words=10, oov_token="<OOV>"))
    for tok in (ours, theirs):
        tok.fit_on_texts(["b a", "a c"])
    mine, reference = ours.get_config(), theirs.get_config()
    assert list(mine) == list(reference)
    for key in mine:
        if key in ("word_docs", "index_docs"):  # legacy order follows string hashing
            assert json.loads(mine[key]) == json.loads(reference[key])
        else:
            assert mine[key] == reference[key]
