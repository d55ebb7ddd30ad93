"""Decoders: turn a list of tokens back into text."""

from kvec.pretokenizers import byte_level_decode

__all__ = ["ByteLevel"]


class ByteLevel:
    """Undo the byte-level spelling: join the tokens and read their characters back as UTF-8 bytes.

    Example:
        >>> ByteLevel().decode(["ĠHello", "Ġw", "orld"])
        ' Hello world'
    """

    def decode(self, tokens):
        return byte_level_decode("".join(tokens))
