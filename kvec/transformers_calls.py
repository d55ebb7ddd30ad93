"""The ``transformers`` way of calling a tokenizer, on every kvec pipeline.

``tok(texts, padding=True, truncation=True, max_length=128, return_tensors="np")`` returns a
:class:`BatchEncoding` (a mapping of ``input_ids``, ``token_type_ids``, ``attention_mask``... with
attribute access, ``tokens(i)``, ``word_ids(i)`` and tensors of the framework asked for), as
``transformers.PreTrainedTokenizerFast`` does over the same ``tokenizer.json``. The mixin
:class:`TransformersCalls` also gives a pipeline ``batch_decode``, ``convert_ids_to_tokens``,
``convert_tokens_to_ids``, the special-token attributes (``pad_token``, ``pad_token_id``, ...),
``model_max_length``, ``padding_side`` and ``save_pretrained`` / ``from_pretrained``.

The Keras ``Tokenizer`` takes a pipeline as its ``analyzer``; it calls :meth:`TransformersCalls.analyze`
(the vocabulary's tokens of one text), since calling the pipeline is the ``transformers`` call.

Writing and reading folders needs the ``tokenizer.json`` writer of :mod:`kvec.interop`, a higher layer:
:mod:`kvec.interop.pretrained` puts its functions in :data:`PRETRAINED` when kvec is imported.
"""

from __future__ import annotations

import os
from collections import UserDict
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from kvec.added_vocabulary import AddedToken
from kvec.common.arguments import must_be, wrong_type
from kvec.encoding import DIRECTIONS, STRATEGIES, Encoding, non_negative_int, one_of, pad_encodings

__all__ = ["PRETRAINED", "SPECIAL_ROLES", "BatchEncoding", "TransformersCalls", "VERY_LARGE_INTEGER"]

#: transformers' ``model_max_length`` when none is known (and its bound above which a length is "none").
VERY_LARGE_INTEGER = int(1e30)
_LARGE_INTEGER = int(1e20)

#: The named special tokens of transformers' tokenizers, each with a ``..._id`` attribute.
SPECIAL_ROLES = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")

#: ``"save"`` (pipeline, folder) -> written paths and ``"load"`` (folder) -> pipeline, set by
#: :mod:`kvec.interop.pretrained`.
PRETRAINED: dict[str, Callable[..., Any]] = {}

_PADDING = ("longest", "max_length", "do_not_pad")
_TRUNCATION = ("longest_first", "only_first", "only_second", "do_not_truncate")


def _numpy() -> Any:
    return np


def _tensorflow() -> Any:
    import tensorflow

    return tensorflow


def _jax_numpy() -> Any:
    import jax.numpy

    return jax.numpy


def _torch() -> Any:
    import torch

    return torch


# return_tensors -> (the importer of the module that makes its tensors, its name, the pip requirement)
_FRAMEWORKS: dict[str, tuple[Callable[[], Any], str, str]] = {
    "np": (_numpy, "numpy", "numpy"),
    "tf": (_tensorflow, "tensorflow", "'kvec[keras]'"),
    "jax": (_jax_numpy, "jax", "'kvec[jax]'"),
    "pt": (_torch, "torch", "'kvec[torch]'"),
}


def _framework(tensor_type: str) -> Any:
    """The module that makes ``tensor_type``'s tensors; ``ImportError`` naming the extra that installs it."""
    if tensor_type not in _FRAMEWORKS:
        raise must_be("return_tensors", "one of 'np', 'tf', 'jax', 'pt' or None", tensor_type)
    importer, name, requirement = _FRAMEWORKS[tensor_type]
    try:
        return importer()
    except ImportError:
        raise ImportError(
            f"return_tensors={tensor_type!r} needs {name}, which is not installed: pip install {requirement}"
        ) from None


def _as_array(key: str, value: Any) -> np.ndarray:
    """``value`` (lists of a batch) as a NumPy array; rows of different lengths make an object array of
    rows, as transformers makes them for ``"np"``."""
    if isinstance(value, list) and value and isinstance(value[0], (list, tuple)):
        if len({len(row) for row in value}) > 1:
            rows = np.empty(len(value), dtype=object)
            rows[:] = [np.asarray(row) for row in value]
            return rows
    array = np.asarray(value)
    # every field holds ints: rows with none (an empty text without special tokens) are int64 too
    return array.astype(np.int64) if array.size == 0 and array.dtype == np.float64 else array


