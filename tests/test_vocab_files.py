"""BERT ``vocab.txt`` and GPT-2 ``vocab.json`` + ``merges.txt``: the same ids as Hugging Face's
``BertWordPieceTokenizer`` and ``ByteLevelBPETokenizer`` built from the same files."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec.errors import FormatError
from kvec.interop import load_bert_vocab, load_gpt2_files
from tests.support import TEXT, Oracle, hf_trained

tokenizers = Oracle("tokenizers")
BertWordPieceTokenizer = Oracle("tokenizers.implementations", "BertWordPieceTokenizer")
ByteLevelBPETokenizer = Oracle("tokenizers.implementations", "ByteLevelBPETokenizer")


@pytest.fixture(scope="module", params=[True, False], ids=["uncased", "cased"])
def bert_pair(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("bert")
    (vocab,) = hf_trained("bert_wordpiece").model.save(str(folder))
    lowercase = request.param
    return BertWordPieceTokenizer(vocab, lowercase=lowercase), load_bert_vocab(vocab, lowercase=lowercase)


@pytest.fixture(scope="module", params=[False, True], ids=["no_prefix_space", "prefix_space"])
def gpt2_pair(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("gpt2")
    vocab, merges = hf_trained("bytelevel_bpe").model.save(str(folder))
    return ByteLevelBPETokenizer(vocab, merges, add_prefix_space=request.param), load_gpt2_files(
        vocab, merges, request.param
    )


@settings(max_examples=60)
@given(texts=st.lists(TEXT, min_size=1, max_size=3))
def test_bert_vocab_txt_gives_hf_ids(bert_pair, texts):
    theirs, ours = bert_pair
    for text in texts:
        assert ours.encode(text).ids == theirs.encode(text).ids
    assert ours.encode(texts[0], texts[-1]).ids == theirs.encode(texts[0], texts[-1]).ids


@settings(max_examples=60)
@given(texts=st.lists(TEXT, min_size=1, max_size=3))
def test_gpt2_files_give_hf_ids(gpt2_pair, texts):
    theirs, ours = gpt2_pair
    for text in texts:
        assert ours.encode(text).ids == theirs.encode(text).ids
        assert ours.decode(ours.encode(text).ids) == theirs.decode(theirs.encode(text).ids)


def test_bad_vocabulary_files_name_the_file(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(FormatError, match="empty.txt: no tokens"):
        load_bert_vocab(empty)
    no_sep = tmp_path / "nosep.txt"
    no_sep.write_text("[PAD]\n[CLS]\na\n", encoding="utf-8")
    with pytest.raises(FormatError, match="nosep.txt: sep_token '\\[SEP\\]' is not in the vocabulary"):
        load_bert_vocab(no_sep)
    latin = tmp_path / "latin.txt"
    latin.write_bytes("[CLS]\n[SEP]\ncaf\xe9\n".encode("latin-1"))
    with pytest.raises(FormatError, match="latin.txt: not UTF-8"):
        load_bert_vocab(latin)
    vocab, merges = tmp_path / "vocab.json", tmp_path / "merges.txt"
    vocab.write_text(json.dumps({"a": 0, "b": 1, "ab": 2}), encoding="utf-8")
    merges.write_text("#version: 0.2\na b\na b c\n", encoding="utf-8")
    with pytest.raises(FormatError, match="merges.txt: line 3 is not two tokens"):
        load_gpt2_files(vocab, merges)
    merges.write_text("a c\n", encoding="utf-8")
    with pytest.raises(FormatError, match="merges.txt: merges\\[0\\]: .*'c' is not in the vocabulary"):
        load_gpt2_files(vocab, merges)
    vocab.write_text('{"a": 0, "b"', encoding="utf-8")
    with pytest.raises(FormatError, match="vocab.json: not valid JSON"):
        load_gpt2_files(vocab, merges)
    vocab.write_text('["a", "b"]', encoding="utf-8")
    with pytest.raises(FormatError, match="vocab.json: expected an object of token: id"):
        load_gpt2_files(vocab, merges)
