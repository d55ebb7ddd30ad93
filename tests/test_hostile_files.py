"""Hostile files: what kvec saves over, what it loads, and the shards it reads.

Each case runs in a fresh interpreter under a timeout (and a memory limit where memory is the point),
so a load that blocks on a FIFO or reads a 2 GB file whole fails the test instead of hanging or
exhausting the machine. Each asserts the error, its wording, and that the file is left as it was.
"""

import ast
import importlib.util
import os
import socket
import stat

import pytest

from tests.support import run_bounded

# ---- saves replace regular files only --------------------------------------------------------------

SAVE_CALLS = {
    "atomic_write": "from kvec.files.atomic import atomic_write\nwith atomic_write(args[0]) as f:\n    f.write('new')",
    "Tokenizer.save": (
        "from kvec.models import WordPiece\nfrom kvec.pipeline import Tokenizer\n"
        "Tokenizer(WordPiece({'[UNK]': 0, 'a': 1})).save(args[0])"
    ),
    "save_tokenizer_json": (
        "from kvec.models import WordPiece\nfrom kvec.pipeline import Tokenizer\n"
        "from kvec.interop import save_tokenizer_json\n"
        "save_tokenizer_json(Tokenizer(WordPiece({'[UNK]': 0, 'a': 1})), args[0])"
    ),
}


def make_special(kind, path):
    """A FIFO, a socket or a character device (the null device's numbers) at ``path``; the open
    socket, to close after the test."""
    if kind == "FIFO":
        os.mkfifo(path)
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        return server
    else:
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("creating a device node needs CAP_MKNOD")
    return None


KIND_WORDS = {"FIFO": "a FIFO", "socket": "a socket", "device": "a character device"}


def file_state(path):
    status = os.lstat(path)
    return stat.S_IFMT(status.st_mode), status.st_ino, status.st_mode, status.st_rdev


@pytest.mark.parametrize("save", SAVE_CALLS)
@pytest.mark.parametrize("kind", KIND_WORDS)
def test_a_save_over_a_special_file_is_refused_and_leaves_it(save, kind, tmp_path):
    path = tmp_path / "target"
    server = make_special(kind, path)
    try:
        before = file_state(path)
        outcome = run_bounded(SAVE_CALLS[save], path, timeout=60)
        assert outcome["error"] == (
            f"NotAFileError: {path}: {KIND_WORDS[kind]}, not a regular file: kvec replaces regular files only"
        )
        assert file_state(path) == before
        assert os.listdir(tmp_path) == ["target"]  # no temporary file left
    finally:
        if server is not None:
            server.close()


@pytest.mark.parametrize("save", SAVE_CALLS)
def test_a_save_through_a_symlink_replaces_its_final_target(save, tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "links").mkdir()
    target = tmp_path / "real" / "tok.json"
    target.write_text("old")
    os.chmod(target, 0o640)
    os.symlink(target, tmp_path / "links" / "middle")
    os.symlink(tmp_path / "links" / "middle", tmp_path / "links" / "tok.json")  # a chain of two links
    outcome = run_bounded(SAVE_CALLS[save], tmp_path / "links" / "tok.json", timeout=60)
    assert outcome["error"] is None
    assert os.readlink(tmp_path / "links" / "tok.json") == str(tmp_path / "links" / "middle")
    assert os.readlink(tmp_path / "links" / "middle") == str(target)
    assert target.read_text() != "old"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert sorted(os.listdir(tmp_path / "real")) == ["tok.json"]
    assert sorted(os.listdir(tmp_path / "links")) == ["middle", "tok.json"]


def test_a_save_through_a_dangling_symlink_creates_its_target(tmp_path):
    os.symlink(tmp_path / "made.json", tmp_path / "link.json")
    outcome = run_bounded(SAVE_CALLS["atomic_write"], tmp_path / "link.json", timeout=60)
    assert outcome["error"] is None
    assert (tmp_path / "made.json").read_text() == "new"
    assert os.path.islink(tmp_path / "link.json")


