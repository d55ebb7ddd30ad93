"""``kvec.layers.TextVectorization`` on JAX, PyTorch and NumPy: no TensorFlow needed.

The layer reads strings (str or bytes, in lists or NumPy arrays), runs Keras' rules
(:mod:`kvec.layers.keras_rules`) or the kvec tokenizer on them in NumPy and kvec's native core, and
returns the backend's own array (``jax.Array``, ``torch.Tensor``, ``np.ndarray``) as
``keras.ops.convert_to_tensor`` makes it from an int64 or float32 array, which is what Keras' own layer
gives on that backend. ``ragged=True`` returns Python lists of ids, keras_hub's convention for ragged
outputs outside TensorFlow; ``sparse=True`` needs the TensorFlow backend.

Its configuration and its state (``vocabulary.txt``, ``idf_weights``, the tokenizer's assets) are laid
out in a ``.keras`` file as the TensorFlow host lays them out, so files cross backends both ways.
"""

from __future__ import annotations

import os
from typing import Any

import keras
import numpy as np

from kvec.layers.keras_rules import (
    OUTPUT_MODES,
    KerasText,
    KerasVocabulary,
    as_bytes,
    encode_ids,
    is_utf8,
    native_ragged,
    one_hot,
    vocabulary_lines,
)
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

__all__ = ["TextVectorization"]

VOCABULARY_ASSET = "vocabulary.txt"


class _Lookup(keras.layers.Layer):
    """The vocabulary's state where Keras' ``TextVectorization`` keeps its ``StringLookup``
    (``_lookup_layer``), so a ``.keras`` file holds it at the same paths on every backend."""

    def __init__(self, vocabulary: KerasVocabulary, keeps_vocabulary_in_config: bool, **kwargs):
        super().__init__(**kwargs)
        self.vocabulary = vocabulary
        self.in_config = keeps_vocabulary_in_config

    def save_own_variables(self, store):
        if self.vocabulary.output_mode == "tf_idf":
            store["idf_weights"] = self.vocabulary.idf_weights

    def load_own_variables(self, store):
        if self.vocabulary.output_mode == "tf_idf":
            self.vocabulary.idf_weights = np.asarray(store["idf_weights"], dtype=np.float32)

    def save_assets(self, dir_path):
        if not self.in_config:
            with open(os.path.join(dir_path, VOCABULARY_ASSET), "w", encoding="utf-8", newline="") as f:
                f.write("\n".join(self.vocabulary.get_vocabulary()))

    def load_assets(self, dir_path):
        if self.in_config:
            return
        with open(os.path.join(dir_path, VOCABULARY_ASSET), encoding="utf-8", newline="") as f:
            lines = vocabulary_lines(f.read())
        weights = self.vocabulary.idf_weights
        mode = self.vocabulary.output_mode
        self.vocabulary.output_mode = "int"  # the weights come with the variables
        try:
            self.vocabulary.set_vocabulary(lines)
        finally:
            self.vocabulary.output_mode = mode
            self.vocabulary.idf_weights = weights


def _registered_off_tensorflow(cls):
    """Register ``cls`` as ``kvec>TextVectorization`` where it is the backend's layer: on TensorFlow the
    name is :mod:`kvec.layers.tf_vectorization`'s, and importing this module there (its docs, its
    tests) must not take it over, or a ``.keras`` file would load into the class without the graph op."""
    if keras.backend.backend() == "tensorflow":
        return cls
    return keras.saving.register_keras_serializable(package="kvec")(cls)


