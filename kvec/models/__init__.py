"""Subword models: encode one pre-tokenized word against a vocabulary (no training code here)."""

from kvec.models.bpe import BPE

__all__ = ["BPE"]