class BatchEncoding(UserDict):
    """What calling a pipeline returns: a dict of ``input_ids``, ``attention_mask``... (lists, or tensors
    with ``return_tensors``), readable as attributes, with the :class:`kvec.encoding.Encoding` of each
    row behind it, as transformers' ``BatchEncoding``.

    ``batch[key]`` is a field, ``batch[i]`` row ``i``'s ``Encoding``; :meth:`tokens`, :meth:`word_ids`
    and :meth:`sequence_ids` read one row.

    Example:
        >>> from kvec.models import WordPiece
        >>> from kvec.pipeline import Pipeline
        >>> from kvec.pre_tokenizers import Whitespace
        >>> tok = Pipeline(WordPiece({"[PAD]": 0, "[UNK]": 1, "un": 2, "##able": 3}), pre_tokenizer=Whitespace())
        >>> tok.pad_token = "[PAD]"  # (a tokenizer_config.json read by kvec.load sets it)
        >>> batch = tok(["unable un", "un"], padding=True)
        >>> batch.input_ids, batch.attention_mask
        ([[2, 3, 2], [2, 0, 0]], [[1, 1, 1], [1, 0, 0]])
        >>> batch.tokens(0), batch.word_ids(0)
        (['un', '##able', 'un'], [0, 0, 1])
    """

    def __init__(
        self,
        data: dict[str, Any] | None = None,
        encodings: Sequence[Encoding] | None = None,
        tensor_type: str | None = None,
        n_sequences: int | None = None,
    ) -> None:
        super().__init__(data)
        self._encodings = None if encodings is None else list(encodings)
        if n_sequences is None and self._encodings:
            n_sequences = self._encodings[0].n_sequences
        self._n_sequences = n_sequences
        self.convert_to_tensors(tensor_type)

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, str):
            return self.data[item]
        if isinstance(item, slice):
            return {key: value[item] for key, value in self.data.items()}
        if isinstance(item, int) and self._encodings is not None:
            return self._encodings[item]
        raise KeyError(f"a BatchEncoding is read with a str key, an int row or a slice, got {type(item).__name__}")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("data", "_encodings", "_n_sequences"):
            raise AttributeError(name)
        try:
            return self.data[name]
        except KeyError:
            raise AttributeError(f"this BatchEncoding has no field {name!r} (it has {list(self.data)})") from None

    def __getstate__(self) -> dict[str, Any]:
        return {"data": self.data, "encodings": self._encodings, "n_sequences": self._n_sequences}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.data, self._encodings, self._n_sequences = state["data"], state["encodings"], state["n_sequences"]

    @property
    def encodings(self) -> list[Encoding] | None:
        """The :class:`kvec.encoding.Encoding` of each row (overflowing rows included)."""
        return self._encodings

    @property
    def n_sequences(self) -> int | None:
        """1 for single texts, 2 for pairs."""
        return self._n_sequences

    @property
    def is_fast(self) -> bool:
        """True: the rows' encodings are there (transformers' "fast" tokenizers)."""
        return self._encodings is not None

    def _row(self, batch_index: int) -> Encoding:
        if not self._encodings:
            raise ValueError("this BatchEncoding holds no encodings")
        return self._encodings[batch_index]

    def tokens(self, batch_index: int = 0) -> list[str]:
        """The tokens of row ``batch_index``."""
        return self._row(batch_index).tokens

    def word_ids(self, batch_index: int = 0) -> list[int | None]:
        """The word index of each token of row ``batch_index`` (None for special tokens and padding)."""
        return self._row(batch_index).word_ids

    def sequence_ids(self, batch_index: int = 0) -> list[int | None]:
        """Which text of a pair each token of row ``batch_index`` comes from (None for special tokens)."""
        return self._row(batch_index).sequence_ids

    def convert_to_tensors(self, tensor_type: str | None = None, prepend_batch_axis: bool = False) -> BatchEncoding:
        """Make every field a tensor of ``tensor_type`` (``"np"``, ``"tf"``, ``"jax"`` or ``"pt"``); None
        leaves them as they are. ``ImportError`` naming what to install when the framework is missing;
        ``ValueError`` naming the field when its rows differ in length (for other than ``"np"``: pad them).
        """
        if tensor_type is None:
            return self
        framework = _framework(tensor_type)
        for key, value in list(self.data.items()):
            if prepend_batch_axis:
                value = [value]
            if isinstance(value, np.ndarray) and tensor_type == "np":
                continue
            array = value if isinstance(value, np.ndarray) else _as_array(key, value)
            if tensor_type == "np":
                self.data[key] = array
                continue
            if array.dtype == object:
                raise ValueError(
                    f"cannot make {tensor_type!r} tensors of {key!r}: its rows differ in length; "
                    "pad them (padding=True) or truncate them"
                )
            if tensor_type == "tf":
                self.data[key] = framework.constant(array)
            elif tensor_type == "jax":
                self.data[key] = framework.asarray(array)
            else:
                self.data[key] = framework.from_numpy(np.ascontiguousarray(array))
        return self

    def to(self, device: Any) -> BatchEncoding:
        """Move the PyTorch tensors to ``device`` (``return_tensors="pt"``), as transformers does;
        ``TypeError`` when the fields are not PyTorch tensors (other frameworks place arrays themselves).
        """
        if not all(callable(getattr(value, "to", None)) for value in self.data.values()):
            raise TypeError("BatchEncoding.to moves PyTorch tensors only: call the tokenizer with return_tensors='pt'")
        self.data = {key: value.to(device) for key, value in self.data.items()}
        return self


