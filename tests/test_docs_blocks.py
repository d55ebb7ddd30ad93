"""Every Python block of README.md, CONTRIBUTING.md and docs/*.md runs as written.

Each ```python block runs alone in a fresh interpreter, in an empty temporary folder, with the suite's
environment: a block that uses a name it does not define or import fails, and a block that needs a file
writes it first. A block whose first line is ``# requires: keras, tensorflow`` (names from
``REQUIREMENTS``) is skipped, saying so, where one of them is missing. A block whose first line is
``# not run: <reason>`` is not run; at most ``MAX_NOT_RUN`` of them may exist. Blocks in other
languages (sh, diff, plain text) are not run.
"""

import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
MAX_NOT_RUN = 3

# What a block may require, and how to tell it is there.
REQUIREMENTS = {
    "keras": lambda: importlib.util.find_spec("keras") is not None,
    "tensorflow": lambda: importlib.util.find_spec("tensorflow") is not None,
    "jax": lambda: importlib.util.find_spec("jax") is not None,
    "torch": lambda: importlib.util.find_spec("torch") is not None,
    "pyspark": lambda: importlib.util.find_spec("pyspark") is not None,
    "java": lambda: shutil.which("java") is not None,  # Spark's runtime
    "matplotlib": lambda: importlib.util.find_spec("matplotlib") is not None,
    "pyarrow": lambda: importlib.util.find_spec("pyarrow") is not None,
    "transformers": lambda: importlib.util.find_spec("transformers") is not None,
}

# The extra (pyproject.toml) that installs each requirement, named when a block skips.
REQUIREMENT_EXTRA = {
    "keras": "keras",
    "tensorflow": "keras",
    "jax": "jax",
    "torch": "torch",
    "pyspark": "spark",
    "matplotlib": "cli",
    "pyarrow": "spark",
}

FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)")


def code_blocks(path):
    """``(first line number, language, code)`` of each fenced block of a Markdown file."""
    blocks, lines = [], path.read_text(encoding="utf-8").split("\n")
    number = 0
    while number < len(lines):
        opening = FENCE.match(lines[number])
        if not opening:
            number += 1
            continue
        fence, language = opening.groups()
        end = next(
            (i for i in range(number + 1, len(lines)) if lines[i].strip().startswith(fence[0] * len(fence))),
            None,
        )
        assert end is not None, f"{path.name}:{number + 1}: a code block that never closes"
        blocks.append((number + 1, language.lower(), "\n".join(lines[number + 1 : end]) + "\n"))
        number = end + 1
    return blocks


def python_blocks():
    found = []
    for page in PAGES:
        for line, language, code in code_blocks(page):
            if language in ("python", "py", "python3", "pycon"):
                found.append(pytest.param(page, line, language, code, id=f"{page.name}:{line}"))
    return found


BLOCKS = python_blocks()


def first_line_setting(code, key):
    """The value of a ``# key: value`` first line, or None."""
    match = re.fullmatch(rf"#\s*{key}:\s*(.*)", code.split("\n", 1)[0].strip())
    return match.group(1).strip() if match else None


def test_the_pages_have_python_blocks_and_few_that_do_not_run():
    assert len(PAGES) >= 2, "docs/ is missing"
    pages = {param.values[0].name for param in BLOCKS}
    assert "README.md" in pages
    assert len(BLOCKS) >= 10
    not_run = [param.id for param in BLOCKS if first_line_setting(param.values[3], "not run") is not None]
    assert len(not_run) <= MAX_NOT_RUN, f"too many blocks marked '# not run': {not_run}"


def test_the_readme_quick_starts_run_and_the_page_is_short():
    readme = ROOT / "README.md"
    assert len(readme.read_text(encoding="utf-8").split("\n")) <= 150
    quick_starts = [line for line, language, _ in code_blocks(readme) if language == "python"]
    assert len(quick_starts) == 3, quick_starts


def test_the_readme_setup_installs_what_the_layer_quick_start_requires():
    """The README's set-up gives the line that makes its third quick start run in make's venv."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 on
    readme = ROOT / "README.md"
    venv = re.search(r"^VENV\s*:=\s*(\S+)", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M).group(1)
    install = re.compile(rf"{re.escape(venv)}/bin/pip install -e '\.\[([\w,]+)\]'")
    shell_lines = [
        line.strip() for _, language, code in code_blocks(readme) if language == "sh" for line in code.split("\n")
    ]
    installed_extras = [match.group(1).split(",") for line in shell_lines if (match := install.fullmatch(line))]
    assert installed_extras, f"README.md's set-up gives no quoted {venv}/bin/pip install -e '.[extra]' line"
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    packages = {
        re.split(r"[<>=!~;\[ ]", requirement)[0] for extra in installed_extras[0] for requirement in declared[extra]
    }
    layer_quick_start = [code for _, language, code in code_blocks(readme) if language == "python"][2]
    required = [name for name in re.split(r"[,\s]+", first_line_setting(layer_quick_start, "requires") or "") if name]
    assert required == ["keras", "jax"]  # the quick start runs on JAX, without TensorFlow
    assert set(required) <= packages, (required, packages)
    assert all(name in packages for name in required)


def test_the_block_reader_finds_blocks_and_their_languages(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("text\n```python\nx = 1\n```\n\n````sh\n```\nls\n````\n```\nplain\n```\n", encoding="utf-8")
    assert code_blocks(page) == [(2, "python", "x = 1\n"), (6, "sh", "```\nls\n"), (10, "", "plain\n")]


@pytest.mark.parametrize("page, line, language, code", BLOCKS)
def test_a_python_block_runs_as_written(page, line, language, code, tmp_path):
    where = f"{page.relative_to(ROOT)}:{line}"
    assert language == "python", f"{where}: write ```python, not ```{language}"
    if first_line_setting(code, "not run") is not None:
        assert first_line_setting(code, "not run"), f"{where}: '# not run:' needs a reason"
        pytest.skip(f"{where} is marked: {first_line_setting(code, 'not run')}")
    required = first_line_setting(code, "requires")
    for name in re.split(r"[,\s]+", required or ""):
        if not name:
            continue
        assert name in REQUIREMENTS, f"{where}: unknown requirement {name!r}; known: {sorted(REQUIREMENTS)}"
        if not REQUIREMENTS[name]():
            extra = REQUIREMENT_EXTRA.get(name)
            hint = f": pip install 'kvec[{extra}]'" if extra else ""
            pytest.skip(f"{where} requires {name}, which is not installed{hint}")
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    folder = tmp_path / "cwd"
    folder.mkdir()
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "MPLBACKEND": "Agg"}
    run = subprocess.run(
        [sys.executable, str(script)], cwd=folder, env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, f"{where} failed:\n{run.stderr[-4000:]}"
