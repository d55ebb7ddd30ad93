"""A Chinese classifier's input pipeline with jieba: ``kvec.layers.TextVectorization(tokenizer=Jieba())``.

Keras' own layer splits on spaces, which Chinese does not have. Here the layer segments with jieba,
learns its vocabulary from the words in ``adapt`` (as Keras does from whitespace words), and maps
batches of raw Chinese strings to ids inside ``tf.data``. The sentences are generated from topic
words (sports, finance, technology) and shared templates by a seeded random generator, so the example
needs no download; validation sentences use word combinations never seen in training, and a third of
all sentences mix in a word of another topic.

Run: ``.venv/bin/python examples/chinese_classifier.py``.
"""

import logging
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import jieba  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import kvec.layers  # noqa: E402
from kvec.chinese import Jieba  # noqa: E402

TOPICS = {
    "体育": [
        "足球",
        "篮球",
        "比赛",
        "冠军",
        "球队",
        "教练",
        "进球",
        "联赛",
        "运动员",
        "奥运会",
        "决赛",
        "球迷",
        "训练",
        "网球",
        "游泳",
    ],
    "财经": [
        "股票",
        "市场",
        "银行",
        "投资",
        "利率",
        "经济",
        "基金",
        "央行",
        "通货膨胀",
        "债券",
        "汇率",
        "企业",
        "利润",
        "消费",
        "贷款",
    ],
    "科技": [
        "手机",
        "芯片",
        "人工智能",
        "软件",
        "互联网",
        "电脑",
        "数据",
        "算法",
        "机器人",
        "网络",
        "程序员",
        "操作系统",
        "云计算",
        "屏幕",
        "电池",
    ],
}
TEMPLATES = [
    "今天的{0}让大家都很关注{1}",
    "记者报道说{0}和{1}都有新的变化",
    "专家认为{0}对{1}的影响很大",
    "最近{0}的消息很多，{1}也引起了讨论",
    "很多人在谈论{0}，特别是{1}",
    "{0}的发展离不开{1}",
    "昨天关于{0}的新闻提到了{1}",
    "我们应该更加重视{0}与{1}",
]
NAMES = list(TOPICS)


def sentences(rng, pairs):
    """One sentence per ``(topic, word, word)`` triple, in a random template; in a third of them the
    second word comes from another topic, so one word alone does not always tell the topic."""
    out = []
    for topic, a, b in pairs:
        if rng.random() < 1 / 3:
            other = NAMES[(topic + rng.integers(1, len(NAMES))) % len(NAMES)]
            b = TOPICS[other][rng.integers(len(TOPICS[other]))]
        out.append(TEMPLATES[rng.integers(len(TEMPLATES))].format(a, b))
    return out


def dataset(seed=0):
    """Training and validation sentences; no pair of topic words is in both."""
    rng = np.random.default_rng(seed)
    pairs = [(t, a, b) for t, words in enumerate(TOPICS.values()) for a in words for b in words if a != b]
    order = rng.permutation(len(pairs))
    cut = int(len(pairs) * 0.7)
    train = [pairs[i] for i in order[:cut]]
    val = [pairs[i] for i in order[cut:]]
    return (
        sentences(rng, train),
        np.array([t for t, _, _ in train]),
        sentences(rng, val),
        np.array([t for t, _, _ in val]),
    )


def main():
    jieba.setLogLevel(logging.WARNING)
    keras.utils.set_random_seed(0)
    train_texts, train_labels, val_texts, val_labels = dataset()
    print(f"{len(train_texts)} training and {len(val_texts)} validation sentences, topics {NAMES}")

    segmenter = Jieba()
    layer = kvec.layers.TextVectorization(tokenizer=segmenter, output_sequence_length=16)
    layer.adapt(train_texts)
    print(f"jieba: {val_texts[0]} -> {' / '.join(segmenter(val_texts[0]))}")
    print(f"vocabulary of {layer.vocabulary_size()} words, starting {[str(w) for w in layer.get_vocabulary()[:8]]}")
    print(f"ids: {layer([val_texts[0]]).numpy()[0].tolist()}")

    def to_ids(texts, labels):
        return layer(texts), labels

    train = tf.data.Dataset.from_tensor_slices((train_texts, train_labels)).shuffle(len(train_texts), seed=0).batch(32)
    train = train.map(to_ids, num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE)
    val = tf.data.Dataset.from_tensor_slices((val_texts, val_labels)).batch(64).map(to_ids)

    model = keras.Sequential(
        [
            keras.Input(shape=(16,), dtype="int64"),
            keras.layers.Embedding(layer.vocabulary_size(), 16, mask_zero=True),
            keras.layers.GlobalAveragePooling1D(),
            keras.layers.Dense(len(NAMES), activation="softmax"),
        ]
    )
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(train, validation_data=val, epochs=10, shuffle=False, verbose=0)  # the dataset shuffles
    _, accuracy = model.evaluate(val, verbose=0)
    chance = np.bincount(val_labels).max() / len(val_labels)
    print(f"validation accuracy: {accuracy:.3f} (chance {chance:.3f})")


if __name__ == "__main__":
    main()
