"""Chinese word segmentation: jieba's algorithm in kvec's native code, with jieba's dictionary API, as
a pipeline pre-tokenizer and as a Keras ``analyzer``.

:class:`Jieba` cuts text exactly as ``jieba`` 0.42.1 does (``cut``, ``cut(HMM=False)``,
``cut_for_search``, ``cut(cut_all=True)``, ``tokenize``), from jieba's own data read from the installed
package: its prefix dictionary (``dict.txt``) and its HMM's start, transition and emission
probabilities. The segmentation itself runs in C (``csrc/core/jieba_cut.c``) without the GIL. Its
dictionary changes as jieba's does (``load_userdict``, ``add_word``, ``del_word``,
``suggest_freq(tune=True)``, ``set_dictionary``), one word at a time in place.

The dictionary file is built once per process and shared by every :class:`Jieba`; the built form is
cached in ``cache_dir`` (default :func:`default_cache_dir`), so a later process loads it in
milliseconds. The words a :class:`Jieba` adds are its own: they never reach another one, nor jieba's
global tokenizer. ``kvec.jieba`` gives jieba's module-level functions on a default :class:`Jieba`.
"""

from __future__ import annotations

import importlib.util
import os
import re
import threading
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

from kvec._jieba import Cutter, Dictionary
from kvec.common.arguments import must_be, wrong_type
from kvec.contracts import Piece, PreTokenizer, changed, registered
from kvec.errors import FormatError
from kvec.files.atomic import atomic_write
from kvec.files.user_cache import default_cache_dir
from kvec.files.vocab_reading import read_bytes

__all__ = ["Jieba", "JiebaState", "default_cache_dir"]

MODES = ("accurate", "search", "full")
_ACCURATE, _SEARCH, _FULL = range(3)
# jieba's re_userdict: one line of a user dictionary, the word (spaces allowed), then an optional count
# and tag
_USER_DICT_LINE = re.compile(r"^(.+?)( [0-9]+)?( [a-z]+)?$")
# jieba's re_han_default: what its blocks are made of; a user word with anything else is never found
# whole by jieba (the option ``whole_words`` finds it before jieba cuts)
_JIEBA_BLOCK = re.compile(r"[\u4E00-\u9FD5a-zA-Z0-9+#&\._%\-]+")
_DUMP_FORMAT = "kvec-jieba-2"  # changes when the dump of csrc/python/jieba/jieba_dictionary.c changes
_HAN_FIRST, _HAN_LAST = 0x4E00, 0x9FD5  # the code points of the HMM's emission table
_MIN_FLOAT = -3.14e100  # jieba's log-probability of what its HMM never saw

_dictionaries: dict[str, Any] = {}  # cache file -> the loaded dictionary, shared in the process
_dictionaries_lock = threading.Lock()

UserDict = str | os.PathLike[str] | Iterable[str | tuple[Any, ...]]


@dataclass(frozen=True)
class JiebaState:
    """What a :class:`Jieba` cuts with, for the native encoder outside Python (kvec/native_spec.py)."""

    mode: int  # the index of the mode in MODES
    hmm: bool
    dictionary: bytes  # the dictionary file's bytes
    hmm_tables: bytes  # the HMM as float64 bytes (see _hmm_tables)
    user_words: list[tuple[str, int]]  # every add_word since the dictionary was loaded, with its count
    whole_words: list[str]  # with ``whole_words``: user words found before jieba cuts


