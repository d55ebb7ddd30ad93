"""kvec's TensorFlow op (``KvecEncode`` over ``csrc/core/``) gives each pipeline's own ids, for any
text (invalid UTF-8 included), and refuses a description that is cut short or corrupt."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

tf = pytest.importorskip("tensorflow")

from kvec import Tokenizer  # noqa: E402
from kvec.chinese import MODES, Jieba  # noqa: E402
from kvec.interop.huggingface import from_tokenizer_json_str  # noqa: E402
from kvec.layers import op_library  # noqa: E402
from kvec.models import Unigram, WordPiece  # noqa: E402
from kvec.native_spec import NotNativeError, describe, describe_splitter  # noqa: E402
from kvec.normalizers import NFC, NFD, NFKC, NFKD, BertNormalizer, Lowercase, Prepend, Replace, StripAccents  # noqa: E402
from kvec.normalizers import Sequence as NormalizerSequence  # noqa: E402
from kvec.pipeline import Pipeline  # noqa: E402
from kvec.presets import keras_subword, sentencepiece_style  # noqa: E402
from kvec.pretokenizers import (  # noqa: E402
    BertPreTokenizer,
    ByteLevel,
    Digits,
    KerasFilters,
    Punctuation,
    Whitespace,
    WhitespaceSplit,
)
from kvec.pretokenizers import Sequence as PreTokenizerSequence  # noqa: E402
from kvec.processors import TemplateProcessing  # noqa: E402
from kvec.trainers import UnigramTrainer, WordPieceTrainer  # noqa: E402
from tests.support import (  # noqa: E402
    NEAR_TIED_VOCAB,
    RUN_TEXT,
    hf_llama3,
    hf_sentencepiece_shaped,
    hf_trained,
    small_bpe,
)
from tests.test_chinese import MIXED  # noqa: E402
from tests.test_unigram_meaning import pieces_of, sentencepiece_model, spm  # noqa: E402

LIBRARY = op_library.load()
pytestmark = pytest.mark.skipif(LIBRARY is None, reason="kvec's op library could not be built here")

PIECES = ["a", "b", "c", "ab", "abc", "é", "ß", "ss", "i", "中", "文", "x", "1", "12", ",", "!", "[", "]"]
VOCAB = {token: i + 3 for i, token in enumerate(PIECES + ["##" + p for p in PIECES])}
VOCAB.update({"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": len(VOCAB) + 3})
# marks of several combining classes (U+0323 220, U+0301 230, U+0345 240, U+1715 a spacing mark of 9) and
# characters that decompose into them (ṩ, ǖ, ﬁ, Hangul syllables and jamo) for the normalizers that
# decompose and compose
ALPHABET = "abcABCéÉßẞiİI中文x12,!.[] \t\n\u3000\u00a0\u0301\U0001f600ǅΣ\u0323\u0345\u1715ṩǖﬁ한가\u1100\u1161\u11a8"


def pipelines():
    bert = Pipeline(
        WordPiece(VOCAB),
        pre_tokenizer=BertPreTokenizer(),
        post_processor=TemplateProcessing("[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", VOCAB["[SEP]"])]),
    )
    bert.add_special_tokens(["[PAD]", "[UNK]"])
    lowered = Pipeline(WordPiece(VOCAB), normalizer=Lowercase(), pre_tokenizer=Whitespace())
    lowered.add_tokens(["abc!", "Zz"])
    lowered.add_special_tokens(["[PAD]"])
    keras_words = Pipeline(
        WordPiece(VOCAB, max_input_chars_per_word=5),
        normalizer=NormalizerSequence([StripAccents(), Lowercase()]),
        pre_tokenizer=KerasFilters(),
    )
    whole = Pipeline(WordPiece(VOCAB, continuing_subword_prefix=""))
    # normalizers that decompose: a table, the canonical ordering of marks, a table
    uncased = Pipeline(WordPiece(VOCAB), normalizer=BertNormalizer(), pre_tokenizer=BertPreTokenizer())
    uncased.add_special_tokens(["[PAD]", "[UNK]"])
    stripped = Pipeline(
        WordPiece(VOCAB),
        normalizer=NormalizerSequence([Replace("x", "ẋ"), NFKD(), StripAccents(), Lowercase()]),
        pre_tokenizer=Whitespace(),
    )
    stripped.add_tokens(["ab!"])
    decomposed = Pipeline(WordPiece(VOCAB, continuing_subword_prefix=""), normalizer=NFD())
    composed = Pipeline(WordPiece(VOCAB, continuing_subword_prefix=""), normalizer=NFC())
    compatible = Pipeline(
        WordPiece(VOCAB), normalizer=NormalizerSequence([NFKC(), Lowercase()]), pre_tokenizer=Whitespace()
    )
    return {
        "bert": bert,
        "lowercase_added": lowered,
        "keras_filters": keras_words,
        "whole_text": whole,
        "bert_uncased": uncased,
        "nfkd_strip_lowercase": stripped,
        "nfd_whole_text": decomposed,
        "nfc_whole_text": composed,
        "nfkc_lowercase": compatible,
    }


PIPELINES = pipelines()


def op_ids(pipeline, raw_texts):
    values, splits = LIBRARY.kvec_encode(tf.constant(raw_texts, dtype=tf.string), spec=describe(pipeline))
    return tf.RaggedTensor.from_row_splits(values, splits).to_list()


TEXT = st.text(st.sampled_from(ALPHABET), max_size=30)
RAW = st.one_of(
    TEXT.map(str.encode),
    st.binary(max_size=20),
    st.lists(st.sampled_from([b"ab", b"\xc3", b"\xa9", b"\xe4\xb8", b"\xed\xa0\x80", b"[PAD]", b" "]), max_size=8).map(
        b"".join
    ),
)


@pytest.mark.parametrize("name", sorted(PIPELINES))
@given(raw_texts=st.lists(RAW, max_size=5))
def test_the_op_gives_the_pipelines_ids(name, raw_texts):
    pipeline = PIPELINES[name]
    texts = [raw.decode("utf-8", "surrogateescape") for raw in raw_texts]
    assert op_ids(pipeline, raw_texts) == [encoding.ids for encoding in pipeline.encode_batch(texts)]


def test_a_word_without_a_piece_or_an_unknown_token_is_an_error_as_in_python():
    pipeline = Pipeline(WordPiece({"a": 0, "##b": 1}), pre_tokenizer=WhitespaceSplit())
    assert op_ids(pipeline, [b"ab a"]) == [[0, 1, 0]]
    with pytest.raises(ValueError, match="UNK"):
        pipeline.encode("ab q")
    with pytest.raises(tf.errors.InvalidArgumentError, match="text 1 has a word that matches no piece"):
        op_ids(pipeline, [b"a", b"ab q"])


def wordpiece_past_its_checks(vocab):
    """A WordPiece whose vocabulary was changed after the constructor's checks (which refuse a negative id)."""
    model = WordPiece({token: 0 for token in vocab})
    model.vocab.update(vocab)
    return model


