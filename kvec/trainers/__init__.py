"""Trainers: learn a model's vocabulary from word counts."""

from kvec.contracts import Trainer  # the base class, under Hugging Face's name for it
from kvec.trainers.bottom_up import BottomUpWordPieceTrainer, learn_vocabulary
from kvec.trainers.bpe import BpeTrainer
from kvec.trainers.unigram import UnigramTrainer
from kvec.trainers.wordlevel import WordLevelTrainer
from kvec.trainers.wordpiece import WordPieceTrainer

__all__ = [
    "Trainer",
    "BottomUpWordPieceTrainer",
    "BpeTrainer",
    "UnigramTrainer",
    "WordLevelTrainer",
    "WordPieceTrainer",
    "learn_vocabulary",
]
