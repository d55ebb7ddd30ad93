"""The native core's entry points under AddressSanitizer and UBSan: the pipeline description decoder
and encoder of the TensorFlow kernels (``csrc/core/spec_encoder.c``), fed valid, cut and corrupted
descriptions with arbitrary bytes as text; jieba's segmentation (``csrc/core/jieba_cut.c``) over
random dictionaries and texts; and BPE training's merge loop (``csrc/core/bpe_merges.c``) alone, whose
merges are Hugging Face tokenizers' own."""

import io
import json
import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from kvec import Tokenizer
from kvec.chinese import Jieba
from kvec.interop import load_sentencepiece_model
from kvec.models import BPE, WordPiece
from kvec.native_spec import describe, describe_splitter
from kvec.normalizers import NFKC, BertNormalizer, Lowercase
from kvec.normalizers import Sequence as NormalizerSequence
from kvec.pipeline import Pipeline
from kvec.presets import keras_subword, sentencepiece_style
from kvec.pretokenizers import BertPreTokenizer, ByteLevel
from kvec.processors import TemplateProcessing
from kvec.trainers import UnigramTrainer
from tests.support import Oracle

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "csrc" / "core"


def sanitized(tmp_path_factory, name, defines=()):
    """tests/native/<name>.c and the core built with AddressSanitizer and UBSan (and ``-D`` defines)."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    binary = tmp_path_factory.mktemp("sanitized") / name
    sources = [str(path) for path in sorted(CORE.glob("*.c"))] + [str(ROOT / "tests" / "native" / f"{name}.c")]
    flags = ["-std=c11", "-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-Wall", "-Wextra"]
    flags += [f"-D{define}" for define in defines]
    build = subprocess.run(
        [compiler, *flags, f"-I{CORE}", *sources, "-lm", "-o", str(binary)], capture_output=True, text=True
    )
    if build.returncode != 0 and "sanitize" in build.stderr:
        pytest.skip(f"this compiler has no sanitizers: {build.stderr[-300:]}")
    assert build.returncode == 0, build.stderr
    return binary


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    return sanitized(tmp_path_factory, "spec_encoder_driver")


def description():
    vocab = {t: i for i, t in enumerate(["[UNK]", "[CLS]", "[SEP]", "a", "b", "ab", "##b", "##a", "中", "é"])}
    pipeline = Pipeline(
        WordPiece(vocab),
        normalizer=Lowercase(),
        pre_tokenizer=BertPreTokenizer(),
        post_processor=TemplateProcessing("[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)]),
    )
    pipeline.add_special_tokens(["[UNK]"])
    pipeline.add_tokens(["ab!"])
    return describe(pipeline)


def uncased_description():
    vocab = {t: i for i, t in enumerate(["[UNK]", "a", "b", "##b", "##a", "e", "中", "\u1715"])}
    pipeline = Pipeline(WordPiece(vocab), normalizer=BertNormalizer(), pre_tokenizer=BertPreTokenizer())
    pipeline.add_special_tokens(["[UNK]"])
    return describe(pipeline)


def nfkc_description():
    normalizer = NormalizerSequence([NFKC(), Lowercase()])
    return describe(Pipeline(WordPiece({"[UNK]": 0, "a": 1, "가": 2, "ﬁ": 3}), normalizer=normalizer))


def keras_description():
    tokenizer = Tokenizer(num_words=5, oov_token="?")
    tokenizer.fit_on_texts(["ab ΣΑΣ ab", "cd ab İi"])
    return describe(tokenizer)


def bpe_description():
    vocab = {t: i for i, t in enumerate(["a", "b", "ab", "##b", "a</w>", "<0x61>", "<0xC3>", "[UNK]", "中"])}
    model = BPE(vocab, [("a", "b"), ("a", "##b")], "[UNK]", "##", "</w>", byte_fallback=True, ignore_merges=True)
    return describe(Pipeline(model, pre_tokenizer=BertPreTokenizer()))


def byte_level_description():
    pipeline, trainer = keras_subword("bytelevel_bpe", 280)
    pipeline.train_from_iterator(["Hello world's 12345 naïve 中文 😀", "ab ab abc"] * 3, trainer)
    return describe(pipeline)


def keras_subword_description():
    tokenizer = Tokenizer(subword="bpe", vocab_size=60, num_words=20, oov_token="?")
    tokenizer.fit_on_texts(["ab ΣΑΣ ab", "cd ab İi abc"] * 3)
    return describe(tokenizer)


def unigram_description():
    pipeline = sentencepiece_style(split_digits=True, user_defined_symbols=["<sep>"])
    trainer = UnigramTrainer(vocab_size=280, byte_fallback=True, special_tokens=["<pad>", "<unk>"])
    pipeline.train_from_iterator(["low lower lowest 2024 ab", "naïve café 中文 ab"] * 4, trainer)
    return describe(pipeline)


def sentencepiece_model_description(tmp_path):
    """A sentencepiece ``.model`` (nmt_nfkc's precompiled character map, user-defined symbols)."""
    spm = pytest.importorskip("sentencepiece")
    proto = io.BytesIO()
    lines = ["low lower lowest 2024 ab", "naïve café 中文 ab ＡＢ ①"] * 4
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=proto,
        vocab_size=60,
        minloglevel=2,
        user_defined_symbols=["ab!"],
        hard_vocab_limit=False,
    )
    (tmp_path / "m.model").write_bytes(proto.getvalue())
    return describe(load_sentencepiece_model(tmp_path / "m.model"))


