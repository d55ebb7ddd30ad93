"""Keras-compatible text tokenization.

A drop-in for ``keras.preprocessing.text`` (``keras_preprocessing`` 1.1.2 and the legacy ``tf.keras``
copy): the same names, arguments, attributes and outputs, including the quirks existing scripts rely on,
but with the per-word Python loops replaced by C-level counting and lookups.

Migrating a Keras script means changing its import lines only: the script's
``keras.preprocessing.text`` import of ``Tokenizer`` and ``tokenizer_from_json`` becomes::

    from kvec.text import Tokenizer, tokenizer_from_json

Differences from the legacy code are limited to inputs it could not handle: texts that are not strings
raise a ``TypeError`` naming their position (instead of an ``AttributeError`` from deep inside),
``word_docs`` is filled in first-occurrence order (the legacy order depended on string hashing),
a loaded tokenizer can be fitted further, and a failed ``fit_on_texts`` leaves the tokenizer unchanged.
"""

from __future__ import annotations

import json
import os
import warnings
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from functools import lru_cache, partial
from itertools import chain, repeat
from operator import is_, is_not, itemgetter
from typing import Any, TypeGuard, cast

import numpy as np

from kvec._encoder import id_rows
from kvec._keras import WordCounter, WordSplitter
from kvec._spec import SpecEncoder
from kvec.chinese import Jieba
from kvec.common.arguments import must_be, type_name, wrong_type
from kvec.common.collector import collector_paused
from kvec.contracts import NATIVE_DESCRIBERS, Model
from kvec.data.count_matrix import MATRIX_MODES, count_matrix
from kvec.errors import FormatError, NotNativeError, parse_json
from kvec.pipeline import Pipeline, native_ids
from kvec.pre_tokenizers import DEFAULT_FILTERS, WhitespaceSplit
from kvec.presets import keras_subword

__all__ = [
    "CHINESE_PUNCTUATION",
    "DEFAULT_FILTERS",
    "Tokenizer",
    "hashing_trick",
    "one_hot",
    "text_to_word_sequence",
    "tokenizer_from_json",
]

# added to the default filters when a Jieba analyzer segments Chinese
CHINESE_PUNCTUATION = "，。！？、；：“”‘’（）《》【】…—"

_drop_none = partial(filter, partial(is_not, None))


