"""sentencepiece ``.model`` files read without sentencepiece: the same ids as sentencepiece itself, for
Unigram and BPE models with its default normalization (NFKC character map, whitespace rules), byte
fallback, split digits and user-defined symbols; bad files raise kvec errors naming the file. Such a
pipeline is described whole to the native encoder (the normalizer runs in
csrc/core/precompiled_charsmap.c): encode_batch is one native call, and the TensorFlow op serves it."""

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec._spec import SpecEncoder
from kvec.contracts import Normalized
from kvec.errors import FormatError
from kvec.interop import load_sentencepiece_model
from kvec.native_spec import describe
from kvec.normalizers import SentencePieceNormalizer
from kvec.pipeline import Pipeline, Tokenizer
from tests.support import STABLE_CHARS, TEXTS, WORDS

spm = pytest.importorskip("sentencepiece")

CONFIGS = {
    "unigram": dict(model_type="unigram"),
    "unigram_bytes_digits": dict(model_type="unigram", byte_fallback=True, split_digits=True),
    "unigram_identity": dict(model_type="unigram", normalization_rule_name="identity", remove_extra_whitespaces=False),
    "unigram_symbols": dict(model_type="unigram", user_defined_symbols=["<mask>", "Hello"]),
    "unigram_bytes_no_prefix": dict(model_type="unigram", byte_fallback=True, add_dummy_prefix=False),
    "bpe": dict(model_type="bpe"),
    "bpe_bytes_spaces_kept": dict(model_type="bpe", byte_fallback=True, remove_extra_whitespaces=False),
    "bpe_bytes_symbols": dict(model_type="bpe", byte_fallback=True, user_defined_symbols=["<mask>"]),
}
EXTRA = ["  ", "\t", "１２", "Ａ", "ﬁ", "①", "<s>", "</s>", "<mask>", "Hello", "▁", "...", ">>>", "中文", "😀"]
TEXT = st.lists(st.one_of(st.sampled_from(WORDS + EXTRA), st.sampled_from([" ", "  "]), STABLE_CHARS), max_size=16).map(
    "".join
)
# what the character map rewrites: full-width, compatibility and ligature forms, other spaces, controls
REWRITTEN = "ＡＢＣ|１２３|　|ｶﾞ|ﬁ|①|㍻|™|½|Ⅻ|ℌ|\u00a0|\u200b|\x00|\x07|\x1f|\x7f|\t|\n|\r\n|\ufeff|e\u0301|Å"
REWRITTEN_TEXT = st.lists(st.one_of(st.sampled_from(REWRITTEN.split("|")), TEXT), max_size=6).map("".join)


@pytest.fixture(scope="module", params=list(CONFIGS))
def pair(request, tmp_path_factory):
    proto = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(TEXTS),
        model_writer=proto,
        vocab_size=500,
        num_threads=1,
        minloglevel=2,
        **CONFIGS[request.param],
    )
    path = tmp_path_factory.mktemp("sp") / "m.model"
    path.write_bytes(proto.getvalue())
    return spm.SentencePieceProcessor(model_file=str(path)), load_sentencepiece_model(path), path


@settings(max_examples=80)
@given(texts=st.lists(TEXT, min_size=1, max_size=4))
def test_ids_equal_sentencepiece(pair, texts):
    sp, ours, _ = pair
    for text in texts:
        ids = ours.encode(text).ids
        assert ids == sp.encode(text)
        assert ours.decode(ids) == sp.decode(ids)
    assert [e.ids for e in ours.encode_batch(texts)] == sp.encode(texts)


def test_a_text_of_many_thousand_tokens_equals_sentencepiece(pair):
    # past a total score of 1e5 sentencepiece takes scores relative to the current position again,
    # which changes how float32 rounds them: a long text shows whether kvec does the same
    sp, ours, _ = pair
    text = " ".join(TEXTS) * 6
    assert len(sp.encode(text)) > 20000
    assert ours.encode(text).ids == sp.encode(text)
    assert [e.ids for e in ours.encode_batch([text, "a"])] == sp.encode([text, "a"])


def test_the_loaded_pipeline_saves_and_loads_as_kvec_json(pair):
    sp, ours, _ = pair
    again = Tokenizer.from_str(ours.to_str())
    sample = TEXTS[:200] + ["  Ａ１２ ﬁne <s> Hello<mask>  "]
    assert [again.encode(t).ids for t in sample] == [sp.encode(t) for t in sample]


