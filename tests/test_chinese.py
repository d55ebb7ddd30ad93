"""jieba segmentation: jieba's own words, private user dictionaries, the cache folder, pipelines; jieba's
dictionary and segmentation API on Jieba and the drop-in module kvec.jieba (after the same calls, the
words, offsets and counts equal jieba 0.42.1's)."""

import ast
import contextlib
import io
import os
import pickle
import subprocess
import sys
import threading

import jieba
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jieba import finalseg

import kvec
from kvec import _jieba, chinese, decoders
from kvec.chinese import Jieba
from kvec.models import WordPiece
from kvec.normalizers import OpenCC
from kvec.pipeline import Pipeline, Tokenizer
from kvec.trainers import UnigramTrainer, WordPieceTrainer
from tests.support import load_demo
from tests.test_demo import _section


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("jieba-cache"))


@pytest.fixture(scope="module")
def segmenters(cache_dir):
    return {
        (mode, hmm): Jieba(mode=mode, hmm=hmm, cache_dir=cache_dir)
        for mode in ("accurate", "search", "full")
        for hmm in (True, False)
    }


@pytest.fixture(scope="module")
def oracle(cache_dir):
    """A private jieba tokenizer (its cache in the test's folder), loaded once."""
    tokenizer = jieba.Tokenizer()
    tokenizer.tmp_dir = cache_dir
    tokenizer.initialize()
    return tokenizer


def with_user_words(oracle, words):
    """A copy of the oracle with jieba's add_word applied to each (word, count or None), in order."""
    tokenizer = jieba_copy(oracle)
    for word, count in words:
        tokenizer.add_word(word, count)
    return tokenizer


# Han words of the dictionary and rare Han (in and past jieba's U+4E00..U+9FD5 range, extension A and B),
# Latin, digits and decimals, the symbols jieba keeps in its blocks, full-width forms and CJK punctuation,
# emoji, and whitespace runs
MIXED = st.lists(
    st.sampled_from(
        [
            "我爱",
            "北京",
            "天安门",
            "自然语言处理",
            "的",
            "了",
            "机器学习",
            "中华人民共和国",
            "研究生命起源",
            "乒乓球拍卖完了",
        ]
        + ["丨", "乂", "亍", "鿕", "鿖", "㐀", "𠀀", "龘", "靐", "囧"]
        + ["hello", "iPhone", "T恤", "AT&T", "x", "2024", "1.5%", "3.14", "1.", "C++", "C#", "a_b", "50%", "-", "."]
        + ["ＡＢＣ", "１２３", "，", "。", "！", "「", "」", "《", "》", "…", "、", "：", "😀", "👍🏽", "Ω", "é"]
        + [" ", "  ", "\t", "\r\n", "\n", "\r", "\u3000", "\u00a0", "\u2028", "\x1c"]
    ),
    max_size=14,
).map("".join)


def without_whitespace(items, word=lambda item: item):
    return [item for item in items if word(item) and not word(item).isspace()]


def check_against(oracle, segmenters_of, text):
    """Words and offsets of every mode equal the oracle's on text."""
    for hmm in (True, False):
        for mode, jieba_mode in (("accurate", "default"), ("search", "search")):
            expected = without_whitespace(oracle.tokenize(text, mode=jieba_mode, HMM=hmm), lambda t: t[0])
            pieces = segmenters_of(mode, hmm).pre_tokenize(text)
            assert [(p.text, p.offsets(0, len(p.text))[0]) for p in pieces] == [(w, a) for w, a, _ in expected]
        pieces = segmenters_of("full", hmm).pre_tokenize(text)
        assert [p.text for p in pieces] == without_whitespace(oracle.lcut(text, cut_all=True, HMM=hmm))
        for piece in pieces:
            start = piece.offsets(0, len(piece.text))[0]
            # a word of full mode starts where it is found; one jieba joins from letters apart is ASCII
            assert text.startswith(piece.text, start) or (text[start] == piece.text[0] and piece.text.isascii())


@settings(max_examples=300, deadline=None)
@given(text=MIXED)
def test_words_and_offsets_are_jiebas(segmenters, oracle, text):
    check_against(oracle, lambda mode, hmm: segmenters[mode, hmm], text)


@pytest.mark.parametrize("text", ["aT恤b", "ab T恤 x1.5.3%y", "AT&T是T恤", "x中华人民共和国y", "研究生命起源" * 30])
def test_full_mode_joins_letters_as_jieba_does(segmenters, oracle, text):
    check_against(oracle, lambda mode, hmm: segmenters[mode, hmm], text)


