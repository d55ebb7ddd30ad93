"""Every C function the Python layer calls, fed straight from hypothesis: random bytes, code points
(lone surrogates, NUL and U+10FFFF among them), ids (negative, past int32 and int64, past the
vocabulary) and lengths (0, negative, huge). Each call returns a result with the stated property (an
oracle written here in Python where there is one) or raises the documented exception; it never
crashes. ``make sanitize`` runs this file against the extensions built with AddressSanitizer and
UBSan, where a read or write out of bounds, a use after free or undefined arithmetic fails the run.
"""

import array
import math
import os
import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kvec._encoder
import kvec._jieba
import kvec._keras
import kvec._spec
import kvec._subword
import kvec._unigram
from kvec._encoder import PieceTable, encodings, id_rows
from kvec._jieba import Cutter, Dictionary
from kvec._keras import WordCounter, WordSplitter, clear_rows, fill_padded, fill_rows
from kvec._spec import SpecEncoder, SpecParts
from kvec._subword import BottomUpLearner, BpeRanks, CharsMapTable, bpe_merge_loop
from kvec._unigram import Lattice, release_free_memory
from kvec.chinese import _hmm_tables
from kvec.encoding import Encoding

EXAMPLES = int(os.environ.get("KVEC_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ARGUMENT_ERRORS = (TypeError, ValueError, OverflowError)

# --------------------------------------------------------------------------------------------------
# Strategies

EDGE_CHARS = ["\x00", "\ud800", "\udfff", "\U0010ffff", "\uffff", " ", "\t", "\n", "\u2581", "\u3000", "a", "A", "é"]
CHAR = st.characters(exclude_categories=()) | st.sampled_from(EDGE_CHARS + ["中", "国", "人", "0", "'", "!"])
TEXT = st.text(CHAR, max_size=30)
SMALL_TEXT = st.text(st.sampled_from("abAB é中 !\x00\ud800"), max_size=12)
EDGE_INTS = [0, 1, -1, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**32, 2**63 - 1, -(2**63), 2**63, 2**64, -(2**64)]
ID = st.integers(-3, 40) | st.sampled_from(EDGE_INTS) | st.integers(-(2**70), 2**70)
INT64 = st.integers(-3, 40) | st.sampled_from([v for v in EDGE_INTS if -(2**63) <= v < 2**63])
LENGTH = st.integers(-3, 64) | st.sampled_from([2**31, 2**40, 2**62, 2**63 - 1, -(2**63)])
BYTES = st.binary(max_size=64)


def misaligned(data):
    """The same bytes at an odd address (a buffer of int64 need not be aligned)."""
    return memoryview(b"\x00" + data)[1:]


BUFFER = BYTES.flatmap(lambda data: st.sampled_from([data, bytearray(data), misaligned(data)]))


def int64_bytes(values):
    return struct.pack(f"<{len(values)}q", *values)


def attempt(function, *args, errors=ARGUMENT_ERRORS, **kwargs):
    """(result, None), or (None, the exception) when the call raises one of `errors`."""
    try:
        return function(*args, **kwargs), None
    except errors as error:
        return None, error


# --------------------------------------------------------------------------------------------------
# kvec._keras: padding and the Keras word rule


NUMBERS = st.integers(-(2**40), 2**40) | st.floats(-1e6, 1e6) | st.sampled_from([None, 2**31, 2**53 + 1, 2**70, True])


@FUZZ
@given(
    rows=st.lists(st.lists(NUMBERS, max_size=6) | st.tuples(NUMBERS), max_size=5),
    maxlen=st.integers(0, 7),
    dtype=st.sampled_from(["int32", "int64", "float32", "float64", "int8", "uint64"]),
    pre_padding=st.booleans(),
    pre_truncating=st.booleans(),
)
def test_fill_padded_writes_the_padded_rows_or_declines(rows, maxlen, dtype, pre_padding, pre_truncating):
    out = np.full((len(rows), maxlen), 9, dtype=dtype)
    filled, error = attempt(fill_padded, out, list(rows), pre_padding, pre_truncating)
    assert error is None, error
    assert isinstance(filled, bool)
    if not filled:
        return
    assert dtype in ("int32", "int64", "float32", "float64")
    for r, row in enumerate(rows):
        kept = list(row[-maxlen:] if pre_truncating else row[:maxlen]) if maxlen else []
        pad = [9] * (maxlen - len(kept))
        expected = pad + kept if pre_padding else kept + pad
        assert out[r].tolist() == pytest.approx([float(v) for v in expected], rel=1e-6, abs=1e-6)


def test_fill_padded_refuses_what_is_not_a_writable_buffer():
    assert attempt(fill_padded, b"\x00" * 8, [[1]], True, True, errors=BufferError)[1].__class__ is BufferError
    assert attempt(fill_padded, 5, [[1]], True, True)[1].__class__ is TypeError
    assert attempt(fill_padded, bytearray(8), ([1],), True, True)[1].__class__ is TypeError
    strided = np.zeros((2, 2), dtype="int32")[:, :1]
    assert isinstance(
        attempt(fill_padded, strided, [[1], [2]], True, True, errors=(ValueError, BufferError))[1], ValueError
    )


@FUZZ
@given(
    values=st.lists(INT64, max_size=12),
    row_lengths=st.lists(LENGTH.filter(lambda n: -(2**63) <= n < 2**63), max_size=5),
    width=st.integers(0, 7),
    dtype=st.sampled_from(["int32", "int64", "int8", "float64"]),
)
def test_fill_rows_writes_each_row_cut_and_padded_or_refuses(values, row_lengths, width, dtype):
    out = np.full((len(row_lengths), width), 9, dtype=dtype)
    ragged = np.array(values, dtype=np.int64)
    zeroed = len(values) % 2 == 1  # then the cells past each row's ids keep what they hold
    _, error = attempt(
        fill_rows, out, misaligned(ragged.tobytes()).cast("q"), np.array(row_lengths, dtype=np.int64), zeroed
    )
    if dtype not in ("int32", "int64"):
        assert isinstance(error, TypeError)
        return
    if any(n < 0 for n in row_lengths) or sum(row_lengths) > len(values):
        assert isinstance(error, ValueError) and "row_lengths[" in str(error)
        return
    starts = np.cumsum([0] + row_lengths[:-1]).tolist()
    rows = [values[start : start + n] for start, n in zip(starts, row_lengths)]
    kept = [row[:width] for row in rows]
    if dtype == "int32" and any(not -(2**31) <= v < 2**31 for row in kept for v in row):
        assert isinstance(error, ValueError) and "does not fit an int32" in str(error)
        return
    assert error is None, error
    assert out.tolist() == [row + [9 if zeroed else 0] * (width - len(row)) for row in kept]


@FUZZ
@given(
    size=st.integers(0, 64),
    row_bytes=LENGTH,
    written=st.lists(LENGTH.filter(lambda n: -(2**63) <= n < 2**63), max_size=6),
    readonly=st.booleans(),
)
def test_clear_rows_zeroes_each_rows_first_bytes_or_refuses(size, row_bytes, written, readonly):
    region = bytes(range(1, size + 1)) if readonly else bytearray(range(1, size + 1))
    counts = np.array(written, dtype=np.int64)
    _, error = attempt(clear_rows, region, row_bytes, counts, errors=ARGUMENT_ERRORS + (BufferError,))
    if row_bytes < 0:
        assert isinstance(error, ValueError) and "row_bytes" in str(error)
        return
    if readonly:
        assert isinstance(error, BufferError)
        return
    if written and len(written) * row_bytes > size and row_bytes:
        assert isinstance(error, ValueError) and "pass the region" in str(error)
        return
    bad = [r for r, n in enumerate(written) if not 0 <= n <= row_bytes]
    if bad:
        assert isinstance(error, ValueError) and f"written[{bad[0]}]" in str(error)
        return
    assert error is None, error
    expected = bytearray(range(1, size + 1))
    for r, n in enumerate(written):
        expected[r * row_bytes : r * row_bytes + n] = bytes(n)
    assert region == expected


def test_clear_rows_refuses_what_is_not_int64_counts():
    assert isinstance(attempt(clear_rows, bytearray(8), 4, b"\x00" * 8)[1], TypeError)
    assert isinstance(attempt(clear_rows, bytearray(8), "4", np.zeros(1, np.int64))[1], TypeError)


def test_fill_rows_refuses_what_is_not_int64_ids_or_a_writable_matrix():
    lengths = np.array([1], dtype=np.int64)
    assert isinstance(attempt(fill_rows, np.zeros((1, 1), "int64"), b"\x00" * 8, lengths)[1], TypeError)
    assert isinstance(attempt(fill_rows, np.zeros(1, "int64"), lengths, lengths)[1], TypeError)
    assert isinstance(attempt(fill_rows, b"\x00" * 8, lengths, lengths, errors=BufferError)[1], BufferError)
    assert isinstance(attempt(fill_rows, np.zeros((2, 1), "int64"), lengths, lengths)[1], ValueError)


def keras_words(text, separators, lower):
    """The oracle: maximal runs of characters that are not separators."""
    if lower:
        text = text.lower()
    words, word = [], ""
    for c in text:
        if c in separators:
            if word:
                words.append(word)
            word = ""
        else:
            word += c
    return words + [word] if word else words


@FUZZ
@given(separators=TEXT, texts=st.lists(TEXT, max_size=4), lower=st.booleans())
def test_word_splitter_cuts_words_as_the_keras_rule(separators, texts, lower):
    splitter = WordSplitter(separators)
    for text in texts:
        assert splitter.split(text, lower) == keras_words(text, separators, lower)


def test_word_splitter_names_what_is_not_a_str():
    splitter = WordSplitter(" ")
    with pytest.raises(TypeError, match="must be a str"):
        splitter.split(b"a b", False)
    with pytest.raises(TypeError):
        WordSplitter(b" ")


@FUZZ
@given(
    separators=SMALL_TEXT,
    documents=st.lists(
        st.one_of(SMALL_TEXT, st.lists(st.one_of(SMALL_TEXT, st.integers(-3, 3)), max_size=5)), max_size=6
    ),
    lower=st.booleans(),
)
def test_word_counter_counts_words_and_documents(separators, documents, lower):
    splitter = WordSplitter(separators)
    counter = WordCounter()
    counts, docs = {}, {}
    for document in documents:
        if isinstance(document, str):
            counter.add_texts(splitter, [document], lower)
            tokens = keras_words(document, separators, lower)
        else:
            counter.add_tokens(iter(document))
            tokens = document
        for token in tokens:
            counts[token] = counts.get(token, 0) + 1
        for token in dict.fromkeys(tokens):
            docs[token] = docs.get(token, 0) + 1
    words, word_counts, document_counts = counter.result()
    assert words == list(counts) and word_counts == list(counts.values()) and document_counts == list(docs.values())
    assert counter.documents == len(documents)
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str"):
        counter.add_texts(splitter, ["a", b"b"], lower)
    with pytest.raises(TypeError):
        counter.add_tokens([["unhashable"]])


# --------------------------------------------------------------------------------------------------
# kvec._subword: BPE


def merged_oracle(ranks, ids):
    """Lowest rank first, leftmost on ties: (ids, the first input index of each)."""
    symbols = [(i, k) for k, i in enumerate(ids)]
    while True:
        best = None
        for k in range(len(symbols) - 1):
            found = ranks.get((symbols[k][0], symbols[k + 1][0]))
            if found is not None and (best is None or found[0] < best[0]):
                best = (found[0], k, found[1])
        if best is None:
            return [s[0] for s in symbols], [s[1] for s in symbols]
        _, k, new = best
        symbols[k : k + 2] = [(new, symbols[k][1])]


MERGES = st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(0, 12)), max_size=12)


