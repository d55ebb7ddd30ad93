"""Chinese word segmentation: jieba's algorithm in kvec's native code, as a pipeline pre-tokenizer and
as a Keras ``analyzer``.

:class:`Jieba` cuts text exactly as ``jieba`` 0.42.1 does (``lcut``, ``lcut(HMM=False)``,
``lcut_for_search``, ``lcut(cut_all=True)``), from jieba's own data read from the installed package:
its prefix dictionary (``dict.txt``) and its HMM's start, transition and emission probabilities. The
segmentation itself runs in C (``csrc/core/jieba_cut.c``) without the GIL.

The dictionary is built once per process and shared by every :class:`Jieba`; the built form is cached
in ``cache_dir`` (default :func:`default_cache_dir`), so a later process loads it in milliseconds. User
words belong to one :class:`Jieba`: they never reach another one, nor jieba's global tokenizer.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import threading
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from kvec._jieba import Cutter, Dictionary
from kvec.atomic import atomic_write
from kvec.contracts import Piece, PreTokenizer
from kvec.user_cache import default_cache_dir
from kvec.vocab_reading import read_bytes, read_text

__all__ = ["Jieba", "JiebaState", "default_cache_dir"]

MODES = ("accurate", "search", "full")
# one line of a jieba user dictionary: the word (spaces allowed), then an optional count and tag
_USER_DICT_LINE = re.compile(r"^(.+?)( [0-9]+)?( [a-z]+)?$")
# what jieba's segmenter keeps together; a user word with anything else is matched before jieba runs
_JIEBA_BLOCK = re.compile(r"[\u4E00-\u9FD5a-zA-Z0-9+#&\._%\-]+")
_DUMP_FORMAT = "kvec-jieba-2"  # changes when the dump of csrc/jieba_dictionary.c changes
_HAN_FIRST, _HAN_LAST = 0x4E00, 0x9FD5  # the code points of the HMM's emission table
_MIN_FLOAT = -3.14e100  # jieba's log-probability of what its HMM never saw

_dictionaries: dict[str, Any] = {}  # cache file -> the loaded dictionary, shared in the process
_dictionaries_lock = threading.Lock()


@dataclass(frozen=True)
class JiebaState:
    """What a :class:`Jieba` cuts with, for the native encoder outside Python (kvec/native_spec.py)."""

    mode: int  # the index of the mode in MODES
    hmm: bool
    dictionary: bytes  # the dictionary file's bytes
    hmm_tables: bytes  # the HMM as float64 bytes (see _hmm_tables)
    user_words: list[tuple[str, int]]  # as added, each with the count it was added with
    whole_words: list[str]  # user words found before jieba cuts (they hold what jieba splits)


class Jieba(PreTokenizer):
    """Words of Chinese (and mixed) text by jieba's algorithm; whitespace is dropped.

    Args:
        mode: ``"accurate"`` (jieba's default cut), ``"search"`` (also the shorter words inside long
            ones, as ``cut_for_search``) or ``"full"`` (every dictionary word, overlapping).
        hmm: let jieba's HMM join characters into words its dictionary lacks.
        user_dict: a jieba user dictionary file (``word [count] [tag]`` per line) or a list of words
            or ``(word, count)`` pairs. Words may hold spaces or digits: each becomes one token.
        cache_dir: where the built dictionary is cached (default :func:`default_cache_dir`).
        dictionary: a jieba dictionary file (``word count [tag]`` per line) used instead of jieba's
            own, as ``jieba.Tokenizer(dictionary=...)`` or ``jieba.set_dictionary`` use it.

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
        dictionary: str | os.PathLike[str] | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.mode = mode
        self.hmm = bool(hmm)
        self.user_words = _user_words(user_dict)
        self.cache_dir = cache_dir
        self.dictionary = None if dictionary is None else os.fspath(dictionary)
        self._cutter = None
        self._added: list[tuple[str, int]] = []  # the user words with the counts they were added with
        unusual = sorted({w for w, _ in self.user_words if not _JIEBA_BLOCK.fullmatch(w)}, key=len, reverse=True)
        self._whole_words = unusual
        self._unusual = re.compile("|".join(map(re.escape, unusual))) if unusual else None

    def get_config(self):
        config = {"mode": self.mode, "hmm": self.hmm, "user_dict": [list(entry) for entry in self.user_words]}
        if self.dictionary is not None:
            config["dictionary"] = self.dictionary
        return config

    def native_state(self) -> JiebaState:
        """The dictionary, HMM and words this segmenter cuts with (its counts as added)."""
        self._native()
        dictionary = read_bytes(self.dictionary or _jieba_files()[0])[1]
        return JiebaState(
            MODES.index(self.mode), self.hmm, dictionary, _hmm_tables(), list(self._added), list(self._whole_words)
        )

    def __getstate__(self):  # the native segmenter is rebuilt in the other process
        state = dict(self.__dict__)
        state["_cutter"] = None
        return state

    def _native(self):
        """The native segmenter, made on first use with the user words added in order, as jieba's
        ``add_word`` adds them (a word without a count gets jieba's suggested count)."""
        if self._cutter is None:
            cutter = Cutter(_dictionary(self.cache_dir, self.dictionary), MODES.index(self.mode), self.hmm)
            added = []
            for word, count in self.user_words:
                added.append((word, cutter.suggested_count(word) if count is None else count))
                cutter.add_word(*added[-1])
            self._cutter, self._added = cutter, added
        return self._cutter

    def _spans(self, text):
        """``(word, start)`` for every word of ``text``, whitespace left out."""
        cutter = self._native()
        if self._unusual is None:
            return cutter.spans(text)
        spans, position = [], 0
        for match in self._unusual.finditer(text):
            spans += [(word, start + position) for word, start in cutter.spans(text[position : match.start()])]
            spans.append((match.group(), match.start()))
            position = match.end()
        return spans + [(word, start + position) for word, start in cutter.spans(text[position:])]

    # ---- the pre-tokenizer interface ----

    def pre_tokenize(self, text, first=True):
        return [Piece(word, start) for word, start in self._spans(text)]

    def split_words(self, text, first=True):
        if self._unusual is not None:
            return [word for word, _ in self._spans(text)]
        return self._native().words(text)

    def __call__(self, text):
        """The words of ``text``: a Jieba is an ``analyzer`` for :class:`kvec.Tokenizer`."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        return self.split_words(text)

    def segment(self, texts: Iterable[str], n_jobs: int = 1) -> list[list[str]]:
        """The words of every text, in order, cut on ``n_jobs`` threads (-1: one per CPU).

        The threads cut without the GIL while this one makes the lists; the result is the same for
        every ``n_jobs``.

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
        if self._unusual is not None:
            return [self.split_words(text) for text in texts]
        return self._native().segment(texts, min(n_jobs, 256))


