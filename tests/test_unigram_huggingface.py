"""UnigramTrainer(algorithm="huggingface"), the default, against Hugging Face's UnigramTrainer: the same
tokens, and scores equal to float rounding (the expected counts are summed in another order). Where
Hugging Face's order comes from a hash set (the small penalties of characters the model lost, and the
order of equal scores), its own runs differ, so those are compared as multisets."""

import json
import random
from collections import Counter

import pytest

from kvec import models, pretokenizers, trainers
from kvec.pipeline import Tokenizer
from kvec.trainers import UnigramTrainer

hf = pytest.importorskip("tokenizers")

SPECIALS = ["[PAD]", "[SEP]", "[CLS]"]


def random_corpora():
    rng = random.Random(0)
    syllables = [
        "lo",
        "w",
        "er",
        "new",
        "est",
        "wi",
        "de",
        "ta",
        "ka",
        "na",
        "ab",
        "ra",
        "c",
        "d",
        "x",
        "yz",
        "中",
        "文",
    ]
    for _ in range(8):
        lines = [
            " ".join("".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 8)))
            for _ in range(rng.randint(3, 40))
        ]
        yield lines, rng.choice([20, 30, 50, 80])


ZEN = [
    "Beautiful is better than ugly.\n",
    "Explicit is better than implicit.\n",
    "Simple is better than complex.\n",
    "Complex is better than complicated.\n",
    "Flat is better than nested.\n",
    "Sparse is better than dense.\n",
    "Readability counts.\n",
    "Special cases aren't special enough to break the rules.\n",
    "Although practicality beats purity.\n",
    "Errors should never pass silently.\n",
]
CORPORA = [(ZEN, 100), (ZEN, 8000), (ZEN * 3 + ["low lower lowest\n"] * 7, 60), *random_corpora()]


def assert_same_vocab(theirs, ours, specials):
    assert [t for t, _ in ours[: len(specials)]] == specials
    their_scores, our_scores = dict(theirs), dict(ours)
    assert len(ours) == len(theirs) and set(our_scores) == set(their_scores)
    assert [s for _, s in ours[len(specials) :]] == sorted((s for _, s in ours[len(specials) :]), reverse=True)
    differ = [t for t in their_scores if abs(their_scores[t] - our_scores[t]) > 1e-9]
    assert all(len(t) == 1 for t in differ)  # characters the model lost: their penalties in hash order
    assert sorted(our_scores[t] for t in differ) == pytest.approx(sorted(their_scores[t] for t in differ), abs=1e-9)


@pytest.mark.parametrize(("lines", "vocab_size"), CORPORA)
@pytest.mark.parametrize("pre_tokenized", [False, True])
def test_the_vocabulary_is_hugging_faces(lines, vocab_size, pre_tokenized):
    theirs = hf.Tokenizer(hf.models.Unigram())
    if pre_tokenized:
        theirs.pre_tokenizer = hf.pre_tokenizers.Whitespace()
    their_trainer = hf.trainers.UnigramTrainer(
        show_progress=False, special_tokens=SPECIALS, unk_token="[UNK]", vocab_size=vocab_size
    )
    theirs.train_from_iterator(lines, trainer=their_trainer)
    their_vocab = [tuple(item) for item in json.loads(theirs.to_str())["model"]["vocab"]]
    ours = Tokenizer(None, pre_tokenizer=pretokenizers.Whitespace() if pre_tokenized else None)
    trainer = UnigramTrainer(show_progress=False, special_tokens=SPECIALS, unk_token="[UNK]", vocab_size=vocab_size)
    ours.train_from_iterator(lines, trainer)
    our_vocab = [tuple(item) for item in ours.model.get_config()["vocab"]]
    assert_same_vocab(their_vocab, our_vocab, ["[UNK]", *SPECIALS])
    texts = ["Simple is better", "lower readability", "".join(lines[:2])]
    for text in texts:
        assert ours.encode(text).tokens == theirs.encode(text).tokens


def test_train_from_counts_matches_hugging_faces_worked_example():
    counts = {"▁low": 8, "▁lower": 5, "▁lowest": 4, "▁newer": 3}
    theirs = hf.Tokenizer(hf.models.Unigram())
    theirs.train_from_iterator(
        [word for word, n in counts.items() for _ in range(n)],
        trainer=hf.trainers.UnigramTrainer(
            vocab_size=12, special_tokens=["<unk>"], unk_token="<unk>", show_progress=False
        ),
    )
    model = UnigramTrainer(vocab_size=12, special_tokens=["<unk>"], show_progress=False).train_from_counts(counts)
    assert set(model.get_vocab()) == set(theirs.get_vocab())
    assert model.tokenize("▁lowest") == theirs.encode("▁lowest").tokens == ["▁lowe", "s", "t"]


def test_files_keep_their_line_endings_as_in_hugging_face(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_bytes("".join(ZEN).encode() + b"last line without an ending")
    for make_ours, make_theirs, trainer, their_trainer in (
        (
            lambda: Tokenizer(models.BPE()),
            lambda: hf.Tokenizer(hf.models.BPE()),
            trainers.BpeTrainer(vocab_size=120, show_progress=False),
            hf.trainers.BpeTrainer(vocab_size=120, show_progress=False),
        ),
        (
            lambda: Tokenizer(models.WordLevel()),
            lambda: hf.Tokenizer(hf.models.WordLevel()),
            trainers.WordLevelTrainer(show_progress=False),
            hf.trainers.WordLevelTrainer(show_progress=False),
        ),
    ):
        ours, theirs = make_ours(), make_theirs()
        ours.train([path], trainer)
        theirs.train([str(path)], their_trainer)
        assert ours.get_vocab() == theirs.get_vocab()
        assert any("\n" in token for token in ours.get_vocab())


def test_sentencepiece_options_need_the_sentencepiece_algorithm():
    with pytest.raises(ValueError, match="character_coverage is an option of algorithm='sentencepiece'"):
        UnigramTrainer(character_coverage=0.9)
    with pytest.raises(ValueError, match="algorithm must be one of"):
        UnigramTrainer(algorithm="spm")
    assert UnigramTrainer(character_coverage=0.9, algorithm="sentencepiece").algorithm == "sentencepiece"


def test_the_upstream_special_tokens_example(tmp_path):
    path = tmp_path / "train.txt"
    path.write_text("\n" + "".join(f"[CLS] {line.rstrip()} [SEP]\n" for line in ZEN))
    counts = Counter(open(path, newline="").read().splitlines(keepends=True))
    assert counts["\n"] == 1
    for vocab_size in (100, 8000):
        theirs = hf.Tokenizer(hf.models.Unigram())
        theirs.train(
            [str(path)],
            trainer=hf.trainers.UnigramTrainer(
                show_progress=False, special_tokens=SPECIALS, unk_token="[UNK]", vocab_size=vocab_size
            ),
        )
        ours = Tokenizer(models.Unigram())
        ours.train(
            [path],
            UnigramTrainer(show_progress=False, special_tokens=SPECIALS, unk_token="[UNK]", vocab_size=vocab_size),
        )
        assert set(ours.get_vocab()) == set(theirs.get_vocab())
        text = "[CLS] This is a test [SEP]"
        assert ours.encode(text).tokens == theirs.encode(text).tokens
