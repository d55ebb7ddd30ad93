"""Hugging Face's normalizers ``Replace`` (literal or ``Regex``), ``Strip``, ``ByteLevel`` and
``Precompiled``, its pre-tokenizers ``Split`` (literal or ``Regex``), ``CharDelimiterSplit``,
``FixedLength`` and ``UnicodeScripts``, Metaspace's checks and settings changed after construction: text,
tokens, offsets and ids against the same pipeline built in ``tokenizers`` 0.23, and their tokenizer.json."""

import base64
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec import decoders, normalizers, pre_tokenizers, pretokenizers
from kvec.errors import FormatError
from kvec.interop.huggingface import from_tokenizer_json_str, to_tokenizer_json_str
from kvec.interop.sentencepiece_model import load_sentencepiece_model
from kvec.models import BPE, WordPiece
from kvec.pipeline import Pipeline
from kvec.trainers import BpeTrainer
from kvec.unicode.scripts import ANY, script_classes
from tests.support import STABLE_CHARS, Oracle

hf = Oracle("tokenizers")
spm = Oracle("sentencepiece")

ALPHABET = list("ab x`\"'▁.-") + ["``", "''", "\u0301", "\t", "\u3000", "ａ", "①", "ﬁ", "é", "漢", "か"]
TEXT = st.lists(st.one_of(st.sampled_from(ALPHABET), STABLE_CHARS), max_size=12).map("".join)
CHARS = sorted({c for piece in ALPHABET for c in piece} | set('"▁'))
VOCAB = {
    token: i
    for i, token in enumerate(
        ["[UNK]", "ab", "##ab", "▁a", "▁b", "_a", "@@b", *CHARS, *(f"##{c}" for c in CHARS), *(f"@@{c}" for c in CHARS)]
    )
}
# each pre-tokenizer: (kvec's, Hugging Face's)
PRE_TOKENIZERS = {
    "WhitespaceSplit": lambda: (pretokenizers.WhitespaceSplit(), hf.pre_tokenizers.WhitespaceSplit()),
    "Whitespace": lambda: (pretokenizers.Whitespace(), hf.pre_tokenizers.Whitespace()),
    "MetaspaceFirst": lambda: (
        pretokenizers.Metaspace(prepend_scheme="first"),
        hf.pre_tokenizers.Metaspace(prepend_scheme="first"),
    ),
    "MetaspaceAlways": lambda: (pretokenizers.Metaspace(), hf.pre_tokenizers.Metaspace()),
    "SequenceFirst": lambda: (
        pretokenizers.Sequence([pretokenizers.WhitespaceSplit(), pretokenizers.Metaspace(prepend_scheme="first")]),
        hf.pre_tokenizers.Sequence(
            [hf.pre_tokenizers.WhitespaceSplit(), hf.pre_tokenizers.Metaspace(prepend_scheme="first")]
        ),
    ),
    "SplitThenMetaspaceFirst": lambda: (
        pretokenizers.Sequence([pretokenizers.Split("▁", "isolated"), pretokenizers.Metaspace(prepend_scheme="first")]),
        hf.pre_tokenizers.Sequence(
            [hf.pre_tokenizers.Split("▁", "isolated"), hf.pre_tokenizers.Metaspace(prepend_scheme="first")]
        ),
    ),
}
PATTERNS = st.one_of(
    st.sampled_from(["``", "x", "a", " ", "ab", "", "\u0301", "é", "▁"]),
    st.sampled_from([r"x*", r"\s+", r"a|``", r"(?<=a)", r"$", r"^.", r"[ab]+", r"\p{Mn}"]).map(lambda p: ("regex", p)),
)
CONTENTS = st.sampled_from(['"', "", "XY", "▁", " ", "é"])


def as_pattern(pattern, module):
    """A literal str, or ``("regex", text)`` as ``module.Regex``."""
    return module.Regex(pattern[1]) if isinstance(pattern, tuple) else pattern


def both(normalizer=None, pre_tokenizer="WhitespaceSplit", vocab=VOCAB, prefix="##"):
    """The same WordPiece pipeline in kvec and in tokenizers: ``normalizer`` is ``(kvec's, HF's)``."""
    ours_pre, theirs_pre = PRE_TOKENIZERS[pre_tokenizer]()
    ours = Pipeline(WordPiece(vocab, continuing_subword_prefix=prefix), pre_tokenizer=ours_pre)
    theirs = hf.Tokenizer(hf.models.WordPiece(vocab, unk_token="[UNK]", continuing_subword_prefix=prefix))
    theirs.pre_tokenizer = theirs_pre
    if normalizer is not None:
        ours.normalizer, theirs.normalizer = normalizer
    return ours, theirs