def _strategy(value: Any, name: str, names: tuple[str, ...]) -> str | None:
    """A padding or truncation argument as a strategy name (``True``: the first of ``names``), or
    None for none (``False``, None or the last of ``names``, "do not")."""
    if value is True:
        return names[0]
    if value is False or value is None or one_of(value, name, names) == names[-1]:
        return None
    return value


def _strategies(tokenizer, padding, truncation, max_length, pad_to_multiple_of):
    """``(padding, truncation, max_length)`` as transformers resolves the call's arguments: a strategy
    name or None for each."""
    if max_length is not None:
        max_length = non_negative_int(max_length, "max_length")
    if max_length is not None and padding is False and truncation is None:
        truncation = "longest_first"  # transformers: max_length alone truncates
    padding = _strategy(padding, "padding", _PADDING)
    truncation = _strategy(truncation, "truncation", _TRUNCATION)
    if max_length is None:
        known = tokenizer.model_max_length <= _LARGE_INTEGER
        if padding == "max_length":
            padding, max_length = (padding, tokenizer.model_max_length) if known else (None, None)
        if truncation is not None:
            truncation, max_length = (truncation, tokenizer.model_max_length) if known else (None, max_length)
    if padding is not None and tokenizer.pad_token is None:
        raise ValueError(
            "padding needs a padding token, and this tokenizer has none: set one (tok.pad_token = '[PAD]')"
        )
    if pad_to_multiple_of is not None:
        pad_to_multiple_of = non_negative_int(pad_to_multiple_of, "pad_to_multiple_of")
        if truncation and padding and max_length is not None and max_length % pad_to_multiple_of:
            raise ValueError(
                f"truncation and padding are both on, but the truncation length ({max_length}) is not a multiple "
                f"of pad_to_multiple_of ({pad_to_multiple_of})"
            )
    return padding, truncation, max_length, pad_to_multiple_of


def _is_words(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(word, str) for word in value)


def _check_inputs(name: str, value: Any, split: bool) -> None:
    """``TypeError`` naming ``name`` and the position of what is neither a text nor (with ``split``) a
    list of words."""
    if isinstance(value, str) or (split and _is_words(value)):
        return
    if not isinstance(value, (list, tuple)):
        raise wrong_type(name, "a str or a list of str", value)
    for position, item in enumerate(value):
        if isinstance(item, str) and not split:
            continue
        if split and _is_words(item):
            continue
        wanted = "a list of str (words)" if split else "a str"
        raise TypeError(f"{name}[{position}] must be {wanted}, got {type(item).__name__}")


def _check_flag(name: str, value: Any, optional: bool = False) -> None:
    if not isinstance(value, bool) and not (optional and value is None):
        raise wrong_type(name, "a bool or None" if optional else "a bool", value)


def _special(token: Any, name: str) -> str | None:
    """A special token's text: str, an ``AddedToken``'s content, or None."""
    if token is None or isinstance(token, str):
        return token
    content = getattr(token, "content", None)
    if isinstance(content, str):
        return content
    raise wrong_type(name, "a str, an AddedToken or None", token)


def _role(role: str) -> property:
    def get(self):
        value = self._hf_settings().get(role)
        if value is None and role == "pad_token" and self.padding is not None:
            return self.padding["pad_token"]  # transformers takes it from tokenizer.json's padding too
        return value

    def set(self, value):
        self._hf_settings()[role] = _special(value, role)

    return property(get, set, doc=f"The {role.replace('_', ' ')} (a str), or None.")


def _role_id(role: str) -> property:
    def get(self):
        token = getattr(self, role)
        return None if token is None else self.convert_tokens_to_ids(token)

    return property(get, doc=f"The id of :attr:`{role}` (the unknown token's id when it is not in the vocabulary).")