@FUZZ
@given(merges=MERGES, ids=st.lists(st.integers(-2, 12), max_size=20), dropout=st.sampled_from([0.0, 0.5, 1.0, -1.0]))
def test_bpe_ranks_merge_lowest_rank_first(merges, ids, dropout):
    model = BpeRanks(merges)
    ranks = {(a, b): (rank, new) for rank, (a, b, new) in enumerate(merges)}
    merged, starts = model.merge(ids, True, dropout)
    assert starts == sorted(set(starts)) and (not ids or starts[0] == 0) and len(merged) == len(starts)
    if dropout <= 0.0:
        assert (merged, starts) == merged_oracle(ranks, ids)
        assert model.merge(ids, False) == merged
    if dropout >= 1.0:
        assert merged == ids


@FUZZ
@given(
    merges=st.lists(st.tuples(ID, ID, ID) | st.tuples(ID, ID) | st.just("ab"), max_size=4), ids=st.lists(ID, max_size=6)
)
def test_bpe_ranks_refuse_what_is_not_an_int32_merge(merges, ids):
    model, error = attempt(BpeRanks, merges)
    if error is None:
        attempt(model.merge, ids)
        attempt(model.merge, ids, True, 0.5)


@FUZZ
@given(state=st.lists(INT64 | st.integers(0, 2**32), min_size=620, max_size=630), ids=st.lists(st.integers(0, 5)))
def test_bpe_ranks_seed_takes_a_random_state_or_refuses(state, ids):
    model = BpeRanks([(0, 1, 5), (5, 2, 6), (1, 1, 7)])
    _, error = attempt(model.seed, tuple(state))
    if len(state) != 625:
        assert isinstance(error, ValueError)
    elif error is not None:
        assert isinstance(error, OverflowError) and any(not 0 <= v < 2**64 for v in state)
    merged, starts = model.merge(ids, True, 0.5)
    assert len(merged) == len(starts) <= len(ids)