def assert_same_encodings(ours, theirs, texts):
    for text in texts:
        expected = theirs.encode(text)
        encoding = ours.encode(text)
        assert (encoding.tokens, encoding.offsets) == (expected.tokens, expected.offsets), text
    expected_ids = [e.ids for e in theirs.encode_batch(texts * 3)]
    assert [e.ids for e in ours.encode_batch(texts * 3)] == expected_ids
    values, lengths = ours.encode_ragged(texts * 3)
    assert values.tolist() == [i for ids in expected_ids for i in ids]


# ---- Replace: literal strings and Regex, aligned as tokenizers aligns them ----------------------------


@settings(max_examples=150)
@given(
    pattern=PATTERNS,
    content=CONTENTS,
    pre_tokenizer=st.sampled_from(sorted(PRE_TOKENIZERS)),
    texts=st.lists(TEXT, min_size=1, max_size=4),
)
def test_replace_tokens_and_offsets_equal_hf(pattern, content, pre_tokenizer, texts):
    normalizer = (
        normalizers.Replace(as_pattern(pattern, normalizers), content),
        hf.normalizers.Replace(as_pattern(pattern, hf), content),
    )
    ours, theirs = both(normalizer, pre_tokenizer)
    for text in texts:
        assert ours.normalizer.normalize_str(text) == theirs.normalizer.normalize_str(text)
    assert_same_encodings(ours, theirs, texts)


def test_a_replaced_stretch_stands_for_its_last_character():
    ours, theirs = both((normalizers.Replace("``", '"'), hf.normalizers.Replace("``", '"')))
    assert ours.encode("x ``x").offsets == theirs.encode("x ``x").offsets == [(0, 1), (3, 4), (4, 5)]
    ours, theirs = both((normalizers.Replace("``", '"'), hf.normalizers.Replace("``", '"')), "MetaspaceFirst")
    assert ours.encode("``x").tokens == theirs.encode("``x").tokens == ['"', "##x"]


@pytest.mark.parametrize("text", ["a b", "ab", " a", "▁a b", "\u2000", "a\u2000b", "``x y"])
@pytest.mark.parametrize("pre_tokenizer", ["SequenceFirst", "SplitThenMetaspaceFirst"])
@pytest.mark.parametrize(
    "normalizer",
    [
        lambda m: m.Prepend("▁"),  # the prepended character stands for the first one
        lambda m: m.Replace("", '"'),  # a character written before each one
        lambda m: m.Replace("a", "▁a"),
        lambda m: m.Replace("``", '"'),
    ],
)
def test_a_piece_whose_original_offset_is_zero_is_first_in_a_sequence(normalizer, pre_tokenizer, text):
    # tokenizers prepends where a piece's original offset is 0, which a normalizer can give to several pieces
    ours, theirs = both((normalizer(normalizers), normalizer(hf.normalizers)), pre_tokenizer)
    assert_same_encodings(ours, theirs, [text])


@pytest.mark.parametrize("pre_tokenizer", ["SequenceFirst", "SplitThenMetaspaceFirst"])
@pytest.mark.parametrize(
    "normalizer",
    [
        lambda m: m.Prepend("▁"),
        lambda m: m.Replace("a", "xy"),
        lambda m: m.Sequence([m.Prepend("▁"), m.Replace(" ", "▁")]),
    ],
)
def test_training_counts_the_words_a_sequence_gives_by_original_offsets(normalizer, pre_tokenizer):
    # training splits as encoding does: every piece at the original text's start is first
    corpus = ["hello world", "a b", "hello hello wor", "xa xb ax", "▁a b"] * 3
    ours = Pipeline(BPE(unk_token="[UNK]"), normalizer=normalizer(normalizers))
    ours.pre_tokenizer = PRE_TOKENIZERS[pre_tokenizer]()[0]
    theirs = hf.Tokenizer(hf.models.BPE(unk_token="[UNK]"))
    theirs.normalizer, theirs.pre_tokenizer = normalizer(hf.normalizers), PRE_TOKENIZERS[pre_tokenizer]()[1]
    theirs.train_from_iterator(
        corpus, hf.trainers.BpeTrainer(vocab_size=40, special_tokens=["[UNK]"], show_progress=False)
    )
    ours.train_from_iterator(corpus, BpeTrainer(vocab_size=40, special_tokens=["[UNK]"]))
    assert ours.get_vocab() == theirs.get_vocab()
    assert_same_encodings(ours, theirs, corpus)


