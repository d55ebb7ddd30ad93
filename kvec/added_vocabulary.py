"""Tokens added to a tokenizer on top of its model's vocabulary, matched before the model runs.

Each is an :class:`AddedToken`, as in Hugging Face ``tokenizers``:

* a token with ``normalized=False`` (the default for special tokens) is matched case-sensitively in the
  raw text, before the normalizer;
* a token with ``normalized=True`` (the default for added tokens) is matched in the normalized text,
  against its own normalized form (with a lowercasing normalizer ``"Hello"`` matches ``"HELLO"``). A
  ``Prepend`` normalizer does not prefix a token's form: it belongs to the start of a text;
* ``single_word`` tokens match only where no word character touches them, ``lstrip`` and ``rstrip``
  tokens take the whitespace on their left or right into their span;
* ``decode(skip_special_tokens=True)`` leaves the special ones out.

Matching is leftmost, then longest. A matched span is never pre-tokenized or split by the model.
A token already in the model's vocabulary keeps its id; any other token gets the next free id.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from kvec.common.arguments import wrong_type
from kvec.unicode import hf_unicode

if TYPE_CHECKING:
    from kvec.contracts import Model, Normalizer

__all__ = ["AddedToken", "AddedVocabulary"]

_OPTIONS = ("single_word", "lstrip", "rstrip", "normalized", "special")
# as in Hugging Face: single_word looks for the regex crate's \w, lstrip and rstrip take Rust's whitespace
_is_word_char = hf_unicode.is_word
_is_space = hf_unicode.is_whitespace


class AddedToken:
    """A token to add to a tokenizer, with Hugging Face's matching options.

    Args:
        content: the token's text.
        single_word: match only where no word character is right before or after it.
        lstrip: the whitespace on its left belongs to the token.
        rstrip: the whitespace on its right belongs to the token.
        normalized: match it in the normalized text (by its normalized form) rather than in the raw
            text. Defaults to ``not special``.
        special: a special token (left out by ``decode(skip_special_tokens=True)``);
            ``Pipeline.add_special_tokens`` sets it.

    Example:
        >>> from kvec.models import WordPiece
        >>> from kvec.pipeline import Pipeline
        >>> from kvec.pre_tokenizers import Whitespace
        >>> tok = Pipeline(WordPiece({"[UNK]": 0, "a": 1}), pre_tokenizer=Whitespace())
        >>> tok.add_special_tokens([AddedToken("<mask>", lstrip=True)])
        1
        >>> tok.encode("a <mask>").tokens
        ['a', ' <mask>']
    """

    __slots__ = ("content", "single_word", "lstrip", "rstrip", "_normalized", "special")

    def __init__(
        self,
        content: str = "",
        single_word: bool = False,
        lstrip: bool = False,
        rstrip: bool = False,
        normalized: bool | None = None,
        special: bool = False,
    ) -> None:
        if not isinstance(content, str):
            raise wrong_type("content", "a str", content)
        for name, value in (("single_word", single_word), ("lstrip", lstrip), ("rstrip", rstrip), ("special", special)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be a bool, got {value!r}")
        if normalized is not None and not isinstance(normalized, bool):
            raise TypeError(f"normalized must be a bool or None, got {normalized!r}")
        self.content = content
        self.single_word, self.lstrip, self.rstrip, self.special = single_word, lstrip, rstrip, special
        self._normalized = normalized

    @property
    def normalized(self) -> bool:
        """Whether the token is matched in the normalized text (unless set: not for special tokens)."""
        return not self.special if self._normalized is None else self._normalized

    @normalized.setter
    def normalized(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"normalized must be a bool, got {value!r}")
        self._normalized = value

    @classmethod
    def of(cls, token: str | AddedToken, special: bool, argument: str, position: int) -> AddedToken:
        """``token`` (a str or an AddedToken) as an AddedToken; ``special`` forces the flag on."""
        if isinstance(token, AddedToken):
            if special:  # as Hugging Face does, on the caller's token itself
                token.special = True
            options: dict[str, Any] = {**token.options(), "normalized": token._normalized}
            return cls(token.content, **options)
        if isinstance(token, str):
            return cls(token, special=special)
        raise wrong_type(f"{argument}[{position}]", "a str or an AddedToken", token)

    def options(self) -> dict[str, bool]:
        """The options as keyword arguments (``normalized`` resolved)."""
        return {name: getattr(self, name) for name in _OPTIONS}

    def __getstate__(self) -> dict[str, Any]:
        return {"content": self.content, **self.options()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.content = state["content"]
        self.single_word, self.lstrip, self.rstrip = state["single_word"], state["lstrip"], state["rstrip"]
        self.special, self._normalized = state["special"], state["normalized"]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AddedToken):
            return NotImplemented
        return self.__getstate__() == other.__getstate__()

    def __hash__(self) -> int:
        return hash(self.content)

    def __str__(self) -> str:
        return self.content

    def __repr__(self) -> str:
        flags = ", ".join(
            f"{name}={getattr(self, name)}" for name in ("rstrip", "lstrip", "single_word", "normalized", "special")
        )
        return f'AddedToken("{self.content}", {flags})'


class AddedVocabulary:
    """The added tokens of a :class:`kvec.Pipeline` and their matchers."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}  # content -> id, in registration order
        self.special: dict[str, int] = {}  # the special tokens' contents -> id
        self.tokens: dict[int, AddedToken] = {}  # id -> AddedToken (the latest registered with that id)
        self._forms: dict[int, str] = {}  # id -> normalized form where it differs from the content (until refreshed)
        self._by_id: dict[int, str] = {}  # id -> token, as the decoder sees it (its normalized form, if it has one)
        self._raw_ids: dict[str, int] = {}  # content -> id of the tokens matched in the raw text
        self._normalized_ids: dict[str, int] = {}  # normalized form -> id (the first token registered with that form)
        self._raw_pattern: Any = None  # the compiled alternatives of _raw_ids (None: no token)
        self._normalized_pattern: Any = None  # the same for _normalized_ids
        self.encode_special_tokens = False  # True: special tokens are not matched (Hugging Face's switch)

    def __bool__(self) -> bool:
        return bool(self.ids)

    def add(
        self,
        tokens: Iterable[str | AddedToken],
        special: bool,
        model: Model | None,
        normalizer: Normalizer | None,
        argument: str = "tokens",
    ) -> int:
        """Register ``tokens`` (str or :class:`AddedToken`); returns how many were not registered
        before with the same options (Hugging Face's count, which includes tokens the model knows)."""
        if isinstance(tokens, (str, AddedToken)):
            raise TypeError(f"{argument} must be a list of str or AddedToken, got a single {type(tokens).__name__}")
        added = [AddedToken.of(token, special, argument, position) for position, token in enumerate(tokens)]
        registered = 0
        for token in added:
            if not token.content:  # as in Hugging Face: passed over, not counted
                continue
            known = self.ids.get(token.content)
            if known is not None and self.tokens.get(known) == token:
                continue
            token_id = self._assign(token, model)
            if token.normalized and normalizer is not None:
                # as in Hugging Face, a form stays with its id until the normalizer changes, even
                # when the token is registered again unnormalized
                form = normalizer.normalize_token(token.content)
                if form != token.content:
                    self._forms[token_id] = form
            registered += 1
        self._rebuild()
        return registered

    def reassign(self, model: Model | None, normalizer: Normalizer | None) -> None:
        """Give every registered token its id again, in registration order, for a new ``model`` (after
        training): a token the model knows takes the model's id, any other the next free one."""
        registered = [self.tokens[token_id] for token_id in dict.fromkeys(self.ids.values())]
        self.ids, self.special, self.tokens, self._forms = {}, {}, {}, {}
        for token in registered:
            self._assign(token, model)
        self.refresh(normalizer)

    def _assign(self, token, model):
        vocab = {} if model is None else model.vocab
        token_id = self.ids.get(token.content)
        if token_id is None:
            token_id = vocab.get(token.content)
        if token_id is None:
            token_id = self._next_id(vocab)
        self.ids[token.content] = token_id
        if token.special:  # once special, a content stays special (as in Hugging Face)
            self.special[token.content] = token_id
        self.tokens[token_id] = token
        return token_id

    def _next_id(self, vocab):
        """Hugging Face's rule: after the model's ids, or after the highest added id beyond them."""
        size = len(vocab)
        if not self.tokens:
            return size
        highest = max(self.tokens)
        return highest + 1 if highest >= size or size == 0 else size

    def refresh(self, normalizer: Normalizer | None) -> None:
        """Normalize the tokens' forms again (for a new normalizer) and rebuild the matchers."""
        self._forms = {}
        if normalizer is not None:
            for content, token_id in self.ids.items():
                if self.tokens[token_id].normalized:
                    form = normalizer.normalize_token(content)
                    if form != content:
                        self._forms[token_id] = form
        self._rebuild()

    def _rebuild(self):
        self._by_id, self._raw_ids, self._normalized_ids = {}, {}, {}
        for content, token_id in self.ids.items():
            form = self._forms.get(token_id, content)
            self._by_id.setdefault(token_id, form)
            if not self.tokens[token_id].normalized:
                self._raw_ids.setdefault(content, token_id)
            elif form:  # a token that normalizes to nothing can never match
                self._normalized_ids.setdefault(form, token_id)
        self._raw_pattern = _alternatives(self._raw_ids)
        self._normalized_pattern = _alternatives(self._normalized_ids)

    def restore(self, tokens: Iterable[tuple[AddedToken, int]], normalizer: Normalizer | None) -> None:
        """Install saved ``[(AddedToken, id), ...]``, in registration order."""
        self.ids, self.special, self.tokens = {}, {}, {}
        for token, token_id in tokens:
            self.ids[token.content] = token_id
            if token.special:
                self.special[token.content] = token_id
            self.tokens[token_id] = token
        self.refresh(normalizer)

    def saved(self) -> list[tuple[AddedToken, int]]:
        """``[(AddedToken, id), ...]`` in registration order: what :meth:`restore` takes."""
        return [(self.tokens[token_id], token_id) for token_id in self.ids.values()]

    @property
    def added(self) -> dict[str, int]:
        """``{token: id}`` of the added (non-special) tokens."""
        return {token: token_id for token, token_id in self.ids.items() if token not in self.special}

    @property
    def raw_forms(self) -> list[str]:
        """The contents of the tokens matched in the raw text."""
        return list(self._raw_ids)

    @property
    def raw_ids(self) -> dict[str, int]:
        """``{content: id}`` of the tokens matched in the raw text."""
        return dict(self._raw_ids)

    @property
    def normalized_forms(self) -> list[str]:
        """The normalized forms the tokens matched in the normalized text are matched by."""
        return list(self._normalized_ids)

    @property
    def normalized_ids(self) -> dict[str, int]:
        """``{normalized form: id}`` of the tokens matched in the normalized text."""
        return dict(self._normalized_ids)

    def decoded_tokens(self) -> dict[int, str]:
        """``{id: token}`` of every added id, as the decoder sees it."""
        return dict(self._by_id)

    def id_to_token(self, token_id: int) -> str | None:
        """The token of an added id (a normalized token's normalized form, as the decoder sees it)."""
        return self._by_id.get(token_id)

    def matching_texts(self, texts: list[str], normalized_texts: list[str]) -> set[int]:
        """The positions of the texts where a raw-matched token occurs (in ``texts``) or a normalized one
        (in ``normalized_texts``, the same texts normalized): only those need the matchers."""
        found = set()
        for pool, forms in ((texts, self._raw_ids), (normalized_texts, self._normalized_ids)):
            if not forms:
                continue
            if any("\0" in form for form in forms):  # the separator below: every text may match
                return set(range(len(texts)))
            joined = "\0".join(pool)
            starts = list(accumulate((len(text) + 1 for text in pool), initial=0))
            for form in forms:
                position = joined.find(form)
                while position >= 0:
                    index = bisect_right(starts, position) - 1
                    found.add(index)
                    position = joined.find(form, starts[index + 1])
        return found

    def split_raw(self, text: str) -> list[tuple[int, int, int | None]]:
        """``(start, end, id)`` spans covering ``text``; ``id`` is None between raw-matched tokens."""
        return self._split(text, self._raw_pattern, self._raw_ids)

    def split_normalized(self, text: str) -> list[tuple[int, int, int | None]]:
        """``(start, end, id)`` spans covering normalized ``text``; ``id`` is None between the tokens
        matched there."""
        return self._split(text, self._normalized_pattern, self._normalized_ids)

    def _split(self, text, pattern, ids):
        """Hugging Face's matching: leftmost-longest matches; a ``single_word`` match touching a word
        character is passed over; ``lstrip``/``rstrip`` widen a span over the whitespace beside it."""
        if pattern is None:
            return [(0, len(text), None)]
        spans, position = [], 0
        for match in pattern.finditer(text):
            start, end = match.span()
            token_id = ids[match.group()]
            token = self.tokens[token_id]
            if self.encode_special_tokens and token.content in self.special:
                continue
            if token.single_word and (
                (start > 0 and _is_word_char(text[start - 1])) or (end < len(text) and _is_word_char(text[end]))
            ):
                continue
            if token.lstrip:
                while start > position and _is_space(text[start - 1]):
                    start -= 1
                start = max(start, position)
            if token.rstrip:
                while end < len(text) and _is_space(text[end]):
                    end += 1
            if start > position:
                spans.append((position, start, None))
            spans.append((start, end, token_id))
            position = end
        if position < len(text) or not spans:
            spans.append((position, len(text), None))
        return spans


def _alternatives(tokens):
    """A regex of the tokens, longest first: at the leftmost match the longest one wins."""
    if not tokens:
        return None
    return re.compile("|".join(map(re.escape, sorted(tokens, key=len, reverse=True))))
