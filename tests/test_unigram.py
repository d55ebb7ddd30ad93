"""The Unigram model and trainer: exhaustive search, n-best, sampling, byte fallback, sentencepiece ids."""

import functools
import io
import json
import math
import os
import subprocess
import sys
from collections import Counter
from itertools import islice

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvec import decoders
from kvec._unigram import Lattice
from kvec.models import Unigram
from kvec.pipeline import Tokenizer
from kvec.pretokenizers import Metaspace
from kvec.trainers import UnigramTrainer

ALPHABET = "abcé中"
# scores on a grid of quarters add up exactly in float32, so the best path is well defined
SCORES = st.integers(-40, -1).map(lambda q: q / 4)
VOCABS = st.dictionaries(st.text(ALPHABET, min_size=1, max_size=3), SCORES, min_size=1, max_size=12)
WORDS = st.text(ALPHABET + "x", min_size=1, max_size=8)


def model_of(pieces):
    return Unigram([("<unk>", 0.0)] + sorted(pieces.items()), unk_id=0)


def segmentations(model, word):
    """Every path through the lattice (an unknown character where no one-character piece fits)."""
    vocab = {piece: score for piece, score in model.pieces[1:]}
    if not word:
        yield 0.0, ()
        return
    for end in range(1, len(word) + 1):
        piece = word[:end]
        if piece in vocab:
            score = vocab[piece]
        elif end == 1 and piece not in vocab:
            score = model.unk_score
        else:
            continue
        for rest_score, rest in segmentations(model, word[end:]):
            yield score + rest_score, (piece,) + rest


@given(pieces=VOCABS, word=WORDS)
def test_viterbi_and_nbest_equal_exhaustive_search(pieces, word):
    model = model_of(pieces)
    every = sorted((score for score, _ in segmentations(model, word)), reverse=True)
    best = model._lattice.segment(word, model.unk_score)
    assert sum(model.pieces[p][1] if p >= 0 else model.unk_score for p, _, _ in best) == every[0]
    assert "".join(word[start:end] for _, start, end in best) == word
    for k in (1, 3, 50):
        listed = model.nbest(word, k)
        assert [score for _, score in listed] == every[:k]
        paths = [tuple(path) for _, path in model._nbest_paths(word, k)]
        assert len(set(paths)) == len(paths)  # distinct segmentations


def test_sampling_frequencies_converge_to_path_probabilities():
    model = Unigram(
        [("<unk>", 0.0), ("a", -1.0), ("b", -1.5), ("ab", -2.0), ("ba", -3.0), ("aba", -3.25)], unk_id=0, seed=7
    )
    word, alpha, draws = "abab", 0.5, 20_000
    paths = {tokens: score for score, tokens in segmentations(model, word)}
    z = sum(math.exp(alpha * s) for s in paths.values())
    for nbest_size, support in ((-1, paths), (3, dict(sorted(paths.items(), key=lambda p: -p[1])[:3]))):
        z = sum(math.exp(alpha * s) for s in support.values())
        seen = Counter(tuple(model.sample(word, alpha=alpha, nbest_size=nbest_size)) for _ in range(draws))
        assert set(seen) <= set(support)
        for tokens, score in support.items():  # 6 standard deviations at most
            assert abs(seen[tokens] / draws - math.exp(alpha * score) / z) < 0.02
    assert all(model.sample(word, nbest_size=n) == model.tokenize(word) for n in (0, 1))


def test_sampling_is_seedable():
    vocab = [("<unk>", 0.0), ("a", -1.0), ("b", -1.0), ("ab", -1.5)]
    draws = [
        [model.tokenize("ababab") for _ in range(50)]
        for model in (Unigram(vocab, 0, seed=3, nbest_size=-1) for _ in range(2))
    ]
    assert draws[0] == draws[1] and len({tuple(d) for d in draws[0]}) > 1


BYTES = [(f"<0x{b:02X}>", -20.0) for b in range(256)]