def test_a_save_through_a_symlink_to_a_fifo_is_refused(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    os.symlink(tmp_path / "pipe", tmp_path / "link")
    outcome = run_bounded(SAVE_CALLS["atomic_write"], tmp_path / "link", timeout=60)
    assert outcome["error"] == (
        f"NotAFileError: {tmp_path / 'link'}: a FIFO, not a regular file: kvec replaces regular files only"
    )
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe").st_mode)
    assert sorted(os.listdir(tmp_path)) == ["link", "pipe"]


CLI_TRAIN = """
import contextlib, io
from kvec.cli import main
err = io.StringIO()
with contextlib.redirect_stderr(err):
    status = main(["train", "--model", "bpe", "--vocab-size", "50", args[0], "-o", args[1]])
result = (status, err.getvalue())
"""


def test_the_cli_refuses_an_output_that_is_a_fifo_before_training(tmp_path, capfd):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\n\xf0\x28 not utf-8\n")  # reading it would fail: the output fails first
    os.mkfifo(tmp_path / "out.json")
    outcome = run_bounded(CLI_TRAIN, bad, tmp_path / "out.json", timeout=60)
    assert outcome["result"] == repr(
        (1, f"kvec: error: cannot write -o {tmp_path / 'out.json'}: it is a FIFO, not a regular file\n")
    )
    assert stat.S_ISFIFO(os.lstat(tmp_path / "out.json").st_mode)
    assert sorted(os.listdir(tmp_path)) == ["bad.txt", "out.json"]


# ---- loaders read regular files only, of a bounded size ---------------------------------------------

LOADERS = {
    "kvec.load": "import kvec\nkvec.load(args[0])",
    "Pipeline.from_file": "from kvec.pipeline import Pipeline\nPipeline.from_file(args[0])",
    "load_tokenizer_json": "from kvec.interop import load_tokenizer_json\nload_tokenizer_json(args[0])",
    "load_sentencepiece_model": (
        "from kvec.interop.sentencepiece_model import load_sentencepiece_model\nload_sentencepiece_model(args[0])"
    ),
    "load_bert_vocab": "from kvec.interop.vocab_files import load_bert_vocab\nload_bert_vocab(args[0])",
    "load_gpt2_files vocab": (
        "from kvec.interop.vocab_files import load_gpt2_files\nload_gpt2_files(args[0], args[1])"
    ),
    "load_gpt2_files merges": (
        "from kvec.interop.vocab_files import load_gpt2_files\nload_gpt2_files(args[1], args[0])"
    ),
    "load_tiktoken": "from kvec.interop.tiktoken_ranks import load_tiktoken\nload_tiktoken(args[0])",
    "Jieba user_dict": "from kvec.chinese import Jieba\nJieba(user_dict=args[0])",
}


def gpt2_vocab(tmp_path):
    """A good vocab.json or merges.txt for the loaders that take two files (the other one is hostile)."""
    (tmp_path / "good").mkdir()
    (tmp_path / "good" / "vocab.json").write_text('{"a": 0, "b": 1, "ab": 2}')
    return tmp_path / "good" / "vocab.json"


def good_partner(loader, tmp_path):
    if loader == "load_gpt2_files vocab":
        (tmp_path / "good").mkdir()
        (tmp_path / "good" / "merges.txt").write_text("#version: 0.2\na b\n")
        return [tmp_path / "good" / "merges.txt"]
    if loader == "load_gpt2_files merges":
        return [gpt2_vocab(tmp_path)]
    return []


@pytest.mark.parametrize("loader", LOADERS)
def test_every_loader_refuses_a_fifo_without_blocking(loader, tmp_path):
    path = tmp_path / "tokenizer.json"
    os.mkfifo(path)
    outcome = run_bounded(LOADERS[loader], path, *good_partner(loader, tmp_path), timeout=60)
    assert outcome["error"] == f"NotAFileError: {path}: a FIFO, not a regular file: kvec reads regular files only"
    assert stat.S_ISFIFO(os.lstat(path).st_mode)


@pytest.mark.parametrize("kind", KIND_WORDS)
def test_kvec_load_refuses_each_kind_of_special_file(kind, tmp_path):
    path = tmp_path / "tok"
    server = make_special(kind, path)
    try:
        before = file_state(path)
        outcome = run_bounded(LOADERS["kvec.load"], path, timeout=60)
        assert outcome["error"] == (
            f"NotAFileError: {path}: {KIND_WORDS[kind]}, not a regular file: kvec reads regular files only"
        )
        assert file_state(path) == before
    finally:
        if server is not None:
            server.close()


@pytest.mark.parametrize("loader", LOADERS)
def test_every_loader_refuses_a_two_gigabyte_file_by_its_size(loader, tmp_path):
    from kvec.files.vocab_reading import MAX_FILE_BYTES

    path = tmp_path / "tokenizer.json"
    with open(path, "wb") as f:  # sparse: nothing is written but the size
        f.truncate(2 * 1024**3)
    before = os.stat(path)
    # the limit is what a process importing kvec needs, far below the 2 GB a read would take
    outcome = run_bounded(LOADERS[loader], path, *good_partner(loader, tmp_path), timeout=60, memory_mb=1024)
    assert outcome["error"] == (
        f"FormatError: {path}: {2 * 1024**3} bytes: larger than any file kvec loads (at most {MAX_FILE_BYTES} bytes)"
    )
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns, after.st_blocks) == (before.st_size, before.st_mtime_ns, before.st_blocks)


