"""Keras' ``TextVectorization`` rules in NumPy, for backends without TensorFlow.

``keras.layers.TextVectorization`` runs on ``tf.strings`` and a TensorFlow hash table. This module
states the same rules over bytes, the way TensorFlow reads them, so that the layer gives Keras' outputs
on JAX, PyTorch and NumPy:

* ``standardize``: ``tf.strings.lower`` changes ASCII letters only (``bytes.lower``), and the
  punctuation Keras strips is ASCII's 32 punctuation characters (``bytes.translate``);
* ``split="whitespace"``: ``tf.strings.split`` cuts at runs of ASCII whitespace (``bytes.split``);
* ``split="character"``: one token per code point (``tf.strings.unicode_split``);
* ``ngrams``: every n-gram of each width in turn, joined by one space (``tf.strings.ngrams``);
* :class:`KerasVocabulary`: ``StringLookup`` with one OOV token ``"[UNK]"``; ``int`` outputs give the
  mask token ``""`` id 0 and ``"[UNK]"`` id 1, the counting modes ``"[UNK]"`` id 0 and drop ``""``:
  ``adapt`` orders tokens by count, ties by the tokens' bytes, both descending, and learns
  ``log(1 + documents / (1 + document count))`` for ``tf_idf`` (``"[UNK]"`` the mean of the others,
  summed in TensorFlow's order: :func:`tensorflow_mean`);
* :func:`encode_ids`: the output modes over ragged ids.

Texts given as ``str`` with a built-in ``standardize``, a whitespace or character split and no n-grams
run in one call of kvec's native encoder (:func:`kvec.native_spec.describe_word_lookup` states these
rules for it), the GIL released and the texts shared between threads.

Nothing here imports Keras or TensorFlow.
"""

from __future__ import annotations

import collections
import math
import sys
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from kvec._keras import clear_rows, fill_rows
from kvec._spec import SpecEncoder
from kvec.native_spec import describe_word_lookup
from kvec.pipeline import CORES

__all__ = ["KerasText", "KerasVocabulary", "MASK_TOKEN", "OOV_TOKEN", "as_bytes", "encode_ids"]

MASK_TOKEN = ""
OOV_TOKEN = "[UNK]"
_PUNCTUATION = b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
_ASCII_WHITESPACE = " \t\n\r\x0b\x0c"
_STRIP_TABLE = str.maketrans("", "", _PUNCTUATION.decode("ascii"))
OUTPUT_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


def as_bytes(inputs: Any, encoding: str) -> np.ndarray:
    """``inputs`` (a str or bytes, a list or tuple of them, nested, or a NumPy array of strings) as an
    object array of bytes of the same shape; a value that is not a string raises a TypeError naming it."""
    array = np.asarray(inputs, dtype=object) if not isinstance(inputs, np.ndarray) else inputs
    out = np.empty(array.shape, dtype=object)
    flat_in, flat_out = array.reshape(-1), out.reshape(-1)
    for i, item in enumerate(flat_in.tolist()):
        if isinstance(item, bytes):
            flat_out[i] = item
        elif isinstance(item, str):
            flat_out[i] = item.encode(encoding, "surrogateescape")
        else:
            raise TypeError(f"inputs must be strings: item {i} is a {type(item).__name__} ({item!r})")
    return out


def _decode(token: bytes, encoding: str) -> str:
    return token.decode(encoding, "surrogateescape")


def _standardized(text: bytes, how: Any) -> bytes:
    """One text standardized by a built-in ``standardize``."""
    if how in ("lower", "lower_and_strip_punctuation"):
        text = text.lower()
    if how in ("strip_punctuation", "lower_and_strip_punctuation"):
        text = text.translate(None, _PUNCTUATION)
    return text


def is_utf8(encoding: str) -> bool:
    return encoding.lower().replace("-", "").replace("_", "") == "utf8"


