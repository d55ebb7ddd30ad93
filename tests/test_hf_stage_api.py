"""The Python API of the stages as ``tokenizers`` 0.23 has it, against ``tokenizers`` itself:
``pre_tokenize_str`` and ``normalize_str`` on every stage, item access to the ``Sequence`` stages (and
what replacing an item does to a pipeline that already encoded), ByteLevel's ``trim_offsets`` and its
pickled state (``__getstate__`` is the component's JSON), the patterns of ``Split`` and ``Replace``
that cannot be read or set, and the errors for a replacement or delimiter that is not one character."""

import copy
import json
import pickle
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec import decoders, normalizers, pretokenizers, processors
from kvec.files.serialization import component_document
from kvec.interop.huggingface import to_tokenizer_json_str
from kvec.models import WordPiece
from kvec.pipeline import Pipeline
from tests.support import STABLE_CHARS, Oracle

hf = Oracle("tokenizers")
# kvec's stage modules under tokenizers' names
KVEC = SimpleNamespace(
    pre_tokenizers=pretokenizers,
    normalizers=normalizers,
    decoders=decoders,
    processors=processors,
    Regex=pretokenizers.Regex,
)

TEXT = st.lists(
    st.sampled_from([" ", "  ", "▁", "a", "B", "1", "23", "½", ",", "!!", "?", "'s", "é", "中", "\n", "\t", "x"])
    | STABLE_CHARS,
    max_size=14,
).map("".join)


# every pre-tokenizer of tokenizers, in settings drawn by hypothesis: name -> (strategy of kwargs)
PRE_TOKENIZER_SETTINGS = {
    "ByteLevel": st.fixed_dictionaries(
        {"add_prefix_space": st.booleans(), "trim_offsets": st.booleans(), "use_regex": st.booleans()}
    ),
    "Whitespace": st.just({}),
    "WhitespaceSplit": st.just({}),
    "BertPreTokenizer": st.just({}),
    "Metaspace": st.fixed_dictionaries(
        {
            "replacement": st.sampled_from(["▁", "x", " "]),
            "prepend_scheme": st.sampled_from(["always", "first", "never"]),
            "split": st.booleans(),
        }
    ),
    "Punctuation": st.fixed_dictionaries({"behavior": st.sampled_from(pretokenizers.BEHAVIORS)}),
    "Digits": st.fixed_dictionaries({"individual_digits": st.booleans()}),
    "Split": st.fixed_dictionaries(
        {
            "pattern": st.sampled_from([" ", "a", "!!", ("regex", r"\s+"), ("regex", r"\p{N}{1,2}"), ("regex", "a*")]),
            "behavior": st.sampled_from(pretokenizers.BEHAVIORS),
            "invert": st.booleans(),
        }
    ),
    "CharDelimiterSplit": st.fixed_dictionaries({"delimiter": st.sampled_from([" ", "a", "▁"])}),
    "FixedLength": st.fixed_dictionaries({"length": st.integers(1, 6)}),
    "UnicodeScripts": st.just({}),
}


def build_pre_tokenizer(module, name, kwargs):
    """``module.name(**kwargs)``, a ``("regex", text)`` pattern as the module's Regex."""
    kwargs = dict(kwargs)
    if isinstance(kwargs.get("pattern"), tuple):
        kwargs["pattern"] = (pretokenizers if module is pretokenizers else hf).Regex(kwargs["pattern"][1])
    return getattr(module, name)(**kwargs)


PRE_TOKENIZER = st.sampled_from(sorted(PRE_TOKENIZER_SETTINGS)).flatmap(
    lambda name: PRE_TOKENIZER_SETTINGS[name].map(lambda kwargs: (name, kwargs))
)


@settings(max_examples=400)
@given(pre_tokenizer=PRE_TOKENIZER, text=TEXT)
def test_pre_tokenize_str_equals_hf_on_every_pre_tokenizer(pre_tokenizer, text):
    name, kwargs = pre_tokenizer
    ours = build_pre_tokenizer(pretokenizers, name, kwargs)
    theirs = build_pre_tokenizer(hf.pre_tokenizers, name, kwargs)
    assert ours.pre_tokenize_str(text) == theirs.pre_tokenize_str(text)


@settings(max_examples=200)
@given(first=PRE_TOKENIZER, second=PRE_TOKENIZER, text=TEXT)
def test_pre_tokenize_str_of_a_sequence_equals_hf(first, second, text):
    ours = pretokenizers.Sequence(
        [build_pre_tokenizer(pretokenizers, *first), build_pre_tokenizer(pretokenizers, *second)]
    )
    theirs = hf.pre_tokenizers.Sequence(
        [build_pre_tokenizer(hf.pre_tokenizers, *first), build_pre_tokenizer(hf.pre_tokenizers, *second)]
    )
    assert ours.pre_tokenize_str(text) == theirs.pre_tokenize_str(text)


