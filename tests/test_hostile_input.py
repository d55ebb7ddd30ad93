"""Hostile files: every loader gives a tokenizer that encodes, or a kvec error naming the file.

JSON nested 100,000 deep, integers of thousands of digits, ids and ranks past int32, scores past a
double, configurations that load and would fail on first use, and a tiktoken token of half a megabyte
(its merge is found in ``n log n`` steps; the scan of every pair at every join took hours at that size).
Nothing is timed. The files are made here, small, without the oracle libraries.
"""

import base64
import json
import math
import random
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kvec
from kvec import Tokenizer, tokenizer_from_json
from kvec.errors import MAX_JSON_DEPTH, FormatError, KvecError, check_json_depth, parse_json
from kvec.interop import (
    load_bert_vocab,
    load_gpt2_files,
    load_sentencepiece_model,
    load_tiktoken,
    load_tokenizer_json,
)
from kvec.interop.huggingface import from_tokenizer_json_str, to_tokenizer_json_str
from kvec.interop.tiktoken_ranks import _merge
from kvec.models import BPE, Unigram, WordPiece
from kvec.normalizers import Lowercase, Sequence
from kvec.pipeline import Pipeline
from kvec.pretokenizers import Whitespace
from tests.support import replaced

DEEP = "[" * 100_000 + "]" * 100_000
LONG_NUMBER = "9" * 5000
SAMPLES = ["hello world", "", "ab ba", "ünïcödé 中文", "a" * 300]


# ---- small valid files of every kind ----------------------------------------------------------------


def wordpiece_pipeline():
    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3, "b": 4, "##a": 5, "##b": 6, "hello": 7, "world": 8}
    return Pipeline(WordPiece(vocab), pre_tokenizer=Whitespace(), normalizer=Lowercase())


def unigram_pipeline():
    pieces = [("<unk>", 0.0), ("a", -1.0), ("b", -1.5), ("ab", -2.0), ("hello", -3.0), ("world", -3.0)]
    return Pipeline(Unigram(pieces, unk_id=0), pre_tokenizer=Whitespace())


def bpe_pipeline():
    vocab = {"<unk>": 0, "a": 1, "b": 2, "ab": 3, "h": 4, "e": 5, "l": 6, "o": 7}
    return Pipeline(BPE(vocab, [("a", "b")], unk_token="<unk>"), pre_tokenizer=Whitespace())


PIPELINES = {"wordpiece": wordpiece_pipeline, "unigram": unigram_pipeline, "bpe": bpe_pipeline}


def byte_ranks():
    return "".join(f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256))


def gpt2_files(folder, vocab):
    (folder / "vocab.json").write_text(vocab if isinstance(vocab, str) else json.dumps(vocab), encoding="utf-8")
    (folder / "merges.txt").write_text("#version: 0.2\na b\n", encoding="utf-8")
    return folder / "vocab.json", folder / "merges.txt"


def field(number, wire, payload):
    """One protobuf field: ``payload`` an int for a varint, bytes for the others."""
    return _varint(number << 3 | wire) + (_varint(payload) if wire == 0 else payload)


