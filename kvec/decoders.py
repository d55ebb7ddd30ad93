"""Decoders: turn a list of tokens back into text."""

from kvec.pretokenizers import byte_level_decode

__all__ = ["ByteLevel", "WordPiece"]


class ByteLevel:
    """Undo the byte-level spelling: join the tokens and read their characters back as UTF-8 bytes.

    Example:
        >>> ByteLevel().decode(["ĠHello", "Ġw", "orld"])
        ' Hello world'
    """

    def get_config(self):
        return {}

    def decode(self, tokens):
        return byte_level_decode("".join(tokens))


class WordPiece:
    """Join WordPiece tokens: a ``prefix``-marked token glues to the previous one, others get a space.

    With ``cleanup`` the space before a token that is punctuation or an English contraction (``'s``,
    ``'re``...) is removed, token by token, as Hugging Face's WordPiece decoder does.

    Example:
        >>> WordPiece().decode(["un", "##aff", "##able", "it", "'s", "here", "!"])
        "unaffable it's here!"
    """

    _CLEANUPS = (
        (" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"),
        (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"),
    )

    def __init__(self, prefix="##", cleanup=True):
        self.prefix = prefix
        self.cleanup = cleanup

    def get_config(self):
        return {"prefix": self.prefix, "cleanup": self.cleanup}

    def decode(self, tokens):
        parts = []
        for i, token in enumerate(tokens):
            if i and token.startswith(self.prefix):
                token = token[len(self.prefix):]
            elif i:
                token = " " + token
            if self.cleanup:  # token by token, as Hugging Face tokenizers does
                for before, after in self._CLEANUPS:
                    token = token.replace(before, after)
            parts.append(token)
        return "".join(parts)
