"""Hugging Face's chain decoders (Replace, ByteFallback, Fuse, Strip, CTC, BPEDecoder, Sequence) against
``tokenizers`` 0.23: each decoder's text for any token list, a pipeline's C decoding of ids through a
chain, byte-fallback runs that are not UTF-8 (as ``tokenizers`` and sentencepiece read them), and
tokenizer.json both ways."""

import io
import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kvec import decoders
from kvec.common.patterns import Regex
from kvec.interop import load_sentencepiece_model
from kvec.interop.huggingface import from_tokenizer_json_str, to_tokenizer_json_str
from kvec.models import WordPiece
from kvec.pipeline import Pipeline
from tests.support import TEXTS, Oracle

hf = Oracle("tokenizers")

BYTE_TOKENS = ["<0x41>", "<0xC3>", "<0xA9>", "<0xE5>", "<0x8F>", "<0xA5>", "<0xF0>", "<0x9F>", "<0x98>", "<0x80>"]
ODD_BYTE_TOKENS = ["<0xc3>", "<0x+F>", "<0x-0>", "<0x f>", "<0x1_>", "<0x١١>", "<0xé>", "<0xED>", "<0xA0>"]
TOKENS = BYTE_TOKENS + ODD_BYTE_TOKENS
TOKENS += ["▁", "▁Hey", "▁▁a", "a▁b", "##a", "##", "b##", "lo</w>", "</w>", "<pad>", "|", "a|b", "<pad>|"]
TOKENS += ["", " ", "  ", " x ", "x", "xx", " .", ".", " 's", "'s", " n't", "do", " do not", "中", "😀", "\t"]
TOKEN_LISTS = st.lists(st.sampled_from(TOKENS), max_size=12)
CHARS = st.sampled_from([" ", "▁", "x", "a", "|", "#", "<", "0"])
TEXTS_SHORT = st.text(st.sampled_from(["", " ", "▁", "x", "a", "|", "#", "<pad>", "</w>"]), max_size=6)


@st.composite
def decoder_specs(draw, depth=0):
    """A ``(kind, arguments)`` description of one decoder, built the same way in kvec and in tokenizers."""
    kinds = ["Replace", "ReplaceRegex", "ByteFallback", "Fuse", "Strip", "CTC", "BPEDecoder", "WordPiece"]
    kinds += ["Metaspace", "ByteLevel"] + (["Sequence"] if depth < 2 else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "Replace":
        return kind, (draw(st.sampled_from(["▁", "a", "x", "##", "", " "])), draw(st.sampled_from([" ", "", "Z"])))
    if kind == "ReplaceRegex":
        return kind, (draw(st.sampled_from(["a*", "[0-9]+", "(?=x)", "▁+", "\\s"])), draw(st.sampled_from([" ", ""])))
    if kind == "Strip":
        return kind, (draw(CHARS), draw(st.integers(0, 3)), draw(st.integers(0, 3)))
    if kind == "CTC":
        return kind, (draw(st.sampled_from(["<pad>", "x"])), draw(st.sampled_from(["|", "a"])), draw(st.booleans()))
    if kind == "BPEDecoder":
        return kind, (draw(st.sampled_from(["</w>", "x", ""])),)
    if kind == "WordPiece":
        return kind, (draw(st.sampled_from(["##", "b"])), draw(st.booleans()))
    if kind == "Metaspace":
        return kind, (draw(st.sampled_from(["▁", "x"])), draw(st.sampled_from(["always", "never", "first"])))
    if kind == "Sequence":
        return kind, (draw(st.lists(decoder_specs(depth + 1), max_size=4)),)
    return kind, ()


def build(module, spec):
    kind, arguments = spec
    if kind == "ReplaceRegex":
        regex_class = Regex if module is decoders else hf.Regex
        return module.Replace(regex_class(arguments[0]), arguments[1])
    if kind == "Strip":
        content, left, right = arguments
        return module.Strip(content, left, right)
    if kind == "Metaspace":
        return module.Metaspace(replacement=arguments[0], prepend_scheme=arguments[1])
    if kind == "Sequence":
        return module.Sequence([build(module, part) for part in arguments[0]])
    return getattr(module, kind)(*arguments)


LLAMA = ("Sequence", ([("Replace", ("▁", " ")), ("ByteFallback", ()), ("Fuse", ()), ("Strip", (" ", 1, 0))],))


def hf_outcome(function):
    """tokenizers' result, or None where it panics (Strip past a token's ends)."""
    try:
        return function()
    except BaseException as error:  # PanicException derives from BaseException
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        return None


def hf_decode(decoder, tokens):
    return hf_outcome(lambda: decoder.decode(tokens))


@settings(max_examples=400)
@given(decoder_specs(), TOKEN_LISTS)
def test_each_decoder_decodes_as_hugging_face(spec, tokens):
    want = hf_decode(build(hf.decoders, spec), tokens)
    assume(want is not None)
    ours = build(decoders, spec)
    assert ours.decode(tokens) == want
    pieces = ours.pieces()
    if pieces is not None:  # the form the pipeline decodes in C
        assert pieces.decode(tokens) == want


@given(TOKEN_LISTS)
def test_the_llama_decoder_is_exact_and_decodes_natively(tokens):
    ours = build(decoders, LLAMA)
    assert ours.pieces() is not None
    assert ours.decode(tokens) == build(hf.decoders, LLAMA).decode(tokens)


def test_invalid_byte_runs_give_one_replacement_per_byte():
    tokens = ["<0xE5>", "<0x8F>"]
    assert decoders.ByteFallback().decode(tokens) == hf.decoders.ByteFallback().decode(tokens) == "\ufffd\ufffd"
    # a run is read whole: one byte that breaks it makes every byte of it a U+FFFD
    tokens = ["a", "<0x41>", "<0xE5>", "b", "<0xC3>", "<0xA9>"]
    assert decoders.ByteFallback().decode(tokens) == hf.decoders.ByteFallback().decode(tokens)


def wordpiece_pipeline(vocab, decoder):
    tokenizer = Pipeline(WordPiece({t: i for i, t in enumerate(vocab)}, unk_token=vocab[0]), decoder=decoder)
    tokenizer.add_special_tokens(["[S]"])
    return tokenizer


def hf_word_level(vocab, decoder):
    tokenizer = hf.Tokenizer(hf.models.WordLevel({t: i for i, t in enumerate(vocab)}, unk_token=vocab[0]))
    tokenizer.decoder = decoder
    tokenizer.add_special_tokens(["[S]"])
    return tokenizer


VOCAB = ["[UNK]"] + sorted(set(TOKENS) - {""})


@settings(max_examples=150)
@given(
    st.one_of(st.just(LLAMA), decoder_specs()),
    st.lists(st.lists(st.integers(0, len(VOCAB)), max_size=12), max_size=4),
    st.booleans(),
)
def test_pipelines_decode_ids_through_a_chain_as_hugging_face(spec, rows, skip):
    theirs = hf_word_level(VOCAB, build(hf.decoders, spec))
    want = [hf_outcome(lambda ids=ids: theirs.decode(ids, skip_special_tokens=skip)) for ids in rows]
    assume(None not in want)
    ours = wordpiece_pipeline(VOCAB, build(decoders, spec))
    assert ours.decode_batch(rows, skip_special_tokens=skip) == want
    assert [ours.decode(ids, skip_special_tokens=skip) for ids in rows] == want


def test_a_chain_decodes_in_c_and_a_decoder_change_is_seen():
    ours = wordpiece_pipeline(VOCAB, build(decoders, LLAMA))
    assert ours._piece_table() is not None
    ids = [VOCAB.index(t) for t in ["▁Hey", "<0xE5>", "<0x8F>", "▁▁a"]]
    assert ours.decode(ids) == hf_word_level(VOCAB, build(hf.decoders, LLAMA)).decode(ids)
    ours.decoder.decoders[-1].left = 0  # the table is made again for the new settings
    unstripped = ("Sequence", (LLAMA[1][0][:3],))
    assert ours.decode(ids) == hf_word_level(VOCAB, build(hf.decoders, unstripped)).decode(ids)
    assert wordpiece_pipeline(VOCAB, decoders.CTC())._piece_table() is None  # CTC is decoded in Python


@pytest.fixture(scope="module")
def byte_fallback_model(tmp_path_factory):
    spm = pytest.importorskip("sentencepiece")
    proto = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(TEXTS),
        model_writer=proto,
        vocab_size=400,
        model_type="bpe",
        byte_fallback=True,
        num_threads=1,
        minloglevel=2,
    )
    path = tmp_path_factory.mktemp("sp") / "bytes.model"
    path.write_bytes(proto.getvalue())
    return spm.SentencePieceProcessor(model_file=str(path)), load_sentencepiece_model(path)