def test_pre_tokenize_str_is_on_every_pre_tokenizer_and_normalize_str_on_every_normalizer():
    from kvec.contracts import Normalizer, PreTokenizer

    for name in dir(hf.pre_tokenizers):
        theirs = getattr(hf.pre_tokenizers, name)
        if (
            isinstance(theirs, type)
            and issubclass(theirs, hf.pre_tokenizers.PreTokenizer)
            and hasattr(pretokenizers, name)
        ):
            assert issubclass(getattr(pretokenizers, name), PreTokenizer), name
            assert callable(getattr(pretokenizers, name).pre_tokenize_str), name
    for name in dir(hf.normalizers):
        theirs = getattr(hf.normalizers, name)
        if isinstance(theirs, type) and issubclass(theirs, hf.normalizers.Normalizer) and hasattr(normalizers, name):
            assert issubclass(getattr(normalizers, name), Normalizer), name
            assert callable(getattr(normalizers, name).normalize_str), name


# ---- Sequence items --------------------------------------------------------------------------------


def outcome(function):
    """What ``function()`` gives: ``("value", type name)`` or ``("error", exception type)``."""
    try:
        return "value", type(function()).__name__
    except Exception as error:  # noqa: BLE001 - the exception type is what is compared
        return "error", type(error)


SEQUENCES = {
    # module name -> (kvec module, a list of stages built in a module, a stage to set, one of another kind)
    "normalizers": (
        normalizers,
        lambda m: [m.Lowercase(), m.Strip(), m.Prepend("x")],
        lambda m: m.NFD(),
        lambda m: m.Sequence([]),
    ),
    "pre_tokenizers": (
        pretokenizers,
        lambda m: [m.WhitespaceSplit(), m.Digits(), m.Punctuation()],
        lambda m: m.Metaspace(),
        lambda m: m.Sequence([]),
    ),
    "processors": (
        processors,
        lambda m: [m.ByteLevel(), m.RobertaProcessing(("</s>", 1), ("<s>", 0)), m.ByteLevel(trim_offsets=False)],
        lambda m: m.ByteLevel(add_prefix_space=False),
        lambda m: m.Sequence([]),
    ),
}
OTHER_KIND = {"normalizers": "pre_tokenizers", "pre_tokenizers": "processors", "processors": "normalizers"}


@pytest.mark.parametrize("kind", sorted(SEQUENCES))
@given(index=st.one_of(st.integers(-5, 5), st.booleans(), st.just("0"), st.just(1.0), st.none()))
def test_sequence_items_are_read_and_set_as_in_hf(kind, index):
    ours_module, stages, new, _ = SEQUENCES[kind]
    theirs_module = getattr(hf, kind)
    ours, theirs = ours_module.Sequence(stages(ours_module)), theirs_module.Sequence(stages(theirs_module))
    assert outcome(lambda: ours[index]) == outcome(lambda: theirs[index])
    wrong = SEQUENCES[OTHER_KIND[kind]]
    for value_of in (new, wrong[2]):
        our_value = value_of(ours_module if value_of is new else wrong[0])
        their_value = value_of(theirs_module if value_of is new else getattr(hf, OTHER_KIND[kind]))
        assert outcome(lambda v=our_value: ours.__setitem__(index, v)) == outcome(
            lambda v=their_value: theirs.__setitem__(index, v)
        )
    assert [type(stage).__name__ for stage in list(ours)] == [type(stage).__name__ for stage in list(theirs)]


@pytest.mark.parametrize("kind", sorted(SEQUENCES))
def test_a_sequence_has_a_length_and_is_true_even_empty(kind):
    module, stages, _, _ = SEQUENCES[kind]
    assert len(module.Sequence(stages(module))) == 3
    assert len(module.Sequence([])) == 0 and bool(module.Sequence([]))