def _side(name: str, setting: str, what: str) -> property:
    """``padding_side`` or ``truncation_side``: set, or else the direction of the pipeline's own
    ``padding`` or ``truncation`` setting (as transformers reads it from tokenizer.json), else right."""

    def get(self):
        side = self._hf_settings()[name]
        own = getattr(self, setting)
        return side if side is not None else "right" if own is None else own["direction"]

    def set(self, value):
        self._hf_settings()[name] = one_of(value, name, DIRECTIONS)

    return property(get, set, doc=f'{what}: ``"right"`` or ``"left"`` (by default the direction of :attr:`{setting}`).')


def _plain(value: Any) -> Any:
    """Ids from a tensor or array as Python ints and lists."""
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):  # tf, torch
        value = value.numpy()
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def clean_up_tokenization(text: str) -> str:
    """transformers' clean-up of decoded text: no space before ``. ? ! ,`` and English contractions."""
    for old, new in (
        (" .", "."),
        (" ?", "?"),
        (" !", "!"),
        (" ,", ","),
        (" ' ", "'"),
        (" n't", "n't"),
        (" 'm", "'m"),
        (" 's", "'s"),
        (" 've", "'ve"),
        (" 're", "'re"),
    ):
        text = text.replace(old, new)
    return text


class TransformersCalls:
    """Mixed into :class:`kvec.pipeline.Pipeline`: the ``transformers`` tokenizer API."""

    if TYPE_CHECKING:  # provided by the pipeline
        model: Any
        padding: Any
        added_vocabulary: Any

        def _sequence_encoding(self, sequence, name, type_id, is_pretokenized) -> Encoding: ...
        def _post_process(self, first, second, add_special_tokens, truncation, padding) -> Encoding: ...
        def encode(self, sequence, pair=None, is_pretokenized=False, add_special_tokens=True) -> Encoding: ...
        def encode_batch(self, texts, n_threads=None, *, is_pretokenized=False, add_special_tokens=True): ...
        def decode_batch(self, sequences, skip_special_tokens=True) -> list[str]: ...
        def id_to_token(self, token_id: int) -> str | None: ...
        def token_to_id(self, token: str) -> int | None: ...
        def num_special_tokens_to_add(self, is_pair: bool) -> int: ...
        def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]: ...
        def _register(self, tokens, special) -> int: ...

        truncation: Any

    bos_token = _role("bos_token")
    eos_token = _role("eos_token")
    unk_token = _role("unk_token")
    sep_token = _role("sep_token")
    pad_token = _role("pad_token")
    cls_token = _role("cls_token")
    mask_token = _role("mask_token")
    padding_side = _side("padding_side", "padding", "Where a call's padding goes")
    truncation_side = _side("truncation_side", "truncation", "Which end a call's truncation cuts off")
    bos_token_id = _role_id("bos_token")
    eos_token_id = _role_id("eos_token")
    unk_token_id = _role_id("unk_token")
    sep_token_id = _role_id("sep_token")
    pad_token_id = _role_id("pad_token")
    cls_token_id = _role_id("cls_token")
    mask_token_id = _role_id("mask_token")

    def _hf_settings(self) -> dict[str, Any]:
        """The transformers settings of this pipeline (special tokens, sides, lengths)."""
        settings = self.__dict__.get("_hf")
        if settings is None:
            settings = self.__dict__["_hf"] = {
                "model_max_length": VERY_LARGE_INTEGER,
                "padding_side": None,  # None: the direction of the pipeline's padding, else "right"
                "truncation_side": None,
                "model_input_names": ["input_ids", "token_type_ids", "attention_mask"],
                "clean_up_tokenization_spaces": False,
            }
        return settings

    @property
    def model_max_length(self) -> int:
        """The longest input the model takes: what ``truncation=True`` and ``padding="max_length"`` use
        without ``max_length`` (transformers' ``int(1e30)``, "none", until set)."""
        return self._hf_settings()["model_max_length"]

    @model_max_length.setter
    def model_max_length(self, value: int) -> None:
        self._hf_settings()["model_max_length"] = non_negative_int(value, "model_max_length")

    @property
    def model_input_names(self) -> list[str]:
        """The fields a call returns by default (``token_type_ids`` and ``attention_mask`` when listed)."""
        return list(self._hf_settings()["model_input_names"])

    @model_input_names.setter
    def model_input_names(self, value: Iterable[str]) -> None:
        names = list(value)
        for position, name in enumerate(names):
            if not isinstance(name, str):
                raise wrong_type(f"model_input_names[{position}]", "a str", name)
        self._hf_settings()["model_input_names"] = names

    @property
    def clean_up_tokenization_spaces(self) -> bool:
        """Whether :meth:`decode` cleans up spaces by default (see :func:`clean_up_tokenization`)."""
        return self._hf_settings()["clean_up_tokenization_spaces"]

    @clean_up_tokenization_spaces.setter
    def clean_up_tokenization_spaces(self, value: bool) -> None:
        _check_flag("clean_up_tokenization_spaces", value)
        self._hf_settings()["clean_up_tokenization_spaces"] = value

    @property
    def special_tokens_map(self) -> dict[str, str]:
        """``{role: token}`` of the named special tokens that are set."""
        return {role: token for role in SPECIAL_ROLES if (token := getattr(self, role)) is not None}

    @property
    def all_special_tokens(self) -> list[str]:
        """The named special tokens, then the other registered special tokens, once each."""
        tokens = list(dict.fromkeys([*self.special_tokens_map.values(), *self.added_vocabulary.special]))
        return tokens

    @property
    def all_special_ids(self) -> list[int]:
        """The ids of :attr:`all_special_tokens`."""
        return [self.convert_tokens_to_ids(token) for token in self.all_special_tokens]

    def _add_named_special_tokens(self, named: Any) -> int:
        """transformers' ``add_special_tokens({"pad_token": "[PAD]", ...})``: each role set to its token
        (``additional_special_tokens``: a list of tokens with no role), every token registered as
        special; returns how many tokens the vocabulary gained."""
        before = len(self.get_vocab())
        for role, value in named.items():
            if role in ("additional_special_tokens", "extra_special_tokens"):
                if isinstance(value, str) or not isinstance(value, Iterable):
                    raise wrong_type(role, "a list of tokens", value)
                self._register(list(value), special=True)
                continue
            if role not in SPECIAL_ROLES:
                raise ValueError(
                    f"special token roles are {', '.join(SPECIAL_ROLES)} and additional_special_tokens, got {role!r}"
                )
            token = _special(value, role)
            if token is not None:
                self._register([value if isinstance(value, AddedToken) else token], special=True)
            setattr(self, role, token)
        return len(self.get_vocab()) - before

    # ---- calling ----

    def analyze(self, text: str) -> list[str]:
        """The vocabulary's tokens of ``text``, without special tokens: what :class:`kvec.Tokenizer`
        counts and indexes when the pipeline is its ``analyzer`` (an unknown piece is the unknown
        token, as the Keras Tokenizer's native paths index it).

        Example:
            >>> from kvec.models import WordPiece
            >>> from kvec.pipeline import Pipeline
            >>> from kvec.pre_tokenizers import Whitespace
            >>> wordpiece = Pipeline(WordPiece({"[UNK]": 0, "un": 1, "##able": 2}), pre_tokenizer=Whitespace())
            >>> wordpiece.analyze("unable")
            ['un', '##able']
        """
        return [str(self.id_to_token(i)) for i in self.encode(text, add_special_tokens=False).ids]

    def tokenize(self, text: str, pair: str | None = None, add_special_tokens: bool = False) -> list[str]:
        """The tokens of ``text`` (and ``pair``), as transformers' ``tokenize`` gives them.

        Example:
            >>> from kvec.models import WordPiece
            >>> from kvec.pipeline import Pipeline
            >>> Pipeline(WordPiece({"[UNK]": 0, "un": 1, "##able": 2})).tokenize("unable")
            ['un', '##able']
        """
        return self.encode(text, pair, add_special_tokens=add_special_tokens).tokens

    def __call__(
        self,
        text: Any,
        text_pair: Any = None,
        add_special_tokens: bool = True,
        padding: bool | str = False,
        truncation: bool | str | None = None,
        max_length: int | None = None,
        stride: int = 0,
        is_split_into_words: bool = False,
        pad_to_multiple_of: int | None = None,
        padding_side: str | None = None,
        return_tensors: str | None = None,
        return_token_type_ids: bool | None = None,
        return_attention_mask: bool | None = None,
        return_overflowing_tokens: bool = False,
        return_special_tokens_mask: bool = False,
        return_offsets_mapping: bool = False,
        return_length: bool = False,
    ) -> BatchEncoding:
        """Encode a text, a pair, or a batch of them for a model, as transformers'
        ``PreTrainedTokenizerFast.__call__`` does with the same ``tokenizer.json``.

        Args:
            text: a str, or a list of them (a batch); with ``is_split_into_words``, a list of words or
                a list of such lists.
            text_pair: the second texts of pairs, in the same shape as ``text``.
            add_special_tokens: let the post-processor add its special tokens.
            padding: ``True`` or ``"longest"`` (to the longest row), ``"max_length"`` (to ``max_length``,
                else :attr:`model_max_length`), ``False`` or ``"do_not_pad"``; needs :attr:`pad_token`.
            truncation: ``True`` or ``"longest_first"``, ``"only_first"``, ``"only_second"``, ``False`` or
                ``"do_not_truncate"``; to ``max_length``, else :attr:`model_max_length`. ``max_length``
                alone truncates too.
            max_length: the length truncation and ``padding="max_length"`` aim at, special tokens included.
            stride: how many tokens each overflowing row repeats from the one before it.
            is_split_into_words: the texts are lists of words (each word's tokens get its index).
            pad_to_multiple_of: round the padded length up to a multiple of this.
            padding_side: ``"right"`` or ``"left"``; None: :attr:`padding_side`.
            return_tensors: ``"np"``, ``"tf"``, ``"jax"`` or ``"pt"``; None: lists (a single text's
                fields lose the batch axis).
            return_token_type_ids, return_attention_mask: include the field; None: when it is in
                :attr:`model_input_names`.
            return_overflowing_tokens: add the rows truncation cut off, with ``overflow_to_sample_mapping``.
            return_special_tokens_mask, return_offsets_mapping, return_length: include
                ``special_tokens_mask``, ``offset_mapping`` (character spans) and ``length``.

        Example:
            >>> from kvec.models import WordPiece
            >>> from kvec.pipeline import Pipeline
            >>> from kvec.pre_tokenizers import Whitespace
            >>> tok = Pipeline(WordPiece({"[PAD]": 0, "[UNK]": 1, "a": 2, "b": 3}), pre_tokenizer=Whitespace())
            >>> tok.pad_token = "[PAD]"
            >>> tok(["a b a", "b"], padding=True, truncation=True, max_length=2, return_tensors="np")["input_ids"]
            array([[2, 3],
                   [3, 0]])
            >>> tok("a b", "b")
            {'input_ids': [2, 3, 3], 'token_type_ids': [0, 0, 1], 'attention_mask': [1, 1, 1]}
        """
        for name, flag in (
            ("add_special_tokens", add_special_tokens),
            ("is_split_into_words", is_split_into_words),
            ("return_overflowing_tokens", return_overflowing_tokens),
            ("return_special_tokens_mask", return_special_tokens_mask),
            ("return_offsets_mapping", return_offsets_mapping),
            ("return_length", return_length),
        ):
            _check_flag(name, flag)
        _check_flag("return_token_type_ids", return_token_type_ids, optional=True)
        _check_flag("return_attention_mask", return_attention_mask, optional=True)
        if not isinstance(padding, (bool, str)):
            raise wrong_type("padding", "a bool or a str", padding)
        if truncation is not None and not isinstance(truncation, (bool, str)):
            raise wrong_type("truncation", "a bool, a str or None", truncation)
        if return_tensors is not None:
            _framework(return_tensors)  # before any work: a missing framework fails fast
        stride = non_negative_int(stride, "stride")
        side = self.padding_side if padding_side is None else one_of(padding_side, "padding_side", DIRECTIONS)
        padding, truncation, max_length, pad_to_multiple_of = _strategies(
            self, padding, truncation, max_length, pad_to_multiple_of
        )
        _check_inputs("text", text, is_split_into_words)
        if text_pair is not None:
            _check_inputs("text_pair", text_pair, is_split_into_words)
        if is_split_into_words:
            batched = isinstance(text, (list, tuple)) and bool(text) and isinstance(text[0], (list, tuple))
        else:
            batched = isinstance(text, (list, tuple))
        if batched:
            if isinstance(text_pair, str):
                raise TypeError("text_pair must be a list of texts as long as text when text is a batch, got a str")
            if text_pair is not None and len(text) != len(text_pair):
                raise ValueError(f"text has {len(text)} texts but text_pair has {len(text_pair)}")
            items = list(zip(text, text_pair)) if text_pair is not None else list(text)
            pairs = text_pair is not None
        else:
            pairs = bool(text_pair)  # transformers takes an empty second text for none
            items = [(text, text_pair)] if pairs else [text]

        cut = None
        if truncation is not None:
            cut = self._call_truncation(max_length, stride, str(truncation))
        encodings = self._call_encodings(items, pairs, is_split_into_words, add_special_tokens, cut)
        if padding is not None:
            pad_encodings(
                encodings,
                length=max_length if padding == "max_length" else None,
                pad_to_multiple_of=pad_to_multiple_of,
                direction=side,
                pad_id=self.pad_token_id,
                pad_type_id=0,
                pad_token=self.pad_token,
            )
        names = self.model_input_names
        wanted = {
            "token_type_ids": "token_type_ids" in names if return_token_type_ids is None else return_token_type_ids,
            "attention_mask": "attention_mask" in names if return_attention_mask is None else return_attention_mask,
            "special_tokens_mask": return_special_tokens_mask,
            "offset_mapping": return_offsets_mapping,
        }
        rows: list[Encoding] = []
        samples: list[int] = []
        for sample, encoding in enumerate(encodings):
            group = [encoding, *encoding.overflowing] if return_overflowing_tokens else [encoding]
            rows += group
            samples += [sample] * len(group)
        data: dict[str, Any] = {"input_ids": [row.ids for row in rows]}
        for key, field in (
            ("token_type_ids", "type_ids"),
            ("attention_mask", "attention_mask"),
            ("special_tokens_mask", "special_tokens_mask"),
            ("offset_mapping", "offsets"),
        ):
            if wanted[key]:
                data[key] = [list(getattr(row, field)) for row in rows]
        if return_length:
            data["length"] = [len(row.ids) for row in rows]
        if return_overflowing_tokens:
            data["overflow_to_sample_mapping"] = samples
        if not batched and return_tensors is None and not return_overflowing_tokens:
            data = {key: value[0] if value and isinstance(value[0], list) else value for key, value in data.items()}
        return BatchEncoding(data, rows, tensor_type=return_tensors, n_sequences=2 if pairs else 1)

    def _call_truncation(self, max_length: int | None, stride: int, strategy: str) -> dict[str, Any]:
        """The truncation of one call, checked as :meth:`kvec.pipeline.Pipeline.enable_truncation` checks it."""
        if max_length is None:
            raise ValueError("truncation needs max_length (or a model_max_length)")
        strategy = one_of(strategy, "truncation", STRATEGIES)
        effective = max_length - self.num_special_tokens_to_add(False)
        if 0 <= effective < stride:
            raise ValueError(
                f"stride ({stride}) must be smaller than the effective max length {effective} (max_length "
                f"{max_length} less {max_length - effective} special tokens)"
            )
        return {"max_length": max_length, "stride": stride, "strategy": strategy, "direction": self.truncation_side}

    def _call_encodings(self, items, pairs, split, add_special_tokens, truncation) -> list[Encoding]:
        """The encoding of each input of a call, truncated, not padded."""
        if not pairs and not split and truncation is None and self.truncation is None and self.padding is None:
            return list(self.encode_batch(items, add_special_tokens=add_special_tokens))
        encodings = []
        for position, item in enumerate(items):
            first, second = item if pairs else (item, None)
            name = f"text[{position}]"
            one = self._sequence_encoding(first, name, 0, split)
            other = None if second is None else self._sequence_encoding(second, f"text_pair[{position}]", 1, split)
            encodings.append(self._post_process(one, other, add_special_tokens, truncation, None))
        return encodings

    # ---- ids and tokens ----

    def convert_ids_to_tokens(self, ids: Any, skip_special_tokens: bool = False) -> Any:
        """The token of an id, or the tokens of a sequence of ids (an array or tensor too), leaving out
        :attr:`all_special_ids` with ``skip_special_tokens``.

        Example:
            >>> from kvec.models import WordPiece
            >>> from kvec.pipeline import Pipeline
            >>> tok = Pipeline(WordPiece({"[UNK]": 0, "un": 1, "##able": 2}))
            >>> tok.convert_ids_to_tokens(1), tok.convert_ids_to_tokens([1, 2])
            ('un', ['un', '##able'])
        """
        ids = _plain(ids)
        if isinstance(ids, int) and not isinstance(ids, bool):
            return self.id_to_token(ids)
        if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
            raise wrong_type("ids", "an int or a sequence of int", ids)
        skipped = set(self.all_special_ids) if skip_special_tokens else set()
        tokens = []
        for position, token_id in enumerate(ids):
            if isinstance(token_id, bool) or not isinstance(token_id, (int, np.integer)):
                raise wrong_type(f"ids[{position}]", "an int", token_id)
            if int(token_id) not in skipped:
                tokens.append(self.id_to_token(int(token_id)))
        return tokens

    def convert_tokens_to_ids(self, tokens: Any) -> Any:
        """The id of a token, or the ids of a list of tokens: :attr:`unk_token_id` for a token not in
        the vocabulary (None without an unknown token).

        Example:
            >>> from kvec.models import WordPiece
            >>> from kvec.pipeline import Pipeline
            >>> tok = Pipeline(WordPiece({"[UNK]": 0, "un": 1, "##able": 2}))
            >>> tok.unk_token = "[UNK]"
            >>> tok.convert_tokens_to_ids("##able"), tok.convert_tokens_to_ids(["un", "xyz"])
            (2, [1, 0])
        """
        if tokens is None:
            return None
        if isinstance(tokens, str):
            return self._token_id(tokens)
        if not isinstance(tokens, Iterable):
            raise wrong_type("tokens", "a str or a list of str", tokens)
        ids = []
        for position, token in enumerate(tokens):
            if not isinstance(token, str):
                raise wrong_type(f"tokens[{position}]", "a str", token)
            ids.append(self._token_id(token))
        return ids

    def _token_id(self, token: str) -> int | None:
        found = self.token_to_id(token)
        if found is not None:
            return found
        unk = self._hf_settings().get("unk_token")
        return None if unk is None else self.token_to_id(unk)

    # ---- decoding ----

    def _cleaned(self, texts: list[str], clean_up_tokenization_spaces: bool | None) -> list[str]:
        """``texts`` cleaned up as transformers does where asked (by the argument, else by
        :attr:`clean_up_tokenization_spaces`); transformers never cleans up a BPE model's text."""
        clean = (
            self.clean_up_tokenization_spaces if clean_up_tokenization_spaces is None else clean_up_tokenization_spaces
        )
        _check_flag("clean_up_tokenization_spaces", clean)
        if not clean or type(self.model).__name__ == "BPE":
            return texts
        return [clean_up_tokenization(text) for text in texts]

    @staticmethod
    def _id_row(ids: Any) -> Any:
        """One row of ids to decode: an int, a ``BatchEncoding``'s ``input_ids``, an array or a tensor
        made a list."""
        if isinstance(ids, (dict, UserDict)) and "input_ids" in ids:
            ids = ids["input_ids"]
        ids = _plain(ids)
        return [ids] if isinstance(ids, int) and not isinstance(ids, bool) else ids

    def batch_decode(
        self,
        sequences: Any,
        skip_special_tokens: bool = True,
        clean_up_tokenization_spaces: bool | None = None,
    ) -> list[str]:
        """:meth:`decode` of each row of ``sequences`` (lists, a 2-D array or tensor), as transformers'
        ``batch_decode``; special tokens are left out unless ``skip_special_tokens=False`` (tokenizers'
        default; transformers keeps them by default).

        Example:
            >>> from kvec.decoders import WordPiece as WordPieceDecoder
            >>> from kvec.models import WordPiece
            >>> from kvec.pipeline import Pipeline
            >>> tok = Pipeline(WordPiece({"[UNK]": 0, "un": 1, "##able": 2, "!": 3}), decoder=WordPieceDecoder())
            >>> tok.batch_decode([[1, 2, 3], [1]], clean_up_tokenization_spaces=True)
            ['unable!', 'un']
        """
        rows = _plain(sequences)
        if isinstance(rows, (dict, UserDict)) and "input_ids" in rows:
            rows = _plain(rows["input_ids"])
        texts = self.decode_batch(rows, skip_special_tokens)
        return self._cleaned(texts, clean_up_tokenization_spaces)

    # ---- folders ----

    def save_pretrained(self, save_directory: str | os.PathLike[str]) -> tuple[str, ...]:
        """Write ``tokenizer.json``, ``tokenizer_config.json`` and ``special_tokens_map.json`` into the
        folder ``save_directory`` (made if missing), as transformers writes them:
        ``transformers.AutoTokenizer.from_pretrained(save_directory)`` loads the same tokenizer, and so
        do :func:`kvec.load` and :meth:`from_pretrained`. Returns the paths written.

        Raises:
            ValueError: a stage has no ``tokenizer.json`` form (a custom Python stage, say).

        Example:
            >>> import tempfile
            >>> from kvec.models import WordPiece
            >>> from kvec.pipeline import Pipeline
            >>> tok = Pipeline(WordPiece({"[PAD]": 0, "[UNK]": 1, "a": 2}))
            >>> tok.pad_token, tok.model_max_length = "[PAD]", 8
            >>> folder = tempfile.mkdtemp()
            >>> [os.path.basename(path) for path in tok.save_pretrained(folder)]
            ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json']
            >>> Pipeline.from_pretrained(folder).model_max_length
            8
        """
        return PRETRAINED["save"](self, save_directory)

    @classmethod
    def from_pretrained(cls, pretrained_model_name_or_path: str | os.PathLike[str]) -> Any:
        """Load the tokenizer of a local folder saved by transformers or by :meth:`save_pretrained`
        (or one tokenizer file), honouring its ``tokenizer_config.json`` and ``special_tokens_map.json``
        (``model_max_length``, ``padding_side``, ``truncation_side``, ``model_input_names`` and the
        special tokens).

        Raises:
            kvec.errors.NotLocalError: the name is no local folder or file (kvec reads no hub: download
                the folder first, e.g. ``huggingface-cli download NAME --local-dir DIR``).
        """
        return PRETRAINED["load"](pretrained_model_name_or_path)
