"""``one_hot`` and ``hashing_trick`` with an ``analyzer``, as the tf.keras copy (Keras 3's legacy text
module) takes it."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kvec
from kvec.models import WordPiece
from kvec.pipeline import Pipeline
from kvec.pretokenizers import BertPreTokenizer
from tests.support import Oracle

TEXT = st.lists(st.sampled_from(["a", "b", "ab-c", "B", "x-y", "!", "bb"]), max_size=8).map(" ".join)


keras_text = Oracle("keras.src.legacy.preprocessing.text")


@given(TEXT, st.sampled_from([None, "-", "b"]), st.sampled_from([2, 7, 1000]))
def test_one_hot_and_hashing_trick_take_an_analyzer_as_tf_keras_does(text, separator, n):
    analyzer = None if separator is None else (lambda t: t.split(separator))
    assert kvec.hashing_trick(text, n, hash_function="md5", analyzer=analyzer) == keras_text.hashing_trick(
        text, n, hash_function="md5", analyzer=analyzer
    )
    assert kvec.one_hot(text, n, analyzer=analyzer) == keras_text.one_hot(text, n, analyzer=analyzer)


def test_a_pipeline_is_an_analyzer_for_hashing_trick():
    vocab = {token: i for i, token in enumerate(["[UNK]", "ab", "c", "##a", "##b"])}
    ours = Pipeline(WordPiece(vocab, unk_token="[UNK]"), pre_tokenizer=BertPreTokenizer())
    assert kvec.hashing_trick("ab cab", 50, hash_function="md5", analyzer=ours) == kvec.hashing_trick(
        "ab c ##a ##b", 50, hash_function="md5", filters="", lower=False
    )
    with pytest.raises(TypeError, match="analyzer must be a callable or None, got str"):
        kvec.hashing_trick("a", 5, analyzer="words")
