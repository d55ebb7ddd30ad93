"""Calling a pipeline the transformers way, against ``transformers.PreTrainedTokenizerFast`` over the
same ``tokenizer.json`` (BERT-, RoBERTa- and sentencepiece-shaped, trained here with HF tokenizers):
every argument of the call on singles, pairs and batches, each ``return_tensors`` type, decoding,
the special-token attributes, and ``save_pretrained`` / ``from_pretrained`` both ways, offline."""

import os
import re
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kvec
from kvec.errors import FormatError, NotLocalError
from kvec.models import WordPiece
from kvec.pipeline import Pipeline
from kvec.pretokenizers import Whitespace
from kvec.transformers_calls import BatchEncoding
from tests.support import TEXTS, Oracle

transformers = Oracle("transformers")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::FutureWarning")

INPUT_NAMES = ["input_ids", "token_type_ids", "attention_mask"]
WORDS = ["the", "a", "value", "of", "string", "is", "returned", "json", "Hello", "world", "!", ",", "é", "12"]
# the special tokens each shape names, as transformers' own tokenizer classes name them
ROLES = {
    "bert": {
        "unk_token": "[UNK]",
        "pad_token": "[PAD]",
        "cls_token": "[CLS]",
        "sep_token": "[SEP]",
        "mask_token": "[MASK]",
    },
    "roberta": {
        "bos_token": "<s>",
        "eos_token": "</s>",
        "unk_token": "<unk>",
        "pad_token": "<pad>",
        "cls_token": "<s>",
        "sep_token": "</s>",
        "mask_token": "<mask>",
    },
    "sentencepiece": {"eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"},
}


def _train(shape):
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, normalizers, pre_tokenizers, processors, trainers

    if shape == "bert":
        tok = tokenizers.Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer()
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece()
        specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        tok.train_from_iterator(TEXTS, trainers.WordPieceTrainer(vocab_size=300, special_tokens=specials))
        cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
        )
    elif shape == "roberta":
        tok = tokenizers.Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
        alphabet = pre_tokenizers.ByteLevel.alphabet()
        tok.train_from_iterator(
            TEXTS, trainers.BpeTrainer(vocab_size=400, initial_alphabet=alphabet, special_tokens=specials)
        )
        tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True)
    else:
        tok = tokenizers.Tokenizer(models.Unigram())
        tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        specials = ["<pad>", "</s>", "<unk>"]
        tok.train_from_iterator(
            TEXTS, trainers.UnigramTrainer(vocab_size=300, special_tokens=specials, unk_token="<unk>")
        )
        tok.post_processor = processors.TemplateProcessing(
            single="$A </s>", pair="$A </s> $B:1 </s>:1", special_tokens=[("</s>", 1)]
        )
    return tok


@pytest.fixture(scope="module", params=["bert", "roberta", "sentencepiece"])
def shape(request, tmp_path_factory):
    path = tmp_path_factory.mktemp(request.param) / "tokenizer.json"
    _train(request.param).save(str(path))
    return request.param, str(path)


def _pair(shape, **settings_):
    """kvec's pipeline and transformers' tokenizer of one ``tokenizer.json``, with the same settings."""
    name, path = shape
    theirs = transformers.PreTrainedTokenizerFast(
        tokenizer_file=path, model_input_names=INPUT_NAMES, **ROLES[name], **settings_
    )
    ours = kvec.load(path)
    for key, value in {**ROLES[name], **settings_}.items():
        setattr(ours, key, value)
    return ours, theirs


def _same(ours, theirs):
    """The same fields, values and per-row encodings."""
    assert isinstance(ours, BatchEncoding)
    assert list(ours.keys()) == list(theirs.keys())
    for key in theirs:
        mine, expected = ours[key], theirs[key]
        if isinstance(expected, np.ndarray):
            assert isinstance(mine, np.ndarray) and mine.dtype == expected.dtype and mine.shape == expected.shape
            if expected.dtype == object:
                assert [row.tolist() for row in mine] == [row.tolist() for row in expected]
            else:
                assert mine.tolist() == expected.tolist()
        else:
            assert mine == expected, key
    assert len(ours.encodings) == len(theirs.encodings)
    for row in range(len(theirs.encodings)):
        assert ours.tokens(row) == theirs.tokens(row)
        assert ours.word_ids(row) == theirs.word_ids(row)
        assert ours.sequence_ids(row) == theirs.sequence_ids(row)


