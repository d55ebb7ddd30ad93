"""The package's structure: imports flow one way, every module imports alone and in any order.

The import graph is read from the source with ``ast`` (module-level imports only: what runs when a
module is imported). Layers, from the bottom: the native extensions, leaf helpers and the stage
contracts, the stages, the pipeline, the presets, the Keras API, and the entry points on top. A module
may import its own layer or a lower one, never a higher one, so no cycle can form.
"""

import ast
import importlib.util
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "kvec"

# The layers, from the bottom, each a name and the paths (relative to kvec/) of its folders ("name/") and
# files; a module belongs to the layer of the longest path that holds it. docs/layout.md shows this table.
LAYERS = {
    0: ("native", ["_keras", "_subword", "_unigram", "_encoder", "_jieba", "_spec"]),
    1: (
        "leaves",
        [
            "unicode/",
            "files/",
            "common/",
            "errors.py",
            "encoding.py",
            "vocab_reading.py",
        ],
    ),
    2: ("contracts", ["contracts.py"]),
    3: (
        "stages",
        [
            "models/",
            "trainers/",
            "decoders/",
            "normalizers.py",
            "pre_tokenizers.py",
            "pretokenizers.py",
            "processors.py",
            "chinese.py",
            "added_vocabulary.py",
            "transformers_calls.py",
            "custom_stages.py",
            "files/serialization.py",
        ],
    ),
    4: ("pipeline", ["pipeline.py"]),
    5: ("presets", ["presets.py"]),
    6: ("Keras API and data", ["data/", "batching.py", "shards.py", "text.py", "sequence.py", "native_spec.py"]),
    7: ("entry points", ["__init__.py", "cli.py", "jieba.py", "interop/", "spark/", "layers/"]),
}
# optional dependencies: a module that needs one is imported only where it is installed
NEEDS = {"kvec.layers": ("keras", "tensorflow"), "kvec.spark": ("pyspark",)}
LAYOUT_DOC = PACKAGE.parent / "docs" / "layout.md"


def module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
NATIVE = {f"kvec.{p.name.split('.')[0]}" for p in PACKAGE.glob("_*.so")} | {f"kvec.{name}" for name in LAYERS[0][1]}


def module_path(module):
    """A module's path relative to kvec/: ``kvec.data.shards`` is ``data/shards.py``, the package
    ``kvec.spark`` ``spark/__init__.py``, the extension ``kvec._keras`` ``_keras``."""
    if module in NATIVE:
        return module.split(".", 1)[1]
    path = MODULES[module].relative_to(PACKAGE)
    return path.as_posix()


def layer_of(module):
    path = module_path(module)
    holding = [
        (len(prefix), layer)
        for layer, (_, prefixes) in LAYERS.items()
        for prefix in prefixes
        if path == prefix or (prefix.endswith("/") and path.startswith(prefix))
    ]
    if not holding:
        raise AssertionError(f"{module} ({path}) is in no layer: add it to LAYERS in {__file__}")
    return max(holding)[1]


def is_type_checking(node):
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def module_level_imports(tree):
    """Import statements that run when the module is imported (not in functions, not TYPE_CHECKING)."""
    found, stack = [], list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) or is_type_checking(node):
            continue
        else:
            stack.extend(ast.iter_child_nodes(node))
    return found


