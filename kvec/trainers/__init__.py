"""Trainers: learn a model's vocabulary from word counts."""

from kvec.trainers.bpe import BpeTrainer
from kvec.trainers.wordpiece import WordPieceTrainer

__all__ = ["BpeTrainer", "WordPieceTrainer"]
