"""The trainers' options against Hugging Face ``tokenizers`` 0.23: defaults, special tokens as
AddedToken, settable attributes, the pickled state (HF's JSON bytes), ``end_of_word_suffix`` in
WordPiece training, Unigram's ``initial_alphabet`` and special tokens, and the refusal to train
another kind of model."""

import copy
import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec import AddedToken
from kvec.models import BPE, Unigram, WordLevel, WordPiece
from kvec.pipeline import Pipeline
from kvec.pretokenizers import Metaspace, Whitespace
from kvec.trainers import BpeTrainer, UnigramTrainer, WordLevelTrainer, WordPieceTrainer
from tests.support import Oracle

hf = Oracle("tokenizers")

KINDS = ["BpeTrainer", "WordPieceTrainer", "WordLevelTrainer", "UnigramTrainer"]
OURS = {
    "BpeTrainer": BpeTrainer,
    "WordPieceTrainer": WordPieceTrainer,
    "WordLevelTrainer": WordLevelTrainer,
    "UnigramTrainer": UnigramTrainer,
}
CORPUS = ["low lower lowest", "newer newest wider", "a b c ab abc", "é è é 中文 中"] * 3

CONTENTS = st.sampled_from(["[UNK]", "<s>", "</s>", "[PAD]", "é", "中", "a b"])
FLAGS = st.fixed_dictionaries(
    {},
    optional={
        "single_word": st.booleans(),
        "lstrip": st.booleans(),
        "rstrip": st.booleans(),
        "normalized": st.booleans(),
        "special": st.booleans(),
    },
)
SPECIALS = st.lists(st.one_of(CONTENTS, st.tuples(CONTENTS, FLAGS)), max_size=4)


def both(specials):
    """The same special tokens for kvec and for Hugging Face (a (content, flags) tuple is an AddedToken)."""
    ours = [AddedToken(t[0], **t[1]) if isinstance(t, tuple) else t for t in specials]
    theirs = [hf.AddedToken(t[0], **t[1]) if isinstance(t, tuple) else t for t in specials]
    return ours, theirs


def fields(token):
    return (token.content, token.single_word, token.lstrip, token.rstrip, token.normalized, token.special)


@pytest.mark.parametrize("kind", KINDS)
def test_defaults_equal_hugging_face(kind):
    ours, theirs = OURS[kind](), getattr(hf.trainers, kind)()
    assert ours.show_progress is theirs.show_progress is True
    assert ours.vocab_size == theirs.vocab_size
    assert ours.special_tokens == [] == theirs.special_tokens
    for name in ("min_frequency", "limit_alphabet", "continuing_subword_prefix", "end_of_word_suffix"):
        if hasattr(theirs, name):
            assert getattr(ours, name) == getattr(theirs, name), name
    if hasattr(theirs, "initial_alphabet"):
        assert ours.initial_alphabet == theirs.initial_alphabet == []


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=30, deadline=None)
@given(specials=SPECIALS, later=SPECIALS)
def test_special_tokens_are_added_tokens_as_in_hugging_face(kind, specials, later):
    ours_given, theirs_given = both(specials)
    ours = OURS[kind](special_tokens=ours_given, unk_token="[UNK]") if kind == "UnigramTrainer" else None
    ours = ours or OURS[kind](special_tokens=ours_given)
    theirs = getattr(hf.trainers, kind)(special_tokens=theirs_given)
    assert [fields(t) for t in ours.special_tokens] == [fields(t) for t in theirs.special_tokens]
    # the caller's AddedToken objects are made special, as Hugging Face does
    assert [fields(t) for t in ours_given if isinstance(t, AddedToken)] == [
        fields(t) for t in theirs_given if not isinstance(t, str)
    ]
    ours_later, theirs_later = both(later)
    ours.special_tokens = ours_later
    theirs.special_tokens = theirs_later
    assert [fields(t) for t in ours.special_tokens] == [fields(t) for t in theirs.special_tokens]
    # the getter gives copies: changing one leaves the trainer as it is
    for token in ours.special_tokens:
        token.lstrip = not token.lstrip
    assert [fields(t) for t in ours.special_tokens] == [fields(t) for t in theirs.special_tokens]