def bpe_trainer_words():
    return st.lists(st.tuples(st.lists(st.integers(0, 6), max_size=80), st.integers(1, 10**6)), max_size=8)


@FUZZ
@given(words=bpe_trainer_words(), vocab_size=st.integers(-1, 30), max_length=st.integers(-1, 5) | st.just(2**62))
def test_bpe_merge_loop_merges_as_the_callback_numbers_them(words, vocab_size, max_length):
    ids = array.array("i", [i for word, _ in words for i in word])
    sizes = array.array("q", [len(word) for word, _ in words])
    calls = []

    def add_merge(a, b):
        calls.append((a, b))
        return 7 + len(calls), 7 + len(calls)

    merges = bpe_merge_loop(ids.tobytes(), sizes, [c for _, c in words], vocab_size, 7, 1, max_length, add_merge)
    assert merges == calls and len(merges) <= max(0, vocab_size - 7)
    assert all(isinstance(a, int) and isinstance(b, int) and a >= 0 and b >= 0 for a, b in merges)


@FUZZ
@given(
    ids=BUFFER,
    sizes=BUFFER | st.lists(LENGTH.filter(lambda v: -(2**63) <= v < 2**63), max_size=4).map(int64_bytes),
    counts=st.lists(ID, max_size=4),
    vocab_size=LENGTH,
    current=LENGTH,
    frequency=INT64,
    max_length=INT64,
    answer=st.sampled_from([(9, 10), (-1, 10), (2**31, 10), (9, -(2**40)), None, "x", (2**70, 1)]),
)
def test_bpe_merge_loop_refuses_malformed_words(ids, sizes, counts, vocab_size, current, frequency, max_length, answer):
    def add_merge(a, b):
        return answer

    merges, _ = attempt(
        bpe_merge_loop,
        ids,
        sizes,
        counts,
        vocab_size,
        current,
        frequency,
        max_length,
        add_merge,
        errors=ARGUMENT_ERRORS + (MemoryError,),
    )
    assert merges is None or all(isinstance(pair, tuple) and len(pair) == 2 for pair in merges)


def test_bpe_merge_loop_names_its_bad_inputs():
    def never(a, b):
        raise AssertionError("no merge expected")

    with pytest.raises(ValueError, match="sizes and counts differ"):
        bpe_merge_loop(b"", array.array("q", [0]), [], 10, 0, 1, 5, never)
    with pytest.raises(ValueError, match="do not add up"):
        bpe_merge_loop(array.array("i", [1, 2]).tobytes(), array.array("q", [1]), [1], 10, 0, 1, 5, never)
    with pytest.raises(ValueError, match=r"ids must be >= 0"):
        bpe_merge_loop(array.array("i", [-1, -1]).tobytes(), array.array("q", [2]), [3], 10, 0, 1, 5, never)
    with pytest.raises(ValueError, match="counts"):
        bpe_merge_loop(array.array("i", [1, 2]).tobytes(), array.array("q", [2]), [-4], 10, 0, 1, 5, never)
    with pytest.raises(ValueError, match="counts"):
        bpe_merge_loop(
            array.array("i", [1, 2, 1, 2]).tobytes(), array.array("q", [2, 2]), [2**62] * 2, 10, 0, 1, 5, never
        )
    with pytest.raises(ValueError, match=r"add_merge\(1, 2\) must give \(new id >= 0, vocabulary size\)"):
        bpe_merge_loop(
            array.array("i", [1, 2]).tobytes(), array.array("q", [2]), [3], 10, 0, 1, 5, lambda a, b: (-5, 1)
        )


# --------------------------------------------------------------------------------------------------
# kvec._subword: the bottom-up learner, sentencepiece's character map