USER_WORDS = [
    ("自然语言处理", None),
    ("深度学习框架", 10),
    ("云计算", None),
    ("5G网络", 3),
    ("iPhone13", None),
    ("北京大学生", 0),  # count 0: jieba splits it even where its HMM would join it
    ("天安门", 1),  # a dictionary word given a count of its own
    ("乒乓", None),
]


@settings(max_examples=100, deadline=None)
@given(text=MIXED.map(lambda t: t + "北京大学生在云计算和5G网络上用iPhone13做自然语言处理与深度学习框架"))
def test_user_words_cut_as_jiebas_add_word_makes_them(user_segmenters, user_oracle, text):
    check_against(user_oracle, lambda mode, hmm: user_segmenters[mode, hmm], text)


@pytest.fixture(scope="module")
def user_oracle(oracle):
    tokenizer = with_user_words(oracle, USER_WORDS)
    yield tokenizer
    finalseg.Force_Split_Words.discard("北京大学生")  # jieba's add_word(word, 0) marks it process-wide


@pytest.fixture(scope="module")
def user_segmenters(cache_dir):
    return {
        (mode, hmm): Jieba(mode=mode, hmm=hmm, user_dict=USER_WORDS, cache_dir=cache_dir)
        for mode in ("accurate", "search", "full")
        for hmm in (True, False)
    }


def test_user_words_without_a_count_get_jiebas_suggested_count(user_segmenters, user_oracle):
    cutter = user_segmenters["accurate", True]._native()
    for word, _ in USER_WORDS + [("乒乓球", None), ("不在词典里的词", None), ("中", None)]:
        assert cutter.count(word) == user_oracle.FREQ.get(word)
    assert cutter.total == user_oracle.total


def test_user_words_stay_private_and_are_cut_by_jiebas_blocks_unless_whole_words(cache_dir, oracle, tmp_path):
    words = tmp_path / "user.txt"
    words.write_text("机器 学习 5 n\n深度学习框架 10\nNew York\n", encoding="utf-8")
    text = "我在New York研究机器 学习和深度学习框架"
    expected = with_user_words(oracle, [("机器 学习", 5), ("深度学习框架", 10), ("New York", None)]).lcut(text)
    for user_dict in (str(words), ["机器 学习", ("深度学习框架", 10), "New York"]):
        assert Jieba(user_dict=user_dict, cache_dir=cache_dir)(text) == without_whitespace(expected)
        whole = Jieba(user_dict=user_dict, cache_dir=cache_dir, whole_words=True)
        assert whole(text) == ["我", "在", "New York", "研究", "机器 学习", "和", "深度学习框架"]
        assert Jieba(**whole.get_config())(text) == whole(text)
        unloaded = Jieba(user_dict=user_dict, cache_dir=cache_dir).get_config()  # before the dictionary loads
        assert Jieba(**unloaded)(text) == without_whitespace(expected)
    assert "深度学习框架" not in Jieba(cache_dir=cache_dir)("深度学习框架")  # another Jieba never saw them
    assert "深度学习框架" not in jieba.lcut("深度学习框架")  # nor jieba's global tokenizer


def test_the_built_dictionary_is_cached_in_the_cache_dir_only_and_rebuilt_when_corrupt(tmp_path):
    folder = tmp_path / "cache"
    expected = Jieba(cache_dir=str(folder))("我爱北京天安门")
    (cached,) = folder.iterdir()
    assert cached.name.startswith("jieba-") and cached.suffix == ".kvec"
    with pytest.raises(ValueError, match=f"{cached} is not a kvec jieba dictionary, or it is corrupt"):
        _jieba.Dictionary.load(cached.read_bytes()[:-5], str(cached))
    data = bytearray(cached.read_bytes())
    data[40:48] = b"\xff" * 8  # a node count past the end
    cached.write_bytes(bytes(data))
    chinese._dictionaries.clear()  # as a new process
    assert Jieba(cache_dir=str(folder))("我爱北京天安门") == expected
    assert cached.read_bytes() != bytes(data)  # built again and written back


SMALL_DICTIONARY = "北京 30 ns\n天安门 20\n大学 10\n大学生 5\n学生 8\n中国 40\n生命 6\n起源 3\nAT&T 3\nT恤 2\n"