@pytest.mark.parametrize(
    "normalizer",
    [
        lambda m: m.Replace("``", '"'),  # the text's first character is replaced with the second
        lambda m: m.StripAccents(),  # a leading mark is removed
        lambda m: m.Strip(),
    ],
)
def test_metaspace_first_prepends_only_where_the_normalized_text_starts_at_the_first_character(normalizer):
    ours, theirs = both((normalizer(normalizers), normalizer(hf.normalizers)), "MetaspaceFirst")
    assert_same_encodings(ours, theirs, ["``x", "\u0301x", "  x", "x", "a ``x"])


def test_metaspace_first_in_a_sequence_prepends_only_to_the_piece_at_the_start():
    ours, theirs = both(pre_tokenizer="SequenceFirst")
    assert_same_encodings(ours, theirs, [" a b", "a b", "  ", "ab"])


# ---- Split and Regex -------------------------------------------------------------------------------


@settings(max_examples=150)
@given(
    pattern=PATTERNS,
    behavior=st.sampled_from(pretokenizers.BEHAVIORS),
    invert=st.booleans(),
    text=TEXT,
)
def test_split_equals_hf(pattern, behavior, invert, text):
    ours = pretokenizers.Split(as_pattern(pattern, pretokenizers), behavior, invert=invert)
    theirs = hf.pre_tokenizers.Split(as_pattern(pattern, hf), behavior, invert=invert)
    expected = theirs.pre_tokenize_str(text)
    assert [(p.text, p.offsets(0, len(p.text))) for p in ours.pre_tokenize(text)] == expected
    assert ours.split_words(text) == [word for word, _ in expected]


ANCHORED = [r"$", r"^", r"^a", r"a$", r"$\n", r"\Z", r"\A", r"\z", r"[$^]", r"[]^]+", r"[^\n]$", r"^\s+|\s+$"]
LINES = st.lists(st.sampled_from(["a", "b", " ", "\n", "$", "^", "]"]), max_size=8).map("".join)


@settings(max_examples=150)
@given(pattern=st.sampled_from(ANCHORED), behavior=st.sampled_from(pretokenizers.BEHAVIORS), text=LINES)
def test_anchors_hold_where_oniguruma_holds_them(pattern, behavior, text):
    # tokenizers compiles a Regex with Oniguruma's Ruby syntax: ^ and $ at every line, \Z before a final newline
    replace = normalizers.Replace(normalizers.Regex(pattern), "|").normalize_str(text)
    assert replace == hf.normalizers.Replace(hf.Regex(pattern), "|").normalize_str(text)
    ours = pretokenizers.Split(pretokenizers.Regex(pattern), behavior)
    expected = hf.pre_tokenizers.Split(hf.Regex(pattern), behavior).pre_tokenize_str(text)
    assert [(p.text, p.offsets(0, len(p.text))) for p in ours.pre_tokenize(text)] == expected


