"""Decoders: turn a list of tokens back into text.

:mod:`kvec.decoders.pieces` holds the decoders whose text is each token's bytes back to back
(byte-level, WordPiece, Metaspace, sentencepiece); :mod:`kvec.decoders.chain` holds Hugging Face's
chain steps (Replace, ByteFallback, Fuse, Strip, CTC, BPEDecoder) and :class:`Sequence`, which composes
any decoders as ``tokenizers.decoders.Sequence`` does; :mod:`kvec.decoders.stream` decodes ids as a model
produces them (:class:`DecodeStream`).
"""

from kvec.contracts import Decoder  # the base class, under Hugging Face's name for it
from kvec.decoders.chain import CTC, BPEDecoder, ByteFallback, Fuse, Replace, Sequence, Strip
from kvec.decoders.pieces import ESCAPED_SPACE_MARK as ESCAPED_SPACE_MARK  # kvec.presets' escape
from kvec.decoders.pieces import ByteLevel, Metaspace, SentencePiece, WordPiece
from kvec.decoders.stream import DecodeStream

__all__ = [
    "Decoder",
    "BPEDecoder",
    "ByteFallback",
    "ByteLevel",
    "CTC",
    "DecodeStream",
    "Fuse",
    "Metaspace",
    "Replace",
    "SentencePiece",
    "Sequence",
    "Strip",
    "WordPiece",
]