@settings(max_examples=60, deadline=None)
@given(text=MIXED)
def test_a_dictionary_of_ones_own_cuts_as_jieba_with_that_dictionary(small_dictionary, text):
    path, oracle = small_dictionary
    segmenter = Jieba(dictionary=path)
    assert segmenter("中国人民大学生活") == oracle.lcut("中国人民大学生活") != jieba.lcut("中国人民大学生活")
    for hmm in (True, False):
        expected = without_whitespace(oracle.tokenize(text, HMM=hmm), lambda t: t[0])
        pieces = Jieba(dictionary=path, hmm=hmm).pre_tokenize(text)
        assert [(p.text, p.offsets(0, len(p.text))[0]) for p in pieces] == [(w, a) for w, a, _ in expected]
    assert Jieba(**segmenter.get_config()).get_config() == {**segmenter.get_config(), "dictionary": path}


@pytest.fixture(scope="module")
def small_dictionary(tmp_path_factory):
    path = tmp_path_factory.mktemp("dictionary") / "small.txt"
    path.write_text(SMALL_DICTIONARY, encoding="utf-8")
    oracle = jieba.Tokenizer(dictionary=str(path))
    oracle.tmp_dir = str(path.parent)
    oracle.initialize()
    return str(path), oracle


def test_segmentation_is_the_same_for_every_hash_seed_and_thread_count(tmp_path):
    script = (
        "import json, sys; from kvec.chinese import Jieba\n"
        "texts = ['我爱北京天安门，iPhone 1.5%%', '研究生命起源' * 50, '', ' \\r\\n中文'] * 300\n"
        "cutters = [Jieba(mode=m, cache_dir=sys.argv[1]) for m in ('accurate', 'full')]\n"
        "out = [cutter.segment(texts, n_jobs=n) for cutter in cutters for n in (1, 2)]\n"
        "assert out[0] == out[1] and out[2] == out[3]\n"
        "print(json.dumps(out[0] + out[2]))\n"
    )
    outputs = set()
    for seed in ("0", "123"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        run = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, env=env)
        assert run.returncode == 0, run.stderr
        outputs.add(run.stdout)
    assert len(outputs) == 1


def test_bad_arguments():
    with pytest.raises(ValueError, match="mode must be one of"):
        Jieba(mode="fast")
    with pytest.raises(TypeError, match=r"user_dict\[1\] must be a word or a \(word, count\) pair, got 3"):
        Jieba(user_dict=["北京", 3])
    with pytest.raises(TypeError, match=r"user_dict\[0\]: the count must be a non-negative int, got -2"):
        Jieba(user_dict=[("北京", -2)])
    with pytest.raises(TypeError, match="text must be a str, got bytes"):
        Jieba()(b"x")


LINES = ["我爱北京天安门", "自然语言处理很有趣", "我爱自然语言处理", "北京的机器学习很有趣", "我们在北京学习"] * 20


def test_pipelines_train_on_jieba_words_in_parallel_and_round_trip(cache_dir, tmp_path):
    outputs = []
    for n_jobs in (1, 2):
        tokenizer = Tokenizer(None, pre_tokenizer=Jieba(cache_dir=cache_dir), decoder=decoders.WordPiece())
        tokenizer.train_from_iterator(pickle.loads(pickle.dumps(LINES)), WordPieceTrainer(vocab_size=60), n_jobs=n_jobs)
        outputs.append(tokenizer.to_str())
    assert outputs[0] == outputs[1]
    tokenizer.save(tmp_path / "wordpiece.json")
    loaded = Tokenizer.from_file(tmp_path / "wordpiece.json")
    assert loaded.encode("我爱北京").tokens == tokenizer.encode("我爱北京").tokens == ["我", "爱", "北京"]


def test_unigram_on_jieba_words(cache_dir):
    tokenizer = Tokenizer(None, pre_tokenizer=Jieba(cache_dir=cache_dir), decoder=decoders.WordPiece())
    tokenizer.train_from_iterator(LINES, UnigramTrainer(vocab_size=30, special_tokens=["<unk>"]))
    assert "自然语言" in "".join(tokenizer.encode("自然语言处理").tokens)
    assert {t for line in LINES for t in tokenizer.encode(line).tokens} <= set(tokenizer.get_vocab())


def test_whitespace_is_dropped(segmenters):
    assert segmenters["accurate", True]("北京 hello  world\n") == ["北京", "hello", "world"]