class SubwordAnalyzer(Pipeline):
    """A pipeline that a :class:`Tokenizer` made for itself (trained by ``subword=``, or read back
    from its JSON): called with one text and nothing else it gives the text's tokens
    (:meth:`Pipeline.analyze`), the ``analyzer`` call scripts made on ``tokenizer.analyzer`` before
    pipelines took transformers' call; any other call is transformers' (:meth:`Pipeline.__call__`)."""

    def __call__(self, text: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or not isinstance(text, str):
            return super().__call__(text, *args, **kwargs)
        return self.analyze(text)

    @classmethod
    def _taking_over(cls, pipeline: Pipeline) -> SubwordAnalyzer:
        """``pipeline``'s stages and settings in a ``SubwordAnalyzer`` (for a pipeline nothing else holds)."""
        analyzer = cls.__new__(cls)
        analyzer.__dict__.update(pipeline.__dict__)
        return analyzer


def _analyze(analyzer):
    """The callable ``text -> tokens`` of an analyzer: a pipeline's :meth:`Pipeline.analyze` (calling a
    pipeline is the transformers call), any other callable as it is."""
    return analyzer.analyze if isinstance(analyzer, Pipeline) else analyzer


def _warn_unless_bool(value, name):
    """A ``UserWarning`` naming ``name`` when a yes/no argument is not a bool. The legacy code reads any
    value by its truth (``lower="no"`` lowercases), so kvec does too, and says so; a value that has no
    truth (a NumPy array) is a ``TypeError``, where the legacy code fails later."""
    if isinstance(value, (bool, np.bool_)):
        return
    try:
        truth = bool(value)
    except Exception:  # noqa: BLE001 (any error of __bool__ means the same: no truth value)
        raise wrong_type(name, "a bool", value) from None
    warnings.warn(
        f"{name} should be a bool, got {type_name(value)} {value!r:.40}: read as {truth}", UserWarning, stacklevel=3
    )


def _warn_if_one_text(texts, method):
    """A ``UserWarning`` when ``texts`` is a single str: the legacy code reads it as a list of
    one-character texts, and so does kvec."""
    if isinstance(texts, str):
        warnings.warn(
            f"{method}: texts is one str, read as a list of its {len(texts)} characters (as Keras does); "
            "pass [text] for one text",
            UserWarning,
            stacklevel=3,
        )


# --------------------------------------------------------------------------------------------------
# Word splitting


class _WordRule:
    """The legacy word rule for one ``(filters, split)`` pair.

    The rule is: replace every filter character by ``split``, split on ``split``, drop empty pieces.
    With a one-character ``split`` that is exactly "maximal runs of characters that are neither a filter
    nor the split character", which the native splitter finds in one pass per text (``native``).
    A longer ``split`` keeps the literal legacy algorithm (``native`` is None).
    """

    def __init__(self, filters, split):
        if len(split) == 1 and all(len(c) == 1 for c in filters):
            self.native: WordSplitter | None = WordSplitter("".join(sorted(set(filters) | {split})))
        else:
            self.native = None
            self._translation = str.maketrans({c: split for c in filters})
        self._split = split

    def words(self, text, lower):
        if self.native is not None:
            return self.native.split(text, lower)
        if lower:
            text = text.lower()
        return [piece for piece in text.translate(self._translation).split(self._split) if piece]


@lru_cache(maxsize=128)
def _compile_rule(filters, split):
    return _WordRule(filters, split)


def _word_rule(filters, split):
    if not isinstance(split, str):
        raise wrong_type("split", "a str", split)
    if not split:
        raise ValueError("split must be a non-empty string")
    key: str | tuple[str, ...]
    if isinstance(filters, str):
        key = filters
    else:
        try:
            key = tuple(filters)
        except TypeError:
            raise wrong_type("filters", "a str of characters", filters) from None
        for i, c in enumerate(key):
            if not isinstance(c, str) or len(c) != 1:
                raise must_be(f"filters[{i}]", "a single character", c)
    return _compile_rule(key, split)


def text_to_word_sequence(text: str, filters: str = DEFAULT_FILTERS, lower: bool = True, split: str = " ") -> list[str]:
    """Convert a text to a list of words.

    Lowercases (if ``lower``), treats every character of ``filters`` as a separator, splits on
    ``split`` and drops empty pieces, exactly as ``keras.preprocessing.text.text_to_word_sequence``.

    Args:
        text: the input string.
        filters: characters to remove (each acts as a separator). Default: punctuation, tab and newline,
            but not the apostrophe.
        lower: whether to lowercase the text first.
        split: the word separator.

    Returns:
        A list of words.

    Example:
        >>> text_to_word_sequence("Hello, world! It's me.")
        ['hello', 'world', "it's", 'me']
    """
    if not isinstance(text, str):
        raise wrong_type("text", "a str", text)
    _warn_unless_bool(lower, "lower")
    return _word_rule(filters, split).words(text, lower)


def hashing_trick(
    text: str,
    n: int,
    hash_function: Callable[[str], int] | str | None = None,
    filters: str = DEFAULT_FILTERS,
    lower: bool = True,
    split: str = " ",
    analyzer: Callable[[str], list[str]] | Pipeline | None = None,
) -> list[int]:
    """Convert a text to a list of word indices in a hashing space of size ``n``.

    Each word ``w`` becomes ``hash_function(w) % (n - 1) + 1``, so indices lie in ``[1, n - 1]`` and
    0 stays free for padding. Distinct words may collide.

    Args:
        text: the input string.
        n: the size of the hashing space (at least 2).
        hash_function: ``None`` for Python's ``hash`` (salted per process: results change between runs
            unless ``PYTHONHASHSEED`` is fixed), ``'md5'`` for a stable hash, or any callable
            ``str -> int``.
        filters, lower, split: as in :func:`text_to_word_sequence`.
        analyzer: a callable ``str -> list of words`` used instead of them (as tf.keras' copy takes
            it), such as a :class:`kvec.pipeline.Pipeline` for subword tokens.

    Example:
        >>> hashing_trick("the cat and the hat", 100, hash_function="md5")
        [51, 3, 69, 51, 24]
        >>> hashing_trick("the-cat", 100, hash_function="md5", analyzer=lambda text: text.split("-"))
        [51, 3]
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise wrong_type("n", "an int", n)
    if n < 2:
        raise ValueError(f"n must be at least 2, got {n}")
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":
        from hashlib import md5  # here, not with the module: OpenSSL's memory only where md5 hashes

        hash_function = partial(_md5_hash, md5)
    elif not callable(hash_function):
        raise TypeError(f"hash_function must be None, 'md5' or a callable, got {hash_function!r}")
    if analyzer is not None and not callable(analyzer):
        raise wrong_type("analyzer", "a callable or None", analyzer)
    modulus = n - 1
    words = text_to_word_sequence(text, filters, lower, split) if analyzer is None else _analyze(analyzer)(text)
    return [hash_function(w) % modulus + 1 for w in words]


def _md5_hash(md5, word):
    return int(md5(word.encode()).hexdigest(), 16)


def one_hot(
    text: str,
    n: int,
    filters: str = DEFAULT_FILTERS,
    lower: bool = True,
    split: str = " ",
    analyzer: Callable[[str], list[str]] | Pipeline | None = None,
) -> list[int]:
    """``hashing_trick(text, n, hash_function=hash, ...)``: word indices in ``[1, n - 1]``.

    Python's ``hash`` is salted per process; use ``hashing_trick(..., hash_function='md5')`` for
    results that are stable across runs.

    Example:
        >>> len(one_hot("a b c", 10))
        3
    """
    return hashing_trick(text, n, hash_function=hash, filters=filters, lower=lower, split=split, analyzer=analyzer)


# --------------------------------------------------------------------------------------------------
# The Tokenizer


class Tokenizer:
    """Text tokenization utility class, identical in behaviour to the legacy Keras ``Tokenizer``.

    Vectorizes a text corpus by turning each text into a sequence of integers (each the index of a token
    in a dictionary) or into a vector whose coefficient for each token is binary, a count, a frequency
    or a tf-idf weight. Index 0 is reserved and never assigned to a word.

    Args:
        num_words: if set, only the ``num_words - 1`` most frequent words are used when transforming
            texts (the dictionaries keep every word).
        filters: characters removed from the texts (each acts as a separator). The default is all
            punctuation plus tab and newline, minus the ``'`` character.
        lower: whether to lowercase the texts.
        split: the word separator.
        char_level: if True, every character is a token.
        oov_token: if given, it takes index 1 and replaces out-of-vocabulary words in
            ``texts_to_sequences``.
        analyzer: a callable ``text -> list of tokens`` that replaces lowercasing, filtering and
            splitting, such as a trained :class:`kvec.pipeline.Pipeline` (subword tokens). A
            :class:`kvec.chinese.Jieba` analyzer is a segmenter instead: the text is cut into words
            and then lowercased, filtered and split as usual, as ``' '.join(jieba.cut(text))`` fed to
            a Keras tokenizer would be; the default filters then also remove Chinese punctuation
            (``CHINESE_PUNCTUATION``).
        document_count: initial number of documents (as the legacy constructor).
        subword: ``"bpe"``, ``"bytelevel_bpe"``, ``"wordpiece"`` or ``"unigram"`` to train that
            subword model (:func:`kvec.presets.keras_subword`) on the texts of the first
            ``fit_on_texts``, then count its tokens as words: no text has out-of-vocabulary words
            any more. Later ``fit_on_texts`` calls count with the same model (it is not retrained).
        vocab_size: the size of that model's vocabulary (default 8000); other keyword arguments go to
            its trainer.
        nb_words: deprecated alias of ``num_words`` (accepted with a warning).

    :meth:`from_model` builds a tokenizer whose ``word_index`` is a model's own vocabulary.

    Example:
        >>> tok = Tokenizer(num_words=10, oov_token="<OOV>")
        >>> tok.fit_on_texts(["The cat sat.", "The dog sat down!"])
        >>> tok.word_index
        {'<OOV>': 1, 'the': 2, 'sat': 3, 'cat': 4, 'dog': 5, 'down': 6}
        >>> tok.texts_to_sequences(["the cat ran"])
        [[2, 4, 1]]
    """

    def __init__(
        self,
        num_words: int | None = None,
        filters: str | Iterable[str] = DEFAULT_FILTERS,
        lower: bool = True,
        split: str = " ",
        char_level: bool = False,
        oov_token: str | None = None,
        analyzer: Callable[[str], list[str]] | Pipeline | None = None,
        document_count: int = 0,
        subword: str | None = None,
        vocab_size: int = 8000,
        **kwargs: Any,
    ) -> None:
        if "nb_words" in kwargs:
            warnings.warn("The `nb_words` argument in `Tokenizer` has been renamed `num_words`.")  # noqa: B028 (as the legacy code)
            num_words = kwargs.pop("nb_words")
        if subword is not None:
            if analyzer is not None:
                raise ValueError("give an analyzer or a subword model to train, not both")
            # the recipe validates the kind, the size and the trainer options now
            keras_subword(subword, vocab_size, lower, filters, split, **dict(kwargs))
            self.subword: dict[str, Any] | None = {"kind": subword, "vocab_size": vocab_size, "options": dict(kwargs)}
        elif kwargs:
            raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
        else:
            self.subword = None
        if num_words is not None:
            if isinstance(num_words, bool) or not isinstance(num_words, (int, np.integer)):
                raise wrong_type("num_words", "an int or None", num_words)
            if num_words < 0:
                raise ValueError(f"num_words must be >= 0, got {num_words}")
        if oov_token is not None and not isinstance(oov_token, str):
            raise wrong_type("oov_token", "a str or None", oov_token)
        if analyzer is not None and not callable(analyzer):
            raise wrong_type("analyzer", "a callable text -> tokens", analyzer)
        if isinstance(document_count, bool) or not isinstance(document_count, (int, np.integer)):
            raise wrong_type("document_count", "an int", document_count)
        _warn_unless_bool(lower, "lower")
        _warn_unless_bool(char_level, "char_level")
        _word_rule(filters, split)  # validates both now rather than at the first text

        self.word_counts: OrderedDict[str, int] = OrderedDict()
        self.word_docs: defaultdict[str, int] = defaultdict(int)
        self.filters = filters
        self.split = split
        self.lower = lower
        self.num_words = num_words
        self.document_count = document_count
        self.char_level = char_level
        self.oov_token = oov_token
        self.analyzer = analyzer
        self.index_docs: defaultdict[int, int] = defaultdict(int)
        self.word_index: dict[str, int] = {}
        self.index_word: dict[int, str] = {}
        self.uses_model_vocabulary = False  # from_model: word_index is the model's own vocabulary

    @classmethod
    def from_model(
        cls, model: Pipeline | Model, num_words: int | None = None, oov_token: str | None = None
    ) -> Tokenizer:
        """A tokenizer whose ``word_index`` is the vocabulary of ``model`` (a trained
        :class:`kvec.pipeline.Pipeline`, or a bare model that reads whitespace-separated words), so
        ``texts_to_sequences`` gives the ids a pretrained network
        expects (a BERT ``vocab.txt`` with its ``[UNK]``, ``[CLS]``...). Index 0 stays padding: the
        model's token with id 0 (``[PAD]`` in BERT) is left out. ``fit_on_texts`` only counts (for
        matrices); the vocabulary never changes.

        Example:
            >>> from kvec.models import WordPiece
            >>> from kvec.pipeline import Pipeline
            >>> from kvec.pre_tokenizers import Whitespace
            >>> bert = Pipeline(WordPiece({"[PAD]": 0, "[UNK]": 1, "un": 2, "##able": 3}), pre_tokenizer=Whitespace())
            >>> Tokenizer.from_model(bert).texts_to_sequences(["unable un x"])
            [[2, 3, 2, 1]]
        """
        if isinstance(model, Model):  # a bare model reads whitespace-separated words
            model = Pipeline(model, pre_tokenizer=WhitespaceSplit())
        if not isinstance(model, Pipeline):
            raise wrong_type("model", "a kvec.Pipeline or a kvec model", model)
        tokenizer = cls(num_words=num_words, oov_token=oov_token, analyzer=model)
        tokenizer._use_model_vocabulary()
        return tokenizer

    def _use_model_vocabulary(self):
        self.uses_model_vocabulary = True
        vocab = cast(Pipeline, self.analyzer).get_vocab()  # a model's vocabulary: the analyzer is its pipeline
        self.word_index = {t: i for t, i in sorted(vocab.items(), key=itemgetter(1)) if i != 0}
        self.index_word = {i: t for t, i in self.word_index.items()}

    # ---- turning one text into tokens ------------------------------------------------------------

    def _native_rule(self):
        """The native splitter when plain ``str`` texts can take the fast path, else None."""
        if self.char_level or self.analyzer is not None:
            return None
        return _word_rule(self.filters, self.split).native

    def _segmented_filters(self):
        """The filters of the Keras rule applied to a Jieba analyzer's words: the default filters gain
        Chinese punctuation."""
        return self.filters + CHINESE_PUNCTUATION if self.filters == DEFAULT_FILTERS else self.filters

    def _tokenize_function(self):
        """Return ``tokens(text, position)`` for the current settings (built once per call)."""
        rule = _word_rule(self.filters, self.split)
        lower, char_level, analyzer, split = self.lower, self.char_level, _analyze(self.analyzer), self.split
        if isinstance(analyzer, Jieba):  # segment first, then the Keras rule
            rule, segmenter, analyzer = _word_rule(self._segmented_filters(), split), analyzer, None
        else:
            segmenter = None

        def tokens(text, position):
            if isinstance(text, list):
                return _token_list(text, position, lower)
            if char_level:
                if not isinstance(text, str):
                    raise wrong_type(f"texts[{position}]", "a str or a list of str", text)
                return text.lower() if lower else text
            if analyzer is not None:
                return analyzer(text)
            if not isinstance(text, str):
                raise wrong_type(f"texts[{position}]", "a str or a list of str", text)
            if segmenter is not None:
                text = split.join(segmenter.split_words(text))
            return rule.words(text, lower)

        return tokens

    # ---- fitting ---------------------------------------------------------------------------------

    def fit_on_texts(self, texts: Iterable[str | list[str]]) -> None:
        """Update the vocabulary from a list (or any iterable) of texts.

        Each text is a string, or a list of string tokens used as they are (lowercased if ``lower``).
        Counts add up across calls and all indices are recomputed. The tokenizer is left unchanged if a
        text is invalid.

        Example:
            >>> tok = Tokenizer()
            >>> tok.fit_on_texts(["a b b", "b c"])
            >>> tok.word_index, tok.document_count
            ({'b': 1, 'a': 2, 'c': 3}, 2)
        """
        _warn_if_one_text(texts, "fit_on_texts")
        if self.subword is not None and self.analyzer is None:
            texts = self._train_subword(texts)
        tokens = self._tokenize_function()
        native, lower, pipeline = self._native_rule(), self.lower, self.analyzer
        counted = None
        if isinstance(pipeline, Pipeline) and pipeline.post_processor is None and _all_str(texts):
            counted = _subword_counts(pipeline, texts)  # through the pipeline's batch encoder
        if counted is None:
            counter = WordCounter()
            if native is not None and _all_str(texts):  # one native call for the whole list
                counter.add_texts(native, texts, lower)
            else:
                for position, text in enumerate(_iterate(texts, "texts")):
                    if native is not None and type(text) is str:
                        counter.add_texts(native, [text], lower)
                    else:
                        counter.add_tokens(tokens(text, position))
            counted = (*counter.result(), counter.documents)
        words, counts, documents, n_documents = counted

        self.document_count += n_documents
        word_counts, word_docs = self.word_counts, self.word_docs
        if not word_counts and not word_docs:  # a first fit: the counts are the new ones
            word_counts.update(zip(words, counts))
            word_docs.update(zip(words, documents))
        else:
            for w, c, d in zip(words, counts, documents):
                word_counts[w] = word_counts.get(w, 0) + c
                word_docs[w] = word_docs.get(w, 0) + d
        self._rebuild_index()

    def _train_subword(self, texts):
        """Train the ``subword`` model on the texts (all str); returns them as a list."""
        texts = list(_iterate(texts, "texts"))
        for position, text in enumerate(texts):
            if not isinstance(text, str):
                raise wrong_type(f"texts[{position}]", "a str to train the subword model", text)
        subword = cast(dict[str, Any], self.subword)  # set whenever the subword model trains
        pipeline, trainer = keras_subword(
            subword["kind"],
            subword["vocab_size"],
            self.lower,
            self.filters,
            self.split,
            **subword["options"],
        )
        pipeline.train_from_iterator(texts, trainer)
        self.analyzer = SubwordAnalyzer._taking_over(pipeline)
        return texts

    def _rebuild_index(self):
        if self.uses_model_vocabulary:  # only the document counts follow the texts
            self.index_docs.update({self.word_index[w]: c for w, c in self.word_docs.items() if w in self.word_index})
            return
        # A stable sort on the count, descending: ties keep first-occurrence order.
        words = list(self.word_counts)
        counts = np.fromiter(self.word_counts.values(), dtype=np.int64, count=len(words))
        order = np.argsort(-counts, kind="stable").tolist()
        vocabulary = [] if self.oov_token is None else [self.oov_token]
        vocabulary.extend(map(words.__getitem__, order))
        self.word_index = dict(zip(vocabulary, range(1, len(vocabulary) + 1)))
        self.index_word = dict(zip(self.word_index.values(), self.word_index.keys()))
        word_docs = self.word_docs
        self.index_docs.update(zip(map(self.word_index.__getitem__, list(word_docs)), word_docs.values()))

    def fit_on_sequences(self, sequences: Sequence[Sequence[int]]) -> None:
        """Update document frequencies (``index_docs``) from sequences of word indices.

        Needed before ``sequences_to_matrix(mode="tfidf")`` when ``fit_on_texts`` was never called.

        Example:
            >>> tok = Tokenizer()
            >>> tok.fit_on_sequences([[1, 2, 2], [2, 3]])
            >>> dict(tok.index_docs), tok.document_count
            ({1: 1, 2: 2, 3: 1}, 2)
        """
        if not hasattr(sequences, "__len__"):
            raise wrong_type("sequences", "a list of sequences", sequences)
        per_document: list[int] = []
        for position, seq in enumerate(sequences):
            try:
                per_document.extend(set(seq))
            except TypeError:
                raise TypeError(
                    f"sequences[{position}] must be a sequence of int indices, got {type_name(seq)}"
                ) from None
        self.document_count += len(sequences)
        index_docs = self.index_docs
        for i, c in Counter(per_document).items():
            index_docs[i] = index_docs.get(i, 0) + c

    # ---- texts -> sequences ----------------------------------------------------------------------

    def texts_to_sequences(self, texts: Iterable[str | list[str]]) -> list[list[int]]:
        """Transform each text into a list of word indices.

        Only words known to the tokenizer count; with ``num_words`` only the ``num_words - 1`` most
        frequent. Other words are dropped, or become the ``oov_token`` index when one is set.

        Example:
            >>> tok = Tokenizer(oov_token="?")
            >>> tok.fit_on_texts(["a b b"])
            >>> tok.texts_to_sequences(["b a z"])
            [[2, 3, 1]]
        """
        if _all_str(texts):
            encoded = self._word_encoded(texts)
            if encoded is not None:  # one native call
                with collector_paused():  # many new lists, no cycle among them
                    return id_rows(*encoded)
            lookup, oov_index, _ = self._ids_functions()
            pipeline = self.analyzer
            if isinstance(pipeline, Pipeline) and pipeline.post_processor is None and lookup is not None:
                return _subword_sequences(pipeline, texts, lookup, oov_index)
        return list(self.texts_to_sequences_generator(texts))

    def texts_to_sequences_generator(self, texts: Iterable[str | list[str]]) -> Iterator[list[int]]:
        """Generator version of :meth:`texts_to_sequences`: yields one list of indices per text."""
        if self.subword is not None and self.analyzer is None:
            raise ValueError(
                f"this Tokenizer(subword={self.subword['kind']!r}) has no model yet: it trains one on the "
                "first fit_on_texts, so call fit_on_texts before converting texts"
            )
        _warn_if_one_text(texts, "texts_to_sequences")
        tokens = self._tokenize_function()
        lookup, oov_index, to_ids = self._ids_functions()
        encoder = self._word_encoder()
        for position, text in enumerate(_iterate(texts, "texts")):
            encoded = None if encoder is None or type(text) is not str else native_ids(encoder, [text], None)
            yield to_ids(tokens(text, position)) if encoded is None else id_rows(*encoded)[0]

    def _word_encoded(self, texts: list[str]) -> tuple[bytes, bytes] | None:
        """``(values, row_lengths)`` of ``texts`` from :meth:`_word_encoder`'s encoder, or None where
        there is none or it refuses a text (a lone surrogate): then the Python path serves them."""
        encoder = self._word_encoder()
        return None if encoder is None else native_ids(encoder, texts, None)

    def _word_encoder(self) -> SpecEncoder | None:
        """The native encoder (:class:`kvec._spec.SpecEncoder`) of this tokenizer's word rule and
        ``word_index`` (described by :mod:`kvec.native_spec`), made once and again when ``word_index``
        (in place too: any value assigned, even an equal one of another type), ``num_words``,
        ``oov_token``, ``filters`` (a list of characters in place too), ``split``, ``lower`` or
        ``char_level`` change. None where it does not apply: an analyzer or a subword model, a
        ``split`` longer than one character, an ``oov_token`` missing from ``word_index``, or an index
        that is not an int64 >= 0 (the Python path keeps such an index as it is)."""
        describe = NATIVE_DESCRIBERS.get("keras_tokenizer")
        if describe is None or self.analyzer is not None or self.subword is not None:
            return None
        filters = self.filters  # a list of characters may change in place: its characters are compared
        held_filters = filters if isinstance(filters, str) or not isinstance(filters, Collection) else tuple(filters)
        settings = (self.num_words, self.oov_token, held_filters, self.split, self.lower, self.char_level)
        word_index = self.word_index
        cached = self.__dict__.get("_encoder_cache")
        if cached is not None and cached[0] == settings and cached[1] is word_index and _holds(cached[2], word_index):
            return cached[3]
        try:
            encoder = SpecEncoder(describe(self))
        except (NotNativeError, ValueError):  # ValueError: a word UTF-8 cannot carry (from a token list)
            encoder = None
        self.__dict__["_encoder_cache"] = (settings, word_index, _held(word_index), encoder)
        return encoder

    def __getstate__(self) -> dict[str, Any]:
        """The tokenizer's state for pickling, without the cached native encoder."""
        state = self.__dict__.copy()
        state.pop("_encoder_cache", None)
        return state

    def _ids_functions(self):
        """The legacy num_words / oov_token rules as ``(lookup, oov_index, to_ids)``.

        ``to_ids(tokens)`` maps a token list to ids. Where the rules reduce to "``lookup[w]``, else
        ``oov_index`` (or dropped when None)", ``lookup`` is that dict, for the native path; it is None
        for the one case they do not (an OOV token that is missing from ``word_index``).
        """
        num_words = self.num_words
        word_index = self.word_index
        oov_index = None if self.oov_token is None else word_index.get(self.oov_token)
        if num_words:
            lookup = {w: i for w, i in word_index.items() if not i >= num_words}
        else:
            lookup = word_index
        get = lookup.get
        if self.oov_token is None:
            # oov_index is None here: cut and unknown words are both dropped.
            return lookup, None, lambda seq: list(_drop_none(map(get, seq)))
        if oov_index is not None:
            # Cut and unknown words both become the OOV index.
            return lookup, oov_index, lambda seq: list(map(get, seq, repeat(oov_index)))
        legacy = partial(_legacy_ids, word_index=word_index, num_words=num_words, oov_token=self.oov_token)
        return None, None, legacy

    # ---- sequences -> texts ----------------------------------------------------------------------

    def sequences_to_texts(self, sequences: Iterable[Sequence[int]]) -> list[str]:
        """Transform each sequence of indices back into a space-joined text (joined by the decoder
        when the analyzer is a pipeline that has one).

        Example:
            >>> tok = Tokenizer()
            >>> tok.fit_on_texts(["the cat", "the hat"])
            >>> tok.sequences_to_texts([[1, 2], [3, 1]])
            ['the cat', 'hat the']
        """
        return list(self.sequences_to_texts_generator(sequences))

    def sequences_to_texts_generator(self, sequences: Iterable[Sequence[int]]) -> Iterator[str]:
        """Generator version of :meth:`sequences_to_texts`: yields one string per sequence."""
        to_words = self._words_function()
        # a pipeline analyzer's tokens are joined back into text by its decoder
        decoder = self.analyzer.decoder if isinstance(self.analyzer, Pipeline) else None
        join = " ".join if decoder is None else lambda words: decoder.decode(list(words))
        for position, seq in enumerate(_iterate(sequences, "sequences")):
            try:
                yield join(to_words(seq))
            except TypeError:
                raise TypeError(
                    f"sequences[{position}] must be a sequence of int indices, got {type_name(seq)}"
                ) from None

    def _words_function(self):
        num_words = self.num_words
        index_word = self.index_word
        oov_index = None if self.oov_token is None else self.word_index.get(self.oov_token)
        if num_words:
            lookup = {i: w for i, w in index_word.items() if not i >= num_words}
        else:
            lookup = index_word
        get = lookup.get
        if self.oov_token is None:
            return lambda seq: _drop_none(map(get, seq))
        if oov_index is not None and oov_index in index_word:
            return lambda seq: map(get, seq, repeat(index_word[oov_index]))
        return partial(_legacy_words, index_word=index_word, num_words=num_words, oov_index=oov_index)

    # ---- matrices --------------------------------------------------------------------------------

    def texts_to_matrix(self, texts: Iterable[str | list[str]], mode: str = "binary", sparse: bool = False) -> Any:
        """Convert texts to a ``(len(texts), num_words)`` float64 matrix.

        Args:
            texts: a list of strings (or of token lists).
            mode: one of ``"binary"``, ``"count"``, ``"tfidf"``, ``"freq"``.
            sparse: return a ``scipy.sparse.csr_matrix`` of exactly the same values
                (``pip install 'kvec[sparse]'``): memory in proportion to each text's distinct words, not
                to ``num_words``.

        Example:
            >>> tok = Tokenizer()
            >>> tok.fit_on_texts(["a b b"])
            >>> tok.texts_to_matrix(["b b a"], mode="count")
            array([[0., 2., 1.]])
            >>> tok.texts_to_matrix(["b b a"], mode="count", sparse=True).toarray()
            array([[0., 2., 1.]])
        """
        encoded = self._word_encoded(texts) if _all_str(texts) else None
        if encoded is not None:  # ids straight from C
            values, row_lengths = encoded
            ids, lengths = np.frombuffer(values, dtype=np.int64), np.frombuffer(row_lengths, dtype=np.int64)
            return self._matrix(ids, lengths, mode, sparse)
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode, sparse=sparse)

    def sequences_to_matrix(
        self, sequences: Sequence[Sequence[int]], mode: str = "binary", sparse: bool = False
    ) -> Any:
        """Convert sequences of word indices to a ``(len(sequences), num_words)`` float64 matrix.

        Column ``j`` holds, for the word of index ``j``: 1 (``binary``), its count (``count``), its count
        divided by the sequence length (``freq``) or ``(1 + ln count) * ln(1 + documents / (1 +
        document frequency))`` (``tfidf``). Indices ``>= num_words`` are ignored. The width is
        ``num_words``, or ``len(word_index) + 1`` when ``num_words`` is not set. With ``sparse``, a
        ``scipy.sparse.csr_matrix`` of the same values (see :meth:`texts_to_matrix`).

        Example:
            >>> tok = Tokenizer(num_words=4)
            >>> tok.sequences_to_matrix([[1, 3, 3, 9]], mode="freq")
            array([[0.  , 0.25, 0.  , 0.5 ]])
        """
        self._matrix_width(mode)  # its errors first, as before
        if not hasattr(sequences, "__len__"):
            raise wrong_type("sequences", "a list of sequences", sequences)
        ids, lengths = _flatten_indices(sequences)
        return self._matrix(ids, lengths, mode, sparse)

    def _matrix_width(self, mode):
        """The width of a matrix in ``mode`` (a ValueError when the mode cannot be built now)."""
        if mode not in MATRIX_MODES:
            raise ValueError(f"Unknown vectorization mode: {mode!r}; expected one of {MATRIX_MODES}")
        if not self.num_words:
            if self.word_index:
                num_words = len(self.word_index) + 1
            else:
                raise ValueError("Specify a dimension (`num_words` argument), or fit on some text data first.")
        else:
            num_words = self.num_words
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        return num_words

    def _matrix(self, ids, lengths, mode, sparse):
        """sequences_to_matrix of the indices ``ids``, ``lengths[i]`` of them for row ``i`` (int64)."""
        width = self._matrix_width(mode)
        document_frequency = None
        if mode == "tfidf":
            document_frequency = np.zeros(width, dtype=np.int64)
            for j, df in self.index_docs.items():
                if 0 <= j < width:
                    document_frequency[j] = df
        return count_matrix(ids, lengths, width, mode, document_frequency, self.document_count, bool(sparse))

    # ---- serialization ---------------------------------------------------------------------------

    def get_config(self) -> dict[str, Any]:
        """Return the configuration as a dict, in the legacy Keras layout.

        The five dictionaries are stored as JSON strings inside the dict, as the legacy code does, so
        the result loads in ``keras_preprocessing`` and ``tf.keras`` too. A kvec analyzer (a trained
        pipeline, with its model, or a Jieba segmenter) is stored under ``"analyzer"``; another
        callable is not, as in Keras.
        """
        config = {
            "num_words": self.num_words,
            "filters": self.filters,
            "lower": self.lower,
            "split": self.split,
            "char_level": self.char_level,
            "oov_token": self.oov_token,
            "document_count": self.document_count,
            "word_counts": json.dumps(self.word_counts),
            "word_docs": json.dumps(self.word_docs),
            "index_docs": json.dumps(self.index_docs),
            "index_word": json.dumps(self.index_word),
            "word_index": json.dumps(self.word_index),
        }
        analyzer = _analyzer_config(self.analyzer)
        if analyzer is not None:
            config["analyzer"] = analyzer
        if self.subword is not None:
            config["subword"] = self.subword
        if self.uses_model_vocabulary:
            config["model_ids"] = True  # the key kvec files have always used
        return config

    def to_json(self, **kwargs: Any) -> str:
        """Return a JSON string of the tokenizer, readable by :func:`tokenizer_from_json` and by Keras.

        ``kwargs`` go to ``json.dumps`` (for example ``ensure_ascii=False`` or ``indent=2``).

        Example:
            >>> tok = Tokenizer()
            >>> tok.fit_on_texts(["hello world"])
            >>> tokenizer_from_json(tok.to_json()).word_index
            {'hello': 1, 'world': 2}
        """
        return json.dumps({"class_name": self.__class__.__name__, "config": self.get_config()}, **kwargs)


