"""Hugging Face's Unicode tables (kvec/unicode/hf_unicode.py) on every code point U+0000..U+10FFFF:
BertNormalizer and BertPreTokenizer (and the other components named after HF's) give tokenizers
0.23's texts and words, and a BERT pipeline read from a tokenizer.json gives its ids on every path:
the native encode_batch, the Python path and the TensorFlow op's description.

Each code point is tested between two letters, ``a<cp>b``; many of them are joined by spaces into one
text so that a pass over all 1,112,064 code points (HF takes no surrogate) takes seconds. A mismatch
is narrowed down to the code points that differ."""

import pytest

from kvec import normalizers, pretokenizers
from kvec.interop.huggingface import from_tokenizer_json_str
from kvec.models import WordPiece
from kvec.normalizers import BertNormalizer
from kvec.pipeline import Pipeline
from kvec.pretokenizers import BertPreTokenizer
from kvec.processors import TemplateProcessing
from kvec.unicode import hf_unicode

CODE_POINTS = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
CHUNK = 4096


def between(c):
    return f"a{chr(c)}b"


def chunks(code_points=CODE_POINTS, size=CHUNK):
    for start in range(0, len(code_points), size):
        yield code_points[start : start + size]


def joined(chunk):
    return " ".join(map(between, chunk))


def differing(chunk, same):
    """The code points of ``chunk`` for which ``same(text)`` is False, as hex (the first ten)."""
    return [f"U+{c:04X}" for c in chunk if not same(between(c))][:10]


def words(pre_tokenizer, text):
    return [(p.text, p.offsets(0, len(p.text))) for p in pre_tokenizer.pre_tokenize(text)]


# the examples: each failed with Python's Unicode tables


def test_a_mark_unknown_to_hfs_unicode_is_kept():
    assert BertNormalizer().normalize_str("a\u07fdb") == "a\u07fdb"  # Mn since Unicode 11, not in 8.0


def test_an_unassigned_code_point_is_kept():
    assert BertNormalizer().normalize_str("a\u0378b") == "a\u0378b"
    assert BertNormalizer(lowercase=False).normalize_str("\U000110cd") == "\U000110cd"


def test_punctuation_is_unicode_8s():
    # U+2E43 became punctuation in Unicode 9, U+166D stopped being it in 12
    assert [p.text for p in BertPreTokenizer().pre_tokenize("a\u2e43b")] == ["a\u2e43b"]
    assert [p.text for p in BertPreTokenizer().pre_tokenize("a\u166db")] == ["a", "\u166d", "b"]
    assert [p.text for p in pretokenizers.Punctuation().pre_tokenize("a\u166db\u2e43")] == ["a", "\u166d", "b\u2e43"]


def test_lowercase_is_unicode_17s():
    assert normalizers.Lowercase().normalize_str("\ua7cb\ua7ceΣ") == "\u0264\ua7cfσ"  # added in 16 and 17