@FUZZ
@given(
    words=st.lists(st.text(st.sampled_from("abcé中\x00\ud800"), max_size=9), max_size=6),
    counts=st.lists(INT64, max_size=6),
    joiner=st.sampled_from([None, "##", "", 5]),
    thresh=INT64,
    rounds=st.integers(-2, 4) | st.just(-(2**31)),
)
def test_bottom_up_learner_keeps_every_character(words, counts, joiner, thresh, rounds):
    learner, error = attempt(BottomUpLearner, words, counts, joiner)
    if error is not None:
        assert len(words) != len(counts) or any(c < 0 for c in counts) or sum(counts) >= 2**63
        return
    tokens, error = attempt(learner.tokens, thresh, rounds)
    if error is not None:
        assert isinstance(error, TypeError) and not isinstance(joiner, (str, type(None)))
        return
    assert all(isinstance(t, str) and isinstance(n, int) for t, n in tokens.items())
    chars = {c for word in words for c in word}
    assert chars <= set(tokens)
    if isinstance(joiner, str):
        assert {joiner + c for c in chars} <= set(tokens)


def darts_trie(keys):
    """A darts-clone double array of UTF-8 keys -> values, as little-endian uint32 units. A node at
    position p has its label (its last byte) in bits 0-7, bit 8 set when it ends a key, and in bits 10
    and up the offset p ^ base; its children lie at base ^ byte, and its value at base (bit 31 set).
    No two nodes share a base, so a position is the child of one node only."""
    nodes = {b""} | {key[:k] for key in keys for k in range(1, len(key) + 1)}
    units, used, bases = {}, {0}, set()

    def place(node, at):
        labels = sorted({k[len(node)] for k in nodes if len(k) == len(node) + 1 and k.startswith(node)})
        slots = labels + ([0] if node in keys else [])
        base = 1
        while base in bases or any(base ^ c in used for c in slots):
            base += 1
        bases.add(base)
        used.update(base ^ c for c in slots)
        units[at] = (at ^ base) << 10 | (node in keys) << 8 | (node[-1] if node else 0)
        if node in keys:
            units[base] = 1 << 31 | keys[node]
        for c in labels:
            place(node + bytes([c]), base ^ c)

    place(b"", 0)
    return b"".join(struct.pack("<I", units.get(p, 0)) for p in range(max(units) + 1))


def charsmap_oracle(text, replacements):
    out, p = [], 0
    while p < len(text):
        for length in range(min(16, len(text) - p), 0, -1):
            if text[p : p + length] in replacements:
                out.append(replacements[text[p : p + length]])
                p += length
                break
        else:
            out.append(text[p])
            p += 1
    return "".join(out)


@FUZZ
@given(
    pairs=st.dictionaries(
        st.text(st.sampled_from("ab é中\ud800"), min_size=1, max_size=3), st.text("xyé ", max_size=3), max_size=6
    ),
    texts=st.lists(st.text(st.sampled_from("ab é中\x00\ud800c"), max_size=20), max_size=4),
)
def test_chars_map_table_replaces_the_longest_key(pairs, texts):
    blob, keys = b"", {}
    for source, target in pairs.items():
        keys[source.encode("utf-8", "surrogatepass")] = len(blob)
        blob += target.encode() + b"\x00"
    table = CharsMapTable(darts_trie(keys), blob)
    for text in texts:
        expected = charsmap_oracle(text, pairs)
        normalized, starts, ends = table.normalize(text, (), False, False, False, True)
        assert normalized == expected == table.normalize(text, (), False, False, False, False)[0]
        assert len(starts) == len(ends) == 8 * len(normalized)
        spans = list(zip(struct.unpack(f"<{len(normalized)}q", starts), struct.unpack(f"<{len(normalized)}q", ends)))
        assert all(0 <= s < e <= len(text) for s, e in spans) and spans == sorted(spans)


@FUZZ
@given(
    units=BYTES,
    replacements=BYTES,
    texts=st.lists(TEXT, max_size=3),
    symbols=st.lists(st.text(st.sampled_from("ab "), max_size=3), max_size=3),
    flags=st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans()),
)
def test_chars_map_table_survives_any_trie(units, replacements, texts, symbols, flags):
    table, error = attempt(CharsMapTable, units, replacements)
    if error is not None:
        assert isinstance(error, ValueError) and len(units) % 4
        return
    for text in texts:
        normalized, starts, ends = table.normalize(text, tuple(symbols), *flags)
        assert isinstance(normalized, str)
        if flags[3]:
            assert len(starts) == len(ends) == 8 * len(normalized)
            assert all(0 <= v <= len(text) for v in struct.unpack(f"<{2 * len(normalized)}q", starts + ends))
    with pytest.raises(TypeError, match=r"symbols\[0\] must be a str"):
        table.normalize("a", (b"a",), False, False, False, False)


# --------------------------------------------------------------------------------------------------
# kvec._unigram


def check_path(path, text, n_pieces):
    """A best path tiles the text, each edge a piece of the vocabulary or unknown (-1)."""
    at = 0
    for piece, start, end in path:
        assert start == at < end and -1 <= piece < n_pieces
        at = end
    assert at == len(text)


LATTICE_WORDS = st.lists(st.text(st.sampled_from("abcé中 \ud800\x00"), max_size=10), max_size=6)


@FUZZ
@given(
    words=LATTICE_WORDS,
    counts=st.lists(st.integers(0, 40), max_size=6),
    max_length=LENGTH,
    prefix_char=INT64,
    seed_size=LENGTH,
    rule=st.integers(-1, 3) | st.sampled_from([2**31, -(2**63)]),
    n_threads=st.integers(-1, 3),
)
def test_lattice_seeds_by_any_rule_or_refuses(words, counts, max_length, prefix_char, seed_size, rule, n_threads):
    lattice, error = attempt(Lattice, words, counts)
    if error is not None:
        return
    chars, char_weights = lattice.char_counts()
    n, error = attempt(
        lattice.seed,
        list(chars),
        list(struct.unpack(f"<{len(chars)}q", char_weights)),
        max_length,
        {},
        prefix_char,
        seed_size,
        rule,
        n_threads,
        errors=ARGUMENT_ERRORS + (MemoryError,),
    )
    if error is None:
        assert rule in (0, 1) and n == len(lattice.pieces()) == len(lattice.scores()) // 8