def _subword_counts(pipeline, texts):
    """fit_on_texts' counts through a pipeline analyzer's native encoder: ``(tokens, counts,
    document counts, documents)`` with the tokens in order of first occurrence, as WordCounter gives
    them; None where two ids spell one token (then the tokens are counted one text at a time)."""
    values, row_lengths = pipeline.encode_ragged(texts)
    if not len(values):
        return [], [], [], len(texts)
    present, first = np.unique(values, return_index=True)
    ids = present[np.argsort(first, kind="stable")]
    tokens = [pipeline.id_to_token(token_id) for token_id in ids.tolist()]
    if len(set(tokens)) < len(tokens):
        return None
    counts = np.bincount(values)[ids]
    rows = np.repeat(np.arange(len(row_lengths), dtype=np.int64), row_lengths)
    span = int(present[-1]) + 1
    pairs = np.sort(rows * span + values)  # (text, id) pairs, sorted: each kept once below
    in_documents = pairs[np.concatenate(([True], pairs[1:] != pairs[:-1]))] % span
    documents = np.bincount(in_documents, minlength=span)[ids]
    return tokens, counts.tolist(), documents.tolist(), len(texts)


def _subword_sequences(pipeline, texts, lookup, oov_index):
    """texts_to_sequences through a pipeline analyzer's native encoder: its ids become tokens, and the
    tokens Keras indices (``lookup``, else ``oov_index``, else dropped), one table entry per distinct id."""
    values, row_lengths = pipeline.encode_ragged(texts)
    present = np.unique(values)
    table = np.full(int(present[-1]) + 1 if len(present) else 0, -1, dtype=np.int64)
    missing = -1 if oov_index is None else oov_index
    for token_id in present.tolist():
        table[token_id] = lookup.get(pipeline.id_to_token(token_id), missing)
    indices = table[values]
    if (indices < 0).any():  # dropped tokens leave their rows shorter
        kept = indices >= 0
        rows = np.repeat(np.arange(len(row_lengths)), row_lengths)
        row_lengths = np.bincount(rows[kept], minlength=len(row_lengths)).astype(np.int64)
        indices = indices[kept]
    with collector_paused():
        return id_rows(np.ascontiguousarray(indices), np.ascontiguousarray(row_lengths))


