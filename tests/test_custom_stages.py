"""Normalizers and pre-tokenizers written in Python (``Normalizer.custom``, ``PreTokenizer.custom``),
against ``tokenizers`` running the very same Python class: the normalized text, and the offsets each
change leaves (``NormalizedString``'s alignments) through a whole encoding; pipelines holding one encode
on the Python route and refuse to be saved."""

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec.custom_stages import NormalizedString, PreTokenizedString
from kvec.interop.huggingface import save_tokenizer_json
from kvec.models import WordLevel
from kvec.normalizers import Normalizer
from kvec.pipeline import Pipeline
from kvec.pretokenizers import PreTokenizer, Whitespace
from tests.support import Oracle

hf = Oracle("tokenizers")

TEXT = st.lists(
    st.sampled_from(["a", "B", " ", "  ", "é", "ﬁ", "ß", "Ǆ", "e\u0301", "!", "x1", "中", "\t", "AbC"]), max_size=10
).map("".join)

# each change, as (name, function of a NormalizedString): tokenizers' and kvec's run the same code
CHANGES = {
    "nfd": lambda n: n.nfd(),
    "nfkd": lambda n: n.nfkd(),
    "nfc": lambda n: n.nfc(),
    "nfkc": lambda n: n.nfkc(),
    "lowercase": lambda n: n.lowercase(),
    "uppercase": lambda n: n.uppercase(),
    "replace": lambda n: n.replace("a", "<A>"),
    "replace_to_nothing": lambda n: n.replace("B", ""),
    "filter": lambda n: n.filter(lambda c: not unicodedata.combining(c)),
    "map": lambda n: n.map(lambda c: "z" if c == "x" else c),
    "prepend": lambda n: n.prepend("▁"),
    "append": lambda n: n.append("~"),
    "strip": lambda n: n.strip(),
    "lstrip": lambda n: n.lstrip(),
    "rstrip": lambda n: n.rstrip(),
}


class Changes:
    """A custom normalizer applying ``names`` in order."""

    def __init__(self, names):
        self.names = names

    def normalize(self, normalized):
        for name in self.names:
            CHANGES[name](normalized)