@FUZZ
@given(
    words=LATTICE_WORDS,
    counts=st.lists(INT64, max_size=6),
    chars=st.lists(st.sampled_from(list("abcé中 \ud800\x00") + ["ab", ""]), max_size=6),
    char_counts=st.lists(INT64, max_size=6),
    max_length=LENGTH,
    classes=st.dictionaries(st.integers(-1, 0x110000), st.integers(-3, 5), max_size=4),
    prefix_char=INT64,
    seed_size=LENGTH,
    hugging_face=st.booleans(),
    texts=st.lists(st.text(st.sampled_from("abcé中 xy\ud800"), max_size=12), max_size=3),
    unk_score=st.floats(allow_nan=True),
    rule=st.integers(-1, 2),
)
def test_lattice_trains_and_segments_or_refuses(
    words, counts, chars, char_counts, max_length, classes, prefix_char, seed_size, hugging_face, texts, unk_score, rule
):
    lattice, error = attempt(Lattice, words, counts)
    if error is not None:
        weight = sum(c * (len(w) + 1) for w, c in zip(words, counts))
        assert len(words) != len(counts) or any(c < 0 for c in counts) or weight > 2**37
        return
    chars, char_weights = lattice.char_counts()
    expected = {}
    for word, count in zip(words, counts):
        for c in word:
            expected[c] = expected.get(c, 0) + count
    assert list(chars) == sorted(expected)
    assert dict(zip(chars, struct.unpack(f"<{len(chars)}q", char_weights))) == expected
    n, error = attempt(
        lattice.seed,
        chars,
        char_counts,
        max_length,
        classes,
        prefix_char,
        seed_size,
        0 if hugging_face else 1,
        errors=ARGUMENT_ERRORS + (MemoryError,),
    )
    if error is None:
        assert n == len(lattice.pieces()) == len(lattice.scores()) // 8
    n_pieces = len(lattice.pieces())
    for task in (lattice.expected_counts, lattice.viterbi_counts):
        assert len(task(2)) == 8 * n_pieces and len(task(1, True)) == 8 * (n_pieces + 1 if n_pieces else 0)
    scores, ids, lengths = lattice.alternatives(3)
    assert len(scores) == 8 * n_pieces and len(lengths) == 4 * n_pieces
    assert len(ids) == 4 * sum(struct.unpack(f"<{n_pieces}i", lengths))
    for text in texts:
        check_path(lattice.segment(text, unk_score), text, n_pieces)
        edges = lattice.lattice(text, unk_score)
        assert all(0 <= s < e <= len(text) and -1 <= p < n_pieces for s, e, p, _ in edges)
    byte_ids = b"" if rule % 2 else array.array("i", range(256)).tobytes()
    _, error = attempt(lattice.configure, 0.5, n_pieces - 1, byte_ids, rule)
    assert (error is None) == (rule in (0, 1)), error
    for text in texts if error is None else []:
        result, error = attempt(lattice.resolve, text, lattice.segment(text, 0.5))
        assert error is None or "not in the vocabulary" in str(error)
    keep = [k for k in range(n_pieces) if k % 2 == 0]
    assert lattice.retain(int64_bytes(keep), struct.pack(f"<{len(keep)}d", *([-1.0] * len(keep)))) is None
    assert len(lattice.pieces()) == len(keep)


def test_release_free_memory_answers_whether_memory_went_back():
    assert release_free_memory() in (True, False)


@FUZZ
@given(
    pieces=st.lists(st.text(st.sampled_from("abé中\ud800\x00"), max_size=4), max_size=8),
    scores=st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=8),
    unk_score=st.floats(allow_nan=True),
    unk_id=ID,
    byte_ids=st.sampled_from(
        [b"", b"\x00" * 1024, b"\xff" * 1024, b"\x80" * 1024, bytes(range(256)) * 4, b"\x01" * 1023]
    ),
    rule=st.integers(0, 1),
    texts=st.lists(st.text(st.sampled_from("abé中\ud800\x00z"), max_size=10), max_size=4),
    edges=st.lists(st.tuples(st.integers(-2, 9), st.integers(-1, 12), st.integers(-1, 12)), max_size=5),
)
def test_lattice_encodes_with_any_vocabulary(pieces, scores, unk_score, unk_id, byte_ids, rule, texts, edges):
    lattice = Lattice([], [])
    _, error = attempt(lattice.set_pieces, pieces, scores)
    if error is not None:
        assert len(pieces) != len(scores)
        return
    assert lattice.pieces() == pieces
    _, error = attempt(lattice.configure, unk_score, unk_id, byte_ids, rule)
    if error is not None:
        assert not -1 <= unk_id < len(pieces) or len(byte_ids) not in (0, 1024)
        return
    for text in texts:
        check_path(lattice.segment(text, unk_score), text, len(pieces))
        result, error = attempt(lattice.resolve, text, lattice.segment(text, unk_score))
        assert error is None or "not in the vocabulary" in str(error)
    for edge in [(len(pieces), 0, 1), (0, 1, 0), (0, -1, 1), (0, 0, 3), (0, 0, 2**31)]:
        _, error = attempt(lattice.resolve, "ab", [edge])
        assert error is not None
    for text in texts:
        resolved, error = attempt(lattice.resolve, text, list(edges))
        assert error is not None or all(isinstance(i, int) and 0 <= s <= e <= len(text) for i, s, e in resolved)


@FUZZ
@given(indices=BUFFER, values=BUFFER, n_threads=st.integers(-(2**31), 2**31 - 1))
def test_lattice_retain_checks_its_buffers(indices, values, n_threads):
    lattice = Lattice(["abc", "ab"], [3, 1])
    lattice.set_pieces(["a", "b", "c", "ab"], [-1.0, -2.0, -3.0, -0.5])
    _, error = attempt(lattice.retain, indices, values, errors=ARGUMENT_ERRORS + (IndexError,))
    if error is None:
        assert len(lattice.pieces()) == len(bytes(indices)) // 8
    assert len(lattice.expected_counts(n_threads)) == 8 * len(lattice.pieces())
    assert len(lattice.alternatives(n_threads)[0]) == 8 * len(lattice.pieces())


