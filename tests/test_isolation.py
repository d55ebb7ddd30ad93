"""The suite writes nothing outside its temporary folders.

``tests/isolation.py`` points HOME, the XDG folders, Keras', matplotlib's and kvec's folders and TMPDIR
into one folder of the run. The first test checks that every variable does. The second runs kvec, jieba,
Keras and matplotlib in a subprocess given the same variables for a fresh folder, records every file it
writes, creates, renames or removes (through Python's audit hooks, which see every ``open``, ``os.open``,
``mkdir``, ``rename`` and ``remove`` of the process), and checks that each lies in that folder or the
working folder, and that the libraries' usual files went where the variables say. A third shows the
check reports a write outside, and a fourth that the folders of runs that were killed are removed.
"""

import importlib.util
import json
import os
import pwd
import subprocess
import sys
import tempfile

from tests import isolation
from tests.isolation import PREFIX, RUN_FOLDER_VARIABLE, SUBFOLDERS, isolated_environment

# Records every path the process writes to (or creates, renames, removes), then does the work of a
# test run: kvec, its Jieba segmenter, jieba's own cut, Keras and matplotlib when installed.
CHILD = r"""
import json, os, sys

written = []
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

def record(event, args):
    if event == "open":
        path, mode, flags = args
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & WRITE_FLAGS
        )
        if writes and isinstance(path, (str, bytes, os.PathLike)):
            written.append(("open", os.fsdecode(path)))
    elif event in ("os.mkdir", "os.remove", "os.rmdir", "os.truncate", "os.chmod", "os.chown", "os.utime"):
        if isinstance(args[0], (str, bytes, os.PathLike)):
            written.append((event, os.fsdecode(args[0])))
    elif event in ("os.rename", "os.link", "os.symlink", "shutil.copyfile", "shutil.move"):
        written.append((event, os.fsdecode(args[1])))

sys.addaudithook(record)

import kvec
from kvec.chinese import Jieba
import jieba

assert Jieba().pre_tokenize_str("我爱自然语言处理")
assert jieba.lcut("我爱自然语言处理")
tok = kvec.Tokenizer(analyzer=Jieba())
tok.fit_on_texts(["我爱自然语言处理，也爱机器学习。"])
done = ["kvec", "jieba"]

if "keras" in sys.argv[1:]:
    import keras
    import numpy as np

    layer = keras.layers.Dense(2)
    assert tuple(layer(np.zeros((1, 3), dtype="float32")).shape) == (1, 2)
    done.append("keras")

if "matplotlib" in sys.argv[1:]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots()
    axes.plot([1, 2, 3], [3, 1, 2])
    axes.set_title("lengths")
    figure.savefig("plot.png")
    done.append("matplotlib")

sys.stdout.write(json.dumps({"done": done, "written": written}))
"""


def inside(path, folder):
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return os.path.commonpath([path, folder]) == folder


def test_every_variable_points_into_the_run_folder():
    assert isolation.imported_too_early == [], "imported before the variables were set"
    run_folder = os.environ[RUN_FOLDER_VARIABLE]
    assert os.path.isdir(run_folder)
    real_home = pwd.getpwuid(os.getuid()).pw_dir
    assert not inside(run_folder, real_home)
    for variable in SUBFOLDERS:
        assert inside(os.environ[variable], run_folder), (variable, os.environ[variable])
        assert os.path.isdir(os.environ[variable]), variable
    assert inside(os.path.expanduser("~"), run_folder)
    assert inside(tempfile.gettempdir(), run_folder)  # jieba's cache goes to gettempdir()


def test_kvec_jieba_keras_and_matplotlib_write_only_into_their_folders(tmp_path):
    root, work = tmp_path / "run", tmp_path / "work"
    work.mkdir()
    environment = {**os.environ, **isolated_environment(str(root)), "TF_CPP_MIN_LOG_LEVEL": "3"}
    environment["PYTHONDONTWRITEBYTECODE"] = "1"  # imports would write __pycache__ beside the sources
    environment.pop(RUN_FOLDER_VARIABLE)
    optional = [name for name in ("keras", "matplotlib") if importlib.util.find_spec(name)]
    run = subprocess.run(
        [sys.executable, "-c", CHILD, *optional],
        cwd=work,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["done"] == ["kvec", "jieba", *optional]
    written = [(event, os.path.join(str(work), path)) for event, path in report["written"]]
    assert written, "the audit hook recorded nothing"
    outside = [
        (event, path)
        for event, path in written
        if not inside(path, tmp_path) and path != os.devnull and not path.startswith("/proc/self/")
    ]
    assert outside == []
    # The libraries' own files are where the variables say, so the hook saw the writes that matter.
    paths = [path for _, path in written]
    folders = isolated_environment(str(root))
    assert any(inside(p, folders["TMPDIR"]) and os.path.basename(p) == "jieba.cache" for p in paths)
    assert any(inside(p, folders["KVEC_CACHE_DIR"]) and os.path.basename(p).startswith("jieba-") for p in paths)
    assert os.path.exists(os.path.join(folders["TMPDIR"], "jieba.cache"))
    if "keras" in optional:
        assert os.path.exists(os.path.join(folders["KERAS_HOME"], "keras.json"))
    if "matplotlib" in optional:
        assert os.path.exists(work / "plot.png")
        assert os.listdir(folders["MPLCONFIGDIR"]), "matplotlib wrote no font cache where MPLCONFIGDIR says"


def test_the_check_sees_a_write_outside(tmp_path):
    # The same hook, on a process whose HOME is outside its folder and that writes there: it is reported.
    variable = "HOME"
    stray = tmp_path.parent / f"{tmp_path.name}-stray"
    stray.mkdir()
    try:
        environment = {**os.environ, **isolated_environment(str(tmp_path / "run"))}
        environment[variable] = str(stray)
        code = CHILD.split("import kvec", 1)[0] + (
            f"open(os.path.join(os.environ[{variable!r}], 'file'), 'w').close()\n"
            "sys.stdout.write(json.dumps({'written': written}))\n"
        )
        run = subprocess.run(
            [sys.executable, "-c", code], cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=60
        )
        assert run.returncode == 0, run.stderr
        written = [path for _, path in json.loads(run.stdout)["written"]]
        assert [path for path in written if not inside(path, tmp_path)] == [str(stray / "file")]
    finally:
        for name in os.listdir(stray):
            os.remove(stray / name)
        os.rmdir(stray)


def test_folders_of_ended_runs_are_removed_and_running_ones_kept(tmp_path):
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    names = [f"{PREFIX}{ended.stdout.strip()}-a", f"{PREFIX}{os.getpid()}-b", f"{PREFIX}x-c", "other"]
    for name in names:
        (tmp_path / name / "home").mkdir(parents=True)
    isolation.remove_folders_of_ended_runs(str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == sorted(names[1:])