def native_ragged(encoder: SpecEncoder, texts: list[str | bytes]) -> tuple[np.ndarray, np.ndarray]:
    """``(values, row_lengths)``: the ids of ``texts`` from one call of the native encoder, over as many
    threads as there are cores for the texts (at least 256 texts each); ValueError where a text holds a
    lone surrogate (UTF-8 cannot carry it), or the encoder refuses a text."""
    threads = max(1, min(CORES, len(texts) // 256))
    values, row_lengths = encoder.encode(texts, threads)
    return np.frombuffer(values, dtype=np.int64), np.frombuffer(row_lengths, dtype=np.int64)


class KerasText:
    """Keras' ``standardize``, ``split`` and ``ngrams`` over texts as bytes."""

    def __init__(self, standardize: Any, split: Any, ngrams: Sequence[int] | None, encoding: str):
        if callable(split):
            raise ValueError(
                "split= as a callable needs the TensorFlow backend (Keras hands it a tf.Tensor); on this backend "
                "give a kvec word splitter instead, for example tokenizer=kvec.pretokenizers.Whitespace()"
            )
        self.standardize = standardize
        self.split = split
        self.ngrams = tuple(ngrams) if ngrams is not None else None
        self.encoding = encoding
        self._encoder: tuple[int, SpecEncoder] | None = None  # the vocabulary's generation, its encoder

    def standardized(self, texts: np.ndarray) -> np.ndarray:
        """``texts`` (an object array of bytes) standardized as Keras does, same shape."""
        how = self.standardize
        if how is None:
            return texts
        if callable(how):
            # as Keras on backends other than TensorFlow: the callable gets a NumPy array of str
            result = np.asarray(how(np.vectorize(lambda t: _decode(t, self.encoding), otypes=[str])(texts)))
            return as_bytes(result, self.encoding)
        out = np.empty(texts.size, dtype=object)
        out[:] = [_standardized(t, how) for t in texts.reshape(-1).tolist()]
        return out.reshape(texts.shape)

    def rows(self, texts: list[bytes]) -> list[list[bytes]]:
        """The tokens of each standardized text (``split`` not None), n-grams included."""
        if self.split == "whitespace":
            rows = [t.split() for t in texts]
        else:  # "character"
            rows = [[c.encode("utf-8") for c in t.decode("utf-8", "replace")] for t in texts]
        return [self.with_ngrams(row) for row in rows] if self.ngrams else rows

    def with_ngrams(self, row: list[bytes]) -> list[bytes]:
        assert self.ngrams is not None
        return [b" ".join(row[i : i + width]) for width in self.ngrams for i in range(len(row) - width + 1)]

    @property
    def runs_natively(self) -> bool:
        """Whether the native encoder runs these rules (:meth:`encoder`): a built-in standardize, a
        whitespace or character split, no n-grams, UTF-8."""
        return (
            self.split in ("whitespace", "character")
            and not self.ngrams
            and not callable(self.standardize)
            and is_utf8(self.encoding)
        )

    def encoder(self, vocabulary: KerasVocabulary) -> SpecEncoder:
        """The native encoder of these rules and ``vocabulary`` (:attr:`runs_natively`), made again
        when the vocabulary changes: standardizing changes ASCII characters only, each alone."""
        if self._encoder is None or self._encoder[0] != vocabulary.generation:
            how = self.standardize
            rule = None if how is None else (lambda c: _standardized(c.encode("ascii"), how).decode("ascii"))
            separators = _ASCII_WHITESPACE if self.split == "whitespace" else None
            description = describe_word_lookup(vocabulary.str_ids(), vocabulary.oov_id, rule, separators, 0x80)
            self._encoder = (vocabulary.generation, SpecEncoder(description))
        return self._encoder[1]

    def ragged_ids(self, texts: list[bytes], vocabulary: KerasVocabulary) -> tuple[np.ndarray, np.ndarray]:
        """``(values, row_lengths)``: the ids of the tokens of every standardized text, split at
        whitespace by the native encoder where it runs these rules (standardizing standardized text
        changes nothing), unless a text is not UTF-8."""
        if self.runs_natively and self.split == "whitespace":
            try:
                return native_ragged(self.encoder(vocabulary), [t.decode("utf-8") for t in texts])
            except ValueError:  # (UnicodeDecodeError too)
                pass
        return vocabulary.ragged_lookup(self.rows(texts))


class KerasVocabulary:
    """Keras' ``StringLookup`` as ``TextVectorization`` makes it: for ``int`` outputs ``""`` at id 0 and
    ``"[UNK]"`` at 1; for the others ``"[UNK]"`` at 0, and ``""`` counts nowhere (id -1)."""

    def __init__(self, max_tokens: int | None, pad_to_max_tokens: bool, output_mode: str, encoding: str):
        self.max_tokens = max_tokens
        self.pad_to_max_tokens = pad_to_max_tokens
        self.output_mode = output_mode
        self.encoding = encoding
        self.specials = [MASK_TOKEN, OOV_TOKEN] if output_mode == "int" else [OOV_TOKEN]
        self.start = len(self.specials)  # the id of the first token
        self.oov_id = self.start - 1
        self.tokens: list[bytes] = []  # learnt or set, without the special tokens
        self.ids: dict[bytes, int] = {}
        self.idf_weights: np.ndarray | None = None  # float32, special tokens included
        self.generation = 0  # counts the tables set
        self._set_tokens([])
        self.ready = False  # Keras' table is empty until a vocabulary is set or adapt finds a token
        self.reset_counts()

    # ---- the table -----------------------------------------------------------------------------

    def _set_tokens(self, tokens: list[bytes]) -> None:
        self.ready = True
        self.tokens = tokens
        self.ids = {MASK_TOKEN.encode(): 0 if self.start == 2 else -1, OOV_TOKEN.encode(): self.oov_id}
        self.ids.update((token, i + self.start) for i, token in enumerate(tokens))
        self.generation += 1

    def str_ids(self) -> dict[str, int]:
        """The ids of the tokens as str, the mask token left out (no word is empty)."""
        return {_decode(t, self.encoding): i for t, i in self.ids.items() if t}

    def size(self) -> int:
        return len(self.tokens) + self.start

    def depth(self) -> int:
        """The width of ``multi_hot``/``count``/``tf_idf``/``one_hot`` outputs."""
        return self.max_tokens if self.pad_to_max_tokens and self.max_tokens is not None else self.size()

    def get_vocabulary(self, include_special_tokens: bool = True) -> list[str]:
        tokens = [_decode(t, self.encoding) for t in self.tokens]
        return [*self.specials, *tokens] if include_special_tokens else tokens

    def lookup(self, tokens: np.ndarray) -> np.ndarray:
        """The ids of an object array of bytes tokens, same shape."""
        ids, oov = self.ids, self.oov_id
        flat = np.fromiter((ids.get(t, oov) for t in tokens.reshape(-1).tolist()), dtype=np.int64, count=tokens.size)
        return flat.reshape(tokens.shape)

    def ragged_lookup(self, rows: list[list[bytes]]) -> tuple[np.ndarray, np.ndarray]:
        """``(values, row_lengths)``: the ids of rows of tokens."""
        ids, oov = self.ids, self.oov_id
        values = np.fromiter((ids.get(t, oov) for row in rows for t in row), dtype=np.int64)
        return values, np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        """Keras' ``set_vocabulary``: special tokens at the front are recognised, repeated or misplaced
        ones refused, and ``tf_idf`` needs one weight per entry (specials get the mean when absent)."""
        if self.output_mode == "tf_idf" and idf_weights is None:
            raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
        if self.output_mode != "tf_idf" and idf_weights is not None:
            raise ValueError(
                f"`idf_weights` should only be set if output_mode is 'tf_idf'. Received: output_mode={self.output_mode}"
            )
        if isinstance(vocabulary, str):
            if self.output_mode == "tf_idf":
                raise ValueError("output_mode `'tf_idf'` does not support loading a vocabulary from file.")
            with open(vocabulary, encoding=self.encoding, newline="") as f:
                vocabulary = vocabulary_lines(f.read())
        entries = [as_bytes(v, self.encoding).item() for v in np.asarray(vocabulary, dtype=object).reshape(-1)]
        if not entries:
            raise ValueError(f"Cannot set an empty vocabulary. Received: vocabulary={vocabulary}")
        specials = [s.encode() for s in self.specials]
        found_specials = entries[: self.start] == specials
        tokens = entries[self.start :] if found_specials else entries
        repeated = sorted({t for t, n in collections.Counter(tokens).items() if n > 1})
        if repeated:
            raise ValueError(
                "The passed vocabulary has at least one repeated term. Please uniquify your dataset. "
                f"The repeated terms are: {[_decode(t, self.encoding) for t in repeated]}"
            )
        if MASK_TOKEN.encode() in tokens:
            raise ValueError(
                "Found reserved mask token at unexpected location in `vocabulary`. Either remove all mask and OOV "
                f"tokens, or include them only at the start of the vocabulary in precisely this order: {specials}."
            )
        if self.max_tokens is not None and len(tokens) + self.start > self.max_tokens:
            raise ValueError(
                "Attempted to set a vocabulary larger than the maximum vocab size. Received vocabulary size "
                f"is {len(tokens) + self.start}; `max_tokens` is {self.max_tokens}."
            )
        self._set_tokens(tokens)
        if self.output_mode == "tf_idf":
            weights = np.asarray(idf_weights, dtype=np.float64)
            if weights.ndim != 1 or len(weights) != len(entries):
                raise ValueError(
                    f"`idf_weights` must be the same length as vocabulary. len(idf_weights) is {len(weights)}; "
                    f"len(vocabulary) is {len(entries)}"
                )
            front, value = (0, 0.0) if found_specials else (self.start, float(np.average(weights)))
            back = self.max_tokens - front - len(weights) if self.pad_to_max_tokens and self.max_tokens else 0
            padded = np.pad(weights, (front, back), "constant", constant_values=(value, 0.0))
            self.idf_weights = padded.astype(np.float32)

    # ---- adapt -----------------------------------------------------------------------------------

    def reset_counts(self) -> None:
        self.counts: collections.Counter[bytes] = collections.Counter()
        self.document_counts: collections.Counter[bytes] = collections.Counter()
        self.documents = 0

    def count(self, documents: list[list[bytes]]) -> None:
        """Add the tokens of ``documents`` (one list of tokens each) to the counts."""
        for row in documents:
            self.counts.update(row)
        if self.output_mode == "tf_idf":
            for row in documents:
                self.document_counts.update(set(row))
            self.documents += len(documents)

    def finalize(self) -> None:
        """The vocabulary from the counts, as Keras' ``finalize_state``; nothing changes when no token
        was counted."""
        counts = self.counts
        counts.pop(MASK_TOKEN.encode(), None)
        counts.pop(OOV_TOKEN.encode(), None)
        if not counts:
            return
        ordered = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
        if self.max_tokens:
            ordered = ordered[: max(self.max_tokens - self.start, 0)]
        tokens = [token for token, _ in ordered]
        self._set_tokens(tokens)
        if self.output_mode == "tf_idf":
            frequency = np.array([self.document_counts[t] for t in tokens], dtype=np.int64)
            weights = np.log(1 + self.documents / (1 + frequency)).astype(np.float32)
            mean = tensorflow_mean(weights)
            back = self.max_tokens - self.start - len(weights) if self.pad_to_max_tokens and self.max_tokens else 0
            self.idf_weights = np.concatenate(
                [np.full(self.start, mean, np.float32), weights, np.zeros(max(back, 0), np.float32)]
            )
        self.reset_counts()


#: TensorFlow's CPU sums of float32 (Eigen, built for AVX): 8 lanes a packet, 4 packets a step, and
#: halves of a sum past 1024 packets summed apart (tf.reduce_mean is that sum over the count).
_LANES, _STEP, _LEAF = 8, 32, 8 * 1024


def _tensorflow_sum(values: np.ndarray, first: int = 0) -> np.float32:
    """The float32 sum of ``values`` (starting at ``first`` in the whole) as TensorFlow adds them."""
    n = len(values)
    if n > _LEAF:  # the two halves, the cut on a packet's bound of the whole
        cut = min(_LANES * -(-(first + -(-n // 2)) // _LANES) - first, n)
        total = np.float32(np.float32(0) + _tensorflow_sum(values[:cut], first))
        return np.float32(total + _tensorflow_sum(values[cut:], first + cut)) if cut < n else total
    stepped, packed = n // _STEP * _STEP, n // _LANES * _LANES
    lanes = np.zeros(_LANES, np.float32)
    if stepped:  # four packets summed lane by lane, in order (cumsum adds in order), then into the first
        four = np.cumsum(values[:stepped].reshape(-1, _STEP), axis=0, dtype=np.float32)[-1]
        lanes = four[:_LANES]
        for k in range(1, _STEP // _LANES):
            lanes = lanes + four[k * _LANES : (k + 1) * _LANES]
    for k in range(stepped, packed, _LANES):
        lanes = lanes + values[k : k + _LANES]
    rest = np.float32(0)
    for value in values[packed:]:
        rest = np.float32(rest + value)
    while len(lanes) > 1:  # the packet's lanes: each half added to the other
        lanes = lanes[: len(lanes) // 2] + lanes[len(lanes) // 2 :]
    return np.float32(rest + lanes[0])


def tensorflow_mean(values: np.ndarray) -> np.float32:
    """``tf.reduce_mean`` of float32 ``values`` on the CPU, to the bit: Keras gives the OOV token of a
    ``tf_idf`` layer the mean of the other tokens' weights."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    return np.float32(_tensorflow_sum(values) / np.float32(len(values)))


def vocabulary_lines(text: str) -> list[str]:
    """The entries of a vocabulary file's text, one per line as TensorFlow's ``TextFileInitializer``
    reads them: lines end at ``"\\n"`` (or ``"\\r\\n"``) only, so a token may hold any other character
    (``"\\x1c"``, ``"\\x85"``, a ``"\\r"`` but at its end); empty lines at the end are left out."""
    lines = text.split("\n")
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    while lines and lines[-1] == "":
        lines.pop()
    return lines


#: The alignment of the padded matrices the layer makes: a backend whose arrays need it (JAX's CPU
#: client takes a 64-byte aligned NumPy buffer as its own instead of copying it) gets them as they are.
ARRAY_ALIGNMENT = 64


def aligned_empty(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """An uninitialised C-contiguous array whose data starts at a multiple of :data:`ARRAY_ALIGNMENT` bytes."""
    dtype = np.dtype(dtype)
    size = math.prod(shape) * dtype.itemsize
    return _aligned_in(np.empty(size + ARRAY_ALIGNMENT, dtype=np.uint8), shape, dtype, size)


def _aligned_in(raw: np.ndarray, shape: tuple[int, ...], dtype: np.dtype, size: int) -> np.ndarray:
    """A matrix of ``size`` bytes laid out in the bytes ``raw`` (``size + ARRAY_ALIGNMENT`` of them at
    least), starting at a multiple of :data:`ARRAY_ALIGNMENT`; it holds ``raw`` as its base."""
    start = -raw.ctypes.data % ARRAY_ALIGNMENT
    return raw[start : start + size].view(dtype).reshape(shape)


#: A padded matrix of at least this many bytes is laid out in a kept buffer (:class:`ReusedBuffers`);
#: the allocator reuses the memory of smaller ones itself, but gives big ones back to the system, whose
#: fresh pages then fault in (a padded WordPiece batch is about 5 MB).
REUSED_BYTES = 1 << 20


class ReusedBuffers:
    """Buffers for big output matrices, kept and laid out again once nothing else holds them, so a
    matrix the size of an earlier one takes memory already mapped instead of fresh pages.

    Every array over a buffer's memory (the matrix, any view of it, the NumPy array a JAX or PyTorch
    array aliases, until that array is freed) holds a reference to the buffer as its ``base``; a buffer
    is handed out again only when its reference count is the one it has with nothing but this object
    holding it. A buffer is reused for a matrix of at least half its size; at most ``limit`` bytes are
    kept (buffers nothing holds are let go first).

    A matrix of zeros for ids (:meth:`zeroed_rows`) costs what its ids cost, not its size, when its
    buffer held such a matrix before: the buffer remembers where that one's ids were, and those cells
    are cleared (the rest is zero still) instead of the whole matrix."""

    def __init__(self, limit: int = 1 << 27):
        self.limit = limit
        self._kept: list[np.ndarray] = []
        # id of a kept buffer -> (its first bytes known to be zero but at the cells below, the bytes of a
        # row of the matrix of ids it last held, the bytes of ids written at the start of each row)
        self._zero: dict[int, tuple[int, int, np.ndarray]] = {}
        self._lock = threading.Lock()
        probe = [np.empty(1, dtype=np.uint8)]
        self._unheld = sys.getrefcount(probe[0])  # the count of a buffer only the list holds

    def _held(self, i: int) -> bool:
        return sys.getrefcount(self._kept[i]) > self._unheld

    def _buffer(self, size: int) -> np.ndarray:
        """A buffer for a matrix of ``size`` bytes: a kept one nothing holds, else a new one (kept when
        the limit allows). The lock is held."""
        fits = [i for i in range(len(self._kept)) if size <= self._kept[i].size - ARRAY_ALIGNMENT <= 2 * size]
        free = [i for i in fits if not self._held(i)]
        if free:
            return self._kept[min(free, key=lambda i: self._kept[i].size)]
        raw = np.empty(size + ARRAY_ALIGNMENT, dtype=np.uint8)
        kept = sum(b.size for b in self._kept)
        while kept + raw.size > self.limit:
            unheld = next((i for i in range(len(self._kept)) if not self._held(i)), None)
            if unheld is None:
                break
            dropped = self._kept.pop(unheld)
            self._zero.pop(id(dropped), None)
            kept -= dropped.size
        if kept + raw.size <= self.limit:
            self._kept.append(raw)
        return raw

    def empty(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        """An uninitialised C-contiguous matrix as :func:`aligned_empty` lays it out, in a kept buffer."""
        dtype = np.dtype(dtype)
        size = math.prod(shape) * dtype.itemsize
        with self._lock:  # the matrix is made before another thread can see its buffer unheld
            raw = self._buffer(size)
            self._zero.pop(id(raw), None)  # whoever holds it may write anything
            return _aligned_in(raw, shape, dtype, size)

    def zeroed_rows(self, shape: tuple[int, int], dtype: Any, row_lengths: np.ndarray) -> np.ndarray:
        """A matrix of zeros laid out as :meth:`empty` lays it out, for a caller that writes ids to the
        first ``row_lengths[r]`` cells (at most the width) of each row ``r`` and nothing else, and hands
        the matrix on to arrays that nobody writes to (JAX's): its buffer's earlier ids are cleared and
        its bytes past those known to be zero are zeroed, and where the new ids go is remembered."""
        dtype = np.dtype(dtype)
        rows, width = shape
        size = rows * width * dtype.itemsize
        with self._lock:
            raw = self._buffer(size)
            region = raw[-raw.ctypes.data % ARRAY_ALIGNMENT :]
            zero, row_bytes, written = self._zero.pop(id(raw), (0, 0, np.zeros(0, dtype=np.int64)))
            clear_rows(region, row_bytes, written)
            if zero < size:
                region[zero:size].fill(0)
            if any(raw is kept for kept in self._kept):
                cells = np.clip(np.asarray(row_lengths, dtype=np.int64), 0, width) * dtype.itemsize
                self._zero[id(raw)] = (max(zero, size), width * dtype.itemsize, cells)
            return _aligned_in(raw, shape, dtype, size)


_OUTPUT_BUFFERS = ReusedBuffers()


def _reused(shape: tuple[int, ...], dtype: Any) -> bool:
    """Whether an output matrix of ``shape`` and ``dtype`` is laid out in a kept buffer."""
    return math.prod(shape) * np.dtype(dtype).itemsize >= REUSED_BYTES


def output_matrix(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """An uninitialised aligned matrix for an output (:func:`aligned_empty`), in a reused buffer when it
    takes at least :data:`REUSED_BYTES`."""
    if not _reused(shape, dtype):
        return aligned_empty(shape, dtype)
    return _OUTPUT_BUFFERS.empty(shape, dtype)


def ragged_to_dense(
    values: np.ndarray,
    row_lengths: np.ndarray,
    length: int | None,
    dtype: Any = np.int64,
    read_only: bool = False,
    buffers: ReusedBuffers | None = None,
) -> np.ndarray:
    """Rows padded with 0 (or cut) to ``length``, or to the longest row, as ``dtype`` (int64 or int32).
    ``read_only``: the matrix goes on to arrays nobody writes to (JAX's), so a big one's buffer, when it
    held such a matrix before, is cleared where that one's ids were instead of zeroed whole
    (:meth:`ReusedBuffers.zeroed_rows`; ``buffers``, the layers' own unless given)."""
    width = int(row_lengths.max(initial=0)) if length is None else length
    shape = (len(row_lengths), width)
    values = np.ascontiguousarray(values, dtype=np.int64)
    row_lengths = np.ascontiguousarray(row_lengths, dtype=np.int64)
    if read_only and _reused(shape, dtype):
        out = (buffers or _OUTPUT_BUFFERS).zeroed_rows(shape, dtype, row_lengths)
        fill_rows(out, values, row_lengths, True)
        return out
    out = output_matrix(shape, dtype)
    fill_rows(out, values, row_lengths)
    return out


def bincount_rows(values: np.ndarray, row_lengths: np.ndarray, depth: int, binary: bool, dtype: Any) -> np.ndarray:
    """``[rows, depth]`` counts of the ids of every row (1.0 for present ids when ``binary``);
    negative ids (the mask token) count nowhere."""
    n = len(row_lengths)
    rows = np.repeat(np.arange(n), row_lengths)
    kept = values >= 0
    rows, values = rows[kept], values[kept]
    if len(values) and values.max() >= depth:
        raise ValueError(f"an id is outside [0, {depth}): the vocabulary is wider than the output")
    counts = np.bincount(rows * depth + values, minlength=n * depth).reshape(n, depth)
    return (counts > 0 if binary else counts).astype(dtype)


def encode_ids(
    values: np.ndarray,
    row_lengths: np.ndarray,
    output_mode: str,
    depth: int,
    sequence_length: int | None,
    idf_weights: np.ndarray | None,
    ragged: bool = False,
    counts_dtype: Any = np.int64,
    ids_dtype: Any = np.int64,
    read_only: bool = False,
) -> Any:
    """The layer's output for ragged ids: a padded matrix of ``ids_dtype`` (int64 in Keras' layer; a
    list of lists when ``ragged``; ``read_only`` as :func:`ragged_to_dense` takes it), or
    ``multi_hot``/``count`` rows of ``counts_dtype`` (int64 in Keras' layer), or float32 ``tf_idf`` rows."""
    if output_mode == "int":
        if ragged:
            ends = np.cumsum(row_lengths)
            return [values[end - length : end].tolist() for end, length in zip(ends, row_lengths)]
        return ragged_to_dense(values, row_lengths, sequence_length, ids_dtype, read_only)
    counts = bincount_rows(values, row_lengths, depth, output_mode == "multi_hot", counts_dtype)
    if output_mode == "tf_idf":
        if idf_weights is None:
            raise ValueError("When `output_mode` is `'tf_idf'`, `idf_weights` must be provided.")
        counts = counts.astype(np.float32) * idf_weights[:depth].astype(np.float32)
    return counts


def one_hot(ids: np.ndarray, depth: int) -> np.ndarray:
    """Keras' ``one_hot`` of one id per input: a last axis of 1 is dropped, then ``depth`` int64s."""
    if ids.ndim > 1 and ids.shape[-1] == 1:
        ids = ids.reshape(ids.shape[:-1])
    return (ids[..., None] == np.arange(depth)).astype(np.int64)