TEXT = st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join)
SPLIT = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6)
ARGUMENTS = st.fixed_dictionaries(
    {},
    optional={
        "add_special_tokens": st.booleans(),
        "padding": st.sampled_from([False, True, "longest", "max_length", "do_not_pad"]),
        "truncation": st.sampled_from([None, False, True, "longest_first", "only_first", "only_second"]),
        "max_length": st.none() | st.integers(0, 14),
        "stride": st.integers(0, 3),
        "pad_to_multiple_of": st.none() | st.integers(1, 5),
        "padding_side": st.sampled_from([None, "left", "right"]),
        "return_token_type_ids": st.sampled_from([None, True, False]),
        "return_attention_mask": st.sampled_from([None, True, False]),
        "return_overflowing_tokens": st.booleans(),
        "return_special_tokens_mask": st.booleans(),
        "return_offsets_mapping": st.booleans(),
        "return_length": st.booleans(),
        "return_tensors": st.sampled_from([None, "np"]),
    },
)


@st.composite
def inputs(draw):
    """``(args, is_split_into_words)``: a single text, a pair, a batch or a batch of pairs, of texts or
    of words."""
    split = draw(st.booleans())
    one = SPLIT if split else TEXT
    kind = draw(st.sampled_from(["single", "pair", "batch", "batch_pairs"]))
    if kind == "single":
        return (draw(one),), split
    if kind == "pair":
        return (draw(one), draw(one)), split
    n = draw(st.integers(1, 4))
    first = draw(st.lists(one, min_size=n, max_size=n))
    if kind == "batch":
        return (first,), split
    return (first, draw(st.lists(one, min_size=n, max_size=n))), split


def _outcome(call):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return call(), None
    except Exception as error:  # tokenizers' Rust errors are plain Exceptions
        return None, error
    except BaseException as error:  # and a Rust panic is pyo3's PanicException, a BaseException
        if type(error).__name__ != "PanicException":
            raise
        return None, error


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=inputs(), arguments=ARGUMENTS, model_max_length=st.sampled_from([None, 9]))
def test_every_argument_on_singles_pairs_and_batches_as_transformers(shape, data, arguments, model_max_length):
    args, split = data
    ours, theirs = _pair(shape, **({} if model_max_length is None else {"model_max_length": model_max_length}))
    expected, their_error = _outcome(lambda: theirs(*args, is_split_into_words=split, **arguments))
    found, our_error = _outcome(lambda: ours(*args, is_split_into_words=split, **arguments))
    if their_error is not None:
        assert isinstance(our_error, (ValueError, TypeError)), (their_error, found)
        return
    assert our_error is None, our_error
    _same(found, expected)


@pytest.mark.parametrize("tensor_type", ["np", "tf", "jax", "pt"])
def test_each_return_tensors_type_holds_transformers_values(shape, tensor_type):
    ours, theirs = _pair(shape)
    texts = TEXTS[:5]
    arguments = {"padding": True, "truncation": True, "max_length": 12, "return_offsets_mapping": True}
    expected = theirs(texts, texts[::-1], return_tensors="np", return_length=True, **arguments)
    module = {"np": "numpy", "tf": "tensorflow", "jax": "jax", "pt": "torch"}[tensor_type]
    framework = pytest.importorskip(module)
    found = ours(texts, texts[::-1], return_tensors=tensor_type, return_length=True, **arguments)
    assert list(found) == list(expected)
    for key, value in found.items():
        kind = {
            "np": np.ndarray,
            "tf": getattr(framework, "Tensor", None),
            "jax": getattr(framework, "Array", None),
            "pt": getattr(framework, "Tensor", None),
        }[tensor_type]
        assert isinstance(value, kind), (key, type(value))
        assert np.asarray(value).tolist() == expected[key].tolist()
        # jax keeps its default int (int32 unless jax_enable_x64), as jnp.asarray makes it
        dtype = framework.numpy.asarray(expected[key]).dtype if tensor_type == "jax" else expected[key].dtype
        assert np.asarray(value).dtype == dtype