@_registered_off_tensorflow
class TextVectorization(keras.layers.Layer):
    """A text vectorization layer that also takes a kvec tokenizer, on any Keras backend.

    Args:
        tokenizer: None (Keras' whitespace split), a trained :class:`kvec.Tokenizer` or
            :class:`kvec.Pipeline` (or a bare kvec model, an unfitted :class:`kvec.Tokenizer`,
            or a ``(pipeline, trainer)`` pair that ``adapt`` trains), or a word splitter such as
            :class:`kvec.chinese.Jieba`.
        max_tokens, standardize, split, ngrams, output_mode, output_sequence_length,
            pad_to_max_tokens, vocabulary, idf_weights, sparse, ragged, encoding: as in
            ``keras.layers.TextVectorization``.

    Example:
        >>> from kvec import Tokenizer
        >>> layer = TextVectorization(tokenizer=Tokenizer(oov_token="<unk>"), output_sequence_length=4)
        >>> layer.adapt(["the cat sat", "the dog"])
        >>> keras.ops.convert_to_numpy(layer(["the dog sat", "a cat"])).tolist()
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
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        _check_arguments(options, output_mode, output_sequence_length, ngrams, sparse, ragged)
        has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        kwargs.pop("vocabulary_size", None)
        super().__init__(name=name, **kwargs)
        self._kvec_kind = options.kind
        self._kvec_source = options.source
        self._standardize = options.standardize
        self._split = options.split
        self._ngrams_arg = ngrams
        self._output_mode = output_mode
        self._output_sequence_length = output_sequence_length
        self._ragged = ragged
        self._encoding = encoding
        ids = options.kind == "ids"
        self._max_tokens = max_tokens
        self._pad_to_max_tokens = bool(pad_to_max_tokens)
        self._has_input_vocabulary = has_input_vocabulary
        self._input_vocabulary = vocabulary
        self._input_idf_weights = idf_weights
        widths = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self._text = KerasText(options.standardize, options.split if options.kind is None else None, widths, encoding)
        self._vocabulary = KerasVocabulary(
            None if ids else max_tokens, False if ids else bool(pad_to_max_tokens), output_mode, encoding
        )
        self._lookup_layer = _Lookup(self._vocabulary, has_input_vocabulary and not ids)
        if ids:
            self._vocabulary.set_vocabulary([IDS_PLACEHOLDER], [1.0] if output_mode == "tf_idf" else None)
        elif vocabulary is not None:
            self._vocabulary.set_vocabulary(vocabulary, idf_weights)
        self._ids_idf = None  # document-frequency weights of a tf_idf layer over ids, learnt by adapt
        self._convert_input_args = False
        self._allow_non_tensor_positional_args = True
        self.supports_jit = False

    @property
    def compute_dtype(self):
        return "string"

    @property
    def variable_dtype(self):
        return "string"

    def build(self, input_shape=None):
        self.built = True

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

    # ---- text in --------------------------------------------------------------------------------

    def _strings(self, inputs):
        """``inputs`` as an object array of bytes, standardized."""
        if hasattr(inputs, "numpy") and not isinstance(inputs, np.ndarray):
            inputs = inputs.numpy()  # a tf.Tensor of strings, where TensorFlow is installed
        return self._text.standardized(as_bytes(inputs, self._encoding))

    def _rows_of(self, texts):
        """``texts`` (standardized bytes) as a flat list, squeezing a last axis of 1 as Keras does."""
        if texts.ndim > 1:
            if texts.shape[-1] != 1:
                raise ValueError(
                    "When using `TextVectorization` to tokenize strings, the input rank must be 1 or the last "
                    f"shape dimension must be 1. Received: inputs.shape={texts.shape} with rank={texts.ndim}"
                )
            texts = texts.reshape(texts.shape[:-1])
        return texts.reshape(-1).tolist()

    def _ragged_ids(self, texts):
        """``(values, row_lengths)`` of the ids of every text (split, looked up)."""
        flat = self._rows_of(texts)
        if self._kvec_kind == "ids":
            source = self._source()
            if is_utf8(self._encoding):
                return source.ids_of_utf8(flat)
            return source.ids([t.decode(self._encoding, "surrogateescape") for t in flat])
        if self._kvec_kind == "words":
            words, lengths = self._source().words([t.decode(self._encoding, "surrogateescape") for t in flat])
            ends = np.cumsum(lengths)
            rows = [words[end - n : end].tolist() for end, n in zip(ends.tolist(), lengths.tolist())]
            if self._text.ngrams:
                rows = [self._text.with_ngrams(row) for row in rows]
            return self._vocabulary.ragged_lookup(rows)
        return self._text.ragged_ids(flat, self._vocabulary)

    # ---- vocabulary -------------------------------------------------------------------------------

    def adapt(self, data: Any, batch_size: int | None = None, steps: int | None = None) -> None:
        """Learn the vocabulary (and ``tf_idf`` weights) from ``data``: a list or array of texts, or an
        iterable of batches (a ``tf.data.Dataset`` too, where TensorFlow is installed); a tokenizer
        with ids is fitted or trained on the texts if it was not."""
        batches = [self._strings(batch) for batch in _batches(data, steps)]
        if self._kvec_kind == "ids":
            texts = [t.decode(self._encoding, "surrogateescape") for b in batches for t in self._rows_of(b)]
            source = self._source()
            source.fit(texts)
            if self._output_mode == "tf_idf":
                values, row_lengths = source.ids(texts)
                self._ids_idf = ids_idf_weights(values, row_lengths, self._ids_depth())
            return
        if self._has_input_vocabulary:
            raise ValueError(
                f"Cannot adapt layer '{self.name}' after setting a static vocabulary via `vocabulary` "
                "argument or `set_vocabulary()` method."
            )
        vocabulary = self._vocabulary
        vocabulary.reset_counts()
        for batch in batches:
            vocabulary.count(self._documents(batch))
        vocabulary.finalize()

    def _documents(self, batch):
        """The token lists that Keras' ``update_state`` counts as documents for one batch."""
        if self._split is None and self._kvec_kind is None:
            if batch.ndim <= 1:  # one document of all the batch's texts
                return [batch.reshape(-1).tolist()]
            return [list(row) for row in batch.reshape(-1, batch.shape[-1]).tolist()]
        flat = self._rows_of(batch)
        if self._kvec_kind == "words":
            words, lengths = self._source().words([t.decode(self._encoding, "surrogateescape") for t in flat])
            ends = np.cumsum(lengths)
            rows = [words[end - n : end].tolist() for end, n in zip(ends.tolist(), lengths.tolist())]
            return [self._text.with_ngrams(r) for r in rows] if self._text.ngrams else rows
        return self._text.rows(flat)

    def get_vocabulary(self, include_special_tokens: bool = True) -> list[str]:
        """The vocabulary, each token at its id (for a tokenizer with ids, ``""`` where an id has no
        token, such as 0)."""
        if self._kvec_kind != "ids":
            return self._vocabulary.get_vocabulary(include_special_tokens)
        tokens = self._source().vocabulary()
        return tokens if include_special_tokens else [t for t in tokens if t]

    def vocabulary_size(self) -> int:
        if self._kvec_kind != "ids":
            return self._vocabulary.size()
        return len(self._source().vocabulary())

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        if self._kvec_kind == "ids":
            raise ValueError("the layer's vocabulary is its tokenizer's: set_vocabulary does not apply")
        self._vocabulary.set_vocabulary(vocabulary, idf_weights)

    def _ids_depth(self):
        size = self.vocabulary_size()
        if self._max_tokens is None or not self._pad_to_max_tokens:
            return size
        if self._max_tokens < size:
            raise ValueError(f"max_tokens={self._max_tokens} is smaller than the tokenizer's vocabulary ({size})")
        return self._max_tokens

    # ---- calling ---------------------------------------------------------------------------------

    def compute_output_shape(self, input_shape):
        if self._output_mode == "int":
            return (input_shape[0], self._output_sequence_length)
        if self._kvec_kind == "ids":
            return (input_shape[0], self._ids_depth() if self._kvec_source is not None else None)
        return (input_shape[0], self._vocabulary.depth())

    def compute_output_spec(self, inputs):
        dtype = "int64" if self._output_mode == "int" else keras.config.floatx()
        return keras.KerasTensor(self.compute_output_shape(inputs.shape), dtype=dtype)

    def __call__(self, *args, **kwargs):
        """Keras' ``Layer.__call__``, except that a built layer called on one NumPy array (or list) of
        strings, with no keyword and no distribution set, runs :meth:`call` at once: what Keras adds
        around it (tensor conversion, masks, the training flag, autocasting, output layouts) does
        nothing for strings in and ids out, and costs about as much as encoding a small batch."""
        if (
            self.built
            and not kwargs
            and len(args) == 1
            and _plain_strings(args[0])
            and keras.distribution.distribution() is None
        ):
            self._called = True
            return self.call(args[0])
        return super().__call__(*args, **kwargs)

    def call(self, inputs):
        if not self._vocabulary.ready:
            raise ValueError(
                f"layer {self.name!r} has no vocabulary: adapt() found no token or was not called; call adapt() "
                "on texts with tokens, or set_vocabulary()"
            )
        strings = _str_list(inputs) if self._takes_str_lists() else None
        ragged = self._str_ids(strings) if strings is not None else None
        if ragged is not None:  # str texts: no arrays of bytes on the way
            values, row_lengths = ragged
            return self._ids_output(values, row_lengths, False)
        texts = self._strings(inputs)
        scalar = texts.ndim == 0
        if scalar:
            texts = texts.reshape(1)
        if self._split is None and self._kvec_kind is None:
            outputs = self._dense_outputs(texts)
        else:
            values, row_lengths = self._ragged_ids(texts)
            return self._ids_output(values, row_lengths, scalar)
        if scalar:
            outputs = outputs[0]
        return keras.ops.convert_to_tensor(outputs)

    def _takes_str_lists(self):
        """Whether a list of str goes to kvec's native encoder in one call: Keras' rules where
        :attr:`KerasText.runs_natively`, or a tokenizer with ids that gets its texts as they are (no
        ``standardize``; its ``encode_ragged`` runs the same encoder where it is described)."""
        if self._kvec_kind is None:
            return self._text.runs_natively
        return self._kvec_kind == "ids" and self._text.standardize is None and is_utf8(self._encoding)

    def _str_ids(self, strings):
        """``(values, row_lengths)`` of a list of str (:meth:`_takes_str_lists`), or None for a text
        UTF-8 cannot carry (a lone surrogate), which then goes as bytes."""
        if self._kvec_kind == "ids":
            return self._source().ids(strings)
        try:
            return native_ragged(self._text.encoder(self._vocabulary), strings)
        except ValueError:
            return None

    def _ids_output(self, values, row_lengths, scalar):
        """The output of ragged ids as the backend's array (lists of ids when ``ragged``)."""
        ids = self._kvec_kind == "ids"
        if self._output_mode == "int":
            depth = 0  # (not read)
        else:
            depth = self._ids_depth() if ids else self._vocabulary.depth()
        outputs = encode_ids(
            values,
            row_lengths,
            self._output_mode,
            depth,
            self._output_sequence_length,
            self._idf_weights(),
            ragged=self._ragged,
            counts_dtype=np.float32 if ids else np.int64,  # as the TensorFlow host gives them
            ids_dtype=_backend_ids_dtype(),
            read_only=keras.backend.backend() == "jax",  # a JAX array is never written to
        )
        if scalar:
            outputs = outputs[0]
        return outputs if isinstance(outputs, list) else _backend_array(outputs)

    def _idf_weights(self):
        if self._output_mode != "tf_idf":
            return None
        if self._kvec_kind == "ids":
            if self._ids_idf is None:
                raise ValueError("a tf_idf layer learns its weights in adapt(): call adapt() first")
            return self._ids_idf
        return self._vocabulary.idf_weights

    def _dense_outputs(self, texts):
        """Keras' outputs with ``split=None``: each input is one token."""
        ids = self._vocabulary.lookup(texts)
        mode, depth = self._output_mode, self._vocabulary.depth()
        if mode == "int":
            length = self._output_sequence_length
            if length is None:
                return ids
            ids = ids[..., :length]
            pad = [(0, 0)] * (ids.ndim - 1) + [(0, length - ids.shape[-1])]
            return np.pad(ids, pad) if not self._ragged else ids
        if mode == "one_hot":
            return one_hot(ids, depth)
        rows = ids.reshape(-1, ids.shape[-1]) if ids.ndim > 1 else ids.reshape(1, -1)
        out = encode_ids(
            rows.reshape(-1),
            np.full(len(rows), rows.shape[1], np.int64),
            mode,
            depth,
            None,
            self._idf_weights(),
        )
        return out.reshape(ids.shape[:-1] + (depth,)) if ids.ndim > 1 else out[0]

    # ---- saving ----------------------------------------------------------------------------------

    def get_config(self):
        config = super().get_config()
        ids = self._kvec_kind == "ids"
        config.update(
            max_tokens=self._max_tokens,
            standardize=self._standardize,
            split=self._split,
            ngrams=self._ngrams_arg,
            output_mode=self._output_mode,
            output_sequence_length=self._output_sequence_length,
            pad_to_max_tokens=self._pad_to_max_tokens,
            sparse=False,
            ragged=self._ragged,
            vocabulary=_listed(self._input_vocabulary),
            idf_weights=_listed(self._input_idf_weights),
            encoding=self._encoding,
            vocabulary_size=self._vocabulary.size(),
        )
        if self._kvec_kind is None:
            return config
        config.pop("split", None)
        config["kvec_tokenizer"] = self._kvec_kind
        return ids_config(config, self._max_tokens, self._pad_to_max_tokens) if ids else config

    @classmethod
    def from_config(cls, config):
        config = keras_config(config)
        if "kvec_tokenizer" not in config:
            config.setdefault("split", None)
        config.pop("sparse", None)
        return cls(**config)

    def save_own_variables(self, store):
        self._lookup_layer.save_own_variables(store)

    def load_own_variables(self, store):
        self._lookup_layer.load_own_variables(store)

    def save_assets(self, dir_path):
        self._lookup_layer.save_assets(dir_path)
        if self._kvec_kind is not None:
            save_tokenizer_assets(dir_path, self._source(), self._ids_idf)

    def load_assets(self, dir_path):
        self._lookup_layer.load_assets(dir_path)
        if self._kvec_kind is None:
            return
        self._kvec_source, self._ids_idf = load_tokenizer_assets(dir_path, self._kvec_kind)