def test_seed_000_chinese_example_with_the_jieba_analyzer(cache_dir):
    # the seed segments by hand (' '.join(jieba.cut(t))); the analyzer must print the same
    demo = load_demo()
    lines = _section("chinese")

    def printed(label):
        i = next(k for k, line in enumerate(lines) if line.startswith(label))
        text = lines[i + 1].strip()
        return ast.literal_eval(
            text.removeprefix("OrderedDict(").removesuffix(")") if text.startswith("OrderedDict") else text
        )

    tokenizer = kvec.Tokenizer(
        num_words=64, filters='!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n,。', analyzer=Jieba(cache_dir=cache_dir)
    )
    tokenizer.fit_on_texts(demo.CHINESE)
    assert tokenizer.document_count == 10
    assert tokenizer.word_index == printed("词语到索引的映射")
    assert tokenizer.index_word == printed("索引到词语的映射")
    assert list(tokenizer.word_counts.items()) == printed("每个词语出现的总频次")
    tokens = tokenizer.texts_to_sequences(demo.CHINESE)
    assert tokens == printed("tokens:")
    padded = kvec.pad_sequences(tokens, maxlen=32, padding="post", truncating="pre")
    assert padded.tolist() == [row + [0] * (32 - len(row)) for row in printed("tokens:")]


def test_default_filters_drop_chinese_punctuation_under_jieba(cache_dir):
    tokenizer = kvec.Tokenizer(analyzer=Jieba(cache_dir=cache_dir))
    tokenizer.fit_on_texts(["我爱北京，天安门！《自然》“语言”……", "Hello, 北京 2024年"])
    assert list(tokenizer.word_index) == ["北京", "我", "爱", "天安门", "自然", "语言", "hello", "2024", "年"]


def test_parallel_segmentation_equals_serial(segmenters):
    texts = [f"我爱北京天安门{i}，自然语言处理 hello {i % 7}" for i in range(1200)]
    segmenter = segmenters["accurate", True]
    serial = [segmenter(t) for t in texts]
    assert segmenter.segment(texts, n_jobs=2) == serial
    assert segmenter.segment(texts) == serial
    with pytest.raises(ValueError, match="n_jobs must be a positive int or -1, got 0"):
        segmenter.segment(texts, n_jobs=0)
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str, got int"):
        segmenter.segment(["a", 1])


def test_opencc_normalizer_converts_traditional_to_simplified_with_offsets(cache_dir):
    opencc = pytest.importorskip("opencc")
    text = "漢語自然語言處理，臺灣的軟體"
    assert OpenCC("t2s").normalize_str(text) == opencc.OpenCC("t2s").convert(text)
    tokenizer = Pipeline(
        WordPiece({"[UNK]": 0, "汉语": 1, "自然语言": 2, "处理": 3}),
        pre_tokenizer=Jieba(cache_dir=cache_dir),
        normalizer=OpenCC("t2s"),
    )
    encoding = tokenizer.encode("漢語自然語言處理")
    assert encoding.ids == [1, 2, 3] and [text[a:b] for a, b in encoding.offsets] == ["漢語", "自然語言", "處理"]
    loaded = Pipeline.from_str(tokenizer.to_str())
    assert loaded.encode("漢語自然語言處理").ids == encoding.ids
    assert pickle.loads(pickle.dumps(OpenCC("t2s"))).normalize_str("語言") == "语言"


def jieba_copy(base):
    """A fresh jieba tokenizer over the dictionary ``base`` loaded (its words and total copied)."""
    tokenizer = jieba.Tokenizer()
    tokenizer.FREQ, tokenizer.total, tokenizer.initialized = dict(base.FREQ), base.total, True
    return tokenizer


@contextlib.contextmanager
def own_split_words():
    """jieba's process-wide words to split (finalseg.Force_Split_Words) emptied inside the block and
    restored after it, as a kvec Jieba has a set of its own."""
    saved = set(finalseg.Force_Split_Words)
    finalseg.Force_Split_Words.clear()
    try:
        yield
    finally:
        finalseg.Force_Split_Words.clear()
        finalseg.Force_Split_Words.update(saved)


@pytest.fixture(scope="module")
def fresh(oracle):
    """Fresh jieba tokenizers over the loaded dictionary, each with jieba's process-wide set of words to
    split (finalseg.Force_Split_Words) emptied for it, as a kvec Jieba has a set of its own."""

    def make():
        finalseg.Force_Split_Words.clear()
        return jieba_copy(oracle)

    with own_split_words():
        yield make