def splitter_description():
    return describe_splitter(ByteLevel())


def block(data):
    return struct.pack("<I", len(data)) + data


@pytest.mark.parametrize(
    "make",
    [description, keras_description, bpe_description, byte_level_description, keras_subword_description]
    + [unigram_description, splitter_description, uncased_description, nfkc_description]
    + [sentencepiece_model_description],
    ids=["wordpiece", "keras_words", "bpe", "byte_level_bpe", "keras_subword", "unigram", "splitter"]
    + ["uncased", "nfkc", "sentencepiece_model"],
)
def test_descriptions_and_texts_run_clean_under_the_sanitizers(driver, make, tmp_path):
    spec = make(tmp_path) if make is sentencepiece_model_description else make()
    rng = random.Random(11)
    texts = [
        b"",
        b"AB ab! [UNK] \xe4\xb8\xad \xc3\xa9 q \xce\xa3\xce\xa3",
        "e\u0301\u0323\u1715\u0345 ṩ 한 \u1100\u1161\u11a8 ﬁ".encode(),
        bytes(rng.randrange(256) for _ in range(64)),
    ]
    cases = [(spec, text) for text in texts]
    cases += [(spec[:end], b"ab") for end in range(0, len(spec), max(1, len(spec) // 300))]
    for _ in range(400):
        corrupt = bytearray(spec)
        for _ in range(rng.randrange(1, 6)):
            corrupt[rng.randrange(len(corrupt))] = rng.randrange(256)
        cases.append((bytes(corrupt), bytes(rng.randrange(256) for _ in range(rng.randrange(40)))))
    stdin = b"".join(block(s) + block(t) for s, t in cases)
    run = subprocess.run([str(driver)], input=stdin, capture_output=True, timeout=600)
    assert run.returncode == 0, run.stderr.decode(errors="replace")[-3000:]
    accepted, refused = map(int, run.stdout.split())
    assert accepted + refused == len(cases)
    assert accepted >= len(texts) and refused >= 300  # the valid ones ran, and the cut ones were refused


@pytest.mark.parametrize(
    "make", [description, bpe_description, unigram_description, keras_subword_description, uncased_description]
)
def test_a_word_cache_emptied_again_and_again_gives_the_ids_of_the_first_encoding(tmp_path_factory, make):
    # a cache of 5 words or 24 ids empties itself every few words; the driver encodes each text three
    # times with one scratch and exits 4 when a later time differs from the first
    small = sanitized(tmp_path_factory, "spec_encoder_driver", ["SPEC_CACHE_WORDS=5", "SPEC_CACHE_IDS=24"])
    rng = random.Random(3)
    words = ["a", "b", "ab", "ba", "aab", "!", "[UNK]", "中", "é", "q", "x", "AB", ".", "bbbbbbbbab"]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randrange(1, 200))).encode() for _ in range(60)]
    spec = make()
    stdin = b"".join(block(spec) + block(text) for text in texts)
    run = subprocess.run([str(small)], input=stdin, capture_output=True, timeout=600)
    assert run.returncode == 0, (run.returncode, run.stderr.decode(errors="replace")[-3000:])
    assert run.stdout.split() == [str(len(texts)).encode(), b"0"]


def code_points(text):
    return struct.pack(f"<I{len(text)}I", len(text), *map(ord, text))


def words_block(words):
    return struct.pack("<I", len(words)) + b"".join(code_points(w) + struct.pack("<q", count) for w, count in words)


def test_jieba_segmentation_runs_clean_under_the_sanitizers(tmp_path_factory):
    binary = sanitized(tmp_path_factory, "jieba_driver")
    rng = random.Random(5)
    han = "中国人民大学生活北京天安门的了是我爱一二三丨乂"
    alphabet = han + "abcXYZ019+#&._%-，。！ \t\r\n\u3000\u00a0😀㐀\U00020000"

    def text(size):
        return "".join(rng.choice(alphabet) for _ in range(size))

    dictionary = [
        ("".join(rng.choice(han) for _ in range(rng.randrange(1, 5))), rng.randrange(0, 50)) for _ in range(300)
    ]
    dictionary += [("AT&T", 3), ("T恤", 5), ("1.5", 2), ("big", 1 << 60)]
    user = [(text(rng.randrange(1, 6)), rng.choice([0, 1, 7, 1000])) for _ in range(40)] + [("", 3)]
    texts = ["", " ", "\r\n", "aT恤b x1.5%中国", "\U0010ffff中"] + [text(rng.randrange(60)) for _ in range(300)]
    stdin = words_block(dictionary) + words_block(user) + b"".join(b"\x01" + code_points(t) for t in texts)
    run = subprocess.run([str(binary)], input=stdin, capture_output=True, timeout=600)
    assert run.returncode == 0, run.stderr.decode(errors="replace")[-3000:]
    n_texts, n_words = map(int, run.stdout.split())
    assert n_texts == len(texts) and n_words > 10 * len(texts)