def targets(node, module):
    """The kvec modules one import statement loads."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        assert not node.level, f"{module}: kvec uses absolute imports"
        base = node.module or ""
        # "from kvec import x" loads the submodule kvec.x if there is one, else takes a name of kvec
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
    ancestors = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 1)}
    loaded = set()
    for name in names:
        if name.split(".")[0] != "kvec":
            continue
        loaded.add(name)
        parts = name.split(".")  # importing kvec.a.b runs the package kvec.a first
        loaded.update(".".join(parts[:i]) for i in range(2, len(parts)) if ".".join(parts[:i]) not in ancestors)
    return loaded - {module}


def import_graph():
    graph = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        graph[module] = set()
        for node in module_level_imports(tree):
            graph[module] |= targets(node, module)
    return graph


def test_every_import_goes_to_the_same_layer_or_a_lower_one():
    upward = [
        f"{module} (layer {layer_of(module)}) imports {target} (layer {layer_of(target)})"
        for module, imported in sorted(import_graph().items())
        for target in sorted(imported)
        if layer_of(target) > layer_of(module)
    ]
    assert upward == []


def find_cycle(graph):
    """One import cycle as a list of modules, or None."""
    state, path = {}, []

    def visit(module):
        state[module] = "open"
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                return path[path.index(target) :] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        state[module] = "done"
        path.pop()
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module)
            if cycle:
                return cycle
    return None


def test_there_is_no_import_cycle():
    assert find_cycle(import_graph()) is None


def test_the_cycle_finder_finds_a_cycle():
    graph = {"kvec.a": {"kvec.b"}, "kvec.b": {"kvec.c"}, "kvec.c": {"kvec.a"}, "kvec.d": set()}
    assert find_cycle(graph) == ["kvec.a", "kvec.b", "kvec.c", "kvec.a"]
    assert find_cycle({"kvec.a": {"kvec.b"}, "kvec.b": set()}) is None


def test_kvec_modules_are_imported_at_the_top_of_modules_only():
    """Function-local imports are for optional dependencies (TensorFlow, pyspark...), not for kvec's
    own modules: a hidden import of a kvec module would hide a cycle."""
    hidden = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "kvec" for a in node.names):
                    hidden.append(f"{module}.{function.name}:{node.lineno}")
                if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] == "kvec"):
                    hidden.append(f"{module}.{function.name}:{node.lineno}")
    assert hidden == []


def importable(module):
    needs = next((deps for prefix, deps in NEEDS.items() if module.startswith(prefix)), ())
    return all(importlib.util.find_spec(dep) is not None for dep in needs)


def python(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_each_module_imports_alone_in_a_fresh_interpreter(module):
    if not importable(module):
        pytest.skip(f"{module} needs {NEEDS}")
    result = python(f"import {module}")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_all_modules_import_in_any_order(seed):
    order = sorted(m for m in MODULES if importable(m)) + sorted(NATIVE)
    random.Random(seed).shuffle(order)
    result = python("import importlib\n" + "".join(f"importlib.import_module({m!r})\n" for m in order))
    assert result.returncode == 0, f"order {order}: {result.stderr}"


# ---- C bindings are parse-and-call ------------------------------------------------------------------

CSRC = PACKAGE.parent / "csrc"
# kvec's C style opens a function body with "{" alone at column 0, the line naming the function above it
C_FUNCTION_NAME = re.compile(r"^(?:[A-Za-z_][\w \*]*?[\s\*])?([A-Za-z_]\w*)\s*\(")
PARSES_ARGUMENTS = re.compile(r"\bPyArg_(?:Parse\w*|UnpackTuple)\s*\(")
LOOPS = re.compile(r"\b(?:for|while)\s*\(")
# Files that still parse and loop in one function, each with the reason; the list empties as they change
MIXING_ALLOWED: dict[str, str] = {}


def c_functions(path):
    """``(name, first line, body)`` of each function defined in a C file."""
    lines = path.read_text(encoding="utf-8").split("\n")
    for i, line in enumerate(lines):
        if line.rstrip() != "{":
            continue
        j = i - 1
        while j >= 0 and not C_FUNCTION_NAME.match(lines[j]):
            j -= 1
        end = next(k for k in range(i + 1, len(lines)) if lines[k].rstrip() == "}")
        body = re.sub(r"/\*.*?\*/", "", "\n".join(lines[i : end + 1]), flags=re.S)
        yield C_FUNCTION_NAME.match(lines[j]).group(1), j + 1, body


def mixing_functions(folder):
    """The C functions that both parse Python arguments and loop (over text, ids or anything else)."""
    found = []
    for path in sorted(folder.rglob("*.c")):
        for name, line, body in c_functions(path):
            if PARSES_ARGUMENTS.search(body) and LOOPS.search(body):
                found.append(f"{path.relative_to(folder.parent).as_posix()}:{line} {name}")
    return found


def test_c_bindings_parse_their_arguments_and_call_loops_elsewhere():
    mixing = [entry for entry in mixing_functions(CSRC) if entry.split(":")[0] not in MIXING_ALLOWED]
    assert mixing == []


def test_the_binding_check_finds_a_function_that_parses_and_loops(tmp_path):
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "mixed.c").write_text(
        "static PyObject *\nsum_ids(PyObject *self, PyObject *args)\n{\n"
        '    PyObject *ids;\n    if (!PyArg_ParseTuple(args, "O", &ids)) return NULL;\n'
        "    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(ids); i++) total += i;\n    return NULL;\n}\n"
        "static int\nparse_only(PyObject *args)\n{\n"
        '    return PyArg_ParseTuple(args, "i", &n); /* for (each) in a comment is no loop */\n}\n'
    )
    assert mixing_functions(tmp_path / "csrc") == ["csrc/mixed.c:2 sum_ids"]


def test_every_file_the_binding_check_allows_exists_and_still_mixes():
    mixing_files = {entry.split(":")[0] for entry in mixing_functions(CSRC)}
    assert sorted(set(MIXING_ALLOWED) - mixing_files) == []


# ---- docs/layout.md shows the layers ------------------------------------------------------------------


def layout_rows():
    """``{layer name: the cell of its modules}`` of docs/layout.md's table of layers."""
    rows = {}
    for line in LAYOUT_DOC.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] in {name for name, _ in LAYERS.values()}:
            rows[cells[0]] = cells[1]
    return rows


