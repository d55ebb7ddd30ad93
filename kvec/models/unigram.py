"""The Unigram language model (Kudo, 2018): segment one word into the pieces of highest total score.

Each piece has a score, its log probability. The segmentation of a word is the path of highest total
score through the lattice of every vocabulary piece found in it (Viterbi). A character that no
one-character piece covers is an unknown edge scored ``min(score) - 10``; consecutive unknown
characters are fused into one ``unk`` token whose token is the text it covers (as Hugging Face and
sentencepiece spell it), or with ``byte_fallback`` become the ``<0xNN>`` tokens of their UTF-8 bytes.

Paths whose scores (nearly) tie are told apart by the arithmetic of the sums, so the model follows one
of two ``viterbi`` rules. ``"huggingface"`` (the default, and that of models kvec trains, which export
to ``tokenizer.json``): Hugging Face's float64 sums; every piece matches text, ``<unk>`` included; a run
of unknown characters is one string, spelled by byte pieces where every byte has one. ``"sentencepiece"``
(models read from ``.model`` files, and those of :func:`kvec.presets.sentencepiece_style`):
sentencepiece's float32 sums; the unknown and byte pieces never match text (a literal ``<0x41>`` is
text, not the byte ``A``); each unknown character is spelled by byte pieces on its own. At each end
position both keep the first best path in order of start position. The rule also says what a lattice
spans: Hugging Face's is one word of the pre-tokenizer; sentencepiece's is the whole text behind a
pre-tokenizer whose words only shape training (:class:`kvec.pre_tokenizers.SentencePiece`), so its sums
carry on from word to word. Given the same pieces and scores, the ids equal those of the library the
rule names.

``nbest(word, k)`` lists the ``k`` best segmentations; ``sample(word)`` draws one for subword
regularization (``alpha`` sharpens or flattens the distribution; ``nbest_size=-1`` samples from every
segmentation by forward filtering and backward sampling, ``nbest_size > 1`` among the best ones).
"""

from __future__ import annotations

import heapq
import math
import struct
from array import array
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from kvec._unigram import Lattice
from kvec.common.arguments import MAX_ID, check_bool, check_id, check_number, check_seed, wrong_type
from kvec.contracts import registered
from kvec.errors import NotNativeError
from kvec.models import spec_bytes
from kvec.models.base import SubwordModel

__all__ = ["Unigram"]

UNKNOWN_PENALTY = 10.0
VITERBI_RULES = {"sentencepiece": 0, "huggingface": 1}  # csrc/core/unigram_path.h


