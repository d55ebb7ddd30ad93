"""Text classification the Keras 2 way, on Keras 3: ``kvec.Tokenizer`` + ``kvec.pad_sequences`` + a
small model that learns.

The texts are paragraphs of the Python standard library's docstrings, labelled with their module's
topic (files, network, math, text; see ``stdlib_topics.py``). The tokenizer keeps the 2,000 most
frequent words, sequences are padded to 96 ids, and an embedding with average pooling learns the
topics. It prints the validation accuracy against chance (the share of the largest class).

Run: ``.venv/bin/python examples/classify_with_tokenizer.py``.
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import stdlib_topics  # noqa: E402

from kvec import Tokenizer, pad_sequences  # noqa: E402

NUM_WORDS, MAXLEN = 2000, 96


def main():
    keras.utils.set_random_seed(0)
    train_texts, train_labels, val_texts, val_labels = stdlib_topics.load()
    print(f"{len(train_texts)} training and {len(val_texts)} validation paragraphs, topics {stdlib_topics.LABELS}")

    tokenizer = Tokenizer(num_words=NUM_WORDS, oov_token="<OOV>")
    tokenizer.fit_on_texts(train_texts)
    x_train = pad_sequences(tokenizer.texts_to_sequences(train_texts), maxlen=MAXLEN, padding="post", truncating="post")
    x_val = pad_sequences(tokenizer.texts_to_sequences(val_texts), maxlen=MAXLEN, padding="post", truncating="post")
    print(
        f"{len(tokenizer.word_index)} distinct words; inputs {x_train.shape}; "
        f"first text: {x_train[0][:12].tolist()} ..."
    )

    model = keras.Sequential(
        [
            keras.Input(shape=(MAXLEN,), dtype="int32"),
            keras.layers.Embedding(NUM_WORDS, 32, mask_zero=True),
            keras.layers.GlobalAveragePooling1D(),
            keras.layers.Dense(32, activation="relu"),
            keras.layers.Dense(len(stdlib_topics.LABELS), activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(x_train, train_labels, validation_data=(x_val, val_labels), epochs=12, batch_size=32, verbose=0)
    _, accuracy = model.evaluate(x_val, val_labels, verbose=0)
    chance = np.bincount(val_labels).max() / len(val_labels)
    print(f"validation accuracy: {accuracy:.3f} (chance {chance:.3f})")


if __name__ == "__main__":
    main()