HAN = "北京大学生活中国人民共和自然语言处理石墨烯台机器学习深度框架云计算的了是在我爱天安门研究起源乒乓球拍卖完"
WORDS = st.one_of(
    st.text(st.sampled_from(HAN), min_size=1, max_size=5),  # Han, in the dictionary or not
    st.sampled_from(["New York", "Edu Trust认证", "C++ 语言", "iPhone 13", "机器 学习", "a b c"]),  # spaces
    st.sampled_from(["5G网络", "2024年", "iPhone13", "3.14", "1.5%", "x1"]),  # digits
    st.sampled_from(["C++", "AT&T", "你好，世界", "a.b", "x-y", "T恤", "《三体》", "e=mc²", "😀"]),  # punctuation
)
FREQS = st.one_of(st.none(), st.just(0), st.integers(1, 50), st.integers(10**9, 10**13))
OPS = st.one_of(
    st.tuples(st.just("add_word"), WORDS, FREQS, st.sampled_from([None, "n", "nz"])),
    st.tuples(st.just("del_word"), WORDS),
    st.tuples(st.just("suggest_freq"), WORDS),
    st.tuples(st.just("suggest_freq_parts"), WORDS, st.integers(1, 4)),
    st.tuples(
        st.just("load_userdict"),
        st.lists(st.tuples(WORDS, st.one_of(st.none(), st.integers(0, 50)), st.sampled_from(["", " n", " nr"]))),
        st.booleans(),
    ),
)
FILLER = [
    "我爱",
    "北京",
    "天安门",
    "的",
    "，",
    "。",
    " ",
    "  ",
    "\r\n",
    "\t",
    "hello",
    "2024",
    "1.5%",
    "C#",
    "-",
    "😀",
    "龘",
]


def apply(tokenizer, op):
    """One dictionary call, the same on jieba's tokenizer and kvec's Jieba."""
    if op[0] == "add_word":
        tokenizer.add_word(op[1], op[2], op[3])
    elif op[0] == "del_word":
        tokenizer.del_word(op[1])
    elif op[0] == "suggest_freq":
        return tokenizer.suggest_freq(op[1], tune=True)
    elif op[0] == "suggest_freq_parts":
        word, cut = op[1], min(op[2], len(op[1]))
        return tokenizer.suggest_freq((word[:cut], word[cut:]) if word[cut:] else (word,), tune=True)
    else:
        lines = [f"{word}{'' if count is None else f' {count}'}{tag}" for word, count, tag in op[1]]
        data = "\n".join(lines).encode()
        tokenizer.load_userdict(io.BytesIO(b"\xef\xbb\xbf" + data if op[2] else data))


def check_same(kvec_jieba, oracle, text):
    assert kvec_jieba.lcut(text) == oracle.lcut(text)
    assert kvec_jieba.lcut(text, cut_all=True) == oracle.lcut(text, cut_all=True)
    assert kvec_jieba.lcut(text, HMM=False) == oracle.lcut(text, HMM=False)
    assert kvec_jieba.lcut_for_search(text) == oracle.lcut_for_search(text)
    assert kvec_jieba.lcut_for_search(text, HMM=False) == oracle.lcut_for_search(text, HMM=False)
    for mode in ("default", "search"):
        for hmm in (True, False):
            assert list(kvec_jieba.tokenize(text, mode, hmm)) == list(oracle.tokenize(text, mode, hmm))


@settings(deadline=None)
@given(ops=st.lists(OPS, min_size=1, max_size=8), data=st.data())
def test_any_sequence_of_dictionary_calls_gives_jiebas_words(cache_dir, fresh, ops, data):
    oracle, segmenter = fresh(), Jieba(cache_dir=cache_dir)
    for op in ops:
        assert apply(segmenter, op) == apply(oracle, op)
    assert segmenter.total == oracle.total
    words = [op[1] for op in ops if op[0] != "load_userdict"] + [
        w for op in ops if op[0] == "load_userdict" for w, _, _ in op[1]
    ]
    for word in words:
        assert segmenter.get_FREQ(word) == oracle.FREQ.get(word)
    assert segmenter.user_word_tag_tab == oracle.user_word_tag_tab
    piece = st.one_of(st.sampled_from(words + FILLER), st.text(st.sampled_from(HAN), min_size=1, max_size=4))
    pieces = st.lists(piece, max_size=12).map("".join)
    for text in data.draw(st.lists(pieces, min_size=1, max_size=3)):
        check_same(segmenter, oracle, text)
    copy = pickle.loads(pickle.dumps(segmenter))  # the words travel
    text = "".join(words)
    assert copy.lcut(text) == oracle.lcut(text) and copy.lcut(text, cut_all=True) == oracle.lcut(text, cut_all=True)


