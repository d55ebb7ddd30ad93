"""Seed 000's Chinese example two ways, and a subword Tokenizer feeding pad_sequences.

1. The article segments by hand (``' '.join(jieba.cut(text))``) before a Keras Tokenizer; kvec's
   ``Jieba`` analyzer does the segmenting itself. Both give the same word_index and sequences.
2. ``Tokenizer(subword="bpe")`` trains a BPE model on the texts and indexes its pieces: a word never seen
   in training still gets ids (its pieces), and ``sequences_to_texts`` joins the pieces back.

Run: ``.venv/bin/python examples/chinese_and_subwords.py``.
"""

import logging

import jieba

from kvec import Tokenizer, pad_sequences
from kvec.chinese import Jieba

CHINESE = [
    "生活就像一场旅行,如果你爱上了这场旅行,你将永远充满爱。",
    "梦想就像天上的星星,你可能永远无法触及,但如果你追随它们,它们将引领你走向你的命运。",
    "真正的幸福不在于拥有一切,而在于满足于你所拥有的。",
    "记忆是心灵的宝藏,它们蕴含着我们过去的智慧和美丽。",
]
FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n,。'

ENGLISH = [
    "Life is a journey, and if you fall in love with the journey, you will be in love forever.",
    "Dreams are like stars, you may never touch them, but if you follow them, they will lead you to your destiny.",
    "Memories are the heart's treasures, they hold the wisdom and beauty of our past.",
    "Nature is the most beautiful artist, its paintings are endless and always breathtaking.",
]


def chinese_two_ways():
    by_hand = Tokenizer(num_words=64, filters=FILTERS)
    by_hand.fit_on_texts([" ".join(jieba.cut(text)) for text in CHINESE])
    built_in = Tokenizer(num_words=64, filters=FILTERS, analyzer=Jieba())
    built_in.fit_on_texts(CHINESE)
    assert built_in.word_index == by_hand.word_index
    assert built_in.texts_to_sequences(CHINESE) == by_hand.texts_to_sequences([" ".join(jieba.cut(t)) for t in CHINESE])
    print("word_index (both ways):", dict(list(built_in.word_index.items())[:12]), "...")
    print("padded:\n", pad_sequences(built_in.texts_to_sequences(CHINESE), maxlen=16, padding="post"))


def subword_splitter():
    tokenizer = Tokenizer(subword="bpe", vocab_size=120, oov_token="<OOV>")
    tokenizer.fit_on_texts(ENGLISH)
    unseen = ["Journeys of memories never end."]
    sequences = tokenizer.texts_to_sequences(unseen)
    print("pieces:", tokenizer.analyzer(unseen[0].lower()))
    print("padded:\n", pad_sequences(sequences, maxlen=24, padding="post"))
    print("back to text:", tokenizer.sequences_to_texts(sequences))


if __name__ == "__main__":
    jieba.setLogLevel(logging.WARNING)
    chinese_two_ways()
    print()
    subword_splitter()
