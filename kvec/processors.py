"""Post-processors: wrap encoded sequences with special tokens, the last stage before the ids.

:class:`TemplateProcessing` follows Hugging Face ``tokenizers``: a template such as
``"[CLS] $A [SEP]"`` (single) or ``"[CLS] $A [SEP] $B:1 [SEP]:1"`` (pair) places the sequences
(``$A``, ``$B``) and special tokens, each with a type id after a colon (0 by default).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kvec.contracts import PostProcessor

__all__ = ["TemplateProcessing"]


class TemplateProcessing(PostProcessor):
    """Add special tokens and type ids around one or two sequences.

    Args:
        single: the template for one sequence, e.g. ``"[CLS] $A [SEP]"``.
        pair: the template for two sequences, e.g. ``"[CLS] $A [SEP] $B:1 [SEP]:1"``.
        special_tokens: ``[(token, id), ...]`` for every special token the templates use.

    Example:
        >>> post = TemplateProcessing("[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
        >>> post.apply([("a", 7, (0, 1))], None, add_special_tokens=True)
        [('[CLS]', 1, (0, 0), 0, 1), ('a', 7, (0, 1), 0, 0), ('[SEP]', 2, (0, 0), 0, 1)]
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
        self._pair = _parse(pair, ids, "pair") if pair is not None else None

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

    def apply(self, first, second, add_special_tokens):
        """Combine ``[(token, id, offsets), ...]`` lists into ``[(token, id, offsets, type_id, special), ...]``."""
        if second is not None and self._pair is None:
            raise ValueError("this template has no pair template, so it cannot take a second sequence")
        template = self._single if second is None else self._pair
        combined = []
        for kind, value, type_id in template:
            if kind == "special":
                if add_special_tokens:
                    combined.append((value[0], value[1], (0, 0), type_id, 1))
            else:
                sequence = first if value == "A" else second
                combined.extend((token, token_id, offsets, type_id, 0) for token, token_id, offsets in sequence)
        return combined


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
