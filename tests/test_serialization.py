"""Saving and loading subword tokenizers: identical encodings, deterministic bytes, clear errors, atomic."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from kvec import decoders
from kvec.errors import FormatError
from kvec.pipeline import Tokenizer
from kvec.pretokenizers import ByteLevel, Whitespace
from kvec.trainers import BpeTrainer, WordPieceTrainer

CORPUS = ["The quick brown fox jumps over the lazy dog.", "Le cœur a ses raisons 中文 🤗!", "lower lowest low"] * 4
PROBES = CORPUS + ["unseen: zebra Ωmega 12345", ""]


def byte_level_bpe():
    tokenizer = Tokenizer(None, pre_tokenizer=ByteLevel(add_prefix_space=False), decoder=decoders.ByteLevel())
    tokenizer.train_from_iterator(CORPUS, BpeTrainer(vocab_size=300, initial_alphabet=ByteLevel.alphabet()))
    return tokenizer


def wordpiece():
    tokenizer = Tokenizer(None, pre_tokenizer=Whitespace(), decoder=decoders.WordPiece())
    tokenizer.train_from_iterator(CORPUS, WordPieceTrainer(vocab_size=80, special_tokens=["[UNK]"]))
    return tokenizer


@pytest.mark.parametrize("build", [byte_level_bpe, wordpiece])
def test_round_trip_gives_identical_encodings(build, tmp_path):
    tokenizer = build()
    path = tmp_path / "tok.json"
    tokenizer.save(path)
    for loaded in (Tokenizer.from_file(path), Tokenizer.from_str(tokenizer.to_str())):
        assert loaded.get_vocab() == tokenizer.get_vocab()
        for text in PROBES:
            assert loaded.encode(text).ids == tokenizer.encode(text).ids
            assert loaded.encode(text).offsets == tokenizer.encode(text).offsets
            assert loaded.decode(loaded.encode(text).ids) == tokenizer.decode(tokenizer.encode(text).ids)
    assert json.loads(path.read_text(encoding="utf-8"))["kvec_format"] == 1


SAVE_TWICE = """
import sys
from tests.test_serialization import byte_level_bpe, wordpiece
print(byte_level_bpe().to_str())
print(wordpiece().to_str())
"""


def test_saved_bytes_do_not_depend_on_the_hash_seed():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    outputs = {
        subprocess.run(
            [sys.executable, "-c", SAVE_TWICE],
            capture_output=True,
            text=True,
            check=True,
            cwd=root,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
        ).stdout
        for seed in (0, 1, 2, 3, 4)
    }
    assert len(outputs) == 1


@pytest.mark.parametrize(
    "content, problem",
    [
        ('{"kvec_format": 1, "model": ', "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"kvec_format": 99, "model": null}', "unsupported kvec_format 99"),
        ('{"kvec_format": 1, "model": null}', "no model"),
        ('{"kvec_format": 1, "model": {"type": "Pickle", "config": {}}}', "unknown model type 'Pickle'"),
        (
            '{"kvec_format": 1, "model": {"type": "BPE", "config": {"vocab": {}, "merges": [["a", "b"]]}}}',
            "invalid model config",
        ),
        (
            '{"kvec_format": 1, "model": {"type": "BPE", "config": {"vocab": {}, "merges": [], "evil": 1}}}',
            "invalid model config",
        ),
        ('{"kvec_format": 1, "model": {"type": "WordPiece", "config": []}}', 'model must be an object with "type"'),
    ],
)
def test_corrupt_files_raise_format_error_naming_the_file(tmp_path, content, problem):
    path = tmp_path / "broken.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(FormatError, match=problem) as info:
        Tokenizer.from_file(path)
    assert str(path) in str(info.value)


def test_non_utf8_file(tmp_path):
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(FormatError, match="not UTF-8"):
        Tokenizer.from_file(path)


KEEP_SAVING = """
import sys
from tests.test_serialization import wordpiece
tokenizer = wordpiece()
print("ready", flush=True)
while True:
    tokenizer.save(sys.argv[1])
"""


def test_a_killed_save_leaves_a_loadable_file(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = tmp_path / "tok.json"
    old = byte_level_bpe()
    old.save(path)
    new_vocab = wordpiece().get_vocab()
    for delay in (0.05, 0.11, 0.2, 0.37):
        process = subprocess.Popen([sys.executable, "-c", KEEP_SAVING, str(path)], stdout=subprocess.PIPE, cwd=root)
        assert process.stdout.readline().strip() == b"ready"
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        loaded = Tokenizer.from_file(path)  # never a partial file
        assert loaded.get_vocab() in (old.get_vocab(), new_vocab)


@pytest.mark.parametrize(
    ("model", "config"),
    [
        ("WordPiece", {"vocab": "vocab.txt"}),
        ("WordLevel", {"vocab": "vocab.json"}),
        ("BPE", {"vocab": "vocab.json", "merges": []}),
        ("BPE", {"vocab": {}, "merges": "merges.txt"}),
    ],
)
def test_a_kvec_file_never_names_a_file_for_a_model_to_read(model, config, tmp_path, monkeypatch):
    # the model constructors take paths from a caller (BPE("vocab.json", "merges.txt")); from a file, a
    # path is refused before anything is opened, even where the file it names exists
    monkeypatch.chdir(tmp_path)
    (tmp_path / "vocab.txt").write_text("[UNK]\na\n", encoding="utf-8")
    (tmp_path / "vocab.json").write_text('{"[UNK]": 0, "a": 1}', encoding="utf-8")
    (tmp_path / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    document = {"kvec_format": 1, "model": {"type": model, "config": config}}
    with pytest.raises(FormatError, match=r"invalid model config \((vocab|merges) must be .*, got str\)"):
        Tokenizer.from_str(json.dumps(document))