def test_a_ranks_file_holding_one_fifty_megabyte_token_is_refused_quickly(tmp_path):
    from kvec.interop.tiktoken_ranks import MAX_TOKEN_BYTES

    path = tmp_path / "huge.tiktoken"
    with open(path, "wb") as f:
        f.write(b"YQ== 0\nYg== 1\n")
        f.write(b"YWJj" * (50 * 1024**2 // 3) + b" 2\n")  # "abc" * 17 M: one 50 MB token
    content = path.read_bytes()
    outcome = run_bounded(LOADERS["load_tiktoken"], path, timeout=60, memory_mb=2048)
    assert outcome["error"] == (
        f"FormatError: {path}: line 3: a token longer than {MAX_TOKEN_BYTES} bytes, the most kvec reads"
    )
    assert outcome["cpu_s"] < 10  # the bound the loader promises (it took more than 10 s unbounded)
    assert path.read_bytes() == content


def test_a_ranks_file_token_one_byte_too_long_is_refused(tmp_path):
    import base64

    from kvec.interop.tiktoken_ranks import MAX_TOKEN_BYTES, load_tiktoken

    # its base64 is no longer than the longest token's: the decoded length is what is refused
    long_token = base64.b64encode(b"a" * (MAX_TOKEN_BYTES + 1))
    assert len(long_token) == len(base64.b64encode(b"a" * MAX_TOKEN_BYTES))
    (tmp_path / "long.tiktoken").write_bytes(b"YQ== 0\nYWE= 1\n" + long_token + b" 2\n")
    with pytest.raises(ValueError, match=f"line 3: a token longer than {MAX_TOKEN_BYTES} bytes, the most kvec reads"):
        load_tiktoken(tmp_path / "long.tiktoken")


# ---- shard readers refuse what they cannot represent, both with the same error ---------------------

# One interpreter reads every case's folder with both readers (TensorFlow's start-up is paid once).
SHARD_READERS = """
from kvec.layers.shards import dataset_from_shards
from kvec.data.shards import read_shards

def error_of(read):
    try:
        read()
    except Exception as e:
        return f"{type(e).__name__}: {e}"
    return None

def read_dataset(folder):
    for _ in dataset_from_shards(folder, batch_size=4):
        pass

result = {folder: (error_of(lambda: read_shards(folder)), error_of(lambda: read_dataset(folder))) for folder in args}
"""


def parquet_shards(folder, ids, rows=None, ids_type=None):
    """A shard folder of one Parquet file holding the id lists ``ids``; its manifest says ``rows``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from kvec.data.shards import ShardColumn, ShardInfo, write_info

    folder.mkdir()
    table = pa.table({"input_ids": pa.array(ids, type=ids_type or pa.list_(pa.int64()))})
    pq.write_table(table, folder / "part-00000.parquet")
    columns = (ShardColumn("input_ids", "int", True),)
    count = len(ids) if rows is None else rows
    write_info(ShardInfo(str(folder), "parquet", columns, ("part-00000.parquet",), (count,)))
    return folder / "part-00000.parquet"


def tfrecord_shards(folder, features, rows=None):
    """A shard folder of one TFRecord file of ``tf.train.Example``s with an ``input_ids`` feature each:
    ``("int", [ids])`` or ``("float", [values])``."""
    import tensorflow as tf

    from kvec.data.shards import ShardColumn, ShardInfo, write_info

    folder.mkdir()
    file = folder / "part-00000.tfrecord"
    with tf.io.TFRecordWriter(str(file)) as writer:
        for kind, values in features:
            if kind == "int":
                feature = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
            else:
                feature = tf.train.Feature(float_list=tf.train.FloatList(value=values))
            example = tf.train.Example(features=tf.train.Features(feature={"input_ids": feature}))
            writer.write(example.SerializeToString())
    columns = (ShardColumn("input_ids", "int", True),)
    count = len(features) if rows is None else rows
    write_info(ShardInfo(str(folder), "tfrecord", columns, ("part-00000.tfrecord",), (count,)))
    return file


def symlinked_out(folder):
    """A shard folder whose file is a symlink to a shard of another folder."""
    elsewhere = parquet_shards(folder.parent / f"{folder.name}-elsewhere", [[1], [2]])
    link = parquet_shards(folder, [[7], [8]])
    os.unlink(link)
    os.symlink(elsewhere, link)
    return link


def shard_cases():
    """``{case: (make(folder) -> the shard file, the error's message)}``."""
    import pyarrow as pa

    return {
        "null inside a list": (
            lambda f: parquet_shards(f, [[1, 2], [3, None, 4], [5]]),
            "row 1: the 'input_ids' list holds a null",
        ),
        "null row": (lambda f: parquet_shards(f, [[1, 2], [3], None]), "row 2: 'input_ids' is null"),
        "uint64 past int64": (
            lambda f: parquet_shards(f, [[1], [2, 2**63], [3]], ids_type=pa.list_(pa.uint64())),
            f"row 1: the value {2**63} in 'input_ids' is past int64",
        ),
        "negative id": (
            lambda f: parquet_shards(f, [[1], [2], [3, 4, -5]]),
            "row 2: the id -5 in 'input_ids' is negative",
        ),
        "float ids": (
            lambda f: parquet_shards(f, [[1.0], [1.7]], ids_type=pa.list_(pa.float64())),
            "the column 'input_ids' holds double, not int values",
        ),
        "more rows than the manifest": (
            lambda f: parquet_shards(f, [[i] for i in range(12)], rows=10),
            "holds 12 rows, kvec_shards.json says 10",
        ),
        "tfrecord float ids": (
            lambda f: tfrecord_shards(f, [("int", [1, 2]), ("float", [1.7])]),
            "not a readable TFRecord file of kvec shards (Key: input_ids, Index: 1.  Data types don't match. "
            "Expected type: int64, Actual type: float)",
        ),
        "tfrecord negative id": (
            lambda f: tfrecord_shards(f, [("int", [1, 2]), ("int", [-3])]),
            "row 1: the id -3 in 'input_ids' is negative",
        ),
        "tfrecord row count": (
            lambda f: tfrecord_shards(f, [("int", [1])] * 3, rows=2),
            "holds 3 rows, kvec_shards.json says 2",
        ),
        "symlink out of the folder": (symlinked_out, "resolves to {target}, outside the shard folder {folder}"),
    }


@pytest.fixture(scope="module")
def shard_outcomes(tmp_path_factory):
    """Each case's folder, shard file and its bytes, then both readers' errors on it."""
    pytest.importorskip("pyarrow")
    pytest.importorskip("tensorflow")
    root = tmp_path_factory.mktemp("shards")
    made = {}
    for number, (case, (make, _)) in enumerate(shard_cases().items()):
        folder = root / f"case{number}"
        file = make(folder)
        made[case] = (folder, file, file.read_bytes())
    errors = ast.literal_eval(run_bounded(SHARD_READERS, *(str(f) for f, _, _ in made.values()), timeout=300)["result"])
    return {case: (folder, file, content, errors[str(folder)]) for case, (folder, file, content) in made.items()}


@pytest.mark.parametrize("case", list(shard_cases()) if importlib.util.find_spec("pyarrow") else [])
def test_both_shard_readers_refuse_it_naming_the_file_and_row(case, shard_outcomes):
    folder, file, content, (numpy_error, dataset_error) = shard_outcomes[case]
    message = shard_cases()[case][1].format(target=os.path.realpath(file), folder=os.path.realpath(folder))
    assert numpy_error == f"FormatError: {file}: {message}"
    assert dataset_error == numpy_error  # the same error from tf.data, when the dataset is made
    assert file.read_bytes() == content


# ---- the op library's cache: a library that fails its check is rebuilt, never loaded ----------------

# The child imports kvec.layers (which loads the op library) and reports the OpLibraryWarnings. With
# FAKE_COMPILER set, the compiler is replaced by a copy of a whole library (named by the variable), so
# a rebuild costs no compilation; everything else (install, record, check, load) is kvec's own.
OP_LIBRARY = """
import os, shutil, subprocess, warnings
if os.environ.get("FAKE_COMPILER"):
    run = subprocess.run
    def compiler(command, **options):
        if "-o" not in command:  # not a compilation
            return run(command, **options)
        output = command[command.index("-o") + 1]
        if output.endswith(".so"):
            shutil.copyfile(os.environ["FAKE_COMPILER"], output)
        else:
            open(output, "wb").close()
        return subprocess.CompletedProcess(command, 0, b"", b"")
    subprocess.run = compiler
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import kvec.layers
    from kvec.layers import op_library
messages = [str(w.message) for w in caught if issubclass(w.category, op_library.OpLibraryWarning)]
result = (op_library.load() is not None, messages, op_library.library_path())
"""


@pytest.fixture(scope="module")
def built_library():
    """The op library this run built (its folder), and a copy of the library kept aside."""
    pytest.importorskip("tensorflow")
    loaded, messages, path = ast.literal_eval(run_bounded(OP_LIBRARY, timeout=600)["result"])
    if not loaded:
        pytest.skip(f"no op library here: {messages}")
    return os.path.dirname(path)


def cache_with_the_library(built, tmp_path):
    """A private cache holding a copy of the built library's folder: ``(cache, library path)``."""
    import shutil

    cache = tmp_path / "cache"
    folder = cache / "tf_ops" / os.path.basename(built)
    shutil.copytree(built, folder)
    for level in (cache, cache / "tf_ops", folder):
        os.chmod(level, 0o700)
    return cache, folder / "libkvec_ops.so"


def matches_its_record(library):
    import hashlib
    import json

    record = json.loads((library.parent / "libkvec_ops.so.json").read_text())
    content = library.read_bytes()
    return record == {"library": "libkvec_ops.so", "size": len(content), "sha256": hashlib.sha256(content).hexdigest()}


def test_a_cached_library_cut_to_a_third_is_rebuilt_with_a_warning_not_loaded(built_library, tmp_path):
    cache, library = cache_with_the_library(built_library, tmp_path)
    size = library.stat().st_size
    os.truncate(library, size // 3)
    # run_bounded fails the test on any exit but 0: the SIGBUS this used to die with included
    loaded, messages, path = ast.literal_eval(
        run_bounded(OP_LIBRARY, timeout=600, env={"KVEC_CACHE_DIR": str(cache)})["result"]
    )
    assert path == str(library)
    assert messages == [
        f"kvec's cached op library {library} failed its check ({size // 3} bytes where its record says {size}): "
        "it is not loaded, and is built again"
    ]
    assert loaded
    assert matches_its_record(library)


@pytest.mark.parametrize("damage", ["altered", "no record"])
def test_a_cached_library_altered_or_without_its_record_is_rebuilt(damage, built_library, tmp_path):
    cache, library = cache_with_the_library(built_library, tmp_path)
    whole = tmp_path / "whole.so"
    whole.write_bytes(library.read_bytes())
    if damage == "altered":
        content = bytearray(library.read_bytes())
        content[len(content) // 2] ^= 0xFF  # the same size: only the hash sees it
        library.write_bytes(bytes(content))
        problem = "its SHA-256 is not its record's"
    else:
        os.unlink(library.parent / "libkvec_ops.so.json")
        problem = "no record of its size and SHA-256 (libkvec_ops.so.json)"
    env = {"KVEC_CACHE_DIR": str(cache), "FAKE_COMPILER": str(whole)}
    loaded, messages, _ = ast.literal_eval(run_bounded(OP_LIBRARY, timeout=300, env=env)["result"])
    assert messages == [
        f"kvec's cached op library {library} failed its check ({problem}): it is not loaded, and is built again"
    ]
    assert loaded
    assert library.read_bytes() == whole.read_bytes()
    assert matches_its_record(library)
    assert sorted(os.listdir(library.parent)) == ["libkvec_ops.so", "libkvec_ops.so.json"]  # no build folder left
