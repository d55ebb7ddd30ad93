"""``kvec.layers.TextVectorization`` on the TensorFlow backend: Keras' text vectorization layer with any
kvec tokenizer inside.

Without ``tokenizer=`` it is ``keras.layers.TextVectorization``, in-graph, output for output. With one,
the texts go to the tokenizer through ``tf.numpy_function`` (one call per batch):

* a tokenizer with a vocabulary of its own (:class:`kvec.Tokenizer`, :class:`kvec.Pipeline`,
  a bare model, or a ``(pipeline, trainer)`` pair that ``adapt`` trains) gives the ids the layer
  outputs, the same ids that tokenizer gives on its own;
* a word splitter (:class:`kvec.chinese.Jieba`, any kvec pre-tokenizer) replaces Keras' ``split``, and
  the layer learns its vocabulary from the words as Keras does.

The tokenizer is saved as a layer asset (``kvec_tokenizer.json``) in the ``.keras`` file, so
``keras.models.load_model`` brings the model back with ``import kvec.layers`` and no
``custom_objects``.
"""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import tensorflow as tf

from kvec.errors import ExportError
from kvec.layers import op_library
from kvec.layers.options import (
    IDS_PLACEHOLDER,
    KERAS_DEFAULT,
    TokenizerOptions,
    ids_config,
    ids_idf_weights,
    keras_config,
    load_tokenizer_assets,
    save_tokenizer_assets,
)
from kvec.layers.sources import IdSource
from kvec.native_spec import NotNativeError

__all__ = ["TextVectorization"]


def _string_tensor(inputs):
    """``inputs`` as a string tensor the way Keras' layer takes them: a tensor of another dtype is cast,
    not refused, so that tracing with Keras' default float32 signature (``model.export``) succeeds."""
    if not tf.is_tensor(inputs):
        inputs = tf.convert_to_tensor(inputs, dtype=tf.string)
    return inputs if inputs.dtype == tf.string else tf.cast(inputs, tf.string)


