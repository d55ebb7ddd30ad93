"""Each file keeps its library's meaning on every route: a Unigram ``tokenizer.json`` of sentencepiece's
shape segments as ``tokenizers`` does (a lattice per word), a ``.model`` and ``sentencepiece_style`` as
sentencepiece does (a lattice per text, byte pieces only for fallback), and ``save_tokenizer_json``
refuses to write a pipeline whose ids ``tokenizers`` would change, unless told to."""

import functools
import io
import json
import math
import warnings
from array import array

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvec._spec import SpecEncoder
from kvec.errors import MeaningError
from kvec.files.json_numbers import serde_json_float, serde_readable
from kvec.interop import load_sentencepiece_model, load_tokenizer_json, save_tokenizer_json
from kvec.interop.huggingface import from_tokenizer_json_str, to_tokenizer_json_str
from kvec.models import Unigram
from kvec.native_spec import describe
from kvec.pipeline import Pipeline
from kvec.presets import keras_subword, sentencepiece_style
from kvec.pretokenizers import SentencePiece
from kvec.trainers import UnigramTrainer
from tests.support import NEAR_TIED_VOCAB, RUN_TEXT, SHAPES, Oracle, hf_sentencepiece_shaped

spm = Oracle("sentencepiece")


@pytest.mark.parametrize("shape", SHAPES)
@given(vocab=NEAR_TIED_VOCAB, texts=st.lists(RUN_TEXT, min_size=1, max_size=4))
def test_sentencepiece_shaped_tokenizer_json_segments_each_word_as_tokenizers(shape, vocab, texts):
    theirs = hf_sentencepiece_shaped(vocab, shape)
    ours = from_tokenizer_json_str(theirs.to_str())
    expected = [e.ids for e in theirs.encode_batch(texts)]
    assert [ours.encode(text).ids for text in texts] == expected
    assert [e.ids for e in ours.encode_batch(texts)] == expected
    assert [e.ids for e in ours.encode_batch(texts, n_threads=2)] == expected
    # written back by kvec, the file still means the same to tokenizers
    again = Oracle("tokenizers", "Tokenizer").from_str(to_tokenizer_json_str(ours))
    assert [e.ids for e in again.encode_batch(texts)] == expected


def test_the_reported_run_of_dashes_is_cut_as_tokenizers_cuts_it():
    # '-' costs 1.1 and each longer run its length times that: every cut of a run ties, but for the
    # rounding of the sums; a lattice over the whole text rounds differently from one per word
    vocab = [("<unk>", 0.0), ("▁", -1.0), ("▁a", -1.0)] + [("-" * k, -1.1 * k) for k in range(1, 15)]
    vocab += [("▁" + "-" * 14, -1.1 * 14)]
    theirs = hf_sentencepiece_shaped(vocab, "split")
    ours = from_tokenizer_json_str(theirs.to_str())
    texts = ["a " + "-" * k for k in range(10, 40)]
    expected = [e.ids for e in theirs.encode_batch(texts)]
    assert [ours.encode(text).ids for text in texts] == expected
    assert [e.ids for e in ours.encode_batch(texts)] == expected


# ---- sentencepiece's meaning: .model files and sentencepiece_style

RUNS_CORPUS = ["=" * k + " a" for k in range(1, 80)] + ["." + "-" * k + " b" for k in range(1, 60)]


def train_sentencepiece(byte_fallback):
    proto = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(RUNS_CORPUS),
        model_writer=proto,
        model_type="unigram",
        vocab_size=300 if byte_fallback else 40,
        byte_fallback=byte_fallback,
        normalization_rule_name="identity",
        remove_extra_whitespaces=False,  # spaces as sentencepiece_style reads them
        hard_vocab_limit=False,
        num_threads=1,
        minloglevel=2,
    )
    return proto.getvalue()


@functools.cache
def sentencepiece_model(byte_fallback=False):
    return train_sentencepiece(byte_fallback)


def pieces_of(sp):
    return [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]


SP_WORD = st.one_of(
    st.tuples(st.sampled_from(".=-"), st.integers(1, 60)).map(lambda run: run[0] * run[1]),
    st.sampled_from([".", "a", "b", "." + "=" * 49, "<0x41>", "x"]),
)
SP_TEXT = st.lists(SP_WORD, min_size=1, max_size=5).map(" ".join)