def test_a_str_pattern_is_literal_and_a_regex_is_an_expression():
    assert [p.text for p in pretokenizers.Split(".", "removed").pre_tokenize("a.b")] == ["a", "b"]
    assert [p.text for p in pretokenizers.Split(pretokenizers.Regex("."), "removed").pre_tokenize("a.b")] == []
    assert normalizers.Replace(".", "-").normalize_str("a.b") == "a-b"
    assert normalizers.Replace(normalizers.Regex("."), "-").normalize_str("a.b") == "---"
    assert pretokenizers.Regex is normalizers.Regex is pre_tokenizers.Regex
    with pytest.raises(ValueError, match="not a valid regular expression"):
        pretokenizers.Regex("(")
    with pytest.raises(TypeError, match="pattern must be a str or a kvec.common.patterns.Regex"):
        pretokenizers.Split(5)


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.pre_tokenizers.Split("a.", "isolated"),
        lambda m: m.pre_tokenizers.Split(m.Regex("a."), "merged_with_next", invert=True),
    ],
)
def test_split_patterns_round_trip_through_tokenizer_json(make):
    theirs = hf.Tokenizer(hf.models.WordPiece(VOCAB, unk_token="[UNK]"))
    theirs.pre_tokenizer = make(hf)
    theirs.normalizer = hf.normalizers.Sequence(
        [hf.normalizers.Replace("``", '"'), hf.normalizers.Replace(hf.Regex(r"\s+"), " ")]
    )
    document = json.loads(theirs.to_str())
    ours = from_tokenizer_json_str(theirs.to_str())
    written = json.loads(to_tokenizer_json_str(ours))
    assert written["pre_tokenizer"] == document["pre_tokenizer"]
    assert written["normalizer"] == document["normalizer"]
    assert_same_encodings(ours, theirs, ["aba.a.  ``x", "a\t\tb"])
    again = Pipeline.from_str(ours.to_str())  # kvec's own format keeps str and Regex apart too
    assert json.loads(to_tokenizer_json_str(again))["pre_tokenizer"] == document["pre_tokenizer"]


def test_a_kvec_file_from_before_regex_reads_a_split_str_as_an_expression():
    ours = Pipeline(WordPiece(VOCAB), pre_tokenizer=pretokenizers.Split(pretokenizers.Regex("[ab]"), "removed"))
    document = ours.to_document()
    document["pre_tokenizer"]["config"]["pattern"] = "[ab]"  # as such files hold it
    loaded = Pipeline.from_document(document)
    assert loaded.pre_tokenizer.get_config()["pattern"] == pretokenizers.Regex("[ab]")
    document["pre_tokenizer"]["config"]["pattern"] = {"Regex": "("}
    with pytest.raises(FormatError, match="not a valid regular expression"):
        Pipeline.from_document(document)


# ---- Metaspace's checks --------------------------------------------------------------------------


@pytest.mark.parametrize("module", ["pre_tokenizers", "decoders"])
@pytest.mark.parametrize(
    "arguments, error, message",
    [
        ({"replacement": ""}, ValueError, "replacement must be one character"),
        ({"replacement": "ab"}, ValueError, "replacement must be one character"),
        ({"replacement": 5}, TypeError, "replacement must be a str"),
        ({"prepend_scheme": "sometimes"}, ValueError, "prepend_scheme must be one of"),
    ],
)
def test_metaspace_refuses_what_hf_refuses(module, arguments, error, message):
    with pytest.raises(error):
        getattr(hf, module).Metaspace(**arguments)
    ours = {"pre_tokenizers": pretokenizers, "decoders": decoders}[module]
    with pytest.raises(error, match=message):
        ours.Metaspace(**arguments)


def test_metaspace_checks_settings_assigned_later():
    metaspace = pretokenizers.Metaspace()
    with pytest.raises(ValueError, match="replacement must be one character"):
        metaspace.replacement = ""
    with pytest.raises(ValueError, match="prepend_scheme must be one of"):
        metaspace.prepend_scheme = "sometimes"


# ---- settings assigned after a first encode -------------------------------------------------------

TEXTS = ["a b", "ab a", " ab", "ba``b"]


def test_settings_assigned_after_a_first_encode_are_honoured_as_in_hf():
    ours, theirs = both(pre_tokenizer="MetaspaceAlways")
    assert_same_encodings(ours, theirs, TEXTS)  # every cache and the native encoder are made here
    for tokenizer in (ours, theirs):
        tokenizer.pre_tokenizer.replacement = "_"
        tokenizer.model.continuing_subword_prefix = "@@"
    assert_same_encodings(ours, theirs, TEXTS)
    for tokenizer in (ours, theirs):
        tokenizer.pre_tokenizer.prepend_scheme = "never"
        tokenizer.pre_tokenizer.split = False
        tokenizer.model.max_input_chars_per_word = 2
    assert_same_encodings(ours, theirs, TEXTS)


def test_normalizer_and_pre_tokenizer_settings_assigned_later_are_honoured_as_in_hf():
    ours, theirs = both((normalizers.Replace("``", '"'), hf.normalizers.Replace("``", '"')), "WhitespaceSplit")
    ours.pre_tokenizer = pretokenizers.CharDelimiterSplit("b")
    theirs.pre_tokenizer = hf.pre_tokenizers.CharDelimiterSplit("b")
    assert_same_encodings(ours, theirs, TEXTS)
    for tokenizer in (ours, theirs):
        tokenizer.normalizer.content = "'"
        tokenizer.pre_tokenizer.delimiter = "a"
    assert_same_encodings(ours, theirs, TEXTS)


