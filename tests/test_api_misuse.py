"""Python API misuse: a result, or a ``TypeError``/``ValueError`` that names the argument, the position
and the type; the legacy Keras outputs stay those of keras-preprocessing 1.1.2.

Optional dependencies are made absent for one import by putting None in ``sys.modules`` (Python's own
"not installed" for that name), so these tests run whether or not they are installed.
"""

import importlib
import re
import sys
import types
import warnings
from importlib.metadata import metadata
from pathlib import Path

import numpy as np
import pytest

import kvec
from kvec import Tokenizer, tokenizer_from_json
from kvec.cli import main as cli_main
from kvec.common import progress
from kvec.common.progress import progress_bar
from kvec.common.ragged import rows_to_ragged
from kvec.errors import FormatError
from kvec.interop.huggingface import from_tokenizer_json_str
from kvec.models import BPE, Unigram, WordLevel, WordPiece
from kvec.normalizers import Lowercase, OpenCC, Precompiled, Replace
from kvec.pipeline import Pipeline
from kvec.pretokenizers import ByteLevel, Whitespace
from kvec.trainers import BpeTrainer, WordPieceTrainer
from tests.support import Oracle

legacy = Oracle("keras_preprocessing.text")


def wordpiece(normalizer=None, vocab=None):
    vocab = vocab or {"[UNK]": 0, "h": 1, "##e": 2, "##l": 3, "##o": 4, "a": 5}
    return Pipeline(WordPiece(vocab), pre_tokenizer=Whitespace(), normalizer=normalizer)


def sparse():
    """Ids too far apart for the decoding table: decoded token by token in Python."""
    return Pipeline(WordLevel({"[UNK]": 0, "a": 3, "b": 10**6}, unk_token="[UNK]"), pre_tokenizer=Whitespace())


# ---- batches that are one text ----------------------------------------------------------------------


@pytest.mark.parametrize("method", ["encode_batch", "encode_ragged"])
@pytest.mark.parametrize("texts, kind", [("hello", "str"), (b"hello", "bytes"), (None, "NoneType"), (5, "int")])
def test_a_batch_that_is_not_a_list_names_the_method_and_the_type(method, texts, kind):
    with pytest.raises(TypeError, match=rf"^{method}: texts must be a list or tuple, got {kind}"):
        getattr(wordpiece(), method)(texts)


def test_one_text_for_a_batch_says_to_use_encode():
    with pytest.raises(TypeError, match=r"got str \(one text: use encode\)"):
        wordpiece().encode_batch("hello")


def test_tuples_and_generators_are_batches():
    tok = wordpiece()
    expected = [e.ids for e in tok.encode_batch(["hello", "a"])]
    assert [e.ids for e in tok.encode_batch(("hello", "a"))] == expected
    assert [e.ids for e in tok.encode_batch(text for text in ["hello", "a"])] == expected
    values, row_lengths = tok.encode_ragged(("hello", "a"))
    assert values.tolist() == [i for ids in expected for i in ids]
    assert row_lengths.tolist() == [len(ids) for ids in expected]


# ---- encode_ragged names a bad text as encode_batch does ------------------------------------------


@pytest.mark.parametrize(
    "pipeline",
    [
        lambda: wordpiece(),
        lambda: wordpiece(Lowercase()),
        lambda: wordpiece(Replace("a", "b")),
        lambda: wordpiece(Precompiled("")),
        lambda: Pipeline(WordPiece({"[UNK]": 0, "a": 1}), pre_tokenizer=ByteLevel()),
        lambda: Pipeline(Unigram([("<unk>", 0.0), ("a", -1.0)], unk_id=0)),
    ],
)
@pytest.mark.parametrize("item, kind", [(["a"], "list"), (None, "NoneType"), (3.5, "float")])
def test_encode_ragged_names_a_text_that_is_not_a_str(pipeline, item, kind):
    tok = pipeline()
    with pytest.raises(TypeError, match=rf"texts\[1\] must be a str.*got {kind}"):
        tok.encode_batch(["a", item])
    with pytest.raises(TypeError, match=rf"texts\[1\] must be a str, got {kind}"):
        tok.encode_ragged(["a", item])


# ---- ids must be ints when decoding ---------------------------------------------------------------


@pytest.mark.parametrize("pipeline", [wordpiece, sparse], ids=["table", "python"])
@pytest.mark.parametrize("bad, kind", [(3.0, "float"), (np.float64(3), "numpy.float64|float64"), ("3", "str")])
def test_decode_refuses_ids_that_are_not_ints(pipeline, bad, kind):
    tok = pipeline()
    with pytest.raises(TypeError, match=rf"ids\[1\] must be an int, got ({kind})"):
        tok.decode([0, bad])
    with pytest.raises(TypeError, match=rf"ids\[1\] must be an int, got ({kind})"):
        tok.decode_batch([[0], [0, bad]])