@given(texts=st.lists(SP_TEXT, min_size=1, max_size=4))
def test_sentencepiece_style_of_a_models_pieces_gives_sentencepieces_ids(texts):
    sp = spm.SentencePieceProcessor(model_proto=sentencepiece_model())
    ours = sentencepiece_style(Unigram(pieces_of(sp), unk_id=sp.unk_id()))
    assert ours.model.viterbi == "sentencepiece"  # a model made without a rule takes sentencepiece's
    assert [ours.encode(text).ids for text in texts] == sp.encode(texts)
    assert [e.ids for e in ours.encode_batch(texts)] == sp.encode(texts)


def test_the_reported_run_of_equals_signs_is_cut_as_sentencepiece_cuts_it():
    sp = spm.SentencePieceProcessor(model_proto=sentencepiece_model())
    ours = sentencepiece_style(Unigram(pieces_of(sp), unk_id=sp.unk_id()))
    texts = ["." + "=" * k for k in range(20, 80)]
    assert [ours.encode(text).ids for text in texts] == sp.encode(texts)
    assert [e.ids for e in ours.encode_batch(texts)] == sp.encode(texts)


def test_an_explicit_hugging_face_rule_keeps_its_meaning_in_sentencepiece_style():
    sp = spm.SentencePieceProcessor(model_proto=sentencepiece_model())
    ours = sentencepiece_style(Unigram(pieces_of(sp), unk_id=sp.unk_id(), viterbi="huggingface"))
    assert ours.model.viterbi == "huggingface"
    theirs = Oracle("tokenizers", "Tokenizer").from_str(to_tokenizer_json_str(ours))  # no refusal: same meaning
    texts = ["." + "=" * k + " a " + "-" * k for k in range(20, 80)]
    expected = [e.ids for e in theirs.encode_batch(texts)]
    assert [ours.encode(text).ids for text in texts] == expected
    assert [e.ids for e in ours.encode_batch(texts)] == expected


@pytest.mark.parametrize("text", ["a<0x41>b", "<0x41>", "=<0xE4><0xB8><0xAD>= <unk>"])
def test_byte_pieces_are_never_matched_in_text_by_sentencepieces_meaning(tmp_path, text):
    data = sentencepiece_model(byte_fallback=True)
    sp = spm.SentencePieceProcessor(model_proto=data)
    path = tmp_path / "bytes.model"
    path.write_bytes(data)
    loaded = load_sentencepiece_model(path)
    styled = sentencepiece_style(Unigram(pieces_of(sp), unk_id=sp.unk_id(), byte_fallback=True))
    for ours in (loaded, styled):
        assert ours.encode(text).ids == sp.encode(text)
        assert [e.ids for e in ours.encode_batch([text])] == [sp.encode(text)]
        assert ours.decode(ours.encode(text).ids) == sp.decode(sp.encode(text)) == text


def test_byte_pieces_are_matched_in_text_as_tokenizers_matches_them():
    # Hugging Face's trie holds every piece: a literal <0x41> is the byte piece, which decodes to "A"
    vocab = [("<unk>", 0.0), ("▁", -2.0), ("a", -3.0), ("<", -3.0), (">", -3.0), ("0", -3.0), ("x", -3.0)]
    vocab += [("4", -3.0), ("1", -3.0)] + [(f"<0x{b:02X}>", -10.0) for b in range(256)]
    tokenizers = Oracle("tokenizers")
    theirs = tokenizers.Tokenizer(tokenizers.models.Unigram(vocab, 0, True))
    theirs.pre_tokenizer = tokenizers.pre_tokenizers.Metaspace()
    ours = from_tokenizer_json_str(theirs.to_str())
    for text in ["a<0x41>b", "<0x41> <unk> é"]:
        assert ours.encode(text).ids == theirs.encode(text).ids
        assert ours.encode(text).tokens == theirs.encode(text).tokens
        assert [e.ids for e in ours.encode_batch([text])] == [theirs.encode(text).ids]


# ---- save_tokenizer_json: a file means what tokenizers makes of it


