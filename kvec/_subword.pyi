"""Types of the kvec._subword extension built from csrc/ (setup.py lists its sources): BPE (model and the
trainer's merge loop), WordPiece's bottom-up learner and sentencepiece's character map. mypy
checks kvec's calls against these signatures."""

from collections.abc import Callable
from typing import Literal, final, overload

from typing_extensions import Buffer

def bpe_merge_loop(
    words: Buffer,
    sizes: Buffer,
    counts: list[int],
    vocab_size: int,
    current_size: int,
    min_frequency: int,
    max_length: int,
    add_merge: Callable[[int, int], tuple[int, int]],
    /,
) -> list[tuple[int, int]]: ...

@final
class BpeRanks:
    """Merges as (left id, right id, new id), highest priority first."""

    def __init__(self, merges: list[tuple[int, int, int]]) -> None: ...
    @overload
    def merge(self, ids: list[int], starts: Literal[False], dropout: float = 0.0, /) -> list[int]: ...
    @overload
    def merge(
        self, ids: list[int], starts: Literal[True] = True, dropout: float = 0.0, /
    ) -> tuple[list[int], list[int]]: ...
    def seed(self, state: tuple[int, ...], /) -> None: ...

@final
class BottomUpLearner:
    """The rounds of the bottom-up WordPiece learner."""

    def __init__(self, words: list[str], counts: list[int], joiner: str | None) -> None: ...
    def tokens(self, thresh: int, num_iterations: int, /) -> dict[str, int]: ...

@final
class CharsMapTable:
    """sentencepiece's precompiled character map and its normalization."""

    def __init__(self, units: bytes, replacements: bytes, /) -> None: ...
    def normalize(
        self,
        text: str,
        symbols: tuple[str, ...],
        add_dummy_prefix: bool,
        remove_extra_whitespaces: bool,
        escape_whitespaces: bool,
        spans: bool,
        /,
    ) -> tuple[str, bytes | None, bytes | None]: ...
