"""kvec.skipgrams and kvec.make_sampling_table against keras_preprocessing 1.1.2's.

skipgrams draws from Python's global random, so the comparisons seed random, call one function, note
the result and random's state, seed again and call the other: the results and the states must match.
"""

import contextlib
import io
import random
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kvec
from kvec import sequence as kvec_sequence
from tests.support import Oracle

legacy = Oracle("keras_preprocessing.sequence")  # the tests of kvec's own errors run without it

SEEDS = (
    st.none() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=4)
)


@st.composite
def skipgram_arguments(draw):
    vocabulary_size = draw(st.integers(2, 60))
    # Indices up to vocabulary_size + 2: the legacy code pairs those beyond it as given.
    words = st.integers(0, vocabulary_size + 2)
    sequence = draw(st.lists(words, max_size=40))
    if draw(st.booleans()):
        sequence = np.array(sequence, dtype=draw(st.sampled_from(["int32", "int64"])))
    table = draw(st.sampled_from(["none", "made", "drawn"]))
    if table == "made":
        factor = draw(st.sampled_from([1e-5, 1e-3, 0.05, 0.5]))
        sampling_table = kvec.make_sampling_table(vocabulary_size + 3, sampling_factor=factor)
    elif table == "drawn":
        sampling_table = draw(st.lists(st.floats(0, 1), min_size=vocabulary_size + 3, max_size=vocabulary_size + 3))
    else:
        sampling_table = None
    return dict(
        sequence=sequence,
        vocabulary_size=vocabulary_size,
        window_size=draw(st.integers(0, 6)),
        negative_samples=draw(
            st.sampled_from([0, 0.0, 1e-9, 0.5, 1, 1.0, 2.0, np.float32(0.1), np.float64(0.7), np.int64(2)])
            | st.floats(0, 4)
        ),
        shuffle=draw(st.booleans()),
        categorical=draw(st.booleans()),
        sampling_table=sampling_table,
        seed=draw(SEEDS),
    )


def run_seeded(function, state, kwargs):
    random.seed(state)
    with warnings.catch_warnings():
        # Python 3.11 warns of the float bound (10e6) the legacy code gives randint.
        warnings.simplefilter("ignore", DeprecationWarning)
        result = function(**kwargs)
    return result, random.getstate()


@pytest.mark.parametrize("function", [kvec.skipgrams, kvec_sequence.skipgrams])
@pytest.mark.parametrize("seeded", [True, False], ids=["seed", "no-seed"])
@given(kwargs=skipgram_arguments(), state=st.integers(0, 2**32))
def test_skipgrams_equal_legacy_after_random_seed(function, seeded, kwargs, state):
    if not seeded:
        kwargs["seed"] = None
    expected, expected_state = run_seeded(legacy.skipgrams, state, kwargs)
    got, got_state = run_seeded(function, state, kwargs)
    assert got == expected
    assert got_state == expected_state


@given(skipgram_arguments(), st.integers(0, 2**32))
def test_skipgram_couples_hold_the_sequence_elements(kwargs, state):
    random.seed(state)
    couples, labels = kvec.skipgrams(**kwargs)
    assert len(couples) == len(labels)
    given_types = {type(w) for w in list(kwargs["sequence"])}
    positives = [c for c, label in zip(couples, labels) if label in (1, [0, 1])]
    assert all(type(w) in given_types for couple in positives for w in couple)


@given(st.integers(1, 3000), st.floats(1e-9, 1e3) | st.sampled_from([1e-5, 1, 2, 1e-3]))
def test_make_sampling_table_equals_legacy(size, factor):
    expected = legacy.make_sampling_table(size, sampling_factor=factor)
    got = kvec.make_sampling_table(size, sampling_factor=factor)
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()