@registered
class Jieba(PreTokenizer):
    """Words of Chinese (and mixed) text by jieba's algorithm, with jieba's dictionary API.

    As a pre-tokenizer, a Keras ``analyzer`` or a layer's word splitter it cuts in ``mode`` and drops
    whitespace. Its jieba methods (:meth:`cut`, :meth:`lcut`, :meth:`cut_for_search`,
    :meth:`tokenize`, :meth:`add_word`, :meth:`load_userdict`, ...) take jieba's arguments and give
    jieba's words, whitespace included, after the same dictionary calls.

    Args:
        mode: ``"accurate"`` (jieba's default cut), ``"search"`` (also the shorter words inside long
            ones, as ``cut_for_search``) or ``"full"`` (every dictionary word, overlapping).
        hmm: let jieba's HMM join characters into words its dictionary lacks.
        user_dict: words added as jieba adds them, in order: a jieba user dictionary (a path or a file
            object; ``word [count] [tag]`` per line, as :meth:`load_userdict` reads it) or a list of
            words or ``(word, count)`` pairs.
        cache_dir: where the built dictionary is cached (default :func:`default_cache_dir`).
        dictionary: a jieba dictionary file (``word count [tag]`` per line) used instead of jieba's
            own, as ``jieba.Tokenizer(dictionary=...)`` or ``jieba.set_dictionary`` use it.
        whole_words: also keep each user word that jieba's blocks would split (one with a space or
            punctuation) as one word of the pre-tokenizer; off, the words are jieba's.

    Example:
        >>> segmenter = Jieba(user_dict=["自然语言处理", "New York"])
        >>> segmenter("我爱自然语言处理，也爱New York")
        ['我', '爱', '自然语言处理', '，', '也', '爱', 'New', 'York']
        >>> segmenter.add_word("石墨烯")
        >>> segmenter.lcut("石墨烯 好")
        ['石墨烯', ' ', '好']
    """

    def __init__(
        self,
        mode: str = "accurate",
        hmm: bool = True,
        user_dict: UserDict | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        dictionary: str | os.PathLike[str] | None = None,
        whole_words: bool = False,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.mode = mode
        self.hmm = bool(hmm)
        self.cache_dir = cache_dir
        self.dictionary = None if dictionary is None else os.fspath(dictionary)
        self.whole_words = bool(whole_words)
        self.user_word_tag_tab: dict[str, str] = {}
        self._lock = threading.RLock()  # held by whatever changes the dictionary
        self._cutter: Any = None  # the native segmenter, made on first use
        self._loading: Any = None  # the native segmenter while user_dict's words go in
        self._carried: bytes | None = None  # the content of ``dictionary``, as a pickle carried it
        self._words: list[tuple[str, int]] = []  # every add_word since the dictionary was loaded
        self._pending = _user_words(user_dict)  # user_dict's words, added when the dictionary loads
        self._whole: Any = None  # with whole_words: the expression of the user words jieba splits

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"mode": self.mode, "hmm": self.hmm, "user_dict": list(map(list, self.user_words))}
        if self.dictionary is not None:
            config["dictionary"] = self.dictionary
        if self.whole_words:
            config["whole_words"] = True
        return config

    def native_state(self) -> JiebaState:
        """The dictionary, HMM and words this segmenter cuts with (each added word with its count)."""
        with self._lock:
            self._native()
            dictionary = self._carried if self._carried is not None else _file_bytes(self.dictionary)
            return JiebaState(
                MODES.index(self.mode), self.hmm, dictionary, _hmm_tables(), list(self._words), self._whole_list()
            )

    # the native segmenter is rebuilt in the other process, the words replayed
    def __getstate__(self) -> dict[str, Any]:
        with self._lock:
            state = dict(self.__dict__)
            if self.dictionary is not None and self._carried is None:  # the file may be missing there
                state["_carried"] = _file_bytes(self.dictionary)
            if self._cutter is not None:
                state["_pending"] = [(word, count, None) for word, count in self._words]
            state.update(
                _cutter=None,
                _loading=None,
                _words=[],
                _whole=None,
                _lock=None,
                user_word_tag_tab=dict(self.user_word_tag_tab),
            )
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()

    def _native(self):
        """The native segmenter, made on first use (as jieba's ``initialize``) with ``user_dict``'s words
        added in order; other threads see it once every word is in."""
        cutter = self._cutter
        if cutter is not None:
            return cutter
        with self._lock:
            if self._cutter is not None:
                return self._cutter
            if self._loading is not None:  # this thread, adding user_dict's words
                return self._loading
            dictionary = _dictionary(self.cache_dir, self.dictionary, self._carried)
            self._loading = Cutter(dictionary, MODES.index(self.mode), self.hmm)
            pending, self._pending = self._pending, []
            try:
                for word, count, tag in pending:
                    self.add_word(word, count, tag)
                self._cutter = self._loading
            except BaseException:
                self._pending, self._words = pending, []
                raise
            finally:
                self._loading = None
            return self._cutter

    # ---- jieba's dictionary API ----

    def initialize(self, dictionary: str | os.PathLike[str] | None = None) -> None:
        """Load the dictionary now (jieba's ``initialize``); with ``dictionary``, load that file instead,
        dropping the words added unless it is the file already loaded.

        Example:
            >>> Jieba().initialize()
        """
        with self._lock:
            if dictionary:
                path = os.path.abspath(os.fspath(dictionary))
                current = self.dictionary and os.path.abspath(self.dictionary)
                if current != path or self._cutter is None:
                    self._reset(path)
            self._native()

    def set_dictionary(self, dictionary_path: str | os.PathLike[str]) -> None:
        """Cut with the jieba dictionary file ``dictionary_path`` from now on (jieba's ``set_dictionary``):
        the words added so far are dropped, as jieba drops them when it loads the new file.

        Example:
            >>> import os, tempfile
            >>> path = os.path.join(tempfile.mkdtemp(), "dict.txt")
            >>> with open(path, "w", encoding="utf-8") as f:
            ...     _ = f.write("北京 3\\n大学 2\\n北京大学 1\\n")
            >>> segmenter = Jieba()
            >>> segmenter.set_dictionary(path)
            >>> segmenter.lcut("北京大学")
            ['北京', '大学']
        """
        path = os.path.abspath(os.fspath(dictionary_path))
        if not os.path.isfile(path):
            raise FileNotFoundError(f"jieba: file does not exist: {path}")
        with self._lock:
            self._reset(path)

    def _reset(self, dictionary):
        self.dictionary, self._carried = dictionary, None
        self._cutter, self._words, self._pending, self._whole = None, [], [], None
        changed(self)  # what was described of this segmenter (a layer's op) is described again

    def load_userdict(self, f: Any) -> None:
        """Add the words of a jieba user dictionary (jieba's ``load_userdict``): a path or a file object
        (bytes or text), UTF-8, ``word [count] [tag]`` per line, read by jieba's rules (each line
        stripped, a byte-order mark dropped from bytes, blank lines skipped, the word as long as jieba's
        expression makes it: spaces allowed, an ASCII count and a lowercase tag after it).

        Example:
            >>> import io
            >>> segmenter = Jieba()
            >>> segmenter.load_userdict(io.BytesIO("\\ufeff石墨烯 5 n\\n凱特琳 nz\\n".encode()))
            >>> segmenter.lcut("石墨烯是凱特琳的")
            ['石墨烯', '是', '凱特琳', '的']
        """
        with self._lock:
            self._native()
            for word, count, tag in _read_user_dict(f):
                self.add_word(word, count, tag)

    def add_word(self, word: str, freq: int | str | None = None, tag: str | None = None) -> None:
        """Add ``word`` with count ``freq`` (jieba's ``add_word``): without one, jieba's suggested count,
        which keeps the word whole where jieba's blocks allow; with 0, the word is cut apart even where
        jieba's HMM would join it. A word jieba's blocks split (a space, most punctuation) changes the
        counts, never the blocks.

        Example:
            >>> segmenter = Jieba()
            >>> segmenter.add_word("石墨烯")
            >>> segmenter.lcut("石墨烯")
            ['石墨烯']
        """
        word = _text(word, "word")
        if not word:
            raise ValueError("word must not be empty")
        with self._lock:
            cutter = self._native()
            count = self.suggest_freq(word) if freq is None else _count(freq)
            cutter.add_word(word, count)
            self._words.append((word, count))
            self._whole = None
            changed(self)  # what was described of this segmenter (a layer's op) is described again
            if tag:
                self.user_word_tag_tab[word] = tag

    def del_word(self, word: str) -> None:
        """Delete ``word`` as jieba does: ``add_word(word, 0)``.

        Example:
            >>> segmenter = Jieba()
            >>> segmenter.del_word("北京")
            >>> segmenter.lcut("北京", HMM=False)
            ['北', '京']
        """
        self.add_word(word, 0)

    def suggest_freq(self, segment: str | Iterable[str], tune: bool = False) -> int:
        """jieba's ``suggest_freq``: the count that keeps ``segment`` (a str) whole, or that cuts the word
        of ``segment`` (a sequence of its parts) into those parts; with ``tune``, the word is added with
        it. jieba's HMM may still join or cut the word.

        Example:
            >>> segmenter = Jieba()
            >>> segmenter.lcut("今天天气不错", HMM=False)
            ['今天天气', '不错']
            >>> segmenter.suggest_freq(("今天", "天气"), tune=True)
            0
            >>> segmenter.lcut("今天天气不错", HMM=False)
            ['今天', '天气', '不错']
        """
        with self._lock:
            cutter = self._native()
            total = cutter.total
            ftotal = float(total)
            freq: float = 1
            if isinstance(segment, (str, bytes)):
                word = _text(segment, "segment")
                for part in cutter.cut(word, _ACCURATE, False, True, False):
                    freq *= self.get_FREQ(part, 1) / ftotal
                count = max(int(freq * total) + 1, self.get_FREQ(word, 1))
            else:
                parts = [_text(part, f"segment[{i}]") for i, part in enumerate(segment)]
                word = "".join(parts)
                for part in parts:
                    freq *= self.get_FREQ(part, 1) / ftotal
                count = min(int(freq * total), self.get_FREQ(word, 0))
            if tune:
                self.add_word(word, count)
            return count

    def get_FREQ(self, word: str, default: Any = None) -> Any:
        """The count of ``word`` in the dictionary (jieba's ``get_FREQ``): 0 for a prefix of a word that
        is not a word itself, ``default`` when it is neither.

        Example:
            >>> Jieba().get_FREQ("北京") > 0, Jieba().get_FREQ("中华人民共"), Jieba().get_FREQ("x北京")
            (True, 0, None)
        """
        count = self._native().count(_text(word, "word"))
        return default if count is None else count

    @property
    def user_words(self) -> list[tuple[str, int | None]]:
        """The words added since the dictionary loaded, in order, each with its count; before it loads,
        those of ``user_dict`` (None where no count was given).

        Example:
            >>> segmenter = Jieba(user_dict=["石墨烯"])
            >>> segmenter.user_words
            [('石墨烯', None)]
            >>> segmenter.add_word("凱特琳", 5)
            >>> segmenter.user_words[1]
            ('凱特琳', 5)
        """
        with self._lock:
            words = self._pending if self._cutter is None else self._words
            return [(entry[0], entry[1]) for entry in words]

    @property
    def total(self) -> int:
        """The sum of the counts, jieba's ``total``: the dictionary's and every added word's."""
        return self._native().total

    # ---- jieba's segmentation API: whitespace given, as jieba gives it ----

    def lcut(
        self, sentence: str | bytes, cut_all: bool = False, HMM: bool = True, use_paddle: bool = False
    ) -> list[str]:
        """jieba's ``lcut``: the words of ``sentence`` (jieba's accurate mode, or full mode with
        ``cut_all``), whitespace included. ``use_paddle`` cuts as jieba does without paddle installed.

        Example:
            >>> Jieba().lcut("我来到北京清华大学")
            ['我', '来到', '北京', '清华大学']
            >>> Jieba().lcut("我来到北京清华大学", cut_all=True)
            ['我', '来到', '北京', '清华', '清华大学', '华大', '大学']
        """
        mode = _FULL if cut_all else _ACCURATE
        return self._native().cut(_text(sentence, "sentence"), mode, bool(HMM), True, False)

    def cut(
        self, sentence: str | bytes, cut_all: bool = False, HMM: bool = True, use_paddle: bool = False
    ) -> Iterator[str]:
        """jieba's ``cut``: :meth:`lcut`'s words, as an iterator.

        Example:
            >>> "/".join(Jieba().cut("他来到了网易杭研大厦"))
            '他/来到/了/网易/杭研/大厦'
        """
        return iter(self.lcut(sentence, cut_all, HMM))

    def lcut_for_search(self, sentence: str | bytes, HMM: bool = True) -> list[str]:
        """jieba's ``lcut_for_search``: accurate mode's words, each longer word preceded by the
        dictionary words of two, then three, characters inside it.

        Example:
            >>> Jieba().lcut_for_search("中华人民共和国")
            ['中华', '华人', '人民', '共和', '共和国', '中华人民共和国']
        """
        return self._native().cut(_text(sentence, "sentence"), _SEARCH, bool(HMM), True, False)

    def cut_for_search(self, sentence: str | bytes, HMM: bool = True) -> Iterator[str]:
        """jieba's ``cut_for_search``: :meth:`lcut_for_search`'s words, as an iterator.

        Example:
            >>> list(Jieba().cut_for_search("北京大学"))
            ['北京', '大学', '北京大学']
        """
        return iter(self.lcut_for_search(sentence, HMM))

    def tokenize(
        self, unicode_sentence: str, mode: str = "default", HMM: bool = True
    ) -> Iterator[tuple[str, int, int]]:
        """jieba's ``tokenize``: ``(word, start, end)`` of every word, in ``"default"`` (:meth:`cut`) or
        ``"search"`` (:meth:`cut_for_search`) mode.

        Example:
            >>> list(Jieba().tokenize("永和服装饰品"))
            [('永和', 0, 2), ('服装', 2, 4), ('饰品', 4, 6)]
        """
        if not isinstance(unicode_sentence, str):
            raise ValueError(f"unicode_sentence must be a str, got {type(unicode_sentence).__name__}")
        if mode not in ("default", "search"):
            raise must_be("mode", "'default' or 'search'", mode)
        cut_mode = _ACCURATE if mode == "default" else _SEARCH
        spans = self._native().cut(unicode_sentence, cut_mode, bool(HMM), True, True)
        return iter([(word, start, start + len(word)) for word, start in spans])

    # ---- the pre-tokenizer interface: words in ``mode``, whitespace left out ----

    def _whole_list(self):
        """With ``whole_words``, the user words (their count not 0) that jieba's blocks split, longest
        first."""
        if not self.whole_words:
            return []
        counts = dict(self._words)
        return sorted((w for w, c in counts.items() if c and not _JIEBA_BLOCK.fullmatch(w)), key=lambda w: (-len(w), w))

    def _whole_words(self):
        """The expression of :meth:`_whole_list`'s words, or None."""
        if not self.whole_words:
            return None
        with self._lock:
            if self._whole is None:
                words = self._whole_list()
                self._whole = re.compile("|".join(map(re.escape, words))) if words else False
            return self._whole or None

    def _spans(self, text):
        """``(word, start)`` for every word of ``text``, whitespace left out."""
        cutter = self._native()
        whole = self._whole_words()
        if whole is None:
            return cutter.spans(text)
        spans, position = [], 0
        for match in whole.finditer(text):
            spans += [(word, start + position) for word, start in cutter.spans(text[position : match.start()])]
            spans.append((match.group(), match.start()))
            position = match.end()
        return spans + [(word, start + position) for word, start in cutter.spans(text[position:])]

    def pre_tokenize(self, text: str, first: int = True) -> list[Piece]:
        return [Piece(word, start) for word, start in self._spans(text)]

    def split_words(self, text: str, first: int = True) -> list[str]:
        cutter = self._native()
        if self.whole_words and self._whole_words() is not None:
            return [word for word, _ in self._spans(text)]
        return cutter.words(text)

    def __call__(self, text: str) -> list[str]:
        """The words of ``text``: a Jieba is an ``analyzer`` for :class:`kvec.Tokenizer`."""
        if not isinstance(text, str):
            raise wrong_type("text", "a str", text)
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
                raise wrong_type(f"texts[{position}]", "a str", text)
        if n_jobs == -1:
            n_jobs = os.cpu_count() or 1
        if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
            raise must_be("n_jobs", "a positive int or -1", n_jobs)
        cutter = self._native()
        if self._whole_words() is not None:
            return [self.split_words(text) for text in texts]
        return cutter.segment(texts, min(n_jobs, 256))


