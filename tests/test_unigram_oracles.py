"""Unigram and sentencepiece files against their oracles where scores (nearly) tie and characters are
unknown: a model read from tokenizer.json (or trained by kvec) segments as Hugging Face does, one read
from a ``.model`` file as sentencepiece does; an unknown token is the text it covers; every option of a
``.model`` file that kvec does not follow raises a FormatError naming it."""

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec.errors import FormatError
from kvec.interop import load_sentencepiece_model
from kvec.interop.huggingface import from_tokenizer_json_str, to_tokenizer_json_str
from kvec.models import Unigram
from kvec.pipeline import Tokenizer
from tests.support import TEXTS, Oracle

hf = Oracle("tokenizers")
spm = Oracle("sentencepiece")
sp_pb = Oracle("sentencepiece.sentencepiece_model_pb2")

ALPHABET = "ab^="
# near ties: pieces scored about (their length) x (a step), so that paths of equal length tie but for
# the rounding of their sums
STEPS = st.floats(-12.0, -0.5)
NOISE = st.sampled_from([0.0, 1e-7, -1e-7, 3e-7, -2e-6, 1e-9])
# runs of one character ("-----", "^^^^"), which many orders of the same pieces spell alike
RUNS = st.tuples(st.sampled_from(ALPHABET), st.integers(1, 12)).map(lambda run: run[0] * run[1])
PIECES = st.dictionaries(st.one_of(RUNS, st.text(ALPHABET, min_size=1, max_size=4)), NOISE, min_size=1, max_size=8)
TEXT = st.lists(st.one_of(RUNS, RUNS.map(lambda run: run * 3), st.sampled_from(["x", "🤗", " "])), max_size=8).map(
    "".join
)


def near_tied_vocab(step, pieces):
    return [(piece, len(piece) * step + noise) for piece, noise in sorted(pieces.items())]


def hf_tokenizer(vocab, unk_id, byte_fallback=False):
    return hf.Tokenizer(hf.models.Unigram(vocab, unk_id, byte_fallback))


def assert_same_encoding(ours, theirs, text):
    expected = theirs.encode(text)
    got = ours.encode(text)
    assert (got.ids, got.tokens, got.offsets) == (expected.ids, expected.tokens, expected.offsets)


@settings(max_examples=300, deadline=None)
@given(step=STEPS, pieces=PIECES, texts=st.lists(TEXT, min_size=1, max_size=4))
def test_near_ties_break_as_hugging_face_breaks_them(step, pieces, texts):
    vocab = [("<unk>", 0.0)] + near_tied_vocab(step, pieces)
    theirs = hf_tokenizer(vocab, 0)
    ours = Tokenizer(Unigram(vocab, unk_id=0))
    # a file's scores are read as tokenizers reads them (serde_json can be an ulp off the nearest
    # double), so a model read from a file is compared with tokenizers reading the same file
    file = theirs.to_str()
    theirs_read, ours_read = hf.Tokenizer.from_str(file), from_tokenizer_json_str(file)
    exported = hf.Tokenizer.from_str(to_tokenizer_json_str(ours))  # kvec's model exported to Hugging Face
    for text in texts:
        assert_same_encoding(ours, theirs, text)
        assert_same_encoding(ours_read, theirs_read, text)
        assert exported.encode(text).ids == theirs_read.encode(text).ids
    assert [e.ids for e in ours.encode_batch(texts)] == [e.ids for e in theirs.encode_batch(texts)]


def test_the_reported_near_tie_of_carets():
    vocab = [("<unk>", 0.0), ("^", -8.118828755329337), ("^^^^^^^^^^", -8.362279151865994)]
    file = hf_tokenizer(vocab, 0).to_str()
    for ours, theirs in [
        (Tokenizer(Unigram(vocab, unk_id=0)), hf_tokenizer(vocab, 0)),
        (from_tokenizer_json_str(file), hf.Tokenizer.from_str(file)),
    ]:
        assert ours.encode("^" * 14).ids == theirs.encode("^" * 14).ids


def test_scores_of_a_file_are_read_as_tokenizers_reads_them():
    vocab = [("<unk>", 0.0), ("a" * 12, -119.81331877417195)]  # serde_json reads ...196
    file = hf_tokenizer(vocab, 0).to_str()
    text = "a" * 27
    assert from_tokenizer_json_str(file).encode(text).ids == hf.Tokenizer.from_str(file).encode(text).ids


BYTES = [f"<0x{b:02X}>" for b in range(256)]


@settings(max_examples=200, deadline=None)
@given(
    pieces=st.dictionaries(st.text("ab<unk>", min_size=1, max_size=4), st.floats(-8, -1), max_size=6),
    byte_fallback=st.booleans(),
    some_bytes=st.sets(st.integers(0, 255), max_size=256).map(sorted),
    text=st.text("ab<unk>xé🤗", max_size=16),
)
def test_unknown_characters_are_tokens_of_their_text_as_in_hugging_face(pieces, byte_fallback, some_bytes, text):
    # runs of unknown characters (and the <unk> piece matched as text) fuse into one string, spelled by
    # byte pieces where each of its bytes has one, else the unk token whose token is that string
    vocab = [("<unk>", -0.5)] + sorted(pieces.items()) + [(BYTES[b], -9.0) for b in some_bytes]
    theirs = hf_tokenizer(vocab, 0, byte_fallback)
    ours = Tokenizer(Unigram(vocab, unk_id=0, byte_fallback=byte_fallback))
    assert_same_encoding(ours, theirs, text)
    file = theirs.to_str()
    assert_same_encoding(from_tokenizer_json_str(file), hf.Tokenizer.from_str(file), text)
    assert ours.encode_batch([text])[0].tokens == theirs.encode(text).tokens