@FUZZ
@given(scores=BUFFER)
def test_lattice_rescore_checks_its_buffer(scores):
    lattice = Lattice(["abc", "ab"], [3, 1])
    lattice.set_pieces(["a", "b", "c", "ab"], [-1.0, -2.0, -3.0, -0.5])
    _, error = attempt(lattice.rescore, scores)
    assert (error is None) == (len(bytes(scores)) == 8 * 4), error
    assert len(lattice.pieces()) == 4
    assert len(lattice.expected_counts(1)) == 8 * 4


# --------------------------------------------------------------------------------------------------
# kvec._jieba

HMM = _hmm_tables()
HMM_VALUES = len(HMM) // 8
DICTIONARY_LINE = st.tuples(
    st.text(st.sampled_from("中国人大学生北京 ab\ud800\x00"), max_size=4), st.integers(-2, 10**6) | st.just(2**63)
).map(lambda entry: f"{entry[0]} {entry[1]}")


def dictionary_text(lines):
    return "\n".join(lines).encode("utf-8", "surrogatepass")


@FUZZ
@given(
    lines=st.lists(DICTIONARY_LINE, max_size=8),
    garbage=BYTES,
    hmm_changes=st.lists(
        st.tuples(st.integers(0, HMM_VALUES - 1), st.sampled_from([math.nan, math.inf, -1e308, 0.0])), max_size=3
    ),
    mode=st.integers(-1, 3),
    hmm=st.booleans(),
    added=st.lists(st.tuples(st.text(st.sampled_from("中国人ab\ud800"), max_size=3), ID), max_size=4),
    texts=st.lists(
        st.text(st.sampled_from("中国人大学生北京 ab1.5%\r\n\ud800\x00\U0010ffff"), max_size=30), max_size=4
    ),
)
def test_jieba_cuts_any_text_with_any_dictionary(lines, garbage, hmm_changes, mode, hmm, added, texts):
    tables = array.array("d", HMM)
    for at, value in hmm_changes:
        tables[at] = value
    for text in (garbage, dictionary_text(lines)):
        dictionary, error = attempt(Dictionary, text, tables.tobytes(), "dict.txt")
        assert error is None or "dict.txt" in str(error)
    if dictionary is None:
        return
    assert isinstance(dictionary.total, int)
    cutter, error = attempt(Cutter, dictionary, mode, hmm)
    if error is not None:
        assert mode not in (0, 1, 2)
        return
    for word, count in added:
        total = cutter.total
        _, error = attempt(cutter.add_word, word, count)
        assert (error is None) == (word != "" and 0 <= count < 2**63 - total), error
        count = cutter.count(word)
        assert count is None or count >= 0
    for text in texts:
        words, spans = cutter.words(text), cutter.spans(text)
        assert words == [w for w, _ in spans] and all(words)
        for word, start in spans:
            assert 0 <= start < len(text)
            if mode != 2:
                assert text[start : start + len(word)] == word
    for text in texts:  # any mode per call, whitespace kept or not, with starts or not
        for other_mode, other_hmm, keep_space in ((0, hmm, False), (1, not hmm, True), (2, hmm, True)):
            starts = cutter.cut(text, other_mode, other_hmm, keep_space, True)
            assert cutter.cut(text, other_mode, other_hmm, keep_space, False) == [w for w, _ in starts]
            assert all(isinstance(w, str) and isinstance(s, int) for w, s in starts)
        assert [w for w in cutter.cut(text, mode, hmm, False, False) if w] == cutter.words(text)
        _, error = attempt(cutter.cut, text, 3, hmm, False, False)
        assert error is not None and "mode must be 0, 1 or 2" in str(error)
    for n_threads in (1, 3):
        assert cutter.segment(texts * 30, n_threads) == [cutter.words(t) for t in texts * 30]
    with pytest.raises(ValueError, match="n_threads"):
        cutter.segment(texts, 0)


@FUZZ
@given(
    lines=st.lists(DICTIONARY_LINE, min_size=1, max_size=8),
    flips=st.lists(st.tuples(st.floats(0, 1), st.integers(1, 255)), min_size=1, max_size=4),
    cut=st.integers(-40, 0),
    texts=st.lists(st.text(st.sampled_from("中国人大学生北京 ab"), max_size=20), max_size=3),
)
def test_a_corrupt_jieba_dump_loads_clean_or_raises(lines, flips, cut, texts):
    dictionary, error = attempt(Dictionary, dictionary_text(lines), HMM, "dict.txt")
    if error is not None:
        return
    dump = bytearray(dictionary.dump())
    tables = len(dump) - len(HMM)  # the HMM's floats are any doubles; the structure lies before them
    for where, value in flips:
        dump[int(where * (tables - 1))] ^= value
    data = bytes(dump[: len(dump) + cut] if cut else dump)
    loaded, error = attempt(Dictionary.load, data, "cache.kvec")
    if error is not None:
        assert "cache.kvec is not a kvec jieba dictionary" in str(error)
        return
    for mode in (0, 1, 2):
        cutter = Cutter(loaded, mode, True)
        for text in texts:
            assert all(cutter.words(text))
    assert Dictionary.load(dictionary.dump(), "x").dump() == dictionary.dump()


# --------------------------------------------------------------------------------------------------
# kvec._spec