def _text(value, name):
    """A str argument, or bytes decoded as jieba's strdecode does (UTF-8, else GBK ignoring errors)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return bytes(value).decode("gbk", "ignore")
    raise wrong_type(name, "a str", value)


def _count(freq):
    """An add_word count, read as jieba's ``int(freq)`` reads it; never negative."""
    try:
        count = int(freq)
    except (TypeError, ValueError):
        raise TypeError(f"freq must be an int (or a str of one), got {freq!r}") from None
    if count < 0:
        raise ValueError(f"freq must be >= 0, got {count}")
    return count


def _read_user_dict(f):
    """``[(word, count or None, tag or None)]`` of a jieba user dictionary, a path or a file object,
    line by line as jieba's ``load_userdict`` reads it."""
    if isinstance(f, (str, os.PathLike)):
        name, content = read_bytes(f)
        return _user_dict_entries(content.splitlines(keepends=True), name)
    return _user_dict_entries(f, getattr(f, "name", repr(f)))


def _user_dict_entries(f, name):
    entries = []
    for number, raw in enumerate(f, 1):
        line = raw.strip()
        if not isinstance(line, str):
            try:
                line = line.decode("utf-8").lstrip("\ufeff")
            except UnicodeDecodeError:
                raise FormatError(name, f"a user dictionary must be UTF-8; line {number} is not") from None
        if line:
            word, count, tag = cast(re.Match[str], _USER_DICT_LINE.match(line)).groups()  # every line matches
            entries.append((word, int(count) if count else None, tag and tag.strip()))
    return entries


