"""Hugging Face's chain decoders: small steps that each turn a list of tokens into a new one
(``decode_chain``), composed by :class:`Sequence`. Llama's decoder, for one, is
``Sequence([Replace("▁", " "), ByteFallback(), Fuse(), Strip(" ", 1, 0)])``.

A :class:`Sequence` of steps that map each token on its own (:meth:`kvec.contracts.Decoder.token_step`),
then optionally :class:`ByteFallback`, then optionally :class:`Fuse` and more such steps on the whole
text, is a :class:`kvec.contracts.PieceDecoder` too: the pipeline decodes it in C.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import regex

from kvec.common.arguments import must_be, wrong_type
from kvec.common.patterns import Pattern, compile_pattern, find_matches, pattern_json
from kvec.contracts import Decoder, PieceDecoder, registered
from kvec.decoders.pieces import WordPiece

__all__ = ["BPEDecoder", "ByteFallback", "CTC", "Fuse", "Replace", "Sequence", "Strip"]

# Hugging Face reads <0xNN> with Rust's u8::from_str_radix: two hex digits, or "+" and one
_BYTE_TOKEN = regex.compile(r"<0x(?:[0-9A-Fa-f]{2}|\+[0-9A-Fa-f])>")


def byte_value(token: str) -> int | None:
    """The byte a ``<0xNN>`` token stands for, as Hugging Face's ByteFallback reads it, or None."""
    return int(token[3:5].lstrip("+"), 16) if _BYTE_TOKEN.fullmatch(token) else None


@registered
class Replace(Decoder):
    """Replace every match of ``pattern`` in each token by ``content``.

    Args:
        pattern: a str matched literally, or a :class:`kvec.common.patterns.Regex`.
        content: what each match becomes.

    Example:
        >>> Replace("▁", " ").decode(["▁Hey", "▁you"])
        ' Hey you'
        >>> from kvec.common.patterns import Regex
        >>> Replace(Regex("[0-9]+"), "#").decode(["a12", "3b"])
        'a##b'
    """

    takes_pattern = True

    def __init__(self, pattern: Pattern, content: str) -> None:
        self._expression = compile_pattern(pattern)
        if not isinstance(content, str):
            raise wrong_type("content", "a str", content)
        self.pattern = pattern
        self.content = content

    def get_config(self) -> dict[str, Any]:
        return {"pattern": self.pattern, "content": self.content}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": "Replace", "pattern": pattern_json(self.pattern), "content": self.content}

    def _replace(self, token, first=False):
        found = find_matches(self._expression, token)
        return "".join(self.content if is_match else token[start:end] for start, end, is_match in found)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [self._replace(token) for token in tokens]

    def token_step(self) -> Callable[[str, bool], str] | None:
        return self._replace


@registered
class Fuse(Decoder):
    """Join all the tokens into one.

    Example:
        >>> Fuse().decode_chain(["Hey", " ", "you"])
        ['Hey you']
    """

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__, **self.get_config()}

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return ["".join(tokens)]


@registered
class Strip(Decoder):
    """Remove up to ``left`` ``content`` characters from the start of each token and up to ``right`` from
    its end (Hugging Face fails where the two overlap; here the token becomes empty).

    Example:
        >>> Strip(" ", left=1).decode_chain(["  a", "b "])
        [' a', 'b ']
    """

    def __init__(self, content: str = " ", left: int = 0, right: int = 0) -> None:
        if not isinstance(content, str) or len(content) != 1:
            raise must_be("content", "one character", content)
        for name, value in (("left", left), ("right", right)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise must_be(name, "a non-negative int", value)
        self.content = content
        self.left = left
        self.right = right

    def get_config(self) -> dict[str, Any]:
        return {"content": self.content, "left": self.left, "right": self.right}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": "Strip", "content": self.content, "start": self.left, "stop": self.right}

    def _strip(self, token, first=False):
        start = 0
        while start < min(self.left, len(token)) and token[start] == self.content:
            start += 1
        stop = len(token)
        while len(token) - stop < self.right and stop > 0 and token[stop - 1] == self.content:
            stop -= 1
        return token[start:stop] if start <= stop else ""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [self._strip(token) for token in tokens]

    def token_step(self) -> Callable[[str, bool], str] | None:
        return self._strip


@registered
class ByteFallback(Decoder):
    """Turn each run of ``<0xNN>`` byte tokens into its text: the run's bytes read as UTF-8, or where
    they are not UTF-8 as a whole, one U+FFFD per byte (``<0xE5> <0x8F>`` is two).

    Example:
        >>> ByteFallback().decode_chain(["a", "<0xC3>", "<0xA9>", "b"])
        ['a', 'é', 'b']
        >>> ByteFallback().decode(["<0xC3>", "<0xA9>", "<0xE5>", "<0x8F>", "b"])
        '\ufffd\ufffd\ufffd\ufffdb'
    """

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__, **self.get_config()}

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        run = bytearray()
        for token in tokens:
            value = byte_value(token)
            if value is not None:
                run.append(value)
                continue
            _flush(run, out)
            out.append(token)
        _flush(run, out)
        return out


def _flush(run, out):
    if run:
        try:
            out.append(run.decode("utf-8"))
        except UnicodeDecodeError:
            out.extend(["\ufffd"] * len(run))
        run.clear()


