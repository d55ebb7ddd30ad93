"""Types of the kvec._keras extension built from csrc/ (setup.py lists its sources): the Keras word rule,
its counts, and padding. mypy checks kvec's calls against these signatures."""

from collections.abc import Iterable
from typing import Any, final

@final
class WordSplitter:
    """Splits text into maximal runs of characters that are not separators."""

    def __init__(self, separators: str, /) -> None: ...
    def split(self, text: str, lower: bool, /) -> list[str]: ...

@final
class WordCounter:
    """Occurrence and document counts of words, in first-occurrence order."""

    documents: int
    def add_texts(self, splitter: WordSplitter, texts: list[str], lower: bool, /) -> None: ...
    def add_tokens(self, tokens: Iterable[str], /) -> None: ...
    def result(self) -> tuple[list[str], list[int], list[int]]: ...

def fill_padded(out: Any, sequences: list[Any], pre_padding: bool, pre_truncating: bool, /) -> bool: ...
def fill_rows(out: Any, values: Any, row_lengths: Any, /) -> None: ...
