"""sentencepiece-style pipelines: sentencepiece's ids, lossless decoding, Chinese without a segmenter."""

import functools
import io

from hypothesis import given
from hypothesis import strategies as st

from kvec.models import Unigram
from kvec.presets import sentencepiece_style
from kvec.trainers import UnigramTrainer
from tests.support import Oracle

spm = Oracle("sentencepiece")

SYMBOLS = ["[SEP]", "kvec"]
WORDS = ["low", "lower", "newest", "widest", "中文字", "é", "abab", "2024", "x1", "show"]
CORPUS = [
    " ".join(WORDS[(i * 3 + k) % len(WORDS)] for k in range(1 + i % 5)) + (" [SEP] kvec" if i % 3 == 0 else "")
    for i in range(120)
]


def train_sentencepiece(**options):
    proto = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(CORPUS),
        model_writer=proto,
        model_type="unigram",
        vocab_size=320,
        byte_fallback=True,
        split_digits=True,
        user_defined_symbols=SYMBOLS,
        normalization_rule_name="identity",
        remove_extra_whitespaces=False,
        hard_vocab_limit=False,
        num_threads=1,
        minloglevel=2,
        **options,
    )
    return spm.SentencePieceProcessor(model_proto=proto.getvalue())


@functools.cache
def sentencepiece():
    """The oracle model, trained once (the tests that need it skip without sentencepiece)."""
    return train_sentencepiece()


TEXT = st.lists(st.sampled_from(WORDS + SYMBOLS + [" ", "  ", "7", "ß", "😀", "Ω", "lowkvec", "\t"]), max_size=8).map(
    "".join
)


def kvec_from(sp):
    vocab = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]
    return sentencepiece_style(
        Unigram(vocab, unk_id=sp.unk_id(), byte_fallback=True, viterbi="sentencepiece"),
        split_digits=True,
        user_defined_symbols=SYMBOLS,
    )


@given(text=TEXT)
def test_ids_equal_sentencepiece_with_byte_fallback_digits_and_symbols(text):
    ours = kvec_from(sentencepiece())
    assert ours.encode(text).ids == sentencepiece().encode(text)
    assert ours.decode(ours.encode(text).ids) == sentencepiece().decode(sentencepiece().encode(text))


TRAINED = sentencepiece_style(split_digits=True, user_defined_symbols=SYMBOLS)
TRAINED.train_from_iterator(CORPUS, UnigramTrainer(vocab_size=280, byte_fallback=True))


@given(
    text=st.text(max_size=40)
    | st.lists(st.sampled_from(["▁", "\ufdd0", "\ufdd1", " ", "a", "low"]), max_size=10).map("".join)
)
def test_decoding_gives_back_any_text(text):
    # the space mark ▁ and the escape character included
    assert TRAINED.decode(TRAINED.encode(text).ids) == text


def test_user_defined_symbols_stay_whole_and_digits_split():
    tokens = TRAINED.encode("x [SEP]kvec 2024").tokens
    assert "[SEP]" in tokens and "kvec" in tokens
    assert tokens[-4:] == ["2", "0", "2", "4"]


def test_chinese_pieces_are_learned_without_a_segmenter():
    words = ["我们", "喜欢", "自然", "语言", "处理", "学习", "中文", "文本", "很", "有趣"]
    lines = ["".join(words[(i * 7 + k * 3) % len(words)] for k in range(2 + i % 4)) for i in range(200)]
    tokenizer = sentencepiece_style()
    tokenizer.train_from_iterator(lines, UnigramTrainer(vocab_size=40))
    pieces = [p for p in tokenizer.get_vocab() if len(p.lstrip("▁")) >= 2]
    assert any("语言" in p or "处理" in p for p in pieces)  # frequent words become pieces
    assert tokenizer.decode(tokenizer.encode("我们喜欢语言").ids) == "我们喜欢语言"


def test_bpe_reads_text_the_same_way():
    from kvec.trainers import BpeTrainer

    tokenizer = sentencepiece_style(split_digits=True)
    tokenizer.train_from_iterator(CORPUS, BpeTrainer(vocab_size=380, byte_fallback=True))
    tokens = tokenizer.encode("lowest  2024 中文字").tokens
    assert (
        tokens[0].startswith("▁low")
        and "2" in tokens
        and all(not (set(t) & set("0123456789")) or len(t) == 1 for t in tokens)
    )
    for line in CORPUS[:10] + ["  low  newest ", "Zürich ▁ 😀 \ufdd0"]:  # unseen characters take bytes
        assert tokenizer.decode(tokenizer.encode(line).ids) == line


def test_equal_scores_are_broken_as_sentencepiece_breaks_them():
    # runs of "=" split into pieces whose float32 scores tie; the whole-text lattice breaks the ties as
    # sentencepiece does, where a lattice per word (the words training counts) would not
    proto = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(["=" * k + " a" for k in range(1, 80)]),
        model_writer=proto,
        model_type="unigram",
        vocab_size=40,
        normalization_rule_name="identity",
        hard_vocab_limit=False,
        num_threads=1,
        minloglevel=2,
    )
    sp = spm.SentencePieceProcessor(model_proto=proto.getvalue())
    ours = sentencepiece_style(
        Unigram(
            [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())],
            unk_id=0,
            viterbi="sentencepiece",
        )
    )
    texts = [". " + "=" * k for k in range(30, 60)]
    assert [ours.encode(text).ids for text in texts] == sp.encode(texts)
    assert [e.ids for e in ours.encode_batch(texts)] == sp.encode(texts)
    words = ours.training_words()
    per_word = [[i for word in words.split_words(text) for i in ours.model.tokenize_ids(word)] for text in texts]
    assert per_word != sp.encode(texts)  # the case holds ties that a lattice per word breaks otherwise