@pytest.mark.parametrize("pipeline", [wordpiece, sparse], ids=["table", "python"])
def test_decode_takes_numpy_ints_and_bools_as_hugging_face_does(pipeline):
    tok = pipeline()
    assert tok.decode(np.array([0, 0], dtype=np.int32)) == tok.decode([0, 0])
    assert tok.decode([np.int64(0), False]) == tok.decode([0, 0])
    assert tok.decode_batch(np.zeros((2, 1), dtype=np.int64)) == [tok.decode([0])] * 2


@pytest.mark.parametrize("pipeline", [wordpiece, sparse], ids=["table", "python"])
def test_decode_batch_names_a_row_that_is_not_a_sequence(pipeline):
    tok = pipeline()
    with pytest.raises(TypeError, match=r"sequences\[1\] must be a sequence of int ids, got int"):
        tok.decode_batch([[0], 0])
    with pytest.raises(TypeError, match=r"decode_batch: sequences must be a list or tuple, got str"):
        tok.decode_batch("00")
    with pytest.raises(TypeError, match=r"ids must be a sequence of int ids, got NoneType"):
        tok.decode(None)


def test_legacy_sequences_to_texts_keeps_its_float_lookup():
    # index_word.get(3.0) finds the word of 3, in keras-preprocessing as here
    texts = ["the cat sat", "the dog"]
    ours, theirs = Tokenizer(), legacy.Tokenizer()
    ours.fit_on_texts(texts)
    theirs.fit_on_texts(texts)
    assert ours.sequences_to_texts([[1.0, 3.0]]) == theirs.sequences_to_texts([[1.0, 3.0]]) == ["the sat"]


def test_rows_to_ragged_names_the_bad_row_and_id():
    with pytest.raises(TypeError, match=r"rows\[1\] must be a list of int ids, got NoneType"):
        rows_to_ragged([[1], None])
    with pytest.raises(TypeError, match=r"rows\[0\]\[1\] must be an int id, got str"):
        rows_to_ragged([[1, "a"]])
    with pytest.raises(ValueError, match=r"rows\[0\]\[0\] = 1180591620717411303424 does not fit an int64"):
        rows_to_ragged([[2**70]])
    with pytest.raises(TypeError, match="rows must be a list of id lists, got str"):
        rows_to_ragged("abc")


# ---- the string readers given a path ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["tokenizer.json", "saved/tokenizer.JSON"])
def test_tokenizer_from_json_given_a_path_says_it_takes_the_string(tmp_path, name):
    with pytest.raises(FormatError, match=r"takes the JSON string, not a path; use tokenizer_from_json\(open"):
        tokenizer_from_json(name)  # a name ending in .json, whether or not it exists
    existing = tmp_path / "keras_tokenizer"  # an existing file, whatever its name
    existing.write_text(Tokenizer().to_json(), encoding="utf-8")
    with pytest.raises(FormatError, match="takes the JSON string, not a path"):
        tokenizer_from_json(str(existing))
    with pytest.raises(TypeError, match="json_string must be a str, got PosixPath: tokenizer_from_json takes"):
        tokenizer_from_json(existing)
    assert tokenizer_from_json(existing.read_text(encoding="utf-8")).word_index == {}


def test_broken_json_that_is_no_path_gets_no_path_hint():
    with pytest.raises(FormatError) as raised:
        tokenizer_from_json('{"config": ')
    assert "not a path" not in str(raised.value)


def test_the_other_string_readers_given_a_path_name_their_file_reader(tmp_path):
    with pytest.raises(FormatError, match=r"use Pipeline.from_file\(path\)"):
        Pipeline.from_str("tokenizer.json")
    with pytest.raises(TypeError, match=r"text must be a str, got PosixPath: from_str takes .* Pipeline.from_file"):
        Pipeline.from_str(tmp_path / "tokenizer.json")
    with pytest.raises(FormatError, match=r"use load_tokenizer_json\(path\)"):
        from_tokenizer_json_str("models/tokenizer.json")


# ---- legacy yes/no arguments: read by their truth, with a warning ----------------------------------


TEXTS = ["The Cat sat.", "the DOG, the cat!"]


@pytest.mark.parametrize(
    "arguments, warned",
    [
        ({"lower": "yes"}, "lower should be a bool, got str 'yes': read as True"),
        ({"lower": ""}, "lower should be a bool, got str '': read as False"),
        ({"lower": 0}, "lower should be a bool, got int 0: read as False"),
        ({"char_level": 1}, "char_level should be a bool, got int 1: read as True"),
        ({"char_level": None}, "char_level should be a bool, got NoneType None: read as False"),
    ],
)
def test_yes_no_arguments_that_are_not_bools_warn_and_keep_the_legacy_outputs(arguments, warned):
    with pytest.warns(UserWarning, match=warned):
        ours = Tokenizer(**arguments)
    theirs = legacy.Tokenizer(**arguments)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours.fit_on_texts(TEXTS)
    theirs.fit_on_texts(TEXTS)
    assert ours.word_index == theirs.word_index
    assert ours.texts_to_sequences(TEXTS) == theirs.texts_to_sequences(TEXTS)


