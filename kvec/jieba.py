"""jieba's module-level API on a default :class:`kvec.chinese.Jieba`: a jieba script changes only its
import line, ``import kvec.jieba as jieba``, and gets jieba's words.

``dt`` is the default segmenter; ``cut``, ``lcut``, ``cut_for_search``, ``lcut_for_search``,
``tokenize``, ``load_userdict``, ``add_word``, ``del_word``, ``suggest_freq``, ``set_dictionary`` and
``initialize`` are its methods, as in jieba, and ``Tokenizer(dictionary=None)`` makes another one with
a dictionary of its own. ``jieba.posseg`` and ``jieba.analyse`` have no counterpart here.

Example:
    >>> import kvec.jieba as jieba
    >>> jieba.lcut("我来到北京清华大学")
    ['我', '来到', '北京', '清华大学']
    >>> jieba.Tokenizer().lcut("他来到了网易杭研大厦", HMM=False)
    ['他', '来到', '了', '网易', '杭', '研', '大厦']
"""

from __future__ import annotations

import os
from typing import Any

from kvec.chinese import Jieba

__all__ = [
    "Tokenizer",
    "add_word",
    "cut",
    "cut_for_search",
    "del_word",
    "dt",
    "get_FREQ",
    "initialize",
    "lcut",
    "lcut_for_search",
    "load_userdict",
    "set_dictionary",
    "suggest_freq",
    "tokenize",
    "user_word_tag_tab",
]


def Tokenizer(dictionary: str | os.PathLike[str] | None = None) -> Jieba:  # noqa: N802 (jieba's class name)
    """A segmenter with a dictionary of its own, from the file ``dictionary`` (jieba's own when None),
    as ``jieba.Tokenizer(dictionary)``.

    Example:
        >>> Tokenizer().lcut("北京大学")
        ['北京大学']
    """
    return Jieba(dictionary=dictionary)


dt = Tokenizer()


def get_FREQ(k: str, d: Any = None) -> Any:  # noqa: N802 (jieba's name)
    """The count of ``k`` in the default segmenter's dictionary, ``d`` when it has none (0 for a prefix
    of a word).

    Example:
        >>> get_FREQ("北京") > 0
        True
    """
    return dt.get_FREQ(k, d)


# bound methods of the default segmenter, as jieba's module binds those of its own
add_word, del_word, suggest_freq, load_userdict = dt.add_word, dt.del_word, dt.suggest_freq, dt.load_userdict
cut, lcut, cut_for_search, lcut_for_search, tokenize = (
    dt.cut,
    dt.lcut,
    dt.cut_for_search,
    dt.lcut_for_search,
    dt.tokenize,
)
initialize, set_dictionary, user_word_tag_tab = dt.initialize, dt.set_dictionary, dt.user_word_tag_tab