@given(text=st.text(max_size=30))
def test_byte_fallback_spells_every_character(text):
    model = Unigram([("<unk>", 0.0), ("a", -1.0), ("ab", -1.5), ("é", -2.0)] + BYTES, unk_id=0, byte_fallback=True)
    spelled = b""
    for token_id, _start, _end in model.tokenize_spans(text):
        token = model.id_to_token[token_id]
        assert token != "<unk>"
        spelled += bytes([int(token[3:5], 16)]) if len(token) == 6 and token.startswith("<0x") else token.encode()
    assert spelled.decode("utf-8", "surrogatepass") == text


def test_unknown_characters_fuse_into_one_unk():
    model = Unigram([("<unk>", 0.0), ("a", -1.0)], unk_id=0)
    assert model.tokenize_spans("axyza") == [(1, 0, 1), (0, 1, 4), (1, 4, 5)]
    with pytest.raises(ValueError, match="'x' is not in the vocabulary and the model has no unk_id"):
        Unigram([("a", -1.0)]).tokenize("ax")


@functools.cache
def sentencepiece_model(vocab_size=40):
    spm = pytest.importorskip("sentencepiece")
    proto = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(LINES),
        model_writer=proto,
        model_type="unigram",
        vocab_size=vocab_size,
        normalization_rule_name="identity",
        remove_extra_whitespaces=False,
        hard_vocab_limit=False,
        minloglevel=2,
        num_threads=1,
    )
    return spm.SentencePieceProcessor(model_proto=proto.getvalue())


@given(
    words=st.lists(
        st.sampled_from(["low", "lower", "newest", "widest", "中文字", "é", "abab", "x"]), min_size=1, max_size=6
    ),
    probe=st.text("lowernstidab中文字éxyz ", max_size=20),
)
def test_viterbi_ids_equal_sentencepiece_given_its_pieces(words, probe):
    sp = sentencepiece_model()
    vocab = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]
    model = Unigram(vocab, unk_id=sp.unk_id(), viterbi="sentencepiece")
    tokenizer = Tokenizer(model, pre_tokenizer=Metaspace(), decoder=decoders.Metaspace())
    text = " ".join(words) + probe
    assert tokenizer.encode(text).ids == sp.encode(text)


WORDS_OF_LINES = [
    stem + end for stem in ("low", "new", "wid", "show", "know", "ab") for end in ("", "er", "est", "ing", "s")
]
LINES = [
    " ".join(WORDS_OF_LINES[(i * 7 + k * 3) % 30] for k in range(5)) + (" 中文字 é x" if i % 4 == 0 else "")
    for i in range(60)
]


def train(lines, **options):
    tokenizer = Tokenizer(None, pre_tokenizer=Metaspace(), decoder=decoders.Metaspace())
    n_jobs = options.pop("n_jobs", 1)
    options.setdefault("algorithm", "sentencepiece")
    tokenizer.train_from_iterator(lines, UnigramTrainer(**options), n_jobs=n_jobs)
    return tokenizer


def test_trained_vocabulary_has_exactly_vocab_size_and_round_trips():
    tokenizer = train(LINES, vocab_size=40, special_tokens=["<unk>", "<s>", "</s>"])
    assert tokenizer.get_vocab_size() == 40
    assert [tokenizer.id_to_token(i) for i in range(3)] == ["<unk>", "<s>", "</s>"]
    for line in LINES[:4]:
        assert tokenizer.decode(tokenizer.encode(line).ids) == line
    chars = {c for line in LINES for c in line.replace(" ", "▁")}
    assert chars <= set(tokenizer.get_vocab())  # character_coverage 1.0 keeps every character


def test_character_coverage_leaves_rare_characters_unknown():
    tokenizer = train(LINES + ["ǂ"], vocab_size=40, character_coverage=0.999)
    assert "ǂ" not in tokenizer.get_vocab()
    encoding = tokenizer.encode("ǂ")  # an unknown token is the text it covers, as tokenizers gives it
    assert encoding.tokens == ["▁", "ǂ"] and encoding.ids[1] == tokenizer.model.unk_id


