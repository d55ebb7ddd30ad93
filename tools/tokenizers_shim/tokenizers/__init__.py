"""kvec's names under ``tokenizers``' names, to run Hugging Face's own binding tests against kvec.

Not part of kvec: ``tools/hf_binding_tests.sh`` puts this folder first on ``PYTHONPATH``, so that
``from tokenizers.normalizers import Normalizer`` in those tests imports kvec's.
"""

import sys

from kvec import (
    AddedToken,
    NormalizedString,
    PreTokenizedString,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    processors,
    trainers,
)
from kvec.common.patterns import Regex
from kvec.encoding import Encoding
from kvec.pipeline import Pipeline as Tokenizer

__all__ = [
    "AddedToken",
    "Encoding",
    "NormalizedString",
    "PreTokenizedString",
    "Regex",
    "Tokenizer",
    "decoders",
    "models",
    "normalizers",
    "pre_tokenizers",
    "processors",
    "trainers",
]

# kvec.pre_tokenizers is kvec.pretokenizers itself, so each module goes under the name imported here
for _name, _module in {
    "decoders": decoders,
    "models": models,
    "normalizers": normalizers,
    "pre_tokenizers": pre_tokenizers,
    "processors": processors,
    "trainers": trainers,
}.items():
    sys.modules[f"tokenizers.{_name}"] = _module