def vocab_bert():
    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3, "##b": 4, "##\u07fd": 5}
    template = TemplateProcessing("[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
    return Pipeline(
        WordPiece(vocab), normalizer=BertNormalizer(), pre_tokenizer=BertPreTokenizer(), post_processor=template
    )


def test_an_unassigned_code_point_is_an_unknown_token_on_every_path():
    bert = vocab_bert()
    texts = ["\U000110cd", "a\u07fdb", "a\u0378b"]
    expected = [["[CLS]", "[UNK]", "[SEP]"], ["[CLS]", "a", "##\u07fd", "##b", "[SEP]"], ["[CLS]", "[UNK]", "[SEP]"]]
    assert [bert.encode(t).tokens for t in texts] == expected
    assert bert._fast_encoder() is not None
    assert [e.tokens for e in bert.encode_batch(texts)] == expected


def test_word_characters_are_unicode_16s():
    # U+088F became a letter in Unicode 17, U+0897 a mark in 16; the regex crate HF uses has 16.0.0
    assert [p.text for p in pretokenizers.Whitespace().pre_tokenize("a\u0897b a\u088fb")] == [
        "a\u0897b",
        "a",
        "\u088f",
        "b",
    ]


def test_each_table_is_of_its_unicode_version():
    # a few values of each table, from the Unicode data of each version
    assert (
        hf_unicode.is_control("\u00ad") and hf_unicode.is_control("\U0010fffd") and not hf_unicode.is_control("\u0378")
    )
    assert not hf_unicode.is_control("\u0890")  # Cf since Unicode 14
    assert hf_unicode.is_nonspacing_mark("\u0301") and hf_unicode.is_nonspacing_mark("\u1ab0")  # 1AB0: 7.0
    assert not hf_unicode.is_nonspacing_mark("\u1abf")  # Mn since Unicode 13
    assert hf_unicode.is_mark("\U0001e944") and not hf_unicode.is_mark("\U00011d3a")  # Adlam 9.0, 10.0
    assert hf_unicode.decompose("\U00011938", "NFD") == "\U00011938"  # decomposes since Unicode 13
    assert hf_unicode.is_whitespace("\u3000") and not hf_unicode.is_whitespace("\u180e")
    assert hf_unicode.lower("\u0130") == "i\u0307" and hf_unicode.lower("\U00016e40") == "\U00016e60"


# the oracle: tokenizers 0.23 on every code point

BERT_OPTIONS = [
    {},
    {"lowercase": False},
    {"strip_accents": True, "lowercase": False},
    {"clean_text": False, "handle_chinese_chars": False, "strip_accents": False},
]


@pytest.mark.parametrize("options", BERT_OPTIONS, ids=str)
def test_bert_normalizer_and_pre_tokenizer_on_every_code_point_equal_hf(options):
    hf = pytest.importorskip("tokenizers")
    theirs, ours = hf.normalizers.BertNormalizer(**options), BertNormalizer(**options)
    their_split, our_split = hf.pre_tokenizers.BertPreTokenizer(), BertPreTokenizer()

    def same(text):
        expected = theirs.normalize_str(text)
        if ours.normalize_str(text) != expected or ours.normalize(normalizers.Normalized.of(text)).text != expected:
            return False
        # the words of the other options' texts: test_pre_tokenizers_named_after_hfs... and the pipelines'
        return bool(options) or words(our_split, expected) == their_split.pre_tokenize_str(expected)

    for chunk in chunks():
        text = joined(chunk)
        assert same(text), differing(chunk, same)


@pytest.mark.parametrize("name", ["Lowercase", "StripAccents", "NFD", "NFKD", "NFC", "NFKC"])
def test_normalizers_named_after_hfs_on_every_code_point_equal_hf(name):
    hf = pytest.importorskip("tokenizers")
    theirs, ours = getattr(hf.normalizers, name)(), getattr(normalizers, name)()

    def same(text):
        expected = theirs.normalize_str(text)
        return ours.normalize_str(text) == expected and ours.normalize(normalizers.Normalized.of(text)).text == expected

    for chunk in chunks():
        text = joined(chunk)
        assert same(text), differing(chunk, same)


@pytest.mark.parametrize(
    "name, args",
    [
        ("BertPreTokenizer", ()),
        ("Punctuation", ()),
        ("Digits", ()),
        ("Digits", (True,)),
        ("WhitespaceSplit", ()),
        ("Whitespace", ()),
    ],
)
def test_pre_tokenizers_named_after_hfs_on_every_code_point_equal_hf(name, args):
    hf = pytest.importorskip("tokenizers")
    theirs, ours = getattr(hf.pre_tokenizers, name)(*args), getattr(pretokenizers, name)(*args)

    def same(text):
        expected = theirs.pre_tokenize_str(text)
        return words(ours, text) == expected and ours.split_words(text) == [w for w, _ in expected]

    for chunk in chunks():
        text = joined(chunk)
        assert same(text), differing(chunk, same)


def test_single_word_added_tokens_on_every_code_point_equal_hf():
    """``AddedToken(single_word=True)`` matches where no word character (the regex crate's ``\\w``)
    touches it, on either side; ``lstrip``/``rstrip`` take Rust's whitespace."""
    hf = pytest.importorskip("tokenizers")
    theirs = hf.Tokenizer(hf.models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    theirs.add_tokens([hf.AddedToken("ab", single_word=True, lstrip=True, rstrip=True)])
    ours = from_tokenizer_json_str(theirs.to_str())
    assert [t.single_word for t in ours.get_added_tokens_decoder().values()] == [True]

    def text_of(c):
        return f"{chr(c)}ab x ab{chr(c)} x {chr(c)} ab {chr(c)}"

    def same(text):
        expected = theirs.encode(text, add_special_tokens=False)
        got = ours.encode(text, add_special_tokens=False)
        return got.ids == expected.ids and got.offsets == expected.offsets

    for chunk in chunks(size=512):
        text = " | ".join(map(text_of, chunk))
        assert same(text), [f"U+{c:04X}" for c in chunk if not same(text_of(c))][:10]


@pytest.fixture(scope="module")
def bert_json():
    """An uncased BERT WordPiece tokenizer of tokenizers whose vocabulary holds every character its
    normalizer gives for the code points below U+20000, alone and as a continuation, and kvec's
    pipeline read from its tokenizer.json."""
    hf = pytest.importorskip("tokenizers")
    normalizer = hf.normalizers.BertNormalizer()
    chars = sorted(set(normalizer.normalize_str(" ".join(chr(c) for c in CODE_POINTS if c < 0x20000))) - {" "})
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", *chars, *("##" + c for c in chars)]
    theirs = hf.Tokenizer(hf.models.WordPiece({t: i for i, t in enumerate(tokens)}, unk_token="[UNK]"))
    theirs.normalizer = normalizer
    theirs.pre_tokenizer = hf.pre_tokenizers.BertPreTokenizer()
    theirs.post_processor = hf.processors.BertProcessing(("[SEP]", 3), ("[CLS]", 2))
    return theirs, from_tokenizer_json_str(theirs.to_str())


@pytest.fixture(scope="module")
def texts_apart(bert_json):
    """Every code point in a text, and tokenizers' ids of each text: the code points the native encoder
    normalizes alone in chunks, the few whose neighbours matter (marks kept after stripping accents)
    one by one, so that each is still tested on the native path."""
    theirs, ours = bert_json
    rule = ours.normalizer.character_rule()
    contextual = [c for c in CODE_POINTS if rule(chr(c)) is None]
    assert len(contextual) < 200
    alone = set(contextual)
    plain = [c for c in CODE_POINTS if c not in alone]
    texts = [joined(chunk) for chunk in chunks(plain, 1024)] + [between(c) for c in contextual]
    return texts, [e.ids for e in theirs.encode_batch(texts)]


def test_bert_from_tokenizer_json_on_every_code_point_equals_hf_natively(bert_json, texts_apart):
    _, ours = bert_json
    assert ours._fast_encoder() is not None
    texts, expected = texts_apart
    assert [e.ids for e in ours.encode_batch(texts)] == expected
    values, row_lengths = ours.encode_ragged(texts)
    assert row_lengths.tolist() == [len(ids) for ids in expected]


def test_bert_from_tokenizer_json_on_every_code_point_equals_hf_in_python(bert_json):
    theirs, ours = bert_json
    for chunk in chunks():
        text = joined(chunk)
        expected, got = theirs.encode(text), ours.encode(text)  # encode: the Python path
        assert (got.ids, got.offsets) == (expected.ids, expected.offsets), differing(
            chunk, lambda t: ours.encode(t).ids == theirs.encode(t).ids
        )


def test_bert_from_tokenizer_json_on_every_code_point_equals_hf_in_the_tensorflow_op(bert_json, texts_apart):
    tf = pytest.importorskip("tensorflow")
    from kvec.layers import op_library
    from kvec.native_spec import describe

    library = op_library.load()
    if library is None:
        pytest.skip("kvec's op library could not be built here")
    texts, expected = texts_apart
    values, splits = library.kvec_encode(tf.constant([t.encode() for t in texts]), spec=describe(bert_json[1]))
    assert tf.RaggedTensor.from_row_splits(values, splits).to_list() == expected
