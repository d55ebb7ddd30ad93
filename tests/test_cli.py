"""The ``kvec`` command: train, encode and decode round trips, inspect, help, progress, warnings and
errors. Commands run in this process through ``kvec.cli.main``; what needs a real process (a bare
invocation, a closed pipe) runs in a subprocess."""

import importlib.metadata
import io
import json
import subprocess
import sys
import warnings

import pytest

import kvec as kvec_package
from kvec import cli
from tests.support import TEXTS, Oracle

tokenizers = Oracle("tokenizers")
spm = Oracle("sentencepiece")
HALF = len(TEXTS) // 2


def kvec(capsys, *args, expect=0):
    """Run ``kvec ARGS`` in this process; its (standard output, standard error), after checking the
    exit status is ``expect``."""
    try:
        status = cli.main([str(a) for a in args])
    except SystemExit as e:  # argparse: usage errors, --help, --version
        status = e.code
    out, err = capsys.readouterr()
    assert status == expect, err
    return out, err


def stdin_of(monkeypatch, data):
    """Standard input holding ``data`` (bytes, or str as UTF-8)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))


def subprocess_kvec(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "kvec.cli", *map(str, args)], input=stdin, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("corpus")
    (folder / "part1.txt").write_text("\n".join(TEXTS[:HALF]) + "\n", encoding="utf-8")
    (folder / "part2.txt").write_text("\n".join(TEXTS[HALF:]) + "\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def bpe_file(corpus, tmp_path_factory):
    path = tmp_path_factory.mktemp("tok") / "bpe.json"
    assert (
        cli.main(
            ["train", "--model", "bpe", "--vocab-size", "300", "--quiet", str(corpus / "part1.txt"), "-o", str(path)]
        )
        == 0
    )
    return path


# ---- round trips -----------------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["bytelevel-bpe", "unigram"])
def test_train_encode_decode_round_trip(model, corpus, tmp_path, capsys, monkeypatch):
    tok = tmp_path / "tok.json"
    kvec(capsys, "train", "--model", model, "--vocab-size", 600, "--quiet", corpus / "*.txt", "-o", tok)
    ids, _ = kvec(capsys, "encode", "-t", tok, corpus / "part1.txt")
    lines = ids.splitlines()
    assert len(lines) == HALF and all(part.isdigit() for line in lines for part in line.split(" ") if line)
    stdin_of(monkeypatch, ids)
    back, _ = kvec(capsys, "decode", "-t", tok)  # standard input
    assert back.splitlines() == TEXTS[:HALF]


def test_training_is_the_same_for_every_n_jobs_and_hf_reads_the_export(corpus, tmp_path, capsys, monkeypatch):
    one, two, hf = tmp_path / "one.json", tmp_path / "two.json", tmp_path / "hf.json"
    train = ["train", "--model", "wordpiece", "--vocab-size", 500, "--quiet"]
    kvec(capsys, *train, corpus / "part1.txt", corpus / "part2.txt", "-o", one)
    kvec(capsys, *train, "--n-jobs", 2, corpus / "*.txt", "-o", two)
    assert one.read_bytes() == two.read_bytes()
    kvec(capsys, *train, "--format", "hf", corpus / "*.txt", "-o", hf)
    theirs = tokenizers.Tokenizer.from_file(str(hf))
    ours, _ = kvec(capsys, "encode", "-t", one, corpus / "part2.txt")
    assert ours.splitlines() == [" ".join(map(str, theirs.encode(text).ids)) for text in TEXTS[HALF:]]
    stdin_of(monkeypatch, "Hello, world\n")
    tokens, _ = kvec(capsys, "encode", "-t", hf, "--tokens")
    assert tokens.split() == theirs.encode("Hello, world").tokens


def test_encode_reads_a_sentencepiece_model(tmp_path, capsys, monkeypatch):
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(TEXTS), model_writer=model, vocab_size=300, num_threads=1, minloglevel=2
    )
    path = tmp_path / "sp.model"
    path.write_bytes(model.getvalue())
    theirs = spm.SentencePieceProcessor(model_proto=model.getvalue())
    stdin_of(monkeypatch, "\n".join(TEXTS[:20]) + "\n")
    out, _ = kvec(capsys, "encode", "-t", path)
    assert out.splitlines() == [" ".join(map(str, theirs.encode(text))) for text in TEXTS[:20]]


def test_a_keras_tokenizer_file_is_refused(tmp_path, capsys):
    keras = kvec_package.Tokenizer(num_words=50)
    keras.fit_on_texts(TEXTS[:50])
    path = tmp_path / "keras.json"
    path.write_text(keras.to_json(), encoding="utf-8")
    _, err = kvec(capsys, "encode", "-t", path, expect=1)
    assert err == f"kvec: error: {path}: a Keras Tokenizer JSON, not a subword tokenizer\n"


def test_inspect_describes_the_tokenizer(corpus, tmp_path, capsys):
    pytest.importorskip("matplotlib")  # the cli extra draws the plot
    tok = tmp_path / "tok.json"
    kvec(capsys, "train", "--model", "wordpiece", "--vocab-size", 400, "--quiet", corpus / "part1.txt", "-o", tok)
    plot = tmp_path / "lengths.png"
    out, _ = kvec(capsys, "inspect", "-t", tok, "--sample", corpus / "part2.txt", "--top", 3, "--plot", plot)
    vocab = json.loads(tok.read_text(encoding="utf-8"))["model"]["config"]["vocab"]
    assert f"vocabulary size: {len(vocab)}" in out
    assert "special tokens: [PAD] (0), [UNK] (1), [CLS] (2), [SEP] (3), [MASK] (4)" in out
    lengths = [line for line in out.splitlines() if line.strip()[:1].isdigit() and ":" in line and "#" in line]
    assert sum(int(line.split(":")[1].split()[0]) for line in lengths) == len(vocab)
    assert "bytes/token" in out and "most frequent tokens in the sample (top 3):" in out
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_min_frequency_stops_the_merges_of_rare_pairs(corpus, tmp_path, capsys):
    tok = tmp_path / "tok.json"
    args = ["train", "--model", "bpe", "--vocab-size", 300, "--min-frequency", 10**9, "--quiet", corpus / "part1.txt"]
    kvec(capsys, *args, "-o", tok)
    model = json.loads(tok.read_text(encoding="utf-8"))["model"]["config"]
    assert model["merges"] == []
    assert sorted(model["vocab"]) == sorted(["[PAD]", "[UNK]", *{c for c in "".join(TEXTS[:HALF]) if not c.isspace()}])


# ---- help and version ------------------------------------------------------------------------------


def test_a_bare_kvec_prints_the_help_on_stdout_and_succeeds():
    run = subprocess_kvec()
    assert run.returncode == 0 and run.stderr == ""
    assert run.stdout.startswith("usage: kvec ")
    for command in ("train", "encode", "decode", "inspect"):
        assert f"\n    {command} " in run.stdout


def test_version_prints_the_installed_version(capsys):
    out, _ = kvec(capsys, "--version")
    assert out == f"kvec {importlib.metadata.version('kvec')}\n"


def test_every_argument_has_help_and_the_help_is_plain_text(capsys):
    commands = next(a for a in cli.parser()._actions if a.dest == "command").choices
    assert set(commands) == {"train", "encode", "decode", "inspect"}
    for name, command_parser in commands.items():
        for action in command_parser._actions:
            assert action.help and action.help.strip(), f"kvec {name}: {action.option_strings or action.dest}"
        out, _ = kvec(capsys, name, "--help")
        assert "``" not in out and "::" not in out and "\nexample" in out
    encode_help, _ = kvec(capsys, "encode", "--help")
    text = " ".join(encode_help.split())
    assert "from standard input when FILES is empty or -" in text
    assert "token ids as integers separated by single spaces" in text
    decode_help, _ = kvec(capsys, "decode", "--help")
    assert "integers separated by spaces, as 'kvec encode' writes them" in " ".join(decode_help.split())


# ---- progress bars and warnings --------------------------------------------------------------------


def test_counting_shows_a_bar_over_the_bytes_of_the_input(corpus, tmp_path, capsys):
    tqdm = pytest.importorskip("tqdm")  # the cli extra
    size = (corpus / "part1.txt").stat().st_size
    _, err = kvec(
        capsys, "train", "--model", "bpe", "--vocab-size", 300, corpus / "part1.txt", "-o", tmp_path / "t.json"
    )
    counting = [part for part in err.replace("\r", "\n").splitlines() if part.startswith("Counting words")]
    total = tqdm.tqdm.format_sizeof(size)
    assert counting and "100%" in counting[-1] and f"{total}/{total} " in counting[-1]
    assert "BPE merges" in err


def test_quiet_training_prints_nothing(corpus, tmp_path, capsys):
    tok = tmp_path / "t.json"
    out, err = kvec(capsys, "train", "--model", "bpe", "--vocab-size", 300, "--quiet", corpus / "part1.txt", "-o", tok)
    assert (out, err) == ("", "") and tok.exists()


def test_warnings_print_as_one_plain_line(corpus, tmp_path, capsys):
    shown = warnings.showwarning
    args = ["train", "--model", "bpe", "--vocab-size", 5, "--quiet", corpus / "part1.txt", "-o", tmp_path / "t.json"]
    _, err = kvec(capsys, *args)  # 5 tokens cannot hold the alphabet: BpeTrainer warns
    assert err.startswith("kvec: warning: vocab_size 5 is smaller than the special tokens")
    assert err.count("\n") == 1 and ".py" not in err
    assert warnings.showwarning is shown


# ---- errors ----------------------------------------------------------------------------------------


def test_a_closed_pipe_ends_encode_quietly(corpus, tmp_path, bpe_file):
    big = tmp_path / "big.txt"
    big.write_text("\n".join(TEXTS * 20) + "\n", encoding="utf-8")  # far more ids than a pipe buffers
    process = subprocess.Popen(
        [sys.executable, "-m", "kvec.cli", "encode", "-t", str(bpe_file), str(big)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    first = process.stdout.readline()
    process.stdout.close()  # as `| head -1` does
    err = process.stderr.read()
    process.stderr.close()
    assert process.wait(timeout=120) == 141
    assert first.split() and err == b""


def test_the_output_path_is_checked_before_reading(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\n\xf0\x28 not utf-8\n")  # reading it would fail: the output fails first
    missing = tmp_path / "missing" / "tok.json"
    _, err = kvec(capsys, "train", "--model", "bpe", "--vocab-size", 50, bad, "-o", missing, expect=1)
    assert err == f"kvec: error: cannot write -o {missing}: the folder {missing.parent} does not exist\n"
    _, err = kvec(capsys, "train", "--model", "bpe", "--vocab-size", 50, bad, "-o", tmp_path, expect=1)
    assert err == f"kvec: error: cannot write -o {tmp_path}: it is a folder (give a file name in it)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt"]  # nothing written


def test_undecodable_input_names_the_file_and_line(tmp_path, bpe_file, capsys, monkeypatch):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"first\nsecond line\nthird \xf0\x28 x\n")
    _, err = kvec(capsys, "encode", "-t", bpe_file, bad, expect=1)
    assert err == f"kvec: error: {bad}, line 3: not UTF-8 text (byte 0xf0 at byte 7 of the line)\n"
    stdin_of(monkeypatch, b"\xff\n")
    _, err = kvec(capsys, "encode", "-t", bpe_file, expect=1)
    assert err == "kvec: error: <stdin>, line 1: not UTF-8 text (byte 0xff at byte 1 of the line)\n"
    _, err = kvec(
        capsys, "train", "--model", "bpe", "--vocab-size", 50, "--quiet", bad, "-o", tmp_path / "t.json", expect=1
    )
    assert err == f"kvec: error: {bad}, line 3: not UTF-8 text (byte 0xf0 at byte 7 of the line)\n"


@pytest.mark.parametrize("content", ["", "\n\n", "  \n\t\n"])
def test_an_empty_corpus_is_an_error_naming_the_files(content, tmp_path, capsys):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text(content, encoding="utf-8")
    second.write_text(content, encoding="utf-8")
    tok = tmp_path / "tok.json"
    _, err = kvec(
        capsys, "train", "--model", "unigram", "--vocab-size", 300, "--quiet", first, second, "-o", tok, expect=1
    )
    assert err == f"kvec: error: no text to train on: {first}, {second} hold only blank lines\n"
    assert not tok.exists()


def test_errors_are_one_line_naming_the_input(corpus, tmp_path, bpe_file, capsys, monkeypatch):
    missing = tmp_path / "missing.json"
    _, err = kvec(capsys, "encode", "-t", missing, corpus / "part1.txt", expect=1)
    assert err == f"kvec: error: {missing}: No such file or directory\n"
    _, err = kvec(
        capsys,
        "train",
        "--model",
        "bpe",
        "--vocab-size",
        100,
        tmp_path / "nothing*.txt",
        "-o",
        tmp_path / "x.json",
        expect=1,
    )
    assert err == f"kvec: error: no file matches {tmp_path / 'nothing*.txt'}\n"
    bad = tmp_path / "bad.json"
    bad.write_text('{"kvec_format": 1, "model": ', encoding="utf-8")
    stdin_of(monkeypatch, "1 2\n")
    _, err = kvec(capsys, "decode", "-t", bad, expect=1)
    assert err.startswith(f"kvec: error: {bad}: not valid JSON") and err.count("\n") == 1
    stdin_of(monkeypatch, "1 2\n1 2 x\n")
    out, err = kvec(capsys, "decode", "-t", bpe_file, expect=1)
    assert out.count("\n") == 1
    assert err == "kvec: error: <stdin>, line 2: not a line of token ids (integers separated by spaces): '1 2 x'\n"


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--vocab-size", "0", "argument --vocab-size: must be an integer >= 1, got 0"),
        ("--min-frequency", "-1", "argument --min-frequency: must be an integer >= 0, got -1"),
        ("--n-jobs", "0", "argument --n-jobs: must be an integer >= 1 or -1, got 0"),
        ("--vocab-size", "many", "argument --vocab-size: expected an integer, got 'many'"),
    ],
)
def test_bad_numbers_are_usage_errors(option, value, message, corpus, tmp_path, capsys):
    args = [
        "train",
        "--model",
        "bpe",
        "--vocab-size",
        100,
        option,
        value,
        corpus / "part1.txt",
        "-o",
        tmp_path / "t.json",
    ]
    _, err = kvec(capsys, *args, expect=2)
    assert f"kvec train: error: {message}\n" in err