@pytest.mark.parametrize(
    "pipeline, stage",
    [
        (Pipeline(WordPiece(VOCAB), normalizer=Replace("ab", "c")), "normalizer Replace does not work character"),
        (Pipeline(WordPiece(VOCAB), normalizer=NormalizerSequence([NFD(), NFD()])), "normalizer Sequence changes"),
        (Pipeline(WordPiece(VOCAB), pre_tokenizer=ByteLevel()), "pre-tokenizer ByteLevel"),
        (Pipeline(wordpiece_past_its_checks({"a": -1})), "the id of 'a' \\(-1\\)"),
    ],
)
def test_what_cannot_be_described_is_named(pipeline, stage):
    with pytest.raises(NotNativeError, match=stage):
        describe(pipeline)


def test_a_cut_or_corrupt_description_is_refused_or_still_encodes_safely():
    spec = describe(PIPELINES["bert"])
    for end in sorted({0, 3, 4, 8, 12, 100, len(spec) // 2, len(spec) - 9, len(spec) - 1}):
        with pytest.raises(tf.errors.InvalidArgumentError, match="kvec: the pipeline description is wrong"):
            LIBRARY.kvec_encode(tf.constant(["ab"]), spec=spec[:end])
    with pytest.raises(tf.errors.InvalidArgumentError, match="bytes follow the description"):
        LIBRARY.kvec_encode(tf.constant(["ab"]), spec=spec + b"\0")
    rng = random.Random(7)
    for _ in range(200):  # flipped bytes: refused, or ids of the text; never a crash (ASan runs this too)
        corrupt = bytearray(spec)
        for _ in range(3):
            corrupt[rng.randrange(len(corrupt))] = rng.randrange(256)
        try:
            LIBRARY.kvec_encode(tf.constant(["ab 中文 [PAD] x"]), spec=bytes(corrupt))
        except tf.errors.InvalidArgumentError as e:
            assert "kvec:" in str(e)


def test_a_large_batch_is_encoded_in_parts_with_the_same_ids():
    # more than 64 texts per intra-op thread: the kernel encodes parts on several threads and joins them
    rng = random.Random(3)
    texts = ["".join(rng.choice(ALPHABET) for _ in range(rng.randrange(40))) for _ in range(3000)]
    for name in ("bert", "lowercase_added"):
        pipeline = PIPELINES[name]
        expected = [encoding.ids for encoding in pipeline.encode_batch(texts)]
        assert op_ids(pipeline, [t.encode() for t in texts]) == expected
        assert op_ids(pipeline, [t.encode() for t in texts]) == expected  # again, with warm word caches


def test_passes_over_datasets_of_many_descriptions_each_keep_their_own_ids():
    # tf.data builds a map's kernels again for every pass; the kernels of one description share one
    # encoder, and more descriptions than the library keeps built must not take each other's
    texts = ["ab abc ß 中文 x12, [PAD]!", "ABC é İi x0", "", "abcabc \u3000 12 x1 x2"]
    described = dict(PIPELINES)
    for n in range(3):
        extra = Pipeline(WordPiece({**VOCAB, f"x{n}": 200 + n}), pre_tokenizer=Whitespace())
        described[f"extra{n}"] = extra

    def encoded(spec):
        return (
            tf.data.Dataset.from_tensor_slices(texts)
            .batch(3)
            .map(lambda batch: LIBRARY.kvec_encode(batch, spec=spec)[0], num_parallel_calls=2)
        )

    datasets = {name: encoded(describe(pipeline)) for name, pipeline in described.items()}
    assert len(datasets) > 4  # more than the library keeps built when no kernel holds them
    for _ in range(2):
        for name, dataset in datasets.items():
            expected = [encoding.ids for encoding in described[name].encode_batch(texts)]
            flat = [i for ids in expected for i in ids]
            assert [i for batch in dataset for i in batch.numpy().tolist()] == flat


KERAS_ALPHABET = "abAB \t\n.,!'ΣσςΑΟΔİIıẞß\u0345\u0301\u00ad'·:中文😀\u3000-"
KERAS_CONFIGS = [
    {},
    {"oov_token": "<OOV>"},
    {"num_words": 6, "oov_token": "?"},
    {"num_words": 6},
    {"char_level": True, "oov_token": "?"},
    {"lower": False, "filters": "", "split": ","},
    {"filters": ".,", "split": "\t"},
]
KERAS_TRAIN = ["ab AB. ΣΑΣ aς", "İi ıI ẞß ab", "中文 中文 ab", "Ab,ab.ab!", "ΟΔΟΣ' Σ\u0345Σ"]


@pytest.mark.parametrize("config", KERAS_CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "default")
@given(texts=st.lists(st.text(st.sampled_from(KERAS_ALPHABET), max_size=25), max_size=5))
def test_the_op_gives_the_keras_tokenizers_ids(config, texts):
    # str.lower's final sigma rule included: "ΣΑΣ" lowers to "σας", "aΣ\u0301" to "aς\u0301"
    tokenizer = Tokenizer(**config)
    tokenizer.fit_on_texts(KERAS_TRAIN + texts[:2])
    assert op_ids(tokenizer, [t.encode("utf-8", "surrogatepass") for t in texts]) == tokenizer.texts_to_sequences(texts)


def test_keras_tokenizers_that_are_not_described_say_why():
    with pytest.raises(NotNativeError, match="split ' -- ' is longer than one character"):
        tokenizer = Tokenizer(split=" -- ")
        tokenizer.fit_on_texts(["a -- b"])
        describe(tokenizer)
    tokenizer = Tokenizer(oov_token="<unk>")
    tokenizer.word_index = {"a": 1}  # set by hand, without its oov_token
    with pytest.raises(NotNativeError, match="oov_token '<unk>' is not in word_index"):
        describe(tokenizer)


@pytest.mark.parametrize("prefix", [None, "##"])
@pytest.mark.parametrize("suffix", [None, "</w>"])
@pytest.mark.parametrize("byte_fallback", [False, True])
@pytest.mark.parametrize("unk_token, fuse_unk", [(None, False), ("[UNK]", False), ("[UNK]", True)])
@pytest.mark.parametrize("ignore_merges", [False, True])
@given(texts=st.lists(st.text(st.sampled_from("abcé中x \t,"), max_size=12), max_size=4))
def test_the_op_gives_a_bpe_pipelines_ids(prefix, suffix, byte_fallback, unk_token, fuse_unk, ignore_merges, texts):
    model = small_bpe(
        prefix, suffix, unk_token=unk_token, byte_fallback=byte_fallback, fuse_unk=fuse_unk, ignore_merges=ignore_merges
    )
    pipeline = Pipeline(model, pre_tokenizer=Whitespace())
    assert op_ids(pipeline, [t.encode() for t in texts]) == [e.ids for e in pipeline.encode_batch(texts)]


def test_the_op_gives_the_keras_subword_bpe_ids_and_refuses_dropout():
    pipeline, trainer = keras_subword("bpe", 80)
    pipeline.train_from_iterator(KERAS_TRAIN * 3 + ["the cat sat on the mat", "naïve café"], trainer)
    texts = ["The cat sat!", "NAÏVE [PAD] cafés", "", "中文 ab"]
    assert op_ids(pipeline, [t.encode() for t in texts]) == [e.ids for e in pipeline.encode_batch(texts)]
    with pytest.raises(NotNativeError, match="dropout"):
        describe(Pipeline(small_bpe(unk_token="[UNK]", dropout=0.1), pre_tokenizer=Whitespace()))


@pytest.fixture(scope="module")
def byte_level():
    """Byte-level BPE pipelines: GPT-2's (HF-trained, with a template), Llama 3's shape, kvec's preset."""
    gpt2 = from_tokenizer_json_str(hf_trained("bytelevel_bpe").to_str())
    llama3 = from_tokenizer_json_str(hf_llama3().to_str())
    preset, trainer = keras_subword("bytelevel_bpe", 300)
    preset.train_from_iterator(KERAS_TRAIN * 3 + ["Hello world's 12345 naïve 中文 😀"], trainer)
    return {"gpt2": gpt2, "llama3": llama3, "preset": preset}


BYTE_TEXT = st.text(st.sampled_from("ab Hello'sLL 12345\n\r\t(é中😀$ \u3000"), max_size=20)


@pytest.mark.parametrize("name", ["gpt2", "llama3", "preset"])
@given(texts=st.lists(BYTE_TEXT, max_size=5))
def test_the_op_gives_byte_level_bpe_ids(byte_level, name, texts):
    pipeline = byte_level[name]
    raw = [t.encode("utf-8", "surrogatepass") for t in texts]
    assert op_ids(pipeline, raw) == [e.ids for e in pipeline.encode_batch(texts)]


@pytest.mark.parametrize(
    "make",
    [
        lambda: Tokenizer(subword="bpe", vocab_size=80),
        lambda: Tokenizer(subword="wordpiece", vocab_size=80, num_words=30, oov_token="<unk>"),
        lambda: Tokenizer(subword="bytelevel_bpe", vocab_size=300, num_words=40),
        lambda: Tokenizer.from_model(Pipeline(WordPiece(VOCAB), pre_tokenizer=Whitespace()), oov_token="[UNK]"),
    ],
    ids=["bpe", "wordpiece_num_words_oov", "bytelevel_num_words", "from_model"],
)
@given(texts=st.lists(st.text(st.sampled_from(KERAS_ALPHABET + "xyz"), max_size=25), max_size=5))
def test_the_op_gives_a_keras_tokenizers_subword_indices(make, texts):
    tokenizer = make()
    tokenizer.fit_on_texts(KERAS_TRAIN * 2 + ["the cat sat on the mat", "naïve café ab abc"])
    assert op_ids(tokenizer, [t.encode("utf-8", "surrogatepass") for t in texts]) == tokenizer.texts_to_sequences(texts)


UNIGRAM_TRAIN = ["low lower lowest 2024 ab", "naïve café ▁x 中文 中文", "Hello world's 12345"] * 5
UNIGRAM_TEXT = st.text(st.sampled_from("lowerst abc 2049 ▁\ufdd0中文éÉ😀\t\n<pad><sep>x"), max_size=25)


def unigram_pipelines():
    """Unigram pipelines: sentencepiece's way of reading text (the whole text one lattice, spaces as
    ``▁`` by Prepend and Replace normalizers), with user-defined symbols and split digits, without the
    dummy prefix; and a Unigram model on words cut by a pre-tokenizer, with an unknown token."""
    made = {}
    for name, options in {
        "sentencepiece_style": {"user_defined_symbols": ["<sep>"]},
        "split_digits_lowercase": {"split_digits": True, "normalizer": Lowercase()},
        "no_dummy_prefix": {"add_dummy_prefix": False},
    }.items():
        pipeline = sentencepiece_style(**options)
        trainer = UnigramTrainer(vocab_size=296, byte_fallback=True, special_tokens=["<pad>", "<unk>"])
        pipeline.train_from_iterator(UNIGRAM_TRAIN, trainer)
        made[name] = pipeline
    vocab = [("<unk>", 0.0), ("l", -2.0), ("o", -2.0), ("lo", -2.5), ("low", -3.0), ("w", -2.0), ("e", -2.0)]
    vocab += [("er", -2.5), ("r", -2.2), ("s", -2.0), ("t", -2.0), ("est", -3.5), ("中", -4.0)]
    words = Pipeline(Unigram(vocab, unk_id=0), normalizer=Lowercase(), pre_tokenizer=Whitespace())
    words.add_special_tokens(["<pad>"])
    made["words_unk"] = words
    return made


UNIGRAMS = unigram_pipelines()


@pytest.mark.parametrize("name", sorted(UNIGRAMS))
@given(texts=st.lists(UNIGRAM_TEXT, max_size=5))
def test_the_op_gives_unigram_pipelines_ids(name, texts):
    pipeline = UNIGRAMS[name]
    raw = [t.encode("utf-8") for t in texts]
    assert op_ids(pipeline, raw) == [e.ids for e in pipeline.encode_batch(texts)]


def test_the_op_gives_a_keras_tokenizers_unigram_indices():
    tokenizer = Tokenizer(subword="unigram", vocab_size=300, num_words=200, oov_token="<unk>")
    tokenizer.fit_on_texts(UNIGRAM_TRAIN)
    texts = ["lower 2024 中文", "", "zzz ▁ ab", "low<pad>est"]
    assert op_ids(tokenizer, [t.encode() for t in texts]) == tokenizer.texts_to_sequences(texts)


def test_a_unigram_character_without_an_id_is_an_error_and_sampling_is_refused():
    pipeline = Pipeline(Unigram([("a", -1.0), ("b", -1.0)]), pre_tokenizer=Whitespace())
    assert op_ids(pipeline, [b"ab ba"]) == [e.ids for e in pipeline.encode_batch(["ab ba"])]
    with pytest.raises(tf.errors.InvalidArgumentError, match="text 1 has a word that matches no piece"):
        op_ids(pipeline, [b"a", b"ab q"])
    with pytest.raises(NotNativeError, match="samples its segmentations"):
        describe(Pipeline(Unigram([("a", -1.0)], nbest_size=-1), pre_tokenizer=Whitespace()))


@pytest.mark.parametrize(
    "normalizer, stage",
    [
        (NormalizerSequence([Prepend("▁"), Prepend("x")]), "more than one Prepend"),
        (NormalizerSequence([Replace("a", ""), Prepend("▁")]), "may remove every character before its Prepend"),
    ],
)
def test_normalizers_with_a_prepend_that_cannot_be_described_say_why(normalizer, stage):
    with pytest.raises(NotNativeError, match=stage):
        describe(Pipeline(Unigram([("a", -1.0)], unk_id=0), normalizer=normalizer))


def test_a_prepend_is_put_before_each_part_between_special_tokens_as_the_stages_after_it_write_it():
    # Replace after the Prepend writes its "_" as "-"; the parts around [PAD] each get one, an empty one none
    normalizer = NormalizerSequence([Lowercase(), Prepend("_ "), Replace(" ", "-")])
    model = Unigram([("a", -1.0), ("_", -1.0), ("-", -1.0), ("[PAD]", 0.0)])
    pipeline = Pipeline(model, normalizer=normalizer)
    pipeline.add_special_tokens(["[PAD]"])
    texts = ["A a", "[PAD]", "a[PAD]A", "", "[PAD]a[PAD]"]
    assert op_ids(pipeline, [t.encode() for t in texts]) == [e.ids for e in pipeline.encode_batch(texts)]


SPLITTERS = {
    "whitespace": Whitespace(),
    "whitespace_split": WhitespaceSplit(),
    "bert": BertPreTokenizer(),
    "keras_filters": KerasFilters(),
    "digits": Digits(individual_digits=True),
    "punctuation": Punctuation("isolated"),
    "byte_level": ByteLevel(),
    "sequence": PreTokenizerSequence([WhitespaceSplit(), Digits()]),
}


@pytest.mark.parametrize("name", sorted(SPLITTERS))
@given(texts=st.lists(st.text(st.sampled_from(KERAS_ALPHABET + "12 3x'y(z)\r"), max_size=25), max_size=5))
def test_the_split_op_gives_the_splitters_words(name, texts):
    splitter = SPLITTERS[name]
    raw = tf.constant([t.encode("utf-8", "surrogatepass") for t in texts], dtype=tf.string)
    words, splits = LIBRARY.kvec_split(raw, spec=describe_splitter(splitter))
    rows = tf.RaggedTensor.from_row_splits(words, splits).to_list()
    assert rows == [[w.encode("utf-8", "surrogatepass") for w in splitter.split_words(t)] for t in texts]


def test_each_op_refuses_the_other_kind_of_description():
    with pytest.raises(tf.errors.InvalidArgumentError, match="KvecSplit needs a word splitter"):
        LIBRARY.kvec_split(tf.constant(["a"]), spec=describe(PIPELINES["bert"]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="KvecEncode needs a tokenizer"):
        LIBRARY.kvec_encode(tf.constant(["a"]), spec=describe_splitter(Whitespace()))


# user words as jieba's add_word takes them, and whole words with what jieba splits (a space, "+" and a
# Greek capital), found before jieba cuts
JIEBA_USER_WORDS = [("自然语言处理", None), ("北京大学生", 0), ("云计算", 7), "New York", "C++ 语言", "ΣΑΣ x"]
JIEBA_TEXT = MIXED.map(lambda t: t + "在New York用C++ 语言做自然语言处理，ΣΑΣ x和北京大学生")
SEGMENTERS = {
    f"{mode}{'' if hmm else '_no_hmm'}": {"mode": mode, "hmm": hmm} for mode in MODES for hmm in (True, False)
}
SEGMENTERS["user_words"] = {"user_dict": JIEBA_USER_WORDS}
SEGMENTERS["user_words_full"] = {"user_dict": JIEBA_USER_WORDS, "mode": "full"}


@pytest.mark.parametrize("name", sorted(SEGMENTERS))
@settings(max_examples=40)
@given(texts=st.lists(JIEBA_TEXT, min_size=1, max_size=4))
def test_the_split_op_gives_jiebas_words(name, texts):
    segmenter = Jieba(**SEGMENTERS[name])
    words, splits = LIBRARY.kvec_split(tf.constant(texts), spec=describe_splitter(segmenter))
    rows = tf.RaggedTensor.from_row_splits(words, splits).to_list()
    assert rows == [[w.encode() for w in segmenter.split_words(t)] for t in texts]


JIEBA_TRAIN = ["我爱北京天安门", "自然语言处理很有趣，ΣΑΣ", "我们在北京学习机器学习", "New York的iPhone", "北京云计算"]
JIEBA_TRAIN *= 3


@pytest.mark.parametrize("config", [{}, {"lower": False}, {"num_words": 8, "oov_token": "<unk>"}], ids=str)
@settings(max_examples=40)
@given(texts=st.lists(JIEBA_TEXT, max_size=4))
def test_the_op_gives_a_keras_tokenizer_with_a_jieba_analyzer_its_indices(config, texts):
    tokenizer = Tokenizer(analyzer=Jieba(user_dict=JIEBA_USER_WORDS), **config)
    tokenizer.fit_on_texts(JIEBA_TRAIN + texts)
    values, splits = LIBRARY.kvec_encode(tf.constant(texts, dtype=tf.string), spec=describe(tokenizer))
    assert tf.RaggedTensor.from_row_splits(values, splits).to_list() == tokenizer.texts_to_sequences(texts)


def test_a_jieba_analyzer_whose_split_a_final_sigma_looks_across_is_not_described():
    # "'" is case-ignorable: "Σ'a".lower() keeps σ, while the word "Σ" alone lowers to ς
    tokenizer = Tokenizer(analyzer=Jieba(), split="'")
    tokenizer.fit_on_texts(JIEBA_TRAIN)
    with pytest.raises(NotNativeError, match='the split "\'" is case-ignorable'):
        describe(tokenizer)


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=30)
@given(texts=st.lists(JIEBA_TEXT, max_size=4))
def test_the_op_gives_a_pipeline_over_jieba_its_ids(jieba_pipelines, mode, texts):
    pipeline = jieba_pipelines[mode]
    assert op_ids(pipeline, [t.encode() for t in texts]) == [e.ids for e in pipeline.encode_batch(texts)]


@pytest.fixture(scope="module")
def jieba_pipelines():
    pipelines = {}
    for mode in MODES:
        pipeline = Pipeline(None, normalizer=Lowercase(), pre_tokenizer=Jieba(mode=mode))
        pipeline.train_from_iterator(JIEBA_TRAIN, WordPieceTrainer(vocab_size=120, special_tokens=["[UNK]"]))
        pipelines[mode] = pipeline
    return pipelines


@pytest.mark.parametrize("shape", ["split", "split_digits"])
@given(vocab=NEAR_TIED_VOCAB, texts=st.lists(RUN_TEXT, min_size=1, max_size=4))
def test_the_op_segments_a_sentencepiece_shaped_tokenizer_json_as_tokenizers(shape, vocab, texts):
    theirs = hf_sentencepiece_shaped(vocab, shape)
    ours = from_tokenizer_json_str(theirs.to_str())
    assert op_ids(ours, [t.encode() for t in texts]) == [e.ids for e in theirs.encode_batch(texts)]


def test_the_op_segments_sentencepiece_style_of_a_models_pieces_as_sentencepiece():
    sp = spm.SentencePieceProcessor(model_proto=sentencepiece_model())
    ours = sentencepiece_style(Unigram(pieces_of(sp), unk_id=sp.unk_id()))
    texts = ["." + "=" * k + " a " + "-" * (k // 2) for k in range(1, 80)]
    assert op_ids(ours, [t.encode() for t in texts]) == sp.encode(texts)