USER_DICT = (
    "\ufeff石墨烯\n"  # a byte-order mark, no count
    "凱特琳 nz\n"  # a tag without a count
    "云计算 5\n"
    "创新办 3 i\n"
    "  Edu Trust认证 2000  \r\n"  # spaces around and inside, a count, a Windows line end
    "\n"
    "   \n"
    "new york\n"  # jieba reads `york` as the tag
    "台中 0\n"  # a count of 0: split
    "C++ 语言 12 n\n"
)
USER_TEXT = (
    "李小福是创新办主任也是云计算方面的专家; 什么是八一双鹿\n"
    "例如我输入一个带“韩玉赏鉴”的标题，在自定义词库中也增加了此词为N类\n"
    "「台中」正確應該不會被切開。mac上可分出「石墨烯」；此時又可以分出來凱特琳了。Edu Trust认证 2000 new york C++ 语言"
)


@pytest.mark.parametrize("form", ["path", "bytes", "text"])
def test_load_userdict_reads_jiebas_format(cache_dir, fresh, tmp_path, form):
    path = tmp_path / "userdict.txt"
    path.write_bytes(USER_DICT.encode("utf-8"))
    opened = {
        "path": lambda: str(path),
        "bytes": lambda: open(path, "rb"),  # noqa: SIM115 (load_userdict reads it)
        "text": lambda: open(path, encoding="utf-8"),  # the mark then stays in the first word, as in jieba
    }[form]
    oracle, segmenter = fresh(), Jieba(cache_dir=cache_dir)
    oracle.load_userdict(opened())
    segmenter.load_userdict(opened())
    check_same(segmenter, oracle, USER_TEXT)
    for word in ("石墨烯", "\ufeff石墨烯", "凱特琳", "Edu Trust认证", "new", "new york", "台中", "C++ 语言", "C"):
        assert segmenter.get_FREQ(word) == oracle.FREQ.get(word)
    assert segmenter.total == oracle.total and segmenter.user_word_tag_tab == oracle.user_word_tag_tab
    from_path = Jieba(user_dict=str(path), cache_dir=cache_dir)  # the constructor reads it the same way
    assert form == "text" or from_path.lcut(USER_TEXT) == oracle.lcut(USER_TEXT)


def test_a_user_dictionary_that_is_not_utf8_is_named(cache_dir, tmp_path):
    path = tmp_path / "gbk.txt"
    path.write_bytes("石墨烯 3\n".encode() + "新材料 2\n".encode("gbk"))
    with pytest.raises(ValueError, match=rf"{path}: a user dictionary must be UTF-8; line 2 is not"):
        Jieba(cache_dir=cache_dir).load_userdict(str(path))


def test_set_dictionary_and_initialize_load_another_file_and_drop_the_words_added(cache_dir, fresh, tmp_path):
    path = tmp_path / "small.txt"
    path.write_text(SMALL_DICTIONARY, encoding="utf-8")
    text = "北京大学生活在中国研究生命起源石墨烯"
    oracle, segmenter = fresh(), Jieba(cache_dir=cache_dir)
    for tokenizer in (oracle, segmenter):
        tokenizer.add_word("石墨烯", 7)
        tokenizer.set_dictionary(str(path))
    finalseg.Force_Split_Words.clear()  # a kvec Jieba's words to split go with the dictionary they were added to
    check_same(segmenter, oracle, text)
    assert segmenter.total == oracle.total == 127 and segmenter.get_FREQ("石墨烯") is None
    for tokenizer in (oracle, segmenter):
        tokenizer.add_word("生活", 9)
        tokenizer.initialize(str(path))  # the file already loaded: the words stay
    check_same(segmenter, oracle, text)
    assert segmenter.get_FREQ("生活") == oracle.FREQ.get("生活") == 9
    assert Jieba(cache_dir=cache_dir, **segmenter.get_config()).lcut(text) == oracle.lcut(text)  # by its path
    pickled = pickle.dumps(segmenter)
    path.rename(tmp_path / "moved.txt")  # a pickle carries the file's content
    copy = pickle.loads(pickled)
    assert copy.lcut(text) == oracle.lcut(text) and copy.total == oracle.total
    assert pickle.loads(pickle.dumps(copy)).lcut(text) == oracle.lcut(text)
    assert copy.native_state().dictionary == SMALL_DICTIONARY.encode()
    with pytest.raises(FileNotFoundError, match="jieba: file does not exist: .*missing.txt"):
        segmenter.set_dictionary(str(tmp_path / "missing.txt"))


