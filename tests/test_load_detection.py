"""kvec.load tells each tokenizer format from the file's contents (names and extensions are not
trusted), gives what the format's own loader gives, and points misuse at the right loader."""

import base64
import io
import json
import shutil

import pytest

import kvec
from kvec import FormatError, Pipeline, Tokenizer
from kvec.interop import (
    detect_format,
    load_bert_vocab,
    load_gpt2_files,
    load_sentencepiece_model,
    load_tiktoken,
    load_tokenizer_json,
)
from tests.support import TEXTS, Oracle, hf_trained

spm = Oracle("sentencepiece")
SAMPLES = [*TEXTS[:20], "", "  a  b ", "中文 😀 <s>"]


def same_ids(ours, theirs):
    return [e.ids for e in ours.encode_batch(SAMPLES)] == [e.ids for e in theirs.encode_batch(SAMPLES)]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Every format in a file of a misleading name (``blob``), and as a pretrained folder where one applies."""
    root = tmp_path_factory.mktemp("formats")
    made = {}

    def blob(kind, data):
        folder = root / kind
        folder.mkdir()
        path = folder / "blob"
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        made[kind] = path
        return folder

    bytelevel = hf_trained("bytelevel_bpe")
    blob("tokenizer.json", bytelevel.to_str())
    blob("kvec", load_tokenizer_json(made["tokenizer.json"]).to_str())
    gpt2 = blob("vocab.json", "")
    bytelevel.model.save(str(gpt2))  # vocab.json and merges.txt
    shutil.move(gpt2 / "vocab.json", made["vocab.json"])
    wordpiece = hf_trained("bert_wordpiece")
    vocab = sorted(wordpiece.get_vocab().items(), key=lambda item: item[1])
    blob("vocab.txt", "".join(token + "\n" for token, _ in vocab))
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(TEXTS), model_writer=model, vocab_size=300, num_threads=1, minloglevel=2
    )
    blob("sentencepiece", model.getvalue())
    ranks = [bytes([b]) for b in range(256)] + [b"th", b"the", b"in", b"an"]
    blob("tiktoken", "".join(f"{base64.b64encode(t).decode()} {rank}\n" for rank, t in enumerate(ranks)))
    keras = Tokenizer(num_words=50, oov_token="<unk>")
    keras.fit_on_texts(TEXTS[:50])
    blob("keras", keras.to_json())
    return made


@pytest.mark.parametrize(
    "kind", ["kvec", "tokenizer.json", "vocab.json", "vocab.txt", "sentencepiece", "tiktoken", "keras"]
)
def test_each_format_is_told_from_its_contents(files, kind):
    assert detect_format(files[kind]) == kind
    loaded = kvec.load(files[kind])
    path = files[kind]
    if kind == "keras":
        assert isinstance(loaded, Tokenizer)
        expected = kvec.tokenizer_from_json(path.read_text())
        assert loaded.texts_to_sequences(SAMPLES) == expected.texts_to_sequences(SAMPLES)
        return
    assert isinstance(loaded, Pipeline)
    expected = {
        "kvec": lambda: Pipeline.from_file(path),
        "tokenizer.json": lambda: load_tokenizer_json(path),
        "vocab.json": lambda: load_gpt2_files(path, path.with_name("merges.txt")),
        "vocab.txt": lambda: load_bert_vocab(path),
        "sentencepiece": lambda: load_sentencepiece_model(path),
        "tiktoken": lambda: load_tiktoken(path),
    }[kind]()
    assert same_ids(loaded, expected)


def test_a_pretrained_folder_is_read_by_its_files(files, tmp_path):
    for kind, name in [("vocab.txt", "vocab.txt"), ("sentencepiece", "spiece.model"), ("tokenizer.json", None)]:
        folder = tmp_path / kind
        folder.mkdir()
        shutil.copy(files["vocab.txt"], folder / "vocab.txt")  # tokenizer.json and a .model come first
        if name is None:
            shutil.copy(files[kind], folder / "tokenizer.json")
        elif name != "vocab.txt":
            shutil.copy(files[kind], folder / name)
        assert detect_format(folder) == kind
        assert same_ids(kvec.load(folder), kvec.load(files[kind]))
    gpt2 = tmp_path / "gpt2"
    gpt2.mkdir()
    shutil.copy(files["vocab.json"], gpt2 / "vocab.json")
    shutil.copy(files["vocab.json"].with_name("merges.txt"), gpt2 / "merges.txt")
    assert detect_format(gpt2) == "vocab.json"
    assert same_ids(kvec.load(gpt2), kvec.load(files["vocab.json"]))


def test_misuse_gets_a_pointed_error(files, tmp_path):
    merges = files["vocab.json"].with_name("merges.txt")
    with pytest.raises(FormatError, match=r"merges\.txt: a GPT-2 merges\.txt: load its vocab\.json"):
        kvec.load(merges)
    lonely = tmp_path / "lonely.json"
    shutil.copy(files["vocab.json"], lonely)
    with pytest.raises(FormatError, match=r"lonely\.json: a GPT-2 vocab\.json needs its merges\.txt beside it"):
        kvec.load(lonely)
    binary = tmp_path / "weights.bin"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    with pytest.raises(FormatError, match=r"weights\.bin: a binary file that is not a sentencepiece model"):
        kvec.load(binary)
    for name, text, message in [
        ("empty.txt", "\n\n", "the file is empty"),
        ("list.json", "[1, 2]", "a JSON document that is not an object"),
        ("other.json", '{"a": [1]}', "a JSON object of no known tokenizer format"),
        ("broken.json", '{"model": ', "not valid JSON"),
    ]:
        (tmp_path / name).write_text(text)
        with pytest.raises(FormatError, match=rf"{name.replace('.', '[.]')}: {message}"):
            kvec.load(tmp_path / name)
    nothing = tmp_path / "nothing"
    nothing.mkdir()
    with pytest.raises(FormatError, match=r"nothing: no tokenizer file in the folder"):
        kvec.load(nothing)
    with pytest.raises(FileNotFoundError):
        kvec.load(tmp_path / "missing.json")
    corrupt = json.loads(files["kvec"].read_text())
    corrupt["model"] = {"type": "Nope", "config": {}}
    (tmp_path / "corrupt.json").write_text(json.dumps(corrupt))
    with pytest.raises(FormatError, match=r"corrupt\.json: unknown model type 'Nope'"):
        kvec.load(tmp_path / "corrupt.json")
