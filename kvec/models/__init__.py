"""Subword models: encode one pre-tokenized word against a vocabulary (no training code here)."""

from kvec.contracts import Model  # the base class, under Hugging Face's name for it
from kvec.models.bpe import BPE
from kvec.models.unigram import Unigram
from kvec.models.wordlevel import WordLevel
from kvec.models.wordpiece import WordPiece

__all__ = ["Model", "BPE", "Unigram", "WordLevel", "WordPiece"]