def _file_bytes(dictionary):
    """The bytes of the dictionary file ``dictionary`` (jieba's own when None)."""
    return read_bytes(dictionary or _jieba_files()[0])[1]


def _jieba_files():
    """The installed jieba's dictionary and HMM files (found without importing jieba)."""
    spec = importlib.util.find_spec("jieba")
    if spec is None or spec.origin is None:
        raise ImportError("kvec.chinese needs the jieba package (pip install jieba)")
    folder = os.path.dirname(spec.origin)
    hmm = [os.path.join(folder, "finalseg", f"prob_{name}.py") for name in ("start", "trans", "emit")]
    return os.path.join(folder, "dict.txt"), hmm


def _dictionary(cache_dir, dictionary_file=None, content=None):
    """jieba's dictionary (or the file ``dictionary_file``, or ``content``, that file's bytes as a pickle
    carried them) and HMM, built once per process; the built form is cached in ``cache_dir`` under a
    name that changes with the files (their paths, sizes and times, or the content) and kvec's format."""
    import hashlib  # here, not with the module: OpenSSL's memory only where a dictionary loads

    jieba_dictionary, hmm_files = _jieba_files()
    dictionary_file = os.path.abspath(dictionary_file) if dictionary_file is not None else jieba_dictionary
    key = hashlib.sha256(_DUMP_FORMAT.encode())
    if content is not None:
        key.update(b"content\0" + hashlib.sha256(content).digest())
    for path in (*([] if content is not None else [dictionary_file]), *hmm_files):
        info = os.stat(path)
        key.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    folder = os.fspath(cache_dir) if cache_dir is not None else default_cache_dir()
    cache_file = os.path.join(folder, f"jieba-{key.hexdigest()[:20]}.kvec")
    with _dictionaries_lock:
        if cache_file not in _dictionaries:
            _dictionaries[cache_file] = _load_or_build(cache_file, dictionary_file, content)
        return _dictionaries[cache_file]


def _load_or_build(cache_file, dictionary_file, content=None):
    try:
        with open(cache_file, "rb") as f:
            return Dictionary.load(f.read(), cache_file)
    except (OSError, ValueError):
        pass  # not cached yet, or corrupt: built again below
    if content is None:
        content = read_bytes(dictionary_file)[1]
    dictionary = Dictionary(content, _hmm_tables(), dictionary_file)
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
    """``[(word, count or None, tag or None)]`` from a user dictionary (a path or a file object), a list
    of words or ``(word, count)`` pairs."""
    if user_dict is None:
        return []
    if isinstance(user_dict, (str, os.PathLike)) or hasattr(user_dict, "read"):
        return _read_user_dict(user_dict)
    words = []
    for position, entry in enumerate(user_dict):
        if isinstance(entry, str):
            word, count = entry, None
        elif isinstance(entry, (tuple, list)) and len(entry) == 2:
            word, count = entry
        else:
            word, count = None, None
        if not isinstance(word, str) or not word:
            raise TypeError(f"user_dict[{position}] must be a word or a (word, count) pair, got {entry!r}")
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
            raise TypeError(f"user_dict[{position}]: the count must be a non-negative int, got {count!r}")
        words.append((word, count, None))
    return words
