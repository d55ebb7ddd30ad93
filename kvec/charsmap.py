"""sentencepiece's precompiled character map: a double-array trie (darts-clone) over UTF-8 byte
strings whose values point into a blob of NUL-terminated replacement strings.

The blob is ``<trie size: uint32 little-endian><trie units: uint32 each><replacements>``. At each
position of a text the longest key that is a prefix of the rest is replaced; where none matches, one
character is kept as it is.
"""

import base64
import binascii

import numpy as np

from kvec.errors import FormatError

__all__ = ["CharsMap"]


class CharsMap:
    """The character map of a sentencepiece normalizer (empty: every character maps to itself)."""

    def __init__(self, blob=b"", source="precompiled_charsmap"):
        self.blob = bytes(blob)
        self._units = None
        if not blob:
            return
        if len(blob) < 4:
            raise FormatError(source, "the character map is shorter than its header")
        size = int.from_bytes(blob[:4], "little")
        if size % 4 or 4 + size > len(blob):
            raise FormatError(source, "the character map's trie size does not fit the data")
        self._units = np.frombuffer(blob[4 : 4 + size], dtype="<u4").astype(np.int64).tolist()
        self._replacements = blob[4 + size :]
        self._cache = {}

    @classmethod
    def from_base64(cls, text, source="precompiled_charsmap"):
        try:
            return cls(base64.b64decode(text, validate=True) if text else b"", source)
        except (binascii.Error, ValueError) as e:
            if isinstance(e, FormatError):
                raise
            raise FormatError(source, f"the character map is not base64 ({e})") from None

    def _longest(self, key):
        """``(value, length)`` of the longest trie key that is a prefix of ``key`` (bytes), or None."""
        units, found = self._units, None
        size = len(units)
        if not size:
            return None
        node = units[0]
        position = (node >> 10) << ((node & (1 << 9)) >> 6)
        for i, byte in enumerate(key):
            if byte == 0:
                break
            position ^= byte
            if not 0 <= position < size:
                break
            unit = units[position]
            if unit & ((1 << 31) | 0xFF) != byte:
                break
            position ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
            if (unit >> 8) & 1 and 0 <= position < size:
                found = (units[position] & ((1 << 31) - 1), i + 1)
        return found

    def prefix(self, text, position):
        """``(replacement, characters consumed)`` at ``text[position:]``."""
        if self._units is None:
            return text[position], 1
        head = text[position : position + 16].encode("utf-8", "surrogatepass")
        found = self._longest(head)
        if found is None:
            return text[position], 1
        value, length = found
        # the match covers whole characters: count them by their UTF-8 lengths
        consumed, taken = 0, 0
        while taken < length:
            taken += len(text[position + consumed].encode("utf-8", "surrogatepass"))
            consumed += 1
        if taken != length:
            return text[position], 1
        replacement = self._cache.get(value)
        if replacement is None:
            end = self._replacements.find(b"\0", value)
            raw = self._replacements[value : end if end >= 0 else len(self._replacements)]
            replacement = self._cache[value] = raw.decode("utf-8", "replace")
        return replacement, consumed
