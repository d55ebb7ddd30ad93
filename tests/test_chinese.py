"""jieba segmentation: jieba's own words, private user dictionaries, the cache folder, pipelines."""

import ast
import os
import pickle
import subprocess
import sys

import jieba
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    tokenizer = jieba.Tokenizer()
    tokenizer.FREQ, tokenizer.total, tokenizer.initialized = dict(oracle.FREQ), oracle.total, True
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
    from jieba import finalseg

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