def test_components_that_precompute_follow_their_settings():
    split = pretokenizers.Split("a")
    split.behavior = "removed"
    assert split.split_words("xaybz") == ["x", "ybz"]
    keras = pretokenizers.KerasFilters()
    keras.filters = "y"
    assert keras.split_words("xay b,") == ["xa", "b,"]
    digits = pretokenizers.SentencePiece()
    digits.split_digits = True
    assert digits.split_words("▁a12") == ["▁a", "1", "2"]
    bpe = Pipeline(BPE({"a": 0, "b": 1, "##b": 2, "ab": 3}, [("a", "b")]))
    assert bpe.encode("ab").tokens == ["ab"]
    bpe.model.continuing_subword_prefix = "##"  # the model's word cache is dropped
    assert bpe.encode("ab").tokens == ["a", "##b"]


# ---- Strip, ByteLevel and Precompiled normalizers -------------------------------------------------


@settings(max_examples=100)
@given(
    which=st.sampled_from(["Strip", "StripLeft", "StripRight", "ByteLevel"]),
    pre_tokenizer=st.sampled_from(["WhitespaceSplit", "MetaspaceFirst"]),
    texts=st.lists(TEXT, min_size=1, max_size=4),
)
def test_strip_and_byte_level_equal_hf(which, pre_tokenizer, texts):
    arguments = {"Strip": {}, "StripLeft": {"right": False}, "StripRight": {"left": False}, "ByteLevel": {}}[which]
    name = which if which == "ByteLevel" else "Strip"
    normalizer = (getattr(normalizers, name)(**arguments), getattr(hf.normalizers, name)(**arguments))
    vocab = dict(VOCAB)
    for c in pretokenizers.bytes_to_unicode().values():  # the byte spelling's characters
        vocab.setdefault(c, len(vocab))
        vocab.setdefault("##" + c, len(vocab))
    ours, theirs = both(normalizer, pre_tokenizer, vocab=vocab)
    for text in texts:
        assert ours.normalizer.normalize_str(text) == theirs.normalizer.normalize_str(text)
    assert_same_encodings(ours, theirs, texts)


@pytest.fixture(scope="module")
def charsmap(tmp_path_factory):
    """The precompiled character map of a trained sentencepiece model (nmt_nfkc)."""
    proto = io.BytesIO()
    texts = ["hello world", "abc def ｶﾞ ①"] * 50
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(texts), model_writer=proto, vocab_size=18, num_threads=1, minloglevel=2
    )
    path = tmp_path_factory.mktemp("sp") / "m.model"
    path.write_bytes(proto.getvalue())
    return load_sentencepiece_model(path).normalizer.precompiled_charsmap


PRECOMPILED_TEXT = st.lists(
    st.one_of(
        st.sampled_from(
            list("ab ＡＢ１ｶﾞ①ﬁ㍿\u3000\t\n\u0301\u0323e가\u1100\u1161™…½\u200b\u00a0")
            + ["e\u0301", "Ａ\u0301", "\u0000"]
        ),
        STABLE_CHARS,
    ),
    max_size=10,
).map("".join)


@settings(max_examples=150)
@given(texts=st.lists(PRECOMPILED_TEXT, min_size=1, max_size=4))
def test_precompiled_equals_hf(charsmap, texts):
    raw = base64.b64decode(charsmap)
    theirs_normalizer = hf.normalizers.Precompiled(raw)
    vocab = {"[UNK]": 0}
    for text in texts:
        for c in text + theirs_normalizer.normalize_str(text):
            vocab.setdefault(c, len(vocab))
    ours = Pipeline(
        WordPiece(vocab, continuing_subword_prefix="\x01"),
        normalizer=normalizers.Precompiled(raw),
        pre_tokenizer=pretokenizers.Split(pretokenizers.Regex("."), "isolated"),
    )
    theirs = hf.Tokenizer(hf.models.WordPiece(vocab, unk_token="[UNK]", continuing_subword_prefix="\x01"))
    theirs.normalizer = theirs_normalizer
    theirs.pre_tokenizer = hf.pre_tokenizers.Split(hf.Regex("."), "isolated")
    for text in texts:
        assert ours.normalizer.normalize_str(text) == theirs_normalizer.normalize_str(text)
    assert_same_encodings(ours, theirs, texts)