def test_jieba_descriptions_and_texts_run_clean_under_the_sanitizers(driver, tmp_path):
    # a small dictionary keeps each description small; the HMM's tables (670 KB) are left intact, the
    # sections around them cut and corrupted
    rng = random.Random(17)
    dictionary = tmp_path / "dict.txt"
    entries = ["北京 30 ns", "天安门 20", "大学 10", "大学生 5", "学生 8", "中国 40", "AT&T 3", "T恤 2"]
    dictionary.write_text("\n".join(entries) + "\n", encoding="utf-8")
    segmenter = Jieba(user_dict=["北京大学", ("New York", 4), "C++ 语言"], dictionary=dictionary, mode="full")
    tokenizer = Tokenizer(analyzer=segmenter, num_words=6, oov_token="?")
    tokenizer.fit_on_texts(["北京天安门", "中国大学生 ΣΑΣ", "New York 的 T恤"])
    texts = [b"", "北京大学生在New York用C++ 语言买T恤，AT&T ΣΑΣ".encode(), "中国人民大学生活 x1.5%".encode()]
    texts.append(bytes(rng.randrange(256) for _ in range(64)))
    cases = []
    for spec in (describe_splitter(segmenter), describe(tokenizer)):
        tables = spec.index(dictionary.read_bytes()) + len(dictionary.read_bytes())  # the HMM's, after the file
        around = [k for k in range(len(spec)) if not tables <= k < tables + 8 * 83_820]
        cases += [(spec, text) for text in texts]
        cases += [(spec[:end], texts[1]) for end in sorted(rng.sample(around, 20))]
        for _ in range(30):
            corrupt = bytearray(spec)
            for _ in range(rng.randrange(1, 4)):
                corrupt[rng.choice(around)] = rng.randrange(256)
            cases.append((bytes(corrupt), rng.choice(texts)))
    stdin = b"".join(block(s) + block(t) for s, t in cases)
    run = subprocess.run([str(driver)], input=stdin, capture_output=True, timeout=600)
    assert run.returncode == 0, run.stderr.decode(errors="replace")[-3000:]
    accepted, refused = map(int, run.stdout.split())
    assert accepted + refused == len(cases) and accepted >= 2 * len(texts) and refused >= 30


HFTokenizer = Oracle("tokenizers", "Tokenizer")
hf_models = Oracle("tokenizers.models")
hf_pre_tokenizers = Oracle("tokenizers.pre_tokenizers")
hf_trainers = Oracle("tokenizers.trainers")


def hugging_face_merges(word_counts, vocab_size, min_frequency):
    """The merges tokenizers' BpeTrainer learns from the words, each repeated its count of times."""
    tokenizer = HFTokenizer(hf_models.BPE())
    tokenizer.pre_tokenizer = hf_pre_tokenizers.WhitespaceSplit()
    trainer = hf_trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency, show_progress=False)
    tokenizer.train_from_iterator([" ".join([word] * count) for word, count in word_counts.items()], trainer)
    merges = json.loads(tokenizer.to_str())["model"]["merges"]
    return [tuple(merge.split(" ")) if isinstance(merge, str) else tuple(merge) for merge in merges]


@pytest.fixture(scope="module")
def bpe_merges_driver(tmp_path_factory):
    return sanitized(tmp_path_factory, "bpe_merges_driver")


@pytest.mark.parametrize("seed", range(6))
def test_the_bpe_merge_loop_alone_runs_clean_and_merges_as_hugging_face(bpe_merges_driver, seed):
    rng = random.Random(seed)
    letters = "abcdefgh"[: rng.randint(2, 8)]
    word_counts = {}
    for _ in range(rng.randint(1, 60)):  # short words, and long ones (past 64 characters: indexed places)
        length = rng.choice([rng.randint(1, 6), rng.randint(60, 90)])
        word_counts["".join(rng.choice(letters) for _ in range(length))] = rng.randint(1, 9)
    alphabet = sorted({c for word in word_counts for c in word})  # tokenizers' ids: by code point
    vocab_size, min_frequency = rng.randint(len(alphabet), 200), rng.choice([0, 2, 5])
    lines = [f"{vocab_size} {min_frequency} {2**40}", " ".join(alphabet)]
    lines += [f"{count} " + " ".join(str(alphabet.index(c)) for c in word) for word, count in word_counts.items()]
    run = subprocess.run(
        [str(bpe_merges_driver)], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=300
    )
    assert (run.returncode, run.stderr) == (0, "")
    merges = [tuple(line.split(" ")) for line in run.stdout.splitlines()]
    assert merges == hugging_face_merges(word_counts, vocab_size, min_frequency)