def _varint(value):
    out = bytearray()
    value &= (1 << 64) - 1  # negative numbers as protobuf writes them: 64-bit two's complement
    while True:
        out.append(value & 0x7F | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def message(*fields):
    return b"".join(fields)


def sentencepiece_file(pieces, trainer=b"", model_type=1):
    """A ModelProto: ``pieces`` as ``(piece, score bytes, type)``, a trainer spec of ``model_type``
    (1: Unigram, 2: BPE) and more ``trainer`` fields, the identity normalizer."""
    entries = [
        field(1, 2, _sized(message(field(1, 2, _sized(p.encode())), field(2, 5, score), field(3, 0, kind))))
        for p, score, kind in pieces
    ]
    trainer_spec = field(2, 2, _sized(message(field(3, 0, model_type), trainer)))
    normalizer_spec = field(3, 2, _sized(message(field(3, 0, 0), field(4, 0, 0))))
    return message(*entries, trainer_spec, normalizer_spec)


def _sized(payload):
    return _varint(len(payload)) + payload


def f32(value):
    return struct.pack("<f", value)


SENTENCEPIECE_PIECES = [("<unk>", f32(0.0), 2), ("▁a", f32(-1.0), 1), ("a", f32(-2.0), 1), ("b", f32(-2.5), 1)]


def encodes(tokenizer):
    """Encode and decode the samples (a legacy Tokenizer converts them both ways)."""
    if isinstance(tokenizer, Tokenizer):
        tokenizer.sequences_to_texts(tokenizer.texts_to_sequences(SAMPLES))
        return
    for text in SAMPLES:
        tokenizer.decode(tokenizer.encode(text).ids)
    tokenizer.decode_batch([e.ids for e in tokenizer.encode_batch(SAMPLES)])
    tokenizer.encode_ragged(SAMPLES)


# ---- JSON: nesting and long numbers, in every JSON loader -----------------------------------------


def json_loaders(tmp_path):
    """``(name, load(text), source it must name)`` for every reader of JSON text or files."""

    def from_file(loader, name):
        def load(text):
            path = tmp_path / name
            path.write_text(text, encoding="utf-8")
            return loader(path)

        return load

    def gpt2(text):
        vocab, merges = gpt2_files(tmp_path, text)
        return load_gpt2_files(vocab, merges)

    return [
        ("Pipeline.from_file", from_file(Pipeline.from_file, "kvec.json"), "kvec.json"),
        ("Pipeline.from_str", Pipeline.from_str, "JSON string"),
        ("load_tokenizer_json", from_file(load_tokenizer_json, "tokenizer.json"), "tokenizer.json"),
        ("from_tokenizer_json_str", from_tokenizer_json_str, "string"),
        ("tokenizer_from_json", tokenizer_from_json, "JSON string"),
        ("kvec.load", from_file(kvec.load, "any.json"), "any.json"),
        ("load_gpt2_files", gpt2, "vocab.json"),
    ]


@pytest.mark.parametrize("index", range(7))
def test_json_nested_100000_deep_is_a_format_error_naming_the_source(tmp_path, index):
    name, load, source = json_loaders(tmp_path)[index]
    for text in (DEEP, '{"a": ' * 50_000 + "1" + "}" * 50_000):
        with pytest.raises(FormatError, match=f"{source}.*: JSON nested more than {MAX_JSON_DEPTH} deep"):
            load(text)


@pytest.mark.parametrize("index", range(7))
def test_an_integer_of_5000_digits_is_a_format_error_naming_the_source(tmp_path, index):
    name, load, source = json_loaders(tmp_path)[index]
    with pytest.raises(FormatError, match=f"{source}.*: a number too long to read"):
        load('{"model": {"type": "BPE", "vocab": {"a": ' + LONG_NUMBER + "}}}")


@pytest.mark.parametrize("reader", ["parse_json", "check_json_depth"])
def test_the_nesting_limit_is_serde_json_s_128(reader):
    def check(depth):
        if reader == "parse_json":
            return parse_json("[" * depth + "]" * depth, "doc")
        return check_json_depth({"x": json.loads("[" * (depth - 1) + "]" * (depth - 1))}, "doc")

    check(MAX_JSON_DEPTH)
    with pytest.raises(FormatError, match="doc: JSON nested more than 128 deep"):
        check(MAX_JSON_DEPTH + 1)


def test_nested_stages_within_the_limit_load_and_encode():
    # each Sequence is two levels (an object and its list): 40 of them recurse in every reader
    normalizer = Lowercase()
    for _ in range(40):
        normalizer = Sequence([normalizer])
    tokenizer = wordpiece_pipeline()
    tokenizer.normalizer = normalizer
    for again in (Pipeline.from_str(tokenizer.to_str()), from_tokenizer_json_str(to_tokenizer_json_str(tokenizer))):
        assert again.encode("HELLO World").tokens == ["hello", "world"]


def test_the_legacy_json_strings_inside_a_keras_file_are_checked_too():
    document = json.loads(Tokenizer().to_json())
    document["config"]["word_index"] = DEEP
    with pytest.raises(FormatError, match='"word_index" is JSON nested more than 128 deep'):
        tokenizer_from_json(json.dumps(document))


@pytest.mark.parametrize(
    "table, value, problem",
    [
        ("word_index", {"a": "1"}, "\"word_index\"\\['a'\\] must be an int, got str"),
        ("word_index", {"a": {}}, "must be an int, got dict"),
        ("word_index", {"a": -1}, "= -1 is out of range"),
        ("word_counts", {"a": 2**70}, "out of range"),
        ("index_word", {"1": 5}, '"index_word"\\[1\\] must be a str, got int'),
        ("word_docs", {"a": True}, "must be an int, got bool"),
    ],
)
def test_legacy_tables_must_hold_what_the_lookups_rely_on(table, value, problem):
    document = json.loads(Tokenizer().to_json())
    document["config"][table] = json.dumps(value)
    with pytest.raises(FormatError, match=problem):
        tokenizer_from_json(json.dumps(document))


# ---- values out of range: ids, ranks, scores -------------------------------------------------------


def kvec_document(kind):
    return json.loads(PIPELINES[kind]().to_str())


def hf_document(kind):
    return json.loads(to_tokenizer_json_str(PIPELINES[kind]()))


@pytest.mark.parametrize("reader", ["kvec", "hf"])
@pytest.mark.parametrize("value", ["1" + "0" * 400, "1e400", "NaN", "-Infinity"])
def test_a_unigram_score_past_a_double_is_a_format_error(reader, value):
    document = kvec_document("unigram") if reader == "kvec" else hf_document("unigram")
    vocab = document["model"]["config"]["vocab"] if reader == "kvec" else document["model"]["vocab"]
    vocab[1][1] = 12345.5
    text = json.dumps(document).replace("12345.5", value)
    with pytest.raises(FormatError, match=r"the score of vocab\[1\] must be a finite number"):
        (Pipeline.from_str if reader == "kvec" else from_tokenizer_json_str)(text)


@pytest.mark.parametrize("reader", ["kvec", "hf"])
@pytest.mark.parametrize("kind", ["wordpiece", "bpe"])
@pytest.mark.parametrize("value", [2**31, 2**70, -1, -(2**31) - 1])
def test_an_id_outside_int32_is_a_format_error(reader, kind, value):
    document = kvec_document(kind) if reader == "kvec" else hf_document(kind)
    vocab = document["model"]["config"]["vocab"] if reader == "kvec" else document["model"]["vocab"]
    vocab["a"] = value
    load = Pipeline.from_str if reader == "kvec" else from_tokenizer_json_str
    with pytest.raises(FormatError, match=rf"vocab\['a'\] = {value} is out of range: ids are 0 to 2147483647"):
        load(json.dumps(document))


def test_a_gpt2_id_of_2_to_the_70_names_the_vocab_file(tmp_path):
    vocab, merges = gpt2_files(tmp_path, {"a": 0, "b": 2**70, "ab": 1})
    with pytest.raises(FormatError, match=r"vocab.json: vocab\['b'\] = 1180591620717411303424 is out of range"):
        load_gpt2_files(vocab, merges)


@pytest.mark.parametrize("rank", [str(2**64), "-2147483649", "-1", "2147483648", "+5", "1_000", "٣", "9" * 5000])
def test_a_tiktoken_rank_outside_int32_is_a_format_error_naming_the_line(tmp_path, rank):
    path = tmp_path / "ranks.tiktoken"
    path.write_text(byte_ranks() + f"{base64.b64encode(b'ab').decode()} {rank}\n", encoding="utf-8")
    with pytest.raises(
        FormatError, match=r"ranks.tiktoken: line 257: the rank .* is not a number from 0 to 2147483647"
    ):
        load_tiktoken(path)


def test_two_tiktoken_tokens_of_one_rank_are_refused_as_tiktoken_refuses_them(tmp_path):
    path = tmp_path / "ranks.tiktoken"
    path.write_text(byte_ranks() + f"{base64.b64encode(b'ab').decode()} 97\n", encoding="utf-8")
    with pytest.raises(FormatError, match="line 257: rank 97 is also the rank of line 98"):
        load_tiktoken(path)


def test_a_tiktoken_token_listed_twice_keeps_its_last_rank_and_frees_the_first(tmp_path):
    ab, xy, abc = (base64.b64encode(token).decode() for token in (b"ab", b"xy", b"abc"))
    path = tmp_path / "ranks.tiktoken"
    path.write_text(byte_ranks() + f"{ab} 300\n{ab} 256\n{xy} 300\n{abc} 257\n", encoding="utf-8")
    tokenizer = load_tiktoken(path)  # as tiktoken reads it: ab 256, xy 300, abc 257
    assert [tokenizer.encode(text).ids for text in ("ab", "xy", "abc")] == [[256], [300], [257]]


def test_tiktoken_special_token_ids_are_checked(tmp_path):
    path = tmp_path / "ranks.tiktoken"
    path.write_text(byte_ranks(), encoding="utf-8")
    with pytest.raises(ValueError, match=r"special_tokens\['<s>'\] = -5 is out of range"):
        load_tiktoken(path, special_tokens={"<s>": -5})
    with pytest.raises(TypeError, match="special_tokens must map non-empty str tokens"):
        load_tiktoken(path, special_tokens={"": 300})
    assert load_tiktoken(path, special_tokens={"<s>": 300}).encode("a<s>").ids == [97, 300]


# ---- configurations that loaded and then failed on first use ---------------------------------------


KVEC_CONFIGS = [
    ("unigram", "nbest_size", [[1, 2, 3]], "nbest_size must be an int or None, got list"),
    ("unigram", "alpha", "x", "alpha must be a number, got str"),
    ("unigram", "unk_id", 1.5, "unk_id must be an int id, got float"),
    ("unigram", "unk_id", 99, "unk_id 99 is not an id of the vocabulary"),
    ("unigram", "byte_fallback", "yes", "byte_fallback must be a bool, got str"),
    ("unigram", "unmatchable", ["a"], r"unmatchable\[0\] must be an int id, got str"),
    ("unigram", "unk_score", "NaN", "unk_score must be a finite number"),
    ("unigram", "viterbi", ["huggingface"], "viterbi must be one of"),
    ("bpe", "dropout", "x", "dropout must be a number, got str"),
    ("bpe", "merges", [["a", "b", "c"]], r"merges\[0\] must be a \(left, right\) pair of str tokens"),
    ("bpe", "merges", "a b", "merges must be a list of \\(left, right\\) pairs, got str"),
    ("bpe", "unk_token", 5, "unk_token must be a str or None, got int"),
    ("bpe", "continuing_subword_prefix", ["#"], "continuing_subword_prefix must be a str or None, got list"),
    ("bpe", "fuse_unk", "x", "fuse_unk must be a bool, got str"),
    ("wordpiece", "max_input_chars_per_word", "x", "max_input_chars_per_word must be an int, got str"),
    ("wordpiece", "max_input_chars_per_word", 2**70, "max_input_chars_per_word must be between 0 and"),
    ("wordpiece", "max_input_chars_per_word", -1, "max_input_chars_per_word must be between 0 and"),
    ("wordpiece", "continuing_subword_prefix", None, "continuing_subword_prefix must be a str, got NoneType"),
    ("wordpiece", "unk_token", [], "unk_token must be a str, got list"),
]


@pytest.mark.parametrize("kind, key, value, problem", KVEC_CONFIGS)
def test_kvec_model_configs_are_checked_at_load(kind, key, value, problem):
    document = kvec_document(kind)
    document["model"]["config"][key] = value
    text = json.dumps(document).replace('"NaN"', "NaN")
    with pytest.raises(FormatError, match=f"kvec tokenizer JSON string: invalid model config \\({problem}"):
        Pipeline.from_str(text)


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda d: d["model"].update(type=["BPE"]), "unknown model type \\['BPE'\\]"),
        (lambda d: d.update(kvec_format=True), "unsupported kvec_format True"),
        (lambda d: d.update(padding={"length": 2**31}), "length must be at most 16777216"),
        (lambda d: d.update(padding={"pad_to_multiple_of": 2**70}), "pad_to_multiple_of must be at most"),
        (lambda d: d.update(padding={"pad_id": 2**31}), "pad_id must be at most 2147483647"),
        (lambda d: d.update(truncation={"max_length": 2**70}), "max_length must be at most 2147483647"),
    ],
)
def test_kvec_pipeline_settings_are_checked_at_load(change, problem):
    document = kvec_document("wordpiece")
    change(document)
    with pytest.raises(FormatError, match=problem):
        Pipeline.from_str(json.dumps(document))


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda d: d["model"].update(unk_id=[0]), r"model.unk_id must be a non-negative integer, got the array \[0\]"),
        (
            lambda d: d["model"].update(vocab=[["a", "1"]]),
            r'model.vocab\[0\] must be a \[piece, score\] pair, got the array \["a", "1"\]',
        ),
        (
            lambda d: d.update(truncation={"max_length": 5, "direction": ["Right"]}),
            r'truncation.direction must be a string, got the array \["Right"\]',
        ),
        (
            lambda d: d.update(padding={"direction": {"Left": 1}}),
            r'padding.direction must be a string, got the object {"Left": 1}',
        ),
        (lambda d: d.update(added_tokens=[{"id": 2**40, "content": "x"}]), r"added_tokens\[0\].id = 1099511627776"),
        (
            lambda d: d.update(added_tokens=[{"id": True, "content": "x"}]),
            r"added_tokens\[0\].id must be a non-negative integer, got true",
        ),
    ],
)
def test_tokenizer_json_settings_are_checked_at_load(change, problem):
    document = hf_document("unigram")
    change(document)
    with pytest.raises(FormatError, match=problem):
        from_tokenizer_json_str(json.dumps(document))


