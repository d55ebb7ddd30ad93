"""Chinese word segmentation with jieba, as a pipeline pre-tokenizer and as a Keras ``analyzer``.

Each :class:`Jieba` owns a private ``jieba.Tokenizer``: user words added to one never reach another or
jieba's global tokenizer, and its dictionary cache is written only to ``cache_dir``. The tokenizer is
built on first use (jieba loads its dictionary then, about a second) and again in each worker process,
so a pipeline with a Jieba pre-tokenizer counts words in ``n_jobs`` processes.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import re
import sys
from array import array
from collections.abc import Iterable
from typing import Any

from kvec.contracts import Piece, PreTokenizer
from kvec.user_cache import default_cache_dir

__all__ = ["Jieba", "default_cache_dir"]

MODES = ("accurate", "search", "full")
# one line of a jieba user dictionary: the word (spaces allowed), then an optional count and tag
_USER_DICT_LINE = re.compile(r"^(.+?)( [0-9]+)?( [a-z]+)?$")
# what jieba's segmenter keeps together; a user word with anything else is matched before jieba runs
_JIEBA_BLOCK = re.compile(r"[\u4E00-\u9FD5a-zA-Z0-9+#&\._%\-]+")


class Jieba(PreTokenizer):
    """Words of Chinese (and mixed) text by jieba; whitespace is dropped.

    Args:
        mode: ``"accurate"`` (jieba's default cut), ``"search"`` (also the shorter words inside long
            ones, as ``cut_for_search``) or ``"full"`` (every dictionary word, overlapping).
        hmm: let jieba's HMM join characters into words its dictionary lacks.
        user_dict: a jieba user dictionary file (``word [count] [tag]`` per line) or a list of words
            or ``(word, count)`` pairs. Words may hold spaces or digits: each becomes one token.
        cache_dir: where jieba caches its prefix dictionary (default :func:`default_cache_dir`).

    Example:
        >>> segmenter = Jieba(user_dict=["自然语言处理", "New York"])
        >>> segmenter("我爱自然语言处理，也爱New York")
        ['我', '爱', '自然语言处理', '，', '也', '爱', 'New York']
    """

    def __init__(
        self,
        mode: str = "accurate",
        hmm: bool = True,
        user_dict: str | os.PathLike[str] | Iterable[str | tuple[Any, ...]] | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.mode = mode
        self.hmm = bool(hmm)
        self.user_words = _user_words(user_dict)
        self.cache_dir = cache_dir
        self._tokenizer = None
        unusual = sorted({w for w, _ in self.user_words if not _JIEBA_BLOCK.fullmatch(w)}, key=len, reverse=True)
        self._unusual = re.compile("|".join(map(re.escape, unusual))) if unusual else None

    def get_config(self):
        return {"mode": self.mode, "hmm": self.hmm, "user_dict": [list(entry) for entry in self.user_words]}

    def __getstate__(self):  # the jieba tokenizer holds a lock: rebuilt in the other process
        state = dict(self.__dict__)
        state["_tokenizer"] = None
        return state

    def _jieba(self):
        if self._tokenizer is None:
            import jieba

            tokenizer = jieba.Tokenizer()
            tokenizer.tmp_dir = self.cache_dir or default_cache_dir()
            os.makedirs(tokenizer.tmp_dir, exist_ok=True)
            tokenizer.initialize()
            for word, count in self.user_words:
                tokenizer.add_word(word, count)
            self._tokenizer = tokenizer
        return self._tokenizer

    def _spans(self, text):
        """``(word, start)`` for every word of ``text``, whitespace left out."""
        if self._unusual is None:
            return self._jieba_spans(text, 0)
        spans, position = [], 0
        for match in self._unusual.finditer(text):
            spans += self._jieba_spans(text[position : match.start()], position)
            spans.append((match.group(), match.start()))
            position = match.end()
        return spans + self._jieba_spans(text[position:], position)

    def _jieba_spans(self, text, shift):
        if not text:
            return []
        tokenizer = self._jieba()
        if self.mode == "full":
            spans, start = [], 0
            for word in tokenizer.cut(text, cut_all=True, HMM=self.hmm):
                start = text.find(word, start) if word else start  # words come in order of their starts
                spans.append((word, start + shift))
        else:
            mode = "search" if self.mode == "search" else "default"
            spans = [(word, start + shift) for word, start, _ in tokenizer.tokenize(text, mode=mode, HMM=self.hmm)]
        return [(word, start) for word, start in spans if word and not word.isspace()]

    # ---- the pre-tokenizer interface ----

    def pre_tokenize(self, text, first=True):
        return [Piece(word, start) for word, start in self._spans(text)]

    def split_words(self, text, first=True):
        if self._unusual is not None or self.mode == "full":
            return [word for word, _ in self._spans(text)]
        tokenizer = self._jieba()  # no offsets needed: jieba's plain cut is quicker
        cut = tokenizer.cut_for_search if self.mode == "search" else tokenizer.cut
        return [word for word in cut(text, HMM=self.hmm) if word and not word.isspace()]

    def __call__(self, text):
        """The words of ``text``: a Jieba is an ``analyzer`` for :class:`kvec.Tokenizer`."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        return self.split_words(text)

    def segment(self, texts: Iterable[str], n_jobs: int = 1, chunk_size: int = 500) -> list[list[str]]:
        """The words of every text, in order, segmented in ``n_jobs`` processes (-1: one per CPU).

        On Linux the workers are forked after the dictionary is loaded here, so they start at once; the
        result is the same for every ``n_jobs``.

        Example:
            >>> Jieba().segment(["我爱北京", "自然语言"], n_jobs=2)
            [['我', '爱', '北京'], ['自然语言']]
        """
        texts = list(texts)
        for position, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"texts[{position}] must be a str, got {type(text).__name__}")
        if n_jobs == -1:
            n_jobs = os.cpu_count() or 1
        if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
            raise ValueError(f"n_jobs must be a positive int or -1, got {n_jobs!r}")
        chunks = [texts[i : i + chunk_size] for i in range(0, len(texts), chunk_size)]
        if n_jobs == 1 or len(chunks) < 2:
            return [self.split_words(text) for text in texts]
        global _WORKER_SEGMENTER
        self._jieba()  # loaded once, here: forked workers inherit it
        fork = sys.platform.startswith("linux")
        context = multiprocessing.get_context("fork" if fork else "spawn")
        # workers send each chunk back packed; this process unpacks while they go on
        _WORKER_SEGMENTER = self
        collecting = gc.isenabled()
        gc.disable()  # the word lists make no cycles; collections would rescan them again and again
        words = []
        try:
            initializer = None if fork else _set_worker_segmenter
            with context.Pool(n_jobs, initializer=initializer, initargs=() if fork else (self,)) as pool:
                for packed in pool.imap(_segment_chunk, chunks):
                    words += _unpack(*packed)
        finally:
            _WORKER_SEGMENTER = None
            if collecting:
                gc.enable()
        return words