# ---- sentencepiece .model files ----


def model_proto(vocab, model_type=1):
    """A sentencepiece ModelProto of normal pieces (``<unk>`` first), with the identity normalizer."""
    proto = sp_pb.ModelProto()
    unk = proto.pieces.add()
    unk.piece, unk.score, unk.type = "<unk>", 0.0, sp_pb.ModelProto.SentencePiece.UNKNOWN
    for piece, score in vocab:
        entry = proto.pieces.add()
        entry.piece, entry.score = piece, score
    proto.trainer_spec.model_type = model_type
    proto.normalizer_spec.name = "identity"
    proto.normalizer_spec.add_dummy_prefix = False
    proto.normalizer_spec.remove_extra_whitespaces = False
    return proto


def load_pair(tmp_path, proto, name="m.model"):
    path = tmp_path / name
    path.write_bytes(proto.SerializeToString())
    return spm.SentencePieceProcessor(model_file=str(path)), load_sentencepiece_model(path)


@settings(max_examples=200, deadline=None)
@given(step=STEPS, pieces=PIECES, texts=st.lists(TEXT, min_size=1, max_size=4))
def test_near_ties_in_model_files_break_as_sentencepiece_breaks_them(tmp_path_factory, step, pieces, texts):
    sp, ours = load_pair(tmp_path_factory.mktemp("ties"), model_proto(near_tied_vocab(step, pieces)))
    for text in texts:
        assert ours.encode(text).ids == sp.encode(text)
        assert ours.encode(text).tokens == sp.encode(text, out_type=str)  # unknown runs: their text
    assert [e.ids for e in ours.encode_batch(texts)] == sp.encode(texts)


def train(**options):
    proto = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(TEXTS[:2000]),
        model_writer=proto,
        vocab_size=400,
        num_threads=1,
        minloglevel=2,
        hard_vocab_limit=False,
        **options,
    )
    return proto.getvalue()


PROBES = [*TEXTS[:150], "  Return  the  of the 🤗🤗 x  ", "Zürich ５ 42 ...", "a\tb", "▁ ▁x"]

# options a trained .model may carry that kvec follows exactly
FOLLOWED = {
    "unigram_defaults": dict(model_type="unigram"),
    "bpe_no_whitespace_split": dict(model_type="bpe", split_by_whitespace=False),
    "unigram_no_whitespace_split": dict(model_type="unigram", split_by_whitespace=False),
    "bpe_no_script_split": dict(model_type="bpe", split_by_unicode_script=False, split_by_number=False),
    "unigram_no_script_split": dict(model_type="unigram", split_by_unicode_script=False, split_by_number=False),
    "bpe_whitespace_pieces": dict(model_type="bpe", allow_whitespace_only_pieces=True, remove_extra_whitespaces=False),
    "unigram_whitespace_pieces": dict(
        model_type="unigram", allow_whitespace_only_pieces=True, remove_extra_whitespaces=False
    ),
    "bpe_digits_bytes": dict(model_type="bpe", split_digits=True, byte_fallback=True, split_by_whitespace=False),
    "unigram_no_prefix": dict(model_type="unigram", add_dummy_prefix=False),
    "bpe_no_prefix": dict(model_type="bpe", add_dummy_prefix=False, remove_extra_whitespaces=False),
    "unigram_nfkc_cf": dict(model_type="unigram", normalization_rule_name="nmt_nfkc_cf"),
    "unigram_symbols": dict(model_type="unigram", user_defined_symbols=["the", "42"], control_symbols=["<x>"]),
    "bpe_symbols": dict(model_type="bpe", user_defined_symbols=["the"], control_symbols=["<x>"]),
}


@pytest.mark.parametrize("name", sorted(FOLLOWED))
def test_followed_options_give_sentencepiece_ids(tmp_path, name):
    path = tmp_path / f"{name}.model"
    path.write_bytes(train(**FOLLOWED[name]))
    sp, ours = spm.SentencePieceProcessor(model_file=str(path)), load_sentencepiece_model(path)
    assert [ours.encode(text).ids for text in PROBES] == sp.encode(PROBES)
    assert [e.ids for e in ours.encode_batch(PROBES)] == sp.encode(PROBES)


@pytest.mark.parametrize("model_type", ["unigram", "bpe"])
def test_whitespace_as_suffix_is_refused_by_name(tmp_path, model_type):
    path = tmp_path / "suffix.model"
    path.write_bytes(train(model_type=model_type, treat_whitespace_as_suffix=True))
    with pytest.raises(FormatError, match="suffix.model: treat_whitespace_as_suffix"):
        load_sentencepiece_model(path)


def test_a_denormalizer_is_refused_by_name(tmp_path):
    proto = sp_pb.ModelProto()
    proto.ParseFromString(train(model_type="unigram"))
    proto.denormalizer_spec.precompiled_charsmap = proto.normalizer_spec.precompiled_charsmap
    path = tmp_path / "denormalizing.model"
    path.write_bytes(proto.SerializeToString())
    with pytest.raises(FormatError, match="denormalizing.model: a denormalizer_spec"):
        load_sentencepiece_model(path)


def test_unknown_runs_are_their_text_in_loaded_files(tmp_path):
    proto = model_proto([("a", -1.0), ("b", -2.0), ("ab", -2.5)])
    sp, ours = load_pair(tmp_path, proto)
    for text in ["🤗🤗x", "a🤗🤗xb", "xab", "<unk>"]:
        assert ours.encode(text).ids == sp.encode(text)
        assert ours.encode(text).tokens == sp.encode(text, out_type=str)
