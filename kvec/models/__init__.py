"""Subword models: encode one pre-tokenized word against a vocabulary (no training code here)."""

from kvec.models.bpe import BPE
from kvec.models.unigram import Unigram
from kvec.models.wordpiece import WordPiece

__all__ = ["BPE", "Unigram", "WordPiece"]