@pytest.mark.parametrize(
    ("tensor_type", "module", "extra"),
    [("tf", "tensorflow", "kvec[keras]"), ("jax", "jax.numpy", "kvec[jax]"), ("pt", "torch", "kvec[torch]")],
)
def test_a_framework_that_is_not_installed_names_the_extra(tensor_type, module, extra, monkeypatch):
    monkeypatch.setitem(sys.modules, module, None)  # what an interpreter without it imports
    tok = Pipeline(WordPiece({"[UNK]": 0, "a": 1}), pre_tokenizer=Whitespace())
    with pytest.raises(ImportError, match=re.escape(f"pip install '{extra}'")):
        tok("a", return_tensors=tensor_type)


def test_single_text_tensors_keep_the_batch_axis_and_lists_lose_it(shape):
    ours, theirs = _pair(shape)
    _same(ours("Hello world", return_tensors="np"), theirs("Hello world", return_tensors="np"))
    _same(ours("Hello world"), theirs("Hello world"))
    _same(ours("Hello", ""), theirs("Hello", ""))  # an empty second text is none, as in transformers


def test_ragged_rows_make_object_arrays_for_np_and_an_error_naming_the_field_for_tf(shape):
    ours, theirs = _pair(shape)
    texts = ["Hello", TEXTS[0] + " " + TEXTS[1]]
    _same(ours(texts, return_tensors="np"), theirs(texts, return_tensors="np"))
    pytest.importorskip("tensorflow")
    with pytest.raises(ValueError, match="'input_ids'.*padding=True"):
        ours(texts, return_tensors="tf")


@pytest.mark.parametrize("skip", [True, False])
@pytest.mark.parametrize("clean", [None, True, False])
def test_decode_and_batch_decode_as_transformers(shape, skip, clean):
    ours, theirs = _pair(shape)
    batch = theirs(TEXTS[:6], ["Hello , world ! isn't it ?"] * 6, padding=True)["input_ids"]
    assert ours.batch_decode(batch, skip_special_tokens=skip, clean_up_tokenization_spaces=clean) == (
        theirs.batch_decode(batch, skip_special_tokens=skip, clean_up_tokenization_spaces=clean)
    )
    for row in batch:
        expected = theirs.decode(row, skip_special_tokens=skip, clean_up_tokenization_spaces=clean)
        assert ours.decode(row, skip, clean) == expected
        assert ours.decode(np.asarray(row), skip, clean) == expected
    assert ours.decode(batch[0][1], skip) == theirs.decode(batch[0][1], skip_special_tokens=skip)
    ours.clean_up_tokenization_spaces = theirs.clean_up_tokenization_spaces = True
    assert ours.decode(batch[1], skip) == theirs.decode(batch[1], skip_special_tokens=skip)


def test_ids_tokens_and_special_token_attributes_as_transformers(shape):
    ours, theirs = _pair(shape)
    ids = theirs("Hello world, the json string", "é 12")["input_ids"]
    for skip in (True, False):
        assert ours.convert_ids_to_tokens(ids, skip_special_tokens=skip) == theirs.convert_ids_to_tokens(
            ids, skip_special_tokens=skip
        )
    assert ours.convert_ids_to_tokens(ids[1]) == theirs.convert_ids_to_tokens(ids[1])
    tokens = theirs.convert_ids_to_tokens(ids) + ["not-a-token-at-all"]
    assert ours.convert_tokens_to_ids(tokens) == theirs.convert_tokens_to_ids(tokens)
    assert ours.convert_tokens_to_ids(tokens[0]) == theirs.convert_tokens_to_ids(tokens[0])
    for role in ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"):
        assert getattr(ours, role) == getattr(theirs, role)
        assert getattr(ours, f"{role}_id") == getattr(theirs, f"{role}_id")
    assert ours.special_tokens_map == theirs.special_tokens_map
    assert set(ours.all_special_ids) == set(theirs.all_special_ids)
    assert ours.model_max_length == theirs.model_max_length
    assert (ours.padding_side, ours.truncation_side) == (theirs.padding_side, theirs.truncation_side)
    assert ours.tokenize("Hello world, json") == theirs.tokenize("Hello world, json")