HOSTILE = [2**70, 2**31, -1, 1.5, math.inf, "x", "", None, True, [[1, 2, 3]], {"a": {}}]


def fields_of(document, path=()):
    """Every field of the model's configuration, and of the sections beside the model."""
    if isinstance(document, dict):
        items = list(document.items())
    elif isinstance(document, list):
        items = list(enumerate(document))
    else:
        return
    if len(items) > 16:  # a long vocabulary or merge list: its first entries
        items = items[:3]
    for key, value in items:
        yield path + (key,)
        yield from fields_of(value, path + (key,))


def unknown_token_missing(error):
    """The one error a loaded model may raise on use, as in Hugging Face: the text needs an unknown
    token the vocabulary does not have."""
    return isinstance(error, ValueError) and ("not in the vocabulary" in str(error) or "unk_id" in str(error))


@pytest.mark.filterwarnings("ignore:.*format version:UserWarning")
@pytest.mark.parametrize("reader", ["kvec", "hf"])
@pytest.mark.parametrize("kind", list(PIPELINES))
def test_any_hostile_field_loads_and_encodes_or_is_a_kvec_error(reader, kind):
    document = kvec_document(kind) if reader == "kvec" else hf_document(kind)
    load = Pipeline.from_str if reader == "kvec" else from_tokenizer_json_str
    for path in list(fields_of(document)):
        for value in HOSTILE:
            try:
                tokenizer = load(json.dumps(replaced(document, path, value)))
            except KvecError:
                continue
            try:
                encodes(tokenizer)
            except Exception as error:  # noqa: BLE001 (any other error is the failure this test finds)
                assert unknown_token_missing(error), f"{path} = {value!r}: {type(error).__name__}: {error}"