def test_training_errors():
    with pytest.raises(
        ValueError, match=r"vocab_size 5 is too small: it needs \d+ tokens for 1 special token and the \d+ characters"
    ):
        train(LINES, vocab_size=5)
    with pytest.raises(ValueError, match="character_coverage must be in"):
        UnigramTrainer(character_coverage=0)
    with pytest.raises(TypeError, match="the count of 'a' must be a non-negative int, got -1"):
        UnigramTrainer().train_from_counts({"a": -1})


def test_a_vocab_size_larger_than_the_corpus_gives_a_smaller_vocabulary():
    hf = pytest.importorskip("tokenizers")
    oracle = hf.Tokenizer(hf.models.Unigram())
    oracle.pre_tokenizer = hf.pre_tokenizers.Metaspace()
    oracle.train_from_iterator(LINES, hf.trainers.UnigramTrainer(vocab_size=5000, show_progress=False))
    assert oracle.get_vocab_size() < 5000  # Hugging Face trains what the corpus gives, without an error
    tokenizer = train(LINES, vocab_size=5000, show_progress=False)
    assert tokenizer.get_vocab_size() < 5000
    assert {c for line in LINES for c in line.replace(" ", "▁")} <= set(tokenizer.get_vocab())


def test_save_and_load_keep_the_encodings(tmp_path):
    tokenizer = train(LINES, vocab_size=40)
    tokenizer.save(tmp_path / "unigram.json")
    loaded = Tokenizer.from_file(tmp_path / "unigram.json")
    assert [e.ids for e in loaded.encode_batch(LINES[:4])] == [e.ids for e in tokenizer.encode_batch(LINES[:4])]


TRAIN_AND_DUMP = """
import sys
from kvec import decoders
from kvec.pipeline import Tokenizer
from kvec.pretokenizers import Metaspace
from kvec.trainers import UnigramTrainer
stems, ends = ("low", "new", "wid", "show", "know", "ab", "中文"), ("", "er", "est", "ing", "s", "字")
words = [stem + end for stem in stems for end in ends]
lines = [" ".join(words[(i * 5 + k * 11) % len(words)] for k in range(1 + i % 4)) for i in range(300)]
tokenizer = Tokenizer(None, pre_tokenizer=Metaspace(), decoder=decoders.Metaspace())
tokenizer.train_from_iterator(lines, UnigramTrainer(vocab_size=50), n_jobs=int(sys.argv[1]))
print(tokenizer.to_str())
"""


def test_training_is_identical_across_hash_seeds_and_n_jobs():
    outputs = set()
    for seed, n_jobs in (("0", 1), ("1", 2), ("4242", 2), ("7", 1)):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        run = subprocess.run(
            [sys.executable, "-c", TRAIN_AND_DUMP, str(n_jobs)], env=env, capture_output=True, text=True, check=True
        )
        outputs.add(run.stdout)
    assert len(outputs) == 1
    assert json.loads(outputs.pop())["model"]["type"] == "Unigram"


def test_bad_model_arguments():
    with pytest.raises(TypeError, match=r"vocab\[1\] must be a \(piece, score\) pair, got 'a'"):
        Unigram([("<unk>", 0.0), "a"])
    with pytest.raises(ValueError, match="unk_id 3 is not an id of the vocabulary"):
        Unigram([("a", -1.0)], unk_id=3)
    with pytest.raises(ValueError, match="k must be at least 1"):
        Unigram([("a", -1.0)]).nbest("a", 0)


def test_first_lines_of_a_stream_suffice():
    tokenizer = train(islice(iter(LINES * 3), 80), vocab_size=40)
    assert tokenizer.get_vocab_size() == 40


# ---- the trie of pieces and the seed search, against brute force ----

TRIE_ALPHABET = "ab中\U00020000"  # a character past the root's table too
TRIE_PIECES = st.lists(st.text(TRIE_ALPHABET, max_size=7), max_size=40)  # duplicates, prefixes, ""


