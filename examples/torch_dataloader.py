"""``kvec.layers.TextVectorization`` in a ``torch.utils.data.DataLoader`` with worker processes, feeding
``model.fit`` on PyTorch, without TensorFlow.

The task of ``classify_with_tokenizer.py`` (docstring paragraphs of the standard library by topic):

1. ``layer.adapt`` trains a 2,000-token BPE (``kvec.presets.keras_subword``) on the training texts.
2. The DataLoader's ``collate_fn`` vectorizes each batch of texts with the layer, in two worker
   processes started with ``spawn``: the layer (its trained BPE included) is pickled to each worker.
3. ``model.fit`` reads the DataLoader directly, as Keras does for PyTorch.

Needs ``pip install 'kvec[torch]'``. Run: ``python examples/torch_dataloader.py``.
"""

import os

os.environ.setdefault("KERAS_BACKEND", "torch")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import stdlib_topics  # noqa: E402
import torch  # noqa: E402

import kvec.layers  # noqa: E402
from kvec.presets import keras_subword  # noqa: E402

MAXLEN = 96


class Vectorize:
    """A DataLoader's ``collate_fn``: a batch of ``(text, label)`` pairs to ``(ids, labels)`` tensors."""

    def __init__(self, layer):
        self.layer = layer

    def __call__(self, batch):
        texts, labels = zip(*batch)
        return torch.as_tensor(keras.ops.convert_to_numpy(self.layer(list(texts)))), torch.tensor(labels)


def loader(layer, texts, labels, shuffle):
    return torch.utils.data.DataLoader(
        list(zip(texts, labels.tolist())),
        batch_size=32,
        shuffle=shuffle,
        collate_fn=Vectorize(layer),
        num_workers=2,
        multiprocessing_context="spawn",  # each worker gets the layer pickled
        persistent_workers=True,
        generator=torch.Generator().manual_seed(0),
    )


def main():
    keras.utils.set_random_seed(0)
    train_texts, train_labels, val_texts, val_labels = stdlib_topics.load()
    layer = kvec.layers.TextVectorization(tokenizer=keras_subword("bpe", 2000), output_sequence_length=MAXLEN)
    layer.adapt(train_texts)
    print(f"backend {keras.backend.backend()}; BPE of {layer.vocabulary_size()} tokens")

    classifier = stdlib_topics.classifier(layer.vocabulary_size(), MAXLEN)
    classifier.fit(loader(layer, train_texts, train_labels, shuffle=True), epochs=12, shuffle=False, verbose=0)
    _, accuracy = classifier.evaluate(loader(layer, val_texts, val_labels, shuffle=False), verbose=0)
    chance = np.bincount(val_labels).max() / len(val_labels)
    print(f"validation accuracy: {accuracy:.3f} (chance {chance:.3f})")


if __name__ == "__main__":
    main()
