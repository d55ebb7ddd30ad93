"""RoBERTa- and BART-style ``tokenizer.json`` files built by Hugging Face tokenizers: byte-level BPE,
``<mask>`` an added token with ``lstrip``, RobertaProcessing trimming offsets. kvec loads them and
encodes (single texts and pairs, one by one and in batches) and decodes exactly as tokenizers does."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvec.interop.huggingface import from_tokenizer_json_str, to_tokenizer_json_str
from tests.support import TEXTS, Oracle

hf = Oracle("tokenizers")

SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]
WORDS = st.sampled_from(sorted({w for line in TEXTS[:200] for w in line.split()})[:200] + ["<mask>", "<s>", "é", "中"])
TEXT = st.lists(st.tuples(WORDS, st.sampled_from(["", " ", "  ", "\n", " \t"])), max_size=10).map(
    lambda parts: "".join(word + space for word, space in parts)
)


def hf_file(style):
    """A tokenizer.json as the RoBERTa (``normalized=False`` mask, prefix space) or BART files have it."""
    roberta = style == "roberta"
    tok = hf.Tokenizer(hf.models.BPE())
    tok.pre_tokenizer = hf.pre_tokenizers.ByteLevel(add_prefix_space=roberta)
    tok.decoder = hf.decoders.ByteLevel()
    trainer = hf.trainers.BpeTrainer(
        vocab_size=700, special_tokens=SPECIALS, initial_alphabet=hf.pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(TEXTS, trainer)
    tok.add_special_tokens([hf.AddedToken("<mask>", lstrip=True, normalized=not roberta)])
    tok.post_processor = hf.processors.RobertaProcessing(
        ("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>")), trim_offsets=True, add_prefix_space=roberta
    )
    return tok


@pytest.fixture(scope="module", params=["roberta", "bart"])
def pair(request):
    theirs = hf_file(request.param)
    return from_tokenizer_json_str(theirs.to_str()), theirs


def fields(encoding):
    return (
        encoding.ids,
        encoding.tokens,
        [tuple(o) for o in encoding.offsets],
        encoding.type_ids,
        encoding.special_tokens_mask,
        encoding.attention_mask,
        encoding.word_ids,
        encoding.sequence_ids,
    )


@given(texts=st.lists(TEXT, min_size=1, max_size=4), second=TEXT)
def test_encodes_and_decodes_as_hugging_face(pair, texts, second):
    ours, theirs = pair
    for text in texts:
        got, want = ours.encode(text), theirs.encode(text)
        assert fields(got) == fields(want)
        assert fields(ours.encode(text, second)) == fields(theirs.encode(text, second))
        for skip in (True, False):
            assert ours.decode(got.ids, skip_special_tokens=skip) == theirs.decode(want.ids, skip_special_tokens=skip)
    assert [fields(e) for e in ours.encode_batch(texts)] == [fields(e) for e in theirs.encode_batch(texts)]
    pairs = [(text, second) for text in texts]
    assert [fields(e) for e in ours.encode_batch(pairs)] == [fields(e) for e in theirs.encode_batch(pairs)]


def test_the_mask_takes_the_space_before_it(pair):
    ours, theirs = pair
    for text in ["Hello <mask>!", "<mask>", "a  <mask> b", "a<mask>"]:
        assert fields(ours.encode(text)) == fields(theirs.encode(text))
    mask = ours.get_added_tokens_decoder()[ours.token_to_id("<mask>")]
    assert (mask.lstrip, mask.special) == (True, True)


def test_written_back_it_loads_in_hugging_face_unchanged(pair):
    ours, theirs = pair
    again = hf.Tokenizer.from_str(to_tokenizer_json_str(ours))
    for text in TEXTS[:50] + ["Hello <mask>!"]:
        assert fields(again.encode(text)) == fields(theirs.encode(text))
