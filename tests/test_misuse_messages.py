"""Every misuse the documentation lists raises the documented error.

The table of ``docs/errors.md`` is the specification: each row gives a call and the error it raises
(``Type: text``). This test reads the table, runs each call, and checks the exception (or warning) type
and that its message contains the text.
"""

import os
import re
import warnings

import pytest

import kvec
from kvec.chinese import Jieba
from kvec.errors import FormatError, NotLocalError
from kvec.interop import load_tokenizer_json
from kvec.interop.huggingface import from_tokenizer_json_str
from kvec.models import Unigram, WordPiece
from kvec.pipeline import Pipeline
from kvec.presets import keras_subword
from kvec.pretokenizers import Metaspace, Whitespace
from kvec.trainers import BpeTrainer, UnigramTrainer, WordPieceTrainer

ERRORS_PAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "errors.md")
MARKER = "<!-- misuse table: tests/test_misuse_messages.py runs every row -->"


def code_span(cell):
    """The text of a Markdown code span: ``...`` (which may hold single backticks) or `...`."""
    cell = cell.strip()
    match = re.fullmatch(r"``\s?(.*?)\s?``|`(.*)`", cell)
    assert match, f"not a code span: {cell!r}"
    return match.group(1) if match.group(1) is not None else match.group(2)


def documented_misuses():
    with open(ERRORS_PAGE, encoding="utf-8") as f:
        text = f.read()
    assert MARKER in text, "docs/errors.md lost its misuse table"
    rows = []
    for line in text.split(MARKER, 1)[1].strip().splitlines()[2:]:
        if not line.startswith("|"):
            break
        # cells are split on " | " so that a "|" inside a code span would stay whole
        misuse, call, error = (cell.strip() for cell in line.strip().strip("|").split(" | "))
        kind, _, message = code_span(error).partition(": ")
        rows.append(pytest.param(code_span(call), kind, message, id=misuse))
    return rows


MISUSES = documented_misuses()


@pytest.fixture(scope="module")
def namespace(tmp_path_factory):
    broken = tmp_path_factory.mktemp("misuse") / "broken.json"
    broken.write_text('{"kvec_format": 1, "model": ', encoding="utf-8")
    fitted = kvec.Tokenizer()
    fitted.fit_on_texts(["a b"])
    trained = Pipeline(None, pre_tokenizer=Whitespace())
    trained.train_from_iterator(["a b"], BpeTrainer(vocab_size=5))
    names = dict(
        kvec=kvec,
        Pipeline=Pipeline,
        BpeTrainer=BpeTrainer,
        WordPieceTrainer=WordPieceTrainer,
        UnigramTrainer=UnigramTrainer,
        Jieba=Jieba,
        Metaspace=Metaspace,
        Whitespace=Whitespace,
        keras_subword=keras_subword,
        load_tokenizer_json=load_tokenizer_json,
        from_tokenizer_json_str=from_tokenizer_json_str,
        WordPiece=WordPiece,
        Unigram=Unigram,
        fitted=fitted,
        trained=trained,
        broken=str(broken),
    )
    return names


def test_the_table_covers_the_issue_list():
    kinds = {param.values[1] for param in MISUSES}
    assert {"TypeError", "ValueError", "FormatError", "UserWarning"} <= kinds
    assert len(MISUSES) >= 25


@pytest.mark.parametrize("call, kind, message", MISUSES)
def test_a_documented_misuse_raises_the_documented_error(namespace, call, kind, message):
    if "TextVectorization" in call:
        pytest.importorskip("tensorflow")
        from kvec.layers import TextVectorization

        namespace = {**namespace, "TextVectorization": TextVectorization}
    expected = {
        "TypeError": TypeError,
        "ValueError": ValueError,
        "FormatError": FormatError,
        "NotLocalError": NotLocalError,
        "UserWarning": UserWarning,
    }[kind]
    if expected is UserWarning:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            eval(call, namespace)
        assert [w for w in caught if w.category is UserWarning and message in str(w.message)], [
            str(w.message) for w in caught
        ]
        return
    with pytest.raises(expected) as raised:
        eval(call, namespace)
    assert type(raised.value) is expected
    assert message in str(raised.value)