OPTIONS = {
    "BpeTrainer": {
        "vocab_size": st.integers(0, 50000),
        "min_frequency": st.integers(0, 100),
        "show_progress": st.booleans(),
        "limit_alphabet": st.integers(0, 1000),
        "initial_alphabet": st.lists(st.sampled_from("abcé中"), max_size=1),
        "continuing_subword_prefix": st.sampled_from(["##", "pref", "é"]),
        "end_of_word_suffix": st.sampled_from(["</w>", "suf", '"\\']),
        "max_token_length": st.integers(1, 100),
    },
    "WordLevelTrainer": {
        "vocab_size": st.integers(0, 50000),
        "min_frequency": st.integers(0, 100),
        "show_progress": st.booleans(),
    },
    "UnigramTrainer": {
        "vocab_size": st.integers(1, 50000),
        "show_progress": st.booleans(),
        "initial_alphabet": st.lists(st.sampled_from("abcé中"), max_size=1),
        "shrinking_factor": st.sampled_from([0.5, 0.75, 0.9, 0.1]),
        "unk_token": st.one_of(st.none(), st.sampled_from(["<unk>", "[UNK]"])),
        "max_piece_length": st.integers(1, 100),
        "n_sub_iterations": st.integers(1, 5),
    },
}
NONE_LATER = {
    "BpeTrainer": ["limit_alphabet", "continuing_subword_prefix", "end_of_word_suffix", "max_token_length"],
    "WordPieceTrainer": ["limit_alphabet", "continuing_subword_prefix", "end_of_word_suffix"],
}
OPTIONS["WordPieceTrainer"] = {
    name: value for name, value in OPTIONS["BpeTrainer"].items() if name != "max_token_length"
}


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=40, deadline=None)
@given(data=st.data(), specials=SPECIALS)
def test_getstate_is_hugging_face_json_and_pickling_round_trips(kind, data, specials):
    options = data.draw(st.fixed_dictionaries({}, optional=OPTIONS[kind]))
    ours_given, theirs_given = both(specials)
    if kind == "UnigramTrainer":
        options.setdefault("unk_token", None)  # kvec's default is "<unk>", HF's None
    theirs = getattr(hf.trainers, kind)(special_tokens=theirs_given, **options)
    ours = OURS[kind](special_tokens=ours_given, **options)
    # HF's constructor takes no None for these, its setters do
    for name in data.draw(st.lists(st.sampled_from(sorted(NONE_LATER.get(kind, ["vocab_size"]))), max_size=3)):
        if name in NONE_LATER.get(kind, ()):
            setattr(ours, name, None)
            setattr(theirs, name, None)
    assert ours.__getstate__() == theirs.__getstate__()
    for again in (pickle.loads(pickle.dumps(ours)), copy.deepcopy(ours)):
        assert type(again) is type(ours) and again.__getstate__() == ours.__getstate__()
    assert pickle.dumps(pickle.loads(pickle.dumps(ours))) == pickle.dumps(ours)


def test_pickling_keeps_kvec_own_options():
    for trainer in (
        BpeTrainer(tie_break="first", byte_fallback=True, initial_alphabet=["b", "a"]),
        WordPieceTrainer(scoring="likelihood", unk_token="<unk>"),
        WordLevelTrainer(unk_token="[UNK]"),
        UnigramTrainer(
            character_coverage=0.9,
            split_by_unicode_script=False,
            byte_fallback=True,
            seed_size=7,
            algorithm="sentencepiece",
        ),
    ):
        again = pickle.loads(pickle.dumps(trainer))
        assert again.__getstate__() == trainer.__getstate__()
        assert {k: v for k, v in vars(again).items() if k != "_bpe"} == {
            k: v for k, v in vars(trainer).items() if k != "_bpe"
        }
    # a state Hugging Face pickled loads too
    state = hf.trainers.BpeTrainer(min_frequency=3, special_tokens=["<s>"]).__getstate__()
    trainer = BpeTrainer.__new__(BpeTrainer)
    trainer.__setstate__(state)
    assert trainer.min_frequency == 3 and trainer.special_tokens == [AddedToken("<s>", special=True)]


def test_attributes_can_be_set_as_in_hugging_face():
    for kind in ("BpeTrainer", "WordPieceTrainer"):
        ours, theirs = OURS[kind](), getattr(hf.trainers, kind)()
        for name, value in (
            ("vocab_size", 123),
            ("min_frequency", 4),
            ("show_progress", False),
            ("limit_alphabet", 9),
            ("continuing_subword_prefix", "pre"),
            ("end_of_word_suffix", "</w>"),
        ):
            setattr(ours, name, value)
            setattr(theirs, name, value)
            assert getattr(ours, name) == getattr(theirs, name) == value
        ours.initial_alphabet = theirs.initial_alphabet = ["d", "z"]
        assert sorted(ours.initial_alphabet) == sorted(theirs.initial_alphabet)
        ours.initial_alphabet = theirs.initial_alphabet = ["é"]  # one: HF keeps a set, in hash order
        assert ours.__getstate__() == theirs.__getstate__()


