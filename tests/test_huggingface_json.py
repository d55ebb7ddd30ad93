"""Hugging Face ``tokenizer.json`` both ways: models trained by ``tokenizers`` load into kvec and give
the same ids, kvec-trained pipelines export to files ``tokenizers`` reads and encodes identically, and
bad files raise kvec errors naming the file."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec.errors import FormatError
from kvec.interop import load_tokenizer_json, save_tokenizer_json
from kvec.presets import keras_subword, sentencepiece_style
from kvec.trainers import UnigramTrainer

tokenizers = pytest.importorskip("tokenizers")
from tests.support import TEXT, TEXTS, hf_trained, replaced  # noqa: E402

HF_KINDS = ["bytelevel_bpe", "bert_wordpiece", "bpe_sequence", "unigram_metaspace"]


@pytest.fixture(scope="module", params=HF_KINDS)
def hf_pair(request, tmp_path_factory):
    tok = hf_trained(request.param)
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    tok.save(str(path))
    return tok, load_tokenizer_json(path)


@settings(max_examples=60)
@given(texts=st.lists(TEXT, min_size=1, max_size=4))
def test_hf_trained_models_give_the_same_ids_in_kvec(hf_pair, texts):
    theirs, ours = hf_pair
    for text in texts:
        assert ours.encode(text).ids == theirs.encode(text).ids
    assert ours.encode(texts[0], texts[-1]).ids == theirs.encode(texts[0], texts[-1]).ids
    assert [e.ids for e in ours.encode_batch(texts)] == [e.ids for e in theirs.encode_batch(texts)]


def kvec_trained(kind):
    if kind == "sentencepiece_style":
        tok = sentencepiece_style(split_digits=True)
        tok.train_from_iterator(TEXTS, UnigramTrainer(vocab_size=600, byte_fallback=True))
        return tok
    tok, trainer = keras_subword(kind, 600 if kind in ("bytelevel_bpe", "unigram") else 500)
    tok.train_from_iterator(TEXTS, trainer)
    return tok


KVEC_KINDS = ["bpe", "wordpiece", "bytelevel_bpe", "unigram", "sentencepiece_style"]


@pytest.fixture(scope="module", params=KVEC_KINDS)
def exported(request, tmp_path_factory):
    tok = kvec_trained(request.param)
    path = tmp_path_factory.mktemp("kvec") / "tokenizer.json"
    save_tokenizer_json(tok, path)
    return tok, tokenizers.Tokenizer.from_file(str(path)), load_tokenizer_json(path)


@settings(max_examples=60)
@given(texts=st.lists(TEXT, min_size=1, max_size=4))
def test_kvec_exports_load_in_hf_with_the_same_ids(exported, texts):
    ours, theirs, again = exported
    for text in texts:
        ids = ours.encode(text).ids
        assert theirs.encode(text).ids == ids
        assert again.encode(text).ids == ids


def test_bad_files_raise_kvec_errors_naming_the_file(tmp_path):
    tok = hf_trained("bert_wordpiece")
    good = tmp_path / "good.json"
    tok.save(str(good))
    text = good.read_text(encoding="utf-8")
    truncated = tmp_path / "truncated.json"
    truncated.write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(FormatError, match="truncated.json: not valid JSON"):
        load_tokenizer_json(truncated)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(FormatError, match="binary.json: not UTF-8"):
        load_tokenizer_json(binary)
    document = json.loads(text)
    cases = {
        "model.json": ({"model": {"type": "WordGuess", "vocab": {}}}, "unsupported model 'WordGuess'"),
        "normalizer.json": (
            {**document, "normalizer": {"type": "Transliterate"}},
            "unsupported normalizer 'Transliterate'",
        ),
        "pre.json": (
            {**document, "pre_tokenizer": {"type": "Syllables"}},
            "unsupported pre_tokenizer 'Syllables'",
        ),
        "decoder.json": ({**document, "decoder": {"type": "Transcribe"}}, "unsupported decoder 'Transcribe'"),
        "lstrip.json": (
            {**document, "added_tokens": [{"id": 0, "content": "<mask>", "special": True, "lstrip": "yes"}]},
            r"added_tokens\[0\]\.lstrip must be true or false, got the string 'yes'",
        ),
        "vocab.json": (
            {**document, "model": {**document["model"], "vocab": ["not", "a", "dict"]}},
            "model.vocab must be an object of token: id, got the array ..not., .a., .dict..",
        ),
        "nomodel.json": ({"version": "1.0"}, 'expected an object with a "model" object'),
    }
    for name, (content, message) in cases.items():
        path = tmp_path / name
        path.write_text(json.dumps(content), encoding="utf-8")
        with pytest.raises(FormatError, match=f"{name}: .*{message}".replace("(", "\\(").replace("'", ".")):
            load_tokenizer_json(path)


def test_components_without_a_tokenizer_json_form_are_named(tmp_path):
    from kvec.normalizers import OpenCC

    tok = kvec_trained("bpe")
    tok.normalizer = OpenCC("t2s")
    with pytest.raises(ValueError, match="normalizer OpenCC has no tokenizer.json form"):
        save_tokenizer_json(tok, tmp_path / "unused.json")
    assert not (tmp_path / "unused.json").exists()


# ---- field types: a field of the wrong type is a FormatError naming its path, as tokenizers refuses it


def every_component_documents():
    """Small tokenizer.json documents written by tokenizers that, together, hold every component and
    field kvec reads."""
    from tokenizers import AddedToken, Regex, decoders, models, normalizers, pre_tokenizers, processors

    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3, "b": 4, "ab": 5, "##b": 6}
    wordpiece = tokenizers.Tokenizer(models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=50))
    wordpiece.normalizer = normalizers.Sequence(
        [
            normalizers.BertNormalizer(strip_accents=False),
            normalizers.Prepend("_"),
            normalizers.Strip(),
            normalizers.Replace("x", "y"),
            normalizers.Replace(Regex("[0-9]"), "#"),
        ]
    )
    wordpiece.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Punctuation(),
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.CharDelimiterSplit("-"),
            pre_tokenizers.Split("q", behavior="removed", invert=False),
            pre_tokenizers.WhitespaceSplit(),
        ]
    )
    wordpiece.decoder = decoders.Sequence(
        [
            decoders.WordPiece(prefix="##", cleanup=True),
            decoders.Replace("_", " "),
            decoders.Strip(" ", 1, 0),
            decoders.BPEDecoder(suffix="</w>"),
        ]
    )
    wordpiece.post_processor = processors.Sequence(
        [
            processors.ByteLevel(trim_offsets=False),
            processors.TemplateProcessing(
                single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 1), ("[SEP]", 2)]
            ),
        ]
    )
    wordpiece.enable_truncation(32, stride=2)
    wordpiece.enable_padding(pad_id=0, pad_token="[UNK]", length=40, pad_to_multiple_of=8)
    wordpiece.add_tokens([AddedToken("zz", single_word=True, lstrip=True)])

    bpe = tokenizers.Tokenizer(
        models.BPE(
            {"a": 0, "##b": 1, "ab": 2, "<unk>": 3, "c</w>": 4},
            [("a", "##b")],
            dropout=0.5,
            unk_token="<unk>",
            continuing_subword_prefix="##",
            end_of_word_suffix="</w>",
            fuse_unk=True,
            byte_fallback=True,
        )
    )
    bpe.pre_tokenizer = pre_tokenizers.Metaspace(replacement="_", prepend_scheme="first")
    bpe.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Fuse(), decoders.Metaspace()])
    bpe.post_processor = processors.RobertaProcessing(("b", 1), ("a", 0), trim_offsets=False)

    unigram = tokenizers.Tokenizer(models.Unigram([("<unk>", 0.0), ("a", -1.0), ("b", -2.5)], unk_id=0))
    unigram.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.ByteLevel(add_prefix_space=False), pre_tokenizers.FixedLength(length=4)]
    )
    unigram.decoder = decoders.CTC(pad_token="<pad>", word_delimiter_token="|", cleanup=False)
    unigram.post_processor = processors.BertProcessing(("b", 2), ("a", 1))

    wordlevel = tokenizers.Tokenizer(models.WordLevel({"a": 0, "<unk>": 1}, unk_token="<unk>"))
    wordlevel.pre_tokenizer = pre_tokenizers.Split(Regex("[ab]"), behavior="isolated", invert=True)
    return {
        name: json.loads(tok.to_str())
        for name, tok in [("wordpiece", wordpiece), ("bpe", bpe), ("unigram", unigram), ("wordlevel", wordlevel)]
    }


def scalar_fields(node, keys=()):
    """``(keys, value)`` of each scalar field (a vocabulary or merge list: its first entries)."""
    items = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
    for key, value in items[:3] if len(items) > 16 else items:
        if isinstance(value, (dict, list)) and value:
            yield from scalar_fields(value, (*keys, key))
        else:
            yield (*keys, key), value


def dotted(keys):
    """A field's path as kvec's errors write it: ``decoder.decoders[1].prefix``."""
    return "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in keys).lstrip(".")


def same_component(document, read, keys):
    """Whether tokenizers read the component holding the field at ``keys`` as the one it is: its
    untagged enums fall back to another kind (a RobertaProcessing with a bad field reads as a
    BertProcessing), and a component read by its name only is no question of a field's type."""
    written, parsed = document, read
    for key in keys[:-1]:
        try:
            written, parsed = written[key], parsed[key]
        except (KeyError, IndexError, TypeError):
            return False
    return not isinstance(written, dict) or not isinstance(parsed, dict) or written.get("type") == parsed.get("type")