@given(pieces=TRIE_PIECES, text=st.text(TRIE_ALPHABET + "x", max_size=20))
def test_lattice_edges_are_every_piece_in_the_text(pieces, text):
    lattice = Lattice([], [])
    lattice.set_pieces(pieces, [-float(k + 1) for k in range(len(pieces))])
    first = {}
    for k, piece in enumerate(pieces):
        first.setdefault(piece, k)
    expected = []
    for start in range(len(text)):
        if text[start] not in first:
            expected.append((start, start + 1, -1, -100.0))
        for end in range(start + 1, len(text) + 1):
            piece = first.get(text[start:end])
            if piece is not None:
                expected.append((start, end, piece, -float(piece + 1)))
    assert lattice.lattice(text, -100.0) == expected
    assert lattice.pieces() == pieces


@given(
    pieces=TRIE_PIECES,
    scores=st.lists(st.floats(-30.0, -0.01), min_size=40, max_size=40),
    text=st.text(TRIE_ALPHABET + "x", max_size=20),
)
def test_a_lattice_segments_alike_whenever_its_rule_is_chosen(pieces, scores, text):
    """A lattice keeps its scores as doubles only under Hugging Face's rule: one given its pieces under
    sentencepiece's rule and configured to Hugging Face's afterwards segments as one configured first,
    and back again as one that never left sentencepiece's."""
    scores = scores[: len(pieces)]
    late, early, plain = Lattice([], []), Lattice([], []), Lattice([], [])
    early.configure(-100.0, -1, b"", 1)
    for lattice in (late, early, plain):
        lattice.set_pieces(pieces, scores)
    late.configure(-100.0, -1, b"", 1)
    assert late.segment(text, -100.0) == early.segment(text, -100.0)
    late.configure(-100.0, -1, b"", 0)
    assert late.segment(text, -100.0) == plain.segment(text, -100.0)


@given(
    pieces=st.lists(st.text(TRIE_ALPHABET, min_size=1, max_size=5), min_size=1, max_size=30, unique=True),
    data=st.data(),
    text=st.text(TRIE_ALPHABET + "x", max_size=20),
    rule=st.sampled_from([0, 1]),
)
def test_retain_keeps_scores_and_rescore_sets_them(pieces, data, text, rule):
    """retain without scores keeps each piece's own, and rescore then gives the lattice that set_pieces
    makes of the kept pieces with the new scores, under either rule."""
    scores = [-float(k + 1) for k in range(len(pieces))]
    keep = data.draw(st.lists(st.integers(0, len(pieces) - 1), unique=True), label="keep")
    new = data.draw(st.lists(st.floats(-30.0, -0.01), min_size=len(keep), max_size=len(keep)), label="new")
    lattice, fresh = Lattice([], []), Lattice([], [])
    for each in (lattice, fresh):
        each.configure(-100.0, -1, b"", rule)
    lattice.set_pieces(pieces, scores)
    lattice.retain(np.array(keep, dtype=np.int64).tobytes())
    assert lattice.pieces() == [pieces[k] for k in keep]
    assert list(np.frombuffer(lattice.scores())) == [scores[k] for k in keep]
    lattice.rescore(np.array(new, dtype=np.float64).tobytes())
    fresh.set_pieces([pieces[k] for k in keep], new)
    assert lattice.scores() == fresh.scores()
    assert lattice.segment(text, -100.0) == fresh.segment(text, -100.0)
    assert lattice.lattice(text, -100.0) == fresh.lattice(text, -100.0)


