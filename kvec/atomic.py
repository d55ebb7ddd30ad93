"""Atomic, durable file writes: a reader finds the old file or the new one, never a partial one.

Every file kvec writes goes through :func:`atomic_write`. The content goes to a temporary file in the
target's folder, which is flushed and fsynced, then renamed over the target (``os.replace``, atomic on
POSIX and Windows), and the folder is fsynced so the rename survives a power cut. If the writer fails,
the temporary file is removed and the target is untouched; if the process is killed, at worst a
``.kvec-*.tmp`` file is left beside an intact target.

Permissions are those of an ordinary ``open(path, "w")``: a new file gets ``0o666`` less the umask
(``0o644`` under the usual ``022``), and a file that is replaced keeps its mode (its read, write and
execute bits). For a new file the temporary file is created with ``0o666``, so the operating system
applies the umask itself: reading the umask with ``os.umask`` would briefly change it for every thread
of the process. A replacement takes the old file's mode before any content is written.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

__all__ = ["atomic_write"]

_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
_NAME_ATTEMPTS = 100


@contextmanager
def atomic_write(path: str | os.PathLike[str], binary: bool = False) -> Iterator[IO[Any]]:
    """A file object to write ``path``'s new content to; the content replaces ``path`` on success.

    A new file's mode follows the umask; a replaced file keeps its mode.

    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "notes.txt")
        >>> with atomic_write(path) as f:
        ...     _ = f.write("complete")
        >>> open(path).read()
        'complete'
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    old_mode = _permissions_of(path)
    # A replacement starts private and takes the old file's mode before any content is written, so the
    # content is never readable by more users than the old file's was.
    fd, temporary = _create_temporary(folder, 0o666 if old_mode is None else 0o600)
    try:
        if old_mode is not None:
            _set_permissions(fd, temporary, old_mode)
        f: IO[Any] = os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8")
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    _sync_folder(folder)


def _create_temporary(folder, mode):
    """Create a new, empty file in ``folder`` with ``mode`` less the umask: ``(descriptor, path)``."""
    for _ in range(_NAME_ATTEMPTS):
        temporary = os.path.join(folder, f".kvec-{secrets.token_hex(8)}.tmp")
        try:
            return os.open(temporary, _CREATE_FLAGS, mode), temporary
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary file name in {folder!r} after {_NAME_ATTEMPTS} attempts")


def _permissions_of(path):
    """The permission bits of the file at ``path``, or None where there is none.

    Only the read, write and execute bits carry over to a replacement: set-user-ID and set-group-ID
    would otherwise pass to content that was never checked, which writing in place would have cleared.
    """
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        return None


def _set_permissions(fd, temporary, mode):
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)
    else:  # Windows
        os.chmod(temporary, mode)


def _sync_folder(folder):
    """Make the rename durable (POSIX; Windows has no folder handles to sync)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