def test_the_layout_page_has_the_layer_table_of_this_file():
    rows = layout_rows()
    assert list(rows) == [name for name, _ in reversed(LAYERS.values())]  # from the top, as the page reads
    for name, prefixes in LAYERS.values():
        assert set(re.findall(r"`kvec/([^`]+)`", rows[name])) == set(prefixes), name


def folder_blocks(text):
    """``{"kvec/folder/": its entry}`` of the page's tree: a line starting with the folder, and the
    indented lines under it."""
    blocks, current = {}, None
    for line in text.splitlines():
        if line.startswith("kvec/"):
            current = line.split()[0]
            blocks[current] = line[len(current) :]
        elif current and line.startswith(" "):
            blocks[current] += " " + line
        else:
            current = None
    return blocks


def test_the_layout_page_names_every_module():
    text = LAYOUT_DOC.read_text(encoding="utf-8")
    blocks = folder_blocks(text)
    missing = []
    for module in sorted(MODULES):
        folder, _, name = f"kvec/{module_path(module)}".rpartition("/")
        if folder == "kvec":
            named = f"`kvec/{name}`" in text
        else:
            named = re.search(rf"(?<![\w/]){re.escape(name)}\b", blocks.get(folder + "/", "")) is not None
        if not named:
            missing.append(module_path(module))
    assert missing == []


def test_the_layout_check_finds_a_module_the_page_leaves_out(monkeypatch, tmp_path):
    page = tmp_path / "layout.md"
    page.write_text(LAYOUT_DOC.read_text(encoding="utf-8").replace("counting.py, encoding.py,", "encoding.py,"))
    monkeypatch.setattr(sys.modules[__name__], "LAYOUT_DOC", page)
    with pytest.raises(AssertionError, match="spark/counting.py"):
        test_the_layout_page_names_every_module()


# ---- moved modules keep their documented import paths ------------------------------------------------

# the documented paths of modules that moved into folders, each a module of its own that is the moved one
MOVED = {
    "kvec.batching": "kvec.data.batching",
    "kvec.pretokenizers": "kvec.pre_tokenizers",
    "kvec.shards": "kvec.data.shards",
    "kvec.vocab_reading": "kvec.files.vocab_reading",
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_a_moved_module_imports_under_its_old_path_as_the_same_module(old):
    new = MOVED[old]
    check = f"import importlib\nold = importlib.import_module({old!r})\n"
    check += f"assert old is importlib.import_module({new!r}) and old.__spec__.name == {new!r}\n"
    result = python(check)
    assert result.returncode == 0, result.stderr