def test_bad_arguments_are_named(cache_dir):
    segmenter = Jieba(cache_dir=cache_dir)
    with pytest.raises(TypeError, match="sentence must be a str, got int"):
        segmenter.lcut(3)
    with pytest.raises(ValueError, match="unicode_sentence must be a str, got bytes"):
        segmenter.tokenize(b"x")
    with pytest.raises(ValueError, match="mode must be 'default' or 'search', got 'full'"):
        segmenter.tokenize("x", mode="full")
    with pytest.raises(ValueError, match="word must not be empty"):
        segmenter.add_word("")
    with pytest.raises(ValueError, match="freq must be >= 0, got -3"):
        segmenter.add_word("石墨烯", -3)
    with pytest.raises(TypeError, match=r"freq must be an int \(or a str of one\), got 'many'"):
        segmenter.add_word("石墨烯", "many")
    with pytest.raises(TypeError, match=r"segment\[1\] must be a str, got int"):
        segmenter.suggest_freq(("石墨", 3))
    with pytest.raises(ValueError, match="keep the total within 2\\*\\*63"):
        segmenter.add_word("石墨烯", 2**63 - 1)
    assert segmenter.lcut("石墨烯".encode()) == segmenter.lcut("石墨烯")  # bytes are decoded, as jieba does


def test_words_added_while_other_threads_cut_are_seen_whole_or_not_at_all(cache_dir, fresh):
    long_text = "石墨烯和碳纳米管是新材料，" * 400  # past 4096 characters: cut without the GIL
    segmenter, oracle = Jieba(cache_dir=cache_dir), fresh()
    before = segmenter.lcut(long_text)
    words = ["石墨烯", "碳纳米管", "新材料"]
    states = [before]
    for word in words:
        oracle.add_word(word)
        states.append(oracle.lcut(long_text))
    seen, errors = [], []

    def cut():
        try:
            for _ in range(20):
                seen.append(segmenter.lcut(long_text))
                seen.extend(segmenter.segment([long_text] * 3, n_jobs=2))
        except Exception as error:  # noqa: BLE001 (reported below)
            errors.append(error)

    threads = [threading.Thread(target=cut) for _ in range(2)]
    for thread in threads:
        thread.start()
    for word in words:
        segmenter.add_word(word)
    for thread in threads:
        thread.join()
    assert not errors
    assert segmenter.lcut(long_text) == states[-1]
    assert len(seen) == 160 and all(words in states for words in seen)  # each cut saw a whole dictionary


JIEBA_SCRIPT = """\
import sys
import jieba

print("/".join(jieba.cut("我来到北京清华大学", cut_all=True)))
print("/".join(jieba.cut("他来到了网易杭研大厦")))
print(", ".join(jieba.cut_for_search("小明硕士毕业于中国科学院计算所，后在日本京都大学深造")))
text = "李小福是创新办主任也是云计算方面的专家; 什么是八一双鹿 Edu Trust认证 2000 石墨烯 台中"
print(jieba.lcut(text))
jieba.load_userdict(sys.argv[1])
jieba.add_word("石墨烯")
jieba.add_word("凱特琳")
jieba.del_word("自定义词")
print(jieba.lcut(text), jieba.lcut(text, HMM=False), jieba.lcut(text, cut_all=True))
print(jieba.suggest_freq(("中", "将"), True), jieba.suggest_freq("台中", True), jieba.get_FREQ("台中"))
print(jieba.lcut("「台中」正确应该不会被切开。如果放到post中将出错。"))
for tk in jieba.tokenize("永和服装饰品有限公司"):
    print("word %s\\t\\t start: %d \\t\\t end:%d" % tk)
for tk in jieba.tokenize("永和服装饰品有限公司", mode="search"):
    print(tk)
tokenizer = jieba.Tokenizer()
print(tokenizer.lcut("石墨烯"), jieba.user_word_tag_tab)
"""


SANITIZER_VARIABLES = ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS")


