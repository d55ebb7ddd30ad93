"""tiktoken rank files (``cl100k_base.tiktoken`` and the like): one ``base64-token rank`` per line.

tiktoken merges, in each word, the adjacent pair whose concatenation has the lowest rank, until no
concatenation is a token. That is byte-level BPE whose merge list is ordered by the merged token's
rank: each token's merge is found by running that rule on the token's own bytes with the lower ranks.
The words come from a regular expression that the rank file does not hold: pass it (or the name of a
known one) as ``pattern``.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Mapping

from kvec import decoders, pretokenizers, serialization
from kvec.added_vocabulary import AddedToken
from kvec.errors import FormatError
from kvec.models import BPE
from kvec.pipeline import Pipeline

__all__ = ["PATTERNS", "load_tiktoken"]

PATTERNS = {
    "cl100k_base": (
        r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"""
        r""" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
    ),
    "r50k_base": r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
}


def load_tiktoken(
    path: str | os.PathLike[str],
    pattern: str | pretokenizers.Regex = "cl100k_base",
    special_tokens: Mapping[str, int] | None = None,
) -> Pipeline:
    """A pipeline that encodes as tiktoken does with this rank file.

    Args:
        path: the rank file.
        pattern: the word expression (a str or a :class:`kvec.patterns.Regex`), or the name of a known
            one (``"cl100k_base"``, ``"r50k_base"``).
        special_tokens: ``{token: id}`` matched before the model (tiktoken's ``allowed_special="all"``).
    """
    path, text = serialization.read_text(path)
    ranks = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2:
            raise FormatError(path, f"line {number} is not a base64 token and a rank")
        try:
            token, rank = base64.b64decode(parts[0], validate=True), int(parts[1])
        except (binascii.Error, ValueError):
            raise FormatError(path, f"line {number} is not a base64 token and a rank") from None
        ranks[token] = rank
    if not ranks:
        raise FormatError(path, "no tokens")
    spell = pretokenizers.bytes_to_unicode()
    vocab = {"".join(spell[b] for b in token): rank for token, rank in ranks.items()}
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) < 2:
            continue
        parts = _merge(ranks, token, rank)
        if len(parts) != 2:
            raise FormatError(path, f"token of rank {rank} cannot be made from two lower-ranked tokens")
        merges.append(tuple("".join(spell[b] for b in part) for part in parts))
    if not isinstance(pattern, pretokenizers.Regex):
        pattern = pretokenizers.Regex(PATTERNS.get(pattern, pattern))
    words = pretokenizers.Split(pattern, behavior="isolated")
    try:
        model = BPE(vocab, merges, ignore_merges=True)
    except ValueError as e:
        raise FormatError(path, f"the ranks do not make a BPE model ({e})") from None
    tokenizer = Pipeline(
        model,
        pre_tokenizer=pretokenizers.Sequence([words, pretokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]),
        decoder=decoders.ByteLevel(),
    )
    if special_tokens:
        tokenizer.added_vocabulary.restore(
            [(AddedToken(token, special=True), token_id) for token, token_id in dict(special_tokens).items()], None
        )
        tokenizer._word_ids = {}
    return tokenizer


def _merge(ranks, token, below):
    """tiktoken's merging of ``token``'s bytes with the tokens ranked below ``below``."""
    parts = [bytes([b]) for b in token]
    while len(parts) > 1:
        best, best_rank = None, None
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and rank < below and (best_rank is None or rank < best_rank):
                best, best_rank = i, rank
        if best is None:
            break
        parts[best : best + 2] = [parts[best] + parts[best + 1]]
    return parts