@registered
class Unigram(SubwordModel):
    """A Unigram model.

    Args:
        vocab: ``[(piece, score), ...]``; a piece's id is its position.
        unk_id: the id of the unknown token (required when some character can be missing).
        byte_fallback: spell unknown characters with ``<0x00>``..``<0xFF>`` tokens.
        alpha, nbest_size: sampling of segmentations by :meth:`tokenize`, as in :meth:`sample`
            (``nbest_size`` None: always the best one).
        seed: seed of the sampling generator.
        unmatchable: ids of pieces that keep their id but never match text (sentencepiece's control
            and unused pieces).
        unk_score: the score of an unknown character (default: the lowest score less 10, as
            sentencepiece's lowest normal piece less 10).
        viterbi: ``"huggingface"`` or ``"sentencepiece"``: whose best-path arithmetic, tie order,
            lattice span and unknown-character rules the model follows (see the module's docstring).
            None (the default) is ``"huggingface"``, except that :func:`kvec.presets.sentencepiece_style`
            gives such a model sentencepiece's rule; an explicit ``"huggingface"`` stays.

    Example:
        >>> model = Unigram([("<unk>", 0.0), ("a", -2.0), ("b", -2.0), ("ab", -3.0), ("c", -2.5)], unk_id=0)
        >>> model.tokenize("abcab"), model.tokenize("abxy"), model.tokenize_ids("abxy")
        (['ab', 'c', 'ab'], ['ab', 'xy'], [3, 0])
        >>> [(tokens, round(score, 2)) for tokens, score in model.nbest("ab", 2)]
        [(['ab'], -3.0), (['a', 'b'], -4.0)]
    """

    def __init__(
        self,
        vocab: Iterable[tuple[str, float]] | None = None,
        unk_id: int | None = None,
        byte_fallback: bool = False,
        alpha: float = 0.1,
        nbest_size: int | None = None,
        seed: int | None = None,
        unmatchable: Iterable[int] = (),
        unk_score: float | None = None,
        viterbi: str | None = None,
    ) -> None:
        self.viterbi_given = viterbi is not None
        viterbi = "huggingface" if viterbi is None else viterbi
        if not isinstance(viterbi, str) or viterbi not in VITERBI_RULES:
            raise ValueError(f"viterbi must be one of {sorted(VITERBI_RULES)}, got {viterbi!r}")
        self.viterbi = viterbi
        if vocab is None:  # Hugging Face's empty model: the unknown piece alone
            vocab, unk_id = [("<unk>", 0.0)], 0 if unk_id is None else unk_id
        if isinstance(vocab, (str, bytes, Mapping)):
            raise wrong_type("vocab", "a list of (piece, score) pairs", vocab)
        self.pieces = []
        for position, entry in enumerate(vocab):
            if not (isinstance(entry, (tuple, list)) and len(entry) == 2 and isinstance(entry[0], str)):
                raise TypeError(f"vocab[{position}] must be a (piece, score) pair, got {entry!r:.60}")
            score = entry[1]
            if not (type(score) is float and -math.inf < score < math.inf):  # (the common case, checked fast)
                score = check_number(score, f"the score of vocab[{position}]", finite=True)
            self.pieces.append((entry[0], score))
        if len(self.pieces) > MAX_ID + 1:
            raise ValueError(f"vocab has {len(self.pieces)} pieces: ids are 0 to {MAX_ID}")
        if unk_id is not None:
            unk_id = check_id(unk_id, "unk_id")
            if unk_id >= len(self.pieces):
                raise ValueError(f"unk_id {unk_id} is not an id of the vocabulary ({len(self.pieces)} pieces)")
        self.unk_id = unk_id
        self.byte_fallback = check_bool(byte_fallback, "byte_fallback")
        self.alpha = check_number(alpha, "alpha", finite=True)
        if nbest_size is not None:
            if isinstance(nbest_size, (bool, np.bool_)) or not isinstance(nbest_size, (int, np.integer)):
                raise wrong_type("nbest_size", "an int or None", nbest_size)
            nbest_size = int(nbest_size)
        self.nbest_size = nbest_size
        self._rng = check_seed(seed)
        self.vocab = {}
        for i, (piece, _) in enumerate(self.pieces):
            self.vocab.setdefault(piece, i)
        self.id_to_token = {i: piece for i, (piece, _) in enumerate(self.pieces)}
        scores = [score for _, score in self.pieces]
        if unk_score is None:
            self.unk_score = (min(scores) if scores else 0.0) - UNKNOWN_PENALTY
        else:
            self.unk_score = check_number(unk_score, "unk_score", finite=True)
        self._explicit_unk_score = unk_score is not None
        if isinstance(unmatchable, (str, bytes, Mapping)):
            raise wrong_type("unmatchable", "a list of ids", unmatchable)
        self.unmatchable = sorted({check_id(i, f"unmatchable[{k}]") for k, i in enumerate(unmatchable)})
        if self.unmatchable and self.unmatchable[-1] >= len(self.pieces):
            raise ValueError(f"unmatchable id {self.unmatchable[-1]} is not an id of the vocabulary")
        self._lattice = Lattice([], [])
        pieces, scores, byte_ids = self.lattice_inputs()
        self._lattice.set_pieces(pieces, scores)
        # unknown characters: byte pieces where every byte has one, else the (fused) unknown token
        unk = -1 if unk_id is None else unk_id
        self._lattice.configure(self.unk_score, unk, array("i", byte_ids).tobytes(), VITERBI_RULES[viterbi])

    def lattice_inputs(self) -> tuple[list[str], list[float], list[int]]:
        """What the best path runs on (``csrc/core/unigram_path.h``): each id's piece as text may match
        it, ``""`` for those that never do (the empty and unmatchable pieces, and by sentencepiece's
        rule the unknown and byte pieces), their scores, and the id of each byte's ``<0xNN>`` piece (-1:
        none; an empty list without byte fallback)."""
        excluded = set(self.unmatchable)
        every = self.viterbi == "huggingface"  # Hugging Face's trie holds every piece
        pieces, scores = [], []
        for i, (piece, score) in enumerate(self.pieces):
            special = i == self.unk_id or _is_byte_piece(piece)
            matchable = piece and (every or not special) and i not in excluded
            pieces.append(piece if matchable else "")
            scores.append(score if matchable else 0.0)
        byte_ids = [self.vocab.get(f"<0x{b:02X}>", -1) for b in range(256)] if self.byte_fallback else []
        return pieces, scores, byte_ids

    @property
    def sampling(self) -> bool:
        return self.nbest_size is not None  # each call draws a segmentation

    @property
    def segments_across_words(self) -> bool:  # type: ignore[override]
        return self.viterbi == "sentencepiece"

    def get_config(self) -> dict[str, Any]:
        return {
            "vocab": [list(entry) for entry in self.pieces],
            "unk_id": self.unk_id,
            "byte_fallback": self.byte_fallback,
            "alpha": self.alpha,
            "nbest_size": self.nbest_size,
            "unmatchable": self.unmatchable,
            "unk_score": self.unk_score if self._explicit_unk_score else None,
            "viterbi": self.viterbi,
        }

    def to_tokenizer_json(self) -> dict[str, Any]:
        if self.nbest_size is not None:
            raise ValueError("model Unigram with sampling (nbest_size) has no tokenizer.json form")
        return {
            "type": "Unigram",
            "unk_id": self.unk_id,
            "vocab": [list(p) for p in self.pieces],
            "byte_fallback": self.byte_fallback,
        }

    def native_model(self, byte_spelling: str = "") -> bytes:
        """Kind 5 (``csrc/core/unigram_path.h``): what the best path runs on (:meth:`lattice_inputs`),
        the unknown score and id, the byte pieces and the Viterbi rule."""
        if self.sampling:
            raise NotNativeError("the Unigram model samples its segmentations: a served model would not be repeatable")
        pieces, scores, byte_ids = self.lattice_inputs()
        u32 = spec_bytes.u32
        entries = b"".join(spec_bytes.string(p) + struct.pack("<d", score) for p, score in zip(pieces, scores))
        unk_id = -1 if self.unk_id is None else self.unk_id
        fallback = u32(1) + struct.pack("<256i", *byte_ids) if byte_ids else u32(0)
        header = u32(spec_bytes.UNIGRAM) + u32(len(pieces)) + entries
        return header + struct.pack("<dq", self.unk_score, unk_id) + fallback + u32(VITERBI_RULES[self.viterbi])

    # ---- segmentation ----

    def tokenize_spans(self, word: str) -> list[tuple[int, int, int]]:
        """``[(id, start, end), ...]`` for one word: the best segmentation, or a sampled one when
        ``nbest_size`` is set."""
        if not word:
            return []
        if self.nbest_size is None:
            return self._lattice.resolve(word, self._lattice.segment(word, self.unk_score))
        return self._lattice.resolve(word, self._sampled_edges(word, self.alpha, self.nbest_size))

    def tokenize(self, word: str) -> list[str]:
        """The tokens of one word: an unknown token is the text it covers, as Hugging Face and
        sentencepiece give it (its id stays ``unk_id``)."""
        return [self.token_text(word, i, start, end) for i, start, end in self.tokenize_spans(word)]

    @property
    def text_token_id(self) -> int | None:  # type: ignore[override]
        return self.unk_id

    def token_text(self, word: str, token_id: int, start: int, end: int) -> str:
        """The token of ``token_id`` over ``word[start:end]``: the vocabulary's piece, or for the
        unknown token the text it covers."""
        return word[start:end] if token_id == self.unk_id else self.id_to_token[token_id]

    def nbest(self, word: str, k: int) -> list[tuple[list[str], float]]:
        """The ``k`` best segmentations as ``[(tokens, score), ...]``, best first, all distinct (two
        can spell the same tokens when unknown characters fuse into one unk token)."""
        return [([t for t, _, _ in self._tokens(word, path)], score) for score, path in self._nbest_paths(word, k)]

    def sample(self, word: str, alpha: float | None = None, nbest_size: int | None = -1) -> list[str]:
        """One segmentation drawn with probability proportional to ``exp(alpha * score)``: from every
        segmentation when ``nbest_size`` is negative, from the ``nbest_size`` best when it is above 1,
        and the best one when it is 0 or 1 (sentencepiece's convention)."""
        alpha = self.alpha if alpha is None else alpha
        return [t for t, _, _ in self._tokens(word, self._sampled_edges(word, alpha, nbest_size))]

    def _tokens(self, word, edges):
        return [
            (self.token_text(word, i, start, end), start, end) for i, start, end in self._lattice.resolve(word, edges)
        ]

    def _edges(self, word):
        """Lattice edges ``(start, end, piece, score)`` grouped by end position."""
        incoming: list[list[tuple[int, Any, float]]] = [[] for _ in range(len(word) + 1)]
        for start, end, piece, score in self._lattice.lattice(word, self.unk_score):
            incoming[end].append((start, piece, score))
        return incoming

    def _nbest_paths(self, word, k):
        """The k best paths as ``(score, [(piece, start, end), ...])`` by a k-best Viterbi: each
        position keeps its k best partial paths, so the lists are exact, sorted and distinct."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        if not word:
            return [(0.0, [])]
        incoming = self._edges(word)
        best: list[Any] = [[(0.0, None)]] + [None] * len(word)  # position -> [(score, (edge, previous rank))]
        for end in range(1, len(word) + 1):
            candidates = []
            for order, (start, piece, score) in enumerate(incoming[end]):
                for rank, (previous, _) in enumerate(best[start]):
                    candidates.append((-(previous + score), order, rank, (start, piece, rank)))
            best[end] = [(-c[0], c[3]) for c in heapq.nsmallest(k, candidates)]
        paths = []
        for score, link in best[len(word)]:
            path, end = [], len(word)
            while link is not None:
                start, piece, rank = link
                path.append((piece, start, end))
                end, link = start, best[start][rank][1]
            paths.append((score, path[::-1]))
        return paths

    def _sampled_edges(self, word, alpha, nbest_size):
        if nbest_size is not None and nbest_size > 1:
            paths = self._nbest_paths(word, nbest_size)
            weights = [alpha * score for score, _ in paths]
            top = max(weights)
            return self._rng.choices([p for _, p in paths], [math.exp(w - top) for w in weights])[0]
        if nbest_size is not None and nbest_size in (0, 1):
            return self._lattice.segment(word, self.unk_score)
        # forward filtering, backward sampling over the whole lattice
        incoming = self._edges(word)
        forward = [0.0] + [-math.inf] * len(word)
        for end in range(1, len(word) + 1):
            forward[end] = _log_sum([forward[start] + alpha * score for start, _, score in incoming[end]])
        edges, end = [], len(word)
        while end > 0:
            options = incoming[end]
            weights = [math.exp(forward[start] + alpha * score - forward[end]) for start, _, score in options]
            start, piece, _ = self._rng.choices(options, weights)[0]
            edges.append((piece, start, end))
            end = start
        return edges[::-1]


def _log_sum(values):
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def _is_byte_piece(piece):
    return len(piece) == 6 and piece.startswith("<0x") and piece.endswith(">")
