"""Training batches for Keras: :class:`kvec.data.batching.TokenBatches` as a ``keras.utils.PyDataset`` and
as a ``tf.data.Dataset``."""

import keras
import numpy as np

from kvec.data.batching import TokenBatches
from kvec.data.token_ids import ragged_ids

__all__ = ["TextBatches"]

_PY_DATASET_OPTIONS = ("workers", "use_multiprocessing", "max_queue_size")


class TextBatches(keras.utils.PyDataset):
    """Padded, length-bucketed batches of token ids that ``model.fit`` reads directly.

    Takes the arguments of :class:`kvec.data.batching.TokenBatches` (``sequences``, ``labels``,
    ``batch_size``, ``maxlen``, ``padding``, ``truncating``, ``pad_value``, ``bucket``,
    ``bucket_window``, ``shuffle``, ``seed``, ``dtype``), ``PyDataset``'s ``workers``,
    ``use_multiprocessing`` and ``max_queue_size``, and ``inputs``: ``"dict"`` (the default) gives
    ``{"input_ids", "attention_mask"}``, ``"input_ids"`` the id matrix alone.

    Bucketing reorders the texts: ``model.predict`` on these batches answers in batch order (pass
    ``bucket=False`` and ``shuffle=False`` to keep the texts' order).

    Example:
        >>> batches = TextBatches([[3, 4, 5], [6], [7, 8]], labels=[1, 0, 1], batch_size=2, inputs="input_ids")
        >>> x, y = batches[0]
        >>> x.tolist(), y.tolist()
        ([[3, 4, 5], [7, 8, 0]], [1, 1])
    """

    def __init__(self, sequences, labels=None, inputs="dict", **kwargs):
        options = {name: kwargs.pop(name) for name in _PY_DATASET_OPTIONS if name in kwargs}
        super().__init__(**options)
        if inputs not in ("dict", "input_ids"):
            raise ValueError(f'inputs must be "dict" or "input_ids", got {inputs!r}')
        self.batches = TokenBatches(sequences, labels=labels, **kwargs)
        self.inputs = inputs

    @classmethod
    def from_texts(cls, texts, tokenizer, labels=None, **kwargs):
        """The batches of ``texts`` encoded by any kvec tokenizer."""
        return cls(ragged_ids(tokenizer, list(texts)), labels=labels, **kwargs)

    @property
    def num_batches(self):
        return len(self.batches)

    def __len__(self):
        return len(self.batches)

    def __getitem__(self, index):
        batch = self.batches[index]
        if self.inputs == "dict":
            return batch
        if isinstance(batch, tuple):
            return batch[0]["input_ids"], batch[1]
        return batch["input_ids"]

    def on_epoch_end(self):
        self.batches.on_epoch_end()

    def padding_report(self):
        """See :meth:`kvec.data.batching.TokenBatches.padding_report`."""
        return self.batches.padding_report()

    def as_dataset(self):
        """The same batches as a ``tf.data.Dataset`` (one epoch per iteration; a shuffled one moves to
        its next epoch each time it is iterated to the end; needs TensorFlow)."""
        import tensorflow as tf

        first = self[0]
        signature = tf.nest.map_structure(
            lambda a: tf.TensorSpec(shape=(None,) * np.ndim(a), dtype=tf.as_dtype(np.asarray(a).dtype)), first
        )

        def epoch():
            for i in range(len(self)):
                yield self[i]
            self.on_epoch_end()

        dataset = tf.data.Dataset.from_generator(epoch, output_signature=signature)
        return dataset.apply(tf.data.experimental.assert_cardinality(len(self)))