def test_setting_an_item_is_the_item_itself_and_changes_what_a_pipeline_gives_as_in_hf():
    vocab = {token: i for i, token in enumerate(["[UNK]", "ab", "a", "b", "x", "y", "▁", "▁ab", "1", "2", "!", "##b"])}
    ours = Pipeline(
        WordPiece(vocab),
        normalizer=normalizers.Sequence([normalizers.Lowercase(), normalizers.Strip()]),
        pre_tokenizer=pretokenizers.Sequence([pretokenizers.WhitespaceSplit(), pretokenizers.Digits()]),
    )
    theirs = hf.Tokenizer(hf.models.WordPiece(vocab, unk_token="[UNK]"))
    theirs.normalizer = hf.normalizers.Sequence([hf.normalizers.Lowercase(), hf.normalizers.Strip()])
    theirs.pre_tokenizer = hf.pre_tokenizers.Sequence([hf.pre_tokenizers.WhitespaceSplit(), hf.pre_tokenizers.Digits()])
    texts = [" AB b12!", "ab ab  x", "Xy 1 2"]

    def same():
        for text in texts:
            expected = theirs.encode(text)
            encoding = ours.encode(text)
            assert (encoding.tokens, encoding.offsets) == (expected.tokens, expected.offsets), text
        assert [e.ids for e in ours.encode_batch(texts)] == [e.ids for e in theirs.encode_batch(texts)]

    same()  # every cache and the native encoder are made here
    for tokenizer, module in ((ours, normalizers), (theirs, hf.normalizers)):
        tokenizer.normalizer[0] = module.Replace("a", "x")
    same()
    for tokenizer, module in ((ours, pretokenizers), (theirs, hf.pre_tokenizers)):
        tokenizer.pre_tokenizer[1] = module.Metaspace()
    same()
    for tokenizer in (ours, theirs):
        tokenizer.pre_tokenizer[1].prepend_scheme = "never"  # the item is the stage in the sequence
    same()


def test_processor_items_set_as_in_hf():
    ours = processors.Sequence([processors.RobertaProcessing(("</s>", 1), ("<s>", 0)), processors.ByteLevel()])
    ours[0] = processors.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
    ours[0].trim_offsets = True
    assert isinstance(ours[0], processors.ByteLevel) and ours[0].trim_offsets and not ours[0].use_regex
    assert ours.added_tokens(is_pair=True) == 0


# ---- ByteLevel: trim_offsets and the pickled state ---------------------------------------------------


def test_byte_level_pre_tokenizer_takes_trim_offsets_as_hf():
    assert pretokenizers.ByteLevel().trim_offsets is hf.pre_tokenizers.ByteLevel().trim_offsets is True
    ours, theirs = pretokenizers.ByteLevel(trim_offsets=False), hf.pre_tokenizers.ByteLevel(trim_offsets=False)
    assert ours.trim_offsets is theirs.trim_offsets is False
    ours.trim_offsets = theirs.trim_offsets = True
    assert ours.trim_offsets is theirs.trim_offsets is True


@pytest.mark.parametrize("trim_offsets", [True, False])
@pytest.mark.parametrize("add_prefix_space", [True, False])
def test_byte_level_trim_offsets_round_trips_through_tokenizer_json(trim_offsets, add_prefix_space):
    from kvec.interop.huggingface import from_tokenizer_json_str

    ours = Pipeline(
        WordPiece({"[UNK]": 0}),
        pre_tokenizer=pretokenizers.ByteLevel(add_prefix_space=add_prefix_space, trim_offsets=trim_offsets),
    )
    theirs = hf.pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, trim_offsets=trim_offsets)
    document = json.loads(to_tokenizer_json_str(ours))
    assert document["pre_tokenizer"] == json.loads(theirs.__getstate__())
    again = from_tokenizer_json_str(json.dumps(document))
    assert again.pre_tokenizer.trim_offsets is trim_offsets
    assert Pipeline.from_str(ours.to_str()).pre_tokenizer.trim_offsets is trim_offsets


BYTE_LEVELS = {
    "pre_tokenizers": lambda m, kwargs: m.ByteLevel(**kwargs),
    "processors": lambda m, kwargs: m.ByteLevel(**kwargs),
    "decoders": lambda m, kwargs: m.ByteLevel(),
}


@pytest.mark.parametrize("kind", sorted(BYTE_LEVELS))
@given(
    kwargs=st.fixed_dictionaries(
        {},
        optional={"add_prefix_space": st.booleans(), "trim_offsets": st.booleans(), "use_regex": st.booleans()},
    )
)
def test_byte_level_state_is_hf_json_and_rebuilds_it(kind, kwargs):
    ours_module = {"pre_tokenizers": pretokenizers, "processors": processors, "decoders": decoders}[kind]
    ours = BYTE_LEVELS[kind](ours_module, kwargs)
    theirs = BYTE_LEVELS[kind](getattr(hf, kind), kwargs)
    assert ours.__getstate__() == theirs.__getstate__()
    state = json.loads(ours.__getstate__())
    reloaded = ours_module.ByteLevel(**state)
    assert reloaded.__getstate__() == ours.__getstate__()
    assert getattr(hf, kind).ByteLevel(**state).__getstate__() == theirs.__getstate__()
    for copied in (pickle.loads(pickle.dumps(ours)), copy.deepcopy(ours), copy.copy(ours)):
        assert type(copied) is type(ours) and copied.__getstate__() == ours.__getstate__()


def test_byte_level_refuses_keywords_it_does_not_know():
    for make in (pretokenizers.ByteLevel, processors.ByteLevel, decoders.ByteLevel):
        with pytest.raises(TypeError, match="unexpected keyword argument 'add_prefix_spaces'"):
            make(add_prefix_spaces=False)
        with pytest.raises(TypeError, match="unexpected keyword argument 'type'"):
            make(type="Metaspace")