def _backend_ids_dtype():
    """The dtype the backend keeps int64 ids in, written straight by the padding: JAX's canonical
    int64 (int32 unless x64 is enabled), int64 elsewhere."""
    if keras.backend.backend() != "jax":
        return np.int64
    from jax import dtypes

    return dtypes.canonicalize_dtype(np.int64)


def _backend_array(array):
    """``array`` (made for this output, referenced nowhere else) as the backend's own, as
    ``keras.ops.convert_to_tensor`` makes it; on JAX, an array whose dtype JAX keeps goes to the device
    as it is (``jax.device_put``: no conversion on the way), and on the CPU JAX keeps an aligned buffer
    (:func:`kvec.layers.keras_rules.output_matrix`) as its own instead of copying it: nothing writes to
    it while the JAX array, or any array over its memory, lives (a big one's buffer is reused after)."""
    if keras.backend.backend() == "jax":
        import jax

        if jax.dtypes.canonicalize_dtype(array.dtype) == array.dtype:
            try:
                return jax.device_put(array, may_alias=True)
            except TypeError:  # a JAX older than may_alias: a copy
                return jax.device_put(array)
    return keras.ops.convert_to_tensor(array)


def _plain_strings(inputs):
    """Whether ``inputs`` are strings held by Python or NumPy (no backend tensor, no symbolic input)."""
    if isinstance(inputs, np.ndarray):
        return inputs.dtype.kind in "OSU"
    return isinstance(inputs, (str, bytes, list, tuple))


