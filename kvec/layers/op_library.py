"""kvec's TensorFlow op library (``csrc/tf/kvec_ops.cc`` over the native core ``csrc/core/``), built
on first use against the TensorFlow installed here, cached, and loaded.

Why on first use: TensorFlow's C++ ABI changes from version to version, and kvec's own wheel cannot
depend on TensorFlow, so the library is compiled (about 10 s with g++) the first time a process needs
it, into ``default_cache_dir()/tf_ops/<key>/``. The key is a hash of the sources, the compilers, the
flags and the TensorFlow version, so an upgrade of either builds afresh and a second process loads the
cached library at once. The folders are the user's alone (0700, checked before every load: see
:mod:`kvec.files.user_cache`); the library is built in a temporary folder inside, fsynced, and moved into
place, and then its size and SHA-256 are written beside it (``libkvec_ops.so.json``, atomically).

A cached library is loaded only after its size and SHA-256 match that record: a file cut short (a
full disk, a crash before the data reached it) or altered would otherwise be mapped by
``tf.load_op_library`` and kill the process with SIGBUS, or run code kvec never built. A library
that fails the check, or has no record, is never loaded: it is built again, with an
:class:`OpLibraryWarning` saying why.

``$CC`` and ``$CXX`` choose the compilers (default ``gcc`` and ``g++``). Where the build fails (no
compiler, no TensorFlow headers), :func:`load` warns once and returns None: the layer then runs its
tokenizer through ``tf.numpy_function`` and refuses ``model.export``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

import tensorflow as tf

from kvec.files.atomic import atomic_write
from kvec.files.user_cache import UnsafeCacheError, check_private, private_folder

__all__ = ["LIBRARY_NAME", "OpLibraryWarning", "failure", "library_path", "load"]

LIBRARY_NAME = "libkvec_ops.so"
RECORD_NAME = LIBRARY_NAME + ".json"  # the built library's size and SHA-256
C_FLAGS = ["-O3", "-fPIC", "-std=c11", "-Wall", "-Wextra"]
CXX_FLAGS = ["-O3", "-fPIC", "-shared", "-Wall", "-Wextra"]

_lock = threading.Lock()
_library = None  # the module tf.load_op_library made, once loaded
_failure: str | None = None  # why it could not be, once that is known (warned once)


class OpLibraryWarning(UserWarning):
    """kvec's op library could not be built: layers fall back to ``tf.numpy_function``."""


def source_folder() -> Path:
    """Where the C sources are: ``kvec/_csrc`` in an installed wheel, the repository's ``csrc``
    in a checkout."""
    package = Path(__file__).resolve().parent.parent
    for folder in (package / "_csrc", package.parent / "csrc"):
        if (folder / "tf" / "kvec_ops.cc").is_file():
            return folder
    raise FileNotFoundError(f"kvec's C sources are neither in {package / '_csrc'} nor in {package.parent / 'csrc'}")


@dataclass(frozen=True)
class _Toolchain:
    """The compilers and TensorFlow's flags that build the library (and key its cache)."""

    cc: str
    cxx: str
    compile_flags: tuple[str, ...]
    link_flags: tuple[str, ...]

    @classmethod
    def here(cls) -> _Toolchain:
        # TensorFlow's headers as system headers: their own warnings are not kvec's
        compile_flags = [f"-isystem{f[2:]}" if f.startswith("-I") else f for f in tf.sysconfig.get_compile_flags()]
        cc, cxx = os.environ.get("CC") or "gcc", os.environ.get("CXX") or "g++"
        return cls(cc, cxx, tuple(compile_flags), tuple(tf.sysconfig.get_link_flags()))


def _key(sources: Path, toolchain: _Toolchain) -> str:
    digest = hashlib.sha256()
    files = sorted((sources / "core").glob("*.[ch]")) + sorted((sources / "tf").glob("*.cc"))
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    flags = (*C_FLAGS, *CXX_FLAGS, *toolchain.compile_flags, *toolchain.link_flags)
    for item in (toolchain.cc, toolchain.cxx, *flags, tf.__version__):
        digest.update(item.encode() + b"\0")
    return f"tf{tf.__version__}-{digest.hexdigest()[:20]}"


def _folder(sources: Path, toolchain: _Toolchain) -> str:
    """``default_cache_dir()/tf_ops/<key>``, created and checked as the user's alone."""
    return private_folder("tf_ops", _key(sources, toolchain))


def library_path() -> str:
    """Where this TensorFlow's build of the library is, or would be, cached."""
    return os.path.join(_folder(source_folder(), _Toolchain.here()), LIBRARY_NAME)


