"""Decoders whose text is each token's bytes back to back (:class:`kvec.contracts.PieceDecoder`): the
pipeline decodes them in C."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import regex

from kvec.contracts import JsonState, PieceDecoder, registered
from kvec.pre_tokenizers import MetaspaceOptions, byte_level_bytes

__all__ = ["ByteLevel", "Metaspace", "SentencePiece", "WordPiece"]

UNK_SURFACE = " \u2047 "  # sentencepiece's text for the unknown piece


@registered
class ByteLevel(JsonState, PieceDecoder):
    """Undo the byte-level spelling: read the tokens' characters back as UTF-8 bytes.

    It takes the keywords of ``tokenizers``' ByteLevel (``add_prefix_space``, ``trim_offsets``,
    ``use_regex``, and ``type="ByteLevel"``: what ``json.loads(decoder.__getstate__())`` holds), which
    do not change decoding, as there.

    Example:
        >>> ByteLevel().decode(["ĠHello", "Ġw", "orld"])
        ' Hello world'
    """

    def __init__(self, **settings: object) -> None:
        self._state_keywords(settings, allowed=("add_prefix_space", "trim_offsets", "use_regex"))

    def get_config(self) -> dict[str, Any]:
        return {}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}

    def _state_config(self) -> dict[str, Any]:
        # tokenizers' decoder is its ByteLevel with the default settings
        return {"add_prefix_space": True, "trim_offsets": True, "use_regex": True}

    def token_bytes(self, token: str, first: bool) -> bytes:
        return byte_level_bytes(token)


@registered
class WordPiece(PieceDecoder):
    """Join WordPiece tokens: a ``prefix``-marked token glues to the previous one, others get a space.

    With ``cleanup`` the space before a token that is punctuation or an English contraction (``'s``,
    ``'re``...) is removed, token by token, as Hugging Face's WordPiece decoder does.

    Example:
        >>> WordPiece().decode(["un", "##aff", "##able", "it", "'s", "here", "!"])
        "unaffable it's here!"
    """

    _CLEANUPS = (
        (" .", "."),
        (" ?", "?"),
        (" !", "!"),
        (" ,", ","),
        (" ' ", "'"),
        (" n't", "n't"),
        (" 'm", "'m"),
        (" do not", " don't"),
        (" 's", "'s"),
        (" 've", "'ve"),
        (" 're", "'re"),
    )

    def __init__(self, prefix: str = "##", cleanup: bool = True) -> None:
        self.prefix = prefix
        self.cleanup = cleanup

    def get_config(self) -> dict[str, Any]:
        return {"prefix": self.prefix, "cleanup": self.cleanup}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__, **self.get_config()}

    def token_bytes(self, token: str, first: bool) -> bytes:
        if not first:
            token = token[len(self.prefix) :] if token.startswith(self.prefix) else " " + token
        if self.cleanup:  # token by token, as Hugging Face tokenizers does
            for before, after in self._CLEANUPS:
                token = token.replace(before, after)
        return token.encode("utf-8", "surrogatepass")

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [self.token_bytes(t, i == 0).decode("utf-8", "surrogatepass") for i, t in enumerate(tokens)]

    def token_step(self) -> Callable[[str, bool], str] | None:
        return lambda token, first: self.token_bytes(token, first).decode("utf-8", "surrogatepass")


@registered
class Metaspace(MetaspaceOptions, PieceDecoder):
    """Turn ``▁`` back into spaces; in the first token ``▁`` is dropped instead (it stands for the
    prepended space), unless ``prepend_scheme`` is ``never``.

    Example:
        >>> Metaspace().decode(["▁Hey", "▁my", "▁", "▁friend"])
        'Hey my  friend'
    """

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__, **self.get_config()}

    def token_bytes(self, token: str, first: bool) -> bytes:
        return self._text(token, first).encode("utf-8", "surrogatepass")

    def _text(self, token, first):
        # As in Hugging Face tokenizers, every replacement character of the first token is dropped.
        drop = first and self.prepend_scheme != "never"
        return token.replace(self.replacement, "" if drop else " ")

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [self._text(token, i == 0) for i, token in enumerate(tokens)]

    def token_step(self) -> Callable[[str, bool], str] | None:
        return self._text


@registered
class SentencePiece(PieceDecoder):
    """sentencepiece's decoding: runs of ``<0xNN>`` byte tokens become their UTF-8 text (lone
    surrogates included; one U+FFFD per byte that is not part of a UTF-8 character, as sentencepiece
    does), ``▁`` becomes a space, and the space of ``add_dummy_prefix`` at the start goes: the first
    token loses one leading ``▁`` (a byte token keeps its byte). With ``remove_extra_whitespaces`` (the
    setting of the model's normalizer), every token loses one leading ``▁`` until the text is no longer
    empty, as sentencepiece decodes such models, with or without ``add_dummy_prefix``.

    ``control_tokens`` (a model's ``<s>``, ``</s>``) decode to nothing, and ``unk_token`` to
    ``unk_surface``, as in sentencepiece. Byte tokens that spell a lone surrogate give it back with
    ``keep_surrogates`` (a Python text holds them: kvec's own models round-trip it), one U+FFFD per byte
    without (as sentencepiece, whose texts never hold one). With ``escape`` (a character ``E``), the escapes of
    :func:`kvec.presets.sentencepiece_style` are undone: ``E E`` is ``E`` and ``E`` U+FDD1 is ``▁``.

    Example:
        >>> SentencePiece().decode(["▁H", "<0xC3>", "<0xA9>", "y", "▁", "▁you"])
        'Héy  you'
        >>> SentencePiece().decode(["▁", "▁you"]), SentencePiece(remove_extra_whitespaces=True).decode(["▁", "▁you"])
        (' you', 'you')
        >>> SentencePiece(control_tokens=["<s>"], unk_token="<unk>").decode(["<s>", "▁a", "<unk>"])
        'a ⁇ '
    """

    def __init__(
        self,
        add_dummy_prefix: bool = True,
        escape: str | None = None,
        remove_extra_whitespaces: bool = False,
        control_tokens: Sequence[str] = (),
        unk_token: str | None = None,
        unk_surface: str = UNK_SURFACE,
        keep_surrogates: bool = True,
    ) -> None:
        self.add_dummy_prefix = bool(add_dummy_prefix)
        self.escape = escape
        self.remove_extra_whitespaces = bool(remove_extra_whitespaces)
        self.control_tokens = frozenset(control_tokens)
        self.unk_token = unk_token
        self.unk_surface = unk_surface
        self.keep_surrogates = bool(keep_surrogates)
        self.invalid_utf8 = "bytes" if self.keep_surrogates else "strict_bytes"

    def get_config(self) -> dict[str, Any]:
        return {
            "add_dummy_prefix": self.add_dummy_prefix,
            "escape": self.escape,
            "remove_extra_whitespaces": self.remove_extra_whitespaces,
            "control_tokens": sorted(self.control_tokens),
            "unk_token": self.unk_token,
            "unk_surface": self.unk_surface,
            "keep_surrogates": self.keep_surrogates,
        }

    def to_tokenizer_json(self) -> dict[str, Any]:
        """As the converters of sentencepiece models write it; kvec's escape of a literal ▁ is not undone."""
        steps = [
            {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
            {"type": "ByteFallback"},
            {"type": "Fuse"},
        ]
        if self.add_dummy_prefix:
            steps.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
        return {"type": "Sequence", "decoders": steps}

    def token_bytes(self, token: str, first: bool) -> bytes:
        if token in self.control_tokens:
            return b""
        if token == self.unk_token:
            return self.unk_surface.encode("utf-8", "surrogatepass")
        if _BYTE_PIECE.fullmatch(token):
            return bytes([int(token[3:5], 16)])
        if first and (self.add_dummy_prefix or self.remove_extra_whitespaces) and token.startswith("▁"):
            token = token[1:]
        return token.replace("▁", " ").encode("utf-8", "surrogatepass")

    def keeps_first(self, token: str) -> bool:
        # sentencepiece strips the ▁ of the first piece after control pieces; with remove_extra_whitespaces
        # also after pieces that were one ▁ (they decode to nothing)
        if token in self.control_tokens:
            return True
        return self.remove_extra_whitespaces and token == "▁"

    def finish(self, text: str) -> str:
        return text if self.escape is None else _unescape(text, self.escape)


_BYTE_PIECE = regex.compile(r"<0x[0-9A-F]{2}>")  # sentencepiece's byte pieces
ESCAPED_SPACE_MARK = "\ufdd1"  # after the escape character: a literal ▁


def _unescape(text, escape):
    parts, position = [], 0
    while True:
        found = text.find(escape, position)
        if found < 0 or found + 1 >= len(text):
            parts.append(text[position:])
            return "".join(parts)
        following = text[found + 1]
        parts.append(text[position:found])
        parts.append(escape if following == escape else "▁" if following == ESCAPED_SPACE_MARK else escape + following)
        position = found + 2
