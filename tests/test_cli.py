"""The ``kvec`` command in a subprocess: train, encode and decode round trips, inspect, errors."""

import json
import subprocess
import sys

import pytest

from tests.support import TEXTS, Oracle

tokenizers = Oracle("tokenizers")


def kvec(*args, stdin=None, check=True):
    run = subprocess.run(
        [sys.executable, "-m", "kvec.cli", *map(str, args)], input=stdin, capture_output=True, text=True
    )
    if check:
        assert run.returncode == 0, run.stderr
    return run


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("corpus")
    half = len(TEXTS) // 2
    (folder / "part1.txt").write_text("\n".join(TEXTS[:half]) + "\n", encoding="utf-8")
    (folder / "part2.txt").write_text("\n".join(TEXTS[half:]) + "\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("model", ["bytelevel-bpe", "unigram"])
def test_train_encode_decode_round_trip(model, corpus, tmp_path):
    tok = tmp_path / "tok.json"
    kvec("train", "--model", model, "--vocab-size", 600, "--n-jobs", 2, "--quiet", corpus / "*.txt", "-o", tok)
    ids = kvec("encode", "-t", tok, corpus / "part1.txt").stdout
    lines = ids.splitlines()
    assert len(lines) == len(TEXTS) // 2 and all(line.split() for line in lines if line)
    back = kvec("decode", "-t", tok, stdin=ids).stdout  # standard input
    assert back.splitlines() == TEXTS[: len(TEXTS) // 2]


def test_training_is_the_same_for_every_n_jobs_and_hf_reads_the_export(corpus, tmp_path):
    one, two, hf = tmp_path / "one.json", tmp_path / "two.json", tmp_path / "hf.json"
    kvec(
        "train",
        "--model",
        "wordpiece",
        "--vocab-size",
        500,
        "--quiet",
        corpus / "part1.txt",
        corpus / "part2.txt",
        "-o",
        one,
    )
    kvec("train", "--model", "wordpiece", "--vocab-size", 500, "--quiet", "--n-jobs", 2, corpus / "*.txt", "-o", two)
    assert one.read_bytes() == two.read_bytes()
    kvec("train", "--model", "wordpiece", "--vocab-size", 500, "--quiet", "--format", "hf", corpus / "*.txt", "-o", hf)
    theirs = tokenizers.Tokenizer.from_file(str(hf))
    ours = kvec("encode", "-t", one, corpus / "part2.txt").stdout.splitlines()
    assert ours == [" ".join(map(str, theirs.encode(text).ids)) for text in TEXTS[len(TEXTS) // 2 :]]
    tokens = kvec("encode", "-t", hf, "--tokens", stdin="Hello, world\n").stdout.split()
    assert tokens == theirs.encode("Hello, world").tokens


def test_progress_bars_show_on_training(corpus, tmp_path):
    pytest.importorskip("tqdm")  # the cli extra
    run = kvec("train", "--model", "bpe", "--vocab-size", 300, corpus / "part1.txt", "-o", tmp_path / "t.json")
    assert "Counting words" in run.stderr and "BPE merges" in run.stderr


def test_inspect_describes_the_tokenizer(corpus, tmp_path):
    pytest.importorskip("matplotlib")  # the cli extra draws the plot
    tok = tmp_path / "tok.json"
    kvec("train", "--model", "wordpiece", "--vocab-size", 400, "--quiet", corpus / "part1.txt", "-o", tok)
    plot = tmp_path / "lengths.png"
    out = kvec("inspect", "-t", tok, "--sample", corpus / "part2.txt", "--top", 3, "--plot", plot).stdout
    vocab = json.loads(tok.read_text(encoding="utf-8"))["model"]["config"]["vocab"]
    assert f"vocabulary size: {len(vocab)}" in out
    assert "special tokens: [PAD] (0), [UNK] (1), [CLS] (2), [SEP] (3), [MASK] (4)" in out
    lengths = [line for line in out.splitlines() if line.strip()[:1].isdigit() and ":" in line and "#" in line]
    assert sum(int(line.split(":")[1].split()[0]) for line in lengths) == len(vocab)
    assert "bytes/token" in out and "most frequent tokens in the sample (top 3):" in out
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_errors_exit_with_a_message(corpus, tmp_path):
    run = kvec("encode", "-t", tmp_path / "missing.json", corpus / "part1.txt", check=False)
    assert run.returncode != 0 and "kvec encode:" in run.stderr and "missing.json" in run.stderr
    run = kvec(
        "train",
        "--model",
        "bpe",
        "--vocab-size",
        100,
        tmp_path / "nothing*.txt",
        "-o",
        tmp_path / "x.json",
        check=False,
    )
    assert run.returncode != 0 and "no file matches" in run.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"kvec_format": 1, "model": ', encoding="utf-8")
    run = kvec("decode", "-t", bad, stdin="1 2\n", check=False)
    assert run.returncode != 0 and "bad.json: not valid JSON" in run.stderr
    tok = tmp_path / "tok.json"
    kvec("train", "--model", "bpe", "--vocab-size", 300, "--quiet", corpus / "part1.txt", "-o", tok)
    run = kvec("decode", "-t", tok, stdin="1 2 x\n", check=False)
    assert run.returncode != 0 and "line 1 is not a list of ids" in run.stderr
