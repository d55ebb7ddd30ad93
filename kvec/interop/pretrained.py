"""transformers' tokenizer folders: ``save_pretrained`` writes one, ``from_pretrained`` reads one.

A folder holds ``tokenizer.json`` (the pipeline), ``tokenizer_config.json`` (the call settings and the
named special tokens, see :mod:`kvec.interop.tokenizer_config`) and ``special_tokens_map.json`` (the
special tokens again, as transformers 4 wrote them). Importing this module gives every pipeline its
``save_pretrained`` and ``from_pretrained`` (:data:`kvec.transformers_calls.PRETRAINED`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from kvec.common.arguments import wrong_type
from kvec.errors import FormatError
from kvec.files.atomic import atomic_write
from kvec.interop.detection import load
from kvec.interop.huggingface import save_tokenizer_json
from kvec.interop.tokenizer_config import CONFIG, SPECIAL_MAP, local_path
from kvec.pipeline import Pipeline
from kvec.transformers_calls import PRETRAINED

__all__ = ["from_pretrained", "save_pretrained"]


def save_pretrained(tokenizer: Pipeline, folder: str | os.PathLike[str]) -> tuple[str, ...]:
    """Write ``tokenizer`` into ``folder`` as transformers' ``save_pretrained`` does (see
    :meth:`kvec.transformers_calls.TransformersCalls.save_pretrained`); returns the paths written."""
    if not isinstance(tokenizer, Pipeline):
        raise wrong_type("tokenizer", "a kvec.Pipeline", tokenizer)
    if not isinstance(folder, (str, os.PathLike)):
        raise wrong_type("save_directory", "a str or a path", folder)
    target = Path(folder)
    if target.exists() and not target.is_dir():
        raise ValueError(f"save_directory must be a folder, but {target} is a file")
    target.mkdir(parents=True, exist_ok=True)
    special = tokenizer.special_tokens_map
    config: dict[str, Any] = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "model_max_length": tokenizer.model_max_length,
        "padding_side": tokenizer.padding_side,
        "truncation_side": tokenizer.truncation_side,
        "model_input_names": tokenizer.model_input_names,
        "clean_up_tokenization_spaces": tokenizer.clean_up_tokenization_spaces,
        **special,
    }
    paths = (target / "tokenizer.json", target / CONFIG, target / SPECIAL_MAP)
    save_tokenizer_json(tokenizer, paths[0])
    for path, document in zip(paths[1:], (config, special)):
        with atomic_write(path) as stream:
            stream.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return tuple(str(path) for path in paths)


def from_pretrained(name: str | os.PathLike[str]) -> Pipeline:
    """The pipeline of a local tokenizer folder or file, with its ``tokenizer_config.json`` applied
    (:func:`apply_tokenizer_config`); :class:`NotLocalError` for a name that is neither."""
    found = local_path(name)
    loaded = load(found)  # a folder's tokenizer_config.json applied
    if not isinstance(loaded, Pipeline):
        raise FormatError(found, "a Keras Tokenizer's JSON, not a subword tokenizer (load it with kvec.load)")
    return loaded


PRETRAINED.update(save=save_pretrained, load=from_pretrained)