_WORKER_SEGMENTER: Jieba | None = None  # the Jieba a worker process segments with


def _set_worker_segmenter(segmenter):
    global _WORKER_SEGMENTER
    _WORKER_SEGMENTER = segmenter


def _segment_chunk(texts):
    """A chunk's words packed as one string and two arrays of lengths: cheap to send back."""
    gc.disable()  # as in the parent
    words = [_WORKER_SEGMENTER.split_words(text) for text in texts]
    flat = [w for line in words for w in line]
    return "".join(flat), array("L", map(len, flat)), array("L", map(len, words))


def _unpack(joined, word_lengths, line_lengths):
    words, position = [], 0
    for length in word_lengths:
        words.append(joined[position : position + length])
        position += length
    lines, start = [], 0
    for count in line_lengths:
        lines.append(words[start : start + count])
        start += count
    return lines


def _user_words(user_dict):
    """``[(word, count or None)]`` from a file path, a list of words or ``(word, count)`` pairs."""
    if user_dict is None:
        return []
    if isinstance(user_dict, (str, os.PathLike)):
        words = []
        with open(user_dict, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                word, count, _ = _USER_DICT_LINE.match(line).groups()
                words.append((word, int(count) if count else None))
        return words
    words = []
    for position, entry in enumerate(user_dict):
        if isinstance(entry, str):
            word, count = entry, None
        elif isinstance(entry, (tuple, list)) and len(entry) == 2:
            word, count = entry
        else:
            word, count = None, None
        if not isinstance(word, str) or not word.strip():
            raise TypeError(f"user_dict[{position}] must be a word or a (word, count) pair, got {entry!r}")
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
            raise TypeError(f"user_dict[{position}]: the count must be a non-negative int, got {count!r}")
        words.append((word, count))
    return words
