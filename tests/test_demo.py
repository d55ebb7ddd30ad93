"""`make demo` must print what seed article 000 prints for its Keras Tokenizer examples."""

import ast
import pathlib
import subprocess
import sys

from tests.support import load_demo

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXPECTED = (ROOT / "tests" / "data" / "seed000_expected.txt").read_text(encoding="utf-8")


def _section(name):
    lines = EXPECTED.split("\n")
    start = lines.index(f"[{name}]") + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("[")), len(lines))
    return [line for line in lines[start:end] if line]


def _printed_dict(lines, label_prefix):
    """The dict printed on the line after the label, with the defaultdict wrapper removed."""
    i = next(k for k, line in enumerate(lines) if line.startswith(label_prefix))
    text = lines[i + 1].strip()
    text = text.removeprefix("defaultdict(<class 'int'>, ").removesuffix(")")
    return ast.literal_eval(text)


def test_demo_prints_the_seed_outputs():
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo.py")], capture_output=True, text=True, check=True
    )
    printed = [line for line in run.stdout.split("\n") if line]
    english, chinese = _section("english"), _section("chinese")
    # Every line the demo prints is the seed's line, in the seed's order (word_docs/index_docs aside).
    expected = [line for line in english + chinese if "word_docs" not in line and "index_docs" not in line]
    expected = [line for line in expected if not line.startswith(" defaultdict")]
    assert printed == expected


def test_word_docs_and_index_docs_match_the_seed():
    demo = load_demo()
    from kvec import Tokenizer

    for section, texts, filters in (
        ("english", demo.ENGLISH, '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'),
        ("chinese", [demo.cut_text(t) for t in demo.CHINESE], '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n,。'),
    ):
        lines = _section(section)
        tok = Tokenizer(num_words=64, filters=filters)
        tok.fit_on_texts(texts)
        assert dict(tok.word_docs) == _printed_dict(lines, "出现")
        assert dict(tok.index_docs) == _printed_dict(lines, next(x for x in lines if "index_docs" in x)[:6])


def test_chinese_and_subword_example_runs():
    # it asserts that both ways of segmenting give the same index and sequences
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "chinese_and_subwords.py")], capture_output=True, text=True, check=True
    )
    assert "back to text: ['journeys of memories never end']" in run.stdout