def test_a_jieba_script_with_only_its_import_changed_prints_jiebas_output(tmp_path):
    path = tmp_path / "userdict.txt"
    path.write_bytes(USER_DICT.encode("utf-8"))
    outputs = []
    for import_line in ("import jieba", "import kvec.jieba as jieba"):
        script = JIEBA_SCRIPT.replace("import jieba", import_line, 1)
        env = {"TMPDIR": str(tmp_path), "KVEC_CACHE_DIR": str(tmp_path / "kvec"), "PATH": "/usr/bin:/bin"}
        env["PYTHONPATH"] = ":".join(sys.path)
        # under make sanitize the extensions need the sanitizer runtimes loaded first, in the child too
        env.update({key: os.environ[key] for key in SANITIZER_VARIABLES if key in os.environ})
        run = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, env=env)
        assert run.returncode == 0, run.stderr
        outputs.append(run.stdout)
    assert outputs[0] == outputs[1]
    assert "石墨烯" in outputs[1] and "word 永和\t\t start: 0" in outputs[1]


# dictionary calls whose effect must travel: a word added whole, one with a space and a tag, one deleted
# (split), a word tuned to be cut (count 0: split), and a user dictionary
EDITS = [
    ("add_word", "石墨烯", None, None),
    ("add_word", "Edu Trust认证", 2000, "nz"),
    ("del_word", "北京"),
    ("suggest_freq_parts", "中将", 1),
    ("load_userdict", [("凱特琳", None, " nz"), ("台中", 0, ""), ("新材料", 40, "")], True),
]
TRAVEL_TEXTS = [
    "石墨烯是北京的新材料",
    "Edu Trust认证 2000年",
    "如果放到post中将出错。",
    "凱特琳在台中",
    "北京大学生在北京",
]


def edited(segmenter, base):
    """A Jieba with EDITS applied, and jieba's words of TRAVEL_TEXTS after the same calls on a copy of
    the jieba tokenizer ``base`` (whitespace left out)."""
    with own_split_words():
        oracle = jieba_copy(base)
        for op in EDITS:
            assert apply(segmenter, op) == apply(oracle, op)
        expected = [without_whitespace(oracle.lcut(text)) for text in TRAVEL_TEXTS]
    assert [segmenter(text) for text in TRAVEL_TEXTS] == expected != [jieba_copy(base).lcut(t) for t in TRAVEL_TEXTS]
    return segmenter, expected


def test_the_words_travel_in_kvec_json_with_keras_tokenizers_and_pipelines(cache_dir, oracle, tmp_path):
    segmenter, expected = edited(Jieba(cache_dir=cache_dir), oracle)
    copy = pickle.loads(pickle.dumps(segmenter))
    assert [copy(text) for text in TRAVEL_TEXTS] == expected and copy.total == segmenter.total
    filters = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n,。，！'
    tok = kvec.Tokenizer(analyzer=segmenter, filters=filters)
    tok.fit_on_texts(TRAVEL_TEXTS)
    by_hand = kvec.Tokenizer(filters=filters)  # jieba's words joined by spaces, as the Keras articles do it
    by_hand.fit_on_texts([" ".join(words) for words in expected])
    assert tok.word_index == by_hand.word_index
    loaded = kvec.tokenizer_from_json(tok.to_json())
    assert loaded.texts_to_sequences(TRAVEL_TEXTS) == by_hand.texts_to_sequences([" ".join(w) for w in expected])
    assert loaded.analyzer.get_FREQ("北京") == 0 and loaded.analyzer.total == segmenter.total
    pipeline = Tokenizer(None, pre_tokenizer=segmenter, decoder=decoders.WordPiece())
    pipeline.train_from_iterator(TRAVEL_TEXTS * 3, WordPieceTrainer(vocab_size=80))
    pipeline.save(tmp_path / "jieba.json")
    restored = Tokenizer.from_file(tmp_path / "jieba.json")
    assert [restored.pre_tokenizer.split_words(text) for text in TRAVEL_TEXTS] == expected
    assert [e.ids for e in restored.encode_batch(TRAVEL_TEXTS)] == [e.ids for e in pipeline.encode_batch(TRAVEL_TEXTS)]


def test_threads_using_a_jieba_first_all_see_every_word_of_its_user_dict(cache_dir, fresh):
    words = [a + b + c for a in HAN[:10] for b in HAN[10:20] for c in "烯烷"]
    text = "".join(words[::3])
    oracle = fresh()
    for word in words:
        oracle.add_word(word)
    segmenter, start, seen = Jieba(user_dict=words, cache_dir=cache_dir), threading.Barrier(4), []

    def cut():
        start.wait()
        seen.append(segmenter.lcut(text))

    threads = [threading.Thread(target=cut) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [oracle.lcut(text)] * 4 and segmenter.total == oracle.total
