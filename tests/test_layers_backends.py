"""``kvec.layers.TextVectorization`` on JAX and PyTorch, with or without TensorFlow installed: its outputs
equal the TensorFlow backend's (``keras.layers.TextVectorization`` itself without a tokenizer, kvec's
TensorFlow layer with one), they are the backend's own arrays, and ``.keras`` files cross backends.

Each backend runs in its own process (tests/layer_outputs.py), as Keras fixes its backend at import.
The TensorFlow oracle runs in this interpreter where TensorFlow is installed, else in
``$KVEC_TF_PYTHON`` (``make test-backends`` points it at the main venv's Python).
"""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("keras")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = os.path.join(ROOT, "tests", "layer_outputs.py")
BACKENDS = [b for b in ("jax", "torch") if importlib.util.find_spec(b) is not None]
WORDS = ["the", "cat", "sat", "on", "mat", "The", "DOG", "dog's", "ate", "a", "b", "x-y", "z!", "é", "naïve", "É"]


def oracle_python():
    if importlib.util.find_spec("tensorflow") is not None:
        return sys.executable
    python = os.environ.get("KVEC_TF_PYTHON")
    if not python:
        pytest.skip("no TensorFlow oracle: install tensorflow or set KVEC_TF_PYTHON to a Python that has it")
    return python


def outputs(python, backend, cases, tmp_path, oracle=False):
    cases_path, out_path = tmp_path / f"cases-{backend}.json", tmp_path / f"out-{backend}.json"
    cases_path.write_text(json.dumps(cases), encoding="utf-8")
    env = dict(os.environ, KERAS_BACKEND=backend, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="3")
    command = [python, RUNNER, str(cases_path), str(out_path)] + (["--oracle"] if oracle else [])
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out_path.read_text(encoding="utf-8"))
    assert result["backend"] == backend
    return result["results"]


def corpus(rng, n):
    return [" ".join(rng.choice(WORDS, size=rng.integers(0, 10))) + rng.choice(["", ".", "  ", "?!"]) for _ in range(n)]


KERAS_CASES = [
    {},
    {"output_sequence_length": 5},
    {"max_tokens": 6, "output_sequence_length": 7},
    {"ngrams": 2, "standardize": "lower"},
    {"ngrams": [1, 3], "output_mode": "count"},
    {"split": "character", "standardize": None},
    {"standardize": "strip_punctuation"},
    {"ragged": True},
    {"output_mode": "multi_hot"},
    {"output_mode": "multi_hot", "max_tokens": 8, "pad_to_max_tokens": True},
    {"output_mode": "tf_idf"},
    {"output_mode": "tf_idf", "max_tokens": 5, "pad_to_max_tokens": True},
    {"output_mode": "one_hot", "split": None},
    {"split": None, "output_sequence_length": 3},
    {"vocabulary": ["cat", "the", "a"], "output_sequence_length": 4},
    {"vocabulary": ["cat", "the", "a"], "idf_weights": [0.5, 0.25, 2.0], "output_mode": "tf_idf"},
]
TOKENIZERS = ["keras_oov", "keras_subword", "wordpiece", "bpe", "bytelevel_bpe", "unigram", "jieba", "whitespace"]
TOKENIZER_MODES = [
    {"output_sequence_length": 9},
    {},
    {"ragged": True},
    {"output_mode": "multi_hot"},
    {"output_mode": "count"},
    {"output_mode": "tf_idf"},
]


def compare(theirs, ours, backend):
    """Our results on ``backend`` against the oracle's, case by case."""
    assert len(theirs) == len(ours)
    for i, (expected, got) in enumerate(zip(theirs, ours)):
        if "error" in expected:  # Keras refuses it (a layer whose adapt found no token): so must kvec
            assert got.get("error") == "ValueError", (i, expected, got)
            continue
        assert "error" not in got, (i, got)
        assert got["vocabulary"] == expected["vocabulary"], i
        assert got["vocabulary_size"] == expected["vocabulary_size"], i
        assert got["output"] == expected["output"], i
        assert got["native_type"], (i, backend, got["dtype"])
        if "keras_dtype" in got:  # Keras' own layer on this backend (TensorFlow installed)
            assert got["dtype"] == got["keras_dtype"], i


def keras_cases():
    rng = np.random.default_rng(7)
    cases = []
    for _ in range(2):
        train, test = corpus(rng, 40), corpus(rng, 12)
        cases += [{"args": a, "tokenizer": None, "train": train, "test": test} for a in KERAS_CASES]
    return cases


def tokenizer_cases():
    rng = np.random.default_rng(11)
    train, test = corpus(rng, 60) + ["我们在北京学习中文", "今天天气很好"], corpus(rng, 10) + ["我们学习"]
    return [{"args": a, "tokenizer": t, "train": train, "test": test} for t in TOKENIZERS for a in TOKENIZER_MODES]


