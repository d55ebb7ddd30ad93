"""``kvec train``'s alphabet options: ``--limit-alphabet`` and ``--character-coverage`` keep a corpus of
English and many rare CJK characters from spending the vocabulary on single characters."""

import json
from collections import Counter

import pytest

from kvec import cli
from tests.support import TEXTS

RARE = [chr(0x4E00 + i) for i in range(3000)]  # each once in the corpus


def kvec(capsys, *args, expect=0):
    """Run ``kvec ARGS`` in this process; its standard error, after checking the exit status."""
    try:
        status = cli.main([str(a) for a in args])
    except SystemExit as e:  # argparse's usage errors
        status = e.code
    err = capsys.readouterr().err
    assert status == expect, err
    return err


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """English lines, then lines of 10 distinct CJK characters, 3,000 of them in all."""
    path = tmp_path_factory.mktemp("corpus") / "mixed.txt"
    lines = list(TEXTS) + ["".join(RARE[i : i + 10]) for i in range(0, len(RARE), 10)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def single_characters(path):
    """The tokens of one character in a trained kvec tokenizer file."""
    vocab = json.loads(path.read_text(encoding="utf-8"))["model"]["config"]["vocab"]
    tokens = vocab if isinstance(vocab, dict) else [piece for piece, _ in vocab]
    return {token for token in tokens if len(token) == 1}


def most_frequent_covering(path, coverage):
    """The characters a BPE alphabet keeps at ``coverage``: the fewest most frequent characters whose
    occurrences (whitespace aside: the pre-tokenizer drops it) make up that share of all."""
    counts = Counter(c for c in path.read_text(encoding="utf-8") if not c.isspace())
    ranked = counts.most_common()
    covered, total = 0, sum(counts.values())
    for kept, (_, count) in enumerate(ranked, start=1):
        covered += count
        if covered >= coverage * total:
            return counts, ranked[:kept]
    return counts, ranked


def test_without_options_every_rare_character_is_a_token(mixed, tmp_path, capsys):
    tok = tmp_path / "tok.json"
    kvec(capsys, "train", "--model", "bpe", "--vocab-size", 4000, "--quiet", mixed, "-o", tok)
    assert set(RARE) <= single_characters(tok)


def test_limit_alphabet_keeps_the_most_frequent_characters(mixed, tmp_path, capsys):
    tok = tmp_path / "tok.json"
    kvec(capsys, "train", "--model", "bpe", "--vocab-size", 4000, "--limit-alphabet", 200, "--quiet", mixed, "-o", tok)
    kept = single_characters(tok)
    counts, _ = most_frequent_covering(mixed, 1.0)
    assert len(kept) == 200
    threshold = sorted(counts.values(), reverse=True)[199]
    assert {c for c, n in counts.items() if n > threshold} <= kept  # the more frequent all stay


@pytest.mark.parametrize("coverage", [0.95, 0.99])
def test_character_coverage_limits_the_bpe_alphabet(coverage, mixed, tmp_path, capsys):
    tok = tmp_path / "tok.json"
    kvec(
        capsys,
        "train",
        "--model",
        "bpe",
        "--vocab-size",
        4000,
        "--character-coverage",
        coverage,
        "--quiet",
        mixed,
        "-o",
        tok,
    )
    kept = single_characters(tok)
    counts, covering = most_frequent_covering(mixed, coverage)
    assert len(kept) == len(covering) < len(counts)
    threshold = covering[-1][1]
    assert {c for c, n in counts.items() if n > threshold} <= kept
    assert sum(counts[c] for c in kept) >= coverage * sum(counts.values())


def test_wordpiece_limit_alphabet_drops_rare_characters(mixed, tmp_path, capsys):
    tok = tmp_path / "tok.json"
    kvec(
        capsys,
        "train",
        "--model",
        "wordpiece",
        "--vocab-size",
        4000,
        "--limit-alphabet",
        150,
        "--quiet",
        mixed,
        "-o",
        tok,
    )
    kept = single_characters(tok)
    assert len(kept) <= 150 and set("etaoinsr") <= kept  # the most frequent letters stay


def test_unigram_character_coverage_spells_rare_characters_with_bytes(mixed, tmp_path, capsys):
    full, default, low = tmp_path / "full.json", tmp_path / "default.json", tmp_path / "low.json"
    train = ["train", "--model", "unigram", "--vocab-size", 4000, "--quiet", mixed]
    kvec(capsys, *train, "--character-coverage", 1, "-o", full)
    kvec(capsys, *train, "-o", default)  # sentencepiece's 0.9995
    kvec(capsys, *train, "--character-coverage", 0.9, "-o", low)
    assert set(RARE) <= single_characters(full)
    # at 0.9995 the rarest 0.05% of occurrences (about 20 of the 3,000 rare characters) go
    assert 0 < len(set(RARE) - single_characters(default)) < 100
    assert not set(RARE) & single_characters(low)


@pytest.mark.parametrize(
    "model, options, message",
    [
        ("bpe", ["--limit-alphabet", "-3"], "argument --limit-alphabet: must be an integer >= 0, got -3"),
        (
            "unigram",
            ["--character-coverage", "1.5"],
            "argument --character-coverage: must be a number in (0, 1], got 1.5",
        ),
        ("bpe", ["--character-coverage", "0"], "argument --character-coverage: must be a number in (0, 1], got 0"),
        (
            "bpe",
            ["--character-coverage", "-0.5"],
            "argument --character-coverage: must be a number in (0, 1], got -0.5",
        ),
        ("bpe", ["--character-coverage", "nan"], "argument --character-coverage: must be a number in (0, 1], got nan"),
        (
            "wordpiece",
            ["--character-coverage", "most"],
            "argument --character-coverage: expected a number in (0, 1], got 'most'",
        ),
        (
            "bpe",
            ["--limit-alphabet", "9", "--character-coverage", "0.9"],
            "give --limit-alphabet or --character-coverage, not both",
        ),
        ("unigram", ["--limit-alphabet", "9"], "--limit-alphabet applies to --model bpe and wordpiece"),
        ("unigram", ["--min-frequency", "2"], "--min-frequency applies to --model bpe, bytelevel-bpe and wordpiece"),
        (
            "bytelevel-bpe",
            ["--character-coverage", "0.9"],
            "--character-coverage does not apply to --model bytelevel-bpe",
        ),
    ],
)
def test_bad_alphabet_options_are_usage_errors(model, options, message, mixed, tmp_path, capsys):
    tok = tmp_path / "tok.json"
    err = kvec(capsys, "train", "--model", model, "--vocab-size", 500, *options, mixed, "-o", tok, expect=2)
    assert f"kvec train: error: {message}" in err and not tok.exists()