def hf_trained(model, trainer, corpus, pre_tokenizer):
    tokenizer = hf.Tokenizer(model)
    tokenizer.pre_tokenizer = pre_tokenizer
    tokenizer.train_from_iterator(corpus, trainer)
    return tokenizer


# Words with counts of distinct powers of two: Hugging Face's merges have no ties here, so its trained
# tokens do not depend on its hash order (the ids of the affixed characters still do: they follow the
# order in which it meets the words).
AFFIX_WORDS = ["low", "lower", "newest", "widest", "lowest", "newer", "wider", "a", "ab", "abc", "中文", "é"]
AFFIX_CORPUS = [" ".join([w] * (2**i)) for i, w in enumerate(AFFIX_WORDS)]


@pytest.mark.parametrize("suffix", ["</w>", "", "suf"])
@pytest.mark.parametrize("prefix", ["##", None])
@pytest.mark.parametrize("vocab_size", [30, 45, 60, 200])
def test_wordpiece_end_of_word_suffix_trains_as_hugging_face(suffix, prefix, vocab_size):
    options = {"vocab_size": vocab_size, "special_tokens": ["[UNK]"], "end_of_word_suffix": suffix}
    options["show_progress"] = False
    theirs_trainer = hf.trainers.WordPieceTrainer(**options)
    ours_trainer = WordPieceTrainer(continuing_subword_prefix=prefix, **options)
    theirs_trainer.continuing_subword_prefix = prefix
    theirs = hf_trained(
        hf.models.WordPiece(unk_token="[UNK]"), theirs_trainer, AFFIX_CORPUS, hf.pre_tokenizers.Whitespace()
    )
    ours = Pipeline(None, pre_tokenizer=Whitespace())
    ours.train_from_iterator(AFFIX_CORPUS, ours_trainer)
    assert set(ours.get_vocab()) == set(theirs.get_vocab())
    assert ours.token_to_id("[UNK]") == theirs.token_to_id("[UNK]") == 0
    if suffix:
        assert any(token.endswith(suffix) for token in ours.get_vocab())
    assert ours.model.continuing_subword_prefix == theirs.model.continuing_subword_prefix
    for text in AFFIX_WORDS + ["lowest newer", "abcé"]:
        assert ours.encode(text).tokens == theirs.encode(text).tokens


def test_unigram_initial_alphabet_is_in_the_vocabulary_as_in_hugging_face():
    alphabet = ["q", "Ω", "a"]  # two characters absent from the corpus, one in it
    theirs = hf_trained(
        hf.models.Unigram(),
        hf.trainers.UnigramTrainer(vocab_size=25, initial_alphabet=alphabet, unk_token="<unk>", show_progress=False),
        CORPUS,
        hf.pre_tokenizers.Metaspace(),
    )
    ours = Pipeline(None, pre_tokenizer=Metaspace())
    trainer = UnigramTrainer(vocab_size=25, initial_alphabet=alphabet, unk_token="<unk>", show_progress=False)
    ours.train_from_iterator(CORPUS, trainer)
    assert set(alphabet) <= set(theirs.get_vocab())
    assert set(alphabet) <= set(ours.get_vocab())
    assert ours.get_vocab_size() == theirs.get_vocab_size() == 25
    # a rare character that character_coverage leaves out stays when the initial alphabet has it
    rare = UnigramTrainer(
        vocab_size=40, character_coverage=0.9, initial_alphabet=["中"], show_progress=False, algorithm="sentencepiece"
    )
    assert "中" in rare.train_from_counts({"▁aaaa": 50, "▁bbbb": 50, "▁中": 1}).vocab