@given(
    pieces=st.lists(st.text(TRIE_ALPHABET, min_size=1, max_size=5), min_size=1, max_size=30),
    data=st.data(),
    text=st.text(TRIE_ALPHABET + "x", max_size=20),
)
def test_retain_in_order_twice_gives_the_lattice_of_the_kept_pieces(pieces, data, text):
    """A second retain of pieces in ascending order (the trainer's, which reuses the trie's order of the
    pieces instead of sorting them) gives the lattice that set_pieces makes of the kept pieces, the first
    of duplicates included."""
    scores = [-float(k + 1) for k in range(len(pieces))]
    first = sorted(data.draw(st.sets(st.integers(0, len(pieces) - 1)), label="first"))
    second = sorted(data.draw(st.sets(st.integers(0, max(len(first) - 1, 0))), label="second")) if first else []
    lattice, fresh = Lattice([], []), Lattice([], [])
    lattice.set_pieces(pieces, scores)
    for keep in (first, second):
        lattice.retain(np.array(keep, dtype=np.int64).tobytes())
    kept = [first[k] for k in second]
    fresh.set_pieces([pieces[k] for k in kept], [scores[k] for k in kept])
    assert lattice.pieces() == [pieces[k] for k in kept]
    assert lattice.segment(text, -100.0) == fresh.segment(text, -100.0)
    assert lattice.lattice(text, -100.0) == fresh.lattice(text, -100.0)


def test_rescore_needs_one_score_per_piece():
    lattice = Lattice([], [])
    lattice.set_pieces(["a", "b"], [-1.0, -2.0])
    with pytest.raises(ValueError, match="one float64 for each of the 2 pieces, got 8 bytes"):
        lattice.rescore(np.array([-1.0]).tobytes())


def test_retain_reads_indices_in_place_and_checks_them():
    lattice = Lattice([], [])
    lattice.set_pieces(["a", "b", "c"], [-1.0, -2.0, -3.0])
    with pytest.raises(IndexError, match=r"indices\[1\] = 3 is not a piece"):
        lattice.retain(np.array([0, 3], dtype=np.int64))
    with pytest.raises(ValueError, match="indices and scores differ in length"):
        lattice.retain(np.array([0, 1], dtype=np.int64), np.array([-1.0]).tobytes())
    unaligned = np.frombuffer(b"\0" + np.array([2, 0], dtype=np.int64).tobytes(), dtype=np.int64, offset=1)
    assert not unaligned.flags.aligned
    lattice.retain(unaligned)  # an array, not aligned for 8 bytes: read where it lies
    assert lattice.pieces() == ["c", "a"]
    assert list(np.frombuffer(lattice.scores())) == [-3.0, -1.0]


def substring_places(words, max_length):
    """``(places, follow)``: for every substring of 2 to ``max_length`` characters of the words, the
    number of its places (each word of the list once, whatever its count) and the characters that follow
    it there (None where it ends its word)."""
    places, follow = Counter(), {}
    for word in words:
        for i in range(len(word)):
            for j in range(i + 2, min(len(word), i + max_length) + 1):
                places[word[i:j]] += 1
                follow.setdefault(word[i:j], set()).add(word[j] if j < len(word) else None)
    return places, follow


def brute_force_inner_nodes(words, max_length):
    """Every substring that labels an inner node of the suffix tree of the words, each word's end one
    character shared by all (followed by two characters or more there, so at two places or more), scored
    by the number of its places times its length."""
    places, follow = substring_places(words, max_length)
    return {s: places[s] * len(s) for s, after in follow.items() if len(after) > 1}


def brute_force_repeats(words, max_length, valid):
    """Every valid substring that labels an inner node of the generalized suffix tree of the distinct
    words (at two places or more, followed by different characters or ending a word: each word's end a
    character of its own), and every other valid word. Scored by the number of its places times its
    length (each word counted once, whatever its count)."""
    places, follow = substring_places(words, max_length)
    return {
        s: places[s] * len(s)
        for s, after in follow.items()
        if (places[s] > 1 and (len(after) > 1 or None in after) or s in words) and valid(s)
    }


