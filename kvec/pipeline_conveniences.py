"""The methods Hugging Face users call on a tokenizer beyond encode and decode, built on them.

:class:`kvec.pipeline.Pipeline` takes them from :class:`Conveniences`: ``post_process`` of encodings
made earlier, ``encode_batch_fast``, the ``async_`` forms of the batch methods (run in a worker thread,
so an event loop keeps serving while a batch encodes; the native path releases the GIL) and the
``encode_special_tokens`` switch.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from kvec.arguments import wrong_type
from kvec.encoding import Encoding

__all__ = ["Conveniences"]


class Conveniences:
    """Mixed into :class:`kvec.pipeline.Pipeline`; each method names the one it builds on."""

    if TYPE_CHECKING:  # provided by the pipeline
        added_vocabulary: Any
        truncation: Any
        padding: Any

        def _post_process(self, first, second, add_special_tokens, truncation, padding) -> Encoding: ...
        def encode(self, sequence, pair=None, is_pretokenized=False, add_special_tokens=True) -> Encoding: ...
        def encode_batch(self, texts, n_threads=None, *, is_pretokenized=False, add_special_tokens=True): ...
        def decode_batch(self, sequences, skip_special_tokens=True) -> list[str]: ...

    def post_process(
        self, encoding: Encoding, pair: Encoding | None = None, add_special_tokens: bool = True
    ) -> Encoding:
        """Truncation, the post-processor and padding, as :meth:`encode` applies them, on encodings made
        without special tokens (``encode(text, add_special_tokens=False)``); the inputs stay as they were.

        Example:
            >>> from kvec.models import WordPiece
            >>> from kvec.pipeline import Pipeline
            >>> from kvec.processors import TemplateProcessing
            >>> tok = Pipeline(WordPiece({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3}))
            >>> tok.post_processor = TemplateProcessing("[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
            >>> tok.post_process(tok.encode("a", add_special_tokens=False)).tokens
            ['[CLS]', 'a', '[SEP]']
        """
        for name, value in (("encoding", encoding), ("pair", pair)):
            if value is not None and not isinstance(value, Encoding):
                raise wrong_type(name, "an Encoding", value)
        second = None if pair is None else pair._copy()
        return self._post_process(encoding._copy(), second, add_special_tokens, self.truncation, self.padding)

    def encode_batch_fast(
        self, input: list[Any], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> list[Encoding]:
        """:meth:`encode_batch` (Hugging Face's faster form skips offsets; kvec's batch path works out
        offsets only when they are read)."""
        return self.encode_batch(input, is_pretokenized=is_pretokenized, add_special_tokens=add_special_tokens)

    async def async_encode(
        self, sequence: Any, pair: Any = None, is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> Encoding:
        """:meth:`encode` in a worker thread, awaitable."""
        return await asyncio.to_thread(self.encode, sequence, pair, is_pretokenized, add_special_tokens)

    async def async_encode_batch(
        self, input: list[Any], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> list[Encoding]:
        """:meth:`encode_batch` in a worker thread, awaitable."""
        return await asyncio.to_thread(
            lambda: self.encode_batch(input, is_pretokenized=is_pretokenized, add_special_tokens=add_special_tokens)
        )

    async def async_encode_batch_fast(
        self, input: list[Any], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> list[Encoding]:
        """:meth:`encode_batch_fast` in a worker thread, awaitable."""
        return await self.async_encode_batch(input, is_pretokenized, add_special_tokens)

    async def async_decode_batch(self, sequences: list[list[int]], skip_special_tokens: bool = True) -> list[str]:
        """:meth:`decode_batch` in a worker thread, awaitable."""
        return await asyncio.to_thread(self.decode_batch, sequences, skip_special_tokens)

    @property
    def encode_special_tokens(self) -> bool:
        """When True, special tokens are not matched: their text is encoded as any other text."""
        return self.added_vocabulary.encode_special_tokens

    @encode_special_tokens.setter
    def encode_special_tokens(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise wrong_type("encode_special_tokens", "a bool", value)
        self.added_vocabulary.encode_special_tokens = value
