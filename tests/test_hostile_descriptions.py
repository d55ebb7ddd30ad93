"""A pipeline description comes inside a SavedModel anyone may send, and a text from anyone who sends a
request: what either may make kvec's native encoder do is bounded (``csrc/core/spec_encoder.h`` states
each bound). Each case runs in a subprocess under a timeout and a memory limit, and asserts its bound on
CPU time or memory, or the error and its wording:

- a crafted 4.5 MB description (1.1 M entries pointing at one replacement of 10,000 code points, which
  took seconds to check) is refused within 1 s, and the largest one accepted is checked within 1 s;
- a description mapping ``a`` to a million ``b`` (a 300-byte text took 3 GB) is refused;
- 80 KB of combining marks normalize within 0.5 s in the core, through the op and in Python;
- one op call uses at most 64 bytes of memory per input byte plus a constant for text that does not
  grow, and at most 4 KB per input byte for any accepted description (32 code points, 4 ids each);
- a description that is slow to build, accepted or refused, holds back no other model's first one.

The description fuzzer (``test_crafted_shapes_and_their_mutations_keep_their_bounds_under_the_sanitizers``)
runs in ``make sanitize`` too.
"""

import json
import os
import random
import resource
import shutil
import struct
import subprocess
import sys
import textwrap
import unicodedata
from pathlib import Path

import pytest

from kvec.models import Unigram, WordPiece
from kvec.native_spec import LONGEST_REPLACEMENT, NotNativeError, describe
from kvec.normalizers import NFD, NFKC, NFKD, BertNormalizer, Prepend, Replace
from kvec.normalizers import Sequence as NormalizerSequence
from kvec.pipeline import Pipeline
from kvec.pretokenizers import BertPreTokenizer
from tests.test_native_sanitizers import CORE, ROOT, block, byte_level_description, sanitized

PAGES, SAME = 0x1100, 0xFFFFFFFF
MB = 1 << 20
# 80 KB of marks of classes 230 and 220 by turns: each 220 sorts before every 230 before it
MARKS = "\u0301\u0323" * 20_000
# marks by runs of one class each, and characters of class 0 that decompose into marks (U+0F73: 129, 130)
MARK_TEXTS = [MARKS, "\u0301" * 20_000 + "\u0323" * 20_000, "\u0f73" * 13_000, "a" + MARKS + "\u0344" * 100]


def base_description():
    """A WordPiece of b without a normalizer: the crafted normalizers are put in its place."""
    return describe(Pipeline(WordPiece({"[UNK]": 0, "b": 1, "##b": 2, "c": 3, "##c": 4})))


