"""Decoding ids in C: every decoder kvec has gives each token's bytes alone (PieceDecoder.token_bytes), and
decode / decode_batch read a table of them. Hugging Face's decode_batch is the oracle."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvec import decoders
from kvec._encoder import PieceTable
from kvec.contracts import PieceDecoder
from kvec.interop.huggingface import from_tokenizer_json_str
from kvec.models import WordPiece
from kvec.pipeline import Pipeline
from tests.support import hf_trained

KINDS = ["bert_wordpiece", "bytelevel_bpe", "bpe_sequence"]


@pytest.fixture(scope="module", params=KINDS)
def pair(request):
    theirs = hf_trained(request.param)
    ours = from_tokenizer_json_str(theirs.to_str())
    assert ours._piece_table() is not None  # the C path
    return theirs, ours


@given(data=st.data())
def test_decode_batch_equals_hf(pair, data):
    # any ids of the vocabulary, special tokens and byte pieces that split a character included
    theirs, ours = pair
    ids = st.integers(0, theirs.get_vocab_size() - 1)
    rows = data.draw(st.lists(st.lists(ids, max_size=12), max_size=5))
    for skip in (True, False):
        expected = theirs.decode_batch(rows, skip_special_tokens=skip)
        assert ours.decode_batch(rows, skip_special_tokens=skip) == expected
        assert [ours.decode(row, skip_special_tokens=skip) for row in rows] == expected


def test_rows_may_be_numpy_arrays_and_errors_name_the_id(pair):
    theirs, ours = pair
    values, row_lengths = ours.encode_ragged(["a line of text", "another"])
    rows = np.split(values, np.cumsum(row_lengths)[:-1])
    assert ours.decode_batch(rows) == theirs.decode_batch([row.tolist() for row in rows])
    with pytest.raises(ValueError, match=r"ids\[1\] = 1000000 is not in the vocabulary"):
        ours.decode_batch([[0, 10**6]])
    with pytest.raises(ValueError, match=r"ids\[0\] = -1 is not in the vocabulary"):
        ours.decode([-1])
    with pytest.raises(TypeError, match=r"ids\[0\] must be an int, got float"):
        ours.decode([3.0])


def test_the_table_follows_added_tokens_and_decoder_settings():
    vocab = {"[UNK]": 0, "un": 1, "##able": 2, "'s": 3}
    tok = Pipeline(WordPiece(vocab), decoder=decoders.WordPiece())
    assert tok.decode([1, 2, 3]) == "unable's"
    tok.decoder.cleanup = False
    assert tok.decode([1, 2, 3]) == "unable 's"
    tok.add_special_tokens(["<s>"])
    tok.add_tokens(["new word"])
    assert tok.decode([4, 1, 5]) == "un new word"
    assert tok.decode([4, 1, 5], skip_special_tokens=False) == "<s> un new word"
    tok.decoder = None  # tokens joined with spaces
    assert tok.decode([1, 2]) == "un ##able"


@given(tokens=st.lists(st.text(st.sampled_from("a▁<0xE9>#'s ."), max_size=6), max_size=6))
def test_each_decoder_is_its_token_bytes_back_to_back(tokens):
    # the Python decode and the C table are one rule: the table's text equals decode()'s
    for decoder in (
        decoders.WordPiece(),
        decoders.Metaspace(),
        decoders.Metaspace(prepend_scheme="never"),
        decoders.ByteLevel(),
        decoders.SentencePiece(),
    ):
        assert isinstance(decoder, PieceDecoder)
        table = PieceTable(
            [decoder.token_bytes(t, True) for t in tokens],
            [decoder.token_bytes(t, False) for t in tokens],
            bytes(len(tokens)),
        )
        assert decoder.finish(table.decode([list(range(len(tokens)))], True)[0]) == decoder.decode(tokens)


def test_piece_table_checks_its_arguments():
    with pytest.raises(ValueError, match="one entry per id"):
        PieceTable([b"a"], [], b"\x00")
    with pytest.raises(ValueError, match=r"first\[0\] and later\[0\]"):
        PieceTable([b"a"], [None], b"\x00")
    with pytest.raises(TypeError, match=r"first\[0\] must be bytes"):
        PieceTable(["a"], ["a"], b"\x00")
    with pytest.raises(TypeError, match="sequence of int"):
        PieceTable([b"a"], [b"a"], b"\x00").decode([5], True)
