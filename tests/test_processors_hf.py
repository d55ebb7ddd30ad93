"""Post-processors against Hugging Face ``tokenizers`` 0.23: ByteLevel's and RobertaProcessing's trimmed
offsets, Sequence, TemplateProcessing's parsing of templates (and its errors), and tokenizer.json both
ways, over a byte-level BPE trained here."""

import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec import processors
from kvec.interop.huggingface import from_tokenizer_json_str, to_tokenizer_json_str
from kvec.models import BPE, WordPiece
from kvec.pipeline import Pipeline
from kvec.pretokenizers import BertPreTokenizer
from tests.support import TEXTS, WORDS, Oracle

hf = Oracle("tokenizers")

SPACES = [" ", "  ", "\t", "\n", "\u3000", "\x1c", "\x85", "\xa0", " \u2009"]
PIECES = st.one_of(st.sampled_from(WORDS[:80]), st.sampled_from(SPACES), st.sampled_from(["é", "Ġ", "中", "!"]))
TEXT = st.lists(PIECES, max_size=10).map("".join)


@pytest.fixture(scope="module")
def trained():
    """A byte-level BPE of tokenizers, as tokenizer.json text."""
    tok = hf.Tokenizer(hf.models.BPE())
    tok.pre_tokenizer = hf.pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.decoder = hf.decoders.ByteLevel()
    trainer = hf.trainers.BpeTrainer(
        vocab_size=400, initial_alphabet=hf.pre_tokenizers.ByteLevel.alphabet(), special_tokens=["<s>", "</s>"]
    )
    tok.train_from_iterator(TEXTS, trainer)
    return tok.to_str()


PROCESSORS = st.one_of(
    st.tuples(st.just("ByteLevel"), st.booleans(), st.booleans()),
    st.tuples(st.just("RobertaProcessing"), st.booleans(), st.booleans()),
    st.tuples(st.just("Llama3"), st.booleans(), st.booleans()),
    st.tuples(st.just("TemplateThenByteLevel"), st.booleans(), st.booleans()),
)


def build(module, spec):
    kind, trim_offsets, add_prefix_space = spec
    template = module.TemplateProcessing(single="<s> $A", pair="<s> $A <s>:1 $B:1", special_tokens=[("<s>", 0)])
    if kind == "ByteLevel":
        return module.ByteLevel(trim_offsets=trim_offsets, add_prefix_space=add_prefix_space)
    if kind == "RobertaProcessing":
        return module.RobertaProcessing(("</s>", 1), ("<s>", 0), trim_offsets, add_prefix_space)
    byte_level = module.ByteLevel(trim_offsets=trim_offsets, add_prefix_space=add_prefix_space)
    return module.Sequence([byte_level, template] if kind == "Llama3" else [template, byte_level])


def fields(encoding):
    return {
        "ids": encoding.ids,
        "tokens": encoding.tokens,
        "offsets": [tuple(o) for o in encoding.offsets],
        "type_ids": encoding.type_ids,
        "word_ids": encoding.word_ids,
        "sequence_ids": encoding.sequence_ids,
        "special_tokens_mask": encoding.special_tokens_mask,
        "attention_mask": encoding.attention_mask,
        "overflowing": [fields(o) for o in encoding.overflowing],
    }


def pair_of_tokenizers(trained, spec, prefix_space):
    theirs = hf.Tokenizer.from_str(trained)
    theirs.pre_tokenizer = hf.pre_tokenizers.ByteLevel(add_prefix_space=prefix_space)
    theirs.post_processor = build(hf.processors, spec)
    return theirs


@settings(max_examples=150)
@given(PROCESSORS, st.booleans(), TEXT, st.one_of(st.none(), TEXT), st.booleans(), st.sampled_from([None, 6, 9]))
def test_offsets_and_ids_equal_hugging_face(trained, spec, prefix_space, text, pair, special, max_length):
    theirs = pair_of_tokenizers(trained, spec, prefix_space)
    if max_length is not None:
        theirs.enable_truncation(max_length, stride=0)
    want = fields(theirs.encode(text, pair, add_special_tokens=special))
    loaded = from_tokenizer_json_str(theirs.to_str())  # Hugging Face writes, kvec reads
    assert fields(loaded.encode(text, pair, add_special_tokens=special)) == want
    assert [fields(e) for e in loaded.encode_batch([text])] == [fields(theirs.encode(text))]  # the native path
    built = from_tokenizer_json_str(theirs.to_str())
    built.post_processor = build(processors, spec)  # kvec's constructors
    assert fields(built.encode(text, pair, add_special_tokens=special)) == want
    again = hf.Tokenizer.from_str(to_tokenizer_json_str(built))  # kvec writes, Hugging Face reads
    assert fields(again.encode(text, pair, add_special_tokens=special)) == want
    assert fields(Pipeline.from_str(built.to_str()).encode(text, pair, add_special_tokens=special)) == want


