"""jieba segmentation: jieba's own words, private user dictionaries, the cache folder, pipelines."""

import ast
import pickle

import jieba
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvec import decoders
from kvec.chinese import Jieba
from kvec.models import WordPiece
from kvec.pipeline import Pipeline, Tokenizer
from kvec.trainers import UnigramTrainer, WordPieceTrainer
from tests.support import load_demo
from tests.test_demo import _section

TEXT = st.lists(
    st.sampled_from(
        [
            "我爱",
            "北京",
            "天安门",
            "自然语言处理",
            "，",
            "。",
            " ",
            "hello",
            "2024",
            "年",
            "机器学习",
            "很",
            "有趣",
            "！",
            "Ω",
        ]
    ),
    max_size=10,
).map("".join)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("jieba-cache"))


@pytest.fixture(scope="module")
def segmenters(cache_dir):
    # jieba loads its dictionary once per segmenter (about a second): these serve every example
    return {
        (mode, hmm): Jieba(mode=mode, hmm=hmm, cache_dir=cache_dir)
        for mode in ("accurate", "search", "full")
        for hmm in (True, False)
    }


@given(text=TEXT)
def test_words_and_offsets_are_jiebas(segmenters, text):
    for hmm in (True, False):
        expected = {
            "accurate": jieba.lcut(text, HMM=hmm),
            "search": jieba.lcut_for_search(text, HMM=hmm),
            "full": jieba.lcut(text, cut_all=True, HMM=hmm),
        }
        for mode, words in expected.items():
            pieces = segmenters[mode, hmm].pre_tokenize(text)
            assert [p.text for p in pieces] == [w for w in words if w and not w.isspace()]
            for piece in pieces:
                start, end = piece.offsets(0, len(piece.text))
                assert text[start:end] == piece.text


def test_user_words_stay_private_and_whole(cache_dir, tmp_path):
    words = tmp_path / "user.txt"
    words.write_text("机器 学习 5 n\n深度学习框架 10\nNew York\n", encoding="utf-8")
    for user_dict in (str(words), ["机器 学习", ("深度学习框架", 10), "New York"]):
        segmenter = Jieba(user_dict=user_dict, cache_dir=cache_dir)
        assert segmenter("我在New York研究机器 学习和深度学习框架") == [
            "我",
            "在",
            "New York",
            "研究",
            "机器 学习",
            "和",
            "深度学习框架",
        ]
    assert "深度学习框架" not in jieba.lcut("深度学习框架")  # jieba's global tokenizer never saw them


def test_cache_is_written_in_the_cache_dir_only(tmp_path):
    Jieba(cache_dir=str(tmp_path / "cache"))("我爱北京")
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["jieba.cache"]


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
    from kvec import Tokenizer, pad_sequences

    demo = load_demo()
    lines = _section("chinese")

    def printed(label):
        i = next(k for k, line in enumerate(lines) if line.startswith(label))
        text = lines[i + 1].strip()
        return ast.literal_eval(
            text.removeprefix("OrderedDict(").removesuffix(")") if text.startswith("OrderedDict") else text
        )

    tokenizer = Tokenizer(
        num_words=64, filters='!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n,。', analyzer=Jieba(cache_dir=cache_dir)
    )
    tokenizer.fit_on_texts(demo.CHINESE)
    assert tokenizer.document_count == 10
    assert tokenizer.word_index == printed("词语到索引的映射")
    assert tokenizer.index_word == printed("索引到词语的映射")
    assert list(tokenizer.word_counts.items()) == printed("每个词语出现的总频次")
    tokens = tokenizer.texts_to_sequences(demo.CHINESE)
    assert tokens == printed("tokens:")
    padded = pad_sequences(tokens, maxlen=32, padding="post", truncating="pre")
    assert padded.tolist() == [row + [0] * (32 - len(row)) for row in printed("tokens:")]


def test_default_filters_drop_chinese_punctuation_under_jieba(cache_dir):
    from kvec import Tokenizer

    tokenizer = Tokenizer(analyzer=Jieba(cache_dir=cache_dir))
    tokenizer.fit_on_texts(["我爱北京，天安门！《自然》“语言”……", "Hello, 北京 2024年"])
    assert list(tokenizer.word_index) == ["北京", "我", "爱", "天安门", "自然", "语言", "hello", "2024", "年"]


def test_parallel_segmentation_equals_serial(segmenters):
    texts = [f"我爱北京天安门{i}，自然语言处理 hello {i % 7}" for i in range(1200)]
    segmenter = segmenters["accurate", True]
    serial = [segmenter(t) for t in texts]
    assert segmenter.segment(texts, n_jobs=2, chunk_size=100) == serial
    assert segmenter.segment(texts) == serial
    with pytest.raises(ValueError, match="n_jobs must be a positive int or -1, got 0"):
        segmenter.segment(texts, n_jobs=0)
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str, got int"):
        segmenter.segment(["a", 1])


def test_opencc_normalizer_converts_traditional_to_simplified_with_offsets(cache_dir):
    opencc = pytest.importorskip("opencc")
    from kvec.normalizers import OpenCC

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