def _held(word_index: dict[Any, Any]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """``word_index``'s key and value objects, in order, for :func:`_holds`."""
    return tuple(word_index), tuple(word_index.values())


def _holds(held: tuple[tuple[Any, ...], tuple[Any, ...]], word_index: dict[Any, Any]) -> bool:
    """True when ``word_index`` holds the very key and value objects of ``held`` (from :func:`_held`), in
    the same order: any assignment since shows, even of an equal value of another type (``1``, ``True``,
    ``1.0``), in one pass by identity (cheaper than comparing the dicts)."""
    keys, values = held
    same_size = len(keys) == len(word_index)
    return same_size and all(map(is_, values, word_index.values())) and all(map(is_, keys, word_index))


def _all_str(texts: object) -> TypeGuard[list[str]]:
    """True for a list of str only (what the native batch calls take)."""
    return type(texts) is list and not set(map(type, texts)) - {str}


def _iterate(values, name):
    try:
        return iter(values)
    except TypeError:
        raise wrong_type(name, "an iterable", values) from None


def _token_list(text, position, lower):
    for i, token in enumerate(text):
        if not isinstance(token, str):
            raise wrong_type(f"texts[{position}][{i}]", "a str token", token)
    return [token.lower() for token in text] if lower else text


def _legacy_ids(seq, word_index, num_words, oov_token):
    # Reached only when oov_token is set but missing from word_index (an unfitted or edited tokenizer):
    # the legacy code then drops cut words and emits None for unknown ones.
    ids = []
    for w in seq:
        i = word_index.get(w)
        if i is not None:
            if not (num_words and i >= num_words):
                ids.append(i)
        elif oov_token is not None:
            ids.append(None)
    return ids


def _legacy_words(seq, index_word, num_words, oov_index):
    words = []
    for num in seq:
        word = index_word.get(num)
        if word is not None:
            if num_words and num >= num_words:
                if oov_index is not None:
                    words.append(index_word[oov_index])
            else:
                words.append(word)
        else:
            words.append(index_word[oov_index])  # a KeyError here, as in the legacy code
    return words


def _flatten_indices(sequences):
    """Concatenate sequences of non-negative int indices into one int64 array, plus their lengths."""
    if isinstance(sequences, np.ndarray) and sequences.ndim == 2 and sequences.dtype.kind in "iub":
        ids = sequences.astype(np.int64).reshape(-1)
        lengths = np.full(sequences.shape[0], sequences.shape[1], dtype=np.int64)
    else:
        try:
            lengths = np.fromiter(map(len, sequences), dtype=np.int64, count=len(sequences))
        except TypeError:
            position = next(i for i, s in enumerate(sequences) if not hasattr(s, "__len__"))
            raise TypeError(
                f"sequences[{position}] must be a sequence of int indices, got {type_name(sequences[position])}"
            ) from None
        ids = np.array(list(chain.from_iterable(sequences)))
        if ids.size == 0:
            ids = ids.astype(np.int64)
        elif ids.ndim != 1 or ids.dtype.kind not in "iub":
            _raise_bad_index(sequences)
        ids = ids.astype(np.int64)
    if ids.size and ids.min() < 0:
        _raise_bad_index(sequences)
    return ids, lengths


def _raise_bad_index(sequences):
    for position, seq in enumerate(sequences):
        for i, j in enumerate(seq):
            if isinstance(j, (bool, np.bool_)) or not isinstance(j, (int, np.integer)):
                raise wrong_type(f"sequences[{position}][{i}]", "an int index", j)
            if j < 0:
                raise ValueError(f"sequences[{position}][{i}] must be a non-negative index, got {j}")
    raise TypeError("sequences must contain int indices")


# --------------------------------------------------------------------------------------------------
# JSON


def tokenizer_from_json(json_string: str | bytes) -> Tokenizer:
    """Rebuild a :class:`Tokenizer` from :meth:`Tokenizer.to_json` output.

    Also reads JSON written by ``keras_preprocessing`` and ``tf.keras``. Unlike the legacy loader, the
    result can be fitted further: ``word_counts`` comes back as an ``OrderedDict`` and ``word_docs`` /
    ``index_docs`` as ``defaultdict(int)``.

    Raises:
        kvec.errors.FormatError: the string is not a tokenizer JSON document.

    Example:
        >>> tok = Tokenizer(oov_token="<unk>")
        >>> tok.fit_on_texts(["to be or not to be"])
        >>> again = tokenizer_from_json(tok.to_json())
        >>> again.texts_to_sequences(["to be is to do"])
        [[2, 3, 1, 2, 1]]
    """
    source = "tokenizer JSON string"
    if isinstance(json_string, bytes):
        try:
            json_string = json_string.decode("utf-8")
        except UnicodeDecodeError as e:
            raise FormatError(source, f"not UTF-8 text ({e})") from None
    if isinstance(json_string, os.PathLike):
        raise TypeError(f"json_string must be a str, got {type_name(json_string)}: {_TAKES_A_STRING}")
    if not isinstance(json_string, str):
        raise wrong_type("json_string", "a str", json_string)
    document = parse_json(json_string, source, path_hint=_TAKES_A_STRING)
    if not isinstance(document, dict) or not isinstance(document.get("config"), dict):
        raise FormatError(source, 'expected an object with a "config" object')
    config = dict(document["config"])
    try:
        word_counts = _nested(config, "word_counts", source)
        word_docs = _nested(config, "word_docs", source)
        index_docs = {int(k): v for k, v in _nested(config, "index_docs", source).items()}
        index_word = {int(k): v for k, v in _nested(config, "index_word", source).items()}
        word_index = _nested(config, "word_index", source)
    except ValueError as e:
        if isinstance(e, FormatError):
            raise
        raise FormatError(source, f"index keys must be integers ({e})") from None
    # what the lookups and the counting rely on; the legacy code writes nothing else
    for key, table, values in (
        ("word_counts", word_counts, int),
        ("word_docs", word_docs, int),
        ("index_docs", index_docs, int),
        ("index_word", index_word, str),
        ("word_index", word_index, int),
    ):
        _check_table(table, key, values, source)
    analyzer = _analyzer_from_config(config.pop("analyzer", None), source)
    subword, model_ids = config.pop("subword", None), config.pop("model_ids", False)
    known = {"num_words", "filters", "lower", "split", "char_level", "oov_token", "document_count"}
    unknown = sorted(set(config) - known)
    if unknown:
        raise FormatError(source, f"unknown config keys {unknown}")
    try:
        if subword is not None:
            config.update(subword=subword["kind"], vocab_size=subword["vocab_size"], **subword["options"])
        tokenizer = Tokenizer(**config)
    except (TypeError, ValueError, KeyError) as e:
        raise FormatError(source, f"invalid config ({e})") from None
    tokenizer.analyzer = analyzer  # a trained subword model comes back with its analyzer
    if model_ids and analyzer is None:
        raise FormatError(source, "model_ids needs a kvec pipeline analyzer")
    tokenizer.uses_model_vocabulary = bool(model_ids)
    tokenizer.word_counts = OrderedDict(word_counts)
    tokenizer.word_docs = defaultdict(int, word_docs)
    tokenizer.index_docs = defaultdict(int, index_docs)
    tokenizer.word_index = word_index
    tokenizer.index_word = index_word
    return tokenizer


_TAKES_A_STRING = (
    "tokenizer_from_json takes the JSON string, not a path; use tokenizer_from_json(open(path).read()), "
    "or kvec.load(path)"
)


def _analyzer_config(analyzer):
    """The JSON form of a kvec analyzer (a pipeline or a Jieba segmenter); other callables are not
    stored, as in Keras."""
    if isinstance(analyzer, Pipeline):
        return {"kvec_pipeline": analyzer.to_document()}
    if isinstance(analyzer, Jieba):
        return {"kvec_jieba": analyzer.get_config()}
    return None


def _analyzer_from_config(entry, source):
    """The analyzer stored by :func:`_analyzer_config` (None for anything else, as Keras wrote)."""
    if not isinstance(entry, dict):
        return None
    if "kvec_pipeline" in entry:
        return SubwordAnalyzer.from_document(entry["kvec_pipeline"], source)
    if "kvec_jieba" in entry:
        try:
            return Jieba(**entry["kvec_jieba"])
        except (TypeError, ValueError) as e:
            raise FormatError(source, f"invalid jieba analyzer ({e})") from None
    return None


_INT64_MAX = 2**63 - 1


def _check_table(table, key, values, source):
    """``FormatError`` naming the entry of a loaded table whose value is not of type ``values`` (an int
    from 0 to the int64 maximum, or a str)."""
    found = set(map(type, table.values()))
    if found <= {values} and (
        values is str or not table or 0 <= min(table.values()) <= max(table.values()) <= _INT64_MAX
    ):
        return
    for name, value in table.items():
        if type(value) is not values:
            wanted = "an int" if values is int else "a str"
            raise FormatError(source, f'"{key}"[{name!r:.60}] must be {wanted}, got {type_name(value)}')
        if values is int and not 0 <= value <= _INT64_MAX:
            raise FormatError(source, f'"{key}"[{name!r:.60}] = {value} is out of range (0 to {_INT64_MAX})')


def _nested(config, key, source):
    if key not in config:
        raise FormatError(source, f'config has no "{key}"')
    value = config.pop(key)
    if isinstance(value, str):
        try:
            value = parse_json(value, source)
        except FormatError as e:
            raise FormatError(source, f'"{key}" is {e.problem}') from None
    if not isinstance(value, dict):
        raise FormatError(source, f'"{key}" must be a JSON object')
    return value