def test_roberta_trims_offsets_as_hugging_face(trained):
    """'a b' with a prefix space: the spaces of 'Ġa' and 'Ġb' are not part of their offsets."""
    theirs = pair_of_tokenizers(trained, ("RobertaProcessing", True, True), True)
    ours = from_tokenizer_json_str(theirs.to_str())
    assert ours.encode("a b").offsets == theirs.encode("a b").offsets
    assert ours.encode(" a  b", "c").offsets == theirs.encode(" a  b", "c").offsets
    assert ours.num_special_tokens_to_add(True) == theirs.num_special_tokens_to_add(True) == 4


# ---- templates ---------------------------------------------------------------------------------

TEMPLATE_PIECES = ["[CLS]", "[SEP]", "$A", "$B", "$", "$a", "$b", "$0", "$1", "$7", "$C", "[X]", "$A:", ":1"]
TEMPLATE_PIECES += ["$B:1", "[SEP]:1", "$A:+1", "$A:01", "$A:1:2", "$A:-1", "$1:2", "[CLS]:x", "", "$A:4294967296"]
TEMPLATE = st.lists(st.sampled_from(TEMPLATE_PIECES), min_size=1, max_size=5).map(" ".join)
SPECIALS = [("[CLS]", 2), ("[SEP]", 3)]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b", "ab", "##b"]


def outcome(function):
    try:
        return function()
    except BaseException as error:  # PanicException derives from BaseException
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        return "raised"


def made(function):
    try:
        return function()
    except ValueError:
        return ValueError


@settings(max_examples=300)
@given(TEMPLATE, st.one_of(st.none(), TEMPLATE))
def test_templates_are_read_as_hugging_face_reads_them(single, pair):
    theirs = made(lambda: hf.processors.TemplateProcessing(single=single, pair=pair, special_tokens=SPECIALS))
    ours = made(lambda: processors.TemplateProcessing(single, pair, SPECIALS))
    assert (ours is ValueError) == (theirs is ValueError), (single, pair)
    if ours is ValueError:
        return
    vocab = {token: i for i, token in enumerate(VOCAB)}
    hf_tokenizer = hf.Tokenizer(hf.models.WordPiece(vocab, unk_token="[UNK]"))
    hf_tokenizer.pre_tokenizer = hf.pre_tokenizers.BertPreTokenizer()
    hf_tokenizer.post_processor = theirs
    tokenizer = Pipeline(WordPiece(vocab, unk_token="[UNK]"), pre_tokenizer=BertPreTokenizer(), post_processor=ours)
    for texts in (("ab b",), ("ab b", "a")):
        want = outcome(lambda texts=texts: fields(hf_tokenizer.encode(*texts)))  # $B alone panics there
        assert outcome(lambda texts=texts: fields(tokenizer.encode(*texts))) == want
    assert tokenizer.num_special_tokens_to_add(True) == hf_tokenizer.num_special_tokens_to_add(True)
    document = json.loads(to_tokenizer_json_str(tokenizer))  # written as Hugging Face reads it
    assert document["post_processor"] == json.loads(hf_tokenizer.to_str())["post_processor"]


def test_malformed_templates_raise_value_errors():
    for single in ("[CLS] $A: [SEP]", "$C", "$A:1:2", "$A:-1", "[CLS]  $A"):
        with pytest.raises(ValueError):
            processors.TemplateProcessing(single, special_tokens=SPECIALS)
        with pytest.raises(ValueError):
            hf.processors.TemplateProcessing(single=single, special_tokens=SPECIALS)
    with pytest.raises(ValueError, match="Missing SpecialToken"):
        processors.TemplateProcessing("[X] $A", special_tokens=SPECIALS)
    with pytest.raises(ValueError, match="must use both sequences"):
        processors.TemplateProcessing("$A", "$A [SEP] $A", special_tokens=SPECIALS)