def best_seeds(candidates, n, hugging_face):
    """The ``n`` best candidates: the highest scores first, equal scores by substring (descending under
    Hugging Face's rule, ascending under sentencepiece's)."""
    if hugging_face:
        return sorted(candidates, key=lambda s: (candidates[s], s), reverse=True)[: max(n, 0)]
    return sorted(candidates, key=lambda s: (-candidates[s], s))[: max(n, 0)]


def assert_seeded(lattice, chars, char_counts, candidates, seed_size, hugging_face=False):
    """The lattice holds the characters, then the best candidates (:func:`best_seeds`), each scored as
    the log of its share of all the scores."""
    best = best_seeds(candidates, seed_size - len(chars), hugging_face)
    assert lattice.pieces() == chars + best
    raw = char_counts + [candidates[s] for s in best]
    expected = [math.log(v) - math.log(sum(raw)) for v in raw]
    assert list(np.frombuffer(lattice.scores())) == pytest.approx(expected, abs=1e-12)


HUGGING_FACE_SEEDS, SENTENCEPIECE_SEEDS = 0, 1  # Lattice.seed's rules


@given(
    words=st.lists(st.text("ab中\U00020000", min_size=1, max_size=8), min_size=1, max_size=12),
    counts=st.lists(st.integers(1, 5), min_size=12, max_size=12),
    max_length=st.integers(2, 5),
    seed_size=st.integers(1, 60),
)
def test_hugging_face_seeds_are_the_best_inner_suffix_tree_nodes(words, counts, max_length, seed_size):
    # the counts weigh nothing: each word of the list is one place
    counts = counts[: len(words)]
    chars = sorted({c for word in words for c in word})
    char_counts = [sum(word.count(c) * n for word, n in zip(words, counts)) for c in chars]
    lattice = Lattice(words, counts)
    lattice.seed(chars, char_counts, max_length, {}, -1, seed_size, HUGGING_FACE_SEEDS)
    candidates = brute_force_inner_nodes(words, max_length)
    assert_seeded(lattice, chars, char_counts, candidates, seed_size, hugging_face=True)


@given(
    words=st.lists(st.text("ab中\U00020000", min_size=1, max_size=40), min_size=1, max_size=12, unique=True),
    counts=st.lists(st.integers(1, 400), min_size=12, max_size=12),
    max_length=st.integers(2, 5),
    seed_size=st.integers(1, 200),
    hugging_face=st.booleans(),
    n_threads=st.integers(2, 4),
)
def test_seeds_found_in_threads_are_the_seeds_of_one_thread(
    words, counts, max_length, seed_size, hugging_face, n_threads
):
    # the suffix array is sorted in two halves and merged, its neighbours measured in two threads: the
    # same seeds, in the same order, with the same scores, and the best suffix tree nodes of the rule
    counts = counts[: len(words)]
    chars = sorted({c for word in words for c in word})
    char_counts = [sum(word.count(c) * n for word, n in zip(words, counts)) for c in chars]
    rule = HUGGING_FACE_SEEDS if hugging_face else SENTENCEPIECE_SEEDS
    one, many = Lattice(words, counts), Lattice(words, counts)
    one.seed(chars, char_counts, max_length, {}, -1, seed_size, rule)
    many.seed(chars, char_counts, max_length, {}, -1, seed_size, rule, n_threads)
    assert many.pieces() == one.pieces() and many.scores() == one.scores()
    if hugging_face:
        candidates = brute_force_inner_nodes(words, max_length)
    else:
        candidates = brute_force_repeats(words, max_length, lambda piece: True)
    assert many.pieces() == chars + best_seeds(candidates, seed_size - len(chars), hugging_face)