def test_make_sampling_table_default_factor_equals_legacy():
    for size in (1, 2, 10, 10_000, np.int64(77)):
        assert kvec.make_sampling_table(size).tobytes() == legacy.make_sampling_table(size).tobytes()
    assert kvec.sequence.make_sampling_table is kvec.make_sampling_table


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(sequence=[1, 2.0], vocabulary_size=5), TypeError, r"sequence\[1\] must be an int word index, got float"),
        (dict(sequence=[1, True], vocabulary_size=5), TypeError, r"sequence\[1\] must be an int word index, got bool"),
        (dict(sequence="abc", vocabulary_size=5), TypeError, "sequence must be a list of word indices, got str"),
        (dict(sequence=[-1, 2], vocabulary_size=5), ValueError, r"sequence\[0\] is -1: word indices are >= 0"),
        (
            dict(sequence=[1, 4], vocabulary_size=5, sampling_table=[1.0] * 3),
            ValueError,
            r"sequence\[1\] is 4, beyond sampling_table \(of length 3\)",
        ),
        (dict(sequence=[1], vocabulary_size=5, sampling_table=0.5), TypeError, "sampling_table must be None or"),
        (dict(sequence=[1], vocabulary_size=5.0), TypeError, "vocabulary_size must be an int, got float"),
        (dict(sequence=[1], vocabulary_size=5, window_size=-1), ValueError, "window_size must be >= 0, got -1"),
        (dict(sequence=[1], vocabulary_size=5, window_size=1.5), TypeError, "window_size must be an int"),
        (dict(sequence=[1], vocabulary_size=5, negative_samples=-1), ValueError, "negative_samples must be a finite"),
        (dict(sequence=[1], vocabulary_size=5, negative_samples=float("nan")), ValueError, "negative_samples"),
        (dict(sequence=[1], vocabulary_size=5, negative_samples="1"), TypeError, "negative_samples must be a number"),
        (dict(sequence=[1], vocabulary_size=5, seed=[1]), TypeError, "seed must be None, an int"),
        (
            dict(sequence=[0, 0], vocabulary_size=1, window_size=1),
            None,
            None,
        ),
    ],
)
def test_skipgrams_bad_arguments(kwargs, error, message):
    if error is None:
        assert kvec.skipgrams(**kwargs) == ([], [])  # only padding: nothing to draw, nothing raised
        return
    with pytest.raises(error, match=message):
        kvec.skipgrams(**kwargs)


def test_skipgrams_without_a_word_to_draw():
    # The legacy code fails inside random.randint here; kvec says which argument leaves nothing to draw.
    with pytest.raises(ValueError, match=r"drawn from \[1, vocabulary_size\), empty for 1"):
        kvec.skipgrams([1, 1], vocabulary_size=1)
    assert kvec.skipgrams([1, 1], vocabulary_size=1, negative_samples=0, shuffle=False) == ([[1, 1], [1, 1]], [1, 1])


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((0,), ValueError, "size must be >= 1, got 0"),
        ((2.0,), TypeError, "size must be an int, got float"),
        ((5, 0.0), ValueError, "sampling_factor must be > 0, got 0.0"),
        ((5, -1e-5), ValueError, "sampling_factor must be > 0"),
        ((5, "1e-5"), TypeError, "sampling_factor must be a number, got str"),
    ],
)
def test_make_sampling_table_bad_arguments(args, error, message):
    with pytest.raises(error, match=message):
        kvec.make_sampling_table(*args)


# A script in the shape of the skip-gram examples of published Keras 2 books: star imports, one sentence,
# skipgrams over its word ids with ``len(word_index)`` as the vocabulary size (one short of the largest
# index), the first couples printed with their words. It seeds nothing: its couples follow random's state.
BOOK_SCRIPT = """\
from keras.preprocessing.text import *
from keras.preprocessing.sequence import skipgrams

sentence = "the cat sat on the warm mat ."
vectorizer = Tokenizer()
vectorizer.fit_on_texts([sentence])
index_of = vectorizer.word_index
word_of = dict((index, word) for word, index in index_of.items())

ids = [index_of[word] for word in text_to_word_sequence(sentence)]
pairs, labels = skipgrams(ids, len(index_of))
print(len(pairs), len(labels))
for (target, context), label in list(zip(pairs, labels))[:8]:
    print(word_of[target], target, word_of[context], context, label)
"""

