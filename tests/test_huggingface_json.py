"""Hugging Face ``tokenizer.json`` both ways: models trained by ``tokenizers`` load into kvec and give
the same ids, kvec-trained pipelines export to files ``tokenizers`` reads and encodes identically, and
bad files raise kvec errors naming the file."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec.errors import FormatError
from kvec.interop import load_tokenizer_json, save_tokenizer_json
from kvec.presets import keras_subword, sentencepiece_style
from kvec.trainers import UnigramTrainer

tokenizers = pytest.importorskip("tokenizers")
from tests.support import TEXT, TEXTS, hf_trained  # noqa: E402

HF_KINDS = ["bytelevel_bpe", "bert_wordpiece", "bpe_sequence", "unigram_metaspace"]


@pytest.fixture(scope="module", params=HF_KINDS)
def hf_pair(request, tmp_path_factory):
    tok = hf_trained(request.param)
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    tok.save(str(path))
    return tok, load_tokenizer_json(path)


@settings(max_examples=60)
@given(texts=st.lists(TEXT, min_size=1, max_size=4))
def test_hf_trained_models_give_the_same_ids_in_kvec(hf_pair, texts):
    theirs, ours = hf_pair
    for text in texts:
        assert ours.encode(text).ids == theirs.encode(text).ids
    assert ours.encode(texts[0], texts[-1]).ids == theirs.encode(texts[0], texts[-1]).ids
    assert [e.ids for e in ours.encode_batch(texts)] == [e.ids for e in theirs.encode_batch(texts)]


def kvec_trained(kind):
    if kind == "sentencepiece_style":
        tok = sentencepiece_style(split_digits=True)
        tok.train_from_iterator(TEXTS, UnigramTrainer(vocab_size=600, byte_fallback=True))
        return tok
    tok, trainer = keras_subword(kind, 600 if kind in ("bytelevel_bpe", "unigram") else 500)
    tok.train_from_iterator(TEXTS, trainer)
    return tok


KVEC_KINDS = ["bpe", "wordpiece", "bytelevel_bpe", "unigram", "sentencepiece_style"]


@pytest.fixture(scope="module", params=KVEC_KINDS)
def exported(request, tmp_path_factory):
    tok = kvec_trained(request.param)
    path = tmp_path_factory.mktemp("kvec") / "tokenizer.json"
    save_tokenizer_json(tok, path)
    return tok, tokenizers.Tokenizer.from_file(str(path)), load_tokenizer_json(path)


@settings(max_examples=60)
@given(texts=st.lists(TEXT, min_size=1, max_size=4))
def test_kvec_exports_load_in_hf_with_the_same_ids(exported, texts):
    ours, theirs, again = exported
    for text in texts:
        ids = ours.encode(text).ids
        assert theirs.encode(text).ids == ids
        assert again.encode(text).ids == ids


def test_bad_files_raise_kvec_errors_naming_the_file(tmp_path):
    tok = hf_trained("bert_wordpiece")
    good = tmp_path / "good.json"
    tok.save(str(good))
    text = good.read_text(encoding="utf-8")
    truncated = tmp_path / "truncated.json"
    truncated.write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(FormatError, match="truncated.json: not valid JSON"):
        load_tokenizer_json(truncated)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(FormatError, match="binary.json: not UTF-8"):
        load_tokenizer_json(binary)
    document = json.loads(text)
    cases = {
        "model.json": ({"model": {"type": "WordGuess", "vocab": {}}}, "unsupported model 'WordGuess'"),
        "normalizer.json": (
            {**document, "normalizer": {"type": "Transliterate"}},
            "unsupported normalizer 'Transliterate'",
        ),
        "pre.json": (
            {**document, "pre_tokenizer": {"type": "Syllables"}},
            "unsupported pre_tokenizer 'Syllables'",
        ),
        "decoder.json": ({**document, "decoder": {"type": "Transcribe"}}, "unsupported decoder 'Transcribe'"),
        "lstrip.json": (
            {**document, "added_tokens": [{"id": 0, "content": "<mask>", "special": True, "lstrip": "yes"}]},
            r"added_tokens\[0\]\.lstrip must be true or false, got 'yes'",
        ),
        "vocab.json": (
            {**document, "model": {**document["model"], "vocab": ["not", "a", "dict"]}},
            "invalid component",
        ),
        "nomodel.json": ({"version": "1.0"}, 'expected an object with a "model" object'),
    }
    for name, (content, message) in cases.items():
        path = tmp_path / name
        path.write_text(json.dumps(content), encoding="utf-8")
        with pytest.raises(FormatError, match=f"{name}: .*{message}".replace("(", "\\(").replace("'", ".")):
            load_tokenizer_json(path)


def test_components_without_a_tokenizer_json_form_are_named(tmp_path):
    from kvec.normalizers import OpenCC

    tok = kvec_trained("bpe")
    tok.normalizer = OpenCC("t2s")
    with pytest.raises(ValueError, match="normalizer OpenCC has no tokenizer.json form"):
        save_tokenizer_json(tok, tmp_path / "unused.json")
    assert not (tmp_path / "unused.json").exists()