@settings(max_examples=200)
@given(data=st.data())
def test_sentencepiece_byte_runs_decode_as_sentencepiece(byte_fallback_model, data):
    sp, ours = byte_fallback_model
    # normal pieces and byte pieces (not 0xED, whose surrogate forms kvec keeps and sentencepiece does not)
    byte_ids = [sp.piece_to_id(f"<0x{b:02X}>") for b in range(256) if b != 0xED]
    normal = [i for i in range(sp.get_piece_size()) if not (sp.is_byte(i) or sp.is_control(i) or sp.is_unknown(i))]
    # after a first word (sentencepiece drops the dummy prefix's space by rules of its own at the start)
    ids = [sp.piece_to_id("▁t")] + data.draw(st.lists(st.sampled_from(byte_ids + normal[:60]), max_size=12))
    want = sp.decode(ids)
    assert ours.decode(ids) == want  # the C table
    assert ours.decoder.decode([sp.id_to_piece(i) for i in ids]) == want
    assert (
        sp.decode([byte_ids[0xE5], byte_ids[0x8F]]) == ours.decode([byte_ids[0xE5], byte_ids[0x8F]]) == "\ufffd\ufffd"
    )


# ---- tokenizer.json both ways ------------------------------------------------------------------


@settings(max_examples=60)
@given(st.one_of(st.just(LLAMA), decoder_specs()), st.lists(st.lists(st.integers(0, len(VOCAB) - 1), max_size=10)))
def test_decoders_go_through_tokenizer_json_both_ways(spec, rows):
    theirs = hf_word_level(VOCAB, build(hf.decoders, spec))
    want = [hf_outcome(lambda ids=ids: theirs.decode(ids)) for ids in rows]
    assume(None not in want)
    loaded = from_tokenizer_json_str(theirs.to_str())  # Hugging Face writes, kvec reads
    assert loaded.decode_batch(rows) == want
    ours = wordpiece_pipeline(VOCAB, build(decoders, spec))
    document = json.loads(to_tokenizer_json_str(ours))  # kvec writes, Hugging Face reads
    document["model"] = json.loads(theirs.to_str())["model"]  # the same vocabulary as a WordLevel model
    again = hf.Tokenizer.from_str(json.dumps(document))
    assert [again.decode(ids) for ids in rows] == want
    assert Pipeline.from_str(ours.to_str()).decode_batch(rows) == want  # kvec's own format
