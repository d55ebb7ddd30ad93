"""Decoding a stream of ids as they come (a model generating text), as ``tokenizers.decoders.DecodeStream``.

Each :meth:`DecodeStream.step` takes the next id (or ids) and returns the text they add, or None while
they do not yet end a whole character (a byte-fallback or byte-level token that starts a multi-byte
character). It decodes only the ids since the last text it returned, with enough before them for the
decoder to treat the first one as it would mid-text: the work per step stays small however long the
stream grows.
"""

from __future__ import annotations

import copy
from typing import Any

from kvec.common.arguments import wrong_type

__all__ = ["DecodeStream"]

_REPLACEMENT = "\ufffd"  # what a decoder writes for bytes that do not end a character yet


class DecodeStream:
    """Text from ids one step at a time.

    Args:
        ids: ids already produced (a prompt), whose text is not returned.
        skip_special_tokens: leave special tokens out of the text.

    Example:
        >>> from kvec.models import BPE
        >>> from kvec.pipeline import Pipeline
        >>> tok = Pipeline(BPE())
        >>> tok.add_tokens(["my", "name"])
        2
        >>> stream = DecodeStream()
        >>> stream.step(tok, 0), stream.step(tok, 1)
        ('my', ' name')
    """

    def __init__(self, ids: list[int] | None = None, skip_special_tokens: bool = False) -> None:
        if not isinstance(skip_special_tokens, bool):
            raise wrong_type("skip_special_tokens", "a bool", skip_special_tokens)
        self.skip_special_tokens = skip_special_tokens
        self._ids = [] if ids is None else _id_list(ids, "ids")
        self._prefix = ""  # the text of _ids[:_prefix_index], already returned
        self._prefix_index = 0

    def step(self, tokenizer: Any, id: int | list[int]) -> str | None:  # noqa: A002 (tokenizers' name)
        """The text ``id`` (an int, or a list of them) adds to the stream, or None while it does not
        end a whole character yet; ``tokenizer`` is the pipeline whose decoder runs.

        Raises:
            ValueError: the new text does not continue the text returned so far (a decoder whose
                output for the earlier ids changed).
        """
        new = [id] if isinstance(id, int) and not isinstance(id, bool) else _id_list(id, "id")
        ids, skip = self._ids, self.skip_special_tokens
        if not self._prefix and ids:  # a prompt: its text is the prefix, once it is whole
            prefix = tokenizer.decode(ids, skip)
            if not prefix.endswith(_REPLACEMENT):
                self._prefix, self._prefix_index = prefix, len(ids)
        ids.extend(new)
        text = tokenizer.decode(ids, skip)
        # lengths in UTF-8 bytes, as tokenizers compares them
        if len(text.encode("utf-8", "surrogatepass")) <= len(self._prefix.encode("utf-8", "surrogatepass")):
            return None
        if text.endswith(_REPLACEMENT):
            return None
        if not text.startswith(self._prefix):
            raise ValueError(
                f"id {ids[-1]}: the decoded text {text!r} does not continue the text returned so far {self._prefix!r}"
            )
        added = text[len(self._prefix) :]
        kept = len(ids) - self._prefix_index
        del ids[: self._prefix_index]
        self._prefix = tokenizer.decode(ids, skip)
        self._prefix_index = kept
        return added

    def __copy__(self) -> DecodeStream:
        copied = DecodeStream.__new__(DecodeStream)
        copied.__dict__.update(self.__dict__)
        copied._ids = list(self._ids)
        return copied

    def __deepcopy__(self, memo: dict[int, Any]) -> DecodeStream:
        return copy.copy(self)


def _id_list(ids: Any, name: str) -> list[int]:
    """``ids`` as a list of non-negative ints; ``TypeError`` naming the first that is not one."""
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
        raise wrong_type(name, "an int or a list of int", ids)
    found = list(ids)
    for position, value in enumerate(found):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise TypeError(f"{name}[{position}] must be a non-negative int, got {value!r}")
    return found
