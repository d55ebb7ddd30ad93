"""Saves are atomic: a writer killed at any point leaves the old file or the new one, never a corrupt one.

Each writer runs in a subprocess that replaces an old file (version A) with a new one (version B) and is
killed with SIGKILL: at fixed points (in the middle of writing, before the fsync, before the rename)
and, in a second test, after random delays while it rewrites the file in a loop. The target must then
hold exactly A or B.

Saved files get the permissions of an ordinary write: a new file 0o666 less the umask, a replaced file
its old mode.
"""

import contextlib
import importlib.util
import json
import os
import random
import signal
import stat
import subprocess
import sys
import time

import pytest

from kvec.files.atomic import atomic_write

# The child process: `python -c CHILD WRITER PATH VERSION KILL_POINT`. A kill point patches the step
# where the process dies; "loop" rewrites versions A and B forever instead.
CHILD = r"""
import os, signal, sys

writer, path, version, kill_point = sys.argv[1:5]

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

if kill_point == "fsync":
    os.fsync = die
elif kill_point == "replace":
    os.replace = die
elif kill_point == "middle":
    real_fdopen = os.fdopen

    class DiesHalfway:
        def __init__(self, f):
            self.f, self.written = f, 0
        def write(self, data):
            self.written += len(data)
            if self.written > 2000:
                self.f.write(data[: len(data) // 2])
                self.f.flush()
                die()
            return self.f.write(data)
        def __getattr__(self, name):
            return getattr(self.f, name)
        def __enter__(self):
            return self
        def __exit__(self, *exc):
            return self.f.__exit__(*exc)

    os.fdopen = lambda *a, **k: DiesHalfway(real_fdopen(*a, **k))

from tests.test_atomic_saves import write_version

if kill_point == "loop":
    while True:
        for v in "AB":
            write_version(writer, path, v)
else:
    write_version(writer, path, version)
    sys.exit(3)  # not killed: the kill point was never reached
"""

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tests.* imports from here
WRITERS = (
    "pipeline_save",
    "tokenizer_json",
    pytest.param("plot", marks=pytest.mark.skipif(not importlib.util.find_spec("matplotlib"), reason="matplotlib")),
)


def tokenizer(version):
    """A WordPiece pipeline of 20,000 tokens; versions A and B differ in their token order."""
    from kvec.models import WordPiece
    from kvec.pipeline import Tokenizer
    from kvec.pretokenizers import Whitespace

    tokens = ["[UNK]"] + [f"tok{i:05d}" for i in range(20_000)]
    if version == "B":
        tokens = tokens[:1] + tokens[:0:-1]
    return Tokenizer(WordPiece({t: i for i, t in enumerate(tokens)}), pre_tokenizer=Whitespace())


def write_version(writer, path, version):
    if writer == "pipeline_save":
        tokenizer(version).save(path)
    elif writer == "tokenizer_json":
        from kvec.interop import save_tokenizer_json

        save_tokenizer_json(tokenizer(version), path)
    else:
        from kvec.cli import plot_lengths

        plot_lengths({1: 10, 2: 30, 3: 20} if version == "A" else {1: 5, 2: 7, 3: 40, 4: 2}, path)


def target(tmp_path, writer):
    return str(tmp_path / ("lengths.png" if writer == "plot" else "tokenizer.json"))


def expected_contents(tmp_path, writer):
    """The bytes of versions A and B, written without interruption."""
    contents = {}
    for version in "AB":
        path = str(tmp_path / f"expected-{version}{os.path.splitext(target(tmp_path, writer))[1]}")
        write_version(writer, path, version)
        with open(path, "rb") as f:
            contents[version] = f.read()
    assert contents["A"] != contents["B"]
    return contents


def run_child(writer, path, version, kill_point, wait=True):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    command = [sys.executable, "-c", CHILD, writer, path, version, kill_point]
    if not wait:
        return subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return subprocess.run(command, env=env, cwd=ROOT, capture_output=True, timeout=120)


def read(path):
    with open(path, "rb") as f:
        return f.read()


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("kill_point", ["middle", "fsync", "replace"])
def test_a_writer_killed_at_each_step_leaves_the_old_file(writer, kill_point, tmp_path):
    contents = expected_contents(tmp_path, writer)
    path = target(tmp_path, writer)
    write_version(writer, path, "A")
    done = run_child(writer, path, "B", kill_point)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    assert read(path) == contents["A"]
    if writer != "plot":
        from kvec.pipeline import Tokenizer

        loaded = Tokenizer.from_file(path) if writer == "pipeline_save" else None
        assert loaded is None or loaded.get_vocab() == tokenizer("A").get_vocab()


@pytest.mark.parametrize("writer", WRITERS)
def test_a_writer_killed_at_random_moments_leaves_a_whole_version(writer, tmp_path):
    contents = expected_contents(tmp_path, writer)
    path = target(tmp_path, writer)
    write_version(writer, path, "A")
    rng = random.Random(writer)
    for _ in range(6):
        child = run_child(writer, path, "A", "loop", wait=False)
        time.sleep(1.0 + rng.random())  # start-up, then saves back to back
        child.kill()
        assert child.wait() == -signal.SIGKILL, child.stderr.read().decode()
        assert read(path) in (contents["A"], contents["B"])


