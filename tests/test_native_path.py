"""The native encode path: normalizer, pre-tokenizer, model and post-processor in one C pass, with the
ids, type ids and special-token masks of Hugging Face tokenizers, on any number of threads."""

import gc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvec._encoder import encodings
from kvec.interop.huggingface import from_tokenizer_json_str
from kvec.models import BPE, Unigram, WordPiece
from kvec.normalizers import NFC, BertNormalizer
from kvec.pipeline import Encoding, Pipeline
from kvec.pretokenizers import BertPreTokenizer, WhitespaceSplit
from kvec.processors import TemplateProcessing
from tests.support import BPE_MERGES, BPE_VOCAB, TEXT, TEXTS, Oracle, hf_llama3, hf_trained, small_bpe

MARKS = st.lists(st.sampled_from(["a", "e\u0301", "\u0323", "\u0301", " ", "[SEP]", "Ça", "中"]), max_size=8).map(
    "".join
)


@pytest.fixture(scope="module")
def bert():
    theirs = hf_trained("bert_wordpiece")
    return theirs, from_tokenizer_json_str(theirs.to_str())


@given(texts=st.lists(st.one_of(TEXT, MARKS), max_size=8))
def test_bert_encode_batch_equals_hf(bert, texts):
    theirs, ours = bert
    assert ours._fast_encoder() is not None  # BertNormalizer, BertPreTokenizer and the template run natively
    expected = theirs.encode_batch(texts)
    for n_threads in (1, 3):
        got = ours.encode_batch(texts, n_threads=n_threads)
        assert [e.ids for e in got] == [e.ids for e in expected]
        assert [e.type_ids for e in got] == [e.type_ids for e in expected]
        assert [e.special_tokens_mask for e in got] == [e.special_tokens_mask for e in expected]
        values, row_lengths = ours.encode_ragged(texts, n_threads=n_threads)
        assert row_lengths.tolist() == [len(e.ids) for e in expected]
        assert values.tolist() == [i for e in expected for i in e.ids]


def test_bert_real_text_on_threads_equals_hf(bert):
    theirs, ours = bert
    texts = TEXTS * 4  # enough for several parts per thread
    expected = [e.ids for e in theirs.encode_batch(texts)]
    assert [e.ids for e in ours.encode_batch(texts, n_threads=4)] == expected


def test_template_ids_go_around_texts_the_normalizer_leaves_to_python():
    # e + acute + dot below is reordered by NFC's context, so that text takes the Python path
    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "x": 3, "\u1eb9\u0301": 4, "##\u0301": 5}
    template = TemplateProcessing("[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
    tok = Pipeline(WordPiece(vocab), pre_tokenizer=BertPreTokenizer(), normalizer=NFC(), post_processor=template)
    texts = ["x", "e\u0301\u0323", "", "x x"]
    assert [e.ids for e in tok.encode_batch(texts)] == [tok.encode(t).ids for t in texts]
    assert tok.encode("e\u0301\u0323").ids == [1, 4, 2]


def test_a_template_that_does_more_than_add_ids_takes_the_python_path():
    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "x": 3}
    pair_only = TemplateProcessing("$A [SEP] $B:1", "$A [SEP] $B:1", special_tokens=[("[SEP]", 2)])
    assert pair_only.single_affixes() is None
    tok = Pipeline(WordPiece(vocab), pre_tokenizer=BertPreTokenizer(), post_processor=pair_only)
    assert tok._fast_encoder() is None
    assert TemplateProcessing("$A").single_affixes() == ([], [])


@pytest.mark.parametrize(
    "n_threads, error", [(0, ValueError), (-2, ValueError), (1.5, TypeError), (True, TypeError), ("2", TypeError)]
)
def test_n_threads_is_checked(n_threads, error):
    tok = Pipeline(WordPiece({"[UNK]": 0, "x": 1}), pre_tokenizer=BertPreTokenizer(), normalizer=BertNormalizer())
    with pytest.raises(error, match="n_threads"):
        tok.encode_batch(["x"], n_threads=n_threads)
    with pytest.raises(error, match="n_threads"):
        tok.encode_ragged(["x"], n_threads=n_threads)


@given(texts=st.lists(st.one_of(TEXT, MARKS), max_size=6))
def test_batch_encodings_work_out_tokens_and_offsets_as_encode(bert, texts):
    _, ours = bert
    for batch, single in zip(ours.encode_batch(texts), [ours.encode(text) for text in texts]):
        assert (batch.ids, batch.tokens, batch.offsets) == (single.ids, single.tokens, single.offsets)
        assert (batch.type_ids, batch.special_tokens_mask, batch.attention_mask) == (
            single.type_ids,
            single.special_tokens_mask,
            single.attention_mask,
        )


