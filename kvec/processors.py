"""Post-processors: wrap encoded sequences with special tokens, the last stage before the ids.

:class:`TemplateProcessing` follows Hugging Face ``tokenizers``: a template such as
``"[CLS] $A [SEP]"`` (single) or ``"[CLS] $A [SEP] $B:1 [SEP]:1"`` (pair) places the sequences
(``$A``, ``$B``) and special tokens, each with a type id after a colon (0 by default).
:class:`RobertaProcessing` wraps as RoBERTa does, :class:`ByteLevel` trims the spaces of byte-level
tokens out of their offsets, and :class:`Sequence` applies post-processors in order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from numbers import Integral
from typing import Any

import regex

from kvec.common.arguments import wrong_type
from kvec.contracts import JsonState, PostProcessor, StageList, registered
from kvec.encoding import Encoding

__all__ = ["BertProcessing", "ByteLevel", "RobertaProcessing", "Sequence", "TemplateProcessing"]


@registered
class TemplateProcessing(PostProcessor):
    """Add special tokens and type ids around one or two sequences.

    Args:
        single: the template for one sequence, e.g. ``"[CLS] $A [SEP]"``.
        pair: the template for two sequences, e.g. ``"[CLS] $A [SEP] $B:1 [SEP]:1"``.
        special_tokens: every special token the templates use: ``(token, id)`` (or ``(id, token)``), or a
            dict ``{"id": name, "ids": [...], "tokens": [...]}`` for a name that stands for several
            tokens, as in ``tokenizers``.

    Without a ``pair`` template a pair is the two sequences back to back, the second with type id 1
    (Hugging Face's default, ``"$A:0 $B:1"``).

    Example:
        >>> from kvec.encoding import Encoding
        >>> post = TemplateProcessing("[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
        >>> parts = post.process([Encoding([7], tokens=["a"], offsets=[(0, 1)], words=[0])], add_special_tokens=True)
        >>> merged = Encoding.merge(parts, growing_offsets=False)
        >>> merged.tokens, merged.special_tokens_mask, merged.word_ids, post.added_tokens(is_pair=False)
        (['[CLS]', 'a', '[SEP]'], [1, 0, 1], [None, 0, None], 2)
    """

    def __init__(
        self,
        single: str = "$A",
        pair: str | None = None,
        special_tokens: Iterable[Any] | Mapping[str, int] = (),
    ) -> None:
        self.single = single
        self.pair = pair
        entries = special_tokens.items() if isinstance(special_tokens, Mapping) else special_tokens
        #: ``[(name, ids, tokens), ...]``: the name a template uses and the tokens it stands for
        self.special_tokens = [_special_entry(entry, position) for position, entry in enumerate(entries)]
        specials = {name: (ids, tokens) for name, ids, tokens in self.special_tokens}
        self._single = _parse(single, specials, "single")
        self._pair = _parse(pair if pair is not None else "$A:0 $B:1", specials, "pair")
        if pair is not None:
            _check_pair(self._pair)

    def get_config(self) -> dict[str, Any]:
        written = [
            [name, ids[0]] if ids and len(ids) == 1 and tokens == [name] else {"id": name, "ids": ids, "tokens": tokens}
            for name, ids, tokens in self.special_tokens
        ]
        return {"single": self.single, "pair": self.pair, "special_tokens": written}

    def to_tokenizer_json(self) -> dict[str, Any]:
        def template(pieces):
            return [
                {"Sequence": {"id": value, "type_id": type_id}}
                if kind == "sequence"
                else {"SpecialToken": {"id": value[0], "type_id": type_id}}
                for kind, value, type_id in pieces
            ]

        return {
            "type": "TemplateProcessing",
            "single": template(self._single),
            "pair": template(self._pair),
            "special_tokens": {
                name: {"id": name, "ids": ids, "tokens": tokens} for name, ids, tokens in self.special_tokens
            },
        }

    def single_affixes(self) -> tuple[list[int], list[int]] | None:
        """The special ids before and after the sequence in the single template.

        Example:
            >>> TemplateProcessing("[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)]).single_affixes()
            ([1], [2])
        """
        kinds = [kind for kind, _, _ in self._single]
        if kinds.count("sequence") != 1 or any(value == "B" for _, value, _ in self._single):
            return None
        at = kinds.index("sequence")
        before, after = self._single[:at], self._single[at + 1 :]
        return [i for _, value, _ in before for i in value[1]], [i for _, value, _ in after for i in value[1]]

    def process(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        """The template's pieces in order: each sequence with the template's type id, each special token
        (when ``add_special_tokens``) as an encoding of its own."""
        return _apply(self._single if len(encodings) == 1 else self._pair, encodings, add_special_tokens)

    def added_tokens(self, is_pair: bool) -> int:
        """How many special tokens the single (or pair) template adds.

        Example:
            >>> post = TemplateProcessing("[CLS] $A [SEP]", "[CLS] $A [SEP] $B:1 [SEP]:1", [("[CLS]", 1), ("[SEP]", 2)])
            >>> post.added_tokens(is_pair=False), post.added_tokens(is_pair=True)
            (2, 3)
        """
        return sum(len(value[1]) for kind, value, _ in (self._pair if is_pair else self._single) if kind == "special")


def _apply(template, encodings, add_special_tokens):
    """The pieces of ``template``: each sequence with the template's type id, each special token (when
    ``add_special_tokens``) as an encoding of its own."""
    processed = []
    for kind, value, type_id in template:
        if kind == "special":
            if add_special_tokens:
                _, ids, tokens = value
                n = len(ids)
                processed.append(
                    Encoding(list(ids), tokens=list(tokens), type_ids=[type_id] * n, special_tokens_mask=[1] * n)
                )
            continue
        if value == "B" and len(encodings) < 2:
            raise ValueError("the single template uses $B, but there is one sequence")
        sequence = encodings[0 if value == "A" else 1]
        if any(part is sequence for part in processed):  # a sequence used twice: each use its own type ids
            sequence = sequence._copy()
        sequence.set_type_ids([type_id] * len(sequence))
        processed.append(sequence)
    return processed


_TYPE_ID = regex.compile(r"\+?[0-9]+")  # what Rust's u32 parse reads


def _parse(template, special_ids, name):
    """The pieces of a template as Hugging Face reads it: the text cut at each single space, each piece
    ``id`` or ``id:type_id``; ``$``, ``$A`` or ``$a`` is the first sequence, ``$B`` or ``$b`` the second,
    ``$N`` the first with type id N; anything else not starting with ``$`` a special token."""
    if isinstance(template, (list, tuple)) and all(isinstance(piece, str) for piece in template):
        parts = list(template)
    elif isinstance(template, str):
        parts = template.split(" ")
    else:
        raise wrong_type(f"{name} template", "a str or a list of str", template)
    pieces: list[tuple[str, Any, int]] = []  # (kind, the special token's (name, ids, tokens) or "A"/"B", type id)
    missing: list[str] = []
    for part in parts:
        fields = part.split(":")
        body, type_text = fields[0], fields[1] if len(fields) == 2 else None
        if len(fields) > 2 or (type_text is not None and not _is_type_id(type_text)):
            raise ValueError(f'{name} template: Cannot build Piece from string "{part}"')
        type_id = 0 if type_text is None else int(type_text)
        if not body.startswith("$"):
            pieces.append(("special", (body, *special_ids.get(body, ((), ()))), type_id))
            if body not in special_ids and body not in missing:
                missing.append(body)
            continue
        rest = body[1:]
        if rest in ("", "A", "a") or _is_type_id(rest):
            sequence = "A"
            if type_text is None and rest not in ("", "A", "a"):
                type_id = int(rest)
        elif rest in ("B", "b"):
            sequence = "B"
        else:
            raise ValueError(f'{name} template: Cannot build Piece from string "{part}"')
        pieces.append(("sequence", sequence, type_id))
    if missing:
        raise ValueError(f"Missing SpecialToken(s) with id(s) `{', '.join(missing)}`")
    return pieces


def _special_entry(entry, position):
    """``(name, ids, tokens)`` of one of TemplateProcessing's special tokens, in any form tokenizers
    takes: ``(token, id)``, ``(id, token)``, or ``{"id": name, "ids": [...], "tokens": [...]}`` (a name
    standing for several tokens)."""
    where = f"special_tokens[{position}]"
    if isinstance(entry, Mapping):
        for key in ("id", "ids", "tokens"):
            if key not in entry:
                raise ValueError(f"{where}: `{key}` must be specified")
        name, ids, tokens = entry["id"], entry["ids"], entry["tokens"]
        if not isinstance(name, str):
            raise wrong_type(f"{where}['id']", "a str", name)
        if not isinstance(ids, (list, tuple)) or not all(_is_id(i) for i in ids):
            raise TypeError(f"{where}['ids'] must be a list of non-negative int ids")
        if not isinstance(tokens, (list, tuple)) or not all(isinstance(t, str) for t in tokens):
            raise TypeError(f"{where}['tokens'] must be a list of str")
        if len(ids) != len(tokens):
            raise ValueError(f"{where}: ids and tokens must be of the same length ({len(ids)} and {len(tokens)})")
        return name, [int(i) for i in ids], list(tokens)
    if isinstance(entry, (list, tuple)) and len(entry) == 2:
        first, second = entry
        if isinstance(first, str) and _is_id(second):
            return first, [int(second)], [first]
        if _is_id(first) and isinstance(second, str):
            return second, [int(first)], [second]
    raise TypeError(
        f"{where} must be a (token, id) pair, an (id, token) pair or a dict of id, ids and tokens, got {entry!r}"
    )


def _is_id(value):
    return isinstance(value, Integral) and not isinstance(value, bool) and int(value) >= 0


def _is_type_id(text):
    return _TYPE_ID.fullmatch(text) is not None and int(text) < 2**32


def _check_pair(pieces):
    if {value for kind, value, _ in pieces if kind == "sequence"} != {"A", "B"}:
        raise ValueError("Template for `pair` must use both sequences")


# Rust's char::is_whitespace (Unicode White_Space), and the byte-level spelling of a space
_SPACES = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000\u0120") | frozenset(
    map(chr, range(0x2000, 0x200B))
)


def _trim_offsets(encoding, add_prefix_space):
    """Take the leading and trailing spaces of each byte-level token out of its offsets, as Hugging
    Face's ByteLevel post-processor does (the one space ``add_prefix_space`` put before the first word is
    kept)."""
    offsets = list(encoding.offsets)
    for i, token in enumerate(encoding.tokens):
        leading = len(token) - len(token.lstrip(_SPACE_CHARS))
        trailing = len(token) - len(token.rstrip(_SPACE_CHARS))
        start, end = offsets[i]
        if leading:
            if (i == 0 or start == 0) and add_prefix_space and leading == 1:
                leading = 0
            start = min(start + leading, end)
        if trailing and end >= trailing:
            end = max(end - trailing, start)
        offsets[i] = (start, end)
    encoding._offsets = offsets


_SPACE_CHARS = "".join(sorted(_SPACES))


@registered
class ByteLevel(JsonState, PostProcessor):
    """Trim the spaces of byte-level tokens (``Ġ``) out of their offsets, as Hugging Face's ByteLevel
    post-processor does; ids and tokens stay as they are.

    Args:
        add_prefix_space: the pre-tokenizer put a space before the text: the first token keeps its one
            leading space in its offsets.
        trim_offsets: trim (without it, nothing changes).
        use_regex: kept for Hugging Face's files; it does not change what this stage does.
        type: ``"ByteLevel"`` only: what ``json.loads(processor.__getstate__())`` holds besides the
            settings, so that ``ByteLevel(**state)`` rebuilds it, as in ``tokenizers``.

    None for a setting means its default (True), as in ``tokenizers``.

    Example:
        >>> e = Encoding([1, 2], tokens=["Ġa", "Ġb"], offsets=[(0, 1), (1, 3)])
        >>> ByteLevel().process([e], add_special_tokens=True)[0].offsets
        [(0, 1), (2, 3)]
    """

    def __init__(
        self,
        add_prefix_space: bool | None = True,
        trim_offsets: bool | None = True,
        use_regex: bool | None = True,
        **state: str,
    ) -> None:
        self._state_keywords(state)
        self.add_prefix_space = add_prefix_space is None or bool(add_prefix_space)
        self.trim_offsets = trim_offsets is None or bool(trim_offsets)
        self.use_regex = use_regex is None or bool(use_regex)

    def get_config(self) -> dict[str, Any]:
        return {
            "add_prefix_space": self.add_prefix_space,
            "trim_offsets": self.trim_offsets,
            "use_regex": self.use_regex,
        }

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__, **self.get_config()}

    def single_affixes(self) -> tuple[list[int], list[int]] | None:
        return [], []

    def process(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        if self.trim_offsets:
            for encoding in encodings:
                for trimmed in (encoding, *encoding.overflowing):
                    _trim_offsets(trimmed, self.add_prefix_space)
        for index, encoding in enumerate(encodings):  # as tokenizers does, whatever the encodings are
            encoding.set_sequence_id(index)
        return encodings

    def added_tokens(self, is_pair: bool) -> int:
        return 0


@registered
class BertProcessing(TemplateProcessing):
    """BERT's special tokens: ``[CLS] A [SEP]``, and ``[CLS] A [SEP] B [SEP]`` with type id 1 for ``B [SEP]``
    (the template ``"[CLS] $A [SEP] $B:1 [SEP]:1"`` under Hugging Face's name).

    Args:
        sep: ``(token, id)`` of the separator.
        cls_token: ``(token, id)`` of the token that starts the text.

    Example:
        >>> post = BertProcessing(("[SEP]", 0), ("[CLS]", 1))
        >>> post.single_affixes(), post.added_tokens(is_pair=True)
        (([1], [0]), 3)
    """

    def __init__(self, sep: tuple[str, int], cls_token: tuple[str, int]) -> None:
        self.sep = _special_token(sep, "sep")
        self.cls_token = _special_token(cls_token, "cls_token")
        (cls, _), (separator, _) = self.cls_token, self.sep
        super().__init__(
            f"{cls} $A {separator}", f"{cls} $A {separator} $B:1 {separator}:1", [self.cls_token, self.sep]
        )

    def get_config(self) -> dict[str, Any]:
        return {"sep": list(self.sep), "cls_token": list(self.cls_token)}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": "BertProcessing", "sep": list(self.sep), "cls": list(self.cls_token)}


@registered
class RobertaProcessing(PostProcessor):
    """RoBERTa's special tokens: ``<s> A </s>`` and ``<s> A </s> </s> B </s>``, every type id 0; with
    ``trim_offsets`` the offsets are trimmed as :class:`ByteLevel` trims them first.

    Args:
        sep: ``(token, id)`` of the separator.
        cls_token: ``(token, id)`` of the token that starts the text.
        trim_offsets: take the spaces of byte-level tokens out of their offsets.
        add_prefix_space: the pre-tokenizer put a space before the text (see :class:`ByteLevel`).

    Example:
        >>> post = RobertaProcessing(("</s>", 2), ("<s>", 0))
        >>> e = Encoding([7, 8], tokens=["Ġa", "Ġb"], offsets=[(0, 1), (1, 3)])
        >>> merged = Encoding.merge(post.process([e], add_special_tokens=True), growing_offsets=False)
        >>> merged.tokens, merged.offsets, post.added_tokens(is_pair=True)
        (['<s>', 'Ġa', 'Ġb', '</s>'], [(0, 0), (0, 1), (2, 3), (0, 0)], 4)
    """

    def __init__(
        self,
        sep: tuple[str, int],
        cls_token: tuple[str, int],
        trim_offsets: bool = True,
        add_prefix_space: bool = True,
    ) -> None:
        self.sep = _special_token(sep, "sep")
        self.cls_token = _special_token(cls_token, "cls_token")
        self.trim_offsets = bool(trim_offsets)
        self.add_prefix_space = bool(add_prefix_space)
        cls = ("special", (self.cls_token[0], [self.cls_token[1]], [self.cls_token[0]]), 0)
        sep_piece = ("special", (self.sep[0], [self.sep[1]], [self.sep[0]]), 0)
        self._single = [cls, ("sequence", "A", 0), sep_piece]
        self._pair = [*self._single, sep_piece, ("sequence", "B", 0), sep_piece]

    def get_config(self) -> dict[str, Any]:
        return {
            "sep": list(self.sep),
            "cls_token": list(self.cls_token),
            "trim_offsets": self.trim_offsets,
            "add_prefix_space": self.add_prefix_space,
        }

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {
            "type": "RobertaProcessing",
            "sep": list(self.sep),
            "cls": list(self.cls_token),
            "trim_offsets": self.trim_offsets,
            "add_prefix_space": self.add_prefix_space,
        }

    def single_affixes(self) -> tuple[list[int], list[int]] | None:
        return [self.cls_token[1]], [self.sep[1]]

    def process(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        for encoding in encodings:
            for part in (encoding, *encoding.overflowing):
                if self.trim_offsets:
                    _trim_offsets(part, self.add_prefix_space)
                if part is encoding or add_special_tokens:  # as tokenizers rebuilds the overflowing parts
                    part.set_type_ids([0] * len(part))
        return _apply(self._single if len(encodings) == 1 else self._pair, encodings, add_special_tokens)

    def added_tokens(self, is_pair: bool) -> int:
        return 4 if is_pair else 2


def _special_token(value, name):
    if not (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and isinstance(value[0], str)
        and isinstance(value[1], int)
        and not isinstance(value[1], bool)
        and value[1] >= 0
    ):
        raise TypeError(f"{name} must be a (token, id) pair, got {value!r}")
    return value[0], value[1]


@registered
class Sequence(StageList, PostProcessor):
    """Post-processors applied in order, each to the encodings the one before it gave.
    ``sequence[i]`` is the i-th post-processor, and can be replaced (``sequence[0] = ByteLevel()``);
    ``len(sequence)`` counts them.

    Example:
        >>> post = Sequence([ByteLevel(), TemplateProcessing("$A [SEP]", special_tokens=[("[SEP]", 1)])])
        >>> post.added_tokens(is_pair=False), post.single_affixes()
        (1, ([], [1]))
    """

    nested_stages = "processors"

    _stages_attribute = "processors"
    _stage_type = PostProcessor

    def __init__(self, processors: Iterable[PostProcessor]) -> None:
        processors = list(processors)
        for position, processor in enumerate(processors):
            if not isinstance(processor, PostProcessor):
                raise wrong_type(f"processors[{position}]", "a PostProcessor", processor)
        self.processors = processors

    def get_config(self) -> dict[str, Any]:
        return {"processors": list(self.processors)}

    def to_tokenizer_json(self) -> dict[str, Any]:
        return {"type": "Sequence", "processors": [p.to_tokenizer_json() for p in self.processors]}

    def single_affixes(self) -> tuple[list[int], list[int]] | None:
        prefix: list[int] = []
        suffix: list[int] = []
        for processor in self.processors:
            affixes = processor.single_affixes()
            if affixes is None:
                return None
            prefix, suffix = affixes[0] + prefix, suffix + affixes[1]
        return prefix, suffix

    def process(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        for processor in self.processors:
            encodings = processor.process(encodings, add_special_tokens)
        return encodings

    def added_tokens(self, is_pair: bool) -> int:
        return sum(processor.added_tokens(is_pair) for processor in self.processors)
