"""Types of the kvec._spec extension (csrc/python/spec/spec_module.c over csrc/core/spec_encoder.h): the
native encoder of a pipeline's description. mypy checks kvec's calls against these signatures."""

from typing import final

@final
class SpecEncoder:
    """The native encoder of a description written by kvec/native_spec.py."""

    def __init__(self, description: bytes) -> None: ...
    def encode(self, texts: list[str | bytes], n_threads: int = 1) -> tuple[bytes, bytes]: ...
    def encode_parts(self, texts: list[str | bytes], n_threads: int, n_parts: int) -> SpecParts: ...

@final
class SpecParts:
    """encode_parts' iterator: each part's ``(values, row_lengths)`` in order, None for a part refused."""

    def __iter__(self) -> SpecParts: ...
    def __next__(self) -> tuple[bytes, bytes] | None: ...