@given(first=st.sampled_from(["my name", "a", "", "name is john"]), second=st.sampled_from([None, "pair", "", "is"]))
def test_bert_processing_equals_hugging_face(first, second):
    ours, theirs = Pipeline(BPE()), hf.Tokenizer(hf.models.BPE())
    for tokenizer in (ours, theirs):
        tokenizer.add_special_tokens(["[SEP]", "[CLS]"])
        tokenizer.add_tokens(["my", "name", "is", "john", "pair"])
    ours.post_processor = processors.BertProcessing(("[SEP]", 0), ("[CLS]", 1))
    theirs.post_processor = hf.processors.BertProcessing(("[SEP]", 0), ("[CLS]", 1))
    got, want = ours.encode(first, second), theirs.encode(first, second)
    assert (got.ids, got.tokens, got.type_ids, got.special_tokens_mask) == (
        want.ids,
        want.tokens,
        want.type_ids,
        want.special_tokens_mask,
    )
    assert ours.num_special_tokens_to_add(True) == theirs.num_special_tokens_to_add(True)
    again = hf.Tokenizer.from_str(to_tokenizer_json_str(ours))
    assert again.encode(first, second).ids == want.ids
    loaded = from_tokenizer_json_str(theirs.to_str())
    assert isinstance(loaded.post_processor, processors.BertProcessing)
    assert loaded.encode(first, second).ids == want.ids
    assert pickle.loads(pickle.dumps(ours.post_processor)).get_config() == ours.post_processor.get_config()
    assert Pipeline.from_str(ours.to_str()).encode(first, second).ids == want.ids


SPECIAL_FORMS = [
    # tokenizers' three forms of a special token; a name may stand for several tokens
    [("<s>", 0), (1, "</s>")],
    [{"id": "<s>", "ids": [0], "tokens": ["<s>"]}, {"id": "</s>", "ids": [1, 0], "tokens": ["</s>", "<s>"]}],
    [{"id": "<s>", "ids": [], "tokens": []}, ("</s>", 1)],
]


@settings(max_examples=60, deadline=None)
@given(
    forms=st.sampled_from(SPECIAL_FORMS),
    text=TEXT,
    pair=st.one_of(st.none(), TEXT),
    add_special_tokens=st.booleans(),
    max_length=st.sampled_from([None, 3, 7]),
)
def test_template_special_tokens_in_every_form_tokenizers_takes(
    trained, forms, text, pair, add_special_tokens, max_length
):
    single, pair_template = "<s> $A </s>", "<s> $A </s> $B:1 </s>:1"
    theirs = hf.Tokenizer.from_str(trained)
    theirs.post_processor = hf.processors.TemplateProcessing(single, pair_template, special_tokens=forms)
    ours = from_tokenizer_json_str(trained)
    ours.post_processor = processors.TemplateProcessing(single, pair_template, special_tokens=forms)
    if max_length is not None:
        theirs.enable_truncation(max_length)
        ours.enable_truncation(max_length)
    expected = theirs.encode(text, pair, add_special_tokens=add_special_tokens)
    for tok in (ours, from_tokenizer_json_str(to_tokenizer_json_str(ours)), Pipeline.from_str(ours.to_str())):
        assert fields(tok.encode(text, pair, add_special_tokens=add_special_tokens)) == fields(expected)
    assert ours.num_special_tokens_to_add(True) == theirs.num_special_tokens_to_add(True)
    assert json.loads(to_tokenizer_json_str(ours))["post_processor"] == json.loads(theirs.to_str())["post_processor"]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"id": "<s>", "ids": [0, 1], "tokens": ["<s>"]}, "ids and tokens must be of the same length"),
        ({"id": "<s>", "tokens": ["<s>"]}, "`ids` must be specified"),
        (("<s>", "x"), r"special_tokens\[0\] must be a \(token, id\) pair"),
    ],
)
def test_a_malformed_special_token_names_its_position(entry, message):
    with pytest.raises((TypeError, ValueError), match=message):
        processors.TemplateProcessing("<s> $A", special_tokens=[entry])