def test_processor_byte_level_reads_none_as_the_default_as_hf():
    ours = processors.ByteLevel(add_prefix_space=None, trim_offsets=None, use_regex=None)
    theirs = hf.processors.ByteLevel(add_prefix_space=None, trim_offsets=None, use_regex=None)
    assert ours.__getstate__() == theirs.__getstate__()
    assert (ours.add_prefix_space, ours.trim_offsets, ours.use_regex) == (True, True, True)


def stages_of_every_kind():
    """One of every stage kvec shares with tokenizers (and a few of its own), in non-default settings."""
    return [
        pretokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False),
        pretokenizers.Split(pretokenizers.Regex(r"\d+"), "removed", invert=True),
        pretokenizers.Metaspace("x", "first", split=False),
        pretokenizers.CharDelimiterSplit("a"),
        pretokenizers.FixedLength(3),
        pretokenizers.Sequence([pretokenizers.Whitespace(), pretokenizers.Digits(True)]),
        pretokenizers.KerasFilters(),
        normalizers.Replace(normalizers.Regex("a+"), "b"),
        normalizers.Sequence([normalizers.Lowercase(), normalizers.Strip(right=False), normalizers.Prepend("_")]),
        normalizers.ByteLevel(),
        decoders.ByteLevel(),
        decoders.Metaspace("x", "never"),
        decoders.Sequence([decoders.Replace("_", " "), decoders.ByteFallback(), decoders.Fuse()]),
        processors.ByteLevel(trim_offsets=False),
        processors.Sequence([processors.ByteLevel(), processors.TemplateProcessing("$A x", special_tokens=[("x", 1)])]),
    ]


def document(stage):
    """The stage as kvec's format stores it."""
    kinds = {
        normalizers: "normalizer",
        pretokenizers: "pre_tokenizer",
        processors: "post_processor",
        decoders: "decoder",
    }
    kind = next(name for module, name in kinds.items() if getattr(module, type(stage).__name__, None) is type(stage))
    return json.dumps(component_document(kind, stage))


@pytest.mark.parametrize(
    "stage", stages_of_every_kind(), ids=lambda stage: type(stage).__module__ + type(stage).__name__
)
def test_every_stage_pickles_and_copies_to_the_same_stage(stage):
    for copied in (pickle.loads(pickle.dumps(stage)), copy.deepcopy(stage)):
        assert type(copied) is type(stage)
        assert document(copied) == document(stage)
        if hasattr(stage, "pre_tokenize_str"):
            assert copied.pre_tokenize_str("ab 12 cd3") == stage.pre_tokenize_str("ab 12 cd3")
        if hasattr(stage, "normalize_str"):
            assert copied.normalize_str(" Aab c") == stage.normalize_str(" Aab c")
        if hasattr(stage, "decode"):
            assert copied.decode(["_a", "<0x41>", "x"]) == stage.decode(["_a", "<0x41>", "x"])


# ---- patterns that cannot be read or set, and one-character settings --------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.pre_tokenizers.Split("/test/", "removed"),
        lambda m: m.pre_tokenizers.Split(m.Regex("a+"), "isolated"),
        lambda m: m.normalizers.Replace("something", "else"),
        lambda m: m.normalizers.Replace(m.Regex("a+"), "else"),
    ],
)
def test_the_pattern_of_split_and_replace_cannot_be_read_or_set_as_in_hf(make):
    ours, theirs = make(KVEC), make(hf)
    for action in (lambda stage: stage.pattern, lambda stage: setattr(stage, "pattern", "x")):
        with pytest.raises(Exception) as expected:
            action(theirs)
        with pytest.raises(Exception) as raised:
            action(ours)
        assert type(raised.value) is type(expected.value)
        assert str(raised.value) == str(expected.value)


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.pre_tokenizers.Metaspace(replacement=""),
        lambda m: m.pre_tokenizers.Metaspace(replacement="ab"),
        lambda m: m.decoders.Metaspace(replacement=""),
        lambda m: m.pre_tokenizers.CharDelimiterSplit(""),
        lambda m: m.pre_tokenizers.CharDelimiterSplit("ab"),
        lambda m: setattr(m.pre_tokenizers.Metaspace(), "replacement", ""),
        lambda m: setattr(m.pre_tokenizers.CharDelimiterSplit("a"), "delimiter", ""),
        lambda m: setattr(m.decoders.Metaspace(), "replacement", ""),
    ],
)
def test_a_setting_of_one_character_refuses_others_with_hfs_words(make):
    with pytest.raises(ValueError, match="expected a string of length 1"):
        make(hf)
    with pytest.raises(ValueError, match="expected a string of length 1"):
        make(KVEC)
