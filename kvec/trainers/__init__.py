"""Trainers: learn a model's vocabulary from word counts."""

from kvec.trainers.bpe import BpeTrainer

__all__ = ["BpeTrainer"]