@registered
class CTC(Decoder):
    """Connectionist temporal classification output back to text: repeated tokens count once, the
    ``pad_token`` goes, and with ``cleanup`` the ``word_delimiter_token`` becomes a space (after the
    WordPiece decoder's cleanup of spaces before punctuation).

    Example:
        >>> CTC().decode(["<pad>", "h", "h", "e", "l", "<pad>", "l", "o", "|", "w", "o"])
        'hello wo'
    """

    def __init__(self, pad_token: str = "<pad>", word_delimiter_token: str = "|", cleanup: bool = True) -> None:
        for name, value in (("pad_token", pad_token), ("word_delimiter_token", word_delimiter_token)):
            if not isinstance(value, str):
                raise wrong_type(name, "a str", value)
        self.pad_token = pad_token
        self.word_delimiter_token = word_delimiter_token
        self.cleanup = bool(cleanup)

    def get_config(self) -> dict[str, Any]:
        return {"pad_token": self.pad_token, "word_delimiter_token": self.word_delimiter_token, "cleanup": self.cleanup}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__, **self.get_config()}

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for position, token in enumerate(tokens):
            if position and token == tokens[position - 1]:
                continue
            text = token.replace(self.pad_token, "")
            if self.cleanup:
                text = _cleanup(text).replace(self.word_delimiter_token, " ")
            if text:
                out.append(text)
        return out


def _cleanup(text):
    for before, after in WordPiece._CLEANUPS:
        text = text.replace(before, after)
    return text


@registered
class BPEDecoder(Decoder):
    """Original BPE's end-of-word ``suffix`` becomes a space (nothing in the last token).

    Example:
        >>> BPEDecoder().decode(["hel", "lo</w>", "you</w>"])
        'hello you'
    """

    def __init__(self, suffix: str = "</w>") -> None:
        if not isinstance(suffix, str):
            raise wrong_type("suffix", "a str", suffix)
        self.suffix = suffix

    def get_config(self) -> dict[str, Any]:
        return {"suffix": self.suffix}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__, **self.get_config()}

    def decode_chain(self, tokens: list[str]) -> list[str]:
        last = len(tokens) - 1
        return [token.replace(self.suffix, "" if i == last else " ") for i, token in enumerate(tokens)]


@registered
class Sequence(Decoder):
    """Decoders applied in order, each to the tokens the one before it made.

    Example:
        >>> llama = Sequence([Replace("▁", " "), ByteFallback(), Fuse(), Strip(" ", 1, 0)])
        >>> llama.decode(["▁Hey", "▁", "<0xC3>", "<0xA9>", "!"])
        'Hey é!'
    """

    nested_stages = "decoders"

    def __init__(self, decoders: Iterable[Decoder]) -> None:
        decoders = list(decoders)
        for position, decoder in enumerate(decoders):
            if not isinstance(decoder, Decoder):
                raise wrong_type(f"decoders[{position}]", "a Decoder", decoder)
        self.decoders = decoders

    def get_config(self) -> dict[str, Any]:
        return {"decoders": list(self.decoders)}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": "Sequence", "decoders": [d.to_tokenizer_json() for d in self.decoders]}

    def decode_chain(self, tokens: list[str]) -> list[str]:
        for decoder in self.decoders:
            tokens = decoder.decode_chain(tokens)
        return tokens

    def token_step(self) -> Callable[[str, bool], str] | None:
        steps = [decoder.token_step() for decoder in self.decoders]
        if any(step is None for step in steps):
            return None
        return _composed(steps)

    def pieces(self) -> PieceDecoder | None:
        decoders = self.decoders
        if len(decoders) == 1 and decoders[0].pieces() is not None:
            return decoders[0].pieces()
        at, steps = 0, []
        while at < len(decoders) and decoders[at].token_step() is not None:
            steps.append(decoders[at].token_step())
            at += 1
        byte_fallback = at < len(decoders) and type(decoders[at]) is ByteFallback
        at += byte_fallback
        finish = []
        if at < len(decoders) and type(decoders[at]) is Fuse:
            finish = [decoder.token_step() for decoder in decoders[at + 1 :]]
            at = len(decoders)
        if at < len(decoders) or any(step is None for step in finish):
            return None
        return _SequencePieces(_composed(steps), byte_fallback, _composed(finish))


def _composed(steps: list[Any]) -> Callable[[str, bool], str]:
    def step(token: str, first: bool) -> str:
        for one in steps:
            token = one(token, first)
        return token

    return step


class _SequencePieces(PieceDecoder):
    """A :class:`Sequence` as a piece decoder: each token through ``step``, byte tokens read in runs
    (with ``byte_fallback``), the text through ``finish``."""

    def __init__(self, step, byte_fallback, finish):
        self.step = step
        self.byte_fallback = byte_fallback
        self.finish_step = finish
        self.invalid_utf8 = "runs" if byte_fallback else "lossy"

    def token_bytes(self, token: str, first: bool) -> bytes:
        text = self.step(token, first)
        value = byte_value(text) if self.byte_fallback else None
        return text.encode("utf-8", "surrogatepass") if value is None else bytes([value])

    def is_byte_token(self, token: str, first: bool) -> bool:
        return self.byte_fallback and byte_value(self.step(token, first)) is not None

    def finish(self, text: str) -> str:
        return self.finish_step(text, True)