def spec_pipelines():
    """Descriptions of a few pipeline kinds (each model kind, a normalizer, special and added tokens, a
    template), for SpecEncoder; kvec/native_spec.py writes them."""
    from kvec.models import Unigram, WordPiece
    from kvec.native_spec import describe
    from kvec.normalizers import BertNormalizer
    from kvec.pipeline import Pipeline
    from kvec.pretokenizers import BertPreTokenizer, Whitespace
    from kvec.processors import TemplateProcessing
    from tests.support import small_bpe

    wordpiece = Pipeline(
        WordPiece({"[UNK]": 0, "a": 1, "##b": 2, "é": 3, "中": 4}),
        normalizer=BertNormalizer(),
        pre_tokenizer=BertPreTokenizer(),
        post_processor=TemplateProcessing("[CLS] $A", special_tokens=[("[CLS]", 5)]),
    )
    wordpiece.add_special_tokens(["[PAD]"])
    wordpiece.add_tokens(["ab!"])
    bpe = Pipeline(small_bpe(unk_token="[UNK]", byte_fallback=True), pre_tokenizer=Whitespace())
    unigram = Pipeline(Unigram([("<unk>", 0.0), ("a", -1.5), ("b", -2.0), ("ab", -2.5)], unk_id=0))
    return [describe(p) for p in (wordpiece, bpe, unigram)], [wordpiece, bpe, unigram]


SPEC_DESCRIPTIONS, SPEC_PIPELINES = spec_pipelines()


@FUZZ
@given(
    which=st.integers(0, len(SPEC_DESCRIPTIONS) - 1),
    flips=st.lists(st.tuples(st.integers(0, 2**20), st.integers(0, 255)), max_size=3),
    cut=st.none() | st.integers(0, 2**20),
    texts=st.lists(TEXT | st.binary(max_size=12) | st.sampled_from([1, None, b"\xff\xfe", "[PAD]ab!"]), max_size=5),
    n_threads=st.integers(-1, 4),
)
def test_spec_encoder_encodes_any_description_or_refuses_it(which, flips, cut, texts, n_threads):
    description = bytearray(SPEC_DESCRIPTIONS[which])
    for at, value in flips:
        description[at % len(description)] = value
    if cut is not None:
        description = description[: cut % (len(description) + 1)]
    encoder, error = attempt(SpecEncoder, bytes(description))
    if error is not None:
        assert isinstance(error, (ValueError, MemoryError))
        return
    result, error = attempt(encoder.encode, texts, n_threads)
    if error is not None:
        assert isinstance(error, ARGUMENT_ERRORS + (MemoryError,))
        return
    values, lengths = result
    lengths = struct.unpack(f"={len(texts)}q", lengths)
    assert len(values) == 8 * sum(lengths) and min(lengths, default=0) >= 0
    if not flips and cut is None:  # the description as written: the reference encoder's ids
        ids = struct.unpack(f"={len(values) // 8}q", values)
        reference = SPEC_PIPELINES[which]
        at = 0
        for text, length in zip(texts, lengths):
            decoded, error = attempt(lambda t: t if isinstance(t, str) else t.decode(), text, errors=UnicodeError)
            if error is None:  # bytes that are not UTF-8 the reference encoder cannot take
                assert list(ids[at : at + length]) == reference.encode(decoded).ids
            at += length


