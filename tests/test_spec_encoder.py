"""kvec._spec.SpecEncoder, the native encoder of a pipeline's description (csrc/python/spec/spec_module.c over
csrc/core/spec_encoder.h): its ids are those of the Python reference encoder (``Pipeline.encode``, text
by text) for every kind of pipeline it describes, the same for every thread count, and its bad inputs
are named."""

import array
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvec._spec import SpecEncoder
from kvec.chinese import Jieba
from kvec.interop.huggingface import from_tokenizer_json_str
from kvec.models import Unigram, WordPiece
from kvec.native_spec import describe, describe_splitter, describe_word_lookup
from kvec.normalizers import BertNormalizer, Lowercase
from kvec.pipeline import Pipeline
from kvec.presets import sentencepiece_style
from kvec.pretokenizers import BertPreTokenizer, Whitespace
from kvec.processors import TemplateProcessing
from kvec.trainers import UnigramTrainer
from tests.support import hf_trained, in_threads, run_bounded

PIECES = ["a", "b", "c", "ab", "abc", "é", "中", "文", "x", "1", "12", ",", "!"]
VOCAB = {token: i + 3 for i, token in enumerate(PIECES + ["##" + p for p in PIECES])}
VOCAB.update({"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": len(VOCAB) + 3})
ALPHABET = "abcABCéÉ中文x12,!. \t\n\u3000\u0301ΣẞİI😀[PAD]<sep>▁"


def pipelines():
    bert = Pipeline(
        WordPiece(VOCAB, unk_token="[UNK]"),
        normalizer=BertNormalizer(),
        pre_tokenizer=BertPreTokenizer(),
        post_processor=TemplateProcessing("[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", VOCAB["[SEP]"])]),
    )
    bert.add_special_tokens(["[PAD]"])
    byte_level = from_tokenizer_json_str(hf_trained("bytelevel_bpe").to_str())
    unigram = sentencepiece_style(user_defined_symbols=["<sep>"])
    trainer = UnigramTrainer(vocab_size=120, byte_fallback=True, special_tokens=["<pad>", "<unk>"])
    training = ["low lower lowest 2024 ab", "naïve café ▁x 中文 中文", "Hello world's 12"] * 5
    unigram.train_from_iterator(training, trainer)
    words = Pipeline(Unigram([("<unk>", 0.0), ("a", -2.0), ("b", -2.0), ("ab", -2.5)], unk_id=0), Lowercase())
    words.pre_tokenizer = Whitespace()
    jieba = Pipeline(WordPiece({"[UNK]": 0, "中": 1, "文": 2, "中文": 3, "a": 4}), pre_tokenizer=Jieba())
    return {
        "bert": bert,
        "byte_level": byte_level,
        "sentencepiece_style": unigram,
        "unigram_words": words,
        "jieba": jieba,
    }


PIPELINES = pipelines()
ENCODERS = {name: SpecEncoder(describe(pipeline)) for name, pipeline in PIPELINES.items()}
TEXTS = st.lists(st.text(st.sampled_from(ALPHABET), max_size=30), max_size=8)


def rows(values, row_lengths):
    ids, lengths = array.array("q", values), array.array("q", row_lengths)
    assert len(ids) == sum(lengths)
    out, at = [], 0
    for length in lengths:
        out.append(list(ids[at : at + length]))
        at += length
    return out


@pytest.mark.parametrize("name", sorted(PIPELINES))
@given(texts=TEXTS, n_threads=st.integers(1, 5), as_bytes=st.booleans())
def test_the_encoder_gives_the_reference_encoders_ids_on_any_thread_count(name, texts, n_threads, as_bytes):
    items = [text.encode() for text in texts] if as_bytes else texts
    got = rows(*ENCODERS[name].encode(items, n_threads=n_threads))
    assert got == [PIPELINES[name].encode(text).ids for text in texts]


LOOKED_UP = {"a": 1, "ss": 2, "ŧ": 3, "e": 4, "ae": 5, "x": 6, "ssx": 7, "é": 8}
RULE = {"ß": "ss", "É": "ŧ", "ê": "e", ".": "", "A": "a", "X": "x"}  # longer, past 0xFF, below, dropped


@given(texts=st.lists(st.text(st.sampled_from("aAßÉêé.xX \tŧ"), max_size=20), max_size=6), n_threads=st.integers(1, 3))
def test_a_word_lookup_maps_each_character_then_looks_up_the_words_between_separators(texts, n_threads):
    texts = [*texts, "a X. " * 20 + "ßx"]  # words looked up before a longer replacement is met
    encoder = SpecEncoder(describe_word_lookup(LOOKED_UP, 0, lambda c: RULE.get(c, c), " \t", rule_ends=0x180))
    unmapped = SpecEncoder(describe_word_lookup(LOOKED_UP, 0, None, " \t"))
    mapped = ["".join(RULE.get(c, c) for c in text) for text in texts]
    for ours, looked_at in ((encoder, mapped), (unmapped, texts)):
        expected = [[LOOKED_UP.get(word, 0) for word in text.split()] for text in looked_at]
        assert rows(*ours.encode(texts, n_threads=n_threads)) == expected


