"""Trainers: learn a model's vocabulary from word counts."""

from kvec.trainers.bottom_up import BottomUpWordPieceTrainer, learn_vocabulary
from kvec.trainers.bpe import BpeTrainer
from kvec.trainers.unigram import UnigramTrainer
from kvec.trainers.wordpiece import WordPieceTrainer

__all__ = ["BottomUpWordPieceTrainer", "BpeTrainer", "UnigramTrainer", "WordPieceTrainer", "learn_vocabulary"]
