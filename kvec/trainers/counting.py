"""Counting pre-tokenized words, streaming and optionally in parallel processes.

Texts are read in chunks. Each chunk's words are counted (in a worker process when ``n_jobs > 1``)
into a dict in first-occurrence order, and the chunk counts are merged strictly in chunk order. The
result, order included, is therefore identical for every ``n_jobs``. Words are counted as the
pre-tokenizer splits them and turned into the model's spelling (the byte-level alphabet, say) once
per distinct word at the end. At most ``2 * n_jobs`` chunks are
in flight, so memory is bounded by the distinct words plus a few chunks, not by the corpus.
"""

from __future__ import annotations

import os
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from itertools import islice
from typing import TYPE_CHECKING, Any

from kvec.common.arguments import must_be, wrong_type
from kvec.common.progress import progress_bar

if TYPE_CHECKING:
    from kvec.contracts import PreTokenizer

__all__ = ["count_words", "iterate_files", "spell_counts"]


def count_words(
    texts: Iterable[str], pre_tokenizer: Any, n_jobs: int = 1, chunk_size: int = 2000, show_progress: bool = False
) -> dict[str, int]:
    """``{word: count}`` of the pre-tokenized words of ``texts``, in first-occurrence order.

    Args:
        texts: any iterable of str.
        pre_tokenizer: an object with ``split_words(text) -> list of str`` and ``spell(word) -> str``
            (a pre-tokenizer, or a pipeline's normalizing word source), or None to count whole texts.
        n_jobs: worker processes (1: count in this process; -1: one per CPU).
        chunk_size: texts per chunk.
        show_progress: show the number of texts counted.

    Example:
        >>> from kvec.pre_tokenizers import WhitespaceSplit
        >>> count_words(["a b a", "c a"], WhitespaceSplit())
        {'a': 3, 'b': 1, 'c': 1}
    """
    if n_jobs == -1:
        n_jobs = os.cpu_count() or 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise must_be("n_jobs", "a positive int or -1", n_jobs)
    totals: dict[str, int] = {}
    bar = progress_bar(show_progress, desc="Counting words")

    def merge(chunk_counts, size):
        for word, count in chunk_counts.items():
            totals[word] = totals.get(word, 0) + count
        bar.update(size)

    chunks = _chunks(texts, chunk_size)
    if n_jobs == 1:
        for first, chunk in chunks:
            merge(_count_chunk(pre_tokenizer, chunk, first), len(chunk))
    else:
        with ProcessPoolExecutor(max_workers=n_jobs) as pool:
            pending: deque[Any] = deque()
            for first, chunk in chunks:
                pending.append((pool.submit(_count_chunk, pre_tokenizer, chunk, first), len(chunk)))
                if len(pending) >= 2 * n_jobs:
                    future, size = pending.popleft()
                    merge(future.result(), size)
            while pending:
                future, size = pending.popleft()
                merge(future.result(), size)
    bar.close()
    return spell_counts(totals, pre_tokenizer)


def spell_counts(totals: dict[str, int], pre_tokenizer: PreTokenizer | None) -> dict[str, int]:
    """Raw word counts in first-occurrence order turned into the model's spelling (words that spell
    alike add up, in the order of their first spelling)."""
    if pre_tokenizer is None:
        return totals
    spelled: dict[str, int] = {}
    spell = pre_tokenizer.spell
    for word, count in totals.items():
        key = spell(word)
        spelled[key] = spelled.get(key, 0) + count
    return spelled


def _chunks(texts, chunk_size):
    iterator = iter(texts)
    first = 0
    while True:
        chunk = list(islice(iterator, chunk_size))
        if not chunk:
            return
        yield first, chunk
        first += len(chunk)


def _count_chunk(pre_tokenizer, chunk, first):
    counts: Counter[str] = Counter()
    for offset, text in enumerate(chunk):
        if not isinstance(text, str):
            raise wrong_type(f"texts[{first + offset}]", "a str", text)
        if pre_tokenizer is None:
            counts.update([text] if text else [])
        else:
            counts.update(pre_tokenizer.split_words(text))
    return counts


def iterate_files(paths: Iterable[str | os.PathLike[str]], encoding: str = "utf-8") -> Iterator[str]:
    """The lines of the given files, in order, each with its line ending as in the file (one text per
    line), as Hugging Face's ``Tokenizer.train`` reads them: a pre-tokenizer that splits on whitespace
    drops it, and a model trained on whole lines learns it.

    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
        >>> _ = open(path, "w", newline="").write("first line\\nsecond\\r\\nlast")
        >>> list(iterate_files([path]))
        ['first line\\n', 'second\\r\\n', 'last']
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    for path in paths:
        with open(path, encoding=encoding, newline="") as f:
            yield from f
