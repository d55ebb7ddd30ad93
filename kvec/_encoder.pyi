"""Types of the kvec._encoder extension (csrc/python/encoder/): ids into Python rows and Encodings, and
ids back to text. mypy checks kvec's calls against these signatures."""

from typing import Any, final

from typing_extensions import Buffer

@final
class PieceTable:
    """Token ids back to text, each id standing for bytes."""

    def __init__(
        self,
        first: list[Any],
        later: list[Any],
        skipped: Buffer,
        invalid: int = ...,
        keep_first: Buffer = ...,
    ) -> None: ...
    def decode(self, rows: Any, skip_special: bool, /) -> list[str | None]: ...

def encodings(cls: type[Any], values: Any, row_lengths: Any, tokenizer: Any, texts: list[str], /) -> list[Any]: ...
def id_rows(values: Any, row_lengths: Any, /) -> list[list[int]]: ...