def test_a_sentencepiece_rule_is_refused_by_name_and_written_only_when_asked(tmp_path):
    sp = spm.SentencePieceProcessor(model_proto=sentencepiece_model())
    path = tmp_path / "model.model"
    path.write_bytes(sentencepiece_model())
    styled = sentencepiece_style(Unigram(pieces_of(sp), unk_id=sp.unk_id()))
    target = tmp_path / "tokenizer.json"
    for ours in (styled, load_sentencepiece_model(path)):
        with pytest.raises(
            MeaningError, match=r"model Unigram follows sentencepiece's rule .*huggingface_meaning=True"
        ):
            save_tokenizer_json(ours, target)
        assert not target.exists()
        with pytest.raises(MeaningError, match="model Unigram"):
            to_tokenizer_json_str(ours)
    with pytest.warns(UserWarning, match="written with Hugging Face's meaning") as caught:
        save_tokenizer_json(styled, target, huggingface_meaning=True)
    assert caught[0].filename == __file__  # the warning points at the caller
    # written with Hugging Face's meaning: tokenizers and kvec read the file alike
    theirs = Oracle("tokenizers", "Tokenizer").from_file(str(target))
    again = load_tokenizer_json(target)
    assert again.model.viterbi == "huggingface"
    texts = ["." + "=" * k + " a " + "-" * k for k in range(1, 60)]
    assert [e.ids for e in again.encode_batch(texts)] == [e.ids for e in theirs.encode_batch(texts)]
    assert [again.encode(text).ids for text in texts] == [e.ids for e in theirs.encode_batch(texts)]


def test_the_meaning_switch_must_be_a_bool(tmp_path):
    ours = sentencepiece_style(Unigram([("<unk>", 0.0), ("▁", -1.0), ("a", -2.0)], unk_id=0, viterbi="huggingface"))
    with pytest.raises(TypeError, match="huggingface_meaning must be a bool, got str"):
        save_tokenizer_json(ours, tmp_path / "t.json", huggingface_meaning="yes")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a pipeline of Hugging Face's meaning is written without a word
        save_tokenizer_json(ours, tmp_path / "t.json")
    assert json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))["model"]["type"] == "Unigram"


def test_kvec_json_keeps_the_rule_of_the_model():
    sp = spm.SentencePieceProcessor(model_proto=sentencepiece_model())
    ours = sentencepiece_style(Unigram(pieces_of(sp), unk_id=sp.unk_id()))
    again = type(ours).from_str(ours.to_str())
    assert again.model.viterbi == "sentencepiece"
    texts = ["." + "=" * k for k in range(20, 80)]
    assert [e.ids for e in again.encode_batch(texts)] == sp.encode(texts)


def test_a_trained_model_reads_a_literal_byte_piece_as_tokenizers_reads_its_file(tmp_path):
    ours = sentencepiece_style()
    ours.train_from_iterator(RUNS_CORPUS, UnigramTrainer(vocab_size=300, byte_fallback=True, show_progress=False))
    assert ours.model.viterbi == "huggingface"  # a trained model has Hugging Face's meaning
    save_tokenizer_json(ours, tmp_path / "tokenizer.json")  # so it is written without a word
    theirs = Oracle("tokenizers", "Tokenizer").from_file(str(tmp_path / "tokenizer.json"))
    text = "a <0x41> b"
    assert ours.encode(text).ids == theirs.encode(text).ids
    assert ours.decode(ours.encode(text).ids) == "a A b"


def test_split_digits_are_written_as_the_ascii_digits_they_are(tmp_path):
    # tokenizers' Digits isolates every Unicode number; sentencepiece's split_digits only 0-9
    ours = sentencepiece_style(split_digits=True)
    lines = RUNS_CORPUS + ["a1 b22 x٣٣y ٣٣٣ ²²"] * 20  # a piece '٣٣' that Digits would cut
    ours.train_from_iterator(lines, UnigramTrainer(vocab_size=80, show_progress=False))
    assert "٣٣" in ours.get_vocab()
    save_tokenizer_json(ours, tmp_path / "tokenizer.json")
    theirs = Oracle("tokenizers", "Tokenizer").from_file(str(tmp_path / "tokenizer.json"))
    again = load_tokenizer_json(tmp_path / "tokenizer.json")
    assert isinstance(again.pre_tokenizer, SentencePiece) and again.pre_tokenizer.split_digits
    texts = ["a٣b²c5", "=12 ٣٣ -²-", "b22a1", "x٣٣y ٣٣٣"]
    expected = [e.ids for e in theirs.encode_batch(texts)]
    assert [ours.encode(text).ids for text in texts] == expected
    assert [e.ids for e in ours.encode_batch(texts)] == expected
    assert [e.ids for e in again.encode_batch(texts)] == expected