def _pipelines(normalizer=None, pre_tokenizer=None):
    """kvec's pipeline and tokenizers' Tokenizer, each with the custom stages of its own library."""
    theirs = hf.Tokenizer(hf.models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    ours = Pipeline(WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    if normalizer is not None:
        theirs.normalizer = hf.normalizers.Normalizer.custom(normalizer)
        ours.normalizer = Normalizer.custom(normalizer)
    theirs.pre_tokenizer = hf.pre_tokenizers.PreTokenizer.custom(pre_tokenizer) if pre_tokenizer else None
    theirs.pre_tokenizer = theirs.pre_tokenizer or hf.pre_tokenizers.Whitespace()
    ours.pre_tokenizer = PreTokenizer.custom(pre_tokenizer) if pre_tokenizer else Whitespace()
    return ours, theirs


@settings(max_examples=80, deadline=None)
@given(text=TEXT, names=st.lists(st.sampled_from(sorted(CHANGES)), max_size=4))
def test_a_custom_normalizer_normalizes_and_aligns_as_tokenizers(text, names):
    ours, theirs = _pipelines(normalizer=Changes(names))
    assert ours.normalizer.normalize_str(text) == theirs.normalizer.normalize_str(text)
    expected = theirs.encode(text)
    found = ours.encode(text)
    assert (found.ids, found.offsets, found.word_ids) == (expected.ids, expected.offsets, expected.word_ids)
    assert [e.offsets for e in ours.encode_batch([text, text + " a"])] == [
        e.offsets for e in theirs.encode_batch([text, text + " a"])
    ]


class CamelCase:
    """tokenizers' own example: words at changes of case, digits and the rest."""

    @staticmethod
    def kind(c):
        return "lower" if c.islower() else "upper" if c.isupper() else "digit" if c.isdigit() else "rest"

    def split(self, index, normalized):
        pieces, start, state = [], 0, "any"
        for j, c in enumerate(normalized.normalized):
            kind = self.kind(c)
            if state == "any":
                state = kind
            if not ((state != "rest" and state == kind) or (state == "upper" and kind == "lower")):
                pieces.append(normalized[start:j])
                start = j
            state = kind
        pieces.append(normalized[start:])
        return pieces

    def pre_tokenize(self, pretok):
        pretok.split(self.split)


class SpacesThenLower:
    """Words at spaces (each behavior in turn), each lowercased within its split."""

    def __init__(self, behavior):
        self.behavior = behavior

    def pre_tokenize(self, pretok):
        pretok.split(lambda i, n: n.split(" ", self.behavior))
        pretok.normalize(lambda n: n.lowercase())


@settings(max_examples=60, deadline=None)
@given(
    text=TEXT,
    names=st.lists(st.sampled_from(sorted(CHANGES)), max_size=3),
    splitter=st.sampled_from(
        [CamelCase()]
        + [
            SpacesThenLower(b)
            for b in ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")
        ]
    ),
)
def test_a_custom_pre_tokenizer_cuts_as_tokenizers(text, names, splitter):
    ours, theirs = _pipelines(normalizer=Changes(names), pre_tokenizer=splitter)
    assert ours.pre_tokenizer.pre_tokenize_str(text) == theirs.pre_tokenizer.pre_tokenize_str(text)
    expected, found = theirs.encode(text), ours.encode(text)
    assert (found.ids, found.offsets, found.word_ids) == (expected.ids, expected.offsets, expected.word_ids)


def test_the_stage_objects_change_in_place_as_in_tokenizers():
    normalized = NormalizedString("Hey there!")
    Normalizer.custom(Changes(["replace"])).normalize(normalized)
    assert repr(normalized) == 'NormalizedString(original="Hey there!", normalized="Hey there!")'
    ours, theirs = NormalizedString("Héllo  "), hf.NormalizedString("Héllo  ")
    for both in (ours, theirs):
        both.nfd()
        both.filter(lambda c: not unicodedata.combining(c))
        both.rstrip()
        both.uppercase()
    assert (repr(ours), repr(ours[1:3]), str(ours[2:])) == (repr(theirs), repr(theirs[1:3]), str(theirs[2:]))
    pretok = PreTokenizedString("Hey ThereYou")
    PreTokenizer.custom(CamelCase()).pre_tokenize(pretok)
    theirs = hf.PreTokenizedString("Hey ThereYou")
    hf.pre_tokenizers.PreTokenizer.custom(CamelCase()).pre_tokenize(theirs)
    for referential in ("original", "normalized"):
        for kind in ("char", "byte"):
            assert pretok.get_splits(referential, kind) == [
                (text, offsets, None) for text, offsets, _ in theirs.get_splits(referential, kind)
            ]


def test_a_custom_stage_may_not_keep_what_it_was_given():
    class Keeper:
        def normalize(self, normalized):
            self.kept = normalized

    keeper = Keeper()
    Normalizer.custom(keeper).normalize_str("a")
    with pytest.raises(ValueError, match="Cannot use a NormalizedStringRefMut outside `normalize`"):
        keeper.kept.lowercase()


def test_an_error_in_a_custom_stage_names_the_stage_and_the_error():
    class Broken:
        def pre_tokenize(self, pretok, extra):
            pass

    with pytest.raises(ValueError, match=r"Broken.pre_tokenize raised TypeError: .*pre_tokenize\(\)"):
        PreTokenizer.custom(Broken()).pre_tokenize_str("a b")
    with pytest.raises(TypeError, match="a custom normalizer needs a normalize method, got int"):
        Normalizer.custom(3)


@pytest.mark.parametrize("stage", ["normalizer", "pre_tokenizer"])
def test_a_pipeline_holding_a_custom_stage_cannot_be_saved(stage, tmp_path):
    ours, _ = _pipelines(**{stage: Changes([]) if stage == "normalizer" else CamelCase()})
    kind = "normalizer" if stage == "normalizer" else "pre-tokenizer"
    message = f"a custom {kind} .* cannot be saved"
    for save in (
        lambda: ours.save(tmp_path / "kvec.json"),
        lambda: save_tokenizer_json(ours, tmp_path / "tokenizer.json"),
        lambda: ours.save_pretrained(tmp_path / "folder"),
    ):
        with pytest.raises(ValueError, match=message):
            save()
    assert not (tmp_path / "kvec.json").exists() and not (tmp_path / "tokenizer.json").exists()
