"""kvec's main job on embedded data: the Keras Tokenizer examples of seed article 000, run with kvec.

The English example fits a Tokenizer and prints its dictionaries; the Chinese example segments with jieba
(as the article does, ``' '.join(jieba.cut(text))``), fits, converts to sequences and pads them with
``pad_sequences(maxlen=32, padding='post', truncating='pre')``. The printed output matches the article.

Run: ``make demo`` (or ``.venv/bin/python examples/demo.py``).
"""

import logging

import jieba

from kvec import pad_sequences
from kvec.text import Tokenizer

ENGLISH = [
    "Life is a journey, and if you fall in love with the journey, you will be in love forever.",
    "Dreams are like stars, you may never touch them, but if you follow them, they will lead you to your destiny.",
    "Memories are the heart's treasures, they hold the wisdom and beauty of our past.",
    "Nature is the most beautiful artist, its paintings are endless and always breathtaking.",
    "True happiness is not about having everything, but about being content with what you have.",
    "Wisdom comes with age, but more often with experience.",
    "Music has the power to transport us to a different place, a different time.",
    "Love is blind, but often sees more than others.",
    "Time heals all wounds, but only if you let it.",
    "Home is where the heart is, and for many, that is where the memories are.",
]

CHINESE = [
    "生活就像一场旅行,如果你爱上了这场旅行,你将永远充满爱。",
    "梦想就像天上的星星,你可能永远无法触及,但如果你追随它们,它们将引领你走向你的命运。",
    "真正的幸福不在于拥有一切,而在于满足于你所拥有的。",
    "记忆是心灵的宝藏,它们蕴含着我们过去的智慧和美丽。",
    "大自然是最美丽的艺术家,它的画作无边无际,总是令人叹为观止。",
    "智慧往往随着年龄的增长而增加,但更多时候是随着经验的积累而到来。",
    "音乐有能力将我们带到一个不同的地方、一个不同的时间。",
    "爱是盲目的,但往往比别人看得更清楚。",
    "时间可以治愈一切伤痛,但前提是你必须让它过去。",
    "家是心灵的归宿,对许多人来说,也是记忆的所在。",
]


def english():
    tokenizer = Tokenizer(
        num_words=64,
        filters='!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n',
        lower=True,
        split=" ",
        char_level=False,
        oov_token=None,
        document_count=0,
    )
    tokenizer.fit_on_texts(ENGLISH)
    print("处理的文档数量,document_count: ", tokenizer.document_count)
    print("单词到索引的映射,word_index: \n", tokenizer.word_index)
    print("索引到单词的映射,index_word: \n", tokenizer.index_word)
    print("每个单词出现的总频次,word_counts: \n", tokenizer.word_counts)


def cut_text(text):
    return " ".join(jieba.cut(text))


def chinese():
    tokenizer = Tokenizer(num_words=64, filters='!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n,。')
    splits = [cut_text(text) for text in CHINESE]
    tokenizer.fit_on_texts(splits)
    print("处理的文档数量,document_count: ", tokenizer.document_count)
    print("词语到索引的映射,word_index: \n", tokenizer.word_index)
    print("索引到词语的映射,index_word: \n", tokenizer.index_word)
    print("每个词语出现的总频次,word_counts: \n", tokenizer.word_counts)
    tokens = tokenizer.texts_to_sequences(splits)
    tokens_pad = pad_sequences(tokens, maxlen=32, padding="post", truncating="pre")
    print("splits:\n", splits)
    print("tokens:\n", tokens)
    print("tokens_pad:\n", tokens_pad)


if __name__ == "__main__":
    jieba.setLogLevel(logging.WARNING)
    english()
    print()
    chinese()