def test_the_native_encoder_segments_each_merged_word_apart_by_hugging_faces_rule():
    model = Unigram([("<unk>", 0.0), ("▁", -1.0), ("a", -2.0)], unk_id=0)
    encoder = SpecEncoder(describe(Pipeline(model, pre_tokenizer=SentencePiece())))
    values, lengths = encoder.encode(["▁a▁aa", "a▁"])
    words = [["▁a", "▁aa"], ["a", "▁"]]
    assert array("q", values).tolist() == [i for text in words for word in text for i in model.tokenize_ids(word)]
    assert array("q", lengths).tolist() == [sum(len(model.tokenize_ids(word)) for word in text) for text in words]


# ---- scores as tokenizers reads them: a file means the model it was written from


def held_scores(text):
    """The scores ``tokenizers`` holds once it has read the tokenizer.json ``text`` (its own writing of
    a double is the shortest text Python reads back exactly)."""
    theirs = Oracle("tokenizers", "Tokenizer").from_str(text)
    return [score for _, score in json.loads(theirs.to_str())["model"]["vocab"]]


DECIMAL = st.builds(
    lambda integer, fraction, exponent: f"-{integer}.{fraction}{exponent}",
    st.from_regex(r"[1-9][0-9]{0,21}", fullmatch=True),
    st.from_regex(r"[0-9]{1,24}", fullmatch=True),
    st.sampled_from(["", "e-3", "e2", "e-25", "e-300"]),
)


@given(texts=st.lists(DECIMAL, min_size=1, max_size=30))
def test_a_score_is_read_from_its_text_as_tokenizers_reads_it(texts):
    # tokenizers' reading of JSON numbers (u64 digits, then one power of ten), on texts of every length
    written = json.loads(to_tokenizer_json_str(Pipeline(Unigram([("<unk>", 0.0)], unk_id=0))))
    written["model"]["vocab"] = "the vocabulary"
    vocab = ",".join(['["<unk>",0.0]'] + [f'["p{i}",{text}]' for i, text in enumerate(texts)])
    document = json.dumps(written).replace('"the vocabulary"', f"[{vocab}]")
    assert held_scores(document)[1:] == [serde_json_float(text) for text in texts]
    assert [score for _, score in from_tokenizer_json_str(document).model.pieces[1:]] == held_scores(document)[1:]


@given(scores=st.lists(st.floats(-40.0, -1e-3), min_size=1, max_size=40))
def test_tokenizers_reads_every_score_a_trainer_keeps_as_the_very_double(scores):
    kept = [serde_readable(score) for score in scores]
    assert all(abs(k - score) <= 4 * math.ulp(score) for k, score in zip(kept, scores))
    model = Unigram([("<unk>", 0.0)] + [(f"p{i}", score) for i, score in enumerate(kept)], unk_id=0)
    assert held_scores(to_tokenizer_json_str(Pipeline(model)))[1:] == kept


def test_a_trained_models_file_gives_its_ids_in_tokenizers(tmp_path):
    # kvec's Unigram trainers keep scores tokenizers reads exactly, so near ties break alike
    corpus = [f"{'^' * k} word{k % 7} {'=' * (k % 11)} text" for k in range(1, 120)]
    tok, trainer = keras_subword("unigram", 400)
    tok.train_from_iterator(corpus, trainer)
    save_tokenizer_json(tok, tmp_path / "tokenizer.json")
    text = (tmp_path / "tokenizer.json").read_text(encoding="utf-8")
    assert held_scores(text) == [score for _, score in tok.model.pieces]
    theirs = Oracle("tokenizers", "Tokenizer").from_file(str(tmp_path / "tokenizer.json"))
    texts = ["a " + "^" * k for k in range(1, 70)] + corpus[:20]
    assert [e.ids for e in tok.encode_batch(texts)] == [e.ids for e in theirs.encode_batch(texts)]
