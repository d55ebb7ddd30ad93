"""A real text classification dataset built on the spot from the Python standard library: paragraphs of
the docstrings of its modules, labelled with the topic of their module (files, network, math, text).

Nothing is downloaded: the text is the installed Python's own documentation, so the examples that use
it run anywhere. Paragraphs that occur under more than one topic are left out, and the split into
training and validation texts is fixed by a seed.
"""

import importlib
import inspect
import re

import numpy as np

TOPICS = {
    "files": ["os", "shutil", "pathlib", "glob", "tempfile", "io", "zipfile", "tarfile", "filecmp", "fileinput"],
    "network": [
        "socket",
        "http.client",
        "http.server",
        "urllib.request",
        "urllib.parse",
        "email.message",
        "smtplib",
        "ftplib",
        "ssl",
        "imaplib",
    ],
    "math": ["math", "statistics", "decimal", "fractions", "random", "cmath", "numbers"],
    "text": [
        "json",
        "csv",
        "html.parser",
        "xml.etree.ElementTree",
        "string",
        "re",
        "textwrap",
        "difflib",
        "codecs",
        "unicodedata",
    ],
}
LABELS = list(TOPICS)


def _paragraphs(module):
    """The docstring paragraphs (six words or more) of a module's public functions, classes and methods."""
    seen = set()
    for name, member in sorted(vars(module).items()):
        if name.startswith("_"):
            continue
        members = [member]
        if inspect.isclass(member):
            members += [m for n, m in sorted(vars(member).items()) if not n.startswith("_")]
        for item in members:
            if not (inspect.isclass(item) or callable(item)) or id(item) in seen:
                continue
            seen.add(id(item))
            for paragraph in re.split(r"\n\s*\n", inspect.getdoc(item) or ""):
                paragraph = " ".join(paragraph.split())
                if len(paragraph.split()) >= 6:
                    yield paragraph


def load(validation_share=0.2, seed=0):
    """``(train_texts, train_labels, val_texts, val_labels)``; labels index :data:`LABELS`."""
    topic_of = {}
    for label, modules in enumerate(TOPICS.values()):
        for name in modules:
            for paragraph in _paragraphs(importlib.import_module(name)):
                topic_of.setdefault(paragraph, set()).add(label)
    texts = sorted(p for p, labels in topic_of.items() if len(labels) == 1)
    labels = np.array([next(iter(topic_of[t])) for t in texts])
    order = np.random.default_rng(seed).permutation(len(texts))
    cut = int(len(texts) * (1 - validation_share))
    train, val = order[:cut], order[cut:]
    return [texts[i] for i in train], labels[train], [texts[i] for i in val], labels[val]


def classifier(vocabulary_size, maxlen, input_dtype="int64"):
    """The small topic model the examples train on ids: embedding, average, two dense layers (compiled)."""
    import keras

    model = keras.Sequential(
        [
            keras.Input(shape=(maxlen,), dtype=input_dtype),
            keras.layers.Embedding(vocabulary_size, 32, mask_zero=True),
            keras.layers.GlobalAveragePooling1D(),
            keras.layers.Dense(32, activation="relu"),
            keras.layers.Dense(len(LABELS), activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    return model