def names_the_field(error, path, keys):
    """Whether ``error`` names the field: by its path, as a vocabulary's entry (``model.vocab['a']``),
    or as the pair it is an item of (``post_processor.sep must be a [token, id] pair, got ...``)."""
    parent = dotted(keys[:-1])
    return f"{path} " in error or f"{parent}[{keys[-1]!r}] " in error or f"{parent} must be a [" in error


WRONG_TYPES = [7, -1, 1.5, "x", True, None, [1], {"a": 1}]
TYPE_COMPLAINT = " must be "


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", ["wordpiece", "bpe", "unigram", "wordlevel"])
def test_a_field_of_the_wrong_type_is_refused_naming_its_path_where_tokenizers_refuses_it(name):
    from kvec.interop.huggingface import from_tokenizer_json_str

    document = every_component_documents()[name]
    from_tokenizer_json_str(json.dumps(document))  # the document itself loads
    checked = 0
    for keys, original in scalar_fields(document):
        path = dotted(keys)
        if path == "version" or keys[0] not in (
            "model",
            "normalizer",
            "pre_tokenizer",
            "decoder",
            "post_processor",
            "truncation",
            "padding",
            "added_tokens",
        ):
            continue
        for value in WRONG_TYPES:
            if type(value) is type(original) or (isinstance(original, float) and type(value) is int):
                continue  # (an integer is a float's value too)
            text = json.dumps(replaced(document, keys, value))
            try:
                read = json.loads(tokenizers.Tokenizer.from_str(text).to_str())
                hf_refuses = False
            except Exception:  # noqa: BLE001 (any refusal of tokenizers)
                hf_refuses = True
            try:
                from_tokenizer_json_str(text)
                error = None
            except FormatError as e:
                error = str(e)
            if original is None and isinstance(value, dict):
                continue  # an object whose fields are missing, where null was: not a question of type
            if hf_refuses:
                checked += 1
                assert error is not None, f"{path} = {value!r}: tokenizers refuses it, kvec loads it"
                if value is not None:  # (null is a value of an optional field: refused for its meaning)
                    assert names_the_field(error, path, keys), (
                        f"{path} = {value!r}: the error does not name it: {error}"
                    )
            elif error is not None and not path.endswith(".type") and same_component(document, read, keys):
                assert TYPE_COMPLAINT not in error or "out of range" in error, (
                    f"{path} = {value!r}: tokenizers reads it, kvec refuses its type: {error}"
                )
    assert checked > 20