@FUZZ
@given(
    which=st.integers(0, len(SPEC_DESCRIPTIONS) - 1),
    texts=st.lists(TEXT | st.binary(max_size=12) | st.sampled_from([1, b"\xff\xfe", "\ud800", "[PAD]ab!"]), max_size=9),
    n_threads=st.integers(-1, 5),
    n_parts=st.integers(-1, 11),
    taken=st.none() | st.integers(0, 3),
)
def test_spec_encoder_parts_are_encode_of_each_part(which, texts, n_threads, n_parts, taken):
    encoder = SpecEncoder(SPEC_DESCRIPTIONS[which])
    parts, error = attempt(encoder.encode_parts, texts, n_threads, n_parts)
    if error is not None:
        assert isinstance(error, ARGUMENT_ERRORS)
        return
    assert type(parts) is SpecParts
    bounds = [len(texts) * k // n_parts for k in range(n_parts + 1)]
    read = parts if taken is None else [next(parts, None) for _ in range(taken)]
    for got, start, end in zip(read, bounds, bounds[1:]):
        expected, error = attempt(encoder.encode, texts[start:end])
        assert got == (None if error is not None else expected)
    # dropped with parts left, or exhausted: the threads are done and the encoder may be made again
    del parts
    encoder.__init__(SPEC_DESCRIPTIONS[which])
    assert encoder.encode(["ab"]) == SpecEncoder(SPEC_DESCRIPTIONS[which]).encode(["ab"])


def test_spec_encoder_refuses_a_new_description_while_parts_are_encoding():
    encoder = SpecEncoder(SPEC_DESCRIPTIONS[0])
    parts = encoder.encode_parts(["ab"] * 200, 2, 4)
    with pytest.raises(RuntimeError, match="while the encoder is encoding"):
        encoder.__init__(SPEC_DESCRIPTIONS[1])
    assert [row for row in parts] == [encoder.encode(["ab"] * 50)] * 4
    encoder.__init__(SPEC_DESCRIPTIONS[1])
    with pytest.raises(TypeError):
        SpecParts()
    with pytest.raises(RuntimeError, match="__init__ was not called"):
        blank(SpecEncoder).encode_parts(["a"], 1, 1)


# --------------------------------------------------------------------------------------------------
# kvec._encoder


PIECE = (
    st.none() | st.binary(max_size=4) | st.sampled_from([b"\xf0\x9f", b"\x98\x80", b"\xed\xa0\x80", "é".encode(), "x"])
)


def piece_table_oracle(first, later, skipped, rows, skip_special):
    texts = []
    for row in rows:
        data, at_first = b"", True
        for i in row:
            if skip_special and skipped[i]:
                continue
            data += first[i] if at_first else later[i]
            at_first = False
        try:
            texts.append(data.decode("utf-8", "surrogatepass"))
        except UnicodeDecodeError:
            texts.append(data.decode("utf-8", "replace"))
    return texts


def flags_of(bits, n, off_by):
    """One byte per id (a wrong count when off_by is not 0)."""
    return bytes(bits[: max(0, n + off_by)]).ljust(max(0, n + off_by), b"\x01")


@FUZZ
@given(
    pieces=st.lists(st.tuples(PIECE, PIECE), max_size=8),
    bits=st.lists(st.integers(0, 2), min_size=24, max_size=24),
    off_by=st.tuples(*[st.sampled_from([0, 0, 0, 0, 1, -1])] * 2),
    invalid=st.integers(-1, 3),
    keep_first=st.booleans(),
    rows=st.lists(st.lists(st.integers(0, 7) | ID | st.just("1") | st.just(True), max_size=6), max_size=4),
    skip_special=st.booleans(),
)
def test_piece_table_decodes_ids_to_text_or_names_the_bad_id(
    pieces, bits, off_by, invalid, keep_first, rows, skip_special
):
    first = [a if b is not None else None for a, b in pieces]
    later = [b if a is not None else None for a, b in pieces]
    n = len(pieces)
    skipped = flags_of(bits, n, off_by[0])
    keep = flags_of(bits[4:], n, off_by[1]) if keep_first else b""
    table, error = attempt(PieceTable, first, later, skipped, invalid, keep)
    if error is not None:
        assert any(off_by) or invalid not in (0, 1, 2) or "x" in first + later
        return
    texts, error = attempt(table.decode, rows, skip_special)
    if error is not None:
        assert isinstance(error, (TypeError, ValueError)) and "ids[" in str(error)
        return
    assert len(texts) == len(rows) and all(isinstance(t, str) or (invalid and t is None) for t in texts)
    if invalid == 0 and not keep_first:
        assert texts == piece_table_oracle(first, later, skipped, [[int(i) for i in row] for row in rows], skip_special)


def test_piece_table_decodes_tokens_of_no_bytes():
    table = PieceTable([b"", b"a"], [b"", b"b"], b"\x00\x00")
    assert table.decode([[0], [0, 1, 0, 1], []], False) == ["", "bb", ""]


@FUZZ
@given(
    values=st.lists(INT64, max_size=10),
    lengths=st.lists(LENGTH.filter(lambda v: -(2**63) <= v < 2**63), max_size=5),
    odd=st.integers(0, 7),
    aligned=st.booleans(),
)
def test_id_rows_splits_values_by_row_lengths_or_refuses(values, lengths, odd, aligned):
    packed = int64_bytes(values) + b"\x01" * (odd if odd < 3 else 0)
    counts = int64_bytes(lengths)
    if not aligned:
        packed, counts = misaligned(packed), misaligned(counts)
    rows, error = attempt(id_rows, packed, counts)
    expected = None
    if not odd or odd >= 3:
        if all(n >= 0 for n in lengths) and sum(lengths) == len(values) and all(v >= 0 for v in values):
            expected, at = [], 0
            for n in lengths:
                expected.append(values[at : at + n])
                at += n
    assert rows == expected
    if expected is None:
        assert isinstance(error, ValueError)
        return
    made = encodings(Encoding, packed, counts, "tokenizer", [f"text {k}" for k in range(len(lengths))])
    assert [e.ids for e in made] == expected and [e._text for e in made] == [f"text {k}" for k in range(len(lengths))]
    with pytest.raises(ValueError, match="texts for"):
        encodings(Encoding, packed, counts, None, ["one too many"] * (len(lengths) + 1))


class _NoSlots:
    pass


# Encoding's slot descriptors on a class without slots: their offsets lie past its objects' end
_Borrowed = type("_Borrowed", (), {"__slots__": (), **{name: getattr(Encoding, name) for name in Encoding.__slots__}})


@pytest.mark.parametrize("cls", [_NoSlots, _Borrowed, int, type])
def test_encodings_refuse_a_class_without_the_encoding_slots(cls):
    with pytest.raises(TypeError, match="is not a __slots__ member"):
        encodings(cls, int64_bytes([1]), int64_bytes([1]), None, ["a"])


def blank(cls):
    """An object of a native type whose __init__ was never run."""
    return cls.__new__(cls)


@pytest.mark.parametrize(
    "call",
    [
        lambda: blank(WordCounter).add_texts(WordSplitter(" "), ["a"], False),
        lambda: blank(WordCounter).add_tokens(["a", 1]),
        lambda: blank(WordCounter).result(),
        lambda: blank(BpeRanks).merge([1, 2]),
        lambda: blank(BpeRanks).seed(tuple(range(625))),
        lambda: blank(SpecEncoder).encode(["a"]),
    ],
)
def test_a_native_object_whose_init_was_not_run_refuses_to_work(call):
    with pytest.raises((RuntimeError, ValueError), match="__init__ was not called|was not initialized"):
        call()


def test_native_objects_whose_init_was_not_run_hold_nothing():
    assert blank(WordSplitter).split("a b", False) == ["a b"]
    assert blank(BottomUpLearner).tokens(1, 2) == {}
    assert blank(CharsMapTable).normalize("ab", (), False, False, False, False) == ("ab", None, None)
    assert blank(Lattice).segment("ab", -1.0) == [(-1, 0, 1), (-1, 1, 2)]
    assert blank(Lattice).pieces() == [] and blank(Lattice).expected_counts() == b""
    assert blank(PieceTable).decode([[]], False) == [""]


def test_a_second_init_starts_afresh():
    learner = BottomUpLearner(["abab", "ab"], [5, 1], None)
    first = learner.tokens(2, 1)
    learner.__init__(["xyz"], [4], None)
    assert learner.tokens(2, 1) == BottomUpLearner(["xyz"], [4], None).tokens(2, 1) != first
    counter = WordCounter()
    counter.add_tokens([1, 2, 1])
    counter.__init__()
    counter.add_tokens([2, 3])
    assert counter.result() == ([2, 3], [1, 1], [1, 1])


def test_this_file_calls_every_native_entry_point():
    source = open(__file__, encoding="utf-8").read()
    for module in (kvec._keras, kvec._subword, kvec._unigram, kvec._jieba, kvec._encoder, kvec._spec):
        for name in dir(module):
            if name.startswith("_"):
                continue
            entry = getattr(module, name)
            assert f"{name}(" in source or f"{name}," in source, name
            if isinstance(entry, type):
                for method in vars(entry):
                    if not method.startswith("_"):
                        assert f".{method}" in source, f"{name}.{method}"