def test_encodings_are_made_only_for_a_class_with_the_slots():
    class NoSlots:
        pass

    with pytest.raises(TypeError, match="ids"):
        encodings(NoSlots, b"", b"", None, [])
    with pytest.raises(ValueError, match="texts"):
        encodings(Encoding, b"", b"\x00" * 8, None, [])


@given(texts=st.lists(st.one_of(TEXT, MARKS), min_size=1, max_size=12), copies=st.integers(40, 90))
def test_a_batch_in_many_parts_on_threads_equals_hf(bert, texts, copies):
    # hundreds of texts: several parts per thread, each with its own texts left to the full path (an
    # added token, a contextual mark), made into encodings while the threads encode the next parts
    theirs, ours = bert
    batch = texts * copies
    expected = theirs.encode_batch(batch)
    got = ours.encode_batch(batch, n_threads=2)
    assert [e.ids for e in got] == [e.ids for e in expected]
    assert [e.offsets for e in got[: len(texts)]] == [e.offsets for e in expected[: len(texts)]]
    values, row_lengths = ours.encode_ragged(batch, n_threads=3)
    assert row_lengths.tolist() == [len(e.ids) for e in expected]
    assert values.tolist() == [i for e in expected for i in e.ids]


def test_batch_encodings_are_left_out_of_the_cycle_collector(bert):
    _, ours = bert
    encoding = ours.encode_batch(["a line of text"])[0]
    assert not gc.is_tracked(encoding) and not gc.is_tracked(encoding.ids)
    assert encoding.ids == ours.encode("a line of text").ids


hf = Oracle("tokenizers")


@given(word=st.text(st.sampled_from("abcdeé中#"), min_size=1, max_size=12))
def test_the_native_wordpiece_segments_as_hugging_face(word):
    # the native encoder's WordPiece, and the model's own ids and spans, against tokenizers'
    vocab = {"[UNK]": 0, "a": 1, "ab": 2, "##b": 3, "##c": 4, "c": 5, "##cd": 6, "é": 7, "中": 8, "##中": 9, "#": 10}
    model = WordPiece(vocab, max_input_chars_per_word=10)
    tok = Pipeline(model, pre_tokenizer=WhitespaceSplit())
    theirs = hf.Tokenizer(hf.models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=10))
    theirs.pre_tokenizer = hf.pre_tokenizers.WhitespaceSplit()
    expected = theirs.encode(word)
    assert tok._fast_encoder() is not None
    assert tok.encode_ragged([word])[0].tolist() == model.ids_function()(word) == expected.ids
    assert [(i, s, e) for i, s, e in model.tokenize_spans(word)] == [
        (i, *o) for i, o in zip(expected.ids, expected.offsets)
    ]


def test_a_word_the_native_encoder_leaves_to_python_raises_there():
    model = WordPiece({"a": 0, "##b": 1}, unk_token="[UNK]")  # no [UNK] in the vocabulary
    tok = Pipeline(model, pre_tokenizer=WhitespaceSplit())
    assert tok.encode_ragged(["ab a"])[0].tolist() == [0, 1, 0]
    with pytest.raises(ValueError, match="UNK"):
        tok.encode_ragged(["ab x"])


def test_a_model_with_an_id_outside_int32_is_refused_before_any_description():
    for token_id in (2**70, 2**31, -1):
        with pytest.raises(ValueError, match=r"vocab\['a'\] = .* is out of range: ids are 0 to 2147483647"):
            WordPiece({"[UNK]": 0, "a": token_id})


@pytest.mark.parametrize("prefix", [None, "##"])
@pytest.mark.parametrize("suffix", [None, "</w>"])
@pytest.mark.parametrize("byte_fallback", [False, True])
@pytest.mark.parametrize("unk_token", [None, "[UNK]"])
@pytest.mark.parametrize("fuse_unk", [False, True])
@pytest.mark.parametrize("ignore_merges", [False, True])
@given(word=st.text(st.sampled_from("abcé中x"), min_size=1, max_size=8))
def test_the_native_bpe_segments_as_the_model(prefix, suffix, byte_fallback, unk_token, fuse_unk, ignore_merges, word):
    model = small_bpe(
        prefix, suffix, unk_token=unk_token, byte_fallback=byte_fallback, fuse_unk=fuse_unk, ignore_merges=ignore_merges
    )
    tok = Pipeline(model, pre_tokenizer=WhitespaceSplit())
    assert tok._fast_encoder() is not None
    assert tok.encode_ragged([word])[0].tolist() == model.tokenize_ids(word)


