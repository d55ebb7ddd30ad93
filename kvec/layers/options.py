"""What both hosts of :class:`kvec.layers.TextVectorization` (TensorFlow's graph, and NumPy for JAX,
PyTorch and NumPy backends) share: how ``tokenizer=`` changes Keras' arguments, the configuration and
assets that carry the tokenizer in a ``.keras`` file, and the document frequencies of ``tf_idf`` over a
tokenizer's ids. Neither Keras nor TensorFlow is imported here, so a file saved by one host loads in
the other.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from kvec.files.atomic import atomic_write
from kvec.layers.sources import source_from_json, token_source

__all__ = [
    "IDF_ASSET",
    "KERAS_DEFAULT",
    "TOKENIZER_ASSET",
    "TokenizerOptions",
    "ids_config",
    "ids_idf_weights",
    "keras_config",
    "load_tokenizer_assets",
    "save_tokenizer_assets",
]

KERAS_DEFAULT: Any = object()  # an argument left out: Keras' default without a tokenizer
TOKENIZER_ASSET = "kvec_tokenizer.json"
IDF_ASSET = "kvec_idf_weights.npy"
IDS_PLACEHOLDER = "[kvec ids]"  # the one token of the unused Keras lookup of a layer over ids


class TokenizerOptions:
    """The tokenizer of a layer and Keras' arguments as it changes them.

    ``kind`` is None (Keras' split), ``"ids"`` (a tokenizer with its own vocabulary) or ``"words"``
    (a word splitter); ``standardize`` and ``split`` are what Keras' own machinery is given.
    """

    def __init__(self, tokenizer, stored, standardize, split, ngrams, vocabulary, idf_weights, output_mode):
        if tokenizer is not None and stored is not None:
            raise ValueError("give tokenizer or kvec_tokenizer, not both")
        self.source = None if tokenizer is None else token_source(tokenizer)
        kind = stored if stored is not None else (None if self.source is None else self.source.kind)
        if kind not in (None, "ids", "words"):
            raise ValueError(f"kvec_tokenizer must be 'ids' or 'words', got {kind!r}")
        if kind is None:
            standardize = "lower_and_strip_punctuation" if standardize is KERAS_DEFAULT else standardize
            split = "whitespace" if split is KERAS_DEFAULT else split
        else:
            if split is not KERAS_DEFAULT:
                raise ValueError("tokenizer= replaces split=: give one of them")
            standardize = None if standardize is KERAS_DEFAULT else standardize
            split = None
        if kind == "ids":
            if ngrams is not None:
                raise ValueError("ngrams do not apply to a tokenizer that gives ids (use a word splitter)")
            if vocabulary is not None or idf_weights is not None:
                raise ValueError("the tokenizer's vocabulary is the layer's: vocabulary= and idf_weights= do not apply")
            if output_mode == "one_hot":
                raise ValueError("output_mode='one_hot' needs one token per input: use 'multi_hot' with a tokenizer")
        self.kind = kind
        self.standardize = standardize
        self.split = split
        if self.source is not None:
            self.source.prepare()


def ids_config(config: dict, max_tokens: Any, pad_to_max_tokens: bool) -> dict:
    """A layer over ids saves its own ``max_tokens`` and nothing of the unused Keras lookup."""
    config.update(
        max_tokens=max_tokens,
        pad_to_max_tokens=pad_to_max_tokens,
        vocabulary=None,
        idf_weights=None,
        vocabulary_size=None,
    )
    return config


def keras_config(config: dict) -> dict:
    """A saved configuration with a ``kvec_tokenizer`` entry as the constructor takes it."""
    config = dict(config)
    if config.get("split", KERAS_DEFAULT) is KERAS_DEFAULT:
        config.pop("split", None)
    if config.get("vocabulary_size") is None:
        config.pop("vocabulary_size", None)
    if isinstance(config.get("ngrams"), list):
        config["ngrams"] = tuple(config["ngrams"])
    return config


def save_tokenizer_assets(dir_path: str, source: Any, idf: np.ndarray | None) -> None:
    with atomic_write(os.path.join(dir_path, TOKENIZER_ASSET)) as f:
        f.write(source.to_json())
    if idf is not None:
        with atomic_write(os.path.join(dir_path, IDF_ASSET), binary=True) as f:
            np.save(f, idf)


def load_tokenizer_assets(dir_path: str, kind: str) -> tuple[Any, np.ndarray | None]:
    """``(source, idf weights or None)`` from a layer's assets folder."""
    path = os.path.join(dir_path, TOKENIZER_ASSET)
    with open(path, encoding="utf-8") as f:
        source = source_from_json(f.read(), path)
    if source.kind != kind:
        raise ValueError(f"{path}: holds a tokenizer of kind {source.kind!r}, the layer needs {kind!r}")
    idf_path = os.path.join(dir_path, IDF_ASSET)
    idf = np.load(idf_path, allow_pickle=False) if os.path.exists(idf_path) else None
    return source, idf


def ids_idf_weights(values: np.ndarray, row_lengths: np.ndarray, depth: int) -> np.ndarray:
    """``log(1 + documents / (1 + document count))`` of every id below ``depth``, as float32."""
    rows = np.repeat(np.arange(len(row_lengths)), row_lengths)
    pairs = np.unique(np.stack([rows, values]), axis=1) if len(values) else np.zeros((2, 0), np.int64)
    frequency = np.bincount(pairs[1], minlength=depth).astype(np.float64)
    return np.log(1 + len(row_lengths) / (1 + frequency)).astype(np.float32)
