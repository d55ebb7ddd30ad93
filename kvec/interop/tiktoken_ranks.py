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
import heapq
import os
from array import array
from collections.abc import Mapping

from kvec import decoders, pre_tokenizers
from kvec.added_vocabulary import AddedToken
from kvec.common.arguments import MAX_ID, check_id, wrong_type
from kvec.errors import FormatError
from kvec.files import serialization
from kvec.models import BPE
from kvec.pipeline import Pipeline

__all__ = ["MAX_TOKEN_BYTES", "PATTERNS", "load_tiktoken"]

#: The longest token a rank file may hold, in bytes (1 MiB): thousands of times the longest of
#: tiktoken's published encodings, and short enough that finding one token's merge (``n log n`` in its
#: length) takes about a second. A longer token is refused before its base64 is decoded, so a file of
#: one 50 MB token is refused at once.
MAX_TOKEN_BYTES = 1 << 20
_MAX_BASE64 = 4 * -(-MAX_TOKEN_BYTES // 3)

PATTERNS = {
    "cl100k_base": (
        r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"""
        r""" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
    ),
    "r50k_base": r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
}


def load_tiktoken(
    path: str | os.PathLike[str],
    pattern: str | pre_tokenizers.Regex = "cl100k_base",
    special_tokens: Mapping[str, int] | None = None,
) -> Pipeline:
    """A pipeline that encodes as tiktoken does with this rank file.

    Args:
        path: the rank file.
        pattern: the word expression (a str or a :class:`kvec.common.patterns.Regex`), or the name of a known
            one (``"cl100k_base"``, ``"r50k_base"``).
        special_tokens: ``{token: id}`` matched before the model (tiktoken's ``allowed_special="all"``).

    Raises:
        kvec.errors.FormatError: naming the file and the line: a line that is not a base64 token and a
            rank from 0 to 2147483647, a token longer than :data:`MAX_TOKEN_BYTES`, two tokens with
            one rank (tiktoken refuses them too), or a token that tiktoken's merging cannot make
            from two lower-ranked tokens.
    """
    special = _checked_special_tokens(special_tokens)
    path, text = serialization.read_text(path)
    ranks = _read_ranks(text, path)
    spelling = _BYTE_SPELLING
    vocab = {token.decode("latin-1").translate(spelling): rank for token, rank in ranks.items()}
    merges, lengths = [], {rank: len(token) for token, rank in ranks.items()}
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) < 2:
            continue
        parts = _merge(ranks, token, rank, lengths)
        if len(parts) != 2:
            raise FormatError(path, f"token of rank {rank} cannot be made from two lower-ranked tokens")
        merges.append(tuple(part.decode("latin-1").translate(spelling) for part in parts))
    if not isinstance(pattern, pre_tokenizers.Regex):
        pattern = pre_tokenizers.Regex(PATTERNS.get(pattern, pattern))
    words = pre_tokenizers.Split(pattern, behavior="isolated")
    try:
        model = BPE(vocab, merges, ignore_merges=True)
    except ValueError as e:
        raise FormatError(path, f"the ranks do not make a BPE model ({e})") from None
    tokenizer = Pipeline(
        model,
        pre_tokenizer=pre_tokenizers.Sequence(
            [words, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
        ),
        decoder=decoders.ByteLevel(),
    )
    if special:
        tokenizer.added_vocabulary.restore(
            [(AddedToken(token, special=True), token_id) for token, token_id in special.items()], None
        )
        tokenizer._forget_native_encoder()
    return tokenizer


#: ``bytes.decode("latin-1").translate(_BYTE_SPELLING)``: a token's bytes as byte-level BPE spells them
_BYTE_SPELLING = str.maketrans(pre_tokenizers.bytes_to_unicode())
_RANK_DIGITS = len(str(MAX_ID))


def _read_ranks(text: str, path: str) -> dict[bytes, int]:
    """``{token bytes: rank}`` of a rank file's text; ``FormatError`` naming the file and line."""
    ranks: dict[bytes, int] = {}
    lines_of: dict[int, int] = {}  # rank -> the line that gave it
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2:
            raise FormatError(path, f"line {number} is not a base64 token and a rank")
        encoded, digits = parts
        # a rank is checked as text first: int() of thousands of digits is slow, then refused
        if not (digits.isascii() and digits.isdigit() and len(digits) <= _RANK_DIGITS and int(digits) <= MAX_ID):
            raise FormatError(path, f"line {number}: the rank {digits[:20]!r} is not a number from 0 to {MAX_ID}")
        rank = int(digits)
        if len(encoded) > _MAX_BASE64:
            raise FormatError(path, f"line {number}: a token longer than {MAX_TOKEN_BYTES} bytes, the most kvec reads")
        try:
            token = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            raise FormatError(path, f"line {number} is not a base64 token and a rank") from None
        if len(token) > MAX_TOKEN_BYTES:
            raise FormatError(path, f"line {number}: a token longer than {MAX_TOKEN_BYTES} bytes, the most kvec reads")
        if not token:
            raise FormatError(path, f"line {number}: an empty token")
        if token in ranks:  # a token listed twice keeps its last rank, as tiktoken reads it
            del lines_of[ranks[token]]
        if rank in lines_of:
            raise FormatError(path, f"line {number}: rank {rank} is also the rank of line {lines_of[rank]}")
        ranks[token] = rank
        lines_of[rank] = number
    if not ranks:
        raise FormatError(path, "no tokens")
    return ranks


def _checked_special_tokens(special_tokens):
    """``special_tokens`` as a ``{token: id}`` dict, checked: non-empty str tokens, ids from 0 to
    :data:`kvec.models.base.MAX_ID`."""
    if special_tokens is None:
        return {}
    if not isinstance(special_tokens, Mapping):
        raise wrong_type("special_tokens", "a mapping of token to id", special_tokens)
    special = {}
    for token, token_id in special_tokens.items():
        if not isinstance(token, str) or not token:
            raise TypeError(f"special_tokens must map non-empty str tokens to ids, got the key {token!r:.60}")
        special[token] = check_id(token_id, f"special_tokens[{token!r:.60}]")
    return special


def _merge(ranks, token, below, lengths=None):
    """tiktoken's merging of ``token``'s bytes with the tokens ranked below ``below``: the parts left.
    ``lengths`` is ``{rank: length of its token}`` (made from ``ranks`` when not given).

    The rule: while some adjacent pair of parts joins into a token ranked below ``below``, join the
    pair of lowest rank (the leftmost of equals). A heap of candidate pairs finds that pair in
    logarithmic time, so the work grows as ``n log n`` in the token's length ``n`` (a scan of every
    pair at every join grows as ``n * n``). A candidate is the int ``rank << 42 | start``, its end
    ``start + lengths[rank]``; it is stale, and skipped, once either of its parts has grown.
    """
    size = len(token)
    if size == 2 and ranks.get(token) == below:  # the only join of its two bytes is the token itself
        return [token[:1], token[1:]]
    if lengths is None:
        lengths = {rank: len(known) for known, rank in ranks.items()}
    ends = array("q", range(1, size + 1))  # ends[i]: where the part starting at byte i ends
    starts = array("q", range(-1, size - 1))  # starts[i]: where the part before the one at byte i starts
    alive = bytearray(b"\1") * size  # alive[i]: a part starts at byte i
    get, push, pop, shift, low = ranks.get, heapq.heappush, heapq.heappop, 42, (1 << 42) - 1
    candidates = []
    for i in range(size - 1):
        rank = get(token[i : i + 2])
        if rank is not None and rank < below:
            candidates.append(rank << shift | i)
    heapq.heapify(candidates)
    while candidates:
        key = pop(candidates)
        left = key & low
        end = left + lengths[key >> shift]
        middle = ends[left]
        if not alive[left] or middle >= end or ends[middle] != end:
            continue  # a part of the pair has grown since
        alive[middle] = 0
        ends[left] = end
        if end < size:
            starts[end] = left
            rank = get(token[left : ends[end]])
            if rank is not None and rank < below:
                push(candidates, rank << shift | left)
        before = starts[left]
        if before >= 0:
            rank = get(token[before:end])
            if rank is not None and rank < below:
                push(candidates, rank << shift | before)
    parts, i = [], 0
    while i < size:
        parts.append(token[i : ends[i]])
        i = ends[i]
    return parts