def test_bad_model_files_raise_kvec_errors(pair, tmp_path):
    _, _, path = pair
    data = path.read_bytes()
    truncated = tmp_path / "truncated.model"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(FormatError, match="truncated.model: .*truncated file"):
        load_sentencepiece_model(truncated)
    garbage = tmp_path / "garbage.model"
    garbage.write_bytes(b"\x0f\xff\xff\xff")
    with pytest.raises(FormatError, match="garbage.model"):
        load_sentencepiece_model(garbage)
    empty = tmp_path / "empty.model"
    empty.write_bytes(b"")
    with pytest.raises(FormatError, match="empty.model: no pieces"):
        load_sentencepiece_model(empty)


@settings(max_examples=80)
@given(texts=st.lists(TEXT, min_size=1, max_size=4))
def test_normalized_text_and_offsets_equal_sentencepiece(pair, texts):
    """The native normalizer gives sentencepiece's normalized text, and each character starts where
    sentencepiece's offsets say (the dummy prefix at the first kept character)."""
    sp, ours, _ = pair
    for text in texts:
        expected, offsets = sp.normalize(text, with_offsets=True)
        assert ours.normalizer.normalize_str(text) == expected
        normalized = ours.normalizer.normalize(Normalized.of(text))
        assert normalized.text == expected
        assert [start for start, _ in normalized.spans] == offsets[: len(expected)]


@settings(max_examples=120)
@given(data=st.data())
def test_any_ids_decode_as_sentencepiece(pair, data):
    """Any id sequence, not only encodings: leading ``▁`` pieces, byte pieces first, control and unknown
    pieces."""
    sp, ours, _ = pair
    ids = st.integers(0, sp.get_piece_size() - 1)
    spaces = [sp.piece_to_id(piece) for piece in ("▁", "▁▁", "<0x20>") if not sp.is_unknown(sp.piece_to_id(piece))]
    row = data.draw(st.lists(st.one_of(ids, st.sampled_from(spaces)) if spaces else ids, max_size=8))
    assert ours.decode(row) == sp.decode(row)
    assert ours.decode_batch([row, row[::-1]]) == sp.decode([row, row[::-1]])


@pytest.mark.parametrize("data", [b"\xed\xa0\x80", b"\xe5\x8f", b"a\xf0\x9f\x98", b"\xc0\xaf", b"\xf4\x90\x80\x80"])
def test_byte_pieces_that_are_not_utf8_decode_as_sentencepiece(pair, data):
    sp, ours, _ = pair
    if sp.piece_to_id("<0x41>") == sp.unk_id():
        pytest.skip("no byte fallback")
    row = [sp.piece_to_id(f"<0x{b:02X}>") for b in data]
    assert ours.decode(row) == sp.decode(row)
    assert ours.decoder.decode([sp.id_to_piece(i) for i in row]) == sp.decode(row)


def refuse(*args, **kwargs):
    raise AssertionError("Python ran a stage of a pipeline described whole")


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(REWRITTEN_TEXT, min_size=1, max_size=6))
def test_encode_batch_is_one_native_call_equal_to_sentencepiece(pair, texts):
    sp, ours, _ = pair
    encoder, python_first = ours._fast_encoder()
    assert isinstance(encoder, SpecEncoder) and not python_first
    expected = sp.encode(texts)
    with pytest.MonkeyPatch.context() as patch:
        for name in ("encode", "_encode_input"):
            patch.setattr(Pipeline, name, refuse)
        for name in ("normalize", "normalize_str", "normalize_batch"):
            patch.setattr(SentencePieceNormalizer, name, refuse)
        assert [e.ids for e in ours.encode_batch(texts, n_threads=2)] == expected
        values, row_lengths = ours.encode_ragged(texts)
    assert row_lengths.tolist() == [len(ids) for ids in expected]
    assert values.tolist() == [i for ids in expected for i in ids]


@settings(max_examples=20, deadline=None)
@given(texts=st.lists(REWRITTEN_TEXT, min_size=1, max_size=6))
def test_the_tensorflow_op_encodes_as_sentencepiece(pair, texts):
    tf = pytest.importorskip("tensorflow")
    from kvec.layers import op_library

    library = op_library.load() or pytest.skip("kvec's op library could not be built here")
    sp, ours, _ = pair
    values, splits = library.kvec_encode(tf.constant([t.encode() for t in texts]), spec=describe(ours))
    assert tf.RaggedTensor.from_row_splits(values, splits).to_list() == sp.encode(texts)