def _build(sources: Path, toolchain: _Toolchain, folder: str) -> None:
    """Compiles the library into ``folder`` and records its size and SHA-256 beside it;
    CalledProcessError or OSError when it cannot."""
    work = tempfile.mkdtemp(prefix="build-", dir=folder)
    try:
        _install(_compile(sources, toolchain, work), folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _compile(sources: Path, toolchain: _Toolchain, work: str) -> str:
    """The library, compiled in the folder ``work``: its path."""
    core = sources / "core"
    objects = []
    for path in sorted(core.glob("*.c")):  # the whole core: it needs no Python
        output = os.path.join(work, f"{path.stem}.o")
        command = [toolchain.cc, *C_FLAGS, f"-I{core}", "-c", str(path), "-o", output]
        subprocess.run(command, check=True, capture_output=True)
        objects.append(output)
    library = os.path.join(work, LIBRARY_NAME)
    command = [
        toolchain.cxx,
        *CXX_FLAGS,
        *toolchain.compile_flags,
        f"-I{core}",
        str(sources / "tf" / "kvec_ops.cc"),
    ]
    subprocess.run([*command, *objects, *toolchain.link_flags, "-o", library], check=True, capture_output=True)
    return library


def _install(library: str, folder: str) -> None:
    """Moves the built ``library`` into ``folder``, durably, then writes its record: the data reaches
    the disk before the rename, and the record is written only once the library it describes is
    whole there."""
    os.chmod(library, 0o755)
    size, digest = _measure(library, sync=True)
    os.replace(library, os.path.join(folder, LIBRARY_NAME))
    with atomic_write(os.path.join(folder, RECORD_NAME)) as f:  # fsyncs the record and the folder
        json.dump({"library": LIBRARY_NAME, "size": size, "sha256": digest}, f)


def _measure(path: str, sync: bool = False) -> tuple[int, str]:
    """``(size, SHA-256 in hex)`` of the file at ``path``, fsynced first with ``sync``."""
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as f:
        if sync:
            os.fsync(f.fileno())
        while block := f.read(1 << 20):
            digest.update(block)
            size += len(block)
    return size, digest.hexdigest()


def _unverified(folder: str) -> str | None:
    """Why the cached library in ``folder`` must not be loaded (missing, no record, or a size or
    SHA-256 other than its record's), or None when it matches its record."""
    path, record_path = os.path.join(folder, LIBRARY_NAME), os.path.join(folder, RECORD_NAME)
    if not os.path.exists(path):
        return "missing"
    try:
        check_private(record_path)
        with open(record_path, encoding="utf-8") as f:
            record = json.load(f)
        expected = (record["size"], record["sha256"])
    except FileNotFoundError:
        return f"no record of its size and SHA-256 ({RECORD_NAME})"
    except (ValueError, KeyError, TypeError, OSError) as e:
        return f"its record {RECORD_NAME} is unreadable ({type(e).__name__})"
    size = os.stat(path).st_size
    if size != expected[0]:
        return f"{size} bytes where its record says {expected[0]}"
    if _measure(path)[1] != expected[1]:
        return "its SHA-256 is not its record's"
    return None


def _why(error: BaseException) -> str:
    if isinstance(error, subprocess.CalledProcessError):
        detail = (error.stderr or b"").decode(errors="replace").strip().splitlines()
        return f"{Path(error.cmd[0]).name} failed: {detail[-1] if detail else 'exit status ' + str(error.returncode)}"
    return f"{type(error).__name__}: {error}"


def load():
    """The loaded op library (its ops as functions, such as ``kvec_encode``), built first where this
    TensorFlow has no cached build; None, with one :class:`OpLibraryWarning` per process, when it
    cannot be built or loaded."""
    global _library, _failure
    with _lock:
        if _library is None and _failure is None:
            try:
                _library = _build_and_load()
            except (OSError, subprocess.CalledProcessError, tf.errors.NotFoundError, UnsafeCacheError) as e:
                _failure = _why(e)
                warnings.warn(
                    f"kvec could not build its TensorFlow op library ({_failure}): layers run their "
                    "tokenizer through tf.numpy_function, and models holding them cannot be exported",
                    OpLibraryWarning,
                    stacklevel=3,
                )
        return _library


def _build_and_load():
    sources, toolchain = source_folder(), _Toolchain.here()
    folder = _folder(sources, toolchain)
    path = os.path.join(folder, LIBRARY_NAME)
    problem = _unverified(folder)
    if problem is not None:
        if problem != "missing":
            warnings.warn(
                f"kvec's cached op library {path} failed its check ({problem}): it is not loaded, and is built again",
                OpLibraryWarning,
                stacklevel=4,
            )
        print(
            f"kvec: compiling its TensorFlow ops for TensorFlow {tf.__version__} (once; about half a minute) "
            f"into {folder}",
            file=sys.stderr,
            flush=True,
        )
        _build(sources, toolchain, folder)
        problem = _unverified(folder)
        if problem is not None:  # changed under us since the build: never loaded unchecked
            raise OSError(f"{path} failed its check right after it was built ({problem})")
    check_private(path)
    return tf.load_op_library(path)


def failure() -> str | None:
    """Why :func:`load` returned None in this process, or None."""
    return _failure