# ---- the other loaders ------------------------------------------------------------------------------


def test_a_bert_vocab_without_its_unknown_token_is_refused(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("[PAD]\n[CLS]\n[SEP]\nun\n##able\n", encoding="utf-8")
    with pytest.raises(FormatError, match="vocab.txt: unk_token '\\[UNK\\]' is not in the vocabulary"):
        load_bert_vocab(path)


def test_a_sentencepiece_model_written_here_loads_and_encodes(tmp_path):
    path = tmp_path / "m.model"
    path.write_bytes(sentencepiece_file(SENTENCEPIECE_PIECES))
    tokenizer = load_sentencepiece_model(path)
    assert tokenizer.encode("ab").tokens == ["a", "b"]
    encodes(tokenizer)


@pytest.mark.parametrize("score", [math.inf, -math.inf, math.nan])
def test_a_sentencepiece_score_that_is_not_finite_is_refused(tmp_path, score):
    path = tmp_path / "m.model"
    pieces = SENTENCEPIECE_PIECES[:2] + [("a", f32(score), 1)] + SENTENCEPIECE_PIECES[3:]
    path.write_bytes(sentencepiece_file(pieces))
    with pytest.raises(FormatError, match=r"m.model: piece 2 \('a'\) has the score .*: not a finite number"):
        load_sentencepiece_model(path)


@pytest.mark.parametrize("model_type", [1, 2])
def test_a_sentencepiece_piece_type_the_schema_does_not_name_reads_as_normal(tmp_path, model_type):
    # protobuf reads an enum value its schema does not name as the field's default (NORMAL)
    pieces = SENTENCEPIECE_PIECES + [("ab", f32(-0.5), 1)]
    plain, odd = tmp_path / "plain.model", tmp_path / "odd.model"
    plain.write_bytes(sentencepiece_file(pieces, model_type=model_type))
    odd.write_bytes(sentencepiece_file(pieces[:-1] + [("ab", f32(-0.5), 99)], model_type=model_type))
    assert load_sentencepiece_model(plain).encode("ab").tokens == ["ab"]
    for text in ("ab", "ba b", "c", "abab"):
        assert load_sentencepiece_model(odd).encode(text).ids == load_sentencepiece_model(plain).encode(text).ids


@pytest.mark.parametrize("unk_id", [-1, 2**31, 7])
def test_a_sentencepiece_unk_id_outside_the_pieces_is_refused(tmp_path, unk_id):
    path = tmp_path / "m.model"
    path.write_bytes(sentencepiece_file(SENTENCEPIECE_PIECES[1:], trainer=field(40, 0, unk_id)))
    with pytest.raises(FormatError, match="m.model: invalid model"):
        load_sentencepiece_model(path)


def test_kvec_load_refuses_a_deep_json_array_by_its_nesting(tmp_path):
    path = tmp_path / "deep.txt"
    path.write_text(DEEP, encoding="utf-8")
    with pytest.raises(FormatError, match="deep.txt: JSON nested more than 128 deep"):
        kvec.load(path)


def test_kvec_load_reads_tokenizer_json_numbers_as_load_tokenizer_json_does(tmp_path):
    # serde_json reads -119.81331877417195 an ulp off Python's float(): the two loaders must agree
    document = hf_document("unigram")
    document["model"]["vocab"][1][1] = -119.81331877417195
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert kvec.load(path).model.pieces == load_tokenizer_json(path).model.pieces
    assert load_tokenizer_json(path).model.pieces[1][1] == -119.81331877417196


# ---- tiktoken: a long token loads in n log n steps, with tiktoken's merge ---------------------------


def scan_merge(ranks, token, below):
    """tiktoken's rule as stated: join the adjacent pair of lowest rank below ``below`` (leftmost of
    equals), scanning every pair at every join, until none joins."""
    parts = [bytes([b]) for b in token]
    while True:
        found = [(ranks[a + b], i) for i, (a, b) in enumerate(zip(parts, parts[1:])) if ranks.get(a + b, below) < below]
        if not found:
            return parts
        _, i = min(found)
        parts[i : i + 2] = [parts[i] + parts[i + 1]]


@settings(max_examples=300, deadline=None)
@given(
    tokens=st.lists(st.binary(min_size=2, max_size=6).map(lambda b: bytes(c % 3 + 97 for c in b)), max_size=20),
    order=st.randoms(use_true_random=False),
    word=st.binary(min_size=2, max_size=24).map(lambda b: bytes(c % 3 + 97 for c in b)),
)
def test_the_heap_merge_is_the_scan_merge(tokens, order, word):
    ranks = {bytes([b]): b for b in range(256)}
    for token in dict.fromkeys(tokens):
        ranks.setdefault(token, len(ranks))
    above = list(range(256, len(ranks)))
    order.shuffle(above)
    ranks = {token: rank if rank < 256 else above[rank - 256] for token, rank in ranks.items()}
    for below in (len(ranks), len(ranks) // 2 + 128):
        assert _merge(ranks, word, below) == scan_merge(ranks, word, below)
    for token, rank in ranks.items():
        if len(token) > 1:
            assert _merge(ranks, token, rank) == scan_merge(ranks, token, rank)


def test_a_token_of_half_a_megabyte_loads_with_the_merge_of_its_halves(tmp_path):
    # "ab" doubled 18 times: each token is two of the one before. The scan took hours at this size.
    lines, token, rank = [byte_ranks()], b"ab", 256
    while len(token) <= 1 << 19:
        lines.append(f"{base64.b64encode(token).decode()} {rank}\n")
        token, rank = token + token, rank + 1
    path = tmp_path / "long.tiktoken"
    path.write_text("".join(lines), encoding="utf-8")
    tokenizer = load_tiktoken(path)
    longest = "ab" * (1 << 18)
    assert tokenizer.model.merges[-1] == (longest[: len(longest) // 2], longest[len(longest) // 2 :])
    assert len(tokenizer.model.merges) == rank - 256
    assert tokenizer.encode(longest + "ab").ids == [rank - 1, 256]
    assert tokenizer.encode("abababa").ids == [257, 256, 97]


def test_random_rank_files_load_or_name_the_token_that_cannot_be_made(tmp_path):
    rng = random.Random(5)
    for trial in range(30):
        ranks, lines = {}, [byte_ranks()]
        for _ in range(rng.randint(1, 15)):
            token = bytes(rng.choice(b"ab") for _ in range(rng.randint(2, 5)))
            if token not in ranks:
                ranks[token] = 256 + len(ranks)
                lines.append(f"{base64.b64encode(token).decode()} {ranks[token]}\n")
        path = tmp_path / f"r{trial}.tiktoken"
        path.write_text("".join(lines), encoding="utf-8")
        every = {bytes([b]): b for b in range(256)} | ranks
        broken = [r for t, r in ranks.items() if len(scan_merge(every, t, r)) != 2]
        if broken:
            with pytest.raises(FormatError, match=f"token of rank {min(broken)} cannot be made"):
                load_tiktoken(path)
        else:
            tokenizer = load_tiktoken(path)
            for token, rank in ranks.items():
                assert tokenizer.encode(token.decode()).ids == [rank]
