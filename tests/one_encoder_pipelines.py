"""Pipelines of every kind kvec's one native encoder describes (csrc/core/spec_encoder.h), shared by
tests/test_one_encoder.py (encode_batch takes that encoder) and tests/test_one_encoder_op.py (the
TensorFlow op gives encode_batch's ids): BERT-like WordPiece, byte-level BPE, sentencepiece-style
Unigram, a Keras word lookup and jieba."""

from kvec import Tokenizer
from kvec.chinese import Jieba
from kvec.interop.huggingface import from_tokenizer_json_str
from kvec.models import WordPiece
from kvec.pipeline import Pipeline
from kvec.presets import sentencepiece_style
from kvec.trainers import UnigramTrainer
from tests.support import hf_trained

TRAIN = ["low lower lowest 2024 ab", "naïve café ▁x 中文 中文", "Hello world's 12345", "the cat sat on the mat"] * 5
ALPHABET = "abcABCéÉ中文x12,!. \t\n\u3000\u0301ΣẞİIlowerst😀[PAD]<sep>▁'"


def pipelines():
    """``{name: pipeline}``: the pipelines encode_batch encodes."""
    bert = from_tokenizer_json_str(hf_trained("bert_wordpiece").to_str())
    bert.add_tokens(["Low"])
    byte_level = from_tokenizer_json_str(hf_trained("bytelevel_bpe").to_str())
    unigram = sentencepiece_style(user_defined_symbols=["<sep>"])
    unigram.train_from_iterator(TRAIN, UnigramTrainer(vocab_size=150, byte_fallback=True, special_tokens=["<unk>"]))
    vocab = {"[UNK]": 0, "中": 1, "文": 2, "中文": 3, "a": 4, "low": 5, "##er": 6, "ab": 7}
    jieba = Pipeline(WordPiece(vocab), pre_tokenizer=Jieba())
    jieba.add_special_tokens(["[PAD]"])
    return {"bert": bert, "byte_level": byte_level, "sentencepiece_style": unigram, "jieba": jieba}


def keras_words():
    """A Keras word lookup (kvec.Tokenizer, whose texts_to_sequences is its encode)."""
    tokenizer = Tokenizer(num_words=30, oov_token="<OOV>")
    tokenizer.fit_on_texts(TRAIN)
    return tokenizer
