"""WordPiece: the design articles' likelihood-scored vocabularies, and Hugging Face parity of encoding."""

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvec import decoders
from kvec.models import WordPiece
from kvec.trainers import WordPieceTrainer
from tests import support as seeds
from tests.support import Oracle

hf_decoders = Oracle("tokenizers.decoders")
hf_models = Oracle("tokenizers.models")

# parity cases include vocab sizes below the alphabet, which the trainers keep whole and warn about
pytestmark = pytest.mark.filterwarnings("ignore:vocab_size .* is smaller than:UserWarning")


def test_seed003_likelihood_vocabulary():
    counts = Counter(word for sentence in seeds.SEED003_SENTENCES for word in sentence.split())
    model = WordPieceTrainer(vocab_size=50, scoring="likelihood").train_from_counts(counts)
    assert list(model.vocab) == seeds.SEED003_WORDPIECE_VOCAB
    assert list(model.vocab.values()) == list(range(50))


def test_seed000_likelihood_vocabulary():
    specials = seeds.SEED000_WORDPIECE_SPECIALS
    trainer = WordPieceTrainer(vocab_size=70, scoring="likelihood", special_tokens=specials)
    model = trainer.train_from_counts(seeds.SEED000_WORDPIECE_WORD_FREQS)
    assert list(model.vocab)[:5] == specials
    printed = sorted(t for t in model.vocab if t not in specials) + sorted(specials)
    assert printed == seeds.SEED000_WORDPIECE_VOCAB_PRINTED


def test_seed002_likelihood_prefers_rare_parts():
    # The article's point: ("##g", "##s") outranks the more frequent ("##u", "##g").
    trainer = WordPieceTrainer(vocab_size=8, scoring="likelihood")
    model = trainer.train_from_counts(seeds.SEED002_WORD_COUNTS)
    assert list(model.vocab)[-1] == "##gs"


VOCAB_WORDS = st.lists(st.text(alphabet="abcé", min_size=1, max_size=4), min_size=1, max_size=15)


@given(
    pieces=VOCAB_WORDS,
    words=st.lists(st.text(alphabet="abcéd", max_size=12), max_size=10),
    limit=st.sampled_from([3, 5, 100]),
)
def test_model_ids_equal_hf(pieces, words, limit):
    tokens = ["[UNK]"] + [p if i % 2 else "##" + p for i, p in enumerate(pieces)] + list("abc")
    vocab = {t: i for i, t in enumerate(dict.fromkeys(tokens))}
    ours = WordPiece(vocab, max_input_chars_per_word=limit)
    theirs = hf_models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=limit)
    for word in words:
        expected = [(t.id, t.offsets) for t in theirs.tokenize(word)]  # the library's model works in bytes
        in_bytes = [(i, (len(word[:s].encode()), len(word[:e].encode()))) for i, s, e in ours.tokenize_spans(word)]
        assert in_bytes == expected


@given(
    tokens=st.lists(
        st.sampled_from(["un", "##aff", "##able", ".", "?", "'s", "'", "t", "do", "not", "##", "n't", "a b"]),
        max_size=10,
    )
)
def test_decoder_equals_hf(tokens):
    assert decoders.WordPiece().decode(tokens) == hf_decoders.WordPiece().decode(tokens)
    assert decoders.WordPiece(cleanup=False).decode(tokens) == hf_decoders.WordPiece(cleanup=False).decode(tokens)


@given(
    word_counts=st.dictionaries(
        st.text(alphabet="abcd中", min_size=1, max_size=8), st.integers(1, 9), min_size=1, max_size=12
    ),
    vocab_size=st.integers(1, 60),
    scoring=st.sampled_from(["frequency", "likelihood"]),
)
def test_trained_vocabulary_covers_its_training_words(word_counts, vocab_size, scoring):
    trainer = WordPieceTrainer(vocab_size=vocab_size, scoring=scoring, special_tokens=["[UNK]"])
    model = trainer.train_from_counts(word_counts)
    # the alphabet always fits, so every training word is spelled without the unknown token
    for word in word_counts:
        pieces = model.tokenize(word)
        assert "[UNK]" not in pieces
        assert "".join(p.removeprefix("##") for p in pieces) == word


def test_errors():
    with pytest.raises(ValueError, match="scoring must be one of"):
        WordPieceTrainer(scoring="mutual")
    with pytest.raises(ValueError, match="unk_token '\\[UNK\\]' is not in the vocabulary"):
        WordPiece({"a": 0}).tokenize("b")


@given(text=st.text(alphabet="abcé d,.!\n", max_size=40))
def test_pipeline_equals_hf(text):
    HFTokenizer = Oracle("tokenizers", "Tokenizer")
    hf_pre_tokenizers = Oracle("tokenizers.pre_tokenizers")

    from kvec.pipeline import Tokenizer
    from kvec.pretokenizers import Whitespace

    vocab = {
        t: i
        for i, t in enumerate(
            ["[UNK]", "a", "b", "c", "é", "d", ",", ".", "!", "##a", "##b", "##c", "ab", "##bc", "cé", "##é"]
        )
    }
    theirs = HFTokenizer(hf_models.WordPiece(vocab, unk_token="[UNK]"))
    theirs.pre_tokenizer = hf_pre_tokenizers.Whitespace()
    theirs.decoder = hf_decoders.WordPiece()
    ours = Tokenizer(WordPiece(vocab), pre_tokenizer=Whitespace(), decoder=decoders.WordPiece())
    expected, got = theirs.encode(text), ours.encode(text)
    assert got.ids == expected.ids and got.offsets == expected.offsets and got.tokens == expected.tokens
    assert ours.decode(got.ids) == theirs.decode(expected.ids, skip_special_tokens=False)