@keras.saving.register_keras_serializable(package="kvec")
class TextVectorization(keras.layers.TextVectorization):
    """A text vectorization layer that also takes a kvec tokenizer.

    Args:
        tokenizer: None (Keras' whitespace split), a trained :class:`kvec.Tokenizer` or
            :class:`kvec.Pipeline` (or a bare kvec model, or an unfitted
            :class:`kvec.Tokenizer` such as ``Tokenizer(subword="bpe")``, or a ``(pipeline, trainer)``
            pair such as ``kvec.presets.keras_subword("wordpiece", 8000)``, which ``adapt`` fits or
            trains), or a word splitter such as :class:`kvec.chinese.Jieba`.
        max_tokens, standardize, split, ngrams, output_mode, output_sequence_length,
            pad_to_max_tokens, vocabulary, idf_weights, sparse, ragged, encoding: as in
            ``keras.layers.TextVectorization``. With a tokenizer, ``standardize`` defaults to None
            (the tokenizer normalizes) and ``split`` must be left out. With a tokenizer that has its
            own vocabulary, ``ngrams``, ``vocabulary`` and ``"one_hot"`` do not apply, ``max_tokens``
            is the width of ``multi_hot``/``count``/``tf_idf`` outputs when ``pad_to_max_tokens``,
            and padding is id 0 (kvec's presets keep id 0 for their padding token).

    Example:
        >>> from kvec import Tokenizer
        >>> layer = TextVectorization(tokenizer=Tokenizer(oov_token="<unk>"), output_sequence_length=4)
        >>> layer.adapt(["the cat sat", "the dog"])
        >>> layer(["the dog sat", "a cat"]).numpy().tolist()
        [[2, 5, 4, 0], [1, 3, 0, 0]]
    """

    def __init__(
        self,
        max_tokens=None,
        standardize=KERAS_DEFAULT,
        split=KERAS_DEFAULT,
        ngrams=None,
        output_mode="int",
        output_sequence_length=None,
        pad_to_max_tokens=False,
        vocabulary=None,
        idf_weights=None,
        sparse=False,
        ragged=False,
        encoding="utf-8",
        tokenizer=None,
        name=None,
        **kwargs,
    ):
        options = TokenizerOptions(
            tokenizer,
            kwargs.pop("kvec_tokenizer", None),
            standardize,
            split,
            ngrams,
            vocabulary,
            idf_weights,
            output_mode,
        )
        kind, source, standardize = options.kind, options.source, options.standardize
        split = self._split_words if kind == "words" else options.split
        super().__init__(
            max_tokens=None if kind == "ids" else max_tokens,
            standardize=standardize,
            split=split,
            ngrams=ngrams,
            output_mode=output_mode,
            output_sequence_length=output_sequence_length,
            pad_to_max_tokens=False if kind == "ids" else pad_to_max_tokens,
            vocabulary=vocabulary,
            idf_weights=idf_weights,
            sparse=sparse,
            ragged=ragged,
            encoding=encoding,
            name=name,
            **kwargs,
        )
        self._kvec_kind = kind
        self._kvec_source = source
        self._ids_max_tokens = max_tokens if kind == "ids" else None
        self._ids_pad_to_max_tokens = bool(pad_to_max_tokens) if kind == "ids" else False
        if kind == "ids":
            # the Keras lookup inside is unused, but saved and loaded with the layer: it needs a token
            self._lookup_layer.set_vocabulary([IDS_PLACEHOLDER], idf_weights=[1.0] if output_mode == "tf_idf" else None)
        self._ids_sparse = bool(sparse)
        self._ids_idf = None  # document-frequency weights of a tf_idf layer over ids, learnt by adapt
        # a word splitter's vocabulary comes from vocabulary=, adapt, set_vocabulary or the assets
        self._words_ready = vocabulary is not None

    # ---- the tokenizer ----------------------------------------------------------------------------

    @property
    def tokenizer(self):
        """The kvec tokenizer inside (None for Keras' own split)."""
        source = self._kvec_source
        if source is None:
            return None
        return source.tokenizer if isinstance(source, IdSource) else source.splitter

    def _source(self):
        if self._kvec_source is None:
            raise ValueError(
                "this layer's tokenizer was not restored: load the model with keras.models.load_model, "
                "which reads it from the file's assets"
            )
        return self._kvec_source

    def _texts(self, array):
        encoding = self._encoding
        return [
            item.decode(encoding, "surrogateescape") if isinstance(item, bytes) else str(item)
            for item in array.tolist()
        ]

    def _numpy_ids(self, array):
        if self._encoding.lower().replace("-", "") == "utf8":
            return self._source().ids_of_utf8(array.tolist())
        return self._source().ids(self._texts(array))

    def _numpy_words(self, array):
        return self._source().words(self._texts(array))

    def _split_words(self, inputs):
        """Keras' ``split`` step done by the word splitter: a ragged tensor of words."""
        scalar = inputs.shape.rank == 0
        flat = tf.reshape(inputs, [-1])
        library, description = self._native_op()
        if library is not None:
            values, row_splits = library.kvec_split(flat, spec=description)
            return values if scalar else tf.RaggedTensor.from_row_splits(values, row_splits, validate=False)
        values, row_lengths = tf.numpy_function(self._numpy_words, [flat], [tf.string, tf.int64], stateful=False)
        values.set_shape([None])
        row_lengths.set_shape([None])
        if scalar:
            return values
        return tf.RaggedTensor.from_row_lengths(values, row_lengths, validate=False)

    def _ragged_ids(self, inputs):
        """The tokenizer's ids of every text, ragged; a scalar text gives a 1-D tensor."""
        inputs = self._preprocess(inputs)  # standardize only: split is None for this kind
        if inputs.shape.rank is not None and inputs.shape.rank > 1:
            if inputs.shape[-1] != 1:
                raise ValueError(
                    "When using `TextVectorization` to tokenize strings, the input rank must be 1 or the last "
                    f"shape dimension must be 1. Received: inputs.shape={inputs.shape}"
                )
            inputs = tf.squeeze(inputs, axis=-1)
        scalar = inputs.shape.rank == 0
        flat = tf.reshape(inputs, [-1])
        library, description = self._native_op()
        if library is not None:
            values, row_splits = library.kvec_encode(flat, spec=description)
            return tf.RaggedTensor.from_row_splits(values, row_splits, validate=False), scalar
        values, row_lengths = tf.numpy_function(self._numpy_ids, [flat], [tf.int64, tf.int64], stateful=False)
        values.set_shape([None])
        row_lengths.set_shape([None])
        return tf.RaggedTensor.from_row_lengths(values, row_lengths, validate=False), scalar

    def _native_op(self):
        """``(op library, description)`` when the tokenizer runs as kvec's graph op (``KvecEncode``,
        or ``KvecSplit`` for a word splitter), else ``(None, why not)``."""
        if self._encoding.lower().replace("-", "") != "utf8":
            return None, f"the op reads UTF-8 and the layer's encoding is {self._encoding!r}"
        try:
            description = self._source().description()
        except NotNativeError as e:
            return None, str(e)
        library = op_library.load()
        if library is None:
            return None, f"kvec's op library could not be built ({op_library.failure()})"
        return library, description

    # ---- vocabulary ----------------------------------------------------------------------------

    def adapt(self, data: Any, batch_size: int | None = None, steps: int | None = None) -> None:
        """Learn what the layer needs from ``data`` (a list or array of texts, or a ``tf.data.Dataset``,
        batched or not, or an iterable of batches).

        Keras' split and word splitters: the vocabulary of words (and document frequencies for
        ``tf_idf``), as Keras does. A tokenizer with ids: it is fitted or trained if it was not, and a
        ``tf_idf`` layer learns the document frequency of every id.
        """
        if self._kvec_kind != "ids":
            result = super().adapt(data, batch_size=batch_size, steps=steps)
            self._words_ready = True
            return result
        texts = self._adapt_texts(data, steps)
        source = self._source()
        source.fit(texts)
        if self._output_mode == "tf_idf":
            values, row_lengths = source.ids(texts)
            self._ids_idf = ids_idf_weights(values, row_lengths, self._ids_depth())

    def _adapt_texts(self, data, steps):
        """All texts of ``data`` as a list of str, standardized as the layer's calls will be."""
        if isinstance(data, tf.data.Dataset):
            batches = data.take(steps) if steps is not None else data
        elif (
            hasattr(data, "__iter__")
            and not isinstance(data, (list, tuple, np.ndarray, str))
            and not tf.is_tensor(data)
        ):
            batches = (batch for i, batch in enumerate(data) if steps is None or i < steps)
        else:
            batches = [data]
        texts = []
        for batch in batches:
            batch = self._preprocess(tf.convert_to_tensor(batch, dtype=tf.string))
            texts.extend(self._texts(np.reshape(batch.numpy(), [-1])))
        return texts

    def get_vocabulary(self, include_special_tokens: bool = True) -> list[str]:
        """The vocabulary, each token at its id. For a tokenizer with ids, id 0 (padding) is ``""``
        unless the tokenizer names it; ``include_special_tokens=False`` leaves out ``""`` entries."""
        if self._kvec_kind != "ids":
            return super().get_vocabulary(include_special_tokens)
        tokens = self._source().vocabulary()
        return tokens if include_special_tokens else [t for t in tokens if t]

    def vocabulary_size(self) -> int:
        if self._kvec_kind != "ids":
            return super().vocabulary_size()
        return len(self._source().vocabulary())

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        if self._kvec_kind == "ids":
            raise ValueError("the layer's vocabulary is its tokenizer's: set_vocabulary does not apply")
        super().set_vocabulary(vocabulary, idf_weights=idf_weights)
        self._words_ready = True

    def _ids_depth(self):
        size = self.vocabulary_size()
        if self._ids_max_tokens is None or not self._ids_pad_to_max_tokens:
            return size
        if self._ids_max_tokens < size:
            raise ValueError(f"max_tokens={self._ids_max_tokens} is smaller than the tokenizer's vocabulary ({size})")
        return self._ids_max_tokens

    # ---- calling ---------------------------------------------------------------------------------

    def compute_output_shape(self, input_shape):
        if self._kvec_kind != "ids" or self._output_mode == "int":
            return super().compute_output_shape(input_shape)
        return (input_shape[0], self._ids_depth() if self._kvec_source is not None else None)

    def call(self, inputs):
        if self._kvec_kind == "words" and not self._words_ready:
            raise ValueError("this layer has no vocabulary yet: call adapt() or set_vocabulary() first")
        if self._kvec_kind != "ids":
            if self._output_mode == "int" and not isinstance(inputs, (list, tuple, tf.RaggedTensor)):
                inputs = _string_tensor(inputs)
                if inputs.shape.rank == 0:
                    # one text as a batch of one: Keras' own path fails on an empty scalar text
                    return super().call(tf.reshape(inputs, [1]))[0]
            return super().call(inputs)
        ids, scalar = self._ragged_ids(inputs)
        if self._output_mode == "int":
            if self._ragged:
                return ids.values if scalar else ids
            length = self._output_sequence_length
            dense = ids.to_tensor(default_value=0, shape=[None, length])
            return dense[0] if scalar else dense
        depth = self._ids_depth()
        binary = self._output_mode == "multi_hot"
        if self._ids_sparse:
            counts = tf.sparse.bincount(ids, minlength=depth, maxlength=depth, binary_output=binary, axis=-1)
            counts = tf.SparseTensor(counts.indices, tf.cast(counts.values, tf.float32), counts.dense_shape)
            counts.set_shape([None, depth])
            if self._output_mode == "tf_idf":
                counts = counts.with_values(counts.values * tf.gather(self._idf_constant(), counts.indices[:, -1]))
            return tf.sparse.reshape(counts, [depth]) if scalar else counts
        counts = tf.math.bincount(
            ids, minlength=depth, maxlength=depth, binary_output=binary, axis=-1, dtype=tf.float32
        )
        counts.set_shape([None, depth])
        if self._output_mode == "tf_idf":
            counts = counts * self._idf_constant()
        return counts[0] if scalar else counts

    def _idf_constant(self):
        if self._ids_idf is None:
            raise ValueError("a tf_idf layer learns its weights in adapt(): call adapt() first")
        return tf.constant(self._ids_idf)

    # ---- saving ----------------------------------------------------------------------------------

    def _trackable_children(self, save_type="checkpoint", **kwargs):
        # tf.saved_model.save (and so model.export) walks the objects it saves through here, before it
        # writes anything: a layer whose tokenizer runs through tf.numpy_function would be saved as a
        # Python callback that no other process holds, so it stops the save instead.
        if save_type == "savedmodel" and self._kvec_kind is not None:
            library, why = self._native_op()
            if library is None:
                raise ExportError(
                    f"layer {self.name!r}: its tokenizer runs in Python through tf.numpy_function, which a "
                    f"SavedModel cannot hold (a loaded model would fail to serve), because {why}; save the "
                    "model as a .keras file instead, which keeps the tokenizer"
                )
        return super()._trackable_children(save_type, **kwargs)

    def get_config(self):
        config = super().get_config()
        if self._kvec_kind is None:
            return config
        config.pop("split", None)
        config["kvec_tokenizer"] = self._kvec_kind
        if self._kvec_kind == "ids":
            return ids_config(config, self._ids_max_tokens, self._ids_pad_to_max_tokens)
        return config

    @classmethod
    def from_config(cls, config):
        if "kvec_tokenizer" in config:
            return cls(**keras_config(config))
        return super().from_config(dict(config))

    def save_assets(self, dir_path):
        super().save_assets(dir_path)
        if self._kvec_kind is not None:
            save_tokenizer_assets(dir_path, self._source(), self._ids_idf)

    def load_assets(self, dir_path):
        super().load_assets(dir_path)
        if self._kvec_kind is None:
            return
        self._kvec_source, self._ids_idf = load_tokenizer_assets(dir_path, self._kvec_kind)
        self._words_ready = True