def _jieba_files():
    """The installed jieba's dictionary and HMM files (found without importing jieba)."""
    spec = importlib.util.find_spec("jieba")
    if spec is None or spec.origin is None:
        raise ImportError("kvec.chinese needs the jieba package (pip install jieba)")
    folder = os.path.dirname(spec.origin)
    hmm = [os.path.join(folder, "finalseg", f"prob_{name}.py") for name in ("start", "trans", "emit")]
    return os.path.join(folder, "dict.txt"), hmm


def _dictionary(cache_dir, dictionary_file=None):
    """jieba's dictionary (or the file ``dictionary_file``) and HMM, built once per process; the built
    form is cached in ``cache_dir`` under a name that changes with the files (their paths, sizes and
    times) and kvec's format."""
    jieba_dictionary, hmm_files = _jieba_files()
    dictionary_file = os.path.abspath(dictionary_file) if dictionary_file is not None else jieba_dictionary
    key = hashlib.sha256(_DUMP_FORMAT.encode())
    for path in (dictionary_file, *hmm_files):
        info = os.stat(path)
        key.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    folder = os.fspath(cache_dir) if cache_dir is not None else default_cache_dir()
    cache_file = os.path.join(folder, f"jieba-{key.hexdigest()[:20]}.kvec")
    with _dictionaries_lock:
        if cache_file not in _dictionaries:
            _dictionaries[cache_file] = _load_or_build(cache_file, dictionary_file)
        return _dictionaries[cache_file]


def _load_or_build(cache_file, dictionary_file):
    try:
        with open(cache_file, "rb") as f:
            return Dictionary.load(f.read(), cache_file)
    except (OSError, ValueError):
        pass  # not cached yet, or corrupt: built again below
    dictionary = Dictionary(read_bytes(dictionary_file)[1], _hmm_tables(), dictionary_file)
    try:
        os.makedirs(os.path.dirname(cache_file), exist_ok=True)
        with atomic_write(cache_file, binary=True) as f:
            f.write(dictionary.dump())
    except OSError:
        pass  # a folder that cannot be written: the dictionary is built again in the next process
    return dictionary


@lru_cache(maxsize=1)
def _hmm_tables():
    """jieba's HMM as float64 bytes: start (B, E, M, S), transitions (from, to), then emissions (state,
    code point from U+4E00 to U+9FD5); jieba's MIN_FLOAT where it has no value."""
    from jieba.finalseg import emit_P, start_P, trans_P  # noqa: PLC0415 (only when the cache is built)

    states = "BEMS"
    values = array("d", [start_P.get(y, _MIN_FLOAT) for y in states])
    values.extend(trans_P[y].get(z, _MIN_FLOAT) for y in states for z in states)
    for y in states:
        emit = emit_P[y]
        values.extend(emit.get(chr(c), _MIN_FLOAT) for c in range(_HAN_FIRST, _HAN_LAST + 1))
    return values.tobytes()


def _user_words(user_dict):
    """``[(word, count or None)]`` from a file path, a list of words or ``(word, count)`` pairs."""
    if user_dict is None:
        return []
    if isinstance(user_dict, (str, os.PathLike)):
        words = []
        for line in read_text(user_dict)[1].split("\n"):
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