def _str_list(inputs):
    """``inputs`` as a list of str when it is a list or a 1-D NumPy array of str, else None."""
    if isinstance(inputs, np.ndarray):
        if inputs.ndim != 1 or inputs.dtype.kind not in "UO":
            return None
        inputs = inputs.tolist()
    if isinstance(inputs, list) and set(map(type, inputs)) <= {str}:
        return inputs
    return None


def _listed(value):
    if value is None or isinstance(value, str):
        return value
    return np.asarray(value).tolist() if not isinstance(value, list) else value


def _check_arguments(options, output_mode, output_sequence_length, ngrams, sparse, ragged):
    """Keras' checks of the arguments, and what this host cannot give."""
    if output_mode not in OUTPUT_MODES:
        raise ValueError(f"`output_mode` must be one of {OUTPUT_MODES}. Received: output_mode={output_mode}")
    if options.kind is None and options.split not in (None, "whitespace", "character") and not callable(options.split):
        raise ValueError(
            f"`split` must be None, 'whitespace', 'character' or a callable. Received: split={options.split}"
        )
    standardizations = (None, "lower_and_strip_punctuation", "lower", "strip_punctuation")
    if options.standardize not in standardizations and not callable(options.standardize):
        raise ValueError(
            f"`standardize` must be one of {standardizations} or a callable. "
            f"Received: standardize={options.standardize}"
        )
    if not (
        ngrams is None
        or isinstance(ngrams, int)
        or (isinstance(ngrams, tuple) and all(isinstance(n, int) for n in ngrams))
    ):
        raise ValueError(f"`ngrams` must be None, an integer, or a tuple of integers. Received: ngrams={ngrams}")
    if output_mode == "int" and not (output_sequence_length is None or isinstance(output_sequence_length, int)):
        raise ValueError(
            "`output_sequence_length` must be either None or an integer when `output_mode` is 'int'. "
            f"Received: output_sequence_length={output_sequence_length}"
        )
    if output_mode != "int" and output_sequence_length is not None:
        raise ValueError(
            "`output_sequence_length` must not be set if `output_mode` is not 'int'. "
            f"Received output_sequence_length={output_sequence_length}."
        )
    if ragged and output_mode != "int":
        raise ValueError(
            f"`ragged` must not be true if `output_mode` is not 'int'. Received: output_mode={output_mode}"
        )
    if sparse:
        raise ValueError(
            f"sparse=True needs the TensorFlow backend (KERAS_BACKEND=tensorflow); on {keras.backend.backend()} "
            "the layer returns dense arrays: leave sparse=False"
        )


def _batches(data, steps):
    """The batches of ``data`` as object arrays of strings (the texts as they are, not standardized)."""
    if hasattr(data, "as_numpy_iterator"):  # a tf.data.Dataset
        data = data.take(steps) if steps is not None else data
        return [np.asarray(b, dtype=object) for b in data.as_numpy_iterator()]
    if hasattr(data, "__iter__") and not isinstance(data, (list, tuple, np.ndarray, str, bytes)):
        return [np.asarray(b, dtype=object) for i, b in enumerate(data) if steps is None or i < steps]
    array = np.asarray(data, dtype=object)
    return [array.reshape(-1, 1) if array.ndim == 1 else array]