def test_new_normalizers_round_trip_through_tokenizer_json(charsmap):
    theirs = hf.Tokenizer(hf.models.WordPiece(VOCAB, unk_token="[UNK]"))
    theirs.normalizer = hf.normalizers.Sequence(
        [
            hf.normalizers.Precompiled(base64.b64decode(charsmap)),
            hf.normalizers.Strip(left=False),
            hf.normalizers.ByteLevel(),
        ]
    )
    theirs.pre_tokenizer = hf.pre_tokenizers.Sequence(
        [
            hf.pre_tokenizers.CharDelimiterSplit("x"),
            hf.pre_tokenizers.FixedLength(3),
            hf.pre_tokenizers.UnicodeScripts(),
        ]
    )
    document = json.loads(theirs.to_str())
    ours = from_tokenizer_json_str(theirs.to_str())
    written = json.loads(to_tokenizer_json_str(ours))
    assert (written["normalizer"], written["pre_tokenizer"]) == (document["normalizer"], document["pre_tokenizer"])
    again = Pipeline.from_str(ours.to_str())
    assert json.loads(to_tokenizer_json_str(again))["normalizer"] == document["normalizer"]
    assert_same_encodings(again, theirs, ["abxcdefgh ｶﾞ ", "  a漢字かなabc  "])


# ---- CharDelimiterSplit, FixedLength, UnicodeScripts ----------------------------------------------


@settings(max_examples=150)
@given(
    which=st.sampled_from(["CharDelimiterSplit", "FixedLength", "UnicodeScripts"]),
    argument=st.sampled_from(["x", " ", "▁", 1, 2, 5]),
    text=TEXT,
)
def test_new_pre_tokenizers_equal_hf(which, argument, text):
    if which == "UnicodeScripts":
        arguments = {}
    elif which == "CharDelimiterSplit":
        arguments = {"delimiter": argument if isinstance(argument, str) else "a"}
    else:
        arguments = {"length": argument if isinstance(argument, int) else 5}
    ours = getattr(pretokenizers, which)(**arguments)
    expected = getattr(hf.pre_tokenizers, which)(**arguments).pre_tokenize_str(text)
    assert [(p.text, p.offsets(0, len(p.text))) for p in ours.pre_tokenize(text)] == expected
    assert ours.split_words(text) == [word for word, _ in expected]


def test_new_pre_tokenizers_refuse_bad_arguments():
    with pytest.raises(ValueError, match="delimiter must be one character"):
        pretokenizers.CharDelimiterSplit("ab")
    with pytest.raises(ValueError, match="length must be >= 1"):
        pretokenizers.FixedLength(0)


def test_unicode_scripts_equal_hf_on_every_code_point():
    """Each code point between a Han and a Latin character, both ways round, tells whether it has no
    script (never a boundary), is Han or Latin, or another script; the code points sorted by kvec's
    script, and one of each script next to one of every other, tell that the other scripts are the
    same classes."""
    theirs, ours = hf.pre_tokenizers.UnicodeScripts(), pretokenizers.UnicodeScripts()
    code_points = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]

    def same(text):
        expected = [offsets for _, offsets in theirs.pre_tokenize_str(text)]
        assert ours._spans(text) == expected

    same("".join("漢" + chr(c) + "a" for c in code_points))
    same("".join("a" + chr(c) + "漢" for c in code_points))
    classes = script_classes()
    by_script = sorted((c for c in code_points if classes[c] != ANY), key=lambda c: (classes[c], c))
    same("".join(map(chr, by_script)))
    first_of = {}
    for c in by_script:
        first_of.setdefault(classes[c], chr(c))
    for a in first_of.values():
        for b in first_of.values():
            if a != b:
                assert len(theirs.pre_tokenize_str(a + b)) == 2


def test_kvec_exports_the_new_components():
    for name in ("Strip", "ByteLevel", "Precompiled", "Regex", "Replace"):
        assert name in normalizers.__all__
    for name in ("CharDelimiterSplit", "FixedLength", "UnicodeScripts", "Regex", "Split"):
        assert name in pretokenizers.__all__
    assert pre_tokenizers.CharDelimiterSplit is pretokenizers.CharDelimiterSplit
