"""kvec.pad_sequences against keras.utils.pad_sequences (Keras 3): same values, dtype, shape, errors."""

import os
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
keras = pytest.importorskip("keras")

from kvec import pad_sequences  # noqa: E402

INTS = st.integers(-5, 40) | st.sampled_from([2**31 - 1, 2**31, -(2**31) - 1, 2**40, 2**70])
VALUES = INTS | st.floats(allow_nan=False, allow_infinity=False, width=32) | st.booleans()
SEQUENCES = st.lists(st.lists(INTS, max_size=9) | st.tuples(INTS, INTS), max_size=8)
MIXED = st.lists(st.lists(VALUES, max_size=6), max_size=6)
DTYPES = st.sampled_from(["int32", "int64", "float32", "float64", "int8", "uint8", "bool", object, "<U3", None])
PADDING = st.sampled_from(["pre", "post", "middle"])
MAXLEN = st.none() | st.integers(0, 12)
PAD_VALUE = st.sampled_from([0, 0.0, -1, 2.5, "x", 300])


def outcome(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return function(*args, **kwargs)
        except Exception as e:  # compared by type below
            return e


def assert_same(sequences, **kwargs):
    expected = outcome(keras.utils.pad_sequences, sequences, **kwargs)
    got = outcome(pad_sequences, sequences, **kwargs)
    if isinstance(expected, Exception):
        assert isinstance(got, Exception), f"Keras raised {expected!r}, kvec returned {got!r}"
        assert type(got) is type(expected), (got, expected)
        return
    assert not isinstance(got, Exception), f"kvec raised {got!r}, Keras returned {expected!r}"
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    if expected.dtype == object:
        assert got.tolist() == expected.tolist()
    else:
        assert np.array_equal(got, expected, equal_nan=expected.dtype.kind in "fc")


@given(SEQUENCES, MAXLEN, DTYPES, PADDING, PADDING, PAD_VALUE)
def test_int_sequences(sequences, maxlen, dtype, padding, truncating, value):
    assert_same(sequences, maxlen=maxlen, dtype=dtype, padding=padding, truncating=truncating, value=value)


@given(MIXED, MAXLEN, DTYPES, PADDING, PAD_VALUE)
def test_mixed_values(sequences, maxlen, dtype, padding, value):
    assert_same(sequences, maxlen=maxlen, dtype=dtype, padding=padding, value=value)


@given(
    st.lists(st.lists(st.text(max_size=4), max_size=5), max_size=5), MAXLEN, st.sampled_from([object, "<U2", "int32"])
)
def test_string_sequences(sequences, maxlen, dtype):
    assert_same(sequences, maxlen=maxlen, dtype=dtype, value="")


@given(st.lists(st.integers(0, 5), max_size=6), st.integers(1, 3), MAXLEN, PADDING, PADDING)
def test_multi_dimensional_samples(lengths, width, maxlen, padding, truncating):
    rng = np.random.default_rng(len(lengths) * 7 + width)
    sequences = [rng.integers(0, 9, size=(n, width)) for n in lengths]
    assert_same(sequences, maxlen=maxlen, padding=padding, truncating=truncating)
    assert_same([s.tolist() for s in sequences], maxlen=maxlen, padding=padding, truncating=truncating)


@given(st.integers(0, 6), st.integers(0, 7), MAXLEN, PADDING, PADDING, st.sampled_from(["int32", "float32", "int64"]))
def test_numpy_inputs(rows, width, maxlen, padding, truncating, dtype):
    block = np.arange(rows * width, dtype=np.int64).reshape(rows, width)
    assert_same(block, maxlen=maxlen, padding=padding, truncating=truncating, dtype=dtype)
    assert_same(list(block), maxlen=maxlen, padding=padding, truncating=truncating, dtype=dtype)


@pytest.mark.parametrize(
    "sequences",
    [
        [],
        [[]],
        [[], []],
        [[1, 2], 3],
        [[1, [2, 3]], [4]],
        [[[1, 2]], [[3]]],
        [[1, None]],
        [["a", 1]],
        [[1.5, 2.7], [np.nan]],
        [np.array([1, 2]), (3,), [4, 5, 6]],
    ],
)
@pytest.mark.parametrize("maxlen", [None, 0, 2])
def test_edge_cases(sequences, maxlen):
    assert_same(sequences, maxlen=maxlen)
    assert_same(sequences, maxlen=maxlen, dtype="float64", padding="post", truncating="post")


def test_not_a_sequence():
    assert_same(5)
    assert_same(iter([[1]]))
    # the non-iterable element is reported before the padding value is tried
    assert_same([[1], 5], maxlen=2, value=None)
    assert_same([[1], [2]], maxlen=2, value=None)
    with pytest.raises(ValueError, match="non-iterable"):
        pad_sequences([[1], 2])


def test_long_corpus_like_input():
    rng = np.random.default_rng(0)
    sequences = [rng.integers(1, 20000, size=n).tolist() for n in rng.integers(0, 300, size=500)]
    for padding in ("pre", "post"):
        for truncating in ("pre", "post"):
            assert_same(sequences, maxlen=128, padding=padding, truncating=truncating)
            assert_same(sequences, padding=padding, truncating=truncating, dtype="float32")
