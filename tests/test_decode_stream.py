"""``kvec.decoders.DecodeStream`` against ``tokenizers.decoders.DecodeStream`` on the same
``tokenizer.json``: byte-level BPE and byte-fallback Unigram, whose tokens may end mid-character,
fed one id or several at a time, with and without a prompt and special tokens."""

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec.decoders import DecodeStream
from kvec.interop.huggingface import from_tokenizer_json_str
from tests.support import TEXTS, Oracle

hf = Oracle("tokenizers")
LINES = TEXTS[:200] + ["อั สวัสดี ครับ", "日本語のテキスト", "emoji 🙂👍🏽 done", "ça déjà vu"]
TRAINED = {}


def _tokenizers(kind):
    """tokenizers' Tokenizer of ``kind`` and kvec's pipeline of the same tokenizer.json."""
    if kind not in TRAINED:
        pytest.importorskip("tokenizers")
        from tokenizers import decoders, models, pre_tokenizers, trainers

        if kind == "byte_level":
            theirs = hf.Tokenizer(models.BPE())
            theirs.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
            theirs.decoder = decoders.ByteLevel()
            trainer = trainers.BpeTrainer(
                vocab_size=500, special_tokens=["<s>", "</s>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
            )
        else:
            theirs = hf.Tokenizer(models.Unigram())
            theirs.pre_tokenizer = pre_tokenizers.Metaspace()
            theirs.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Metaspace()])
            trainer = trainers.UnigramTrainer(
                vocab_size=500, special_tokens=["<unk>", "<s>"], unk_token="<unk>", byte_fallback=True
            )
        theirs.train_from_iterator(LINES, trainer)
        TRAINED[kind] = theirs, from_tokenizer_json_str(theirs.to_str())
    return TRAINED[kind]


@st.composite
def streams(draw):
    """``(kind, prompt, chunks, skip)``: ids of real lines (and of special tokens), cut in chunks."""
    kind = draw(st.sampled_from(["byte_level", "byte_fallback"]))
    theirs, _ = _tokenizers(kind)
    ids = theirs.encode(draw(st.sampled_from(LINES[-4:] + LINES[:5]))).ids
    ids = ids[: draw(st.integers(0, len(ids)))]
    special = theirs.token_to_id("<s>")
    for _ in range(draw(st.integers(0, 2))):
        ids.insert(draw(st.integers(0, len(ids))), special)
    cut = draw(st.integers(0, len(ids)))
    prompt, rest = ids[:cut] if draw(st.booleans()) else [], ids[cut:]
    chunks, position = [], 0
    while position < len(rest):
        size = draw(st.integers(1, 3))
        chunk = rest[position : position + size]
        chunks.append(chunk[0] if size == 1 and draw(st.booleans()) else chunk)
        position += size
    return kind, prompt, chunks, draw(st.booleans())


@settings(max_examples=120, deadline=None)
@given(stream=streams())
def test_each_step_gives_what_tokenizers_gives(stream):
    kind, prompt, chunks, skip = stream
    theirs, ours = _tokenizers(kind)
    expected_stream = hf.decoders.DecodeStream(list(prompt), skip_special_tokens=skip)
    found_stream = DecodeStream(list(prompt), skip_special_tokens=skip)
    for chunk in chunks:
        expected = expected_stream.step(theirs, chunk)
        assert found_stream.step(ours, chunk) == expected


def test_a_copy_goes_on_by_itself():
    theirs, ours = _tokenizers("byte_level")
    ids = theirs.encode("emoji 🙂👍🏽 done").ids
    stream = DecodeStream()
    first = [stream.step(ours, i) for i in ids[:3]]
    copied = copy.copy(stream)
    assert [stream.step(ours, i) for i in ids[3:]] == [copied.step(ours, i) for i in ids[3:]]
    assert "".join(t for t in first if t) + "".join(t for t in [DecodeStream(ids[:3]).step(ours, ids[3:])] if t) == (
        ours.decode(ids)
    )


def test_bad_ids_name_the_argument():
    _, ours = _tokenizers("byte_level")
    with pytest.raises(TypeError, match=r"id\[1\] must be a non-negative int, got 'a'"):
        DecodeStream().step(ours, [1, "a"])
    with pytest.raises(TypeError, match="ids must be an int or a list of int, got str"):
        DecodeStream("12")