def char_map(page_of, entries, pool):
    """A character map section (csrc/core/char_map.h): pages, their entries, the replacements' pool."""
    return b"".join(
        [struct.pack("<I", len(entries) // 256), struct.pack(f"<{PAGES}I", *page_of)]
        + [struct.pack(f"<{len(entries)}I", *entries), struct.pack(f"<I{len(pool)}I", len(pool), *pool)]
    )


def one_map(source, length, into="b"):
    """A map of the code point `source` to `length` times `into`, every other one unchanged."""
    page = [SAME] * 256
    page[source & 0xFF] = 0
    page_of = [0] * PAGES
    page_of[source >> 8] = 1
    return char_map(page_of, [SAME] * 256 + page, [length] + [ord(into)] * length)


def with_normalizer(kind, section):
    spec = base_description()
    assert spec[8:12] == struct.pack("<I", 0)  # no normalizer, then an empty prefix
    return spec[:8] + struct.pack("<I", kind) + section + spec[12:]


def slow_to_check(entries=1_100_000, length=10_000):
    """The shape that took seconds to check: every entry points at one long replacement."""
    pages = -(-entries // 256)
    return with_normalizer(1, char_map([0] * PAGES, [0] * (pages * 256), [length] + [ord("b")] * length))


def memory_bomb(length=1_000_000):
    """``a`` becomes `length` times ``b``."""
    return with_normalizer(1, one_map(ord("a"), length))


def growing_decomposition():
    """A decomposition whose maps each stay within the cap, together past it: ``a`` to 32 ``b``, then
    each ``b`` to 32 ``c``."""
    no_compositions = struct.pack("<II", 0, 0)  # no combining classes, no compositions
    first, second = one_map(ord("a"), LONGEST_REPLACEMENT), one_map(ord("b"), LONGEST_REPLACEMENT, into="c")
    return with_normalizer(3, first + no_compositions + second)


def marks_pipeline(normalizer):
    """A WordPiece with a piece for each mark of MARK_TEXTS, so that its ids spell the marks' order."""
    marks = ["\u0301", "\u0323", "\u0f71", "\u0f72", "\u0308", "\u1ea1"]  # U+1EA1: a and U+0323 composed
    vocab = {token: i for i, token in enumerate(["[UNK]", "a", *marks, *("##" + mark for mark in marks)])}
    return Pipeline(WordPiece(vocab, max_input_chars_per_word=10**9), normalizer=normalizer)


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    """tests/native/spec_encoder_driver.c and the core, optimised as they ship (-O2, no sanitizer)."""
    compiler = "gcc"
    binary = tmp_path_factory.mktemp("bounds") / "spec_encoder_driver"
    sources = [str(path) for path in sorted(CORE.glob("*.c"))] + [str(ROOT / "tests/native/spec_encoder_driver.c")]
    flags = ["-std=c11", "-O2", f"-I{CORE}", *sources, "-lm", "-o", str(binary)]
    build = subprocess.run([compiler, *flags], capture_output=True, text=True)
    if build.returncode != 0 and "not found" in build.stderr:
        pytest.skip("no C compiler")
    assert build.returncode == 0, build.stderr
    return binary


def limited(memory):
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return limit


def run_driver(driver, cases, seconds, memory=1024 * MB):
    """The driver over (description, text) cases, each case held to `seconds` of CPU time, the run to
    `memory` bytes of address space; each case's outcome line."""
    stdin = b"".join(block(spec) + block(text) for spec, text in cases)
    run = subprocess.run(
        [str(driver), str(seconds), "-v"], input=stdin, capture_output=True, timeout=120, preexec_fn=limited(memory)
    )
    assert run.returncode == 0, run.stderr.decode(errors="replace")[-2000:]
    return run.stdout.decode().splitlines()[:-1]


def test_a_crafted_description_of_a_million_entries_is_refused_or_checked_within_a_second(driver):
    refused, accepted = slow_to_check(), slow_to_check(length=LONGEST_REPLACEMENT)
    assert len(refused) > 4_400_000
    lines = run_driver(driver, [(refused, b"b"), (accepted, b"b")], seconds=1.0)
    # b becomes 32 b, one word: WordPiece's b, then 31 ##b
    assert lines == ["refused: a replacement is longer than 32 code points", "accepted: 32 ids"]


def test_the_memory_bomb_is_refused_and_the_largest_replacement_stays_within_its_bound(driver):
    cases = [(memory_bomb(), b"a" * 300), (memory_bomb(33), b"a"), (memory_bomb(32), b"a" * 300)]
    cases.append((growing_decomposition(), b"a"))
    lines = run_driver(driver, cases, seconds=1.0, memory=256 * MB)
    refused = "refused: a replacement is longer than 32 code points"
    # 300 a become one word of 9,600 b, past WordPiece's 100 characters: [UNK]; a text that would
    # normalize past 32 code points per code point is refused (SPEC_GROWS)
    assert lines == [refused, refused, "accepted: 1 ids", "accepted: status 2"]


@pytest.mark.parametrize("prefix", ["x" * 33, "y" * 32])
def test_a_prefix_is_held_to_32_code_points_by_the_writer_and_the_reader(driver, prefix):
    pipeline = Pipeline(WordPiece({"[UNK]": 0, "b": 1}), normalizer=Prepend(prefix))
    if len(prefix) > LONGEST_REPLACEMENT:
        with pytest.raises(NotNativeError, match="the Prepend is 33 code points; the native encoder takes at most 32"):
            describe(pipeline)
        spec = with_normalizer(0, struct.pack(f"<I{len(prefix)}I", len(prefix), *map(ord, prefix)))
        assert run_driver(driver, [(spec, b"b")], 1.0) == ["refused: a prefix is longer than 32 code points"]
    else:
        assert run_driver(driver, [(describe(pipeline), b"b")], 1.0) == ["accepted: 1 ids"]


def test_the_writer_refuses_a_replacement_past_32_code_points_and_names_it():
    with pytest.raises(NotNativeError, match="turns U\\+0078 into 33 code points; the native encoder takes at most 32"):
        describe(Pipeline(WordPiece({"[UNK]": 0}), normalizer=Replace("x", "y" * 33)))
    describe(Pipeline(WordPiece({"[UNK]": 0}), normalizer=Replace("x", "y" * 32)))


@pytest.mark.parametrize("normalizer", [NFD(), NFKC(), BertNormalizer(strip_accents=True)], ids=["nfd", "nfkc", "bert"])
def test_80_kb_of_combining_marks_normalize_within_half_a_second_in_the_core(driver, normalizer):
    pipeline = marks_pipeline(normalizer)
    lines = run_driver(driver, [(describe(pipeline), text.encode()) for text in MARK_TEXTS], seconds=0.5)
    assert lines == [f"accepted: {len(pipeline.encode(text).ids)} ids" for text in MARK_TEXTS]


def canonical_order_oracle(text):
    """Unicode's canonical ordering by its definition: stable sort of each run of marks."""
    out, run = [], []
    for c in text + "\0":
        if unicodedata.combining(c):
            run.append(c)
            continue
        out += sorted(run, key=unicodedata.combining) + [c]
        run = []
    return "".join(out[:-1])


def python_child(code, seconds, memory=2048 * MB):
    """`code` run by a fresh interpreter under a timeout and a limit of address space; its JSON answer."""
    run = subprocess.run(
        [sys.executable, "-"],
        input=textwrap.dedent(code),
        capture_output=True,
        text=True,
        timeout=seconds,
        cwd=ROOT,
        preexec_fn=limited(memory),
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.splitlines()[-1])


def test_80_kb_of_combining_marks_normalize_within_half_a_second_in_python():
    code = f"""
        import json, resource, unicodedata
        from kvec.models import WordPiece
        from kvec.normalizers import NFC, NFD, NFKC, NFKD, BertNormalizer
        from kvec.pipeline import Pipeline
        texts = {MARK_TEXTS!r}
        def cpu():
            usage = resource.getrusage(resource.RUSAGE_SELF)
            return usage.ru_utime + usage.ru_stime
        normalizers = [NFD(), NFKD(), NFC(), NFKC(), BertNormalizer(strip_accents=True)]
        for normalizer in normalizers:  # the tables each one reads, before the clock
            normalizer.normalize_str("e\\u0301" * 40)
        stripped = BertNormalizer(strip_accents=True)
        pipelines = [Pipeline(WordPiece({{"[UNK]": 0}}), normalizer=n) for n in (NFD(), stripped)]
        seconds, forms, ids = [], [], []
        for text in texts:
            for normalizer in normalizers:
                start = cpu()
                forms.append(normalizer.normalize_str(text))
                seconds.append(cpu() - start)
            for pipeline in pipelines:  # the public encode path, with offsets
                start = cpu()
                ids.append(pipeline.encode(text).ids)
                seconds.append(cpu() - start)
        print(json.dumps({{"seconds": seconds, "forms": forms, "ids": ids}}))
    """
    answer = python_child(code, seconds=120)
    assert max(answer["seconds"]) < 0.5
    forms, ids = iter(answer["forms"]), iter(answer["ids"])
    for text in MARK_TEXTS:
        # the forms by their definition: each character decomposed, the marks put in canonical order,
        # then composed (unicodedata composes an ordered text in one pass; it would order this one by
        # insertion, in minutes)
        nfd, nfkd = (
            canonical_order_oracle("".join(unicodedata.normalize(f, c) for c in text)) for f in ("NFD", "NFKD")
        )
        bert = "".join(c for c in nfd if unicodedata.category(c) != "Mn").lower()  # accents stripped
        for expected in [nfd, nfkd, unicodedata.normalize("NFC", nfd), unicodedata.normalize("NFKC", nfkd), bert]:
            assert next(forms) == expected
        assert next(ids) == [0] and next(ids) == ([0] if bert else [])  # the whole text one word, unknown


def test_a_mark_run_ordered_by_counting_equals_the_definition():
    # runs longer than the insertion sort's (32): counting sort by class, stable
    rng = random.Random(5)
    marks = ["\u0301", "\u0323", "\u0345", "\u05b0", "\u0f71", "\u0f72", "\u0334", "\u1dce", "\u0315"]
    for size in [1, 31, 32, 33, 200, 5000]:
        text = "a" + "".join(rng.choice(marks) for _ in range(size)) + "b"
        assert NFD().normalize_str(text) == canonical_order_oracle(text) == unicodedata.normalize("NFD", text)


# ---- the op: the same bounds through TensorFlow -------------------------------------------------------

OP_PRELUDE = """
    import json, os, resource, sys, threading, time
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow as tf
    from kvec.layers import op_library
    LIBRARY = op_library.load()
    def cpu():
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime
    def peak_reset():  # the peak resident size starts again from the current one
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    def peak():
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    def limit_memory(more):  # the address space now, and `more` bytes
        for line in open("/proc/self/status"):
            if line.startswith("VmSize:"):
                size = int(line.split()[1]) * 1024 + more
        resource.setrlimit(resource.RLIMIT_AS, (size, resource.RLIM_INFINITY))
    def encode(texts, spec):
        try:
            values, splits = LIBRARY.kvec_encode(tf.constant(texts, dtype=tf.string), spec=spec)
            return values.numpy().tolist()
        except tf.errors.OpError as error:
            return error.message.rsplit("}} ", 1)[-1].split(" [Op:")[0]
"""


@pytest.fixture(scope="module")
def op_child(tmp_path_factory):
    tf = pytest.importorskip("tensorflow")
    from kvec.layers import op_library

    if op_library.load() is None:
        pytest.skip("kvec's op library could not be built here")
    folder = tmp_path_factory.mktemp("op")
    del tf

    def run(code, files, seconds=240):
        paths = {}
        for name, data in files.items():
            paths[name] = str(folder / name)
            Path(paths[name]).write_bytes(data)
        prelude = textwrap.dedent(OP_PRELUDE) + f"paths = {paths!r}\n"
        run = subprocess.run(
            [sys.executable, "-"],
            input=prelude + textwrap.dedent(code),
            capture_output=True,
            text=True,
            timeout=seconds,
            cwd=ROOT,
        )
        assert run.returncode == 0, run.stderr[-3000:]
        return json.loads(run.stdout.splitlines()[-1])

    return run


def test_the_op_refuses_the_crafted_descriptions_within_a_second_with_their_error(op_child):
    code = """
        answers = []
        limit_memory(1 << 30)
        for name, text in [("slow", "b"), ("bomb", "a" * 300), ("largest", "b"), ("growing", "a")]:
            spec = open(paths[name], "rb").read()
            start = cpu()
            answers.append([encode([text], spec), cpu() - start])
        print(json.dumps(answers))
    """
    files = {"slow": slow_to_check(), "bomb": memory_bomb(), "largest": slow_to_check(length=LONGEST_REPLACEMENT)}
    files["growing"] = growing_decomposition()
    answers = op_child(code, files)
    wrong = "kvec: the pipeline description is wrong: a replacement is longer than 32 code points"
    assert [answer for answer, _ in answers] == [
        wrong,
        wrong,
        [1] + [2] * (LONGEST_REPLACEMENT - 1),  # b becomes 32 b, one word: b, then 31 ##b
        "kvec: text 0 would grow past 32 code points per code point when normalized",
    ]
    assert max(seconds for _, seconds in answers) < 1.0


def test_the_op_normalizes_80_kb_of_marks_within_half_a_second_with_the_pipelines_ids(op_child):
    normalizers = [NFD(), NFKC(), BertNormalizer(strip_accents=False), NormalizerSequence([NFKD()])]
    pipelines = [marks_pipeline(normalizer) for normalizer in normalizers]
    texts = [*MARK_TEXTS, "a" + "\u0323\u0301" * 5 + " b"]
    code = f"""
        texts = {texts!r}
        answers = []
        for k in range({len(pipelines)}):
            spec = open(paths[str(k)], "rb").read()
            encode(["a"], spec)  # built first: only the texts are timed
            row = []
            for text in texts:
                start = cpu()
                ids = encode([text], spec)
                row.append([ids, cpu() - start])
            answers.append(row)
        print(json.dumps(answers))
    """
    answers = op_child(code, {str(k): describe(p) for k, p in enumerate(pipelines)})
    for pipeline, row in zip(pipelines, answers):
        assert [ids for ids, _ in row] == [pipeline.encode(text).ids for text in texts]
        assert max(seconds for _, seconds in row) < 0.5


def worst_growth():
    """The most a description may make of a text: each a becomes 32 code points (the longest
    replacement), each of them 4 ids (a Unigram's byte fallback on a 4-byte character)."""
    vocab = [("<unk>", 0.0), ("a", -1.0)] + [(f"<0x{byte:02X}>", -5.0) for byte in range(256)]
    model = Unigram(vocab, unk_id=0, byte_fallback=True)
    return Pipeline(model, normalizer=Replace("a", "\U0001f600" * LONGEST_REPLACEMENT))


def test_one_op_call_uses_at_most_64_bytes_per_input_byte_and_4_kb_for_any_description(op_child):
    words = ["alpha", "beta", "gamma", "naïve", "café", "中文", "ab", "Σίσυφος", "e\u0301", "12"]
    rng = random.Random(7)
    text = " ".join(rng.choice(words) for _ in range(1_400_000)).encode()  # about 8 MB
    vocab = {"[UNK]": 0, "alpha": 1, "be": 2, "##ta": 3, "naive": 4, "ca": 5, "##fe": 6, "中": 7, "e": 8}
    normalizer, words_of = BertNormalizer(strip_accents=True), BertPreTokenizer()
    bert = Pipeline(WordPiece(vocab), normalizer=normalizer, pre_tokenizer=words_of)
    worst = worst_growth()
    assert len(worst.encode("a").ids) == 4 * LONGEST_REPLACEMENT
    files = {"bpe": byte_level_description(), "bert": describe(bert), "worst": describe(worst)}
    files["text"] = text
    code = """
        text = open(paths["text"], "rb").read()
        answers = {}
        short = [text[k:k + 800] for k in range(0, len(text), 800)]
        for name, texts in [("bpe", [text]), ("bert", [text]), ("bpe", short), ("worst", [b"a" * 100_000])]:
            spec = open(paths[name], "rb").read()
            encode(["a"], spec)
            batch = tf.constant(texts, dtype=tf.string)
            limit_memory(8 << 30)
            peak_reset()
            before = peak()
            values, splits = LIBRARY.kvec_encode(batch, spec=spec)
            answers[name + str(len(texts))] = [peak() - before, sum(map(len, texts)), int(values.shape[0])]
            del values, splits
        print(json.dumps(answers))
    """
    answers = op_child(code, files)
    constant = 64 * MB
    for name, (used, size, n_ids) in answers.items():
        assert n_ids > 0
        per_byte = 4096 if name.startswith("worst") else 64  # 32 code points of 4 ids each, or no growth
        assert used <= per_byte * size + constant, (name, used / size)


def big_description(n_pieces):
    """A WordPiece of n distinct pieces: valid, and slow to build only by its size."""
    spec = base_description()
    model = spec.index(struct.pack("<Iqq", 1, 100, 0))  # WordPiece, max_chars, unk
    pieces = model + 20 + 4 + 8  # past its "##" prefix: the count of pieces
    entries = (struct.pack("<3Iq", 2, 0x4E00 + i % 20_000, 0x4E00 + i // 20_000, i + 5) for i in range(n_pieces))
    return spec[:pieces] + struct.pack("<I", n_pieces) + b"".join(entries) + spec[-12:]


@pytest.mark.parametrize("refused", [False, True], ids=["accepted", "refused"])
def test_a_description_slow_to_build_holds_back_no_other_models_first_one(tmp_path, refused):
    # the op's table of encoders (csrc/tf/kvec_ops.cc) driven by tests/native/encoders_lock.cc, outside
    # a graph: TensorFlow's own handling of a 20 MB attribute takes ten times the build it wraps
    tf = pytest.importorskip("tensorflow")
    if not shutil.which("g++"):
        pytest.skip("no C++ compiler")
    objects = []
    for source in sorted(CORE.glob("*.c")):
        objects.append(str(tmp_path / f"{source.stem}.o"))
        subprocess.run(["gcc", "-O2", "-fPIC", f"-I{CORE}", "-c", str(source), "-o", objects[-1]], check=True)
    binary = tmp_path / "encoders_lock"
    link = tf.sysconfig.get_link_flags()
    rpath = [f"-Wl,-rpath,{flag[2:]}" for flag in link if flag.startswith("-L")]
    command = [
        "g++",
        "-O2",
        *tf.sysconfig.get_compile_flags(),
        f"-I{CORE}",
        str(ROOT / "tests/native/encoders_lock.cc"),
    ]
    subprocess.run([*command, *objects, *link, *rpath, "-o", str(binary)], check=True, capture_output=True)
    slow = big_description(1_000_000) + (b"\0" if refused else b"")  # refused: a byte follows it
    (tmp_path / "slow").write_bytes(slow)
    (tmp_path / "healthy").write_bytes(base_description())
    run = subprocess.run(
        [str(binary), str(tmp_path / "slow"), str(tmp_path / "healthy")],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limited(8192 * MB),
    )
    assert run.returncode == 0, run.stderr[-2000:]
    _, slow_done, _, healthy_done = run.stdout.split()
    # the healthy one waited for the slow build, taking as long, while the table's lock covered it
    assert float(healthy_done) < float(slow_done) / 4, run.stdout


def test_crafted_shapes_and_their_mutations_keep_their_bounds_under_the_sanitizers(tmp_path_factory):
    # the description fuzzer of make sanitize: the crafted shapes above are its seeds, cut and corrupted;
    # each case is held to 2 s of CPU time (the driver exits 5 past it) and the run to ASan's limits on
    # resident memory and on any one allocation, which abort it with a report
    binary = sanitized(tmp_path_factory, "spec_encoder_driver")
    rng = random.Random(38)
    seeds = [slow_to_check(), slow_to_check(length=LONGEST_REPLACEMENT)]
    seeds += [memory_bomb(), memory_bomb(LONGEST_REPLACEMENT)]
    seeds += [growing_decomposition(), describe(marks_pipeline(NFD())), describe(marks_pipeline(NFKC()))]
    texts = [b"a" * 300, b"b a", MARKS.encode(), MARK_TEXTS[2].encode(), bytes(rng.randrange(256) for _ in range(64))]
    cases = [(seed, text) for seed in seeds for text in texts]
    for seed in seeds:
        cases += [(seed[:end], b"ab") for end in sorted(rng.sample(range(len(seed)), 6))]
        for _ in range(12):
            corrupt = bytearray(seed)
            for _ in range(rng.randrange(1, 6)):  # most often in the maps' headers, else anywhere
                place = rng.randrange(min(len(seed), 20_000)) if rng.random() < 0.7 else rng.randrange(len(seed))
                corrupt[place] = rng.choice([0, 1, 0x20, 0xFF, rng.randrange(256)])
            cases.append((bytes(corrupt), rng.choice(texts)))
    stdin = b"".join(block(spec) + block(text) for spec, text in cases)
    env = dict(os.environ)
    limits = "hard_rss_limit_mb=2048:max_allocation_size_mb=512:allocator_may_return_null=0"
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS", ""), limits]))
    run = subprocess.run([str(binary), "2.0"], input=stdin, capture_output=True, timeout=600, env=env)
    assert run.returncode == 0, run.stderr.decode(errors="replace")[-3000:]
    accepted, refused = map(int, run.stdout.split())
    assert accepted + refused == len(cases) and accepted >= 3 * len(texts) and refused >= 4 * len(texts)