# The shape of the old Keras example of skip-gram embeddings: a Tokenizer over a corpus, sequences
# padded, a sampling table for frequent words, then skipgrams per sequence into one training set.
EXAMPLE_SCRIPT = """\
import random

import numpy as np
from keras.preprocessing import sequence
from keras.preprocessing.text import Tokenizer

random.seed(1337)
np.random.seed(1337)

max_features = 60
maxlen = 12
corpus = [
    "the quick brown fox jumps over the lazy dog",
    "the dog sleeps and the fox runs into the woods",
    "a lazy afternoon for the old brown dog",
    "foxes and dogs are rarely the best of friends",
    "the woods are quiet when the fox sleeps",
]

tokenizer = Tokenizer(num_words=max_features)
tokenizer.fit_on_texts(corpus)
sequences = sequence.pad_sequences(tokenizer.texts_to_sequences(corpus), maxlen=maxlen, padding="post")
sampling_table = sequence.make_sampling_table(max_features, sampling_factor=0.05)

X, Y = [], []
for seq in sequences:
    couples, labels = sequence.skipgrams(seq, max_features, window_size=4, negative_samples=1.0,
                                         sampling_table=sampling_table)
    X.extend(couples)
    Y.extend(labels)
X = np.array(X, dtype="int32")
Y = np.array(Y, dtype="int32")
print(X.shape, Y.sum())
"""


def run_script(source, random_state):
    namespace: dict = {"__name__": "__main__"}
    out = io.StringIO()
    random.seed(random_state)
    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        warnings.simplefilter("ignore", DeprecationWarning)
        exec(compile(source, "<word2vec script>", "exec"), namespace)
    return namespace, out.getvalue()


def with_legacy_imports(source):
    """Keras 2's keras.preprocessing was keras_preprocessing."""
    return source.replace("keras.preprocessing", "keras_preprocessing")


def with_kvec_imports(source):
    return (
        source.replace("from keras.preprocessing.text import *", "from kvec.text import *")
        .replace("from keras.preprocessing.text import Tokenizer", "from kvec import Tokenizer")
        .replace("from keras.preprocessing.sequence import skipgrams", "from kvec import skipgrams")
        .replace("from keras.preprocessing import sequence", "from kvec import sequence")
    )


@pytest.mark.parametrize("random_state", [0, 7, 2024])
def test_book_skipgram_script_with_kvec_imports(random_state):
    pytest.importorskip("keras_preprocessing.text")
    kvec_source = with_kvec_imports(BOOK_SCRIPT)
    assert "keras" not in kvec_source
    expected, expected_out = run_script(with_legacy_imports(BOOK_SCRIPT), random_state)
    got, got_out = run_script(kvec_source, random_state)
    assert got["pairs"] == expected["pairs"]
    assert got["labels"] == expected["labels"]
    assert got_out == expected_out


def test_keras_example_skipgram_script_with_kvec_imports(monkeypatch):
    pytest.importorskip("keras_preprocessing.text")
    keras = pytest.importorskip("keras")
    # keras_preprocessing's pad_sequences fails on NumPy 2 (np.unicode_); Keras 3 kept that one function.
    monkeypatch.setattr(pytest.importorskip("keras_preprocessing.sequence"), "pad_sequences", keras.utils.pad_sequences)
    kvec_source = with_kvec_imports(EXAMPLE_SCRIPT)
    assert "keras" not in kvec_source
    expected, expected_out = run_script(with_legacy_imports(EXAMPLE_SCRIPT), 0)
    got, got_out = run_script(kvec_source, 0)
    assert len(expected["Y"]) > 0
    assert np.array_equal(got["X"], expected["X"])
    assert np.array_equal(got["Y"], expected["Y"])
    assert np.array_equal(got["sequences"], expected["sequences"])
    assert got_out == expected_out


def test_unseeded_shuffle_needs_no_float_bound(monkeypatch):
    # From Python 3.12 on randint refuses a float bound: the legacy 10e6 fails there, kvec's draw does not.
    integer_randint = random.randint

    def strict_randint(a, b):
        if not isinstance(a, int) or not isinstance(b, int):
            raise TypeError("randint takes ints")
        return integer_randint(a, b)

    random.seed(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Python 3.11's warning of the float bound
        expected = legacy.skipgrams([1, 2, 3, 4], 5)
    monkeypatch.setattr(random, "randint", strict_randint)
    with pytest.raises(TypeError):
        legacy.skipgrams([1, 2, 3, 4], 5)
    random.seed(3)
    assert kvec.skipgrams([1, 2, 3, 4], 5) == expected


def test_where_the_legacy_table_fails_kvec_names_the_argument():
    with pytest.raises(IndexError):
        legacy.make_sampling_table(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(legacy.make_sampling_table(5, sampling_factor=0.0)).all()
    with pytest.raises(ValueError, match="size must be >= 1"):
        kvec.make_sampling_table(0)
    with pytest.raises(ValueError, match="sampling_factor must be > 0"):
        kvec.make_sampling_table(5, sampling_factor=0.0)
