"""Every file loader under mutated files (bytes flipped, cut, inserted, truncated): it loads, or raises
a kvec error; never another exception, never a hang. ``bench/fuzz.sh`` runs the same with a far larger
budget (``KVEC_FUZZ_EXAMPLES``)."""

import ast
import base64
import io
import json
import os
import pathlib
import pickle
import signal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kvec
from kvec import Tokenizer, tokenizer_from_json
from kvec.errors import KvecError
from kvec.interop import load_bert_vocab, load_gpt2_files, load_sentencepiece_model, load_tiktoken, load_tokenizer_json
from kvec.pipeline import Pipeline
from kvec.presets import keras_subword
from tests.support import TEXTS, hf_trained

EXAMPLES = int(os.environ.get("KVEC_FUZZ_EXAMPLES", "60"))
SECONDS_PER_LOAD = 10


def valid_files():
    """One valid file (or pair) per loader, as bytes."""
    files = {}
    pipeline, trainer = keras_subword("wordpiece", 300)
    pipeline.train_from_iterator(TEXTS, trainer)
    files["kvec"] = pipeline.to_str().encode()
    legacy = Tokenizer(oov_token="<u>")
    legacy.fit_on_texts(TEXTS[:40])
    files["legacy"] = legacy.to_json().encode()
    files["tokenizer.json"] = hf_trained("bert_wordpiece").to_str().encode()
    spm = pytest.importorskip("sentencepiece")
    proto = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(TEXTS), model_writer=proto, vocab_size=300, minloglevel=2, num_threads=1
    )
    files["sentencepiece"] = proto.getvalue()
    files["vocab.txt"] = "\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##able", "a"]).encode()
    gpt2 = json.loads(hf_trained("bytelevel_bpe").to_str())["model"]
    files["vocab.json"] = json.dumps(gpt2["vocab"]).encode()
    files["merges.txt"] = (
        "#version: 0.2\n" + "\n".join(m if isinstance(m, str) else " ".join(m) for m in gpt2["merges"][:200])
    ).encode()
    files["tiktoken"] = "".join(f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256)).encode() + (
        f"{base64.b64encode(b'ab').decode()} 256\n{base64.b64encode(b'abc').decode()} 257\n".encode()
    )
    return files


FILES = valid_files()


def load_pair(folder, name, data):
    """Write ``data`` as the named file (the other file of a pair stays valid) and load it."""
    paths = {}
    for part in ("vocab.json", "merges.txt"):
        paths[part] = folder / part
        paths[part].write_bytes(FILES[part])
    target = folder / name
    target.write_bytes(data)
    if name in ("vocab.json", "merges.txt"):
        return load_gpt2_files(paths["vocab.json"], paths["merges.txt"])
    loaders = {
        "kvec": Pipeline.from_file,
        "legacy": lambda path: tokenizer_from_json(path.read_bytes()),
        "tokenizer.json": load_tokenizer_json,
        "sentencepiece": load_sentencepiece_model,
        "vocab.txt": load_bert_vocab,
        "tiktoken": load_tiktoken,
    }
    return loaders[name](target)


MUTATION = st.lists(
    st.tuples(
        st.sampled_from(["flip", "cut", "insert", "truncate"]), st.floats(0, 1), st.binary(min_size=1, max_size=8)
    ),
    min_size=1,
    max_size=4,
)


def mutate(data, steps):
    data = bytearray(data)
    for kind, where, payload in steps:
        at = int(where * len(data))
        if kind == "flip" and data:
            data[min(at, len(data) - 1)] ^= payload[0] or 1
        elif kind == "cut":
            del data[at : at + len(payload) * 7]
        elif kind == "insert":
            data[at:at] = payload
        else:
            del data[at:]
    return bytes(data)


def _too_slow(signum, frame):
    raise AssertionError(f"a load took more than {SECONDS_PER_LOAD} s")


@pytest.mark.parametrize("name", list(FILES))
@settings(
    max_examples=EXAMPLES,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    deadline=None,
)
@given(steps=MUTATION)
def test_mutated_files_load_or_raise_kvec_errors(name, steps, tmp_path):
    data = mutate(FILES[name], steps)
    previous = signal.signal(signal.SIGALRM, _too_slow)
    signal.alarm(SECONDS_PER_LOAD)
    try:
        load_pair(tmp_path, name, data)
    except KvecError:
        pass
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("name", list(FILES))
def test_the_unmutated_files_load(name, tmp_path):
    load_pair(tmp_path, name, FILES[name])


class _Payload:
    """Unpickling this creates ``marker``: the proof that a loader ran a file's contents."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


@pytest.mark.parametrize("name", list(FILES))
def test_a_pickle_in_place_of_any_file_is_never_unpickled(name, tmp_path):
    marker = tmp_path / "ran"
    for protocol in (0, 2, pickle.HIGHEST_PROTOCOL):
        with pytest.raises(KvecError):
            load_pair(tmp_path, name, pickle.dumps(_Payload(str(marker)), protocol=protocol))
        assert not marker.exists()


@pytest.mark.parametrize(
    "stage, type_name",
    [("model", "__import__"), ("normalizer", "os.system"), ("pre_tokenizer", "eval"), ("decoder", "__class__")],
)
def test_kvec_files_name_only_known_components(stage, type_name, tmp_path):
    config = json.loads(FILES["kvec"])
    config[stage] = {"type": type_name, "command": "mkdir ran"}
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(config))
    with pytest.raises(KvecError, match=f"{type_name}|{stage}") as raised:
        Pipeline.from_file(path)
    assert str(path) in str(raised.value)
    assert not (tmp_path / "ran").exists()


def _calls_that_run_data(tree):
    """Calls in ``tree`` that could execute or unpickle what they read."""
    banned_names = {"eval", "exec", "compile", "__import__"}
    banned_attributes = {
        ("pickle", "load"),
        ("pickle", "loads"),
        ("pickle", "Unpickler"),
        ("marshal", "load"),
        ("marshal", "loads"),
        ("yaml", "load"),
        ("shelve", "open"),
        ("importlib", "import_module"),
        ("dill", "load"),
        ("dill", "loads"),
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        if isinstance(function, ast.Name) and function.id in banned_names:
            yield node.lineno, function.id
        if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
            pair = (function.value.id, function.attr)
            if pair in banned_attributes:
                yield node.lineno, ".".join(pair)
            if function.attr == "load" and function.value.id in ("np", "numpy"):
                keywords = {k.arg: k.value for k in node.keywords}
                allow = keywords.get("allow_pickle")
                if not (isinstance(allow, ast.Constant) and allow.value is False):
                    yield node.lineno, "numpy.load without allow_pickle=False"


def test_the_banned_call_scan_finds_each_kind():
    source = "eval(x)\npickle.loads(b)\nnp.load(p)\nnp.load(p, allow_pickle=True)\nnp.load(p, allow_pickle=False)\n"
    assert [line for line, _ in _calls_that_run_data(ast.parse(source))] == [1, 2, 3, 4]


def test_no_kvec_module_executes_or_unpickles_what_it_reads():
    package = pathlib.Path(kvec.__file__).parent
    found = [
        f"{path.relative_to(package)}:{line}: {call}"
        for path in sorted(package.rglob("*.py"))
        for line, call in _calls_that_run_data(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []
