"""What a :class:`kvec.layers.TextVectorization` gets from its ``tokenizer=``: token ids, or words.

* :class:`IdSource` wraps a tokenizer that has a vocabulary of its own (a :class:`kvec.Tokenizer`, a
  :class:`kvec.pipeline.Pipeline`, a bare model, or a ``(pipeline, trainer)`` pair still to train):
  the layer outputs its ids as they are.
* :class:`WordSplitterSource` wraps a word splitter (a :class:`kvec.chinese.Jieba` or another kvec
  pre-tokenizer): the layer builds its vocabulary from the words, as Keras does from whitespace words.

Both store themselves as one JSON document, so a saved model needs no code to come back. This module
knows nothing of TensorFlow: it turns lists of texts into NumPy arrays.
"""

import json

import numpy as np

from kvec.contracts import Model, PreTokenizer, settings_key
from kvec.data.token_ids import as_id_tokenizer, ragged_ids
from kvec.errors import FormatError, parse_json
from kvec.files import serialization
from kvec.native_spec import NotNativeError, describe, describe_splitter
from kvec.pipeline import Pipeline
from kvec.text import Tokenizer, tokenizer_from_json

__all__ = ["IdSource", "WordSplitterSource", "source_from_json", "token_source"]


def _described(describe_function, tokenizer):
    """The description of ``tokenizer``, or the NotNativeError saying why there is none (either is kept
    by a source, so a layer describes its tokenizer once)."""
    try:
        return describe_function(tokenizer)
    except NotNativeError as e:
        return e


def _settings(tokenizer):
    """A key that changes when a stage of ``tokenizer`` is given a new setting or, for a Jieba, a new
    word (:func:`kvec.contracts.settings_key`): the description made before is then made again."""
    stages = [tokenizer]
    if isinstance(tokenizer, Pipeline):
        stages = [tokenizer.normalizer, tokenizer.pre_tokenizer, tokenizer.model]
    elif hasattr(tokenizer, "analyzer"):  # a kvec.Tokenizer: its analyzer (a Jieba's words)
        stages = [tokenizer.analyzer]
    return tuple(settings_key(stage) for stage in stages)


def _description_or_raise(description):
    """A kept description, or a fresh NotNativeError with the kept one's message."""
    if isinstance(description, NotNativeError):
        raise NotNativeError(str(description))
    return description


class IdSource:
    """Token ids from a tokenizer with its own vocabulary."""

    kind = "ids"

    def __init__(self, tokenizer, trainer=None):
        self.tokenizer = tokenizer
        self.trainer = trainer
        self._description = None  # bytes, or the NotNativeError that says why there are none
        self._described_with = None  # the settings it was made with (see _settings)

    def description(self):
        """The tokenizer described for the native encoder outside Python (:mod:`kvec.native_spec`);
        :class:`kvec.native_spec.NotNativeError` naming what it cannot describe."""
        if not self.trained:
            raise ValueError("the layer's tokenizer is not trained yet: call adapt() first")
        key = _settings(self.tokenizer)
        if self._description is None or self._described_with != key:
            self._description, self._described_with = _described(describe, self.tokenizer), key
        return _description_or_raise(self._description)

    def prepare(self):
        """Build what the first call would (a pipeline's C encoder and its character table)."""
        if isinstance(self.tokenizer, Pipeline) and self.trained:
            self.tokenizer._fast_encoder()

    @property
    def trained(self):
        if isinstance(self.tokenizer, Pipeline):
            return self.tokenizer.model is not None
        return bool(self.tokenizer.word_index)

    def fit(self, texts):
        """Train (a pipeline with its trainer) or fit (a :class:`kvec.Tokenizer`) on ``texts``, unless
        that was done before."""
        if self.trained:
            return
        if isinstance(self.tokenizer, Pipeline):
            if self.trainer is None:
                raise ValueError(
                    "this pipeline has no model and no trainer: pass tokenizer=(pipeline, trainer), "
                    "for example kvec.presets.keras_subword('bpe', 8000)"
                )
            self.tokenizer.train_from_iterator(texts, self.trainer)
        else:
            self.tokenizer.fit_on_texts(texts)
        self._description = None
        self.prepare()

    def ids(self, texts):
        """``(values, row_lengths)`` of the ids of ``texts`` (a list of str)."""
        if not self.trained:
            raise ValueError("the layer's tokenizer is not trained yet: call adapt() first")
        return ragged_ids(self.tokenizer, texts)

    def ids_of_utf8(self, texts):
        """:meth:`ids` of UTF-8 ``bytes`` texts: a pipeline reads them without a ``str`` copy here."""
        if isinstance(self.tokenizer, Pipeline) and self.trained:
            try:
                return self.tokenizer.encode_ragged(texts)
            except UnicodeDecodeError:
                pass
        return self.ids([text.decode("utf-8", "surrogateescape") for text in texts])

    def vocabulary(self):
        """Every token the ids can name, at its id (``""`` where an id has no token, such as 0)."""
        if isinstance(self.tokenizer, Pipeline):
            vocab = self.tokenizer.get_vocab()
            tokens = [""] * (max(vocab.values(), default=-1) + 1)
        else:
            vocab = self.tokenizer.word_index
            tokens = [""] * (len(vocab) + 1)
            if self.tokenizer.uses_model_vocabulary:
                tokens = [""] * (max(vocab.values(), default=0) + 1)
        for token, token_id in vocab.items():
            if token_id < len(tokens):
                tokens[token_id] = token
        num_words = None if isinstance(self.tokenizer, Pipeline) else self.tokenizer.num_words
        return tokens if not num_words else tokens[:num_words]

    def to_json(self):
        if isinstance(self.tokenizer, Pipeline):
            if not self.trained:
                raise ValueError("the layer's tokenizer is not trained yet: call adapt() before saving")
            return json.dumps({"kvec_pipeline": self.tokenizer.to_document()}, ensure_ascii=False)
        return json.dumps(
            {"kvec_tokenizer": json.loads(self.tokenizer.to_json(ensure_ascii=False))}, ensure_ascii=False
        )


class WordSplitterSource:
    """Words from a splitter; the layer's own vocabulary gives them ids."""

    kind = "words"

    def prepare(self):
        """Nothing to build ahead: a splitter loads what it needs (jieba's dictionary) on first use."""

    def __init__(self, splitter):
        self.splitter = splitter
        self._description = None  # bytes, or the NotNativeError that says why there are none
        self._described_with = None  # the settings it was made with (see _settings)

    def description(self):
        """The splitter described for the native encoder outside Python
        (:func:`kvec.native_spec.describe_splitter`), made once (a Jieba's holds its dictionary);
        :class:`kvec.native_spec.NotNativeError` naming what it cannot describe."""
        key = _settings(self.splitter)
        if self._description is None or self._described_with != key:
            self._description, self._described_with = _described(describe_splitter, self.splitter), key
        return _description_or_raise(self._description)

    def words(self, texts):
        """``(values, row_lengths)``: the words of all texts as one object array of UTF-8 ``bytes``
        (what ``tf.numpy_function`` hands to a string tensor), and how many each text has."""
        split_words = self.splitter.split_words
        rows = [split_words(text) for text in texts]
        row_lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        values = np.empty(int(row_lengths.sum()), dtype=object)
        values[:] = [word.encode("utf-8", "surrogatepass") for row in rows for word in row]
        return values, row_lengths

    def to_json(self):
        return json.dumps(
            {"kvec_pre_tokenizer": serialization.component_document("pre_tokenizer", self.splitter)}, ensure_ascii=False
        )


def token_source(tokenizer):
    """The :class:`IdSource` or :class:`WordSplitterSource` of a ``tokenizer=`` argument."""
    if isinstance(tokenizer, tuple) and len(tokenizer) == 2 and isinstance(tokenizer[0], Pipeline):
        return IdSource(tokenizer[0], trainer=tokenizer[1])
    if isinstance(tokenizer, (Tokenizer, Pipeline, Model)):
        return IdSource(as_id_tokenizer(tokenizer))
    if isinstance(tokenizer, PreTokenizer):
        try:
            serialization.component_document("pre_tokenizer", tokenizer)
        except TypeError:
            pass
        else:
            return WordSplitterSource(tokenizer)
    raise TypeError(
        "tokenizer must be a kvec.Tokenizer, a kvec.Pipeline, a kvec model, a (pipeline, trainer) "
        f"pair, or a kvec pre-tokenizer such as kvec.chinese.Jieba; got {type(tokenizer).__name__}"
    )


def source_from_json(text, source):
    """Rebuild what :meth:`IdSource.to_json` or :meth:`WordSplitterSource.to_json` wrote; ``source`` names
    the file in a :class:`kvec.errors.FormatError`."""
    document = parse_json(text, source)
    if not isinstance(document, dict) or len(document) != 1:
        raise FormatError(source, "expected an object with one tokenizer entry")
    ((key, value),) = document.items()
    if key == "kvec_pipeline":
        restored = IdSource(Pipeline.from_document(value, source))
        restored.prepare()
        return restored
    if key == "kvec_tokenizer":
        try:
            return IdSource(tokenizer_from_json(json.dumps(value)))
        except FormatError as e:
            raise FormatError(source, e.problem) from None
    if key == "kvec_pre_tokenizer":
        return WordSplitterSource(serialization.component("pre_tokenizer", value, source))
    raise FormatError(source, f"unknown tokenizer entry {key!r}")
