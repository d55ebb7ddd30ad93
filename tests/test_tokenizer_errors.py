"""Bad input raises a TypeError/ValueError that names the argument, the position and the type."""

import numpy as np
import pytest

import kvec


@pytest.mark.parametrize(
    "bad, type_name",
    [(None, "NoneType"), (3, "int"), (2.5, "float"), (b"bytes", "bytes"), ((1, 2), "tuple"), ({"a": 1}, "dict")],
)
def test_non_text_items_name_their_position_and_type(bad, type_name):
    tok = kvec.Tokenizer()
    with pytest.raises(TypeError, match=rf"texts\[1\] must be a str or a list of str, got {type_name}"):
        tok.fit_on_texts(["fine text", bad])
    # nothing was counted: a failed fit leaves the tokenizer as it was
    assert tok.document_count == 0 and not tok.word_counts and not tok.word_index
    tok.fit_on_texts(["fine text"])
    with pytest.raises(TypeError, match=rf"texts\[2\] must be a str or a list of str, got {type_name}"):
        tok.texts_to_sequences(["fine", "text", bad])


def test_nested_junk_names_the_inner_position():
    tok = kvec.Tokenizer()
    with pytest.raises(TypeError, match=r"texts\[0\]\[1\] must be a str token, got list"):
        tok.fit_on_texts([["ok", ["nested"]]])
    with pytest.raises(TypeError, match=r"texts\[0\] must be a str or a list of str, got bytes"):
        kvec.Tokenizer(char_level=True).fit_on_texts([b"abc"])


def test_texts_must_be_iterable():
    with pytest.raises(TypeError, match="texts must be an iterable, got NoneType"):
        kvec.Tokenizer().fit_on_texts(None)
    with pytest.raises(TypeError, match="texts must be an iterable, got int"):
        kvec.Tokenizer().texts_to_sequences(5)


def test_constructor_arguments_are_checked():
    with pytest.raises(TypeError, match="num_words must be an int or None, got str"):
        kvec.Tokenizer(num_words="100")
    with pytest.raises(ValueError, match="num_words must be >= 0, got -1"):
        kvec.Tokenizer(num_words=-1)
    with pytest.raises(TypeError, match="oov_token must be a str or None, got int"):
        kvec.Tokenizer(oov_token=1)
    with pytest.raises(ValueError, match="split must be a non-empty string"):
        kvec.Tokenizer(split="")
    with pytest.raises(ValueError, match=r"filters\[1\] must be a single character, got 'ab'"):
        kvec.Tokenizer(filters=["a", "ab"])
    with pytest.raises(TypeError, match="analyzer must be a callable"):
        kvec.Tokenizer(analyzer="split")


def test_matrix_errors():
    tok = kvec.Tokenizer()
    with pytest.raises(ValueError, match="Specify a dimension"):
        tok.texts_to_matrix(["a"])
    with pytest.raises(ValueError, match="Fit the Tokenizer on some data before using tfidf mode"):
        kvec.Tokenizer(num_words=5).sequences_to_matrix([[1]], mode="tfidf")
    tok.fit_on_texts(["a b"])
    with pytest.raises(ValueError, match="Unknown vectorization mode: 'bm25'"):
        tok.texts_to_matrix(["a"], mode="bm25")
    with pytest.raises(TypeError, match=r"sequences\[1\]\[0\] must be an int index, got float"):
        tok.sequences_to_matrix([[1], [1.5]])
    with pytest.raises(ValueError, match=r"sequences\[0\]\[1\] must be a non-negative index, got -2"):
        tok.sequences_to_matrix([[1, -2]])
    with pytest.raises(TypeError, match=r"sequences\[0\] must be a sequence of int indices, got int"):
        tok.sequences_to_matrix([3])


def test_helpers_reject_non_text():
    with pytest.raises(TypeError, match="text must be a str, got bytes"):
        kvec.text_to_word_sequence(b"abc")
    with pytest.raises(ValueError, match="n must be at least 2, got 1"):
        kvec.hashing_trick("a b", 1)
    with pytest.raises(TypeError, match="hash_function must be None, 'md5' or a callable"):
        kvec.hashing_trick("a", 5, hash_function="sha1")


def test_numpy_strings_are_texts():
    tok = kvec.Tokenizer()
    tok.fit_on_texts(np.array(["a b", "b c"]))
    assert tok.word_index == {"b": 1, "a": 2, "c": 3}
    assert tok.texts_to_sequences(np.array(["c a"])) == [[3, 2]]