def test_the_sides_follow_the_call_settings(shape):
    ours, theirs = _pair(shape, padding_side="left", truncation_side="left")
    arguments = {"padding": "max_length", "truncation": True, "max_length": 7, "return_overflowing_tokens": True}
    _same(ours(TEXTS[:3], **arguments), theirs(TEXTS[:3], **arguments))
    ours.padding_side = theirs.padding_side = "right"
    _same(ours(TEXTS[:3], padding_side="left", padding=True), theirs(TEXTS[:3], padding_side="left", padding=True))


def test_save_pretrained_loads_in_transformers_offline(shape, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    ours, _ = _pair(shape, model_max_length=11, padding_side="left")
    written = ours.save_pretrained(tmp_path / "saved")
    assert sorted(os.path.basename(p) for p in written) == [
        "special_tokens_map.json",
        "tokenizer.json",
        "tokenizer_config.json",
    ]
    theirs = transformers.AutoTokenizer.from_pretrained(str(tmp_path / "saved"))
    assert (theirs.model_max_length, theirs.padding_side) == (11, "left")
    assert theirs.special_tokens_map == ours.special_tokens_map
    arguments = {"padding": True, "truncation": True, "return_special_tokens_mask": True}
    _same(ours(TEXTS[:4], TEXTS[4:8], **arguments), theirs(TEXTS[:4], TEXTS[4:8], **arguments))


def test_a_folder_saved_by_transformers_loads_with_its_config(shape, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    _, theirs = _pair(shape, model_max_length=10, padding_side="left", truncation_side="left")
    theirs.save_pretrained(str(tmp_path / "theirs"))
    for ours in (kvec.load(tmp_path / "theirs"), Pipeline.from_pretrained(tmp_path / "theirs")):
        assert ours.model_max_length == 10
        assert (ours.padding_side, ours.truncation_side) == ("left", "left")
        assert ours.special_tokens_map == theirs.special_tokens_map
        arguments = {"padding": "max_length", "truncation": True, "return_length": True}
        _same(ours(TEXTS[:4], **arguments), theirs(TEXTS[:4], **arguments))


def test_a_hub_name_says_kvec_loads_local_folders_and_how_to_get_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for call in (Pipeline.from_pretrained, kvec.load):
        with pytest.raises(NotLocalError, match="local folders and files.*huggingface-cli download google/bert-mini"):
            call("google/bert-mini")
    missing = tmp_path / "missing" / "tokenizer.json"  # a path no Hub name could be: the system's error
    with pytest.raises(FileNotFoundError, match="No such file or directory") as raised:
        kvec.load(missing)
    assert raised.value.filename == str(missing) and not isinstance(raised.value, NotLocalError)


def test_a_corrupt_config_names_the_file(tmp_path):
    tok = Pipeline(WordPiece({"[PAD]": 0, "[UNK]": 1, "a": 2}), pre_tokenizer=Whitespace())
    tok.save_pretrained(tmp_path)
    (tmp_path / "tokenizer_config.json").write_text('{"padding_side": "middle"}')
    with pytest.raises(FormatError, match="tokenizer_config.json.*padding_side"):
        kvec.load(tmp_path)
    (tmp_path / "tokenizer_config.json").write_text("[1, 2]")
    with pytest.raises(FormatError, match="tokenizer_config.json.*JSON object"):
        Pipeline.from_pretrained(tmp_path)


def test_bad_arguments_name_the_argument_and_position():
    tok = Pipeline(WordPiece({"[PAD]": 0, "[UNK]": 1, "a": 2}), pre_tokenizer=Whitespace())
    with pytest.raises(TypeError, match=r"text\[1\] must be a str, got int"):
        tok(["a", 3])
    with pytest.raises(TypeError, match=r"text_pair must be a list of texts"):
        tok(["a"], "a")
    with pytest.raises(ValueError, match="padding must be one of"):
        tok("a", padding="shortest")
    with pytest.raises(ValueError, match="padding needs a padding token"):
        tok("a", padding=True)
    with pytest.raises(TypeError, match="return_length must be a bool"):
        tok("a", return_length="yes")
    with pytest.raises(ValueError, match="return_tensors must be one of"):
        tok("a", return_tensors="numpy")
    with pytest.raises(TypeError, match="BatchEncoding.to moves PyTorch tensors only"):
        tok("a").to("cpu")
    with pytest.raises(TypeError, match=r"ids\[1\] must be an int"):
        tok.convert_ids_to_tokens([1, "a"])


def test_a_pipeline_is_still_an_analyzer_for_the_keras_tokenizer():
    tok = Pipeline(WordPiece({"[UNK]": 0, "un": 1, "##able": 2}), pre_tokenizer=Whitespace())
    assert isinstance(tok("unable"), BatchEncoding)
    by_hand = kvec.hashing_trick("unable un", 50, analyzer=lambda text: ["un", "##able", "un"])
    assert kvec.hashing_trick("unable un", 50, analyzer=tok) == by_hand
    keras = kvec.Tokenizer(analyzer=tok)
    keras.fit_on_texts(["unable un"])
    assert keras.word_index == {"un": 1, "##able": 2}
    trained = kvec.Tokenizer(subword="wordpiece", vocab_size=60)
    trained.fit_on_texts(TEXTS[:20])
    # the pipeline a Tokenizer trains for itself keeps the analyzer call on one text
    assert trained.analyzer(TEXTS[0]) == trained.analyzer.analyze(TEXTS[0])
    assert trained.analyzer(TEXTS[:2]).input_ids == [trained.analyzer.encode(t).ids for t in TEXTS[:2]]


@pytest.mark.parametrize("kind", ["wordpiece", "bpe", "bytelevel_bpe", "unigram"])
def test_what_presets_return_takes_the_call_as_transformers_over_its_saved_folder(kind, tmp_path, monkeypatch):
    from kvec.presets import keras_subword

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    ours, trainer = keras_subword(kind, 500)
    ours.train_from_iterator(TEXTS, trainer)
    ours.add_special_tokens(["<pad>"])
    ours.pad_token, ours.model_max_length = "<pad>", 16
    ours.save_pretrained(tmp_path)
    theirs = transformers.AutoTokenizer.from_pretrained(str(tmp_path))
    arguments = {"padding": "max_length", "truncation": True, "return_offsets_mapping": True}
    _same(ours(TEXTS[:5], TEXTS[5:10], **arguments), theirs(TEXTS[:5], TEXTS[5:10], **arguments))
    _same(ours(TEXTS[:5], return_tensors="np"), theirs(TEXTS[:5], return_tensors="np"))


def test_add_special_tokens_takes_transformers_dict_of_roles(shape):
    ours, theirs = _pair(shape)
    named = {"pad_token": "<new pad>", "cls_token": ROLES[shape[0]]["unk_token"], "additional_special_tokens": ["<x>"]}
    assert ours.add_special_tokens(named) == theirs.add_special_tokens(named)
    assert (ours.pad_token, ours.pad_token_id, ours.cls_token_id) == (
        theirs.pad_token,
        theirs.pad_token_id,
        theirs.cls_token_id,
    )
    arguments = {"padding": "max_length", "max_length": 12, "truncation": True}
    _same(ours(["a <x> b", "<new pad>"], **arguments), theirs(["a <x> b", "<new pad>"], **arguments))
    with pytest.raises(ValueError, match="special token roles are .* got 'padding_token'"):
        ours.add_special_tokens({"padding_token": "[PAD]"})


def test_to_moves_pytorch_tensors(shape):
    torch = pytest.importorskip("torch")
    ours, theirs = _pair(shape)
    moved = ours(TEXTS[:3], padding=True, return_tensors="pt").to("cpu")
    expected = theirs(TEXTS[:3], padding=True, return_tensors="pt").to("cpu")
    for key in expected:
        assert isinstance(moved[key], torch.Tensor) and moved[key].device.type == "cpu"
        assert torch.equal(moved[key], expected[key])


@pytest.mark.parametrize("args", [("",), ([""],), ("", ""), ([""], [""])])
def test_empty_rows_as_numpy_have_transformers_dtypes(shape, args):
    ours, theirs = _pair(shape)
    arguments = {"add_special_tokens": False, "return_tensors": "np", "return_offsets_mapping": True}
    arguments |= {"return_special_tokens_mask": True, "return_length": True}
    _same(ours(*args, **arguments), theirs(*args, **arguments))
