"""Special tokens and templates: Hugging Face tokenizers' ids, tokens, offsets, type ids and masks."""

import json

from hypothesis import given
from hypothesis import strategies as st

from kvec import decoders, normalizers
from kvec.models import Unigram, WordPiece
from kvec.pipeline import Tokenizer
from kvec.presets import sentencepiece_style
from kvec.pretokenizers import BertPreTokenizer, ByteLevel
from kvec.processors import TemplateProcessing
from kvec.trainers import BpeTrainer
from tests.support import Oracle

HFTokenizer = Oracle("tokenizers", "Tokenizer")
hf_decoders = Oracle("tokenizers.decoders")
hf_models = Oracle("tokenizers.models")
hf_normalizers = Oracle("tokenizers.normalizers")
hf_pre_tokenizers = Oracle("tokenizers.pre_tokenizers")
hf_processors = Oracle("tokenizers.processors")
hf_trainers = Oracle("tokenizers.trainers")

SPECIALS = ["[CLS]", "[SEP]", "[MASK]", "[SEP]x", "<|endoftext|>"]
TEXT = st.lists(
    st.sampled_from(SPECIALS + ["a", "b", "ab", " ", "A", "[", "]", "é", "中", "cls", "\n"]), max_size=12
).map("".join)
VOCAB = {
    t: i for i, t in enumerate(["[UNK]", "a", "b", "ab", "c", "[CLS]", "[SEP]", "[", "]", "é", "中", "##b", "##a"])
}
SINGLE, PAIR = "[CLS] $A [SEP]", "[CLS] $A [SEP] $B:1 [SEP]:1"


def bert_pair():
    theirs = HFTokenizer(hf_models.WordPiece(VOCAB, unk_token="[UNK]"))
    theirs.normalizer = hf_normalizers.BertNormalizer()
    theirs.pre_tokenizer = hf_pre_tokenizers.BertPreTokenizer()
    ours = Tokenizer(WordPiece(VOCAB), pre_tokenizer=BertPreTokenizer(), normalizer=normalizers.BertNormalizer())
    for tokenizer in (theirs, ours):
        tokenizer.add_special_tokens(SPECIALS)
    return theirs, ours


def view(encoding):
    return encoding.ids, encoding.tokens, encoding.offsets, encoding.type_ids, encoding.special_tokens_mask


@given(first=TEXT, second=st.none() | TEXT, template=st.booleans(), add=st.booleans())
def test_special_tokens_and_templates_equal_hf(first, second, template, add):
    theirs, ours = bert_pair()
    if template:
        ids = [("[CLS]", 5), ("[SEP]", 6)]
        theirs.post_processor = hf_processors.TemplateProcessing(single=SINGLE, pair=PAIR, special_tokens=ids)
        ours.post_processor = TemplateProcessing(SINGLE, PAIR, special_tokens=ids)
    expected = theirs.encode(first, second, add_special_tokens=add)
    got = ours.encode(first, second, add_special_tokens=add)
    assert view(got) == view(expected)
    for skip in (True, False):
        assert ours.decode(got.ids, skip_special_tokens=skip) == theirs.decode(expected.ids, skip_special_tokens=skip)
    assert [view(e) for e in ours.encode_batch([first, first + "a"])] == [
        view(e) for e in theirs.encode_batch([first, first + "a"])
    ]


@given(corpus=st.lists(TEXT, min_size=1, max_size=6), probe=TEXT)
def test_byte_level_training_cuts_out_special_tokens_like_hf(corpus, probe):
    alphabet = ByteLevel.alphabet()
    theirs = HFTokenizer(hf_models.BPE())
    theirs.pre_tokenizer = hf_pre_tokenizers.ByteLevel()
    theirs.decoder = hf_decoders.ByteLevel()
    theirs.train_from_iterator(
        corpus,
        hf_trainers.BpeTrainer(
            vocab_size=300, initial_alphabet=alphabet, special_tokens=["<|endoftext|>"], show_progress=False
        ),
    )
    ours = Tokenizer(None, pre_tokenizer=ByteLevel(), decoder=decoders.ByteLevel())
    ours.train_from_iterator(
        corpus, BpeTrainer(vocab_size=300, initial_alphabet=alphabet, special_tokens=["<|endoftext|>"])
    )
    assert ours.get_vocab() == json.loads(theirs.to_str())["model"]["vocab"]
    assert view(ours.encode(probe)) == view(theirs.encode(probe))
    assert ours.decode(ours.encode(probe).ids) == theirs.decode(theirs.encode(probe).ids)


def test_special_tokens_and_template_survive_save_and_load(tmp_path):
    _, ours = bert_pair()
    ours.post_processor = TemplateProcessing(SINGLE, PAIR, special_tokens=[("[CLS]", 5), ("[SEP]", 6)])
    path = tmp_path / "bert.json"
    ours.save(path)
    loaded = Tokenizer.from_file(path)
    for first, second in (("ab [MASK] c", "b"), ("<|endoftext|>a", None)):
        assert view(loaded.encode(first, second)) == view(ours.encode(first, second))
    assert loaded.get_vocab() == ours.get_vocab()


def test_a_whole_text_model_encodes_texts_of_special_tokens_in_a_batch_as_one_by_one():
    # the special token matches no text as a piece and there is no unk_id: only the full path, which
    # cuts the special token out first, can encode these texts
    model = Unigram([("▁", -1.0), ("a", -1.0), ("▁a", -1.5), ("<pad>", 0.0)], unmatchable=[3])
    pipeline = sentencepiece_style(model)
    pipeline.add_special_tokens(["<pad>"])
    texts = ["<pad>", "a<pad>a", "a a", ""]
    assert [e.ids for e in pipeline.encode_batch(texts)] == [[3], [2, 3, 2], [2, 2], []]
    assert [e.ids for e in pipeline.encode_batch(texts)] == [pipeline.encode(t).ids for t in texts]
