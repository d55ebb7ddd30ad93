"""Atomic, durable file writes: a reader finds the old file or the new one, never a partial one.

Every file kvec writes goes through :func:`atomic_write`. The content goes to a temporary file in the
target's folder, which is flushed and fsynced, then renamed over the target (``os.replace``, atomic on
POSIX and Windows), and the folder is fsynced so the rename survives a power cut. If the writer fails,
the temporary file is removed and the target is untouched; if the process is killed, at worst a
``.kvec-*.tmp`` file is left beside an intact target.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

__all__ = ["atomic_write"]


@contextmanager
def atomic_write(path: str | os.PathLike[str], binary: bool = False) -> Iterator[IO[Any]]:
    """A file object to write ``path``'s new content to; the content replaces ``path`` on success.

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
    fd, temporary = tempfile.mkstemp(prefix=".kvec-", suffix=".tmp", dir=folder)
    try:
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
