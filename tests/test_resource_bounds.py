"""Hostile sizes: a word of a million characters and hundreds of thousands of distinct characters train
and encode, and long words are capped where the models promise it.

Nothing is timed. A guard alarm only stops a run that would hang (the merge loop once rescanned a whole
word for every merge, so a million-character word never finished); ``bench/limits.py`` measures time
and memory at full size.
"""

import random
import signal
from contextlib import contextmanager

import pytest

import kvec
from kvec.models import WordPiece
from kvec.pipeline import Tokenizer
from kvec.presets import sentencepiece_style
from kvec.pretokenizers import WhitespaceSplit
from kvec.trainers import BpeTrainer, UnigramTrainer, WordPieceTrainer

GUARD_SECONDS = 240


@contextmanager
def hang_guard(seconds=GUARD_SECONDS):
    def give_up(signum, frame):
        raise AssertionError(f"still running after {seconds} s: the work is not linear in its input")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def random_word(length, letters="abcdefghijklmnopqrstuvwxyz", seed=0):
    return "".join(random.Random(seed).choices(letters, k=length))


@pytest.fixture(scope="module")
def million():
    return random_word(1_000_000)


def test_a_million_character_word_trains_and_encodes_with_bpe(million):
    tok = Tokenizer(None, pre_tokenizer=WhitespaceSplit())
    with hang_guard():
        tok.train_from_iterator([million, "the cat sat"], BpeTrainer(vocab_size=500))
        ids = tok.encode_batch([million])[0].ids
    assert tok.get_vocab_size() == 500
    assert "".join(tok.id_to_token(i) for i in ids) == million
    # the long-word path (no spans, never cached) equals the spans path on a shorter word
    word = million[:50_000]
    assert tok.model.tokenize_ids(word) == [i for i, _, _ in tok.model.tokenize_spans(word)]


def test_a_million_character_word_trains_wordpiece_and_is_one_unknown_token(million):
    tok = Tokenizer(None, pre_tokenizer=WhitespaceSplit())
    with hang_guard():
        tok.train_from_iterator([million], WordPieceTrainer(vocab_size=400, special_tokens=["[UNK]"]))
        encoding = tok.encode(million)
    assert encoding.tokens == ["[UNK]"]
    assert encoding.offsets == [(0, len(million))]


def test_max_input_chars_per_word_caps_wordpiece():
    vocab = {"[UNK]": 0, "a": 1, "##a": 2}
    capped = WordPiece(vocab, max_input_chars_per_word=150)
    assert capped.tokenize_ids("a" * 150) == [1] + [2] * 149
    assert capped.tokenize_ids("a" * 151) == [0]
    assert WordPiece(vocab).tokenize_ids("a" * 101) == [0]


def test_a_long_word_trains_unigram_with_pieces_capped_at_max_piece_length():
    word = random_word(200_000, letters="abcdefgh", seed=1)
    tok = Tokenizer(None, pre_tokenizer=WhitespaceSplit())
    with hang_guard():
        tok.train_from_iterator([word], UnigramTrainer(vocab_size=300, max_piece_length=5))
        ids = tok.encode(word).ids
    assert max(len(token) for token in tok.get_vocab()) == 5
    assert "".join(tok.id_to_token(i) for i in ids) == word


def test_bpe_tokens_stay_within_max_token_length(million):
    with hang_guard():
        model = BpeTrainer(vocab_size=800, max_token_length=2).train_from_counts({million[:200_000]: 1})
        unbounded = BpeTrainer(vocab_size=800).train_from_counts({million[:200_000]: 1})
    assert max(len(token) for token in model.vocab) <= 2
    assert max(len(token) for token in unbounded.vocab) > 2


def test_the_keras_tokenizer_takes_a_million_character_word(million):
    tok = kvec.Tokenizer(oov_token="<unk>")
    with hang_guard():
        tok.fit_on_texts([million, "a b"])
    assert tok.word_index[million] == 2
    assert tok.texts_to_sequences([million + " a"]) == [[2, 3]]


def distinct_characters(n):
    chars = []
    code = 0xA1
    while len(chars) < n:
        c = chr(code)
        code += 1
        if not ("\ud800" <= c <= "\udfff" or c.isspace()):
            chars.append(c)
    return chars


def test_three_hundred_thousand_distinct_characters_train_and_encode():
    chars = distinct_characters(300_000)
    texts = [
        " ".join("".join(chars[i : i + 10]) for i in range(start, start + 1000, 10))
        for start in range(0, len(chars), 1000)
    ]
    with hang_guard():
        bpe = Tokenizer(None, pre_tokenizer=WhitespaceSplit())
        bpe.train_from_iterator(texts, BpeTrainer(vocab_size=1000, limit_alphabet=500, byte_fallback=True))
        sp = sentencepiece_style()
        # "▁" starts each of the 30,000 words; cover it and 1000 of the characters once each
        coverage = (30_000 + 1000) / (30_000 + len(chars))
        sp.train_from_iterator(
            texts,
            UnigramTrainer(vocab_size=1300, byte_fallback=True, character_coverage=coverage, algorithm="sentencepiece"),
        )
        bpe_ids = bpe.encode_batch(texts)
        sp_ids = [encoding.ids for encoding in sp.encode_batch(texts)]
    # 256 byte tokens + at most 500 characters + merges
    assert bpe.get_vocab_size() == 1000
    assert sum(len(token) == 1 for token in bpe.get_vocab()) == 500
    assert all(0 <= i < 1000 for encoding in bpe_ids for i in encoding.ids)
    # every character outside the 1000 covered ones is spelled in bytes, and decoding gives it back
    assert sp.get_vocab_size() == 1300
    assert [sp.decode(ids) for ids in sp_ids] == texts


def test_a_filter_of_two_hundred_thousand_characters_splits_as_the_legacy_tokenizer():
    LegacyTokenizer = pytest.importorskip("keras_preprocessing.text").Tokenizer

    chars = distinct_characters(200_000)
    filters = "".join(chars[::-1]) + "".join(chars[:1000])  # unsorted, with repeats
    texts = ["".join(chars[i : i + 7]) + "abc" + chars[i + 3] + "de" for i in range(0, 199_000, 997)]
    ours, legacy = kvec.Tokenizer(filters=filters), LegacyTokenizer(filters=filters)
    with hang_guard():
        ours.fit_on_texts(texts)
    legacy.fit_on_texts(texts)
    assert ours.word_index == legacy.word_index
    assert ours.texts_to_sequences(texts) == legacy.texts_to_sequences(texts)
