"""sentencepiece's precompiled character map: a double-array trie (darts-clone) over UTF-8 byte
strings whose values point into a blob of NUL-terminated replacement strings.

The blob is ``<trie size: uint32 little-endian><trie units: uint32 each><replacements>``. At each
position of a text the longest key that is a prefix of the rest is replaced; where none matches, one
character is kept as it is. The walk runs in C (``csrc/core/precompiled_charsmap.c``), with sentencepiece's whitespace
rules.
"""

import base64
import binascii
import sys
from array import array

from kvec._subword import CharsMapTable
from kvec.errors import FormatError

__all__ = ["CharsMap"]


class CharsMap:
    """The character map of a sentencepiece normalizer (empty: every character maps to itself)."""

    def __init__(self, blob=b"", source="precompiled_charsmap"):
        self.blob = bytes(blob)
        if not blob:
            self.trie, self.replacements = b"", b""
            self._table = CharsMapTable(b"", b"")
            return
        if len(blob) < 4:
            raise FormatError(source, "the character map is shorter than its header")
        size = int.from_bytes(blob[:4], "little")
        if size % 4 or 4 + size > len(blob):
            raise FormatError(source, "the character map's trie size does not fit the data")
        # the trie's little-endian uint32 units, and the replacements their values point into
        self.trie, self.replacements = self.blob[4 : 4 + size], self.blob[4 + size :]
        self._table = CharsMapTable(self.trie, self.replacements)
        self._units = None  # the trie as uint32s, read on first use by shortest_match

    def shortest_match(self, chunk: str) -> str | None:
        """The replacement of the shortest key of the map that starts ``chunk`` (the first result of the
        trie's common prefix search), or None: Hugging Face's ``Precompiled`` replaces a whole grapheme
        so (see :class:`kvec.normalizers.Precompiled`)."""
        if len(self.blob) < 4:
            return None
        if self._units is None:
            size = int.from_bytes(self.blob[:4], "little")
            units = array("I")
            units.frombytes(self.blob[4 : 4 + size])
            if sys.byteorder != "little":
                units.byteswap()
            self._units = units
        units, node = self._units, 0
        node ^= _offset(units[0])
        for byte in chunk.encode("utf-8", "surrogatepass"):
            if byte == 0:
                break
            node ^= byte
            if node >= len(units):
                return None
            unit = units[node]
            if unit & ((1 << 31) | 0xFF) != byte:  # the unit's label
                return None
            node ^= _offset(unit)
            if (unit >> 8) & 1 and node < len(units):  # a key ends here: its value points at the text
                start = 4 + len(units) * 4 + (units[node] & 0x7FFFFFFF)
                end = self.blob.find(b"\0", start)
                return self.blob[start : len(self.blob) if end < 0 else end].decode("utf-8", "replace")
        return None

    @classmethod
    def from_base64(cls, text, source="precompiled_charsmap"):
        try:
            return cls(base64.b64decode(text, validate=True) if text else b"", source)
        except (binascii.Error, ValueError) as e:
            if isinstance(e, FormatError):
                raise
            raise FormatError(source, f"the character map is not base64 ({e})") from None

    def normalize(
        self,
        text: str,
        symbols: tuple[str, ...] = (),
        add_dummy_prefix: bool = False,
        remove_extra_whitespaces: bool = False,
        escape_whitespaces: bool = False,
        spans: bool = False,
    ) -> tuple[str, bytes | None, bytes | None]:
        """sentencepiece's normalization of ``text``, in C: at each position the first of ``symbols``
        (pass them longest first) that starts there is kept, else the longest key of the map that covers
        whole characters is replaced, else one character is kept; then the whitespace rules the flags
        ask for. With ``spans``, two int64 byte strings give each output character's input characters
        ``[start, end)`` (``start == end`` for the dummy prefix). With every flag off the result is the
        map alone."""
        return self._table.normalize(
            text, symbols, add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces, spans
        )


def _offset(unit: int) -> int:
    """A darts-clone unit's offset to its children."""
    return (unit >> 10) << ((unit & (1 << 9)) >> 6)