@pytest.mark.parametrize(
    ("specials", "unk"),
    [(["[PAD]", "[SEP]", "[CLS]"], "[UNK]"), (["[PAD]", "[SEP]", "[CLS]", "[UNK]"], "[UNK]"), ([], "<unk>")],
)
def test_unigram_special_tokens_are_as_given_and_registered_as_in_hugging_face(specials, unk):
    theirs_trainer = hf.trainers.UnigramTrainer(vocab_size=24, special_tokens=specials, unk_token=unk)
    theirs_trainer.show_progress = False
    theirs = hf_trained(hf.models.Unigram(), theirs_trainer, CORPUS, hf.pre_tokenizers.Metaspace())
    trainer = UnigramTrainer(vocab_size=24, special_tokens=specials, unk_token=unk, show_progress=False)
    assert [fields(t) for t in trainer.special_tokens] == [fields(t) for t in theirs_trainer.special_tokens]
    ours = Pipeline(None, pre_tokenizer=Metaspace())
    ours.train_from_iterator(CORPUS, trainer)
    assert ours.get_vocab_size() == theirs.get_vocab_size() == 24
    for token in [unk, *specials]:
        assert ours.token_to_id(token) == theirs.token_to_id(token), token
    registered = {token.content for token in ours.get_added_tokens_decoder().values()}
    assert registered == {token.content for token in theirs.get_added_tokens_decoder().values()}


MODELS = {
    "BpeTrainer": (lambda: BPE(), lambda: hf.models.BPE()),
    "WordPieceTrainer": (lambda: WordPiece(), lambda: hf.models.WordPiece()),
    "WordLevelTrainer": (lambda: WordLevel(), lambda: hf.models.WordLevel()),
    "UnigramTrainer": (
        lambda: Unigram([("<unk>", 0.0)], unk_id=0),
        lambda: hf.models.Unigram([("<unk>", 0.0)], unk_id=0),
    ),
}


@pytest.mark.parametrize("model_kind", KINDS)
@pytest.mark.parametrize("trainer_kind", KINDS)
def test_a_trainer_refuses_another_kind_of_model_as_in_hugging_face(model_kind, trainer_kind):
    ours_model, theirs_model = MODELS[model_kind]
    theirs = hf.Tokenizer(theirs_model())
    theirs_trainer = getattr(hf.trainers, trainer_kind)(show_progress=False)
    trainer = OURS[trainer_kind](show_progress=False)
    ours = Pipeline(ours_model(), pre_tokenizer=Whitespace())
    if model_kind == trainer_kind:
        theirs.train_from_iterator(["a b"], theirs_trainer)
        ours.train_from_iterator(["a b"], trainer)
        assert type(ours.model) is type(ours_model())
        return
    with pytest.raises(Exception) as raised:
        theirs.train_from_iterator(["a b"], theirs_trainer)
    for train in (
        lambda: ours.train_from_iterator(["a b"], trainer),
        lambda: ours.train_from_counts({"a": 1}, trainer),
        lambda: ours.train([], trainer),
    ):
        with pytest.raises(TypeError) as refused:
            train()
        assert str(refused.value) == str(raised.value)
    assert type(ours.model) is type(ours_model())  # left as it was


@pytest.mark.parametrize("trainer_kind", KINDS)
def test_a_pipeline_without_a_model_takes_any_trainer(trainer_kind):
    ours = Pipeline(None, pre_tokenizer=Whitespace())
    ours.train_from_iterator(CORPUS, OURS[trainer_kind](vocab_size=40, show_progress=False))
    assert type(ours.model) is MODELS[trainer_kind][0]().__class__


def test_keras_recipes_train_quietly(capfd):
    from kvec.presets import keras_subword

    for kind, vocab_size in (("bpe", 60), ("wordpiece", 60), ("unigram", 300)):
        tokenizer, trainer = keras_subword(kind, vocab_size)
        assert trainer.show_progress is False
        tokenizer.train_from_iterator(CORPUS, trainer)
    assert capfd.readouterr().err == ""


def test_state_is_json_of_the_trainer_kind():
    assert list(json.loads(UnigramTrainer().__getstate__())) == ["UnigramTrainer"]
    with pytest.raises(ValueError, match="not the state of a BpeTrainer"):
        BpeTrainer().__setstate__(WordLevelTrainer().__getstate__())


@pytest.mark.parametrize("alphabet", [[], ["a", "中"]])
def test_unigram_on_an_empty_corpus_as_hugging_face(alphabet):
    theirs = hf.Tokenizer(hf.models.Unigram())
    options = {"show_progress": False, "unk_token": "<unk>", "initial_alphabet": alphabet}
    theirs.train_from_iterator([], hf.trainers.UnigramTrainer(**options))
    ours = Pipeline(None)
    ours.train_from_iterator([], UnigramTrainer(**options))
    # the ids of the initial alphabet follow HF's hash order there
    assert set(ours.get_vocab()) == set(theirs.get_vocab())
    assert ours.token_to_id("<unk>") == theirs.token_to_id("<unk>") == 0