def test_threads_encoding_at_once_share_the_encoder():
    encoder, pipeline = ENCODERS["bert"], PIPELINES["bert"]
    texts = [f"ab{k} 中文 x{k % 7} É!" for k in range(400)]
    expected = [pipeline.encode(text).ids for text in texts]
    results = [None] * 4

    def run(slot):
        results[slot] = rows(*encoder.encode(texts, n_threads=2))

    threads = [threading.Thread(target=run, args=(slot,)) for slot in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 4


def test_more_callers_than_warm_threads_give_the_serial_ids():
    # twelve callers of three parts each want more warm threads than the process keeps: the ones left
    # without make threads of their own, as they did before any was kept
    calls = [
        (name, [f"ab{k} 中文 x{k % 7} É! <sep>"[: 4 + k % 17] for k in range(j, j + 60)])
        for j in range(12)
        for name in ("bert", "sentencepiece_style")
    ]
    expected = [[PIPELINES[name].encode(text).ids for text in texts] for name, texts in calls]
    assert in_threads(lambda call: rows(*ENCODERS[call[0]].encode(call[1], n_threads=3)), calls, 12) == expected


# The code of a fresh interpreter: ids on two threads (so the process has its warm thread), then a fork whose
# child encodes on two threads too; the child's exit status is 0 when its ids are the parent's. The child
# ends itself on a hang (SIGALRM), which run_bounded's timeout would not reach.
FORKED = """
import array, os, signal, warnings
from kvec._spec import SpecEncoder
from kvec.native_spec import describe_word_lookup
encoder = SpecEncoder(describe_word_lookup({"a": 1, "b": 2, "ab": 3}, 0, None, " "))
texts = ["a b ab", "b", "ab a c", "a"] * 50
ids = encoder.encode(texts, 2)
assert ids == encoder.encode(texts, 1)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # the fork of a process with threads is the point
    pid = os.fork()
if pid == 0:
    signal.alarm(30)
    os._exit(0 if encoder.encode(texts, 2) == ids and encoder.encode(texts, 3) == ids else 1)
result = os.waitpid(pid, 0)[1]
"""


def test_a_forked_child_encodes_on_threads_as_its_parent_did():
    outcome = run_bounded(FORKED, timeout=120)
    assert (outcome["error"], outcome["result"]) == (None, "0")


@pytest.mark.parametrize("pause", ["", "import time; time.sleep(0.05)"])
def test_the_interpreter_exits_with_its_warm_thread_spinning_or_asleep(pause):
    code = f"""
from kvec._spec import SpecEncoder
from kvec.native_spec import describe_word_lookup
encoder = SpecEncoder(describe_word_lookup({{"a": 1, "b": 2}}, 0, None, " "))
result = encoder.encode(["a b", "b a a"] * 20, 2) == encoder.encode(["a b", "b a a"] * 20, 1)
{pause}
"""
    outcome = run_bounded(code, timeout=120)
    assert (outcome["error"], outcome["result"]) == (None, "True")


def test_bad_texts_and_thread_counts_are_named():
    encoder = ENCODERS["bert"]
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str or bytes, got int"):
        encoder.encode(["a", 3])
    with pytest.raises(TypeError):
        encoder.encode(("a",))
    with pytest.raises(ValueError, match=r"texts\[2\] holds a lone surrogate"):
        encoder.encode(["a", "b", "x\ud800"])
    with pytest.raises(ValueError, match="n_threads must be at least 1, got 0"):
        encoder.encode(["a"], n_threads=0)
    assert encoder.encode([]) == (b"", b"")


def test_a_word_without_a_piece_names_its_text_as_the_reference_encoder_refuses_it():
    pipeline = Pipeline(WordPiece({"a": 0, "b": 1}), pre_tokenizer=Whitespace())
    with pytest.raises(ValueError, match="not in the vocabulary"):
        pipeline.encode("a c")
    encoder = SpecEncoder(describe(pipeline))
    for n_threads in (1, 3):
        with pytest.raises(ValueError, match=r"texts\[3\] has a word that matches no piece"):
            encoder.encode(["a", "b a", "b", "a c", "c"], n_threads=n_threads)


def test_a_bad_description_is_refused_with_its_fault():
    spec = describe(PIPELINES["bert"])
    with pytest.raises(ValueError, match="the pipeline description is wrong"):
        SpecEncoder(spec[: len(spec) // 2])
    with pytest.raises(ValueError, match="bytes follow the description"):
        SpecEncoder(spec + b"\0")
    with pytest.raises(ValueError, match="word splitter"):
        SpecEncoder(describe_splitter(Whitespace()))
    with pytest.raises(TypeError):
        SpecEncoder("KVEC")


def test_an_encoder_whose_init_was_not_run_or_failed_refuses_to_encode():
    with pytest.raises(RuntimeError, match="__init__ was not called"):
        SpecEncoder.__new__(SpecEncoder).encode(["a"])
    encoder = SpecEncoder(describe(PIPELINES["bert"]))
    with pytest.raises(ValueError):
        encoder.__init__(b"KVEC")
    with pytest.raises(RuntimeError, match="__init__ was not called"):
        encoder.encode(["a"])
    encoder.__init__(describe(PIPELINES["jieba"]))
    assert rows(*encoder.encode(["中文a"])) == [PIPELINES["jieba"].encode("中文a").ids]