@given(
    words=st.lists(st.text("ab▁中1", min_size=1, max_size=10), min_size=1, max_size=12, unique=True),
    counts=st.lists(st.integers(1, 400), min_size=12, max_size=12),
    max_length=st.integers(2, 6),
    seed_size=st.integers(1, 200),
    n_threads=st.integers(1, 3),
)
def test_sentencepiece_seeds_are_the_best_repeats(words, counts, max_length, seed_size, n_threads):
    # the seeds of sentencepiece's training: the counts weigh nothing, a piece holds "▁" (the prefix
    # character) first only and never mixes classes (Han 1, digits 2, the rest with any)
    counts = counts[: len(words)]
    classes = {ord("中"): 1, ord("1"): 2}

    def valid(piece):
        kinds = {classes[ord(c)] for c in piece if ord(c) in classes}
        return "▁" not in piece[1:] and len(kinds) <= 1

    chars = sorted({c for word in words for c in word})
    char_counts = [sum(word.count(c) * n for word, n in zip(words, counts)) for c in chars]
    lattice = Lattice(words, counts)
    lattice.seed(chars, char_counts, max_length, classes, ord("▁"), seed_size, SENTENCEPIECE_SEEDS, n_threads)
    assert_seeded(lattice, chars, char_counts, brute_force_repeats(words, max_length, valid), seed_size)


@pytest.mark.parametrize("rule", [2, -1])
def test_an_unknown_seed_rule_is_refused(rule):
    with pytest.raises(ValueError, match=rf"rule must be 0 \(Hugging Face\) or 1 \(sentencepiece\), got {rule}"):
        Lattice(["ab"], [1]).seed(["a", "b"], [1, 1], 4, {}, -1, 10, rule)


class SeedRecorder:
    """A Lattice that remembers the pieces it was seeded with."""

    def __init__(self, words, counts):
        self.lattice = Lattice(words, counts)

    def __getattr__(self, name):
        return getattr(self.lattice, name)

    def seed(self, *args):
        n = self.lattice.seed(*args)
        self.seeds = self.lattice.pieces()
        SeedRecorder.last = self
        return n


@given(
    words=st.lists(st.text("abc▁", min_size=1, max_size=10).map("▁".__add__), min_size=1, max_size=12, unique=True),
    counts=st.lists(st.integers(1, 50), min_size=12, max_size=12),
)
def test_sentencepiece_training_seeds_with_each_distinct_word_once(words, counts):
    # the sentencepiece algorithm's seeds: every character, then the repeats of the distinct words
    import kvec.trainers.unigram as unigram_trainer

    counts = counts[: len(words)]
    trainer = UnigramTrainer(vocab_size=60, algorithm="sentencepiece", show_progress=False, max_piece_length=5)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(unigram_trainer, "Lattice", SeedRecorder)
        trainer.train_from_counts(dict(zip(words, counts)))
    seeds = SeedRecorder.last.seeds
    chars = {c for word in words for c in word}
    repeats = brute_force_repeats(words, 5, lambda piece: "▁" not in piece[1:])
    assert sorted(seeds[: len(chars)]) == sorted(chars)
    assert sorted(seeds[len(chars) :]) == sorted(repeats)


def _organ_pipe(items):
    return items[::2] + items[1::2][::-1]


@pytest.mark.parametrize(
    "arrange", [sorted, lambda p: sorted(p, reverse=True), lambda p: _organ_pipe(sorted(p)), lambda p: p]
)
def test_the_trie_sorts_pieces_in_any_order_they_come_in(arrange):
    # the vocabulary's trie sorts its pieces (quicksort, heapsort past a depth bound, so no order of a
    # crafted description makes it quadratic): every arrangement of the same scored pieces segments alike
    rng = np.random.default_rng(7)
    pieces = sorted({"".join(rng.choice(list("ab▁"), size=rng.integers(1, 9))) for _ in range(3000)})
    scored = {piece: -1.5 * len(piece) + 0.1 * (i % 5) for i, piece in enumerate(pieces)}
    words = ["".join(rng.choice(list("ab▁"), size=rng.integers(1, 30))) for _ in range(200)]
    reference = Unigram([("<unk>", 0.0), *sorted(scored.items())], unk_id=0)
    model = Unigram([("<unk>", 0.0), *[(p, scored[p]) for p in arrange(pieces)]], unk_id=0)
    assert [model.tokenize(w) for w in words] == [reference.tokenize(w) for w in words]
