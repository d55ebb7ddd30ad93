"""The folders a test run writes to: one temporary folder per run, removed at exit.

Libraries write beside the user's files unless told otherwise: Keras its ``~/.keras/keras.json``,
matplotlib its configuration and font cache, jieba its ``jieba.cache`` in the temporary folder, kvec
its cache. :func:`isolate_this_run` points every such variable into one folder of this run before any
of them is imported, so the suite writes nothing outside its temporary folders; subprocesses inherit
the variables.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile

# The variable naming this run's folder. A process that finds it set (a subprocess of the suite, or a
# worker of a parallel run) shares the folder and leaves its removal to the process that made it.
RUN_FOLDER_VARIABLE = "KVEC_TEST_RUN_DIR"

# A run's folder is PREFIX + the process id + a random part, in the temporary folder.
PREFIX = "kvec-tests-"

# Each variable and the subfolder it names.
SUBFOLDERS = {
    "HOME": "home",
    "XDG_CACHE_HOME": "cache",
    "XDG_CONFIG_HOME": "config",
    "XDG_DATA_HOME": "data",
    "KERAS_HOME": "keras",
    "MPLCONFIGDIR": "matplotlib",
    "KVEC_CACHE_DIR": "kvec-cache",
    "TMPDIR": "tmp",  # jieba's cache (tempfile.gettempdir()), pytest's tmp_path, every mkstemp
    "SPARK_LOCAL_DIRS": "spark",
}


# Libraries that read the variables when they are imported.
READ_AT_IMPORT = ("keras", "tensorflow", "matplotlib", "jieba", "kvec")

# Those of them that were imported before :func:`isolate_this_run` (the test of the isolation checks
# that there are none).
imported_too_early: list[str] = []


def isolated_environment(root: str) -> dict[str, str]:
    """The variables that keep a process's files under ``root``, each folder created (mode 0700)."""
    environment = {}
    for variable, subfolder in SUBFOLDERS.items():
        folder = os.path.join(root, subfolder)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        environment[variable] = folder
    return environment


def isolate_this_run() -> str:
    """Point this process's variables into the run's folder (made now, or inherited); return the folder."""
    imported_too_early[:] = [name for name in READ_AT_IMPORT if name in sys.modules]
    root = os.environ.get(RUN_FOLDER_VARIABLE)
    if not root or not os.path.isdir(root):
        remove_folders_of_ended_runs(tempfile.gettempdir())
        root = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        os.environ[RUN_FOLDER_VARIABLE] = root
    os.environ.update(isolated_environment(root))
    tempfile.tempdir = None  # gettempdir() caches its answer: read TMPDIR again
    return root


def remove_folders_of_ended_runs(parent: str) -> None:
    """Remove this user's run folders in ``parent`` whose process has ended without removing its own
    (killed, or ended by ``os._exit``: atexit cannot run there)."""
    for name in os.listdir(parent):
        pid = name[len(PREFIX) :].split("-", 1)[0]
        if not name.startswith(PREFIX) or not pid.isdigit():
            continue
        path = os.path.join(parent, name)
        try:
            if os.lstat(path).st_uid != os.getuid():
                continue
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass  # gone already, or a process that is not ours to signal: it is running