ROUND_TRIPS = [
    ({"output_sequence_length": 6}, None),
    ({"output_mode": "tf_idf"}, None),
    ({"vocabulary": ["cat", "the"], "output_sequence_length": 3}, None),
    ({"output_sequence_length": 6}, "wordpiece"),
    ({"output_mode": "tf_idf"}, "keras_oov"),
    ({"output_mode": "count", "ngrams": 2}, "jieba"),
]
ROUND_TRIP_TRAIN = ["the cat sat on the mat", "the dog ate", "我们在北京学习", "a b c the"] * 3
ROUND_TRIP_TEST = ["the cat ate", "我们学习 the mat", ""]


def saved_cases(folder, prefix):
    return [
        {
            "args": a,
            "tokenizer": t,
            "train": ROUND_TRIP_TRAIN,
            "test": ROUND_TRIP_TEST,
            "save": str(folder / f"{prefix}{i}.keras"),
            "kvec_layer": True,  # Keras' own layer cannot load without TensorFlow: the files hold kvec's
        }
        for i, (a, t) in enumerate(ROUND_TRIPS)
    ]


def loaded(cases):
    return [dict(case, save=None, load=case["save"]) for case in cases]


class Runs:
    """Every fixed case through the TensorFlow oracle once, and through each backend once (one process
    each): Keras' cases, every tokenizer kind, and ``.keras`` files written by TensorFlow."""

    def __init__(self, folder):
        self.folder = folder
        self.keras, self.tokenizers = keras_cases(), tokenizer_cases()
        self.from_tf = saved_cases(folder, "tf")
        cases = self.keras + self.tokenizers + self.from_tf
        self.oracle = self.split(outputs(oracle_python(), "tensorflow", cases, folder, oracle=True))
        self.backends = {}

    def split(self, results):
        a, b = len(self.keras), len(self.keras) + len(self.tokenizers)
        return {"keras": results[:a], "tokenizers": results[a:b], "tf_files": results[b:]}

    def of(self, backend):
        if backend not in self.backends:
            mine = saved_cases(self.folder, backend)
            cases = self.keras + self.tokenizers + loaded(self.from_tf) + mine
            results = outputs(sys.executable, backend, cases, self.folder)
            n = len(self.keras) + len(self.tokenizers) + len(self.from_tf)
            found = self.split(results[:n])
            found["written"] = results[n:]
            found["read_by_tf"] = outputs(oracle_python(), "tensorflow", loaded(mine), self.folder)
            self.backends[backend] = found
        return self.backends[backend]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return Runs(tmp_path_factory.mktemp("backends"))


@pytest.mark.parametrize("backend", BACKENDS)
def test_without_a_tokenizer_the_layer_is_keras_on_tensorflow(backend, runs):
    compare(runs.oracle["keras"], runs.of(backend)["keras"], backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_tokenizer_kind_gives_the_tensorflow_backends_outputs(backend, runs):
    compare(runs.oracle["tokenizers"], runs.of(backend)["tokenizers"], backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_keras_files_cross_backends(backend, runs):
    found = runs.of(backend)
    compare(runs.oracle["tf_files"], found["tf_files"], backend)  # written on TensorFlow, read here
    compare(runs.oracle["tf_files"], found["written"], backend)  # the same layers made here
    compare(found["written"], found["read_by_tf"], "tensorflow")  # written here, read on TensorFlow


@pytest.mark.parametrize("backend", BACKENDS)
def test_sparse_outputs_need_the_tensorflow_backend(backend, tmp_path):
    cases = [{"args": {"output_mode": "count", "sparse": True}, "tokenizer": None, "train": ["a b"], "test": ["a"]}]
    (result,) = outputs(sys.executable, backend, cases, tmp_path)
    assert result["error"] == "ValueError"
    assert "sparse=True needs the TensorFlow backend" in result["message"]


TEXT = st.text(alphabet=st.sampled_from(list("abcAB .,!-'\t\né中")), max_size=24)
ARGUMENTS = st.fixed_dictionaries(
    {},
    optional={
        "standardize": st.sampled_from([None, "lower", "strip_punctuation", "lower_and_strip_punctuation"]),
        "split": st.sampled_from(["whitespace", "character"]),
        "ngrams": st.sampled_from([1, 2, [1, 3]]),
        "max_tokens": st.integers(3, 12),
    },
).flatmap(
    lambda a: st.one_of(
        st.just({**a, "output_mode": "int"}),
        st.builds(lambda n: {**a, "output_sequence_length": n}, st.integers(0, 6)),
        st.builds(
            lambda m, p: {**a, "output_mode": m, "pad_to_max_tokens": p and "max_tokens" in a},
            st.sampled_from(["multi_hot", "count", "tf_idf"]),
            st.booleans(),
        ),
    )
)
CASE = st.builds(
    lambda args, train, test: {"args": args, "tokenizer": None, "train": train, "test": test},
    ARGUMENTS,
    st.lists(TEXT, min_size=1, max_size=12),
    st.lists(TEXT, min_size=1, max_size=6),
)


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cases=st.lists(CASE, min_size=25, max_size=25))
def test_generated_texts_and_arguments_give_keras_outputs(backend, cases, tmp_path):
    expected = outputs(oracle_python(), "tensorflow", cases, tmp_path, oracle=True)
    compare(expected, outputs(sys.executable, backend, cases, tmp_path), backend)