def test_bools_and_numpy_bools_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Tokenizer(lower=True, char_level=np.bool_(False))
        kvec.text_to_word_sequence("A b", lower=False)


def test_a_yes_no_argument_without_a_truth_value_is_a_type_error():
    with pytest.raises(TypeError, match="lower must be a bool, got ndarray"):
        Tokenizer(lower=np.array([True, False]))


def test_text_to_word_sequence_warns_for_lower_and_keeps_the_legacy_words():
    with pytest.warns(UserWarning, match="lower should be a bool, got str"):
        ours = kvec.text_to_word_sequence("The Cat", lower="no")
    assert ours == legacy.text_to_word_sequence("The Cat", lower="no") == ["the", "cat"]


@pytest.mark.parametrize("method", ["fit_on_texts", "texts_to_sequences"])
def test_one_string_for_texts_warns_and_is_read_as_keras_reads_it(method):
    ours, theirs = Tokenizer(char_level=True), legacy.Tokenizer(char_level=True)
    for tokenizer in (ours, theirs):
        tokenizer.fit_on_texts(["abc"])
    with pytest.warns(UserWarning, match=f"{method}: texts is one str, read as a list of its 4 characters"):
        mine = getattr(ours, method)("abca")
    assert mine == getattr(theirs, method)("abca")
    assert ours.word_index == theirs.word_index


def test_num_words_that_is_not_an_int_stays_a_type_error():
    # the legacy code fails later on it (comparing an index with a str): kvec says so at once
    with pytest.raises(TypeError, match="num_words must be an int or None, got str"):
        Tokenizer(num_words="10")


# ---- model constructors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "build, error, message",
    [
        (lambda: BPE({"a": 0, "b": 2**31}, []), ValueError, r"vocab\['b'\] = 2147483648 is out of range"),
        (lambda: BPE({"a": -1}), ValueError, r"vocab\['a'\] = -1 is out of range"),
        (lambda: BPE({"a": 1.0}), TypeError, r"vocab\['a'\] must be an int id, got float"),
        (lambda: BPE({1: 1}), TypeError, "vocab must map str tokens to ids, got the key 1"),
        (lambda: BPE([1, 2]), TypeError, "vocab must be a mapping of token to id, got list"),
        (lambda: BPE({"a": 0}, [("a",)]), TypeError, r"merges\[0\] must be a \(left, right\) pair"),
        (lambda: BPE({"a": 0}, seed=[1]), TypeError, "seed must be None or an int, got list"),
        (lambda: BPE({"a": 0}, cache_capacity=-1), ValueError, "cache_capacity must be between 0 and"),
        (lambda: BPE({"a": 0}, dropout=float("nan")), ValueError, "dropout must be a finite number"),
        (lambda: WordPiece({"a": True}), TypeError, r"vocab\['a'\] must be an int id, got bool"),
        (lambda: WordPiece({"a": 0}, max_input_chars_per_word=1.5), TypeError, "max_input_chars_per_word must be"),
        (lambda: WordLevel({"a": 2**40}), ValueError, r"vocab\['a'\] = 1099511627776 is out of range"),
        (lambda: Unigram([("a", float("inf"))]), ValueError, r"the score of vocab\[0\] must be a finite number"),
        (lambda: Unigram([("a", 10**400)]), ValueError, r"the score of vocab\[0\] must be a finite number"),
        (lambda: Unigram([("a", "1")]), TypeError, r"the score of vocab\[0\] must be a number, got str"),
        (lambda: Unigram([("a", -1.0)], nbest_size=[[1, 2, 3]]), TypeError, "nbest_size must be an int or None"),
        (lambda: Unigram([("a", -1.0)], unk_id=True), TypeError, "unk_id must be an int id, got bool"),
        (lambda: Unigram([("a", -1.0)], unmatchable=[4]), ValueError, "unmatchable id 4 is not an id"),
        (lambda: Unigram({"a": -1.0}), TypeError, "vocab must be a list of \\(piece, score\\) pairs, got dict"),
    ],
)
def test_model_constructors_name_the_bad_argument(build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_model_constructors_take_numpy_numbers():
    model = BPE({"a": np.int64(0), "b": np.int32(1), "ab": 2}, [("a", "b")], dropout=np.float64(0.0))
    assert model.vocab == {"a": 0, "b": 1, "ab": 2} and all(type(i) is int for i in model.vocab.values())
    assert model.tokenize("ab") == ["ab"]
    unigram = Unigram([("a", np.float32(-1.0)), ("b", -2)], unk_id=np.int64(0), nbest_size=np.int8(1))
    assert unigram.pieces == [("a", -1.0), ("b", -2.0)] and unigram.tokenize("ab") == ["a", "b"]


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"length": 2**24 + 1}, "length must be at most 16777216"),
        ({"pad_to_multiple_of": 2**31}, "pad_to_multiple_of must be at most 16777216"),
        ({"pad_id": 2**31}, "pad_id must be at most 2147483647"),
    ],
)
def test_padding_that_could_only_exhaust_memory_is_refused(arguments, message):
    with pytest.raises(ValueError, match=message):
        wordpiece().enable_padding(**arguments)


# ---- optional dependencies -------------------------------------------------------------------------


def extras():
    """The extras kvec is installed with (``pip install 'kvec[name]'``), from its metadata."""
    return metadata("kvec").get_all("Provides-Extra")


def without(monkeypatch, *modules, present=()):
    """Make ``modules`` absent (and ``present`` stand-ins that import), and forget kvec's modules that
    would hold them, until the test ends."""
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)
    for name in present:
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    for name in list(sys.modules):
        if name in ("kvec.layers", "kvec.spark") or name.startswith("kvec.layers."):
            monkeypatch.delitem(sys.modules, name)


@pytest.mark.parametrize("missing, present", [("keras", ()), ("tensorflow", ("keras",))])
def test_kvec_layers_without_keras_says_what_to_install(monkeypatch, missing, present):
    without(monkeypatch, missing, present=present)
    with pytest.raises(ModuleNotFoundError, match=rf"{missing} is not installed: pip install 'kvec\[keras\]'") as e:
        importlib.import_module("kvec.layers")
    assert e.value.name == missing
    assert "keras" in extras()


def test_opencc_without_the_package_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "opencc", None)
    with pytest.raises(ImportError, match=r"pip install 'kvec\[chinese\]'"):
        OpenCC()
    assert "chinese" in extras()


def test_kvec_spark_without_pyspark_says_what_to_install(monkeypatch):
    without(monkeypatch, "pyspark")
    with pytest.raises(ModuleNotFoundError, match=r"pyspark is not installed: pip install 'kvec\[spark\]'"):
        importlib.import_module("kvec.spark")
    assert "spark" in extras()


def test_sparse_matrices_without_scipy_name_the_extra(monkeypatch):
    tok = kvec.Tokenizer()
    tok.fit_on_texts(["a b"])
    monkeypatch.setitem(sys.modules, "scipy.sparse", None)
    with pytest.raises(ImportError, match=r"pip install 'kvec\[sparse\]'"):
        tok.texts_to_matrix(["a"], sparse=True)
    assert "sparse" in extras()


def test_every_install_hint_quotes_its_extra():
    """``pip install kvec[cli]`` is a glob to zsh, which refuses it: every hint in code and docs quotes it."""
    root = Path(__file__).resolve().parents[1]
    files = [root / "README.md", root / "CONTRIBUTING.md", root / "Makefile", *sorted(root.glob("docs/*.md"))]
    for folder in ("kvec", "examples", "bench", "tools"):
        files += sorted((root / folder).rglob("*.py"))
    unquoted = re.compile(r"pip install (-e )?[^\s'\"]*\[")
    found = [
        f"{path.relative_to(root)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1)
        if unquoted.search(line)
    ]
    assert found == []


def test_progress_and_plots_without_their_packages_name_the_cli_extra(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    monkeypatch.setattr(progress, "_hinted", False)
    bar = progress_bar(True, total=3, desc="Counting")
    bar.update(3)
    bar.close()
    for trainer in (BpeTrainer(vocab_size=30), WordPieceTrainer(vocab_size=30), BpeTrainer(vocab_size=30)):
        assert trainer.show_progress  # the default, as in Hugging Face
        Pipeline(None, pre_tokenizer=Whitespace()).train_from_iterator(["a b ab abc"], trainer, show_progress=True)
    hint = "kvec: progress bars need tqdm: pip install 'kvec[cli]' (or pass show_progress=False)\n"
    assert capsys.readouterr().err == hint  # once in the process, however many bars
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    (tmp_path / "tok.json").write_text(Pipeline(WordLevel({"a": 0}, unk_token="a")).to_str(), encoding="utf-8")
    assert cli_main(["inspect", "-t", str(tmp_path / "tok.json"), "--plot", str(tmp_path / "p.png")]) == 1
    assert "--plot needs matplotlib: pip install 'kvec[cli]'" in capsys.readouterr().err
    assert "cli" in extras()
