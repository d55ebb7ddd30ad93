"""Post-processors: wrap encoded sequences with special tokens, the last stage before the ids.

:class:`TemplateProcessing` follows Hugging Face ``tokenizers``: a template such as
``"[CLS] $A [SEP]"`` (single) or ``"[CLS] $A [SEP] $B:1 [SEP]:1"`` (pair) places the sequences
(``$A``, ``$B``) and special tokens, each with a type id after a colon (0 by default).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kvec.contracts import PostProcessor
from kvec.encoding import Encoding

__all__ = ["TemplateProcessing"]


class TemplateProcessing(PostProcessor):
    """Add special tokens and type ids around one or two sequences.

    Args:
        single: the template for one sequence, e.g. ``"[CLS] $A [SEP]"``.
        pair: the template for two sequences, e.g. ``"[CLS] $A [SEP] $B:1 [SEP]:1"``.
        special_tokens: ``[(token, id), ...]`` for every special token the templates use.

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
        special_tokens: Iterable[tuple[str, int]] | Mapping[str, int] = (),
    ) -> None:
        self.single = single
        self.pair = pair
        pairs = special_tokens.items() if isinstance(special_tokens, Mapping) else special_tokens
        self.special_tokens = [(str(token), int(token_id)) for token, token_id in pairs]
        ids = dict(self.special_tokens)
        self._single = _parse(single, ids, "single")
        self._pair = _parse(pair if pair is not None else "$A:0 $B:1", ids, "pair")

    def get_config(self):
        return {"single": self.single, "pair": self.pair, "special_tokens": [list(t) for t in self.special_tokens]}

    def single_affixes(self):
        """The special ids before and after the sequence in the single template.

        Example:
            >>> TemplateProcessing("[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)]).single_affixes()
            ([1], [2])
        """
        kinds = [kind for kind, _, _ in self._single]
        if kinds.count("sequence") != 1 or any(value == "B" for _, value, _ in self._single):
            return None
        at = kinds.index("sequence")
        return [value[1] for _, value, _ in self._single[:at]], [value[1] for _, value, _ in self._single[at + 1 :]]

    def process(self, encodings, add_special_tokens):
        """The template's pieces in order: each sequence with the template's type id, each special token
        (when ``add_special_tokens``) as an encoding of its own."""
        template = self._single if len(encodings) == 1 else self._pair
        processed = []
        for kind, value, type_id in template:
            if kind == "special":
                if add_special_tokens:
                    token, token_id = value
                    processed.append(Encoding([token_id], tokens=[token], type_ids=[type_id], special_tokens_mask=[1]))
                continue
            sequence = encodings[0 if value == "A" else 1]
            sequence.set_type_ids([type_id] * len(sequence))
            processed.append(sequence)
        return processed

    def added_tokens(self, is_pair):
        """How many special tokens the single (or pair) template adds.

        Example:
            >>> post = TemplateProcessing("[CLS] $A [SEP]", "[CLS] $A [SEP] $B:1 [SEP]:1", [("[CLS]", 1), ("[SEP]", 2)])
            >>> post.added_tokens(is_pair=False), post.added_tokens(is_pair=True)
            (2, 3)
        """
        return sum(kind == "special" for kind, _, _ in (self._pair if is_pair else self._single))


def _parse(template, special_ids, name):
    if not isinstance(template, str):
        raise TypeError(f"{name} template must be a str, got {type(template).__name__}")
    pieces = []
    for piece in template.split():
        body, _, type_id = piece.partition(":")
        try:
            type_id = int(type_id) if type_id else 0
        except ValueError:
            raise ValueError(f"{name} template: bad type id in {piece!r}") from None
        if body in ("$", "$A", "$0"):
            pieces.append(("sequence", "A", type_id))
        elif body in ("$B", "$1"):
            pieces.append(("sequence", "B", type_id))
        elif body in special_ids:
            pieces.append(("special", (body, special_ids[body]), type_id))
        else:
            raise ValueError(f"{name} template: {body!r} is neither $A, $B nor one of the special_tokens")
    return pieces
