"""kvec: text vectorization for Keras.

The public surface, mirroring ``keras.preprocessing.text`` and ``keras.preprocessing.sequence``
(``pad_sequences``, ``skipgrams``, ``make_sampling_table``)::

    from kvec import Tokenizer, pad_sequences

    tok = Tokenizer(num_words=20000, oov_token="<OOV>")
    tok.fit_on_texts(texts)
    x = pad_sequences(tok.texts_to_sequences(texts), maxlen=128)

``kvec.Pipeline`` is the subword tokenizer (normalizer, pre-tokenizer, model, post-processor,
decoder); see :mod:`kvec.pipeline`. ``kvec.load(path)`` reads any tokenizer file kvec knows, telling
its format from its contents (see :mod:`kvec.interop.detection`). The core imports and runs without
TensorFlow or Keras.
"""

from kvec.added_vocabulary import AddedToken
from kvec.custom_stages import NormalizedString, PreTokenizedString
from kvec.errors import FormatError, KvecError
from kvec.interop.detection import load
from kvec.pipeline import Pipeline
from kvec.sequence import make_sampling_table, pad_sequences, skipgrams
from kvec.text import (
    Tokenizer,
    hashing_trick,
    one_hot,
    text_to_word_sequence,
    tokenizer_from_json,
)

__version__ = "0.1.0"

__all__ = [
    "AddedToken",
    "FormatError",
    "KvecError",
    "NormalizedString",
    "Pipeline",
    "PreTokenizedString",
    "Tokenizer",
    "hashing_trick",
    "load",
    "make_sampling_table",
    "one_hot",
    "pad_sequences",
    "skipgrams",
    "text_to_word_sequence",
    "tokenizer_from_json",
]