def test_a_failed_write_removes_its_temporary_file_and_keeps_the_target(tmp_path):
    path = tmp_path / "kept.txt"
    path.write_text("old")
    with pytest.raises(RuntimeError, match="disk on fire"):
        with atomic_write(path) as f:
            f.write("partial")
            raise RuntimeError("disk on fire")
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["kept.txt"]


def test_the_layer_writes_its_assets_atomically(tmp_path, monkeypatch):
    pytest.importorskip("tensorflow")
    import kvec.files.atomic
    from kvec.layers import TextVectorization
    from kvec.pretokenizers import Whitespace

    layer = TextVectorization(tokenizer=Whitespace())
    layer.adapt(["a b c", "b c d"])
    layer.save_assets(str(tmp_path))
    asset = tmp_path / "kvec_tokenizer.json"
    before = asset.read_bytes()
    json.loads(before)

    def failing_fsync(fd):
        raise OSError("no space left on device")

    monkeypatch.setattr(kvec.files.atomic.os, "fsync", failing_fsync)
    layer.adapt(["x y z"])
    with pytest.raises(OSError, match="no space left"):
        layer.save_assets(str(tmp_path))
    assert asset.read_bytes() == before
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".tmp")]


# ---- permissions ----------------------------------------------------------------------------------


def small_pipeline():
    from kvec.models import WordPiece
    from kvec.pipeline import Tokenizer
    from kvec.pretokenizers import Whitespace

    return Tokenizer(WordPiece({"[UNK]": 0, "a": 1, "##b": 2}), pre_tokenizer=Whitespace())


def write_text(path):
    with atomic_write(path) as f:
        f.write("text")


def write_bytes(path):
    with atomic_write(path, binary=True) as f:
        f.write(b"\x00bytes")


def save_tokenizer_json(path):
    from kvec.interop import save_tokenizer_json

    save_tokenizer_json(small_pipeline(), path)


SAVES = {
    "atomic_write": write_text,
    "atomic_write_binary": write_bytes,
    "Tokenizer.save": lambda path: small_pipeline().save(path),
    "save_tokenizer_json": save_tokenizer_json,
}


@contextlib.contextmanager
def umask(value):
    previous = os.umask(value)
    try:
        yield
    finally:
        os.umask(previous)


def octal(value):
    return f"{value:04o}"


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("save", SAVES)
@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)], ids=octal)
def test_a_new_file_gets_the_mode_the_umask_gives(save, mask, expected, tmp_path):
    path = tmp_path / "new.json"
    with umask(mask):
        SAVES[save](path)
        with open(tmp_path / "plain.txt", "w") as f:  # what an ordinary write gives under this umask
            f.write("x")
    assert mode(path) == expected
    assert mode(path) == mode(tmp_path / "plain.txt")
    assert sorted(os.listdir(tmp_path)) == ["new.json", "plain.txt"]


@pytest.mark.parametrize("save", SAVES)
@pytest.mark.parametrize(
    "mask, old_mode",
    [(0o022, 0o644), (0o077, 0o644), (0o077, 0o640), (0o022, 0o600), (0o022, 0o664), (0o077, 0o755)],
    ids=octal,
)
def test_a_replaced_file_keeps_its_mode(save, mask, old_mode, tmp_path):
    path = tmp_path / "kept.json"
    path.write_text("old")
    os.chmod(path, old_mode)
    with umask(mask):
        SAVES[save](path)
    assert path.read_text(encoding="utf-8", errors="replace") != "old"
    assert mode(path) == old_mode
    assert os.listdir(tmp_path) == ["kept.json"]


def test_set_user_and_group_ids_do_not_pass_to_new_content(tmp_path):
    path = tmp_path / "tool"
    path.write_text("old")
    os.chmod(path, 0o6755)
    write_text(path)
    assert mode(path) == 0o755


def test_the_umask_is_never_changed_to_be_read(tmp_path, monkeypatch):
    # os.umask sets the mask of every thread of the process: reading it that way races with them
    def no_umask(mask):
        raise AssertionError("atomic_write called os.umask")

    monkeypatch.setattr(os, "umask", no_umask)
    write_text(tmp_path / "a.txt")
    small_pipeline().save(tmp_path / "b.json")
    assert (tmp_path / "a.txt").read_text() == "text"


def test_a_temporary_name_in_use_is_skipped(tmp_path, monkeypatch):
    import kvec.files.atomic

    names = iter(["taken", "taken", "free"])
    monkeypatch.setattr(kvec.files.atomic.secrets, "token_hex", lambda n: next(names))
    (tmp_path / ".kvec-taken.tmp").write_text("someone else's")
    write_text(tmp_path / "target.txt")
    assert (tmp_path / ".kvec-taken.tmp").read_text() == "someone else's"
    assert (tmp_path / "target.txt").read_text() == "text"
    assert sorted(os.listdir(tmp_path)) == [".kvec-taken.tmp", "target.txt"]


@pytest.mark.parametrize("old_mode", [0o600, 0o640], ids=octal)
def test_new_content_is_never_more_readable_than_the_file_it_replaces(old_mode, tmp_path):
    path = tmp_path / "private.json"
    path.write_text("old")
    os.chmod(path, old_mode)
    with umask(0o022):
        with atomic_write(path) as f:
            (temporary,) = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
            assert mode(temporary) == old_mode  # before any content is written
            f.write("new")
    assert mode(path) == old_mode
    assert path.read_text() == "new"