@pytest.mark.parametrize("ignore_merges", [False, True])
@given(texts=st.lists(st.text(st.sampled_from("ab é中\U0001f600\ud800x"), max_size=8), min_size=1, max_size=5))
def test_the_native_bpe_spells_bytes_as_byte_level(ignore_merges, texts):
    theirs = hf_trained("bytelevel_bpe")
    theirs.model.ignore_merges = ignore_merges
    theirs.add_tokens([])  # the model's setting in effect
    ours = from_tokenizer_json_str(theirs.to_str())
    assert ours.model.ignore_merges == ignore_merges
    assert ours._fast_encoder() is not None
    texts = [t for t in texts if not any("\ud800" <= c <= "\udfff" for c in t)]  # HF cannot take them
    assert [e.ids for e in ours.encode_batch(texts * 40, n_threads=2)] == [
        e.ids for e in theirs.encode_batch(texts * 40)
    ]


def test_bpe_without_its_unk_token_in_the_vocabulary_raises_on_the_native_path():
    model = BPE({"a": 0, "b": 1}, [], unk_token="[UNK]")
    tok = Pipeline(model, pre_tokenizer=WhitespaceSplit())
    assert tok.encode_ragged(["ab a"])[0].tolist() == [0, 1, 0]
    with pytest.raises(ValueError, match="UNK"):
        tok.encode_ragged(["ab x"])


@given(texts=st.lists(st.text(st.sampled_from("abc x"), max_size=12), min_size=1, max_size=6), seed=st.integers(0, 99))
def test_bpe_dropout_on_the_native_path_draws_as_encode_does(texts, seed):
    # every word drawn afresh, in order, from the generator random.Random(seed) would be
    vocab = {t: i for i, t in enumerate(BPE_VOCAB)}

    def tok():
        model = BPE(vocab, BPE_MERGES[:2], unk_token="[UNK]", dropout=0.5, seed=seed)
        return Pipeline(model, pre_tokenizer=WhitespaceSplit())

    native = tok()
    assert native._fast_encoder() is None  # sampling is not described: the reference encoder draws
    batch = [e.ids for e in native.encode_batch(texts * 30, n_threads=2)]
    one_by_one = tok()
    assert batch == [one_by_one.encode(text).ids for text in texts * 30]
    assert tok().encode_ragged(texts * 30, n_threads=3)[0].tolist() == [i for ids in batch for i in ids]


@pytest.mark.parametrize("byte_fallback", [False, True])
@given(word=st.text(st.sampled_from("abcé中<unk>\U0001f600"), min_size=1, max_size=10))
def test_the_native_unigram_segments_as_ids_function(byte_fallback, word):
    pieces = [("<unk>", 0.0), ("a", -1.0), ("b", -2.0), ("ab", -1.5), ("abc", -2.5), ("c", -3.0), ("é", -4.0)]
    pieces += [(f"<0x{b:02X}>", -8.0) for b in range(256)] if byte_fallback else []
    model = Unigram(pieces, unk_id=0, byte_fallback=byte_fallback)
    tok = Pipeline(model, pre_tokenizer=WhitespaceSplit())
    assert tok._fast_encoder() is not None
    assert tok.encode_ragged([word])[0].tolist() == model.ids_function()(word)


@given(texts=st.lists(st.text(st.sampled_from("ab Hello'sLL 12345\n\r\t(é中😀$"), max_size=16), min_size=1, max_size=5))
def test_llama3_shape_on_the_native_path_equals_hf(llama3, texts):
    # Split by cl100k's expression, then byte-level spelling without its own expression (Llama 3)
    theirs, ours = llama3
    expected = [e.ids for e in theirs.encode_batch(texts * 30)]
    assert [e.ids for e in ours.encode_batch(texts * 30, n_threads=2)] == expected
    assert [ours.encode(t).ids for t in texts] == expected[: len(texts)]


@pytest.fixture(scope="module")
def llama3():
    theirs = hf_llama3()
    ours = from_tokenizer_json_str(theirs.to_str())
    assert ours._fast_encoder() is not None and ours.model.ignore_merges
    return theirs, ours
